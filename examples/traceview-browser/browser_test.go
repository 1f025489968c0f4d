package browser

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"math"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

var shots = flag.String("screenshots", "", "write the README's screenshots (PNG) into this directory")

// traceview is the binary the tests build once.
var traceview string

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "traceview-browser")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	traceview = filepath.Join(dir, "traceview")
	cmd := exec.Command("go", "build", "-o", traceview, ".")
	cmd.Dir = "../traceview"
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building traceview: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// page writes traceview's page of args and returns its path.
func page(t *testing.T, args ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "report.html")
	cmd := exec.Command(traceview, append([]string{"-o", out}, args...)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("traceview %v: %v\n%s", args, err, b)
	}
	return out
}

// browser starts headless Chromium with a window width × height; a
// missing chromium fails the test in CI (which installs it) and skips it
// elsewhere.
func browser(t *testing.T, width, height int) context.Context {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium is not installed")
		}
		t.Skip("chromium is not installed")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.WindowSize(width, height), chromedp.UserDataDir(t.TempDir()))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelC := chromedp.NewContext(actx)
	// The first action starts the browser: no timeout on its context.
	if err := chromedp.Do(bctx, chromedp.EmulateViewport(int64(width), int64(height))); err != nil {
		cancelC()
		cancelA()
		t.Fatal(err)
	}
	ctx, cancelT := context.WithTimeout(bctx, 300*time.Second)
	t.Cleanup(func() { cancelT(); cancelC(); cancelA() })
	return ctx
}

// load opens the page and waits for its script to finish, failing on
// any error the page reports.
func load(t *testing.T, ctx context.Context, path string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+path), chromedp.WaitReady(chromedp.CSS(`body[data-rendered="ok"]`))); err != nil {
		t.Fatal(err)
	}
	if errs := eval[string](t, ctx, `document.getElementById('errors').textContent`); strings.TrimSpace(errs) != "" {
		t.Fatalf("page errors: %s", errs)
	}
}

// eval returns the value of the JavaScript expression js.
func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// timeline is what the timeline's element says it drew.
type timeline struct {
	Bars, Clips, Ticks int
	Mode               string
	V0, V1             *big.Int // the view's ends, exact ticks
	View0, View1       float64  // the same as doubles
}

// span returns the view's width in ticks, exactly computed.
func (s timeline) span() float64 {
	f, _ := new(big.Int).Sub(s.V1, s.V0).Float64()
	return f
}

func state(t *testing.T, ctx context.Context) timeline {
	t.Helper()
	r := eval[struct {
		Bars, Clips, Ticks int
		Mode, V0, V1       string
	}](t, ctx, `(() => { const d = document.getElementById('timeline').dataset;
		return {Bars: +d.bars, Clips: +d.clips, Ticks: +d.ticks, Mode: d.mode, V0: d.view0, V1: d.view1}; })()`)
	s := timeline{Bars: r.Bars, Clips: r.Clips, Ticks: r.Ticks, Mode: r.Mode}
	var ok0, ok1 bool
	s.V0, ok0 = new(big.Int).SetString(r.V0, 10)
	s.V1, ok1 = new(big.Int).SetString(r.V1, 10)
	if !ok0 || !ok1 {
		t.Fatalf("view %q–%q: not ticks", r.V0, r.V1)
	}
	s.View0, _ = new(big.Float).SetInt(s.V0).Float64()
	s.View1, _ = new(big.Float).SetInt(s.V1).Float64()
	return s
}

// checkColours checks that the bars are coloured by group: one hue per
// group, a different hue for each group, and that every region drawn is
// in the legend.
func checkColours(t *testing.T, ctx context.Context) {
	t.Helper()
	bars := eval[[]struct{ Fill, Region, Group string }](t, ctx, `[...document.querySelectorAll('#timeline .bar')].map((b) => ({Fill: b.getAttribute('fill'), Region: b.dataset.region, Group: b.dataset.group || ''}))`)
	if len(bars) == 0 {
		t.Fatal("no bars")
	}
	hueOf := map[string]string{}
	groupOf := map[string]string{}
	re := regexp.MustCompile(`^hsl\((\d+),`)
	for _, b := range bars {
		m := re.FindStringSubmatch(b.Fill)
		if b.Region == "other regions" {
			continue
		}
		if m == nil {
			t.Fatalf("bar of %s filled %q, not a group's hue", b.Region, b.Fill)
		}
		if h, ok := hueOf[b.Group]; ok && h != m[1] {
			t.Errorf("group %s in hues %s and %s", b.Group, h, m[1])
		}
		hueOf[b.Group] = m[1]
		if g, ok := groupOf[m[1]]; ok && g != b.Group {
			t.Errorf("groups %s and %s share hue %s", g, b.Group, m[1])
		}
		groupOf[m[1]] = b.Group
	}
	legend := eval[string](t, ctx, `document.getElementById('legend').textContent`)
	for _, b := range bars {
		if !strings.Contains(legend, b.Region) {
			t.Errorf("region %s drawn, not in the legend", b.Region)
		}
	}
}

