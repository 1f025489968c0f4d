package model_test

import (
	"fmt"

	"github.com/hpctrace/hpctrace/model"
)

func ExampleAll() {
	var defs model.Defs
	defs.TimeBase = model.TimeBase{TicksPerSecond: 1_000_000}
	p0 := defs.AddLocation(model.Location{Native: 0, Name: "rank 0"})
	p1 := defs.AddLocation(model.Location{Native: 1, Name: "rank 1"})
	send := defs.AddRegion(model.Region{Native: 1, Name: "MPI_Send", Kind: model.RegionComm})
	src := model.NewSliceSource(&defs, []model.Event{
		{Time: 10, Loc: p0, Kind: model.KindEnter, Region: send},
		{Time: 11, Loc: p0, Kind: model.KindSend, Peer: p1, Bytes: 4096},
		{Time: 25, Loc: p0, Kind: model.KindLeave, Region: send},
	})

	var sent int64
	for ev, err := range model.All(src) {
		if err != nil {
			fmt.Println(err)
			return
		}
		if ev.Kind == model.KindSend {
			sent += ev.Bytes
		}
	}
	r, _ := src.Defs().Region(send)
	fmt.Println(r.Name, sent, "bytes")
	// Output: MPI_Send 4096 bytes
}

func ExampleNewPrefetcher() {
	var defs model.Defs
	p0 := defs.AddLocation(model.Location{Native: 0, Name: "rank 0"})
	p1 := defs.AddLocation(model.Location{Native: 1, Name: "rank 1"})
	var events []model.Event
	for i := range 10_000 {
		events = append(events, model.Event{Time: model.Time(i), Loc: p0, Kind: model.KindSend, Peer: p1, Bytes: 8})
	}
	// Reading (here from memory; usually parsing a trace) runs in a
	// goroutine of its own while this one consumes the events.
	src := model.NewPrefetcher(model.NewSliceSource(&defs, events), nil)
	defer src.Close() // needed only if the loop may stop early

	var sent int64
	for ev, err := range src.All() {
		if err != nil {
			fmt.Println(err)
			return
		}
		sent += ev.Bytes
	}
	// After the end the source's goroutine is gone; the definitions are
	// read through the Prefetcher, whose copy is complete.
	l, _ := src.Defs().Location(p1)
	fmt.Println(sent, "bytes to", l.Name)
	// Output: 80000 bytes to rank 1
}
