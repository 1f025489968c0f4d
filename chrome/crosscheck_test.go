package chrome_test

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace/chrome"
	"github.com/hpctrace/hpctrace/export"
	"github.com/hpctrace/hpctrace/model"
)

// TestTraceModelCrossCheck reads the export of every fixture with an
// independent reader of the format, TracerBench's trace model (node,
// testdata/tracemodel; .ci/run installs it), and with this package, and
// compares per thread: the slices by name (count and summed duration), the
// instant events by name, the flow starts and ends. It skips where node or
// the model is not installed.
func TestTraceModelCrossCheck(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	dir, err := filepath.Abs("testdata/tracemodel")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@tracerbench", "trace-model")); err != nil {
		t.Skip("the trace model is not installed: npm ci --prefix chrome/testdata/tracemodel")
	}
	for _, name := range fixtures(t) {
		t.Run(strings.TrimPrefix(name, "../"), func(t *testing.T) {
			doc := filepath.Join(t.TempDir(), "trace.json")
			f, err := os.Create(doc)
			if err != nil {
				t.Fatal(err)
			}
			if err := export.WriteChrome(f, open(t, name)); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(node, filepath.Join(dir, "slices.js"), doc).Output()
			if err != nil {
				t.Fatalf("node: %v", err)
			}
			var want map[string][2]float64
			if err := json.Unmarshal(out, &want); err != nil {
				t.Fatal(err)
			}
			got, maxTS := ours(t, doc)
			for k, w := range want {
				g := got[k]
				// The model reads ts as float64: its times are exact to
				// the float's precision at the trace's times (an OTF2
				// fixture's clock starts at 2^62 ns, beyond 2^53), so
				// each slice's duration may be off by two ulps of them.
				tol := 1e-6*max(1, math.Abs(w[1])) + w[0]*2*maxTS*0x1p-52
				if g[0] != w[0] || math.Abs(g[1]-w[1]) > tol {
					t.Errorf("%q: got count %v and %v µs, the trace model %v and %v µs", k, g[0], g[1], w[0], w[1])
				}
			}
			for k, g := range got {
				if _, ok := want[k]; !ok {
					t.Errorf("%q: got %v, the trace model has none", k, g)
				}
			}
			if len(want) == 0 {
				t.Error("the trace model found nothing")
			}
		})
	}
}

// ours tallies what slices.js tallies from this package's events, and
// returns the greatest time's magnitude in µs.
func ours(t *testing.T, doc string) (map[string][2]float64, float64) {
	t.Helper()
	f, err := os.Open(doc)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := chrome.NewReader(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := r.Defs()
	type open struct {
		region model.RegionID
		at     model.Time
	}
	stacks := map[model.LocID][]open{}
	out := map[string][2]float64{}
	add := func(k string, dur float64) {
		v := out[k]
		out[k] = [2]float64{v[0] + 1, v[1] + dur}
	}
	var maxTS float64
	for ev, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		maxTS = max(maxTS, math.Abs(d.TimeBase.Seconds(ev.Time)*1e6))
		loc := d.LocationName(ev.Loc)
		switch ev.Kind {
		case model.KindEnter:
			stacks[ev.Loc] = append(stacks[ev.Loc], open{ev.Region, ev.Time})
		case model.KindLeave:
			s := stacks[ev.Loc]
			o := s[len(s)-1]
			stacks[ev.Loc] = s[:len(s)-1]
			add("slice\t"+loc+"\t"+d.RegionName(o.region), d.TimeBase.Seconds(ev.Time-o.at)*1e6)
		case model.KindMarker:
			name := d.String(ev.Text)
			if ev.Text == 0 {
				name = d.RegionName(ev.Region)
			}
			add("instant\t"+loc+"\t"+name, 0)
		case model.KindSend:
			add("send\t"+loc, 0)
		case model.KindRecv:
			add("recv\t"+loc, 0)
		}
	}
	return out, maxTS
}