// checkAxis checks the tick labels: at least two, in the view, each
// exactly the absolute time of its place on the trace's clock (whatever
// the ticks' size: past 2^53 too), at a round step (1, 2 or 5 times a
// power of ten seconds).
func checkAxis(t *testing.T, ctx context.Context, tps float64) {
	t.Helper()
	s := state(t, ctx)
	ticks := eval[[]struct{ T, Text string }](t, ctx, `[...document.querySelectorAll('#timeline .axis.tick')].map((e) => ({T: e.dataset.t, Text: e.textContent}))`)
	if len(ticks) < 2 {
		t.Fatalf("%d tick labels", len(ticks))
	}
	unit := map[string]string{"s": "1", "ms": "1/1000", "µs": "1/1000000", "ns": "1/1000000000"}
	rate := new(big.Rat).SetFloat64(tps)
	v0, v1 := new(big.Rat).SetInt(s.V0), new(big.Rat).SetInt(s.V1)
	one := big.NewRat(1, 1)
	var at []*big.Rat
	for _, k := range ticks {
		x, ok := new(big.Rat).SetString(k.T)
		f := strings.Fields(k.Text)
		if !ok || len(f) != 2 || unit[f[1]] == "" {
			t.Fatalf("tick label %q at %q", k.Text, k.T)
		}
		v, ok := new(big.Rat).SetString(f[0])
		u, _ := new(big.Rat).SetString(unit[f[1]])
		if !ok {
			t.Fatalf("tick label %q", k.Text)
		}
		if got := new(big.Rat).Mul(new(big.Rat).Mul(v, u), rate); got.Cmp(x) != 0 {
			t.Errorf("tick at %s ticks labelled %q (%s ticks)", x.FloatString(3), k.Text, got.FloatString(3))
		}
		if x.Cmp(new(big.Rat).Sub(v0, one)) < 0 || x.Cmp(new(big.Rat).Add(v1, one)) > 0 {
			t.Errorf("tick %q outside the view [%s, %s]", k.Text, s.V0, s.V1)
		}
		at = append(at, x)
	}
	stepR := new(big.Rat).Quo(new(big.Rat).Sub(at[1], at[0]), rate)
	step, _ := stepR.Float64()
	m := step / math.Pow(10, math.Floor(math.Log10(step)+1e-9))
	if math.Abs(m-1) > 1e-6 && math.Abs(m-2) > 1e-6 && math.Abs(m-5) > 1e-6 {
		t.Errorf("step %g s is not round", step)
	}
	if gap, _ := new(big.Rat).Sub(at[0], v0).Float64(); gap > step*tps+1 {
		t.Errorf("first tick %s more than a step after the view's start %s", at[0].FloatString(3), s.V0)
	}
}

// box is an element's bounding box.
type box struct {
	ID               string
	Left, Top, W, H  float64
	ScrollW, ClientW float64
}

