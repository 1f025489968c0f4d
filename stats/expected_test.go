package stats_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace/eventjson"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/picl"
	"github.com/hpctrace/hpctrace/stats"
)

// profile reads a file of hpctrace's event JSON and returns its report.
func profile(t testing.TB, name string, opts *stats.Options) (*stats.Report, *model.Defs) {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := eventjson.NewReader(f, &eventjson.ReaderOptions{Path: name})
	if err != nil {
		t.Fatal(err)
	}
	acc := stats.New(r.Defs(), opts)
	for ev, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		acc.Add(ev)
	}
	return acc.Finalize(), r.Defs()
}

func loadJSON(t testing.TB, name string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// asJSON round-trips v through encoding/json into generic values.
func asJSON(t testing.TB, v any) map[string]any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// comparer compares expected expected values with ours and counts the leaves.
var update = flag.Bool("update", false, "rewrite golden files")

type comparer struct {
	t       testing.TB
	floatTo float64 // absolute tolerance for non-integral expected numbers
	leaves  int
	ordered map[string]bool // keys whose lists are ranked (compared in order)
}

func (c *comparer) compare(path string, want, got any, ordered bool) {
	c.t.Helper()
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			c.t.Errorf("%s: got %v, want an object", path, got)
			return
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok {
				c.t.Errorf("%s.%s: missing, want %v", path, k, wv)
				continue
			}
			c.compare(path+"."+k, wv, gv, ordered || c.ordered[k])
		}
	case []any:
		g, ok := got.([]any)
		if !ok {
			if len(w) == 0 && got == nil {
				return
			}
			c.t.Errorf("%s: got %v, want a list", path, got)
			return
		}
		if len(g) != len(w) {
			c.t.Errorf("%s: got %d elements, want %d:\ngot  %s\nwant %s", path, len(g), len(w), js(g), js(w))
			return
		}
		if !ordered {
			w, g = sortedByJSON(w), sortedByJSON(g)
		}
		for i := range w {
			c.compare(fmt.Sprintf("%s[%d]", path, i), w[i], g[i], ordered)
		}
	case float64:
		g, ok := got.(float64)
		if !ok {
			c.t.Errorf("%s: got %v, want %v", path, got, w)
			return
		}
		c.leaves++
		if w == math.Trunc(w) && math.Abs(w) < 1<<53 {
			if g != w {
				c.t.Errorf("%s: got %v, want %v", path, g, w)
			}
		} else if math.Abs(g-w) > c.floatTo {
			c.t.Errorf("%s: got %v, want %v (tolerance %g)", path, g, w, c.floatTo)
		}
	default:
		c.leaves++
		if fmt.Sprint(want) != fmt.Sprint(got) {
			c.t.Errorf("%s: got %v, want %v", path, got, want)
		}
	}
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func sortedByJSON(s []any) []any {
	out := slices.Clone(s)
	slices.SortStableFunc(out, func(a, b any) int {
		x, y := js(a), js(b)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	return out
}

func TestExpectedFig12(t *testing.T) {
	rep, _ := profile(t, "testdata/seed004_fig12/input.json", nil)
	want := loadJSON(t, "testdata/seed004_fig12/expected.json")
	got := asJSON(t, rep)
	c := &comparer{t: t, floatTo: 1e-6, ordered: map[string]bool{"drilldown": true, "hot_path": true, "calls": true}}
	c.compare("final", want["final"], got["final"], false)
	g := &comparer{t: t, floatTo: 1e-3}
	g.compare("gprof_average_estimate", want["gprof_average_estimate"], got["gprof_average_estimate"], false)
	t.Logf("seed004_fig12: %d + %d expected values compared", c.leaves, g.leaves)
}

func TestExpectedOTFProfile(t *testing.T) {
	rep, _ := profile(t, "testdata/otfprofile/input.json", &stats.Options{SampleTimes: []model.Time{500, 1000}})
	want := loadJSON(t, "testdata/otfprofile/expected.json")
	got := asJSON(t, rep)
	c := &comparer{t: t, floatTo: 1e-6, ordered: map[string]bool{"drilldown": true, "hot_path": true, "calls": true}}
	c.compare("final", want["final"], got["final"], false)
	c.compare("samples", want["samples"], got["samples"], false)
	g := &comparer{t: t, floatTo: 1e-3}
	g.compare("gprof_average_estimate", want["gprof_average_estimate"], got["gprof_average_estimate"], false)
	t.Logf("otfprofile: %d + %d expected values compared", c.leaves, g.leaves)
}

func TestExpectedVClock(t *testing.T) {
	want := loadJSON(t, "testdata/seed004_fig12/vclock_expected.json")
	f, err := os.Open("testdata/seed004_fig12/vclock_input.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := eventjson.NewReader(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	vc := stats.NewVClock(r, &stats.VClockOptions{Overhead: 10})
	acc := stats.New(vc.Defs(), nil)
	var events []map[string]any
	var buf []model.Event
	for ev, err := range model.All(vc) {
		if err != nil {
			t.Fatal(err)
		}
		acc.Add(ev)
		buf = append(buf, *ev)
	}
	// The corrected events, in the expected report's form and order (by corrected time).
	slices.SortStableFunc(buf, func(a, b model.Event) int { return int(a.Time - b.Time) })
	var out = new(jsonBuf)
	w, err := eventjson.NewWriter(out, vc.Defs(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range buf {
		if err := w.Write(&buf[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(out.b, &doc); err != nil {
		t.Fatal(err)
	}
	for _, e := range doc["events"].([]any) {
		events = append(events, e.(map[string]any))
	}
	wv := want["vclock"].(map[string]any)
	c := &comparer{t: t, floatTo: 1e-6, ordered: map[string]bool{"drilldown": true, "hot_path": true, "calls": true}}
	c.compare("vclock.events", wv["events"], asAny(events), true)
	c.compare("vclock.overhead_ticks", wv["overhead_ticks"], float64(10), false)
	c.compare("vclock.clamped", wv["clamped"], float64(vc.Clamped()), false)
	c.compare("final", want["final"], asJSON(t, acc.Finalize())["final"], false)
	t.Logf("vclock: %d expected values compared", c.leaves)
}

type jsonBuf struct{ b []byte }

func (j *jsonBuf) Write(p []byte) (int, error) { j.b = append(j.b, p...); return len(p), nil }

func asAny(ms []map[string]any) []any {
	out := make([]any, len(ms))
	for i, m := range ms {
		out[i] = m
	}
	return out
}

// TestExpectedAppendixA recomputes the PICL -101/-102/-103 statistics of
// Appendix A within the expected reports' tolerances.
func TestExpectedAppendixA(t *testing.T) {
	rep, defs := profile(t, "testdata/appendix_a/events.json", &stats.Options{Relative: picl.RelativeStats(-1, 0, 1)})
	want := loadJSON(t, "testdata/appendix_a/expected.json")
	tps := float64(defs.TimeBase.TicksPerSecond)
	type key struct{ rel, rec, typ int64 }
	got := make(map[key]*int64)
	for _, s := range rep.Final.Relative.Statistics {
		got[key{s.RelativeTo, s.Record, s.Native}] = s.Value
	}
	exact, within := 0, 0
	for _, w := range want["statistics"].([]any) {
		m := w.(map[string]any)
		k := key{int64(m["relative_to"].(float64)), int64(m["record"].(float64)), int64(m["event_type"].(float64))}
		v, ok := got[k]
		if !ok {
			t.Errorf("%v: missing", k)
			continue
		}
		delete(got, k)
		if m["from_events"] == nil {
			if v != nil {
				t.Errorf("%v: got %d, want unknown", k, *v)
			} else {
				exact++
			}
			continue
		}
		if v == nil {
			t.Errorf("%v: got unknown, want %v", k, m["from_events"])
			continue
		}
		fe, picl, tol := m["from_events"].(float64), m["picl"].(float64), m["tolerance"].(float64)
		g := float64(*v)
		if k.rec == -101 {
			g /= tps
		}
		if math.Abs(g-fe) > 1e-9 {
			t.Errorf("%v: got %v, want from_events %v", k, g, fe)
		}
		if math.Abs(g-picl) > tol+1e-9 {
			t.Errorf("%v: got %v, PICL wrote %v (tolerance %v)", k, g, picl, tol)
		}
		if g == picl {
			exact++
		} else {
			within++
		}
	}
	for k, v := range got {
		t.Errorf("%v: unexpected statistic %v", k, v)
	}
	t.Logf("appendix A: %d values equal to PICL's, %d within tolerance", exact, within)

	// Subsets relative to -1.
	subs := want["subsets_relative_to_-1"].(map[string]any)
	n := 0
	for _, s := range rep.Final.Relative.Subsets {
		if s.RelativeTo != -1 {
			continue
		}
		w, ok := subs[fmt.Sprint(s.Subset)].(map[string]any)
		if !ok {
			continue
		}
		n++
		var members []int64
		for _, x := range w["members"].([]any) {
			members = append(members, int64(x.(float64)))
		}
		slices.Sort(members)
		if !slices.Equal(members, s.Members) && !(len(members) == 0 && len(s.Members) == 0) {
			t.Errorf("subset %d: members %v, want %v", s.Subset, s.Members, members)
		}
		if got := float64(s.Time) / tps; math.Abs(got-w["time_s"].(float64)) > 1e-9 {
			t.Errorf("subset %d: time %v, want %v", s.Subset, got, w["time_s"])
		}
		if s.Count != int64(w["count"].(float64)) || s.Volume != int64(w["volume_bytes"].(float64)) {
			t.Errorf("subset %d: count %d volume %d, want %v %v", s.Subset, s.Count, s.Volume, w["count"], w["volume_bytes"])
		}
	}
	if n != len(subs) {
		t.Errorf("compared %d subsets, want %d", n, len(subs))
	}

	// Communication: the unmatched fallback.
	comm := want["communication"].(map[string]any)
	recs := comm["records"].([]any)
	if len(rep.Final.Com) != len(recs) {
		t.Fatalf("got %d COM records, want %d", len(rep.Final.Com), len(recs))
	}
	for _, r := range recs {
		m := r.(map[string]any)
		found := false
		for _, c := range rep.Final.Com {
			reg, _ := defs.Region(c.OpID)
			if reg.Native == int64(m["op_event_type"].(float64)) && c.Peer == int64(m["peer"].(float64)) && c.Dir == m["dir"] {
				found = true
				if c.Count != int64(m["count"].(float64)) || c.Bytes != int64(m["bytes"].(float64)) || c.Matched != int64(m["matched"].(float64)) ||
					math.Abs(float64(c.SyncDelay)/tps-m["sync_delay_s"].(float64)) > 1e-9 || math.Abs(float64(c.TransTime)/tps-m["trans_time_s"].(float64)) > 1e-9 {
					t.Errorf("COM %+v, want %v", c, m)
				}
			}
		}
		if !found {
			t.Errorf("no COM record for %v", m)
		}
	}
	got2 := asJSON(t, rep)["final"].(map[string]any)
	c := &comparer{t: t}
	c.compare("diagnostics", comm["diagnostics"], got2["diagnostics"], false)
	c.compare("matrix_recv_side", want["matrix_recv_side"], got2["matrix_recv_side"], false)
	c.compare("matrix_send_side", want["matrix_send_side"], got2["matrix_send_side"], false)
	c.compare("size_histogram_log2", want["size_histogram_log2_send"], got2["size_histogram_log2"], false)
}

// TestSiteImbalanceIdlePeriod checks the imbalance of statements, the idle
// time and periodic samples on the expected-report inputs.
func TestSiteImbalanceIdlePeriod(t *testing.T) {
	rep, defs := profile(t, "testdata/seed004_fig12/input.json", &stats.Options{IdleRegions: []model.RegionID{9}})
	if r, _ := defs.Region(9); r.Name != "receive_block" {
		t.Fatalf("region 9 is %q", r.Name)
	}
	var found int
	for _, s := range rep.Final.SiteImbalance {
		switch {
		case s.Kind == "call" && s.Caller == "P3" && s.Site == 10 && s.Callee == "P4":
			found++
			if s.Stat.Max != 1000 || s.Stat.Min != 0 || s.Stat.Mean != 500 || s.Stat.ArgMaxLoc != 0 {
				t.Errorf("P3 -> P4 at line 10: %+v", s.Stat)
			}
		case s.Kind == "com" && s.Caller == "loop1" && s.Site == 12:
			found++
			if s.Stat.Max != 130 || s.Metric != "sync_delay" {
				t.Errorf("receive at line 12: %+v", s)
			}
		}
	}
	if found != 2 {
		t.Errorf("found %d of 2 statements", found)
	}
	want := []stats.Idle{{LocID: 1, Loc: 0, Idle: 210}, {LocID: 2, Loc: 1, Idle: 34}}
	if diff := cmp.Diff(want, rep.Final.Idle); diff != "" {
		t.Errorf("idle (-want +got):\n%s", diff)
	}
	for _, im := range rep.Final.Imbalance {
		if im.Region == "P4" && (im.Visits.Max != 10 || im.Visits.Mean != 5) {
			t.Errorf("P4 visits imbalance %+v", im.Visits)
		}
	}

	// Periodic samples at 500 and 1000 equal the expected report's samples.
	per, _ := profile(t, "testdata/otfprofile/input.json", &stats.Options{SamplePeriod: 500})
	exp := loadJSON(t, "testdata/otfprofile/expected.json")
	got := asJSON(t, per)
	if n := len(per.Samples); n != 2 {
		t.Fatalf("%d periodic samples, want 2 (500, 1000)", n)
	}
	c := &comparer{t: t, floatTo: 1e-6}
	c.compare("samples", exp["samples"], got["samples"], false)
}
