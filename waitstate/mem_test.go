package waitstate

import (
	"runtime"
	"testing"
)

// TestBytesPerCall pins what the analysis keeps and allocates for bench's
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
		a := New(defs, nil)
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
