package model_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/hpctrace/hpctrace/internal/cputime"
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
	r, ok := open.Leave(loc, 0)
	fmt.Println(r, ok, open.Depth(loc))

	// A Leave of a region that is not open changes nothing.
	r, ok = open.Leave(loc, 99)
	fmt.Println(r, ok, open.Depth(loc))

	// A Leave of an outer region closes the regions opened after it.
	open.Enter(loc, 30)
	r, ok = open.Leave(loc, 10)
	fmt.Println(r, ok, open.Depth(loc))
	// Output:
	// 30 true 2
	// 99 false 2
	// 10 true 0
}

func TestOpenRegionsZero(t *testing.T) {
	var o model.OpenRegions
	if d := o.Depth(5); d != 0 {
		t.Errorf("Depth of an unseen location = %d, want 0", d)
	}
	if r, ok := o.Leave(5, 0); ok || r != 0 {
		t.Errorf("Leave(5, 0) on the zero value = %d, %v; want 0, false", r, ok)
	}
	if r, ok := o.Leave(5, 7); ok || r != 7 {
		t.Errorf("Leave(5, 7) on the zero value = %d, %v; want 7, false", r, ok)
	}
}

func TestOpenRegionsLocations(t *testing.T) {
	var o model.OpenRegions
	o.Enter(0, 1)
	o.Enter(3, 1)
	o.Enter(3, 2)
	if r, ok := o.Leave(0, 2); ok || r != 2 {
		t.Errorf("Leave(0, 2) = %d, %v; want 2, false: region 2 is open on location 3 only", r, ok)
	}
	if r, ok := o.Leave(3, 1); !ok || r != 1 {
		t.Errorf("Leave(3, 1) = %d, %v; want 1, true", r, ok)
	}
	if d := o.Depth(3); d != 0 {
		t.Errorf("Depth(3) = %d, want 0 after leaving its outermost region", d)
	}
	if d := o.Depth(0); d != 1 {
		t.Errorf("Depth(0) = %d, want 1", d)
	}
	// The dropped instance of region 2 is no longer counted as open.
	if _, ok := o.Leave(3, 2); ok {
		t.Error("Leave(3, 2) found region 2 open after an outer Leave closed it")
	}
	o.Reset()
	if d := o.Depth(0); d != 0 {
		t.Errorf("Depth(0) = %d after Reset, want 0", d)
	}
	if _, ok := o.Leave(0, 1); ok {
		t.Error("Leave(0, 1) found region 1 open after Reset")
	}
}

// TestOpenRegionsStrayLeaveConstant checks that a Leave of a region that
// is not open does not search the stack: 100,000 of them on a stack
// 100,000 deep would take minutes with a search.
func TestOpenRegionsStrayLeaveConstant(t *testing.T) {
	const depth, leaves = 100_000, 100_000
	var o model.OpenRegions
	for i := range depth {
		o.Enter(1, model.RegionID(1+i%64))
	}
	// CPU time, not wall-clock time: a busy machine does not inflate it.
	// The loop costs milliseconds; a search of the stack, minutes.
	d, ok := cputime.Of(func() {
		for range leaves {
			if _, ok := o.Leave(1, 1000); ok {
				t.Fatal("Leave of a region never entered reported true")
			}
		}
	})
	if ok && d > 2*time.Second {
		t.Errorf("%d Leaves of a region not open on a stack %d deep took %v of CPU time, want well under a second", leaves, depth, d)
	}
	if d := o.Depth(1); d != depth {
		t.Errorf("Depth = %d, want %d", d, depth)
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

// naiveOpen is the obvious model of OpenRegions: a slice a location,
// searched from the innermost end.
type naiveOpen map[model.LocID][]model.RegionID

func (n naiveOpen) leave(l model.LocID, r model.RegionID) (model.RegionID, bool) {
	st := n[l]
	for i := len(st) - 1; i >= 0; i-- {
		if r == 0 || st[i] == r {
			n[l] = st[:i]
			return st[i], true
		}
	}
	return r, false
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
				gr, gok := o.Leave(l, r)
				wr, wok := naive.leave(l, r)
				if gr != wr || gok != wok {
					t.Fatalf("op %d: Leave(%d, %d) = %d, %v; want %d, %v", i, l, r, gr, gok, wr, wok)
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
