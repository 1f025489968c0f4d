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

// TestSettleLateDefined: a location the definitions gain after a
// stretch was settled (sources that define locations as their events
// name them: OTF processes without a definition, DUMPI threads) that
// then waits for, or delays, a location of the settled stretch: the
// pair never synchronised, so the interval reaches back to the start of
// the run on both, and its candidates are the settled location's wait
// states from the start (doc/waitstates.md §8). The report is that of
// the logs kept whole and of the reference, and the Analyzer settles
// before and after the location was defined.
func TestSettleLateDefined(t *testing.T) {
	const steps = 40
	build := func(lateWaits bool) (*model.Defs, []model.Event) {
		b := newTB(2)
		b.defs.AddLocation(model.Location{Native: 2, Process: 2}) // outside the world communicator
		bar := func(loc model.LocID, e, x model.Time) {
			b.call(loc, e, x, "MPI_Barrier", model.Event{Kind: model.KindCollBegin, Comm: 1}, model.Event{Kind: model.KindCollEnd, Time: x})
		}
		b.enter(1, 0, "main")
		b.enter(2, 0, "main")
		tm := model.Time(1)
		for i := range steps {
			// 2 waits for 1, then both meet in a barrier over every
			// location defined so far.
			b.call(1, tm, tm+7, "work")
			b.call(2, tm, tm+2, "work")
			b.call(2, tm+2, tm+9, "MPI_Recv", recv(1, int32(i)))
			b.call(1, tm+7, tm+9, "MPI_Send", send(2, int32(i)))
			bar(1, tm+9, tm+15)
			bar(2, tm+9+model.Time(i%5), tm+15)
			tm += 20
		}
		b.enter(3, tm, "main")
		if lateWaits {
			b.call(3, tm+1, tm+40, "MPI_Recv", recv(1, 1000))
			b.call(1, tm+30, tm+35, "MPI_Send", send(3, 1000))
		} else {
			b.call(1, tm+1, tm+40, "MPI_Recv", recv(3, 1000))
			b.call(3, tm+30, tm+35, "MPI_Send", send(1, 1000))
		}
		for loc := model.LocID(1); loc <= 3; loc++ {
			b.leave(loc, tm+50, "main")
		}
		evs := slices.Clone(b.ev)
		slices.SortStableFunc(evs, func(x, y model.Event) int { return cmp.Compare(x.Time, y.Time) })
		return b.defs, evs
	}
	// run feeds the events, defining location 3 (and its region) as the
	// stream first names it.
	run := func(lateWaits bool, opts Options) (*Report, int32, int32) {
		full, evs := build(lateWaits)
		defs := &model.Defs{TimeBase: full.TimeBase}
		for _, r := range full.Regions() {
			defs.AddRegion(r)
		}
		defs.AddLocation(full.Locations()[0])
		defs.AddLocation(full.Locations()[1])
		c, _ := full.Comm(1)
		defs.AddComm(c)
		a := New(defs, &opts)
		if a.st != nil {
			a.st.min, a.st.horizonAt = 1, 1
		}
		var before int32
		for i := range evs {
			if evs[i].Loc == 3 && defs.NumLocations() < 3 {
				if a.st != nil {
					before = a.st.epochs
				}
				defs.AddLocation(full.Locations()[2])
			}
			a.Add(&evs[i])
		}
		var n int32
		if a.st != nil {
			n = a.st.epochs
		}
		r, err := a.Finalize()
		if err != nil {
			t.Fatal(err)
		}
		return r, before, n
	}
	for _, late := range []bool{false, true} {
		want, _, _ := run(late, Options{KeepLogs: true, Instances: true, TopN: 4})
		got, before, n := run(late, Options{Instances: true, TopN: 4})
		if before == 0 {
			t.Errorf("late location waits %v: no stretch settled before the location was defined", late)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("late location waits %v, %d stretches settled: report differs\ngot  %+v\nwant %+v", late, n, got.DelayCosts, want.DelayCosts)
		}
		defs, evs := build(late)
		ref := refAnalyze(defs, evs).report
		if !reflect.DeepEqual(got.DelayCosts, ref.DelayCosts) || !reflect.DeepEqual(got.WaitStates, ref.WaitStates) {
			t.Errorf("late location waits %v: report differs from the reference\ngot  %+v\nwant %+v", late, got.DelayCosts, ref.DelayCosts)
		}
	}
}
