package eventjson

import (
	"errors"
	"path/filepath"
	"strings"
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

// TestLocationFacts checks how a document gives a location's MPI and
// Stream: a stream naming the location itself or one defined before it
// is read, one naming a later location is a syntax error.
func TestLocationFacts(t *testing.T) {
	doc := func(locs string) string {
		return `{"format":"trace-events-json/1","ticks_per_second":1000,"locations":[` + locs + `],"events":[]}`
	}
	r, err := NewReader(strings.NewReader(doc(`{"id":7,"name":"r","process":0,"thread":0,"mpi":true,"stream":7},{"id":9,"name":"t","process":0,"thread":1,"mpi":true,"stream":7},{"id":3,"name":"x","process":1,"thread":0}`)), nil)
	if err != nil {
		t.Fatal(err)
	}
	type fact struct {
		MPI    bool
		Stream model.LocID
	}
	var got []fact
	for _, l := range r.Defs().Locations() {
		got = append(got, fact{l.MPI, l.Stream})
	}
	if diff := cmp.Diff([]fact{{true, 1}, {true, 1}, {false, 0}}, got); diff != "" {
		t.Errorf("facts (-want +got):\n%s", diff)
	}
	if _, err := NewReader(strings.NewReader(doc(`{"id":1,"name":"t","process":0,"thread":1,"stream":2},{"id":2,"name":"r","process":0,"thread":0}`)), nil); !errors.Is(err, ErrSyntax) {
		t.Errorf("a stream naming a later location: %v, want ErrSyntax", err)
	}
}
