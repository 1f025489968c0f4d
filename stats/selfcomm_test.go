package stats_test

import (
	"testing"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
)

// TestSelfCommCollective: a collective on a communicator every location
// forms alone (model.Comm.Self, MPI_COMM_SELF) involves only its caller,
// so the n-th barriers of two locations on it (reported as instance n of
// each location) are two instances that wait for nobody, not one instance in which the earlier caller waits for
// the later (as calls on a communicator of unknown membership would be
// grouped); and they complete on arrival, so nothing is held to the end.
// Split into shards joined in either order, the result is the same.
func TestSelfCommCollective(t *testing.T) {
	d := twoRanks()
	self := d.AddComm(model.Comm{Native: 9, Name: "MPI_COMM_SELF", Self: true})
	var evs []model.Event
	for _, c := range []struct {
		l  model.LocID
		t0 model.Time
	}{{1, 1}, {2, 5}, {1, 10}} {
		evs = append(evs,
			enter(c.t0, c.l, 5),
			model.Event{Time: c.t0, Loc: c.l, Kind: model.KindCollBegin, Region: 5, Comm: self, Class: model.ClassBarrier},
			model.Event{Time: c.t0 + 2, Loc: c.l, Kind: model.KindCollEnd, Region: 5, Comm: self},
			leave(c.t0+2, c.l, 5))
	}
	check := func(name string, f stats.Final) {
		t.Helper()
		if f.Diagnostics.OpenCollectives != 0 || f.Diagnostics.HeldCollectives != 0 {
			t.Errorf("%s: %d open, %d held collectives, want 0", name, f.Diagnostics.OpenCollectives, f.Diagnostics.HeldCollectives)
		}
		got := f.Collectives
		if len(got) != 3 {
			t.Fatalf("%s: %d collective members %+v, want 3 instances of one", name, len(got), got)
		}
		for _, c := range got {
			if c.Wait != 0 {
				t.Errorf("%s: location %d waits %d, want 0: %+v", name, c.LocID, c.Wait, got)
			}
		}
	}
	acc := stats.New(d, nil)
	for i := range evs {
		acc.Add(&evs[i])
	}
	check("one pass", acc.Finalize().Final)

	shard := func(l model.LocID) *stats.Accumulator {
		a := stats.New(d, nil)
		for i := range evs {
			if evs[i].Loc == l {
				a.Add(&evs[i])
			}
		}
		return a
	}
	for _, order := range [][2]model.LocID{{1, 2}, {2, 1}} {
		a, b := shard(order[0]), shard(order[1])
		data, err := b.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var bb stats.Accumulator
		if err := bb.UnmarshalBinary(data); err != nil {
			t.Fatal(err)
		}
		if err := a.Join(&bb); err != nil {
			t.Fatal(err)
		}
		check("joined", a.Finalize().Final)
	}
}
