package model_test

import (
	"fmt"
	"testing"

	"github.com/hpctrace/hpctrace/model"
	"pgregory.net/rapid"
)

func ExampleOpenRegions() {
	var open model.OpenRegions
	const loc = model.LocID(1)
	open.Enter(loc, 10) // main
	open.Enter(loc, 20) // solve
	open.Enter(loc, 30) // MPI_Send

	// A Leave of region 0 names the innermost open region.
	r, out := open.Leave(loc, 0)
	fmt.Println(r, out, open.Depth(loc))

	// A Leave naming another region (a task renamed after its Enter, as
	// APEX writes) closes the innermost open instance all the same.
	r, out = open.Leave(loc, 99)
	fmt.Println(r, out, open.Depth(loc))

	r, out = open.Leave(loc, 10)
	fmt.Println(r, out, open.Depth(loc))

	// With nothing open, a Leave changes nothing.
	r, out = open.Leave(loc, 10)
	fmt.Println(r, out, open.Depth(loc))
	// Output:
	// 30 matched 2
	// 20 mismatched 1
	// 10 matched 0
	// 10 unmatched 0
}

func TestClassifyLeave(t *testing.T) {
	for _, c := range []struct {
		depth  int
		top, r model.RegionID
		want   model.LeaveOutcome
	}{
		{0, 0, 0, model.LeaveUnmatched},
		{0, 0, 5, model.LeaveUnmatched},
		{1, 5, 5, model.LeaveMatched},
		{1, 5, 0, model.LeaveMatched},
		{3, 5, 6, model.LeaveMismatched},
	} {
		if got := model.ClassifyLeave(c.depth, c.top, c.r); got != c.want {
			t.Errorf("ClassifyLeave(%d, %d, %d) = %v, want %v", c.depth, c.top, c.r, got, c.want)
		}
	}
}

func TestOpenRegionsZero(t *testing.T) {
	var o model.OpenRegions
	if d := o.Depth(5); d != 0 {
		t.Errorf("Depth of an unseen location = %d, want 0", d)
	}
	if r, out := o.Leave(5, 0); out != model.LeaveUnmatched || r != 0 {
		t.Errorf("Leave(5, 0) on the zero value = %d, %v; want 0, unmatched", r, out)
	}
	if r, out := o.Leave(5, 7); out != model.LeaveUnmatched || r != 7 {
		t.Errorf("Leave(5, 7) on the zero value = %d, %v; want 7, unmatched", r, out)
	}
}

func TestOpenRegionsLocations(t *testing.T) {
	var o model.OpenRegions
	o.Enter(0, 1)
	o.Enter(3, 1)
	o.Enter(3, 2)
	if r, out := o.Leave(0, 2); out != model.LeaveMismatched || r != 1 {
		t.Errorf("Leave(0, 2) = %d, %v; want 1, mismatched: region 2 is open on location 3 only", r, out)
	}
	if r, out := o.Leave(3, 1); out != model.LeaveMismatched || r != 2 {
		t.Errorf("Leave(3, 1) = %d, %v; want 2, mismatched", r, out)
	}
	if d := o.Depth(3); d != 1 {
		t.Errorf("Depth(3) = %d, want 1: a Leave closes one instance", d)
	}
	if d := o.Depth(0); d != 0 {
		t.Errorf("Depth(0) = %d, want 0", d)
	}
	o.Reset()
	if d := o.Depth(3); d != 0 {
		t.Errorf("Depth(3) = %d after Reset, want 0", d)
	}
	if _, out := o.Leave(3, 1); out != model.LeaveUnmatched {
		t.Errorf("Leave(3, 1) after Reset = %v, want unmatched", out)
	}
}

func TestOpenRegionsAllocs(t *testing.T) {
	var o model.OpenRegions
	cycle := func() {
		for l := range model.LocID(4) {
			for r := range model.RegionID(16) {
				o.Enter(l, r+1)
			}
			o.Leave(l, 9)
			o.Leave(l, 99)
			o.Leave(l, 0)
			o.Leave(l, 1)
		}
	}
	cycle() // grow to the steady state
	if n := testing.AllocsPerRun(100, cycle); n != 0 {
		t.Errorf("Enter and Leave in steady state allocate %v times a cycle, want 0", n)
	}
}

// naiveOpen is the obvious model of OpenRegions: a slice a location.
type naiveOpen map[model.LocID][]model.RegionID

func (n naiveOpen) leave(l model.LocID, r model.RegionID) (model.RegionID, model.LeaveOutcome) {
	st := n[l]
	if len(st) == 0 {
		return r, model.LeaveUnmatched
	}
	top := st[len(st)-1]
	n[l] = st[:len(st)-1]
	if r != 0 && r != top {
		return top, model.LeaveMismatched
	}
	return top, model.LeaveMatched
}

func TestOpenRegionsMatchesNaive(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var o model.OpenRegions
		naive := naiveOpen{}
		ops := rapid.IntRange(0, 300).Draw(t, "ops")
		for i := range ops {
			l := model.LocID(rapid.IntRange(0, 3).Draw(t, "loc"))
			r := model.RegionID(rapid.IntRange(0, 6).Draw(t, "region"))
			switch rapid.IntRange(0, 9).Draw(t, "op") {
			case 0:
				o.Reset()
				clear(naive)
			case 1, 2, 3, 4:
				o.Enter(l, r)
				naive[l] = append(naive[l], r)
			default:
				gr, gout := o.Leave(l, r)
				wr, wout := naive.leave(l, r)
				if gr != wr || gout != wout {
					t.Fatalf("op %d: Leave(%d, %d) = %d, %v; want %d, %v", i, l, r, gr, gout, wr, wout)
				}
			}
			for l := range model.LocID(5) {
				if g, w := o.Depth(l), len(naive[l]); g != w {
					t.Fatalf("op %d: Depth(%d) = %d, want %d", i, l, g, w)
				}
			}
		}
	})
}
