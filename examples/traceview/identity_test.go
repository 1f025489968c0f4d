package main

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// locKeys walks v, a decoded JSON value, and calls f with the path and
// value of every object member.
func locKeys(v any, path string, f func(path, key string, val any)) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			f(path, k, e)
			locKeys(e, path+"."+k, f)
		}
	case []any:
		for _, e := range x {
			locKeys(e, path+"[]", f)
		}
	}
}

// TestPageLocationIdentity holds the page's data to the SDK's one
// location identity: a model location id is named loc_id (from_id, to_id,
// peer_id, delayer_id where a member names another location), never loc,
// from, to, peer or delayer, which name native ids wherever the SDK
// writes them. Every *_id holds a model id (or, with grouped rows, a
// row): 0 (none) up to the trace's locations.
func TestPageLocationIdentity(t *testing.T) {
	for _, args := range [][]string{{mpiTrace}, {"-rows", "2", mpiTrace}, {"../../otf/testdata/all_records_short/allrec.otf"}} {
		_, b, d := pageOf(t, args...)
		m := regexp.MustCompile(`(?s)<script type="application/json" id="data">(.*?)</script>`).FindSubmatch(b)
		var v any
		if err := json.Unmarshal(m[1], &v); err != nil {
			t.Fatal(err)
		}
		seen, bad := map[string]int{}, map[string]bool{}
		locKeys(v, "", func(path, key string, val any) {
			if strings.HasPrefix(path, ".diagnostics") {
				return
			}
			switch strings.ToLower(key) {
			case "loc", "from", "to", "peer", "delayer", "sender", "receiver":
				if _, ok := val.(float64); ok && !bad[path+"."+key] {
					bad[path+"."+key] = true
					t.Errorf("%v: %s.%s = %v: a location id not named *_id", args, path, key, val)
				}
			}
			if strings.HasSuffix(key, "_id") {
				n, ok := val.(float64)
				if !ok || n < 0 || n > float64(d.Locations) || n != float64(int(n)) {
					t.Errorf("%v: %s.%s = %v, not a model location id of %d locations", args, path, key, val, d.Locations)
				}
				seen[path+"."+key]++
			}
		})
		want := []string{".timeline.cells[].loc_id", ".profile[].loc_id", ".com[].loc_id", ".com[].peer_id"}
		if d.Timeline.Detail != nil && len(d.Timeline.Detail.Slices) > 0 {
			want = append(want, ".timeline.detail.slices[].loc_id")
		}
		if len(d.Matrix) > 0 {
			want = append(want, ".matrix[].from_id", ".matrix[].to_id", ".timeline.bundles[].from_id", ".timeline.bundles[].to_id")
		}
		if d.Wait != nil {
			want = append(want, ".wait.critical.segments[].loc_id", ".wait.top[].waiter.loc_id")
		}
		if len(d.Counters) > 0 {
			want = append(want, ".counters[].loc_id")
		}
		for _, k := range want {
			if seen[k] == 0 {
				t.Errorf("%v: no %s in the page's data; have %v", args, k, slices.Sorted(maps.Keys(seen)))
			}
		}
	}
}
