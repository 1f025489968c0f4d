package waitstate

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hpctrace/hpctrace/model"
)

func TestDiagnostics(t *testing.T) {
	b := newTB(3)
	unknown := b.defs.AddComm(model.Comm{Name: "unknown"})
	b.enter(1, 0, "main").
		add(model.Event{Kind: model.KindSend, Loc: 1, Time: 5, Peer: 2, Comm: 1}). // outside any MPI call
		call(1, 10, 20, "MPI_Send", model.Event{Kind: model.KindSend, Peer: 0, Comm: 1}).
		call(1, 30, 40, "MPI_Barrier", model.Event{Kind: model.KindCollBegin, Comm: unknown}).
		call(1, 50, 60, "MPI_Allreduce", coll(0, 8)). // 2 and 3 never come
		leave(1, 100, "compute").                     // not open
		leave(1, 100, "main")
	b.leave(2, 5, "main") // nothing open
	b.enter(3, 0, "main").enter(3, 10, "MPI_Recv")
	b.add(model.Event{Kind: model.KindEnter, Loc: 9, Time: 1, Region: 1}) // no such location
	r := b.analyze(t, nil)
	want := Diagnostics{
		Events: 17, UnknownLocation: 1, MPICalls: 4, UnmatchedSends: 1, UnknownPeer: 1, OutsideCall: 1,
		UnknownComm: 1, IncompleteColls: 1, LeaveMismatch: 1, UnbalancedLeaves: 1, OpenAtEnd: 2,
	}
	if diff := cmp.Diff(want, r.Diagnostics); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}

// TestReduceHandOver: the critical path passes from a reduction's root to
// the last member to enter; sub-communicator membership defines the
// instance.
func TestReduceHandOver(t *testing.T) {
	b := newTB(3)
	sub := b.defs.AddComm(model.Comm{Name: "sub", Members: []model.LocID{1, 3}})
	red := coll(1, 8)
	red.Comm = sub
	red3 := coll(1, 0)
	red3.Comm = sub
	b.enter(1, 0, "main").call(1, 100, 500, "MPI_Reduce", red).leave(1, 900, "main")
	b.enter(2, 0, "main").leave(2, 800, "main")
	b.enter(3, 0, "main").call(3, 400, 450, "MPI_Reduce", red3).leave(3, 600, "main")
	r := b.analyze(t, nil)
	if diff := cmp.Diff([]WaitState{{EarlyReduce, 1, "main/MPI_Reduce", 300, 1}}, rows(r)); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	// From 900 on 1 back to min(latest E, X_root) = 400, then on 3 from
	// 400 to its start.
	want := []CriticalLocation{{1, 500}, {3, 400}}
	if diff := cmp.Diff(want, r.CriticalPath.Locations); diff != "" || r.CriticalPath.Length != 900 {
		t.Errorf("critical path length %d, locations (-want +got):\n%s", r.CriticalPath.Length, diff)
	}
}
