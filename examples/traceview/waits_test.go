package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/waitstate"
)

var (
	update        = flag.Bool("update", false, "rewrite the golden files of testdata")
	screenshotMPI = flag.String("screenshot-mpi", "", "write the screenshot of the MPI trace's report to this PNG file (default: the test's directory)")
)

const mpiTrace = "../tracestat/testdata/otf2_mpi/trace/traces.otf2"

// TestGoldenWaitData checks the page's wait-state and counter data of an
// MPI trace with a PAPI-like counter against testdata/otf2_mpi.golden.
func TestGoldenWaitData(t *testing.T) {
	_, _, d := pageOf(t, mpiTrace)
	got, err := json.MarshalIndent(struct {
		Wait     *waitData `json:"wait"`
		Counters []*track  `json:"counters"`
	}{d.Wait, d.Counters}, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden := filepath.Join("testdata", "otf2_mpi.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("wait and counter data differ from %s (run with -update to accept):\n%s", golden, got)
	}
	// What the golden file holds, checked against waitstate directly.
	rep, err := waitstate.Analyze(openMPI(t), &waitstate.Options{Instances: true})
	if err != nil {
		t.Fatal(err)
	}
	var wantWaits int
	for _, in := range rep.Instances {
		if in.Pattern != waitstate.LateSenderWrongOrder && in.Time > 0 {
			wantWaits++
		}
	}
	if len(d.Wait.Waits) != wantWaits || wantWaits == 0 {
		t.Errorf("%d waits, want %d", len(d.Wait.Waits), wantWaits)
	}
	var sum model.Time
	for _, s := range d.Wait.Critical.Segments {
		sum += s.End - s.Start
	}
	if sum != rep.CriticalPath.Length || d.Wait.Critical.Length != sum {
		t.Errorf("critical segments sum to %d, length %d, want %d", sum, d.Wait.Critical.Length, rep.CriticalPath.Length)
	}
	if len(d.Wait.Top) != 15 {
		t.Errorf("%d top instances, want -top's 15", len(d.Wait.Top))
	}
	if len(d.Counters) != 6 {
		t.Errorf("%d counter tracks, want 6 (5 ranks and a thread)", len(d.Counters))
	}
}

// openMPI opens the MPI trace.
func openMPI(t *testing.T) model.Source {
	t.Helper()
	tr, err := openTrace([]string{mpiTrace}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr
}

// TestNoMPI checks that a trace without MPI calls or counters gets no
// wait-state or counter data: its page is the page it always was.
func TestNoMPI(t *testing.T) {
	_, b, d := pageOf(t, "../../otf2/testdata/minimal/trace/traces.otf2")
	if d.Wait != nil || d.Counters != nil {
		t.Errorf("wait data %v, %d counter tracks, want none", d.Wait, len(d.Counters))
	}
	if m := regexp.MustCompile(`(?s)id="data">(.*?)</script>`).FindSubmatch(b); m == nil || bytes.Contains(m[1], []byte(`"wait"`)) || bytes.Contains(m[1], []byte(`"counters"`)) {
		t.Errorf("the page's data holds wait or counter keys")
	}
}

// TestCounterTracks feeds a float and an integer counter: buckets stay
// within the columns whatever the samples, hold each column's extremes,
// the exact points go past the budget, NaN samples are counted.
func TestCounterTracks(t *testing.T) {
	defs := new(model.Defs)
	defs.TimeBase = model.TimeBase{TicksPerSecond: 1e9}
	loc := defs.AddLocation(model.Location{Name: "rank 0"})
	pow := defs.AddCounter(model.Counter{Name: "power", Unit: "W", Float: true})
	ins := defs.AddCounter(model.Counter{Name: "PAPI_TOT_INS", Accumulating: true})
	ct := newCounterTracks(defs, 50, 1000, 0, false)
	const n = 10000
	for i := range n {
		v := 100 + 10*math.Sin(float64(i)/100)
		if i == 5000 {
			v = math.NaN()
		}
		ct.add(&model.Event{Time: model.Time(i * 7), Loc: loc, Kind: model.KindCounter, Counter: pow, Value: int64(math.Float64bits(v))})
		ct.add(&model.Event{Time: model.Time(i * 7), Loc: loc, Kind: model.KindCounter, Counter: ins, Value: int64(i * 3)})
	}
	tracks := ct.finish(nil)
	if len(tracks) != 2 || tracks[0].Counter != "PAPI_TOT_INS" || tracks[1].Counter != "power" {
		t.Fatalf("tracks %+v", tracks)
	}
	p, c := tracks[1], tracks[0]
	if p.Samples != n-1 || p.NonFinite != 1 || c.Samples != n {
		t.Errorf("power: %d samples, %d not finite; instructions: %d samples", p.Samples, p.NonFinite, c.Samples)
	}
	for _, tr := range tracks {
		if len(tr.Buckets) > 50 || len(tr.Buckets) < 25 {
			t.Errorf("%s: %d buckets, want 25 to 50", tr.Counter, len(tr.Buckets))
		}
		if tr.Points != nil {
			t.Errorf("%s: %d points kept past the budget", tr.Counter, len(tr.Points))
		}
		if last := tr.Buckets[len(tr.Buckets)-1]; tr.Start+model.Time(last[0]+1)*tr.Width <= (n-1)*7 {
			t.Errorf("%s: the last bucket ends before the last sample", tr.Counter)
		}
	}
	// Instructions grow by 3 per sample: each bucket's first is its min,
	// its last its max, and a bucket starts where the previous ended.
	for i, b := range c.Buckets {
		if b[1] != b[2] || b[4] != b[3] || (i > 0 && b[1] != c.Buckets[i-1][4]+3) {
			t.Fatalf("bucket %d: %v after %v", i, b, c.Buckets[max(i-1, 0)])
		}
	}
	if c.Min != 0 || c.Max != 3*(n-1) || p.Min < 90 || p.Max > 110 || p.Max < 109 {
		t.Errorf("extremes: instructions %v to %v, power %v to %v", c.Min, c.Max, p.Min, p.Max)
	}
	// Under the budget every sample is kept.
	small := newCounterTracks(defs, 50, 1000, 0, false)
	for i := range 10 {
		small.add(&model.Event{Time: model.Time(i), Loc: loc, Kind: model.KindCounter, Counter: ins, Value: int64(i)})
	}
	if tr := small.finish(nil); len(tr[0].Points) != 10 || tr[0].Points[9] != [2]float64{9, 9} {
		t.Errorf("points %v, want the 10 samples", tr[0].Points)
	}
}

// TestCriticalCoarse checks that a critical path with more segments than
// the timeline has columns is merged per column, to the location on it for
// most of the column.
func TestCriticalCoarse(t *testing.T) {
	_, _, d := pageOf(t)
	tl := d.Timeline
	tl.Columns, tl.ColWidth = 4, 500
	rep := &waitstate.Report{}
	// 100-tick segments alternating between 1 (60) and 2 (40), but for
	// the third column, where 2 has 60.
	for a := tl.Start; a < tl.Start+4*tl.ColWidth; a += 100 {
		x, y := model.LocID(1), model.LocID(2)
		if a >= tl.Start+1000 && a < tl.Start+1500 {
			x, y = 2, 1
		}
		rep.CriticalSegments = append(rep.CriticalSegments, waitstate.CriticalSegment{Loc: x, Start: a, End: a + 60},
			waitstate.CriticalSegment{Loc: y, Start: a + 60, End: a + 100})
	}
	cp := criticalOf(rep, tl)
	s := tl.Start
	want := []critSeg{{1, s, s + 1000}, {2, s + 1000, s + 1500}, {1, s + 1500, s + 2000}}
	if !cp.Coarse || !slices.Equal(cp.Segments, want) {
		t.Errorf("coarse path %+v, want %+v", cp.Segments, want)
	}
}

// waitsIn counts the waits of d that overlap [t0, t1], as the page does.
func waitsIn(d pageData, t0, t1 model.Time) int {
	n := 0
	for _, w := range d.Wait.Waits {
		if w.End >= t0 && w.Start <= t1 {
			n++
		}
	}
	return n
}

// TestChromiumWaits renders the MPI trace's page: every wait drawn, the
// critical path, the top instances with their links, a counter track per
// (location, counter); then opens it at the first instance's link, and
// clicks that link in a page that is already open.
func TestChromiumWaits(t *testing.T) {
	page, _, d := pageOf(t, mpiTrace)
	dom := chromium(t, page)
	checkDOM(t, dom, d, len(d.Timeline.Detail.Slices), len(d.Timeline.Detail.Messages))
	if got := strings.Count(dom, `class="wait"`); got != len(d.Wait.Waits) || attr(t, dom, "timeline", "data-waits") != got {
		t.Errorf("%d waits drawn, want %d", got, len(d.Wait.Waits))
	}
	if got := strings.Count(dom, `class="crit"`); got != len(d.Wait.Critical.Segments) || got == 0 {
		t.Errorf("%d critical-path segments drawn, want %d", got, len(d.Wait.Critical.Segments))
	}
	if got := strings.Count(dom, `<a class="zoom" href="#view=`); got != len(d.Wait.Top) {
		t.Errorf("%d top instances listed, want %d", got, len(d.Wait.Top))
	}
	if got := strings.Count(dom, `class="ctr"`); got != len(d.Counters) || !strings.Contains(dom, `data-counter="cycles"`) || !strings.Contains(dom, "cycles [#]") {
		t.Errorf("%d counter tracks drawn, want %d, with the legend", got, len(d.Counters))
	}
	if !strings.Contains(dom, `id="top-waits"`) || !strings.Contains(dom, `id="critical"`) {
		t.Errorf("no wait-state section")
	}

	top := d.Wait.Top[0]
	hash := "#view=" + itoa64(int64(top.View0)) + "," + itoa64(int64(top.View1))
	dom = chromiumAt(t, page, hash)
	if v0, v1 := attr(t, dom, "timeline", "data-view0"), attr(t, dom, "timeline", "data-view1"); v0 != int(top.View0) || v1 != int(top.View1) {
		t.Errorf("opened at %s: view [%d, %d]", hash, v0, v1)
	}
	if got, want := strings.Count(dom, `class="wait"`), waitsIn(d, top.View0, top.View1); got != want || want == 0 || want == len(d.Wait.Waits) {
		t.Errorf("opened at %s: %d waits drawn, want the %d of the window", hash, got, want)
	}

	// Clicking the link in the open page: a wrapper frames it, clicks
	// the first link, and copies the view the page then shows.
	wrap := filepath.Join(filepath.Dir(page), "click.html")
	html := `<!DOCTYPE html><html><body><iframe id="f" src="report.html" width="1400" height="900"></iframe><script>
const f = document.getElementById('f');
f.onload = () => {
  const doc = f.contentWindow.document;
  doc.querySelector('a.zoom').click();
  setTimeout(() => {
    const s = doc.getElementById('timeline');
    document.body.setAttribute('data-view', s.dataset.view0 + ',' + s.dataset.view1 + ',' + s.dataset.waits);
  }, 200);
};
</script></body></html>`
	if err := os.WriteFile(wrap, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	dom = chromium(t, wrap, "--allow-file-access-from-files")
	want := itoa64(int64(top.View0)) + "," + itoa64(int64(top.View1)) + "," + itoa64(int64(waitsIn(d, top.View0, top.View1)))
	if m := regexp.MustCompile(`data-view="([^"]*)"`).FindStringSubmatch(dom); m == nil || m[1] != want {
		t.Errorf("after clicking the first link: view,waits %v, want %s", m, want)
	}

	shot := filepath.Join(t.TempDir(), "waits.png")
	if *screenshotMPI != "" {
		var err error
		if shot, err = filepath.Abs(*screenshotMPI); err != nil {
			t.Fatal(err)
		}
	}
	chromium(t, page, "--window-size=1400,1000", "--screenshot="+shot)
	if st, err := os.Stat(shot); err != nil || st.Size() == 0 {
		t.Fatalf("no screenshot: %v", err)
	}
	t.Logf("screenshot: %s", shot)
}

// TestChromiumNoMPI renders a trace without MPI calls: no wait, critical
// path or counter is drawn, and no wait-state section.
func TestChromiumNoMPI(t *testing.T) {
	page, _, d := pageOf(t, "../../otf2/testdata/minimal/trace/traces.otf2")
	dom := chromium(t, page)
	checkDOM(t, dom, d, len(d.Timeline.Detail.Slices), len(d.Timeline.Detail.Messages))
	for _, s := range []string{`class="wait"`, `class="crit"`, `class="ctr"`, `id="top-waits"`, "<h2>Wait states", `<i class="crit-key">`, `<i class="wait-key">`} {
		if strings.Contains(dom, s) {
			t.Errorf("the page holds %s", s)
		}
	}
}

// itoa64 formats n in decimal.
func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

// TestNoWaits checks that -waits=false leaves the analysis out.
func TestNoWaits(t *testing.T) {
	_, _, d := pageOf(t, "-waits=false", mpiTrace)
	if d.Wait != nil || len(d.Counters) != 6 {
		t.Errorf("-waits=false: wait data %v, %d counter tracks, want none and 6", d.Wait != nil, len(d.Counters))
	}
}

// TestChromiumWaitsAggregate renders the MPI trace with no detail kept:
// the waits are drawn per location and column, the counters per bucket.
func TestChromiumWaitsAggregate(t *testing.T) {
	page, _, d := pageOf(t, "-detail", "0", "-width", "60", mpiTrace)
	if d.Timeline.Detail != nil || d.Wait.Waits != nil || len(d.Wait.Cells) == 0 {
		t.Fatalf("-detail 0: detail %v, %d waits, %d wait cells", d.Timeline.Detail != nil, len(d.Wait.Waits), len(d.Wait.Cells))
	}
	var waited, cells model.Time
	for _, w := range d.Wait.Cells {
		waited += w.Time
		if w.Time > d.Timeline.ColWidth {
			t.Errorf("cell %+v holds more than its column", w)
		}
	}
	_, _, full := pageOf(t, mpiTrace)
	for _, w := range full.Wait.Waits {
		cells += w.End - w.Start
	}
	if waited != cells {
		t.Errorf("cells hold %d ticks waited, the waits %d", waited, cells)
	}
	for _, c := range d.Counters {
		if c.Points != nil || len(c.Buckets) == 0 || len(c.Buckets) > 60 {
			t.Errorf("%s on %d: %d points, %d buckets", c.Counter, c.Loc, len(c.Points), len(c.Buckets))
		}
	}
	bars := 0
	for _, c := range d.Timeline.Cells {
		if c.Region != 0 {
			bars++
		}
	}
	dom := chromium(t, page)
	checkDOM(t, dom, d, -1, len(d.Timeline.Bundles))
	if got := strings.Count(dom, `class="wait"`); got != len(d.Wait.Cells) {
		t.Errorf("%d wait cells drawn, want %d", got, len(d.Wait.Cells))
	}
	if got := strings.Count(dom, `class="crit"`); got != len(d.Wait.Critical.Segments) || got == 0 {
		t.Errorf("%d critical-path segments drawn, want %d", got, len(d.Wait.Critical.Segments))
	}
	if got := strings.Count(dom, `class="ctr"`); got != len(d.Counters) {
		t.Errorf("%d counter tracks drawn, want %d", got, len(d.Counters))
	}
}

// TestWaitMax checks that the analysis is dropped past -waitmax MPI
// events, and that the page says so.
func TestWaitMax(t *testing.T) {
	_, _, d := pageOf(t, "-waitmax", "1000", mpiTrace)
	if d.Wait == nil || d.WaitDropped != 0 {
		t.Fatalf("-waitmax 1000: wait data %v, dropped %d; want the analysis", d.Wait != nil, d.WaitDropped)
	}
	page, _, d := pageOf(t, "-waitmax", "10", mpiTrace)
	if d.Wait != nil || d.WaitDropped != 10 {
		t.Fatalf("-waitmax 10: wait data %v, dropped %d; want none, dropped past 10", d.Wait != nil, d.WaitDropped)
	}
	dom := chromium(t, page)
	if !strings.Contains(dom, `<p id="wait-dropped">Left out: the trace has more than 10 MPI events`) || strings.Contains(dom, `class="wait"`) {
		t.Errorf("the page does not say that the analysis was left out")
	}
}
