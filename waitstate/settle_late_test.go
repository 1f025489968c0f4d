package waitstate

import (
	"cmp"
	"reflect"
	"slices"
	"testing"

	"github.com/hpctrace/hpctrace/model"
)

// TestSettleLateCaller: a location that first calls MPI after a stretch
// was settled (one outside the communicator of the settling points, or
// one that had not called MPI when the others settled) and whose first
// wait state pairs it with a location of the settled stretch: the pair
// never synchronised, so the wait state's interval reaches back to the
// start of the run on both (doc/waitstates.md §3.1), into the settled
// stretch. The report is that of the logs kept whole.
func TestSettleLateCaller(t *testing.T) {
	build := func(lateWaits, inWorld bool) (*model.Defs, []model.Event) {
		b := newTB(3)
		sub := b.defs.AddComm(model.Comm{Native: 1, Name: "sub", Members: []model.LocID{1, 2}})
		if inWorld {
			sub = 1 // location 3 joins the barrier after the others left it
			b.call(3, 62, 63, "MPI_Barrier", model.Event{Kind: model.KindCollBegin, Comm: sub}, model.Event{Kind: model.KindCollEnd, Time: 63})
		}
		bar := func(loc model.LocID, e, x model.Time) {
			b.call(loc, e, x, "MPI_Barrier", model.Event{Kind: model.KindCollBegin, Comm: sub}, model.Event{Kind: model.KindCollEnd, Time: x})
		}
		for loc := model.LocID(1); loc <= 3; loc++ {
			b.enter(loc, 0, "main")
		}
		// Locations 1 and 2 exchange a message with a wait state (so
		// the settled stretch has a candidate), then meet in a barrier on
		// their communicator, which settles the stretch.
		b.call(1, 2, 8, "work")
		b.call(2, 1, 3, "work")
		b.call(2, 3, 9, "MPI_Recv", recv(1, 0))
		b.call(1, 8, 9, "MPI_Send", send(2, 0))
		bar(1, 10, 20)
		bar(2, 15, 20)
		b.call(1, 20, 27, "work")
		b.call(3, 1, 60, "work") // location 3 has not called MPI yet
		if lateWaits {
			// 3 waits for 1, which sends late.
			b.call(3, 61, 90, "MPI_Recv", recv(1, 1))
			b.call(1, 80, 85, "MPI_Send", send(3, 1))
		} else {
			// 1 waits for 3, which sends late.
			b.call(1, 30, 90, "MPI_Recv", recv(3, 1))
			b.call(3, 70, 75, "MPI_Send", send(1, 1))
		}
		for loc := model.LocID(1); loc <= 3; loc++ {
			b.leave(loc, 100, "main")
		}
		evs := slices.Clone(b.ev)
		slices.SortStableFunc(evs, func(x, y model.Event) int { return cmp.Compare(x.Time, y.Time) })
		return b.defs, evs
	}
	for _, inWorld := range []bool{false, true} {
		for _, late := range []bool{false, true} {
			defs, evs := build(late, inWorld)
			want, _ := analyzeSettling(t, defs, evs, Options{KeepLogs: true, Instances: true, TopN: 4}, 0)
			got, n := analyzeSettling(t, defs, evs, Options{Instances: true, TopN: 4}, 1)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("barrier over all locations %v, late location waits %v, %d intervals settled: report differs\ngot  %+v\nwant %+v",
					inWorld, late, n, got.DelayCosts, want.DelayCosts)
			}
		}
	}
}

// TestSettleStopsOnNewLocation: once the definitions gain a location
// (sources that define locations as their events name them), no further
// stretch is settled: the new location is outside the communicator of
// the settling points and may call MPI.
func TestSettleStopsOnNewLocation(t *testing.T) {
	defs, evs := mpiRun(300_000)
	a := New(defs, &Options{})
	a.st.min = 1000
	half := len(evs) / 2
	for i := range evs[:half] {
		a.Add(&evs[i])
	}
	n := a.st.epochs
	if n == 0 {
		t.Fatal("no stretch settled in the first half")
	}
	defs.AddLocation(model.Location{Native: 1 << 20, Name: "late thread"})
	for i := range evs[half:] {
		a.Add(&evs[half+i])
	}
	if a.st.epochs != n {
		t.Errorf("%d stretches settled after the definitions gained a location, want none", a.st.epochs-n)
	}
	if _, err := a.Finalize(); err != nil {
		t.Fatal(err)
	}
}
