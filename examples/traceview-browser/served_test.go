package browser

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/big"
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
		switch {
		case id == 0:
			return "other regions"
		case id < 0 && -id <= len(r.Groups): // the rest of group -id-1
			return "other " + r.Groups[-id-1].Name + " regions"
		}
		return tl.Regions[id-1].Name
	}
	groupOf := map[string]string{}
	for _, g := range r.Groups {
		groupOf["other "+g.Name+" regions"] = g.Name
	}
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
		// The lines draw the window's own mix of their locations, which
		// the expansion asks the server for.
		awaitMembers(t, ctx, "1-20")
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

// memberReply is the part of the server's answer to /window with
// &members= that the tests check: the members' own mix, one location a
// row, and the regions it names.
type memberReply struct {
	Timeline struct {
		Regions []struct{ Name string }
	}
	Members *struct {
		Mix *struct {
			Start    float64
			ColWidth float64 `json:"col_width"`
			Cells    [][]float64
		}
	}
	Summary *struct{ Bucket int64 }
}

// awaitMembers waits until the page shows a window the server answered
// with the members' mix of the locations list (ids and ranges).
func awaitMembers(t *testing.T, ctx context.Context, list string) served {
	t.Helper()
	for {
		s := awaitServed(t, ctx)
		if eval[string](t, ctx, `document.getElementById('served').dataset.members || ''`) == list {
			return awaitServed(t, ctx)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no window answered with the members %s: %+v", list, s)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// checkMembers checks that the lines of locations lo to hi (an expanded
// row) draw the server's own mix of those locations for the window the
// page read: each region in the 2-pixel bins of the view where the
// server's members' mix puts it, on each location's line.
func checkMembers(t *testing.T, ctx context.Context, base string, s served, lo, hi int) *memberReply {
	t.Helper()
	u := fmt.Sprintf("%s/window?from=%d&to=%d&members=%d-%d", base, s.From, s.To, lo, hi)
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	var r memberReply
	err = json.NewDecoder(res.Body).Decode(&r)
	res.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if r.Members == nil || r.Members.Mix == nil {
		t.Fatalf("GET %s: no members' mix", u)
	}
	mx := r.Members.Mix
	name := func(id int) string {
		if id == 0 {
			return "other regions"
		}
		return r.Timeline.Regions[id-1].Name
	}
	plotW := eval[float64](t, ctx, `+document.querySelector('#timeline svg').getAttribute('width')`)
	const bin = 2
	nb := int(math.Ceil(plotW / bin))
	bt := (s.View1 - s.View0) / plotW * bin
	want := map[string]int{} // "loc region" → bins
	for l := lo; l <= hi; l++ {
		in := map[string][]bool{}
		for _, c := range mx.Cells {
			if int(c[0]) != l {
				continue
			}
			a0 := mx.Start + c[1]*mx.ColWidth
			a, b := math.Max(a0, s.View0), math.Min(a0+c[2]*mx.ColWidth, s.View1)
			if b <= a {
				continue
			}
			for k := 3; k+1 < len(c); k += 2 {
				if c[k+1] <= 0 {
					continue
				}
				reg := name(int(c[k]))
				if in[reg] == nil {
					in[reg] = make([]bool, nb)
				}
				for i := int(math.Floor((a - s.View0) / bt)); i <= min(nb-1, int(math.Ceil((b-s.View0)/bt))-1); i++ {
					if math.Min(b, s.View0+float64(i+1)*bt) > math.Max(a, s.View0+float64(i)*bt) {
						in[reg][i] = true
					}
				}
			}
		}
		for reg, bins := range in {
			for _, x := range bins {
				if x {
					want[fmt.Sprintf("%d %s", l, reg)]++
				}
			}
		}
	}
	paths := eval[[]struct{ Loc, Region, D string }](t, ctx, `[...document.querySelectorAll('#timeline .bar.mix.member')].map((p) => ({Loc: p.dataset.locId, Region: p.dataset.region, D: p.getAttribute('d')}))`)
	got := map[string]int{}
	re := regexp.MustCompile(`M([-\d.]+) ([-\d.]+)h([-\d.]+)`)
	for _, p := range paths {
		for _, m := range re.FindAllStringSubmatch(p.D, -1) {
			w, _ := strconv.ParseFloat(m[3], 64)
			got[p.Loc+" "+p.Region] += int(math.Round(w / bin))
		}
	}
	if len(want) == 0 {
		t.Fatalf("the server's members' mix of [%d, %d) holds nothing in the view", s.From, s.To)
	}
	for k, n := range want {
		if math.Abs(float64(got[k]-n)) > 1+float64(n)/100 {
			t.Errorf("location %s drawn in %d bins; the server's mix of the window's members puts it in %d", k, got[k], n)
		}
	}
	for k, n := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("location %s drawn in %d bins; not in the server's mix of the window's members", k, n)
		}
	}
	return &r
}

// TestServedMemberMix: where rows group locations (400 ranks in 20
// rows), an expanded row's lines draw each location's own mix of the
// window the page read: the server's members' mix of that window, read
// in full (a window drawn as a mix, -detail 0) or from its members'
// summary (a window of more than -budget events), not the page's mix of
// the whole trace, whose columns are much wider (they hold compute and
// MPI in every column where the window's hold one of them).
func TestServedMemberMix(t *testing.T) {
	trace := ring(t, 400, 40)
	for _, c := range []struct {
		name    string
		args    []string
		zoom    int
		summary string
	}{{"read", []string{"-detail", "0"}, 2, "0"}, {"summary", []string{"-budget", "20000"}, 1, "1"}} {
		t.Run(c.name, func(t *testing.T) {
			ctx := browser(t, 1280, 1000)
			base := serveTrace(t, append(append([]string{"-rows", "20"}, c.args...), trace)...)
			loadServed(t, ctx, base)
			click(t, ctx, "zoom-in", c.zoom)
			awaitServed(t, ctx)
			clickRow(t, ctx, 2)
			s := awaitMembers(t, ctx, "21-40")
			if d := drawnNow(t, ctx); d.Mode != "mix" {
				t.Fatalf("mode %q, want mix", d.Mode)
			}
			if got := eval[string](t, ctx, `document.getElementById('served').dataset.summary`); got != c.summary {
				t.Fatalf("data-summary %q, want %q", got, c.summary)
			}
			r := checkMembers(t, ctx, base, s, 21, 40)
			if (r.Summary != nil) != (c.summary == "1") {
				t.Fatalf("the server's answer: summary %+v", r.Summary)
			}
			// The page's own members' mix is coarser than the window's:
			// else this test could not tell them apart.
			if cw := eval[float64](t, ctx, `JSON.parse(document.getElementById('data').textContent).members.mix.col_width`); r.Members.Mix.ColWidth*4 > cw {
				t.Fatalf("the window's members' columns are %v ticks, the page's %v: not finer", r.Members.Mix.ColWidth, cw)
			}
			// A pan keeps the row expanded, and its lines the window's.
			pan(t, ctx)
			s = awaitMembers(t, ctx, "21-40")
			checkMembers(t, ctx, base, s, 21, 40)
			// A second row expanded: its lines too.
			clickRow(t, ctx, 1)
			s = awaitMembers(t, ctx, "1-20,21-40")
			checkMembers(t, ctx, base, s, 1, 40)
		})
	}
}

// hugeReply is the part of the server's answer to /window&origin=O that
// TestServedHugeTicks checks, its times offsets from O as integers.
type hugeReply struct {
	Origin   string
	Timeline struct {
		Start, End int64
		Regions    []struct{ Name string }
		Detail     *struct{ Slices []hugeSlice }
	}
	Summary *struct{ Long []hugeSlice }
}

type hugeSlice struct {
	Loc        int `json:"loc_id"`
	Region     int
	Start, End int64
}

// TestServedHugeTicks: the served page of a trace whose ticks are about
// 2^60 (36 years of nanoseconds; a double's step there is 256 ticks),
// read in full and from the summary (-budget 3000): the page's span, the
// view after a zoom and a pan (data-view0, data-view1, exact ticks), the
// axis labels, and the slices the server answers (their places on the
// timeline and their tooltips), or the mix's tooltips over a summary,
// are exact to the tick.
func TestServedHugeTicks(t *testing.T) {
	const base = int64(1) << 60
	const rounds = 400
	trace := ringAt(t, 8, rounds, base)
	us := func(ticks int64) string { // ns as µs, 3 decimals
		return fmt.Sprintf("%d.%03d µs", ticks/1000, ticks%1000)
	}
	big0 := func(x int64) *big.Int { return big.NewInt(x) }
	for _, c := range []struct {
		name    string
		args    []string
		zoom    int
		summary string
	}{{"read", nil, 3, "0"}, {"summary", []string{"-budget", "3000"}, 1, "1"}} {
		t.Run(c.name, func(t *testing.T) {
			ctx := browser(t, 1280, 900)
			srv := serveTrace(t, append(c.args, trace)...)
			loadServed(t, ctx, srv)
			end := int64(rounds*2000 + 10)
			full := state(t, ctx)
			if full.V0.Cmp(big0(base)) != 0 || full.V1.Cmp(big0(base+end)) != 0 {
				t.Fatalf("full view %v–%v, want %d–%d", full.V0, full.V1, base, base+end)
			}
			if meta := eval[string](t, ctx, `document.querySelector('.meta').textContent`); !strings.Contains(meta, "from "+us(base)+" to "+us(base+end)) {
				t.Errorf("meta %q, want from %s to %s", meta, us(base), us(base+end))
			}
			click(t, ctx, "zoom-in", c.zoom)
			s := awaitServed(t, ctx)
			if got := eval[string](t, ctx, `document.getElementById('served').dataset.summary`); got != c.summary {
				t.Fatalf("data-summary %q, want %q", got, c.summary)
			}
			// The view zoomed about its middle, as the page computes it
			// (offsets from the origin, the trace's start), to the tick.
			t0, t1 := 0.0, float64(end)
			for range c.zoom {
				m := (t0 + t1) / 2
				t0, t1 = m-(m-t0)*0.5, m+(t1-m)*0.5
			}
			z := state(t, ctx)
			if want0, want1 := base+int64(math.Floor(t0+0.5)), base+int64(math.Floor(t1+0.5)); z.V0.Cmp(big0(want0)) != 0 || z.V1.Cmp(big0(want1)) != 0 {
				t.Errorf("zoomed in %d times: view %v–%v, want %d–%d", c.zoom, z.V0, z.V1, want0, want1)
			}
			check := func(s served) {
				t.Helper()
				checkAxis(t, ctx, 1e9)
				checkHugeSlices(t, ctx, srv, base, s, us)
			}
			check(s)
			// A pan of 100 pixels: the view moves later by 100 pixels'
			// ticks, as wide, to the tick.
			plotW := eval[float64](t, ctx, `+document.querySelector('#timeline svg').getAttribute('width')`)
			r := eval[struct{ Left, Top, W float64 }](t, ctx, `(() => { const r = document.getElementById('timeline').getBoundingClientRect(); return {Left: r.left, Top: r.top, W: r.width}; })()`)
			x0, y := math.Round(r.Left+r.W*0.6), r.Top+12
			if err := chromedp.Do(ctx,
				chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, x0, y, chromedp.ButtonLeft),
				chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x0-50, y, chromedp.ButtonLeft),
				chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x0-100, y, chromedp.ButtonLeft),
				chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, x0-100, y, chromedp.ButtonLeft)); err != nil {
				t.Fatal(err)
			}
			p := state(t, ctx)
			shift := int64(math.Floor(t0+100/plotW*(t1-t0)+0.5)) - int64(math.Floor(t0+0.5))
			d0 := new(big.Int).Sub(p.V0, z.V0)
			w0, w1 := new(big.Int).Sub(z.V1, z.V0), new(big.Int).Sub(p.V1, p.V0)
			if d0.Cmp(big0(shift)) != 0 || new(big.Int).Sub(w1, w0).CmpAbs(big0(1)) > 0 {
				t.Errorf("dragged 100 px left: view %v–%v (moved %v, %v wide), was %v–%v; want it moved %d ticks, as wide", p.V0, p.V1, d0, w1, z.V0, z.V1, shift)
			}
			check(awaitServed(t, ctx))
		})
	}
}

