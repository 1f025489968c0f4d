package otf2

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace/model"
)

// TestModelNonBlockingCollective reads the nbcoll fixture (written by
// python3-otf2): NonBlockingCollectiveRequest is a CollPost with the
// request + 1 and the region entered last, NonBlockingCollectiveComplete
// a CollDone with the operation's class, communicator, root and bytes and
// its request's region.
func TestModelNonBlockingCollective(t *testing.T) {
	s, evs := modelEvents(t, "nbcoll")
	d := s.Defs()
	name := func(r model.RegionID) string { x, _ := d.Region(r); return x.Name }
	world, _ := d.CommByNative(0)
	loc := func(rank int) model.LocID { return model.LocID(rank + 1) }
	var got []model.Event
	for _, e := range evs {
		if e.Kind == model.KindCollPost || e.Kind == model.KindCollDone {
			got = append(got, e)
		}
	}
	var want []model.Event
	for r := range 3 {
		t0 := model.Time(1000 + 600*(r/2))
		ar, bc := uint64(100*r+7+1), uint64(100*r+8+1)
		sent, recvd := int64(0), int64(64)
		if r == 1 {
			sent, recvd = 64, 0
		}
		want = append(want,
			model.Event{Time: t0 + 5, Loc: loc(r), Kind: model.KindCollPost, Region: 3, Match: ar},
			model.Event{Time: t0 + 25, Loc: loc(r), Kind: model.KindCollPost, Region: 4, Match: bc},
			model.Event{Time: 1900, Loc: loc(r), Kind: model.KindCollDone, Region: 3, Comm: world, Class: model.ClassAllToAll,
				Bytes: 8, Recvd: 8, Match: ar},
			model.Event{Time: 1900, Loc: loc(r), Kind: model.KindCollDone, Region: 4, Comm: world, Class: model.ClassOneToAll,
				Peer: loc(1), Bytes: sent, Recvd: recvd, Match: bc})
	}
	byLocTime := func(evs []model.Event) map[model.LocID][]model.Event {
		m := map[model.LocID][]model.Event{}
		for _, e := range evs {
			m[e.Loc] = append(m[e.Loc], e)
		}
		return m
	}
	if name(3) != "MPI_Iallreduce" || name(4) != "MPI_Ibcast" {
		t.Fatalf("regions 3, 4 are %q, %q, want MPI_Iallreduce, MPI_Ibcast", name(3), name(4))
	}
	if diff := cmp.Diff(byLocTime(want), byLocTime(got)); diff != "" {
		t.Errorf("non-blocking collective events (-want +got):\n%s", diff)
	}
	if s.Ignored() != 0 {
		t.Errorf("Ignored() = %d, want 0", s.Ignored())
	}
}
