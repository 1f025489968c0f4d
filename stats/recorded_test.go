package stats_test

import (
	"os"
	"testing"

	"github.com/hpctrace/hpctrace/eventjson"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/picl"
	"github.com/hpctrace/hpctrace/stats"
)

func TestCheckRecorded(t *testing.T) {
	f, err := os.Open("testdata/appendix_a/events.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := eventjson.NewReader(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	acc := stats.New(r.Defs(), &stats.Options{Relative: picl.RelativeStats(-1, 0)})
	for ev, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		acc.Add(ev)
	}
	rep := acc.Finalize()
	d := r.Defs()
	loc, _ := d.LocationByNative(6)
	reg := func(n int64) model.RegionID { id, _ := d.RegionByNative(n); return id }
	// What PICL wrote (Appendix A, Table 20), as a PICL reader records it,
	// plus a DUMPI-style footer pair and a statistic nobody can recompute.
	d.Recorded = []model.Recorded{
		{Kind: model.RecordedTime, Loc: loc, RelativeTo: -1, Region: reg(-903), Value: 705632},
		{Kind: model.RecordedCount, Loc: loc, RelativeTo: -1, Region: reg(-52), Value: 2},
		{Kind: model.RecordedVolume, Loc: loc, RelativeTo: -1, Region: reg(-901), Value: 428},
		{Kind: model.RecordedVolume, Loc: loc, RelativeTo: 0, Region: reg(-52), Value: 8},
		{Kind: model.RecordedCount, Loc: loc, RelativeTo: 0, Region: reg(-21), Value: 0},
		{Kind: model.RecordedCount, Loc: loc, Region: reg(-11), Value: 3},
		{Kind: model.RecordedNotProfiled, Loc: loc, Region: reg(-11), Value: 2},
		{Kind: model.RecordedTime, Loc: loc, RelativeTo: 1, Region: reg(-52), Value: 825},
		{Kind: model.RecordedTime, Loc: loc, RelativeTo: -1, Region: reg(-21), Unknown: true},
	}
	got := rep.CheckRecorded(d)
	want := []struct {
		known    bool
		computed int64
	}{{true, 705633}, {true, 2}, {false, 0}, {true, 8}, {true, 0}, {true, 3}, {false, 0}}
	if len(got) != len(want) {
		t.Fatalf("got %d checks, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if got[i].Known != w.known || got[i].Computed != w.computed {
			t.Errorf("check %d (%+v): got known=%v computed=%d, want %v %d", i, got[i].Recorded, got[i].Known, got[i].Computed, w.known, w.computed)
		}
	}
	if got[0].Diff() != 1 {
		t.Errorf("Diff = %d, want 1 (timestamp rounding)", got[0].Diff())
	}
}
