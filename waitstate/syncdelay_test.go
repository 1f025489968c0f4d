package waitstate_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
	"github.com/hpctrace/hpctrace/waitstate"
)

// fixtures returns the repository's traces that hold MPI calls.
func fixtures(t *testing.T) []string {
	var names []string
	for _, g := range []string{"../dumpi/testdata/*/*.meta", "../otf/testdata/*/*.otf", "../otf2/testdata/*/trace/*.otf2", "../otf2/testdata/compat/*/trace/*.otf2",
		"../examples/*/testdata/*/trace/*.otf2", "testdata/*/trace/*.otf2"} {
		m, err := filepath.Glob(g)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range m {
			if !strings.Contains(n, "/bad/") && !strings.Contains(n, "/fuzz/") {
				names = append(names, n)
			}
		}
	}
	if len(names) == 0 {
		t.Fatal("no fixtures found")
	}
	return names
}

// events reads a whole trace into memory.
func events(t *testing.T, name string) (*model.Defs, []model.Event) {
	tr, err := hpctrace.Open(name, nil)
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
	return tr.Defs(), evs
}

// TestSyncDelayAgrees holds late_sender equal to stats' receive-side
// synchronisation delay where both measure the same quantity: per
// location, over the COM records of receives in MPI calls other than
// MPI_Test*.
func TestSyncDelayAgrees(t *testing.T) {
	checked := map[string]int{} // locations with a late sender, by format (extension)
	for _, name := range fixtures(t) {
		t.Run(strings.TrimPrefix(filepath.ToSlash(name), "../"), func(t *testing.T) {
			defs, evs := events(t, name)
			acc := stats.New(defs, nil)
			for i := range evs {
				acc.Add(&evs[i])
			}
			srep := acc.Finalize()
			wrep, err := waitstate.Analyze(model.NewSliceSource(defs, evs), nil)
			if err != nil {
				t.Fatal(err)
			}
			want := map[model.LocID]model.Time{}
			for _, c := range srep.Final.Com {
				reg, _ := defs.Region(c.OpID)
				if c.Dir != "recv" || !reg.MPI() || strings.HasPrefix(strings.ToLower(reg.Name), "mpi_test") {
					continue
				}
				want[c.LocID] += c.SyncDelay
			}
			got := map[model.LocID]model.Time{}
			for _, w := range wrep.WaitStates {
				if w.Pattern == waitstate.LateSender {
					got[w.Loc] += w.Time
				}
			}
			for _, l := range defs.Locations() {
				if got[l.ID] != want[l.ID] {
					t.Errorf("location %d: late_sender %d, stats' receive SyncDelay %d", l.ID, got[l.ID], want[l.ID])
				}
				if got[l.ID] > 0 {
					checked[filepath.Ext(name)]++
				}
			}
		})
	}
	for _, ext := range []string{".meta", ".otf", ".otf2"} {
		if checked[ext] == 0 {
			t.Errorf("no %s fixture has a late sender: the test compares nothing there", ext)
		}
	}
	t.Logf("locations with a late sender, by format: %v", checked)
}
