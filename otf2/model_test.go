package otf2

import (
	"testing"

	"github.com/hpctrace/hpctrace/model"
)

func modelEvents(t *testing.T, fx string) (*ModelSource, []model.Event) {
	t.Helper()
	a := openFixture(t, fx)
	s, err := NewModelSource(a, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	var evs []model.Event
	for ev, err := range s.All() {
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, *ev)
	}
	return s, evs
}

func TestModelMessages(t *testing.T) {
	s, evs := modelEvents(t, "c_localdefs")
	d := s.Defs()
	if d.TimeBase.TicksPerSecond != 1e9 || d.NumLocations() != 2 || d.NumRegions() != 2 {
		t.Fatalf("defs: %+v, %d locations, %d regions", d.TimeBase, d.NumLocations(), d.NumRegions())
	}
	var sends, recvs, enters int
	for i, ev := range evs {
		if i > 0 && (ev.Time < evs[i-1].Time || (ev.Time == evs[i-1].Time && ev.Loc < evs[i-1].Loc)) {
			t.Fatalf("event %d out of order", i)
		}
		switch ev.Kind {
		case model.KindSend, model.KindRecv:
			if ev.Kind == model.KindSend {
				sends++
			} else {
				recvs++
			}
			c, _ := d.Comm(ev.Comm)
			if c.Name != "PAIR" || ev.Tag != 42 || ev.Peer == ev.Loc || ev.Peer == 0 {
				t.Fatalf("message %+v in comm %q", ev, c.Name)
			}
		case model.KindEnter:
			enters++
			r, _ := d.Region(ev.Region)
			if r.Name != "main" && r.Name != "work" {
				t.Fatalf("region %+v", r)
			}
		}
	}
	if sends != 2 || recvs != 2 || enters != 4 {
		t.Fatalf("%d sends, %d receives, %d enters", sends, recvs, enters)
	}
	if s.Ignored() != 2 { // the two ProgramEnd records
		t.Fatalf("ignored %d", s.Ignored())
	}
}

func TestModelCollectivesAndMetrics(t *testing.T) {
	s, evs := modelEvents(t, "defs_attrs")
	var counters int
	for _, ev := range evs {
		if ev.Kind == model.KindCounter {
			counters++
			c, ok := s.Defs().Counter(ev.Counter)
			if !ok || c.Name == "" {
				t.Fatalf("counter %+v", ev)
			}
		}
	}
	if counters != 5 { // 1 + 3 + 1 metric values
		t.Fatalf("%d counter events, want 5", counters)
	}
	s, evs = modelEvents(t, "threads_rma")
	var locs = map[model.LocID]bool{}
	for _, ev := range evs {
		locs[ev.Loc] = true
	}
	if len(locs) != 4 { // location 4 has RMA records only
		t.Fatalf("%d locations with events", len(locs))
	}
	l, _ := s.Defs().Location(s.loc[3])
	if l.Process != 0 || l.Thread != 3 {
		t.Fatalf("location 3: %+v", l)
	}
}
