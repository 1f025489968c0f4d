package stats_test

import (
	"testing"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
)

// TestIntercommCollective: a collective on an intercommunicator involves
// the members of both its groups, so the two calls of a barrier on an
// intercommunicator whose groups hold one location each form one
// instance of two members (location 1 waiting for location 2), not two
// instances of one member each, whatever the order the calls arrive in.
func TestIntercommCollective(t *testing.T) {
	d := twoRanks()
	inter := d.AddComm(model.Comm{Native: 8, Members: []model.LocID{1}, Remote: []model.LocID{2}})
	var evs []model.Event
	for _, c := range []struct {
		l  model.LocID
		t0 model.Time
	}{{1, 1}, {2, 5}} {
		evs = append(evs,
			enter(c.t0, c.l, 5),
			model.Event{Time: c.t0, Loc: c.l, Kind: model.KindCollBegin, Region: 5, Comm: inter, Class: model.ClassBarrier},
			model.Event{Time: c.t0 + 2, Loc: c.l, Kind: model.KindCollEnd, Region: 5, Comm: inter},
			leave(c.t0+2, c.l, 5))
	}
	// Location 1's call (1 to 3) arrives whole before location 2's (5 to
	// 7), as it does when the locations are read one after the other: the
	// instance must still wait for location 2.
	acc := stats.New(d, nil)
	for i := range evs {
		acc.Add(&evs[i])
	}
	f := acc.Finalize().Final
	if f.Diagnostics.OpenCollectives != 0 {
		t.Errorf("%d open collectives, want 0", f.Diagnostics.OpenCollectives)
	}
	got := f.Collectives
	if len(got) != 2 || got[0].Instance != got[1].Instance {
		t.Fatalf("instances %+v, want one instance of two members", got)
	}
	var wait1 model.Time
	for _, c := range got {
		if c.LocID == 1 {
			wait1 = c.Wait
		}
	}
	// Location 2 begins 4 ticks after location 1; a wait is bounded by the
	// call's own duration, 2.
	if wait1 != 2 {
		t.Errorf("location 1 waits %d, want 2: %+v", wait1, got)
	}
}
