package stats_test

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/picl"
	"github.com/hpctrace/hpctrace/stats"
	"pgregory.net/rapid"
)

// parent returns the rank rank sends to in a binary reduction tree of
// ranks (step 1, 2, 4, …: rank r with r mod 2s == s sends to r - s), and
// the ranks of r's subtree, [r, end).
func parent(r, n int) (p, end int) {
	if r == 0 {
		return -1, n
	}
	low := r & -r
	return r - low, min(r+low, n)
}

// epochRun profiles the events of each rank's locations (owner[l] is the
// rank of location l) in epochs that end at the times in ends: after
// each epoch the ranks, children first, adopt what their children
// detached and detach what waits outside their subtree for their parent.
// Then the ranks' states are joined up the same tree (saved and read
// back if save), and rank 0's is returned, with the largest detached
// state and the largest saved state.
func epochRun(t rapid.TB, d *model.Defs, events []model.Event, owner []int, n int, ends []model.Time, opts *stats.Options, save bool) (acc *stats.Accumulator, detached, saved int) {
	accs := make([]*stats.Accumulator, n)
	for r := range accs {
		accs[r] = stats.New(d, opts)
	}
	next := make([]int, n) // per rank, the index in events of its next event
	feedTo := func(r int, end model.Time, all bool) {
		for ; next[r] < len(events); next[r]++ {
			ev := &events[next[r]]
			if owner[ev.Loc] != r {
				continue
			}
			if !all && ev.Time > end {
				return
			}
			accs[r].Add(ev)
		}
	}
	for _, end := range ends {
		for r := range n {
			feedTo(r, end, false)
		}
		for r := n - 1; r > 0; r-- {
			p, e := parent(r, n)
			data := accs[r].DetachPending(func(l model.LocID) bool { return owner[l] >= r && owner[l] < e })
			detached = max(detached, len(data))
			if err := accs[p].AdoptPending(data); err != nil {
				t.Fatal(err)
			}
		}
	}
	for r := range n {
		feedTo(r, 0, true)
	}
	for step := 1; step < n; step *= 2 {
		for r := 0; r+step < n; r += 2 * step {
			b := accs[r+step]
			if save {
				data, err := b.MarshalBinary()
				if err != nil {
					t.Fatal(err)
				}
				saved = max(saved, len(data))
				b = new(stats.Accumulator)
				if err := b.UnmarshalBinary(data); err != nil {
					t.Fatal(err)
				}
			}
			if err := accs[r].Join(b); err != nil {
				t.Fatal(err)
			}
		}
	}
	return accs[0], detached, saved
}

// propEpochs: ranks that read a random partition of the locations in
// random time epochs, detaching and adopting what waits for other ranks
// after each, and join up a tree at the end, give the report of one pass
// over the whole trace, byte for byte.
func propEpochs(t *rapid.T) {
	d, events := shardTrace(t)
	opts := &stats.Options{Relative: picl.RelativeStats(-1, 1), IdleRegions: []model.RegionID{1}}
	n := rapid.IntRange(1, 4).Draw(t, "ranks")
	owner := make([]int, d.NumLocations()+1)
	random := rapid.Bool().Draw(t, "randomOwners")
	for l := 1; l <= d.NumLocations(); l++ {
		owner[l] = l % n
		if random {
			owner[l] = rapid.IntRange(0, n-1).Draw(t, "owner")
		}
	}
	var ends []model.Time
	if len(events) > 0 {
		// Times may go backwards (the generator makes clock faults), so
		// the epochs span the smallest to the largest time, not the first
		// to the last event's.
		lo, hi := int64(events[0].Time), int64(events[0].Time)
		for _, e := range events {
			lo, hi = min(lo, int64(e.Time)), max(hi, int64(e.Time))
		}
		lo, hi = lo-2, hi+2
		for _, e := range rapid.SliceOfN(rapid.Int64Range(lo, hi), 0, 8).Draw(t, "ends") {
			ends = append(ends, model.Time(e))
		}
		slices.Sort(ends)
	}
	got, _, _ := epochRun(t, d, events, owner, n, ends, opts, rapid.Bool().Draw(t, "save"))
	want := feed(d, events, nil, opts)
	jw, jg := reportJSON(t, want), reportJSON(t, got)
	if !bytes.Equal(jw, jg) {
		t.Fatalf("epochs differ from one pass:\n%s", firstDiff(jw, jg))
	}
}

