package waitstate

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/hpctrace/hpctrace/eventjson"
	"github.com/hpctrace/hpctrace/internal/benchtrace"
	"github.com/hpctrace/hpctrace/model"
)

// TestBytesPerCall pins what the analysis keeps (with Options.KeepLogs:
// settling keeps less, TestHeldFlat) and allocates for bench's
// generated MPI run (a stencil code's mix of point-to-point calls,
// messages and collectives): the bytes an Analyzer holds once every event
// is added, and the bytes Finalize allocates, per MPI call, at two trace
// lengths. Bytes, unlike time, do not depend on how busy the machine is.
// Both grow with the MPI calls and messages (the log), so they are the
// same per call at both lengths, within the slack of logs that grow by
// doubling.
func TestBytesPerCall(t *testing.T) {
	measure := func(n int64) (held, fin float64, calls, msgs int64) {
		defs, evs := mpiRun(n)
		var m0, m1, m2 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		a := New(defs, &Options{KeepLogs: true})
		for i := range evs {
			a.Add(&evs[i])
		}
		a.end()
		runtime.GC()
		runtime.ReadMemStats(&m1)
		runtime.KeepAlive(evs)
		rep, err := a.Finalize()
		if err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&m2)
		calls, msgs = rep.Diagnostics.MPICalls, rep.Diagnostics.MatchedMessages
		runtime.KeepAlive(a)
		runtime.KeepAlive(evs)
		return float64(m1.HeapAlloc-m0.HeapAlloc) / float64(calls), float64(m2.TotalAlloc-m1.TotalAlloc) / float64(calls), calls, msgs
	}
	// Bytes per MPI call. The log holds about a callRec, two
	// boundaries, two gap entries and 1.3 point-to-point records per call
	// (in this mix), and up to twice that while it doubles.
	const maxHeld, maxFin = 320, 280
	sHeld, sFin, sCalls, sMsgs := measure(200_000)
	bHeld, bFin, bCalls, bMsgs := measure(1_000_000)
	t.Logf("%d calls, %d messages: %.0f bytes per call held, %.0f allocated by Finalize; %d calls, %d messages: %.0f, %.0f",
		sCalls, sMsgs, sHeld, sFin, bCalls, bMsgs, bHeld, bFin)
	for _, c := range []struct {
		what       string
		small, big float64
		bound      float64
	}{{"held after adding the events", sHeld, bHeld, maxHeld}, {"allocated by Finalize", sFin, bFin, maxFin}} {
		if c.small > c.bound || c.big > c.bound {
			t.Errorf("%s: %.0f and %.0f bytes per MPI call, want at most %.0f", c.what, c.small, c.big, c.bound)
		}
		if c.big > 2*c.small || c.small > 2*c.big {
			t.Errorf("%s: %.0f bytes per MPI call at %d calls, %.0f at %d: not proportional to the calls", c.what, c.big, bCalls, c.small, sCalls)
		}
	}
}

// TestBytesPerLocationNoMPI pins what a location without MPI calls costs
// the analysis: n locations that each enter and leave a region of their
// own and one they share (internal/benchtrace.Locations, the shape of a
// large run's trace) allocate, while their events are added and their
// streams end, and hold afterwards, a bounded number of bytes per
// location, the same at 10^3 and 10^4 locations; and the Analyzer says it
// has no call, so that tracestat skips Finalize. A location used to cost
// about 1.7 KiB: its log's room for 16 boundaries, gaps and entries, its
// room for MPI calls and their events, and the copies of every location's
// log as the list of logs grew; then about 365 bytes allocated and 250
// held, its log's gap slices and MPI part inline. What is left is the
// times, the stream state (the stack of open regions, the gap's entries
// per call path), held inline with the one gap's entries, and the call
// path of the location's own region; the rest of a log waits for the
// location's first MPI call.
func TestBytesPerLocationNoMPI(t *testing.T) {
	perLoc := func(n int) (alloc, held uint64) {
		var b bytes.Buffer
		if err := benchtrace.Locations(&b, n); err != nil {
			t.Fatal(err)
		}
		r, err := eventjson.NewReader(&b, nil)
		if err != nil {
			t.Fatal(err)
		}
		var evs []model.Event
		for r.Next() {
			evs = append(evs, *r.Event())
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		var m0, m1, m2 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		a := New(r.Defs(), nil)
		for i := range evs {
			a.Add(&evs[i])
		}
		a.end()
		runtime.ReadMemStats(&m1)
		runtime.GC()
		runtime.ReadMemStats(&m2)
		if a.HasCalls() {
			t.Fatal("HasCalls: true for a trace without MPI calls")
		}
		runtime.KeepAlive(a)
		runtime.KeepAlive(evs)
		return (m1.TotalAlloc - m0.TotalAlloc) / uint64(n), (max(m2.HeapAlloc, m0.HeapAlloc) - m0.HeapAlloc) / uint64(n)
	}
	const maxAlloc, maxHeld = 280, 200 // per location
	sa, sh := perLoc(1000)
	ba, bh := perLoc(10000)
	t.Logf("bytes per location without MPI calls: %d allocated, %d held at 10^3 locations; %d, %d at 10^4", sa, sh, ba, bh)
	if sa > maxAlloc || ba > maxAlloc {
		t.Errorf("%d and %d bytes allocated per location at 10^3 and 10^4 locations, want at most %d", sa, ba, maxAlloc)
	}
	if sh > maxHeld || bh > maxHeld {
		t.Errorf("%d and %d bytes held per location at 10^3 and 10^4 locations, want at most %d", sh, bh, maxHeld)
	}
	if ba > 2*sa {
		t.Errorf("%d bytes allocated per location at 10^4 locations, %d at 10^3: grows with the locations", ba, sa)
	}
}

// TestCollectivesScratch pins that the collectives of a settled
// interval's fin work in the storage its scratch hands from interval to
// interval (the instances' map, keys and members, the per-location parts
// and hand-overs): a second pass over the same logs allocates nothing.
// Each pass used to make its map, a slice of members per instance and
// the per-location lists anew.
func TestCollectivesScratch(t *testing.T) {
	defs, evs := mpiWorkload(8, 40)
	a := New(defs, &Options{KeepLogs: true})
	for i := range evs {
		a.Add(&evs[i])
	}
	f := a.newFin()
	f.sc = new(finScratch)
	f.collectives()
	if len(f.collMembers) == 0 || len(f.insts) == 0 {
		t.Fatalf("%d collective instances, %d pattern instances: the workload has no collective to measure", len(f.collMembers), len(f.insts))
	}
	insts := f.insts
	if n := testing.AllocsPerRun(20, func() {
		f.insts = insts[:0]
		f.collectives()
	}); n != 0 {
		t.Errorf("collectives allocates %.1f times on a second pass with its scratch; want 0", n)
	}
}
