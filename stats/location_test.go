package stats_test

import (
	"testing"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
)

// TestReportLocation: Report.Location finds each location by its model id
// with the native id and name beside it (native ids from 1 here, so an
// index or native lookup would be off by one), and reports an unknown id.
func TestReportLocation(t *testing.T) {
	d := new(model.Defs)
	a := d.AddLocation(model.Location{Name: "p1", Native: 1, Process: 1})
	b := d.AddLocation(model.Location{Name: "p2", Native: 2, Process: 2})
	rep := stats.New(d, nil).Finalize()
	for _, c := range []struct {
		id     model.LocID
		native int64
		name   string
	}{{a, 1, "p1"}, {b, 2, "p2"}} {
		l, ok := rep.Location(c.id)
		if !ok || l.LocID != c.id || l.Loc != c.native || l.Name != c.name {
			t.Errorf("Location(%d) = %+v, %v; want native %d, name %s", c.id, l, ok, c.native, c.name)
		}
	}
	if l, ok := rep.Location(b + 1); ok {
		t.Errorf("Location(%d) = %+v, want none", b+1, l)
	}
	if _, ok := rep.Location(0); ok {
		t.Error("Location(0) found a location")
	}
}
