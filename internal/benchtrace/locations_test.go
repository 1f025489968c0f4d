package benchtrace_test

import (
	"bytes"
	"testing"

	"github.com/hpctrace/hpctrace/eventjson"
	"github.com/hpctrace/hpctrace/internal/benchtrace"
	"github.com/hpctrace/hpctrace/model"
)

// TestLocations reads the trace back: n locations, n+1 regions, four
// events per location in time order, every enter closed.
func TestLocations(t *testing.T) {
	const n = 300
	var b bytes.Buffer
	if err := benchtrace.Locations(&b, n); err != nil {
		t.Fatal(err)
	}
	r, err := eventjson.NewReader(&b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Defs().NumLocations(); got != n {
		t.Errorf("%d locations, want %d", got, n)
	}
	if got := len(r.Defs().Regions()); got != n+1 {
		t.Errorf("%d regions, want %d", got, n+1)
	}
	var events, depth int
	var last model.Time
	for r.Next() {
		ev := r.Event()
		if ev.Time < last {
			t.Fatalf("event %d at %d after %d", events, ev.Time, last)
		}
		last = ev.Time
		switch ev.Kind {
		case model.KindEnter:
			depth++
		case model.KindLeave:
			depth--
		}
		events++
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if events != 4*n || depth != 0 {
		t.Errorf("%d events, %d left open; want %d, 0", events, depth, 4*n)
	}
}
