package picl_test

import (
	"log"
	"os"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/picl"
)

// A ModelWriter converts model events, from any source, to a PICL trace
// ParaGraph can display.
func ExampleNewModelWriter() {
	d := new(model.Defs)
	d.TimeBase.TicksPerSecond = 1_000_000
	r0 := d.AddLocation(model.Location{Name: "rank 0"})
	r1 := d.AddLocation(model.Location{Name: "rank 1", Process: 1})
	work := d.AddRegion(model.Region{Name: "work", Kind: model.RegionFunction})
	events := []model.Event{
		{Time: 10, Loc: r0, Kind: model.KindEnter, Region: work},
		{Time: 12, Loc: r0, Kind: model.KindSend, Peer: r1, Tag: 7, Bytes: 1024},
		{Time: 15, Loc: r0, Kind: model.KindLeave, Region: work},
		{Time: 20, Loc: r1, Kind: model.KindRecv, Peer: r0, Tag: 7, Bytes: 1024, Flags: model.Waited},
	}
	w, err := picl.NewModelWriter(os.Stdout, d, nil)
	if err != nil {
		log.Fatal(err)
	}
	for i := range events {
		if err := w.Write(&events[i]); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// -5 -1 0.000010 0 0 6 0 rank 0
	// -5 -1 0.000010 1 0 6 0 rank 1
	// -5 0 0.000010 -1 -1 4 0 work
	// -3 -901 0.000010 0 0 0
	// -3 -901 0.000010 1 0 0
	// -3 0 0.000010 0 0 0
	// -3 -21 0.000012 0 0 3 2 1024 7 1
	// -4 -21 0.000012 0 0 0
	// -4 0 0.000015 0 0 0
	// -3 -52 0.000020 1 0 1 2 7
	// -4 -52 0.000020 1 0 3 2 1024 7 0
	// -4 -901 0.000020 0 0 0
	// -4 -901 0.000020 1 0 0
}