func TestEpochs(t *testing.T) { rapid.Check(t, propEpochs) }

// ringTrace returns a trace of nloc locations that, iters times, each
// send to the next location, receive from the previous one and, if
// barrier, join a barrier of all.
func ringTrace(nloc, iters int, barrier bool) (*model.Defs, []model.Event) {
	d := new(model.Defs)
	d.TimeBase.TicksPerSecond = 1000
	for i := range nloc {
		d.AddLocation(model.Location{Native: int64(i), Process: int32(i)})
	}
	send := d.AddRegion(model.Region{Native: 1, Name: "MPI_Send", Kind: model.RegionComm})
	recv := d.AddRegion(model.Region{Native: 2, Name: "MPI_Recv", Kind: model.RegionComm})
	coll := d.AddRegion(model.Region{Native: 3, Name: "MPI_Barrier", Kind: model.RegionCollective})
	all := make([]model.LocID, nloc)
	for i := range all {
		all[i] = model.LocID(i + 1)
	}
	world := d.AddComm(model.Comm{Native: 0, Name: "world", Members: all})
	var events []model.Event
	for i := range iters {
		t := model.Time(i * 200)
		steps := 6
		if barrier {
			steps = 10
		}
		for step := range steps {
			for l := 1; l <= nloc; l++ {
				ev := model.Event{Time: t + model.Time(10*step+l), Loc: model.LocID(l)}
				switch step {
				case 0:
					ev.Kind, ev.Region = model.KindEnter, send
				case 1:
					ev.Kind, ev.Peer, ev.Bytes = model.KindSend, model.LocID(l%nloc+1), 64
				case 2:
					ev.Kind, ev.Region = model.KindLeave, send
				case 3:
					ev.Kind, ev.Region = model.KindEnter, recv
				case 4:
					ev.Kind, ev.Peer, ev.Bytes = model.KindRecv, model.LocID((l+nloc-2)%nloc+1), 64
				case 5:
					ev.Kind, ev.Region = model.KindLeave, recv
				case 6:
					ev.Kind, ev.Region = model.KindEnter, coll
				case 7:
					ev.Kind, ev.Region, ev.Comm, ev.Class = model.KindCollBegin, coll, world, model.ClassBarrier
				case 8:
					ev.Kind = model.KindCollEnd
				case 9:
					ev.Kind, ev.Region = model.KindLeave, coll
				}
				events = append(events, ev)
			}
		}
	}
	return d, events
}

// everyIters returns the ends of epochs of k iterations of a ring trace.
func everyIters(iters, k int) []model.Time {
	var ends []model.Time
	for i := k; i < iters; i += k {
		ends = append(ends, model.Time(i*200-1))
	}
	return ends
}

// TestEpochMemory: on a ring whose every message crosses ranks, what a
// rank detaches per epoch does not grow with the trace, while a rank's
// state without epochs does; the report is the one-pass report.
func TestEpochMemory(t *testing.T) {
	const nloc, n = 8, 4
	owner := make([]int, nloc+1)
	for l := 1; l <= nloc; l++ {
		owner[l] = l % n
	}
	var largest, final, whole []int
	for _, iters := range []int{200, 600} {
		d, events := ringTrace(nloc, iters, true)
		got, most, last := epochRun(t, d, events, owner, n, everyIters(iters, 10), nil, true)
		want := feed(d, events, nil, nil)
		if jw, jg := reportJSON(t, want), reportJSON(t, got); !bytes.Equal(jw, jg) {
			t.Fatalf("%d iterations: epochs differ from one pass:\n%s", iters, firstDiff(jw, jg))
		}
		largest, final = append(largest, most), append(final, last)
		data, err := feed(d, events, map[model.LocID]bool{1: true, 5: true}, nil).MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		whole = append(whole, len(data))
	}
	t.Logf("largest state detached after an epoch %v bytes, saved at the end %v, a rank's saved state without epochs %v", largest, final, whole)
	for _, f := range [][]int{largest, final} {
		if f[0] == 0 || f[1] > f[0]+f[0]/10 {
			t.Errorf("a state of a rank grows with the trace: %v bytes at 1× and 3× its length", f)
		}
	}
	if whole[1] < 2*whole[0] {
		t.Errorf("a rank's state without epochs does not grow with the trace: %v bytes", whole)
	}
}