// checkHugeSlices checks, over a window of TestServedHugeTicks' trace,
// that the server's slices (read in full: every slice drawn; from the
// summary: those of a column or longer, outlined over the mix) are the
// trace's to the tick (rank 0 computes from 10 to 910 ticks of every
// 2000), and that the page draws each of rank 0's compute slices in the
// view at its exact place and names its exact times in its tooltip.
func checkHugeSlices(t *testing.T, ctx context.Context, srv string, base int64, s served, us func(int64) string) {
	t.Helper()
	u := fmt.Sprintf("%s/window?from=%d&to=%d&origin=%d", srv, base+s.From, base+s.To, base)
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	var r hugeReply
	err = json.NewDecoder(res.Body).Decode(&r)
	res.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	var slices []hugeSlice
	css := `#timeline rect.bar[data-loc-id="1"]` // every slice drawn
	switch {
	case r.Summary != nil:
		slices, css = r.Summary.Long, `#timeline rect.long[data-loc-id="1"]`
	case r.Timeline.Detail != nil:
		slices = r.Timeline.Detail.Slices
		if m := eval[string](t, ctx, `document.getElementById('timeline').dataset.mode`); m != "detail" {
			t.Fatalf("mode %q, want detail", m)
		}
	}
	if r.Origin != strconv.FormatInt(base, 10) || slices == nil {
		t.Fatalf("GET %s: origin %q, no slices", u, r.Origin)
	}
	type bar struct {
		X, W   float64
		Tip    string
		Center [2]float64
	}
	type want struct{ start, end int64 }
	var wants []want
	for _, x := range slices {
		if x.Loc != 1 || r.Timeline.Regions[x.Region-1].Name != "compute" || float64(x.End) < s.View0 || float64(x.Start) > s.View1 {
			continue
		}
		if (x.Start-10)%2000 != 0 || x.End-x.Start != 900 {
			t.Errorf("the server's compute slice of rank 0 at %d–%d (from the origin), not at 10–910 of a round of 2000", x.Start, x.End)
		}
		wants = append(wants, want{x.Start, x.End})
	}
	// The mouse points at a bar's middle, or an outline's top edge (its
	// inside is the mix's).
	bars := eval[[]bar](t, ctx, `[...document.querySelectorAll('`+css+`')].filter((b) => b.dataset.region === 'compute')
		.map((b) => { const r = b.getBoundingClientRect(); return {X: +b.getAttribute('x'), W: +b.getAttribute('width'), Center: [r.left + r.width / 2, b.classList.contains('long') ? r.top : r.top + r.height / 2]}; })
		.sort((a, b) => a.X - b.X)`)
	if len(wants) < 2 || len(bars) != len(wants) {
		t.Fatalf("%d compute bars of rank 0 drawn; the server's in the view: %d (2 at least)", len(bars), len(wants))
	}
	plotW := eval[float64](t, ctx, `+document.querySelector('#timeline svg').getAttribute('width')`)
	const labelW = 130
	for i, w := range wants {
		// The page's own arithmetic on offsets from the origin: exact
		// where absolute times as doubles would miss by up to 128 ticks.
		x := labelW + (float64(w.start)-s.View0)/(s.View1-s.View0)*plotW
		xe := labelW + (float64(w.end)-s.View0)/(s.View1-s.View0)*plotW
		if math.Abs(bars[i].X-x) > 1e-6 || math.Abs(bars[i].W-max(xe-x, 0.6)) > 1e-6 {
			t.Errorf("compute %d–%d drawn at x %v width %v, want %v width %v", w.start, w.end, bars[i].X, bars[i].W, x, xe-x)
		}
	}
	for _, i := range []int{0, len(bars) - 1} {
		b, w := bars[i], wants[i]
		if b.X < labelW || b.X+b.W > labelW+plotW {
			continue // cut by the view's edge: the mouse may not reach it
		}
		if err := chromedp.Do(ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, b.Center[0], b.Center[1])); err != nil {
			t.Fatal(err)
		}
		tip := eval[string](t, ctx, `document.getElementById('tip').textContent`)
		if wt := us(base+w.start) + " to " + us(base+w.end); !strings.Contains(tip, wt) {
			t.Errorf("tooltip %q, want %q", tip, wt)
		}
	}
}
