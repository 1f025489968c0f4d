package stats_test

import (
	"testing"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
)

// BenchmarkCallTreeAdd measures CallTree.Add on the enter/leave pattern of
// an iterative MPI code: per location, compute, a send and a receive
// inside main.
func BenchmarkCallTreeAdd(b *testing.B) {
	d := new(model.Defs)
	const locs = 8
	for range locs {
		d.AddLocation(model.Location{})
	}
	main := d.AddRegion(model.Region{Name: "main"})
	var evs []model.Event
	for l := model.LocID(1); l <= locs; l++ {
		evs = append(evs, model.Event{Loc: l, Kind: model.KindEnter, Region: main})
	}
	for i := range 1000 {
		for l := model.LocID(1); l <= locs; l++ {
			t := model.Time(i * 10)
			for r := model.RegionID(2); r <= 4; r++ {
				evs = append(evs, model.Event{Time: t, Loc: l, Kind: model.KindEnter, Region: r},
					model.Event{Time: t + 2, Loc: l, Kind: model.KindSend},
					model.Event{Time: t + 3, Loc: l, Kind: model.KindLeave, Region: r})
			}
		}
	}
	for l := model.LocID(1); l <= locs; l++ {
		evs = append(evs, model.Event{Time: 10000, Loc: l, Kind: model.KindLeave, Region: main})
	}
	for range 3 {
		d.AddRegion(model.Region{})
	}
	ct := stats.NewCallTree(d, nil)
	b.ReportAllocs()
	for b.Loop() {
		for i := range evs {
			ct.Add(&evs[i])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(evs)), "ns/event")
}
