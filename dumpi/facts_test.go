package dumpi

import (
	"path/filepath"
	"testing"

	"github.com/hpctrace/hpctrace/model"
)

// TestModelFacts: the model source of every run in testdata, and of each
// rank's file alone, says that its locations are MPI ranks (Process the
// rank, as Native) kept in their own rank's stream, and reports on its
// communicators (model.CommReporter) without asking for *ModelSource.
func TestModelFacts(t *testing.T) {
	metas, err := filepath.Glob("testdata/*/*.meta")
	if err != nil || len(metas) < 10 {
		t.Fatalf("fixtures %v: %v", metas, err)
	}
	check := func(name string, src model.Source) {
		t.Helper()
		for src.Next() {
		}
		if err := src.Err(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		d := src.Defs()
		rankLoc := map[int32]model.LocID{} // a rank's own location, defined before its threads'
		for _, l := range d.Locations() {
			if l.Thread == 0 {
				rankLoc[l.Process] = l.ID
			}
			want := rankLoc[l.Process]
			if !l.MPI || int64(l.Process) != l.Native || l.Stream != want {
				t.Errorf("%s: location %q: MPI %v, Process %d, Stream %d; want true, %d, %d", name, l.Name, l.MPI, l.Process, l.Stream, l.Native, want)
			}
		}
		if !d.ByRank() {
			t.Errorf("%s: ByRank() = false, want true", name)
		}
		if _, ok := src.(model.CommReporter); !ok {
			t.Errorf("%s: %T is not a model.CommReporter", name, src)
		}
	}
	for _, meta := range metas {
		run, err := OpenRun(meta, nil)
		if err != nil {
			t.Fatal(err)
		}
		src, err := NewModelSource(run, nil)
		if err != nil {
			t.Fatal(err)
		}
		check(meta, src)
		for i, f := range run.Files {
			src, err := NewModelSource(NewRun(f, i), nil)
			if err != nil {
				t.Fatal(err)
			}
			check(f.Path(), src)
		}
		run.Close()
	}
}
