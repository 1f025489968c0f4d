package stats

import (
	"testing"

	"github.com/hpctrace/hpctrace/model"
	"pgregory.net/rapid"
)

// TestEdgeIndex checks an edgeIndex against a map: every key added is
// found at the position add gave it, keys not added are not found, and a
// clone is a copy.
func TestEdgeIndex(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		small := rapid.Uint32Range(0, 6)
		key := rapid.Custom(func(t *rapid.T) edgeKey {
			return edgeKey{model.LocID(small.Draw(t, "loc")), model.RegionID(small.Draw(t, "caller")), model.SiteID(small.Draw(t, "site")), model.RegionID(small.Draw(t, "callee"))}
		})
		var x edgeIndex
		want := make(map[edgeKey]int32)
		for _, k := range rapid.SliceOf(key).Draw(t, "keys") {
			p, ok := x.find(k)
			if w, had := want[k]; had != ok || ok && p != w {
				t.Fatalf("find(%v) = %d, %v; want %d, %v", k, p, ok, w, had)
			}
			if !ok {
				if p := x.add(k); p != int32(len(want)) {
					t.Fatalf("add(%v) = %d, want %d", k, p, len(want))
				}
				want[k] = int32(len(want))
			}
		}
		c := x.clone()
		c.add(edgeKey{loc: 99})
		if _, ok := x.find(edgeKey{loc: 99}); ok {
			t.Fatal("clone shares slots")
		}
		for k, w := range want {
			if p, ok := c.find(k); !ok || p != w {
				t.Fatalf("clone: find(%v) = %d, %v; want %d", k, p, ok, w)
			}
		}
		if 4*len(x.keys) > 3*len(x.slots) && len(x.keys) > 0 {
			t.Fatalf("%d keys in %d slots", len(x.keys), len(x.slots))
		}
	})
}
