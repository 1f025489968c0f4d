package picl_test

import (
	"math"
	"testing"

	"github.com/hpctrace/hpctrace/picl"
)

func TestMergeStats(t *testing.T) {
	recs := readAll(t, readFixture(t, "appendix_a"), nil)
	stats := picl.MergeStats(recs)
	if len(stats) != 32 {
		t.Fatalf("%d merged statistics, want 32 (no pair key repeats in Appendix A)", len(stats))
	}
	// Two -101 -1 records on processor 6: system and user events, one list.
	get := func(typ picl.RecordType, rel, ev picl.EventType) picl.Stat {
		for _, s := range stats {
			if s.Type == typ && s.RelativeTo == rel && s.Event == ev {
				return s
			}
		}
		t.Fatalf("no statistic %v %v %v", typ, rel, ev)
		return picl.Stat{}
	}
	if s := get(picl.RecordStatTime, -1, 1); math.Abs(s.Value-0.001013) > 1e-12 || s.Processor != 6 {
		t.Errorf("user event 1 time %+v", s)
	}
	if s := get(picl.RecordStatVolume, -1, picl.EventTracing); s.Value != 428 {
		t.Errorf("tracing volume %+v", s)
	}
	// Pairs with equal keys add up; -1 is unknown unless a value is known.
	more := readAll(t, []byte(`-102 -1 0.1 0 0 2 "%d%d" -21 1 -53 -1
-102 -1 0.1 0 0 2 "%d%d" -21 2 -54 -1
-102 -1 0.1 0 0 1 "%d%d" -53 3
-101 100 0.1 -1 -1 1 "%d%lf" -1 -1
`), nil)
	got := map[picl.EventType]picl.Stat{}
	for _, s := range picl.MergeStats(more) {
		got[s.Event] = s
	}
	if got[-21].Value != 3 || got[-21].Unknown || got[-53].Value != 3 || got[-53].Unknown ||
		!got[-54].Unknown || !got[-1].Unknown || got[-1].RelativeTo != 100 {
		t.Errorf("merged %+v", got)
	}
	// Non-statistics records have no pairs.
	for range recs[0].Stats() {
		t.Errorf("a -3 record has statistics")
	}
}