// TestEpochMaxPending: a bound on the pending message ends that a rank
// of a reduction without epochs exceeds, evicting, holds with epochs, and
// the report is the one-pass report.
func TestEpochMaxPending(t *testing.T) {
	const nloc, n, iters = 4, 2, 100
	d, events := ringTrace(nloc, iters, true)
	owner := []int{0, 1, 0, 1, 0}
	opts := &stats.Options{MaxPending: 64}
	want := feed(d, events, nil, opts)
	if ev := want.Finalize().Final.Diagnostics.PendingEvicted; ev != 0 {
		t.Fatalf("one pass evicted %d", ev)
	}
	without, _, _ := epochRun(t, d, events, owner, n, nil, opts, false)
	if ev := without.Finalize().Final.Diagnostics.PendingEvicted; ev == 0 {
		t.Fatal("no eviction without epochs: the test shows nothing")
	}
	with, _, _ := epochRun(t, d, events, owner, n, everyIters(iters, 4), opts, false)
	if jw, jg := reportJSON(t, want), reportJSON(t, with); !bytes.Equal(jw, jg) {
		t.Fatalf("epochs differ from one pass:\n%s", firstDiff(jw, jg))
	}
}

// TestAdoptErrors: what is not a detached state, or names the adopter's
// own locations, is refused with ErrState and changes nothing.
func TestAdoptErrors(t *testing.T) {
	d, events := ringTrace(4, 3, true)
	part := feed(d, events, map[model.LocID]bool{1: true, 3: true}, nil)
	data := part.DetachPending(func(l model.LocID) bool { return l%2 == 1 })
	own := feed(d, events, map[model.LocID]bool{1: true}, nil)
	before := reportJSON(t, own)
	for name, bad := range map[string][]byte{
		"empty":     nil,
		"truncated": data[:len(data)-1],
		"trailing":  append(slices.Clip(data), 0),
		"own":       data,
		"saved":     func() []byte { b, _ := own.MarshalBinary(); return b }(),
	} {
		if err := own.AdoptPending(bad); !errors.Is(err, stats.ErrState) {
			t.Errorf("%s: %v, want ErrState", name, err)
		}
	}
	if after := reportJSON(t, own); !bytes.Equal(before, after) {
		t.Errorf("a refused state changed the accumulator:\n%s", firstDiff(before, after))
	}
}

// FuzzAdoptPending: a bad detached state is an error, never a panic.
func FuzzAdoptPending(f *testing.F) {
	d, events := ringTrace(4, 3, true)
	for _, r := range []model.LocID{0, 1} {
		part := feed(d, events, map[model.LocID]bool{r + 1: true, r + 3: true}, nil)
		f.Add(part.DetachPending(func(l model.LocID) bool { return l%2 == r }))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a := feed(d, events, map[model.LocID]bool{2: true, 4: true}, nil)
		if err := a.AdoptPending(data); err != nil {
			return
		}
		a.Finalize()
	})
}

// BenchmarkDetachAdopt: the cost of an epoch's hand-over per message end
// that crosses ranks, on a ring of 8 locations in two shards (every
// message crosses): the rank of the odd locations detaches its pending
// ends, the other adopts them, matching each.
func BenchmarkDetachAdopt(b *testing.B) {
	const nloc, iters = 8, 5000
	d, events := ringTrace(nloc, iters, false)
	odd, even := map[model.LocID]bool{}, map[model.LocID]bool{}
	for l := model.LocID(1); l <= nloc; l++ {
		if l%2 == 1 {
			odd[l] = true
		} else {
			even[l] = true
		}
	}
	var bytes int
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		child, parent := feed(d, events, odd, nil), feed(d, events, even, nil)
		b.StartTimer()
		data := child.DetachPending(func(l model.LocID) bool { return odd[l] })
		if err := parent.AdoptPending(data); err != nil {
			b.Fatal(err)
		}
		bytes = len(data)
	}
	ends := float64(nloc / 2 * iters * 2) // a send and a receive per location and iteration
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/ends, "ns/end")
	b.ReportMetric(float64(bytes)/ends, "bytes/end")
}
