package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"html"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace"
	"github.com/hpctrace/hpctrace/export"
	"github.com/hpctrace/hpctrace/model"
)

var screenshot = flag.String("screenshot", "", "write a screenshot of the embedded sample's report to this PNG file")

// pageOf runs traceview with args and returns the page and its data.
func pageOf(t *testing.T, args ...string) (string, []byte, pageData) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "report.html")
	if err := run(append([]string{"-o", out}, args...), io.Discard); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)<script type="application/json" id="data">(.*?)</script>`).FindSubmatch(b)
	if m == nil {
		t.Fatal("no data in the page")
	}
	var d pageData
	if err := json.Unmarshal(m[1], &d); err != nil {
		t.Fatal(err)
	}
	return out, b, d
}

// TestSelfContained checks that the page refers to nothing outside it
// (a url(#id) names an element of the page: a hatch's pattern).
func TestSelfContained(t *testing.T) {
	_, b, d := pageOf(t)
	for _, re := range []string{`(?i)<(script|img|link|iframe)[^>]+(src|href)=`, `(?i)url\(\s*['"]?[^#'"\s]`, `(?i)@import`, `(?i)fetch\(`, `(?i)XMLHttpRequest`} {
		if loc := regexp.MustCompile(re).FindIndex(b); loc != nil {
			t.Errorf("page refers outside itself: %q", b[loc[0]:min(loc[1]+40, len(b))])
		}
	}
	if d.Events != 80 || len(d.Timeline.Locations) != 2 || d.Timeline.Detail == nil || len(d.Timeline.Detail.Messages) != 6 {
		t.Errorf("sample: %d events, %d locations, detail %v", d.Events, len(d.Timeline.Locations), d.Timeline.Detail != nil)
	}
}

// chromium renders page headless and returns its DOM after the scripts
// ran, or skips the test when chromium is not installed.
func chromium(t *testing.T, page string, extra ...string) string {
	return chromiumAt(t, page, "", extra...)
}

// chromiumAt is chromium for the page's address with a fragment.
func chromiumAt(t *testing.T, page, hash string, extra ...string) string {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed")
	}
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--virtual-time-budget=3000",
		"--user-data-dir=" + t.TempDir()}, extra...)
	var stderr bytes.Buffer
	cmd := exec.Command(bin, append(args, "--dump-dom", "file://"+page+hash)...)
	cmd.Stderr = &stderr
	dom, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.Bytes())
	}
	return string(dom)
}

// attr returns the value of attribute name of the element with id.
func attr(t *testing.T, dom, id, name string) int {
	t.Helper()
	m := regexp.MustCompile(`<[a-z]+ [^>]*id="` + id + `"[^>]*>`).FindString(dom)
	v := regexp.MustCompile(name + `="([0-9]+)"`).FindStringSubmatch(m)
	if v == nil {
		t.Fatalf("no %s on #%s in %q", name, id, m)
	}
	n, _ := strconv.Atoi(v[1])
	return n
}

// checkDOM checks that the page's script ran without errors and drew
// one row per location, the bars and lines it says, and the tables.
func checkDOM(t *testing.T, dom string, d pageData, bars, msgs int) {
	t.Helper()
	if !strings.Contains(dom, `<body data-rendered="ok">`) {
		t.Errorf("the page's script did not finish")
	}
	if m := regexp.MustCompile(`<div id="errors">([^<]*)</div>`).FindStringSubmatch(dom); m == nil || m[1] != "" {
		t.Errorf("script errors: %q", m)
	}
	rows := len(d.Timeline.Locations)
	if got := strings.Count(dom, `<g class="row"`) + strings.Count(dom, `<g class="row group"`); got != rows || attr(t, dom, "timeline", "data-rows") != rows {
		t.Errorf("%d rows, want %d", got, rows)
	}
	if bars >= 0 {
		if got := strings.Count(dom, `class="bar`); got != bars || attr(t, dom, "timeline", "data-bars") != bars {
			t.Errorf("%d bars, want %d", got, bars)
		}
	} else {
		checkMix(t, dom, d)
	}
	if got := strings.Count(dom, `class="msg"`); got != msgs {
		t.Errorf("%d message lines, want %d", got, msgs)
	}
	for _, id := range []string{`id="matrix"`, `id="imbalance"`, `id="text"`, "Flat profile (top", "Message sizes"} {
		if len(d.Matrix) == 0 && id == `id="matrix"` {
			continue
		}
		if !strings.Contains(dom, id) {
			t.Errorf("the page lacks %s", id)
		}
	}
}