// checkLayout checks that no panel overlaps another, that none is wider
// than the window (tables scroll inside theirs), and that the page does
// not scroll sideways.
func checkLayout(t *testing.T, ctx context.Context, width int) []box {
	t.Helper()
	boxes := eval[[]box](t, ctx, `[...document.querySelectorAll('#timeline-panel, #summary-panel, #legend, .panel, #report > div > .scroll, #text')].map((e) => {
		const r = e.getBoundingClientRect();
		return {ID: e.id || e.className, Left: r.left + scrollX, Top: r.top + scrollY, W: r.width, H: r.height, ScrollW: e.scrollWidth, ClientW: e.clientWidth}; })`)
	if len(boxes) < 6 {
		t.Fatalf("%d panels", len(boxes))
	}
	for i, a := range boxes {
		if a.W <= 0 || a.H <= 0 {
			t.Errorf("panel %s is empty (%v×%v)", a.ID, a.W, a.H)
		}
		if a.Left < 0 || a.Left+a.W > float64(width)+0.5 {
			t.Errorf("panel %s spans %v to %v, outside the window of %d px", a.ID, a.Left, a.Left+a.W, width)
		}
		for _, b := range boxes[i+1:] {
			if a.Left < b.Left+b.W-0.5 && b.Left < a.Left+a.W-0.5 && a.Top < b.Top+b.H-0.5 && b.Top < a.Top+a.H-0.5 {
				t.Errorf("panels %s %+v and %s %+v overlap", a.ID, a, b.ID, b)
			}
		}
	}
	if eval[bool](t, ctx, `document.documentElement.scrollWidth > innerWidth + 1`) {
		t.Errorf("the page scrolls sideways at %d px", width)
	}
	return boxes
}

// zoomAndPan zooms in twice with the button, checks the view is a
// quarter, drags the timeline to the left and checks the view moved
// later by the dragged share.
func zoomAndPan(t *testing.T, ctx context.Context) {
	t.Helper()
	before := state(t, ctx)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#zoom-in")), chromedp.Click(chromedp.CSS("#zoom-in"))); err != nil {
		t.Fatal(err)
	}
	z := state(t, ctx)
	if got, want := z.span(), before.span()/4; math.Abs(got-want) > 2 {
		t.Errorf("zoomed in twice: span %v, want %v", got, want)
	}
	r := eval[struct{ Left, Top, W, H float64 }](t, ctx, `(() => { const r = document.getElementById('timeline').getBoundingClientRect(); return {Left: r.left, Top: r.top, W: r.width, H: r.height}; })()`)
	x0, y := r.Left+r.W*0.6, r.Top+12
	if err := chromedp.Do(ctx,
		chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, x0, y, chromedp.ButtonLeft),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x0-50, y, chromedp.ButtonLeft),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x0-100, y, chromedp.ButtonLeft),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, x0-100, y, chromedp.ButtonLeft)); err != nil {
		t.Fatal(err)
	}
	p := state(t, ctx)
	if z.V0.Cmp(before.V0) == 0 && z.V1.Cmp(before.V1) == 0 {
		// Not zoomed: nothing to pan.
		if p.V0.Cmp(z.V0) != 0 || p.V1.Cmp(z.V1) != 0 {
			t.Errorf("the full view panned to %v–%v", p.V0, p.V1)
		}
	} else if p.V0.Cmp(z.V0) <= 0 || math.Abs(p.span()-z.span()) > 2 {
		t.Errorf("dragged left: view %v–%v, was %v–%v; want it later, as wide", p.V0, p.V1, z.V0, z.V1)
	}
	if p.Bars == 0 {
		t.Errorf("nothing drawn after the pan")
	}
}

// fixtures are a trace of each input format the repository holds.
var fixtures = []struct{ name, path string }{
	{"PICL", "../../picl/testdata/appendix_a.trf"},
	{"DUMPI", "../../dumpi/testdata/collectives/dumpi-2026.11.22.01.33.17.meta"},
	{"OTF", "../../otf/testdata/all_records_short/allrec.otf"},
	{"OTF2", "../../otf2/testdata/c_localdefs/trace/traces.otf2"},
	{"Chrome JSON", "../../chrome/testdata/ring4.json"},
	{"eventjson", "../../eventjson/testdata/fig12.json"},
}

// TestFormats loads the page of a trace of every format, at full view
// and zoomed and panned: bars drawn, coloured by group, round absolute
// axis labels, panels apart.
func TestFormats(t *testing.T) {
	ctx := browser(t, 1280, 900)
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			p := page(t, f.path)
			load(t, ctx, p)
			if s := state(t, ctx); s.Bars == 0 {
				t.Fatalf("no bars: %+v", s)
			}
			checkColours(t, ctx)
			tps := eval[float64](t, ctx, `JSON.parse(document.getElementById('data').textContent).timeline.ticks_per_second`)
			if tps > 0 {
				checkAxis(t, ctx, tps)
			}
			checkLayout(t, ctx, 1280)
			zoomAndPan(t, ctx)
			checkColours(t, ctx)
			if tps > 0 {
				checkAxis(t, ctx, tps)
			}
		})
	}
}

