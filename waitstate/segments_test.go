package waitstate

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"

	"github.com/hpctrace/hpctrace/model"
)

// TestCriticalSegments checks the segments of the two hand-worked paths
// of delay_test.go (TestCriticalPath, TestLateReceiverCosts).
func TestCriticalSegments(t *testing.T) {
	// 1 from its start to 300, 2 from the end of its wait (300) to 320,
	// 3 from the end of its wait (320) to 1200.
	r := chain().analyze(t, nil)
	want := []CriticalSegment{{1, 0, 300}, {2, 300, 320}, {3, 320, 1200}}
	if diff := gocmp.Diff(want, r.CriticalSegments); diff != "" {
		t.Errorf("chain: segments (-want +got):\n%s", diff)
	}
	b := newTB(2)
	b.enter(1, 0, "main").call(1, 100, 500, "MPI_Ssend", send(2, 1)).leave(1, 1000, "main")
	b.enter(2, 0, "main").call(2, 400, 510, "MPI_Recv", recv(1, 1)).leave(2, 1000, "main")
	r = b.analyze(t, nil)
	want = []CriticalSegment{{2, 0, 400}, {1, 400, 1000}}
	if diff := gocmp.Diff(want, r.CriticalSegments); diff != "" {
		t.Errorf("late receiver: segments (-want +got):\n%s", diff)
	}
}

// TestCriticalSegmentsSum checks on generated programs that the segments
// are in time order, non-empty, and add up to the path's length and to
// each location's time on it. (TestAnalyzeGenerated holds them equal to
// the reference's.)
func TestCriticalSegmentsSum(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		p := genProgram().Draw(rt, "program")
		r, err := Analyze(model.NewSliceSource(p.defs, p.events), nil)
		if err != nil {
			rt.Fatal(err)
		}
		var sum model.Time
		perLoc := map[model.LocID]model.Time{}
		for i, s := range r.CriticalSegments {
			if s.Start >= s.End {
				rt.Fatalf("segment %d: %+v is empty", i, s)
			}
			if i > 0 && s.Start < r.CriticalSegments[i-1].Start {
				rt.Fatalf("segment %d: %+v starts before segment %d: %+v", i, s, i-1, r.CriticalSegments[i-1])
			}
			sum += s.End - s.Start
			perLoc[s.Loc] += s.End - s.Start
		}
		if sum != r.CriticalPath.Length {
			rt.Fatalf("segments sum to %d, want the length %d", sum, r.CriticalPath.Length)
		}
		for _, l := range r.CriticalPath.Locations {
			if perLoc[l.Loc] != l.Time {
				rt.Fatalf("location %d: segments sum to %d, want %d", l.Loc, perLoc[l.Loc], l.Time)
			}
		}
		if len(perLoc) != len(r.CriticalPath.Locations) {
			rt.Fatalf("segments on %d locations, the path on %d", len(perLoc), len(r.CriticalPath.Locations))
		}
	})
}

// TestOptionsInstances checks that Options.Instances gives what the
// function Instances yields, and nothing without it.
func TestOptionsInstances(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		p := genProgram().Draw(rt, "program")
		var want []Instance
		for in, err := range Instances(model.NewSliceSource(p.defs, p.events), nil) {
			if err != nil {
				rt.Fatal(err)
			}
			want = append(want, *in)
		}
		r, err := Analyze(model.NewSliceSource(p.defs, p.events), &Options{Instances: true})
		if err != nil {
			rt.Fatal(err)
		}
		// A program without wait states yields none; the report's list
		// is then empty, not nil.
		if diff := gocmp.Diff(want, r.Instances, cmpopts.EquateEmpty()); diff != "" {
			rt.Fatalf("Report.Instances (-iterator +report):\n%s", diff)
		}
		if r, _ := Analyze(model.NewSliceSource(p.defs, p.events), nil); r.Instances != nil {
			rt.Fatalf("%d instances without Options.Instances", len(r.Instances))
		}
	})
}