// mixRegions returns the ids of the regions of d's mix (the whole span:
// the page opens at full view), by their names.
func mixRegions(d pageData) map[int64]string {
	ids := map[int64]string{}
	for _, c := range d.Mix.Cells {
		for k := 3; k+1 < len(c); k += 2 {
			if c[k+1] > 0 {
				ids[c[k]] = "other regions"
				if c[k] > 0 {
					ids[c[k]] = d.Timeline.Regions[c[k]-1].Name
				}
			}
		}
	}
	return ids
}

// checkMix checks a timeline drawn as the mix of regions: one path per
// region of the mix, each region of the mix drawn, and each named in the
// legend.
func checkMix(t *testing.T, dom string, d pageData) {
	t.Helper()
	if !strings.Contains(dom, `data-mode="mix"`) || attr(t, dom, "timeline", "data-bars") == 0 {
		t.Errorf("the timeline is not drawn as a mix")
	}
	drawn := map[int64]string{}
	for _, m := range regexp.MustCompile(`<path class="bar mix"[^>]* data-region="([^"]*)" data-rid="([0-9]+)"`).FindAllStringSubmatch(dom, -1) {
		id, _ := strconv.ParseInt(m[2], 10, 64)
		if _, ok := drawn[id]; ok {
			t.Errorf("region %s drawn in two paths", m[1])
		}
		drawn[id] = html.UnescapeString(m[1])
	}
	want := mixRegions(d)
	if !maps.Equal(drawn, want) {
		t.Errorf("mix draws %d regions, the data holds %d", len(drawn), len(want))
	}
	legend := regexp.MustCompile(`(?s)<div class="legend" id="legend">(.*?)</div></div>`).FindString(dom)
	for _, name := range drawn {
		if !strings.Contains(legend, "</i>"+html.EscapeString(name)+"</span>") {
			t.Errorf("region %s drawn but not in the legend", name)
		}
	}
}

// TestChromiumSample renders the embedded sample's report: every slice
// and message drawn (34 slices, 6 messages of Figure 12).
func TestChromiumSample(t *testing.T) {
	page, _, d := pageOf(t)
	dom := chromium(t, page)
	checkDOM(t, dom, d, 34, 6)
	for _, name := range []string{"partner_main", "receive_block", "send_block", "loop2"} {
		if !strings.Contains(dom, `data-region="`+name+`"`) {
			t.Errorf("no bar of %s", name)
		}
	}
	if *screenshot != "" {
		shot, err := filepath.Abs(*screenshot)
		if err != nil {
			t.Fatal(err)
		}
		chromium(t, page, "--window-size=1400,1500", "--screenshot="+shot)
		if st, err := os.Stat(shot); err != nil || st.Size() == 0 {
			t.Fatalf("no screenshot: %v", err)
		}
	}
}

// TestChromiumAggregate renders an OTF trace with no detail kept: the
// timeline is the aggregate, one bar per run of columns.
func TestChromiumAggregate(t *testing.T) {
	page, _, d := pageOf(t, "-detail", "0", "-width", "50", "../../otf/testdata/all_records_short/allrec.otf")
	if d.Timeline.Detail != nil {
		t.Fatal("detail kept with -detail 0")
	}
	bars := 0
	for _, c := range d.Timeline.Cells {
		if c.Region != 0 {
			bars++
		}
	}
	if bars == 0 {
		t.Fatal("no cells")
	}
	checkDOM(t, chromium(t, page), d, -1, len(d.Timeline.Bundles))
}

// TestChromiumFormats renders a report of a trace of each other format.
func TestChromiumFormats(t *testing.T) {
	for _, in := range []string{"../../picl/testdata/appendix_a.trf", "../../dumpi/testdata/collectives/dumpi-2026.11.22.01.33.17.meta",
		"../../otf2/testdata/c_localdefs/trace/traces.otf2"} {
		page, _, d := pageOf(t, in)
		if d.Timeline.Detail == nil {
			t.Fatalf("%s: no detail", in)
		}
		dom := chromium(t, page)
		checkDOM(t, dom, d, len(d.Timeline.Detail.Slices), len(d.Timeline.Detail.Messages))
		colls := 0
		for _, s := range d.Timeline.Detail.Slices {
			if s.Coll {
				colls++
			}
		}
		if got := strings.Count(dom, `class="bar coll"`); got != colls {
			t.Errorf("%s: %d collectives outlined, want %d", in, got, colls)
		}
		if strings.HasSuffix(in, ".meta") && colls == 0 {
			t.Errorf("%s: no collectives", in)
		}
	}
}

