package stats_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
)

// A call edge is a callsite's (caller, site, callee) on a location, with
// its statistics.
type edgeRow struct {
	Caller, Callee              string
	Site                        int32
	Count                       int64
	Incl, Excl, Min, Max        model.Time
	FuncVisits, FuncExcl, Funcs int64
}

func edgeRows(rep *stats.Report) []edgeRow {
	var out []edgeRow
	for _, c := range rep.Final.Callsites {
		out = append(out, edgeRow{Caller: c.Caller, Callee: c.Callee, Site: c.Site, Count: c.Count, Incl: c.Incl, Excl: c.Excl, Min: c.Min, Max: c.Max})
	}
	for _, f := range rep.Final.Functions {
		out = append(out, edgeRow{Callee: f.Region, FuncVisits: f.Visits, FuncExcl: int64(f.Excl), Funcs: int64(f.Incl)})
	}
	return out
}

// TestSoleEdges: a region called from one call site on a location keeps
// that edge's statistics as its own until a second site calls it, also
// while the first site's call is open (recursion), and when accumulators
// of the same location are merged; the call sites are those of every
// call either way.
func TestSoleEdges(t *testing.T) {
	d := new(model.Defs)
	loc := d.AddLocation(model.Location{Name: "p", Native: 1})
	r := d.AddRegion(model.Region{Name: "r", Native: 1, Kind: model.RegionFunction})
	s1 := d.AddSite(model.Site{File: "a.c", Line: 10})
	s2 := d.AddSite(model.Site{File: "a.c", Line: 20})
	ev := func(t model.Time, k model.Kind, site model.SiteID) model.Event {
		return model.Event{Time: t, Loc: loc, Kind: k, Region: r, Site: site}
	}
	feed := func(evs ...model.Event) *stats.Accumulator {
		a := stats.New(d, nil)
		for i := range evs {
			a.Add(&evs[i])
		}
		return a
	}
	enter, leave := model.KindEnter, model.KindLeave

	// r from the root at line 10, then from itself at line 20 while the
	// first call is open.
	got := edgeRows(feed(ev(0, enter, s1), ev(1, enter, s2), ev(3, leave, 0), ev(10, leave, 0), ev(20, enter, s1), ev(24, leave, 0)).Finalize())
	want := []edgeRow{
		{Caller: "<root>", Callee: "r", Site: 10, Count: 2, Incl: 14, Excl: 12, Min: 4, Max: 10},
		{Caller: "r", Callee: "r", Site: 20, Count: 1, Incl: 2, Excl: 2, Min: 2, Max: 2},
		{Callee: "r", FuncVisits: 3, FuncExcl: 14, Funcs: 14},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("recursion (-want +got):\n%s", diff)
	}

	// The same location in two merged accumulators: one site in both,
	// then another site in each.
	for _, c := range []struct {
		name  string
		other model.SiteID
		want  []edgeRow
	}{
		{"same site", s1, []edgeRow{
			{Caller: "<root>", Callee: "r", Site: 10, Count: 2, Incl: 7, Excl: 7, Min: 2, Max: 5},
			{Callee: "r", FuncVisits: 2, FuncExcl: 7, Funcs: 7},
		}},
		{"other site", s2, []edgeRow{
			{Caller: "<root>", Callee: "r", Site: 10, Count: 1, Incl: 5, Excl: 5, Min: 5, Max: 5},
			{Caller: "<root>", Callee: "r", Site: 20, Count: 1, Incl: 2, Excl: 2, Min: 2, Max: 2},
			{Callee: "r", FuncVisits: 2, FuncExcl: 7, Funcs: 7},
		}},
	} {
		a := feed(ev(0, enter, s1), ev(5, leave, 0))
		b := feed(ev(10, enter, c.other), ev(12, leave, 0))
		a.Merge(b)
		if diff := cmp.Diff(c.want, edgeRows(a.Finalize())); diff != "" {
			t.Errorf("%s, merged (-want +got):\n%s", c.name, diff)
		}
		// Merged twice over, into a location with entries of its own.
		a.Merge(feed(ev(30, enter, s2), ev(33, leave, 0)))
		a.Merge(feed(ev(40, enter, s1), ev(41, leave, 0)))
		var sum [2]int64
		for _, e := range a.Finalize().Final.Callsites {
			sum[0] += e.Count
			sum[1] += int64(e.Incl)
		}
		if sum != [2]int64{4, 11} {
			t.Errorf("%s, merged four times: calls and inclusive time %v, want [4 11]", c.name, sum)
		}
	}
}
