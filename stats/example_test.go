package stats_test

import (
	"fmt"
	"strings"

	"github.com/hpctrace/hpctrace/eventjson"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
)

// A receiver that waits for a late sender: the synchronisation delay is the
// time from the start of the receive to the start of the send.
func ExampleAccumulator() {
	const trace = `{"format":"trace-events-json/1","ticks_per_second":1000000,
 "locations":[{"id":0,"name":"rank0"},{"id":1,"name":"rank1"}],
 "regions":[{"id":1,"name":"main","kind":"function"},{"id":2,"name":"MPI_Send","kind":"comm"},{"id":3,"name":"MPI_Recv","kind":"comm"}],
 "events":[
  {"t":0,"loc":0,"kind":"enter","region":1},{"t":0,"loc":1,"kind":"enter","region":1},
  {"t":10,"loc":1,"kind":"enter","region":3},
  {"t":50,"loc":0,"kind":"enter","region":2},
  {"t":51,"loc":0,"kind":"send","peer":1,"tag":0,"comm":0,"bytes":4096},
  {"t":60,"loc":0,"kind":"leave","region":2},
  {"t":70,"loc":1,"kind":"recv","peer":0,"tag":0,"comm":0,"bytes":4096},
  {"t":70,"loc":1,"kind":"leave","region":3},
  {"t":100,"loc":0,"kind":"leave","region":1},{"t":100,"loc":1,"kind":"leave","region":1}]}`
	src, err := eventjson.NewReader(strings.NewReader(trace), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	acc := stats.New(src.Defs(), nil)
	for ev, err := range src.All() {
		if err != nil {
			fmt.Println(err)
			return
		}
		acc.Add(ev)
	}
	rep := acc.Finalize()
	for _, c := range rep.Final.Com {
		fmt.Printf("rank %d %s %s rank %d: %d bytes, sync %d us, trans %d us\n", c.Loc, c.Op, c.Dir, c.Peer, c.Bytes, c.SyncDelay, c.TransTime)
	}
	fmt.Println("transfer time:", rep.Final.TransferTime[0].Sum, "us")
	// Output:
	// rank 0 MPI_Send send rank 1: 4096 bytes, sync 0 us, trans 10 us
	// rank 1 MPI_Recv recv rank 0: 4096 bytes, sync 40 us, trans 20 us
	// transfer time: 19 us
}

// Interval summaries: p([a, b)) = p(b) - p(a).
func ExampleSample_Sub() {
	var defs model.Defs
	loc := defs.AddLocation(model.Location{Native: 0})
	work := defs.AddRegion(model.Region{Native: 1, Name: "work", Kind: model.RegionFunction})
	acc := stats.New(&defs, &stats.Options{SampleTimes: []model.Time{100, 200}})
	for _, ev := range []model.Event{
		{Time: 50, Loc: loc, Kind: model.KindEnter, Region: work},
		{Time: 150, Loc: loc, Kind: model.KindLeave, Region: work},
		{Time: 180, Loc: loc, Kind: model.KindEnter, Region: work},
		{Time: 300, Loc: loc, Kind: model.KindLeave, Region: work},
	} {
		acc.Add(&ev)
	}
	s := acc.Finalize().Samples
	d := s[1].Sub(s[0])
	f := d.Functions[0]
	fmt.Printf("[%d, %d): %s visits %d, excl %d\n", s[0].Time, s[1].Time, f.Region, f.Visits, f.Excl)
	// Output: [100, 200): work visits 1, excl 70
}
