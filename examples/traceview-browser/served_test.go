package browser

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os/exec"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// serveTrace starts `traceview -serve 127.0.0.1:0 args...` as its own
// process, stopped when the test ends, and returns its address.
func serveTrace(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(traceview, append([]string{"-serve", "127.0.0.1:0"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	sc := bufio.NewScanner(stderr)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if m := regexp.MustCompile(`at (http://\S+)/ `).FindStringSubmatch(sc.Text()); m != nil {
			go io.Copy(io.Discard, stderr)
			return m[1]
		}
	}
	t.Fatalf("traceview -serve %v did not start: %q", args, lines)
	return ""
}

// reply is the part of the server's answer to /window the tests check.
type reply struct {
	From, To float64
	Timeline struct {
		Start, End float64
		Regions    []struct{ Name, Kind string }
		Detail     *struct {
			Slices []struct {
				Region     int
				Start, End float64
			}
			Messages []struct{ Send, Recv float64 }
		}
	}
	Mix *struct {
		Start    float64
		ColWidth float64 `json:"col_width"`
		Cells    [][]float64
	}
	Groups       []struct{ Name, Kind string }
	RegionGroups []int `json:"region_groups"`
}

// getWindow asks the server at base for the window [from, to).
func getWindow(t *testing.T, base string, from, to int64) *reply {
	t.Helper()
	res, err := http.Get(fmt.Sprintf("%s/window?from=%d&to=%d", base, from, to))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("window [%d, %d): %d %s", from, to, res.StatusCode, b)
	}
	var r reply
	if err := json.NewDecoder(res.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// served is the served page's state: #served's and the exact view.
type served struct {
	State      string
	From, To   int64
	View0      float64
	View1      float64
	Mode, Errs string
}

func servedState(t *testing.T, ctx context.Context) served {
	t.Helper()
	return eval[served](t, ctx, `(() => { const s = document.getElementById('served'), v = traceview.view();
		return {State: s.dataset.state || '', From: +(s.dataset.from || 0), To: +(s.dataset.to || 0), View0: v.t0, View1: v.t1,
			Mode: document.getElementById('timeline').dataset.mode, Errs: document.getElementById('errors').textContent}; })()`)
}

// awaitServed waits until the page shows a window the server answered
// that covers the view, and returns the page's state. It waits as long
// as ctx lives (the browser's hang guard), not a budget of its own: a
// busy machine answers late, not wrongly.
func awaitServed(t *testing.T, ctx context.Context) served {
	t.Helper()
	for {
		s := servedState(t, ctx)
		if s.Errs != "" || s.State == "error" {
			t.Fatalf("served page: %+v", s)
		}
		if s.State == "ok" && float64(s.From) <= s.View0 && float64(s.To) >= s.View1 {
			return s
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no served window covers the view: %+v", s)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// drawn is what the timeline shows: its counts and its bars.
type drawn struct {
	Bars, Msgs, Clips int
	Mode              string
	Regions           []string // of the bars, sorted
	Groups            map[string]string
}

func drawnNow(t *testing.T, ctx context.Context) drawn {
	t.Helper()
	d := eval[drawn](t, ctx, `(() => { const d = document.getElementById('timeline').dataset, g = {};
		const bars = [...document.querySelectorAll('#timeline .bar')];
		for (const b of bars) g[b.dataset.region] = b.dataset.group || '';
		return {Bars: +d.bars, Msgs: +d.msgs, Clips: +d.clips, Mode: d.mode, Regions: bars.map((b) => b.dataset.region), Groups: g}; })()`)
	sort.Strings(d.Regions)
	return d
}

// checkServed checks that the timeline draws what the server answers for
// the window the page read: in detail, every slice and message of the
// server's in the view, the slices cut by the read's edges marked, each
// region in its group; as a mix, the regions of the server's mix of that
// window in the view.
func checkServed(t *testing.T, ctx context.Context, base string, s served, wantMode string) {
	t.Helper()
	r := getWindow(t, base, s.From, s.To)
	d := drawnNow(t, ctx)
	if d.Mode != wantMode {
		t.Fatalf("mode %q, want %q (view %v–%v, read [%d, %d))", d.Mode, wantMode, s.View0, s.View1, s.From, s.To)
	}
	tl := &r.Timeline
	name := func(id int) string {
		if id == 0 {
			return "other regions"
		}
		return tl.Regions[id-1].Name
	}
	groupOf := map[string]string{}
	for i, reg := range tl.Regions {
		if i < len(r.RegionGroups) && r.RegionGroups[i] < len(r.Groups) {
			groupOf[reg.Name] = r.Groups[r.RegionGroups[i]].Name
		}
	}
	for reg, g := range d.Groups {
		if want, ok := groupOf[reg]; ok && g != want {
			t.Errorf("region %s drawn in group %q; the server's group is %q", reg, g, want)
		} else if !ok && reg != "other regions" {
			t.Errorf("region %s drawn, not in the server's answer", reg)
		}
	}
	switch wantMode {
	case "detail":
		if tl.Detail == nil {
			t.Fatalf("the server's answer for [%d, %d) has no detail", s.From, s.To)
		}
		var regions []string
		clips := 0
		for _, sl := range tl.Detail.Slices {
			if sl.End < s.View0 || sl.Start > s.View1 {
				continue
			}
			regions = append(regions, name(sl.Region))
			if sl.Start <= tl.Start {
				clips++
			}
			if sl.End >= tl.End {
				clips++
			}
		}
		sort.Strings(regions)
		msgs := 0
		for _, m := range tl.Detail.Messages {
			if !(math.Max(m.Send, m.Recv) < s.View0 || math.Min(m.Send, m.Recv) > s.View1) {
				msgs++
			}
		}
		if d.Bars != len(regions) || !slices.Equal(d.Regions, regions) {
			t.Errorf("%d bars drawn of %v; the server's %d slices in the view are of %v", d.Bars, compact(d.Regions), len(regions), compact(regions))
		}
		if d.Msgs != msgs {
			t.Errorf("%d message lines drawn; the server's messages in the view: %d", d.Msgs, msgs)
		}
		if d.Clips != clips {
			t.Errorf("%d cut marks drawn; the server's slices cut by the read's edges: %d", d.Clips, clips)
		}
	case "mix":
		if r.Mix == nil {
			t.Fatalf("the server's answer for [%d, %d) has no mix", s.From, s.To)
		}
		want := map[string]bool{}
		for _, c := range r.Mix.Cells {
			a := r.Mix.Start + c[1]*r.Mix.ColWidth
			b := a + c[2]*r.Mix.ColWidth
			if math.Min(b, s.View1) <= math.Max(a, s.View0) {
				continue
			}
			for k := 3; k+1 < len(c); k += 2 {
				if c[k+1] > 0 {
					want[name(int(c[k]))] = true
				}
			}
		}
		got := map[string]bool{}
		for _, reg := range d.Regions {
			got[reg] = true
		}
		if len(want) == 0 || !mapsEqual(got, want) {
			t.Errorf("the mix drawn holds %v; the server's mix of the view %v", got, want)
		}
		// Where each region is drawn in the first row: the 2-pixel bins
		// of the view that the server's mix puts it in.
		row := eval[struct {
			PlotW, Top, H float64
			Paths         []struct{ Region, D string }
		}](t, ctx, `(() => { const r = document.querySelector('#timeline .row[data-loc-id="1"] rect');
			return {PlotW: +document.querySelector('#timeline svg').getAttribute('width'), Top: +r.getAttribute('y'), H: +r.getAttribute('height'),
				Paths: [...document.querySelectorAll('#timeline .bar.mix')].map((p) => ({Region: p.dataset.region, D: p.getAttribute('d')}))}; })()`)
		const bin = 2
		nb := int(math.Ceil(row.PlotW / bin))
		bt := (s.View1 - s.View0) / row.PlotW * bin
		wantBins := map[string]int{}
		for reg := range want {
			in := make([]bool, nb)
			for _, c := range r.Mix.Cells {
				if c[0] != 1 {
					continue
				}
				has := false
				for k := 3; k+1 < len(c); k += 2 {
					has = has || (name(int(c[k])) == reg && c[k+1] > 0)
				}
				a0 := r.Mix.Start + c[1]*r.Mix.ColWidth
				a, b := math.Max(a0, s.View0), math.Min(a0+c[2]*r.Mix.ColWidth, s.View1)
				if !has || b <= a {
					continue
				}
				for i := int(math.Floor((a - s.View0) / bt)); i <= min(nb-1, int(math.Ceil((b-s.View0)/bt))-1); i++ {
					if math.Min(b, s.View0+float64(i+1)*bt) > math.Max(a, s.View0+float64(i)*bt) {
						in[i] = true
					}
				}
			}
			for _, x := range in {
				if x {
					wantBins[reg]++
				}
			}
		}
		gotBins := map[string]int{}
		re := regexp.MustCompile(`M([-\d.]+) ([-\d.]+)h([-\d.]+)`)
		for _, p := range row.Paths {
			for _, m := range re.FindAllStringSubmatch(p.D, -1) {
				y, _ := strconv.ParseFloat(m[2], 64)
				w, _ := strconv.ParseFloat(m[3], 64)
				if y >= row.Top && y < row.Top+row.H {
					gotBins[p.Region] += int(math.Round(w / bin))
				}
			}
		}
		for reg, n := range wantBins {
			if math.Abs(float64(gotBins[reg]-n)) > 1+float64(n)/100 {
				t.Errorf("region %s drawn in %d bins of the first row; the server's mix of the window puts it in %d", reg, gotBins[reg], n)
			}
		}
	}
}

func mapsEqual(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// compact shortens a sorted list of names to name×count.
func compact(xs []string) []string {
	var out []string
	for i := 0; i < len(xs); {
		j := i
		for j < len(xs) && xs[j] == xs[i] {
			j++
		}
		out = append(out, fmt.Sprintf("%s×%d", xs[i], j-i))
		i = j
	}
	return out
}

// click clicks the button id in the page's script: the buttons are made
// anew by every drawing, which a window's answer may start at any time.
func click(t *testing.T, ctx context.Context, id string, times int) {
	t.Helper()
	eval[bool](t, ctx, fmt.Sprintf(`(() => { for (let i = 0; i < %d; i++) document.getElementById(%q).click(); return true; })()`, times, id))
}

// pan drags the timeline by 100 pixels to the left once the page shows
// its window, and checks that the view moved later by as much, as wide.
func pan(t *testing.T, ctx context.Context) {
	t.Helper()
	before := awaitServed(t, ctx)
	r := eval[struct{ Left, Top, W float64 }](t, ctx, `(() => { const r = document.getElementById('timeline').getBoundingClientRect(); return {Left: r.left, Top: r.top, W: r.width}; })()`)
	plotW := eval[float64](t, ctx, `+document.querySelector('#timeline svg').getAttribute('width')`)
	x0, y := r.Left+r.W*0.6, r.Top+12
	if err := chromedp.Do(ctx,
		chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, x0, y, chromedp.ButtonLeft),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x0-50, y, chromedp.ButtonLeft),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x0-100, y, chromedp.ButtonLeft),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, x0-100, y, chromedp.ButtonLeft)); err != nil {
		t.Fatal(err)
	}
	after := servedState(t, ctx)
	span := before.View1 - before.View0
	if want := before.View0 + 100/plotW*span; math.Abs(after.View0-want) > span/plotW || math.Abs((after.View1-after.View0)-span) > 1 {
		t.Errorf("dragged 100 px left: view %v–%v, was %v–%v; want it from %v, as wide", after.View0, after.View1, before.View0, before.View1, want)
	}
}

// loadServed opens the served page at base and waits for its first
// drawing: the page's own data (the full view).
func loadServed(t *testing.T, ctx context.Context, base string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitReady(chromedp.CSS(`body[data-rendered="ok"]`)),
		chromedp.WaitReady(chromedp.CSS(`#served[data-state="page"]`))); err != nil {
		t.Fatal(err)
	}
	if s := servedState(t, ctx); s.Errs != "" {
		t.Fatalf("page errors: %s", s.Errs)
	}
}

// TestServedFormats serves a trace of every input format, loads the
// served page, zooms in and pans: after each, the page reads the window
// from the server and draws exactly the server's slices and messages of
// the view, cut marks where the server's slices cross the read's edges,
// each region in the server's group (one hue a group), and round
// absolute axis labels.
func TestServedFormats(t *testing.T) {
	ctx := browser(t, 1280, 900)
	for _, f := range fixtures {
		if f.name == "OTF2" {
			// The fixture of TestFormats has times past 2^53 ticks and a
			// span of a few thousand: the page (its times are doubles)
			// does not zoom into it. This one is an MPI run of 8 ranks.
			f.path = "../tracestat/testdata/otf2_mpi/trace/traces.otf2"
		}
		t.Run(f.name, func(t *testing.T) {
			base := serveTrace(t, f.path)
			loadServed(t, ctx, base)
			tps := eval[float64](t, ctx, `JSON.parse(document.getElementById('data').textContent).timeline.ticks_per_second`)
			click(t, ctx, "zoom-in", 2)
			s := awaitServed(t, ctx)
			checkServed(t, ctx, base, s, "detail")
			checkColours(t, ctx)
			if tps > 0 {
				checkAxis(t, ctx, tps)
			}
			pan(t, ctx)
			s = awaitServed(t, ctx)
			checkServed(t, ctx, base, s, "detail")
			checkColours(t, ctx)
			if tps > 0 {
				checkAxis(t, ctx, tps)
			}
			checkLayout(t, ctx, 1280)
			// Back to the full view: the page's own data, no request.
			click(t, ctx, "zoom-reset", 1)
			if st := servedState(t, ctx); st.State != "page" {
				t.Errorf("reset: served state %q, want page", st.State)
			}
		})
	}
}

// TestServedMix serves a ring of 8 ranks whose windows hold more slices
// than -detail: a zoomed window is drawn as the mix the server made of
// that window's events, not as the page's mix of the whole trace; with
// -detail large enough the same window is drawn slice by slice.
func TestServedMix(t *testing.T) {
	trace := ring(t, 8, 400)
	ctx := browser(t, 1280, 900)
	for _, c := range []struct {
		detail, mode string
	}{{"50", "mix"}, {"1000000", "detail"}} {
		t.Run("detail="+c.detail, func(t *testing.T) {
			base := serveTrace(t, "-detail", c.detail, trace)
			loadServed(t, ctx, base)
			click(t, ctx, "zoom-in", 3)
			s := awaitServed(t, ctx)
			if c.mode == "mix" {
				// The page's own mix at full view is of columns of the
				// whole trace; the window's has -width columns over the
				// window read.
				cw := eval[float64](t, ctx, `JSON.parse(document.getElementById('data').textContent).mix.col_width`)
				if r := getWindow(t, base, s.From, s.To); r.Mix == nil || r.Mix.ColWidth >= cw {
					t.Fatalf("the window's mix: %+v; the page's columns are %v ticks", r.Mix, cw)
				}
			}
			checkServed(t, ctx, base, s, c.mode)
			if d := drawnNow(t, ctx); c.mode == "detail" && d.Clips < 16 {
				t.Errorf("%d cut marks; every rank's main crosses both edges of the window read, 16 at least", d.Clips)
			}
			checkColours(t, ctx)
			checkAxis(t, ctx, 1e9)
			pan(t, ctx)
			s = awaitServed(t, ctx)
			checkServed(t, ctx, base, s, c.mode)
		})
	}
}

// summaryReply is the part of the server's answer that says a window was
// answered from its summary.
type summaryReply struct {
	Read    int64
	Summary *struct {
		Bucket, Buckets, Events, Budget int64
		LongMin                         int64 `json:"long_min"`
		Long                            []struct {
			Start, End float64
		}
	}
	Mix *struct {
		ColWidth int64 `json:"col_width"`
	}
}

// TestServedSummary serves a ring of 8 ranks (about 26,000 events) with
// -budget 3000: a window of more events is drawn from the server's
// summary, as its mix (the regions of the server's mix in the bins it
// puts them in), and the status and the toolbar say so and at what
// columns; zoomed in to a window of fewer events, every slice is drawn
// from the window read in full, and the labels say that.
func TestServedSummary(t *testing.T) {
	trace := ring(t, 8, 400)
	ctx := browser(t, 1280, 900)
	base := serveTrace(t, "-budget", "3000", trace)
	loadServed(t, ctx, base)
	type label struct {
		Summary, Column, Status, Mode string
	}
	labels := func() label {
		return eval[label](t, ctx, `(() => { const s = document.getElementById('served');
			return {Summary: s.dataset.summary || '', Column: s.dataset.column || '', Status: s.textContent, Mode: document.getElementById('mode').textContent}; })()`)
	}
	click(t, ctx, "zoom-in", 1)
	s := awaitServed(t, ctx)
	res, err := http.Get(fmt.Sprintf("%s/window?from=%d&to=%d", base, s.From, s.To))
	if err != nil {
		t.Fatal(err)
	}
	var r summaryReply
	err = json.NewDecoder(res.Body).Decode(&r)
	res.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if r.Summary == nil || r.Read != 0 || r.Summary.Events <= 3000 {
		t.Fatalf("window [%d, %d): read %d events, summary %+v; want the summary of more than 3000 events", s.From, s.To, r.Read, r.Summary)
	}
	checkServed(t, ctx, base, s, "mix")
	// The slices of a column or longer, outlined: every rank's main and
	// compute calls here.
	inView := 0
	for _, x := range r.Summary.Long {
		if !(x.End < s.View0 || x.Start > s.View1) {
			inView++
		}
	}
	if n := eval[int](t, ctx, `+document.getElementById('timeline').dataset.long`); n != inView || n < 8 {
		t.Errorf("%d long slices outlined; the server's of at least %d ticks in the view: %d (8 at least: every rank's main)", n, r.Summary.LongMin, inView)
	}
	l := labels()
	col := strconv.FormatInt(r.Mix.ColWidth, 10)
	if l.Summary != "1" || l.Column != col || !strings.Contains(l.Status, "summary") || !strings.Contains(l.Status, strconv.FormatInt(r.Summary.Events, 10)+" events") ||
		!strings.Contains(l.Mode, "served summary at columns of") || strings.Contains(l.Mode, "-from") {
		t.Errorf("a summary drawn with labels %+v; want data-summary 1, data-column %s, the status and the toolbar saying so", l, col)
	}
	// Zoomed in to 1/32 of the trace (the read: 1/21), about 1,200 events:
	// the view is no longer the summary's, and the page asks for it.
	click(t, ctx, "zoom-in", 4)
	for prev := s; ; {
		if s = awaitServed(t, ctx); s.From != prev.From || s.To != prev.To {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("zoomed in: no new window asked for: %+v", s)
		case <-time.After(50 * time.Millisecond):
		}
	}
	checkServed(t, ctx, base, s, "detail")
	if l := labels(); l.Summary != "0" || l.Column != "" || strings.Contains(l.Status, "summary") || strings.Contains(l.Mode, "summary") {
		t.Errorf("a window read in full drawn with labels %+v; want no summary", l)
	}
}

// TestServedExpandRows: in the served page, a click on a grouped row's
// label expands it into a line per location, as in the static page
// (TestExpandRows), and the lines are drawn from the window the server
// answers: zoomed in, each slice of the server's window on its
// location's line where its row is expanded, else on its row; the rows
// stay expanded across the next window's answers (a pan, a zoom out
// that reads a new window); as a mix, every
// location's line of the expanded row draws something.
func TestServedExpandRows(t *testing.T) {
	t.Run("detail", func(t *testing.T) {
		ctx := browser(t, 1280, 1000)
		base := serveTrace(t, "-rows", "4", ring(t, 40, 40))
		loadServed(t, ctx, base)
		click(t, ctx, "zoom-in", 3)
		s := awaitServed(t, ctx)
		checkServed(t, ctx, base, s, "detail")
		clickRow(t, ctx, 2)
		check := func(s served) {
			t.Helper()
			got := eval[struct {
				Labels   []string
				Expanded string
				Bad      []string
				OnLines  int
			}](t, ctx, `(() => {
				const box = (css) => { const r = document.querySelector(css).getBoundingClientRect(); return [r.top, r.bottom]; };
				const bad = []; let on = 0;
				for (const b of document.querySelectorAll('#timeline rect.bar')) {
					const l = +b.dataset.locId, y = b.getBoundingClientRect();
					const member = l > 10 && l <= 20;
					if (member) on++;
					const [a, z] = member ? box('#timeline .row.member[data-loc-id="' + l + '"] rect') :
						box('#timeline .row.group[data-row="' + (1 + Math.floor((l - 1) / 10)) + '"] rect');
					if (y.top < a - 0.5 || y.bottom > z + 0.5) bad.push(l + ': ' + y.top + '–' + y.bottom + ' not in ' + a + '–' + z);
				}
				return {Labels: [...document.querySelectorAll('#timeline .row.member .label')].map((e) => e.textContent),
					Expanded: document.querySelector('#timeline .row.group[data-row="2"]').dataset.expanded, Bad: bad, OnLines: on}; })()`)
			if got.Expanded != "1" || len(got.Labels) != 10 {
				t.Fatalf("expanded row 2: data-expanded %q, lines %q; want its 10 locations", got.Expanded, got.Labels)
			}
			for i, l := range got.Labels {
				if l != fmt.Sprintf("rank %d", 10+i) {
					t.Errorf("line %d labelled %q, want rank %d", i, l, 10+i)
				}
			}
			if len(got.Bad) > 0 {
				t.Errorf("slices off their line: %v", got.Bad)
			}
			// The lines hold the server's slices of their locations that
			// the view shows: every rank's main and a few rounds each.
			d := drawnNow(t, ctx)
			if got.OnLines == 0 || got.OnLines*4 < d.Bars*3/4 || got.OnLines > d.Bars {
				t.Errorf("%d of %d bars on the 10 lines of row 2 (a quarter of the locations); want about a quarter", got.OnLines, d.Bars)
			}
			checkServed(t, ctx, base, s, "detail")
		}
		check(s)
		// A pan, then a zoom out: a window the page had not read, which
		// the server answers anew.
		pan(t, ctx)
		check(awaitServed(t, ctx))
		click(t, ctx, "zoom-out", 1)
		s2 := awaitServed(t, ctx)
		if s2.From == s.From && s2.To == s.To {
			t.Fatalf("zoomed out: the window read is still [%d, %d)", s.From, s.To)
		}
		check(s2)
		checkLayout(t, ctx, 1280)
		clickRow(t, ctx, 2)
		if n := eval[int](t, ctx, `document.querySelectorAll('#timeline .row.member').length`); n != 0 {
			t.Errorf("collapsed: %d member lines left", n)
		}
	})
	t.Run("mix", func(t *testing.T) {
		ctx := browser(t, 1280, 1000)
		base := serveTrace(t, "-rows", "20", "-detail", "0", ring(t, 400, 40))
		loadServed(t, ctx, base)
		click(t, ctx, "zoom-in", 2)
		s := awaitServed(t, ctx)
		if d := drawnNow(t, ctx); d.Mode != "mix" {
			t.Fatalf("mode %q, want mix (read [%d, %d))", d.Mode, s.From, s.To)
		}
		clickRow(t, ctx, 1)
		got := eval[struct {
			Labels   []string
			Expanded string
		}](t, ctx, `({Labels: [...document.querySelectorAll('#timeline .row.member .label')].map((e) => e.textContent),
			Expanded: document.querySelector('#timeline .row.group[data-row="1"]').dataset.expanded})`)
		if len(got.Labels) != 20 || got.Expanded != "1" {
			t.Fatalf("expanded row 1: %d lines %v, data-expanded %q; want its 20 locations", len(got.Labels), got.Labels, got.Expanded)
		}
		// Each location's own mix: rank 3 computes 1700 of every 2000 ns,
		// rank 0 900.
		area := eval[[]float64](t, ctx, `[1, 4].map((l) => [...document.querySelectorAll('#timeline .bar.mix.member[data-loc-id="' + l + '"]')]
			.filter((p) => p.dataset.region === 'compute')
			.reduce((a, p) => a + [...p.getAttribute('d').matchAll(/h(-?[\d.]+)v([\d.]+)/g)].reduce((s, m) => s + Math.abs(+m[1]) * +m[2], 0), 0))`)
		if area[0] <= 0 || area[1] < 1.5*area[0] {
			t.Errorf("compute drawn over %v px² on rank 0's line and %v on rank 3's; want rank 3's about twice", area[0], area[1])
		}
		for l := 1; l <= 20; l++ {
			if n := eval[int](t, ctx, fmt.Sprintf(`document.querySelectorAll('#timeline .bar.mix.member[data-loc-id="%d"]').length`, l)); n == 0 {
				t.Errorf("nothing drawn on the line of location %d", l)
			}
		}
		checkLayout(t, ctx, 1280)
	})
}
