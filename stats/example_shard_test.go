package stats_test

import (
	"fmt"
	"log"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
)

// messageTrace defines two ranks and the events of one message from rank
// 0 to rank 1: rank 1 waits in MPI_Recv from 10 until the send starts at 40.
func messageTrace() (*model.Defs, []model.Event) {
	defs := new(model.Defs)
	r0 := defs.AddLocation(model.Location{Name: "rank 0"})
	r1 := defs.AddLocation(model.Location{Name: "rank 1", Native: 1, Process: 1})
	send := defs.AddRegion(model.Region{Name: "MPI_Send", Kind: model.RegionComm})
	recv := defs.AddRegion(model.Region{Name: "MPI_Recv", Kind: model.RegionComm})
	return defs, []model.Event{
		{Time: 10, Loc: r1, Kind: model.KindEnter, Region: recv},
		{Time: 40, Loc: r0, Kind: model.KindEnter, Region: send},
		{Time: 42, Loc: r0, Kind: model.KindSend, Peer: r1, Bytes: 64},
		{Time: 45, Loc: r0, Kind: model.KindLeave, Region: send},
		{Time: 50, Loc: r1, Kind: model.KindRecv, Peer: r0, Bytes: 64},
		{Time: 50, Loc: r1, Kind: model.KindLeave, Region: recv},
	}
}

// Profile each rank of a trace as a separate shard (another process or
// machine), save its state, and join the saved states: the message
// between the shards is matched when they meet, so the receiver's wait
// for the late sender is the same as in one pass over the whole trace.
func ExampleAccumulator_Join() {
	defs, events := messageTrace()
	save := func(loc model.LocID) []byte {
		acc := stats.New(defs, nil)
		for i := range events {
			if events[i].Loc == loc {
				acc.Add(&events[i])
			}
		}
		data, err := acc.MarshalBinary()
		if err != nil {
			log.Fatal(err)
		}
		return data
	}
	parts := [][]byte{save(1), save(2)} // written to files, sent over the network…

	var total stats.Accumulator
	if err := total.UnmarshalBinary(parts[0]); err != nil {
		log.Fatal(err)
	}
	for _, data := range parts[1:] {
		var part stats.Accumulator
		if err := part.UnmarshalBinary(data); err != nil {
			log.Fatal(err)
		}
		if err := total.Join(&part); err != nil {
			log.Fatal(err)
		}
	}
	for _, c := range total.Finalize().Final.Com {
		fmt.Printf("location %d %s %s: matched %d, sync delay %d\n", c.Loc, c.Op, c.Dir, c.Matched, c.SyncDelay)
	}
	// Output:
	// location 0 MPI_Send send: matched 1, sync delay 0
	// location 1 MPI_Recv recv: matched 1, sync delay 30
}

// Read two shards in epochs of trace time and, after each epoch, hand
// what waits for the other shard to it, as tracestat-mpi's ranks do: a
// shard then holds only what is in flight, not what accumulated, and the
// joined result is still that of one pass.
func ExampleAccumulator_DetachPending() {
	defs, events := messageTrace()
	shard1, shard2 := stats.New(defs, nil), stats.New(defs, nil)
	feed := func(from, to model.Time) {
		for i := range events {
			if ev := &events[i]; ev.Time >= from && ev.Time < to {
				if ev.Loc == 1 {
					shard1.Add(ev)
				} else {
					shard2.Add(ev)
				}
			}
		}
	}
	inside2 := func(l model.LocID) bool { return l == 2 }
	for _, epoch := range [][2]model.Time{{0, 44}, {44, 100}} {
		feed(epoch[0], epoch[1])
		// shard 2 is the child: what waits outside it goes to shard 1.
		if err := shard1.AdoptPending(shard2.DetachPending(inside2)); err != nil {
			log.Fatal(err)
		}
	}
	if err := shard1.Join(shard2); err != nil {
		log.Fatal(err)
	}
	f := shard1.Finalize().Final
	fmt.Println("unmatched:", f.Diagnostics.UnmatchedSend+f.Diagnostics.UnmatchedRecv)
	for _, c := range f.Com {
		fmt.Printf("location %d %s %s: matched %d, sync delay %d\n", c.Loc, c.Op, c.Dir, c.Matched, c.SyncDelay)
	}
	// Output:
	// unmatched: 0
	// location 0 MPI_Send send: matched 1, sync delay 0
	// location 1 MPI_Recv recv: matched 1, sync delay 30
}
