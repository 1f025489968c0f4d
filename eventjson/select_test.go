package eventjson

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hpctrace/hpctrace/model"
)

// readAll returns the events of the document name read with sel.
func readAll(t *testing.T, name string, sel model.Selection) ([]model.Event, *model.Defs) {
	t.Helper()
	r, err := Open(name, &ReaderOptions{Selection: sel})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var evs []model.Event
	for r.Next() {
		evs = append(evs, *r.Event())
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return evs, r.Defs()
}

// TestSelectionExact checks that ReaderOptions.Selection yields exactly
// the events of a whole read that it keeps, in order, with the whole
// read's definitions, for locations alone, windows alone and both.
func TestSelectionExact(t *testing.T) {
	names, err := filepath.Glob("testdata/*.json")
	if err != nil || len(names) < 3 {
		t.Fatalf("fixtures: %v %v", names, err)
	}
	for _, name := range names {
		all, defs := readAll(t, name, model.Selection{})
		if len(all) == 0 {
			t.Fatalf("%s: no events", name)
		}
		lo, hi := all[0].Time, all[0].Time
		for _, e := range all {
			lo, hi = min(lo, e.Time), max(hi, e.Time)
		}
		mid := lo + (hi-lo)/2
		sels := []model.Selection{
			{Locations: model.Only(1)},
			{Locations: func(l model.LocID) bool { return l%2 == 0 }},
			{Window: &model.Window{From: mid}},
			{Window: &model.Window{From: lo, To: mid}},
			{Locations: model.Only(1, 2), Window: &model.Window{From: lo + 1, To: hi}},
		}
		dropped := 0
		for i, sel := range sels {
			var want []model.Event
			for _, e := range all {
				if sel.Keep(&e) {
					want = append(want, e)
				}
			}
			got, gdefs := readAll(t, name, sel)
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s, selection %d: events differ from the whole read's kept ones (-want +got):\n%s", name, i, diff)
			}
			if gdefs.NumLocations() != defs.NumLocations() || gdefs.NumRegions() != defs.NumRegions() {
				t.Errorf("%s, selection %d: definitions differ from the whole read's", name, i)
			}
			if len(want) < len(all) {
				dropped++
			}
		}
		if dropped < 2 {
			t.Errorf("%s: only %d selections drop events; the test proves little", name, dropped)
		}
	}
}

// TestSelectionEmptyWindow checks that an empty window is refused.
func TestSelectionEmptyWindow(t *testing.T) {
	if _, err := Open("testdata/fig12.json", &ReaderOptions{Selection: model.Selection{Window: &model.Window{From: 5, To: 5}}}); err == nil {
		t.Error("an empty window was accepted")
	}
}
