package stats_test

import (
	"fmt"
	"log"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
)

// Remove monitoring intrusion: each probe (here every Enter and Leave)
// cost 2 ticks when the trace was recorded, so the k-th probe of a
// location moves back by the cost of the probes before it and its own.
func ExampleVClock() {
	var defs model.Defs
	loc := defs.AddLocation(model.Location{Name: "rank 0"})
	main := defs.AddRegion(model.Region{Name: "main", Kind: model.RegionFunction})
	work := defs.AddRegion(model.Region{Name: "work", Kind: model.RegionFunction})
	src := model.NewSliceSource(&defs, []model.Event{
		{Time: 10, Loc: loc, Kind: model.KindEnter, Region: main},
		{Time: 20, Loc: loc, Kind: model.KindEnter, Region: work},
		{Time: 50, Loc: loc, Kind: model.KindLeave, Region: work},
		{Time: 60, Loc: loc, Kind: model.KindLeave, Region: main},
	})
	v := stats.NewVClock(src, &stats.VClockOptions{Overhead: 2})
	for ev, err := range v.All() {
		if err != nil {
			log.Fatal(err)
		}
		reg, _ := defs.Region(ev.Region)
		fmt.Println(ev.Time, ev.Kind, reg.Name)
	}
	// Output:
	// 8 enter main
	// 16 enter work
	// 44 leave work
	// 52 leave main
}

// Profile the ranks of a trace in separate accumulators (for example in
// parallel goroutines) and merge them: the result is that of one
// accumulator over all the events, bit for bit.
func ExampleAccumulator_Merge() {
	var defs model.Defs
	r0 := defs.AddLocation(model.Location{Name: "rank 0"})
	r1 := defs.AddLocation(model.Location{Name: "rank 1", Native: 1, Process: 1})
	work := defs.AddRegion(model.Region{Name: "work", Kind: model.RegionFunction})
	shard := func(loc model.LocID, t0, t1 model.Time) *stats.Accumulator {
		acc := stats.New(&defs, nil)
		for _, ev := range []model.Event{
			{Time: t0, Loc: loc, Kind: model.KindEnter, Region: work},
			{Time: t1, Loc: loc, Kind: model.KindLeave, Region: work},
		} {
			acc.Add(&ev)
		}
		return acc
	}
	total := shard(r0, 0, 100)
	total.Merge(shard(r1, 5, 35))
	for _, f := range total.Finalize().Final.Functions {
		fmt.Printf("location %d %s: visits %d, excl %d\n", f.Loc, f.Region, f.Visits, f.Excl)
	}
	// Output:
	// location 0 work: visits 1, excl 100
	// location 1 work: visits 1, excl 30
}
