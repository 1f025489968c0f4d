package export_test

import (
	"fmt"
	"os"

	"github.com/hpctrace/hpctrace/export"
	"github.com/hpctrace/hpctrace/model"
)

// A trace with one message, exported as the Chrome Trace Event Format.
func ExampleWriteChrome() {
	d := new(model.Defs)
	d.TimeBase.TicksPerSecond = 1e6 // µs ticks
	a := d.AddLocation(model.Location{Name: "rank 0"})
	b := d.AddLocation(model.Location{Name: "rank 1", Process: 1})
	send := d.AddRegion(model.Region{Name: "MPI_Send", Kind: model.RegionComm})
	src := model.NewSliceSource(d, []model.Event{
		{Time: 10, Loc: a, Kind: model.KindEnter, Region: send},
		{Time: 12, Loc: a, Kind: model.KindSend, Peer: b, Bytes: 64},
		{Time: 15, Loc: a, Kind: model.KindLeave, Region: send},
	})
	if err := export.WriteChrome(os.Stdout, src); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {"hpctrace":{"ticks_per_second":1000000},"traceEvents":[
	// {"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"rank 0"}},
	// {"ph":"M","name":"process_sort_index","pid":1,"tid":0,"args":{"sort_index":0}},
	// {"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"rank 0","process":0}},
	// {"ph":"M","name":"thread_sort_index","pid":1,"tid":1,"args":{"sort_index":1}},
	// {"ph":"M","name":"process_name","pid":2,"tid":0,"args":{"name":"rank 1"}},
	// {"ph":"M","name":"process_sort_index","pid":2,"tid":0,"args":{"sort_index":1}},
	// {"ph":"M","name":"thread_name","pid":2,"tid":2,"args":{"name":"rank 1","process":1}},
	// {"ph":"M","name":"thread_sort_index","pid":2,"tid":2,"args":{"sort_index":2}},
	// {"ph":"B","pid":1,"tid":1,"ts":10,"name":"MPI_Send","cat":"comm"},
	// {"ph":"s","pid":1,"tid":1,"ts":12,"name":"message","cat":"message","id":0,"args":{"bytes":64,"tag":0,"peer":"rank 1"}},
	// {"ph":"E","pid":1,"tid":1,"ts":15}
	// ],
	// "displayTimeUnit":"ns",
	// "otherData":{"producer":"hpctrace","time_base":"1 µs","dropped_no_region":0,"dropped_unmatched":0,"leave_region_mismatch":0,"closed_early":0,"closed_at_end":0,"dropped_unknown_kind":0,"dropped_flows":0,"dropped_no_peer":0,"not_drawn":0,"lost_sites":0,"lost_requests":0,"lost_coll_match":0,"comms_without_members":0}}
}

// Pairing the sends and receives of a trace into messages.
func ExamplePairer() {
	d := new(model.Defs)
	a := d.AddLocation(model.Location{Name: "a"})
	b := d.AddLocation(model.Location{Name: "b"})
	p := export.NewPairer(d, nil)
	print := func(m *export.MessageRow) error {
		fmt.Printf("%d → %d: %d bytes, sent %d, received %d, %s\n", m.Sender, m.Receiver, m.Bytes, m.SendTime, m.RecvTime, m.Status)
		return nil
	}
	for _, ev := range []model.Event{
		{Time: 1, Loc: b, Kind: model.KindRecv, Peer: a, Bytes: 8}, // the receive comes first in the stream
		{Time: 2, Loc: a, Kind: model.KindSend, Peer: b, Bytes: 8},
		{Time: 3, Loc: a, Kind: model.KindSend, Peer: b, Bytes: 16},
	} {
		p.Add(&ev, print)
	}
	p.Flush(print)
	// Output:
	// 1 → 2: 8 bytes, sent 2, received 1, matched
	// 1 → 2: 16 bytes, sent 3, received 0, unmatched_send
}
