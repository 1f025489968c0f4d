package waitstate_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/waitstate"
)

// TestNonBlockingCollectiveOTF2 analyses the OTF2 archive python3-otf2
// wrote (otf2/testdata/nbcoll): ranks 0 and 1 enter MPI_Waitall at 1200
// and rank 2 starts the MPI_Iallreduce at 1600, so each waits
// min(1600, 1910) − 1200 = 400 (wait_inxn); the MPI_Ibcast's root started
// at 1020, before every MPI_Waitall: no late_ibroadcast. The streaming
// analysis and the reference agree.
func TestNonBlockingCollectiveOTF2(t *testing.T) {
	tr, err := hpctrace.Open("../otf2/testdata/nbcoll/trace/traces.otf2", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	var evs []model.Event
	for tr.Next() {
		evs = append(evs, *tr.Event())
	}
	if err := tr.Err(); err != nil {
		t.Fatal(err)
	}
	d := tr.Defs()
	got, err := waitstate.Analyze(model.NewSliceSource(d, evs), nil)
	if err != nil {
		t.Fatal(err)
	}
	var rows []waitstate.WaitState
	for _, w := range got.WaitStates {
		if w.Pattern != waitstate.WaitINxN {
			t.Errorf("row %+v, want wait_inxn rows only", w)
		}
		rows = append(rows, w)
	}
	want := []waitstate.WaitState{
		{Pattern: waitstate.WaitINxN, Loc: 1, CallPath: "main/MPI_Waitall", Time: 400, Count: 1},
		{Pattern: waitstate.WaitINxN, Loc: 2, CallPath: "main/MPI_Waitall", Time: 400, Count: 1},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("wait states (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(waitstate.ReferenceReport(d, evs), got, equalOpts...); diff != "" {
		t.Errorf("reference (-want) and streaming (+got) differ:\n%s", diff)
	}
}