// TestWindow checks that -from and -to keep the detail of that window
// only.
func TestWindow(t *testing.T) {
	_, _, d := pageOf(t, "-from", "600us", "-to", "1000")
	if d.Timeline.Start != 600 || d.Timeline.End != 1000 || d.Timeline.Detail == nil {
		t.Fatalf("window: start %d end %d", d.Timeline.Start, d.Timeline.End)
	}
	for _, s := range d.Timeline.Detail.Slices {
		if s.End < 600 || s.Start > 1000 {
			t.Errorf("slice outside the window: %+v", s)
		}
	}
	// Only the window is read: its events, and no slice of a region
	// entered before it.
	tr, err := hpctrace.Open("fig12.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	var inWin int64
	for ev, err := range tr.All() {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Time >= 600 && ev.Time < 1000 {
			inWin++
		}
	}
	if d.Events != inWin {
		t.Errorf("window: %d events read, want the %d with 600 ≤ time < 1000", d.Events, inWin)
	}
	for _, s := range d.Timeline.Detail.Slices {
		if s.Start < 600 {
			t.Errorf("slice entered before the window: %+v", s)
		}
	}
	var all []export.Slice
	_, _, full := pageOf(t)
	all = full.Timeline.Detail.Slices
	if len(d.Timeline.Detail.Slices) == 0 || len(d.Timeline.Detail.Slices) >= len(all) {
		t.Errorf("%d slices in the window of %d", len(d.Timeline.Detail.Slices), len(all))
	}
	for _, args := range [][]string{{"-from", "1h"}, {"-to", "-1h"}, {"-from", "-100us", "-to", "-200us"}, {"-from", "10", "-to", "5"}, {"-from", "x", "-to", "5"}, {"-from", "10", "-to", "x"}} {
		out := filepath.Join(t.TempDir(), "r.html")
		if err := run(append([]string{"-o", out}, args...), io.Discard); err == nil {
			t.Errorf("%v: no error", args)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: a page was written", args)
		}
	}
}

// TestWindowDurations checks that -from and -to take durations from the
// trace's start, negative ones from its end, and that either may be left
// out: the page holds the events of that window of the trace's first and
// last event times, and covers it.
func TestWindowDurations(t *testing.T) {
	tr, err := hpctrace.OpenFS(sample, "fig12.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	var times []model.Time
	for ev, err := range tr.All() {
		if err != nil {
			t.Fatal(err)
		}
		times = append(times, ev.Time)
	}
	tr.Close()
	lo, hi := slices.Min(times), slices.Max(times)
	if tb := tr.TimeBase(); tb.TicksPerSecond != 1e6 {
		t.Fatalf("the sample's clock is %v, want 1 µs", tb)
	}
	for _, c := range []struct {
		args     []string
		from, to model.Time // to: exclusive
	}{
		{[]string{"-from", "-300us"}, hi - 300, hi + 1},
		{[]string{"-to", "500us"}, lo, lo + 500},
		{[]string{"-from", "600us", "-to", "-915us"}, lo + 600, hi - 915},
		{[]string{"-from", "-1h", "-to", "700us"}, lo, lo + 700},
		{[]string{"-from", "1000"}, 1000, hi + 1},
		{[]string{"-from", "-400us", "-to", "1800"}, hi - 400, 1800},
	} {
		_, _, d := pageOf(t, c.args...)
		if d.Timeline.Start != c.from || d.Timeline.End != c.to || !d.Window {
			t.Errorf("%v: the page covers [%d, %d), want [%d, %d)", c.args, d.Timeline.Start, d.Timeline.End, c.from, c.to)
		}
		var want int64
		for _, tm := range times {
			if tm >= c.from && tm < c.to {
				want++
			}
		}
		if d.Events != want || want == 0 {
			t.Errorf("%v: %d events read, want the %d with %d ≤ time < %d", c.args, d.Events, want, c.from, c.to)
		}
	}
}

// TestWindowFromTraceStart: durations count from the trace's start, not
// from its clock's zero, on a trace that starts later (an OTF2 archive
// whose clock properties start at 1000 ns).
func TestWindowFromTraceStart(t *testing.T) {
	const name = "../../otf2/testdata/minimal/trace/traces.otf2"
	tr, err := hpctrace.Open(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := tr.Bounds()
	tr.Close()
	if err != nil || b.Start == 0 || tr.TimeBase().TicksPerSecond != 1e9 {
		t.Fatalf("bounds %v, %v, clock %v: want a start after 0 on a ns clock", b, err, tr.TimeBase())
	}
	_, _, d := pageOf(t, "-from", "500ns", "-to", "-1us", name)
	if d.Timeline.Start != b.Start+500 || d.Timeline.End != b.End-1000 || d.Events != 2 {
		t.Errorf("the page covers [%d, %d) with %d events, want [%d, %d) with the 2 at 1500 ns", d.Timeline.Start, d.Timeline.End, d.Events, b.Start+500, b.End-1000)
	}
}

// TestFailedRead checks that a trace that fails leaves no page.
func TestFailedRead(t *testing.T) {
	b, err := os.ReadFile("fig12.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "cut.json")
	if err := os.WriteFile(in, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"-o", filepath.Join(dir, "r.html"), in}, io.Discard); err == nil {
		t.Fatal("no error for a truncated trace")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files in the directory, want only the input", len(ents))
	}
}

// TestChromiumZoom opens the sample's page zoomed into [600, 1000] ticks
// and checks that only the slices and messages of that window are drawn.
func TestChromiumZoom(t *testing.T) {
	page, _, d := pageOf(t)
	bars, msgs := 0, 0
	for _, s := range d.Timeline.Detail.Slices {
		if s.End >= 600 && s.Start <= 1000 {
			bars++
		}
	}
	for _, m := range d.Timeline.Detail.Messages {
		if max(m.Send, m.Recv) >= 600 && min(m.Send, m.Recv) <= 1000 {
			msgs++
		}
	}
	if bars == 0 || bars == len(d.Timeline.Detail.Slices) {
		t.Fatalf("window with %d of %d slices", bars, len(d.Timeline.Detail.Slices))
	}
	checkDOM(t, chromiumAt(t, page, "#view=600,1000"), d, bars, msgs)
}

// copyTree copies the directory src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestOutputRules checks that the page never replaces a file of the
// trace read, under any name, and replaces another file only with -force.
func TestOutputRules(t *testing.T) {
	dir := t.TempDir()
	sample, err := os.ReadFile("fig12.json")
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "in.json")
	if err := os.WriteFile(in, sample, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.html")
	if err := os.Link(in, link); err != nil {
		t.Fatal(err)
	}
	arch := filepath.Join(dir, "otf2")
	copyTree(t, "../tracestat/testdata/otf2_mpi/trace", arch)
	anchor := filepath.Join(arch, "traces.otf2")
	evt := filepath.Join(arch, "traces", "0.evt")
	old := map[string][]byte{}
	for _, p := range []string{in, anchor, evt} {
		if old[p], err = os.ReadFile(p); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"-o", in, in},
		{"-force", "-o", in, in},
		{"-force", "-o", link, in},
		{"-force", "-o", anchor, anchor},
		{"-force", "-o", evt, anchor},
		{"-force", "-o", filepath.Join(arch, "traces.def"), anchor},
	} {
		err := run(args, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "input") {
			t.Errorf("%v: got error %v, want one naming the input", args, err)
		}
	}
	for p, b := range old {
		if now, _ := os.ReadFile(p); !bytes.Equal(now, b) {
			t.Errorf("%s changed", p)
		}
	}
	out := filepath.Join(dir, "old.html")
	if err := os.WriteFile(out, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"-o", out, in}, io.Discard); err == nil || !strings.Contains(err.Error(), "-force") {
		t.Errorf("existing output without -force: got error %v, want one naming -force", err)
	}
	if b, _ := os.ReadFile(out); string(b) != "old" {
		t.Errorf("existing output replaced without -force")
	}
	if err := run([]string{"-force", "-o", out, in}, io.Discard); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); !bytes.Contains(b, []byte("<!DOCTYPE html>")) {
		t.Errorf("-force did not replace the output")
	}
}

// TestWindowOutside: a window that holds no event of the trace is an
// error naming it, and no page is written.
func TestWindowOutside(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.html")
	err := run([]string{"-o", out, "-from", "100000", "-to", "200000"}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "holds no event") {
		t.Errorf("window after the trace: got error %v, want one saying it holds no event", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a page was written")
	}
}
