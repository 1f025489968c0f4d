package hpctrace

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace/eventjson"
	"github.com/hpctrace/hpctrace/model"
)

// TestEventJSONKeepsLocationFacts checks that hpctrace's event JSON
// carries what the model says of each location (MPI, Stream) through a
// write and a read, on the fixtures of every format whose adapter sets
// them, so that a converted trace's shards and rank labels stay those of
// the original.
func TestEventJSONKeepsLocationFacts(t *testing.T) {
	facts := 0
	for name := range fixtures(t) {
		tr, err := Open(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		var evs []model.Event
		for tr.Next() {
			evs = append(evs, *tr.Event())
		}
		if err := tr.Err(); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		w, err := eventjson.NewWriter(&buf, tr.Defs(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range evs {
			if err := w.Write(&evs[i]); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		want := tr.Defs().Locations()
		tr.Close()
		r, err := eventjson.NewReader(&buf, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for r.Next() {
		}
		if err := r.Err(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		type fact struct {
			MPI    bool
			Stream model.LocID
		}
		var wf, gf []fact
		for _, l := range want {
			wf = append(wf, fact{l.MPI, l.Stream})
			if l.MPI || l.Stream != 0 {
				facts++
			}
		}
		for _, l := range r.Defs().Locations() {
			gf = append(gf, fact{l.MPI, l.Stream})
		}
		if diff := cmp.Diff(wf, gf); diff != "" {
			t.Errorf("%s: locations' MPI and Stream after event JSON (-want +got):\n%s", name, diff)
		}
	}
	if facts == 0 {
		t.Error("no fixture has a location with MPI or Stream set; the test proves nothing")
	}
}
