package stats_test

import (
	"testing"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
)

// TestSiteImbalanceCollectives: every collective call site has its row in
// the site imbalance, whose maximum and minimum are those of the
// locations' waits in the collective sums (the rows were once computed
// before the sums existed, and no collective row was ever written).
func TestSiteImbalanceCollectives(t *testing.T) {
	rep, defs := profile(t, "testdata/otfprofile/input.json", nil)
	f := rep.Final
	type key struct {
		site   model.SiteID
		region model.RegionID
	}
	waits := map[key][]model.Time{}
	for _, c := range f.CollectiveSums {
		k := key{c.SiteID, c.RegionID}
		waits[k] = append(waits[k], c.Wait)
	}
	if len(waits) == 0 {
		t.Fatal("the fixture has no collective calls")
	}
	rows := map[key]stats.SiteImbalance{}
	for _, s := range f.SiteImbalance {
		if s.Kind == "collective" {
			rows[key{s.SiteID, s.CalleeID}] = s
		}
	}
	for k, ws := range waits {
		s, ok := rows[k]
		if !ok {
			t.Errorf("collective %s at site %d: no site imbalance row", regionName(defs, k.region), k.site)
			continue
		}
		hi := ws[0]
		for _, w := range ws {
			hi = max(hi, w)
		}
		if s.Metric != "wait" || s.Stat.Max != int64(hi) {
			t.Errorf("collective %s at site %d: %s max %d, want wait max %d", s.Callee, k.site, s.Metric, s.Stat.Max, hi)
		}
	}
	if len(rows) != len(waits) {
		t.Errorf("%d collective rows for %d collective sites", len(rows), len(waits))
	}
}

func regionName(defs *model.Defs, id model.RegionID) string {
	r, _ := defs.Region(id)
	return r.Name
}