// ring writes an event-JSON trace of ranks locations (ticks in ns): main,
// then per round compute and a ring exchange (MPI_Send, MPI_Recv), rank 3
// slow, so MPI is a small share of each column.
func ring(t testing.TB, ranks, rounds int) string {
	t.Helper()
	return ringAt(t, ranks, rounds, 0)
}

// ringAt writes ring's trace with every time base ticks later.
func ringAt(t testing.TB, ranks, rounds int, base int64) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), fmt.Sprintf("ring%d.json", ranks))
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprint(w, `{"format":"trace-events-json/1","ticks_per_second":1000000000,"locations":[`)
	for r := range ranks {
		if r > 0 {
			fmt.Fprint(w, ",")
		}
		fmt.Fprintf(w, `{"id":%d,"name":"rank %d"}`, r, r)
	}
	fmt.Fprint(w, `],"regions":[{"id":1,"name":"main","kind":"function","paradigm":"user"},{"id":2,"name":"compute","kind":"function","paradigm":"user"},`+
		`{"id":3,"name":"MPI_Send","kind":"function","paradigm":"mpi"},{"id":4,"name":"MPI_Recv","kind":"function","paradigm":"mpi"}],"events":[`)
	first := true
	ev := func(t int64, loc int, body string) {
		if !first {
			fmt.Fprint(w, ",")
		}
		first = false
		fmt.Fprintf(w, `{"t":%d,"loc":%d,%s}`, base+t, loc, body)
	}
	for r := range ranks {
		ev(0, r, `"kind":"enter","region":1`)
	}
	const round, slow = 2000, 1700
	c := func(r int) int64 {
		if r == 3%ranks {
			return slow
		}
		return 900
	}
	for k := range rounds {
		t0 := int64(k)*round + 10
		for r := range ranks {
			ev(t0, r, `"kind":"enter","region":2`)
		}
		// Times rise: the fast ranks' calls first, then the slow one's.
		for _, fast := range []bool{true, false} {
			for r := range ranks {
				if (c(r) == 900) != fast {
					continue
				}
				ev(t0+c(r), r, `"kind":"leave","region":2`)
				ev(t0+c(r), r, `"kind":"enter","region":3`)
				ev(t0+c(r)+20, r, fmt.Sprintf(`"kind":"send","peer":%d,"tag":1,"bytes":%d`, (r+1)%ranks, 1024))
				ev(t0+c(r)+40, r, `"kind":"leave","region":3`)
				ev(t0+c(r)+40, r, `"kind":"enter","region":4`)
			}
			for r := range ranks {
				src := (r + ranks - 1) % ranks
				recv := max(c(r), c(src)) + 60
				if (recv == 960) != fast {
					continue
				}
				ev(t0+recv, r, fmt.Sprintf(`"kind":"recv","peer":%d,"tag":1,"bytes":1024`, src))
				ev(t0+recv+5, r, `"kind":"leave","region":4`)
			}
		}
	}
	for r := range ranks {
		ev(int64(rounds)*round+10, r, `"kind":"leave","region":1`)
	}
	fmt.Fprint(w, "]}\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLayout loads the pages of 16, 256 and 10,000 locations at 1280 and
// 3840 px: no panel overlaps another or leaves the window, the imbalance table
// lists every row, and the MPI calls are drawn at full view.
func TestLayout(t *testing.T) {
	for _, ranks := range []int{16, 256, 10000} {
		rounds := 300
		if ranks == 10000 {
			rounds = 4
		}
		p := page(t, "-detail", "0", ring(t, ranks, rounds))
		for _, width := range []int{1280, 3840} {
			t.Run(fmt.Sprintf("%d locations at %d px", ranks, width), func(t *testing.T) {
				ctx := browser(t, width, 1200)
				load(t, ctx, p)
				checkLayout(t, ctx, width)
				rows := eval[int](t, ctx, `+document.getElementById('timeline').dataset.rows`)
				cols := eval[int](t, ctx, `document.querySelectorAll('#imbalance tr:first-child th').length - 2`)
				if cols != rows {
					t.Errorf("the imbalance table has %d columns of %d rows", cols, rows)
				}
				regions := eval[[]string](t, ctx, `[...document.querySelectorAll('#timeline .bar.mix')].map((b) => b.dataset.region)`)
				if !strings.Contains(strings.Join(regions, ","), "MPI_Send") || !strings.Contains(strings.Join(regions, ","), "MPI_Recv") {
					t.Errorf("full view draws %v; want the MPI calls among them", regions)
				}
				checkColours(t, ctx)
				if *shots != "" && ranks == 256 && width == 1280 {
					shot(t, ctx, filepath.Join(*shots, "traceview-256.png"), 1280, 720)
				}
				if *shots != "" && ranks == 16 && width == 1280 {
					shot(t, ctx, filepath.Join(*shots, "traceview-full.png"), 1280, 760)
				}
			})
		}
	}
}

// TestWindowEdges loads a -from/-to window's page: the slices cut by its
// edges are drawn from the left edge of the plot and marked, the axis
// starts at the window's start.
func TestWindowEdges(t *testing.T) {
	trace := ring(t, 8, 40)
	p := page(t, "-from", "20500", "-to", "26500", trace)
	ctx := browser(t, 1280, 900)
	load(t, ctx, p)
	s := state(t, ctx)
	if s.Mode != "detail" || s.Clips == 0 || s.View0 != 20500 || s.View1 != 26500 {
		t.Fatalf("window page: %+v", s)
	}
	edges := eval[struct {
		Plot  float64
		Clips []float64
	}](t, ctx, `(() => { const p = document.querySelector('#timeline svg').getBoundingClientRect();
		return {Plot: p.left, Clips: [...document.querySelectorAll('#timeline .clip-l')].map((c) => c.getBoundingClientRect().left)}; })()`)
	if len(edges.Clips) < 8 {
		t.Errorf("%d rows cut at the window's start, want every one of 8", len(edges.Clips))
	}
	for _, x := range edges.Clips {
		if math.Abs(x-edges.Plot) > 1 {
			t.Errorf("cut mark at %v px, the plot starts at %v", x, edges.Plot)
		}
	}
	checkAxis(t, ctx, 1e9)
	checkColours(t, ctx)
	checkLayout(t, ctx, 1280)
	if *shots != "" {
		shot(t, ctx, filepath.Join(*shots, "traceview-window.png"), 1280, 640)
	}
}

// shot saves the top w × h pixels of the page as a PNG.
func shot(t *testing.T, ctx context.Context, path string, w, h int) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(w), int64(h))); err != nil {
		t.Fatal(err)
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRedraw drives the interface the served mode uses: traceview.onview
// hears every change of the window, traceview.redraw(data) draws new
// data keeping the window, and traceview.view() tells it.
func TestRedraw(t *testing.T) {
	p := page(t, "../../eventjson/testdata/fig12.json")
	ctx := browser(t, 1280, 900)
	load(t, ctx, p)
	eval[bool](t, ctx, `window.heard = []; traceview.onview = (a, b) => heard.push([a, b]); true`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#zoom-in"))); err != nil {
		t.Fatal(err)
	}
	heard := eval[[][2]float64](t, ctx, `heard`)
	s := state(t, ctx)
	if len(heard) != 1 || math.Round(heard[0][0]) != s.View0 || math.Round(heard[0][1]) != s.View1 {
		t.Fatalf("onview heard %v, the view is %v–%v", heard, s.View0, s.View1)
	}
	// New data: the same trace with its first location renamed.
	got := eval[struct {
		Label      string
		View       struct{ T0, T1 float64 }
		Bars, Errs string
	}](t, ctx, `(() => {
		const d = JSON.parse(document.getElementById('data').textContent);
		d.timeline.locations[0] = 'redrawn';
		traceview.redraw(d);
		const v = traceview.view();
		return {Label: document.querySelector('#timeline .row .label').textContent, View: {T0: v.t0, T1: v.t1},
			Bars: document.getElementById('timeline').dataset.bars, Errs: document.getElementById('errors').textContent};
	})()`)
	if got.Label != "redrawn" || got.View.T0 != heard[0][0] || got.View.T1 != heard[0][1] || got.Bars == "0" || got.Errs != "" {
		t.Errorf("after redraw: %+v; want the new label, the view %v, bars, no errors", got, heard[0])
	}
	checkLayout(t, ctx, 1280)
}
