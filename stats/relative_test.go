package stats_test

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/hpctrace/hpctrace/eventjson"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/picl"
	"github.com/hpctrace/hpctrace/stats"
)

// TestRelativeFromDefs: the statistics relative to regions come from the
// definitions, whatever format filled them. The PICL adapter describes
// Appendix A's statistics in Defs().Relative; the same trace as event
// JSON, whose reader describes none, gets no such section, and the same
// section, and the same checks of the recorded values, once its Defs carry
// the PICL source's description and recorded values. With no description
// in the definitions or the options, there is no section.
func TestRelativeFromDefs(t *testing.T) {
	r, err := picl.Open("../picl/testdata/appendix_a.trf", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ps, err := picl.NewModelSource(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := run(t, ps, nil)
	if want.Final.Relative == nil {
		t.Fatal("the PICL source's report has no relative statistics")
	}
	if rel := ps.Defs().Relative.RelativeTo; !slices.Equal(rel, []int64{-1, 0, 1}) {
		t.Errorf("PICL source relative to %v, want [-1 0 1] (the trace's records)", rel)
	}

	open := func() model.Source {
		f, err := os.Open("testdata/appendix_a/events.json")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		js, err := eventjson.NewReader(f, nil)
		if err != nil {
			t.Fatal(err)
		}
		return js
	}
	if rep := run(t, open(), nil); rep.Final.Relative != nil {
		t.Errorf("a source whose definitions describe no relative statistics got them: %d values", len(rep.Final.Relative.Statistics))
	}

	js := open()
	js.Defs().Relative = ps.Defs().Relative
	got := run(t, js, nil)
	if g, w := jsonOf(t, got.Final.Relative), jsonOf(t, want.Final.Relative); g != w {
		t.Errorf("event JSON with the PICL source's description:\n%s\nPICL source:\n%s", g, w)
	}
	// The recorded values, as the PICL source holds them, check the same
	// against either report (the two sources number regions alike only by
	// native, so the checks are compared by native).
	js.Defs().Recorded = nativeRecorded(t, ps.Defs(), js.Defs())
	var gotChecks, wantChecks []string
	for _, c := range got.CheckRecorded(js.Defs()) {
		gotChecks = append(gotChecks, checkString(js.Defs(), c))
	}
	for _, c := range want.CheckRecorded(ps.Defs()) {
		wantChecks = append(wantChecks, checkString(ps.Defs(), c))
	}
	if !slices.Equal(gotChecks, wantChecks) || len(wantChecks) == 0 {
		t.Errorf("checks of the recorded values:\n got %q\nwant %q", gotChecks, wantChecks)
	}

	// Options.Relative replaces the definitions' description.
	js = open()
	js.Defs().Relative = ps.Defs().Relative
	rep := run(t, js, &stats.Options{Relative: &model.RelativeStats{RelativeTo: []int64{0}}})
	for _, s := range rep.Final.Relative.Statistics {
		if s.RelativeTo != 0 || s.Record != 0 {
			t.Fatalf("with Options.Relative relative to 0 (kinds without ids): got %+v", s)
		}
	}
	if len(rep.Final.Relative.Statistics) == 0 || len(rep.Final.Relative.Subsets) != 0 {
		t.Errorf("with Options.Relative: %d statistics, %d subsets; want some statistics and no subsets (no groups, none defined)",
			len(rep.Final.Relative.Statistics), len(rep.Final.Relative.Subsets))
	}
}

func run(t *testing.T, src model.Source, opts *stats.Options) *stats.Report {
	t.Helper()
	acc := stats.New(src.Defs(), opts)
	for ev, err := range model.All(src) {
		if err != nil {
			t.Fatal(err)
		}
		acc.Add(ev)
	}
	return acc.Finalize()
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// nativeRecorded returns the Recorded of from with locations and regions
// renumbered as in to, by their natives.
func nativeRecorded(t *testing.T, from, to *model.Defs) []model.Recorded {
	t.Helper()
	var out []model.Recorded
	for _, r := range from.Recorded {
		if r.Loc != 0 {
			l, _ := from.Location(r.Loc)
			id, ok := to.LocationByNative(l.Native)
			if !ok {
				t.Fatalf("location %d missing", l.Native)
			}
			r.Loc = id
		}
		if r.Region != 0 {
			g, _ := from.Region(r.Region)
			id, ok := to.RegionByNative(g.Native)
			if !ok {
				t.Fatalf("region %d missing", g.Native)
			}
			r.Region = id
		}
		out = append(out, r)
	}
	return out
}

func checkString(d *model.Defs, c stats.RecordedCheck) string {
	g, _ := d.Region(c.Recorded.Region)
	b, _ := json.Marshal([]any{c.Recorded.Kind.String(), c.Recorded.RelativeTo, g.Native, c.Recorded.Value, c.Computed, c.Known})
	return string(b)
}
