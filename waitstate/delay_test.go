package waitstate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// chain: location 1 computes late and delays 2, whose wait delays 3.
func chain() *tb {
	b := newTB(3)
	b.enter(1, 0, "main").call(1, 300, 310, "MPI_Send", send(2, 1)).leave(1, 1000, "main")
	b.enter(2, 0, "main").call(2, 100, 320, "MPI_Recv", recv(1, 1)).call(2, 320, 330, "MPI_Send", send(3, 1)).leave(2, 1000, "main")
	b.enter(3, 0, "main").call(3, 150, 340, "MPI_Recv", recv(2, 1)).leave(3, 1200, "main")
	return b
}

func TestDelayCosts(t *testing.T) {
	r := chain().analyze(t, nil)
	// Wait of 3 (170) on 2: excess of 2 over [0, 320] against 3 over
	// [0, 150] is 20 in main/MPI_Recv (220 less its wait of 200); the wait
	// of 2 (200) propagates: sw = 170/220, and 2's wait gets C = 200·sw.
	// Wait of 2 on 1: excess 200 in main, sw = 1, sc = C/200.
	sw := 170.0 / 220
	want := []DelayCost{
		{LateSender, 1, "main", 200, 200 * sw},
		{LateSender, 2, "main/MPI_Recv", 20 * sw, 0},
	}
	if diff := cmp.Diff(want, r.DelayCosts, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("delay costs (-want +got):\n%s", diff)
	}
	var got []WaitState
	for _, w := range r.WaitStates {
		if w.Pattern >= LateSenderDirect {
			got = append(got, w)
		}
	}
	wantViews := []WaitState{
		{LateSenderDirect, 2, "main/MPI_Recv", 200, 1},
		{LateSenderDirect, 3, "main/MPI_Recv", 15, 1},
		{LateSenderIndirect, 3, "main/MPI_Recv", 155, 1}, // round(170/220·200)
		{LateSenderPropagating, 2, "main/MPI_Recv", 200, 1},
		{LateSenderTerminal, 3, "main/MPI_Recv", 170, 1},
	}
	if diff := cmp.Diff(wantViews, got); diff != "" {
		t.Errorf("views (-want +got):\n%s", diff)
	}
}

func TestCriticalPath(t *testing.T) {
	r := chain().analyze(t, nil)
	// 3 from 1200 back to the end of its wait (320), 2 from 320 back to the
	// end of its wait (300), 1 from 300 to its start.
	want := CriticalPath{
		Length: 1200,
		Profile: []CriticalRegion{
			{Region: "MPI_Recv", Time: 40},
			{Region: "main", Time: 1160},
		},
		Locations: []CriticalLocation{{1, 300}, {2, 20}, {3, 880}},
	}
	// Imbalance: main's exclusive time is 990, 770 and 1010;
	// MPI_Recv's less its waits is 0, 20, 20 (mean 13.3).
	want.Profile[0].Imbalance = 40 - 40.0/3
	want.Profile[1].Imbalance = 1160 - 2770.0/3
	if diff := cmp.Diff(want, r.CriticalPath, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("critical path (-want +got):\n%s", diff)
	}
}

func TestLateReceiverCosts(t *testing.T) {
	b := newTB(2)
	b.enter(1, 0, "main").call(1, 100, 500, "MPI_Ssend", send(2, 1)).leave(1, 1000, "main")
	b.enter(2, 0, "main").call(2, 400, 510, "MPI_Recv", recv(1, 1)).leave(2, 1000, "main")
	r := b.analyze(t, nil)
	// Location 2 computes 300 ticks more before posting than 1 before
	// sending: all of 1's wait is its short-term cost.
	if diff := cmp.Diff([]DelayCost{{LateReceiver, 2, "main", 300, 0}}, r.DelayCosts); diff != "" {
		t.Errorf("delay costs (-want +got):\n%s", diff)
	}
	want := []WaitState{
		{LateReceiver, 1, "main/MPI_Ssend", 300, 1},
		{LateReceiverDirect, 1, "main/MPI_Ssend", 300, 1},
		{LateReceiverTerminal, 1, "main/MPI_Ssend", 300, 1},
	}
	if diff := cmp.Diff(want, r.WaitStates); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	// From 1000 on 1 back to the end of its wait (400), then 2 from 400.
	wantCP := CriticalPath{Length: 1000,
		Profile:   []CriticalRegion{{Region: "MPI_Ssend", Time: 100}, {Region: "main", Time: 900}},
		Locations: []CriticalLocation{{1, 600}, {2, 400}},
	}
	if diff := cmp.Diff(wantCP, r.CriticalPath, cmpopts.IgnoreFields(CriticalRegion{}, "Imbalance")); diff != "" {
		t.Errorf("critical path (-want +got):\n%s", diff)
	}
}
