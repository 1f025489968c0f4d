package browser

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// rect is an element's bounding box in the window.
type rect struct{ Left, Top, W, H float64 }

func rectOf(t *testing.T, ctx context.Context, css string) rect {
	t.Helper()
	return eval[rect](t, ctx, `(() => { const e = document.querySelector(`+"`"+css+"`"+`);
		if (!e) return {Left: -1, Top: -1, W: 0, H: 0};
		const r = e.getBoundingClientRect(); return {Left: r.left, Top: r.top, W: r.width, H: r.height}; })()`)
}

// clickRow clicks the label of grouped row r of the timeline.
func clickRow(t *testing.T, ctx context.Context, r int) {
	t.Helper()
	b := rectOf(t, ctx, fmt.Sprintf(`#timeline .row.group[data-row="%d"] rect`, r))
	if b.W == 0 {
		t.Fatalf("no grouped row %d", r)
	}
	if err := chromedp.Do(ctx, chromedp.MouseClickXY(b.Left+20, b.Top+b.H/2)); err != nil {
		t.Fatal(err)
	}
}

// TestExpandRows: where locations share rows, a click on a row's label
// expands it into a line per location, right under it, drawn from the
// page's data of each location (their mix, or every slice), and a
// second click collapses it.
func TestExpandRows(t *testing.T) {
	t.Run("mix", func(t *testing.T) {
		p := page(t, "-rows", "20", "-detail", "0", ring(t, 400, 10))
		ctx := browser(t, 1280, 1000)
		load(t, ctx, p)
		if n := eval[int](t, ctx, `document.querySelectorAll('#timeline .row.group').length`); n != 20 {
			t.Fatalf("%d grouped rows, want 20", n)
		}
		clickRow(t, ctx, 1)
		got := eval[struct {
			Labels   []string
			Tops     []float64
			Expanded string
			Row2     float64
		}](t, ctx, `(() => ({Labels: [...document.querySelectorAll('#timeline .row.member .label')].map((e) => e.textContent),
			Tops: [...document.querySelectorAll('#timeline .row.member rect')].map((e) => e.getBoundingClientRect().top),
			Expanded: document.querySelector('#timeline .row.group[data-row="1"]').dataset.expanded,
			Row2: document.querySelector('#timeline .row.group[data-row="2"] rect').getBoundingClientRect().top}))()`)
		row1 := rectOf(t, ctx, `#timeline .row.group[data-row="1"] rect`)
		if len(got.Labels) != 20 || got.Expanded != "1" {
			t.Fatalf("expanded row 1: %d lines %v, data-expanded %q; want its 20 locations", len(got.Labels), got.Labels, got.Expanded)
		}
		for i, l := range got.Labels {
			if l != fmt.Sprintf("rank %d", i) {
				t.Errorf("line %d labelled %q, want rank %d", i, l, i)
			}
			if got.Tops[i] < row1.Top+row1.H-0.5 || got.Tops[i] >= got.Row2 || (i > 0 && got.Tops[i] <= got.Tops[i-1]) {
				t.Errorf("line of rank %d at %v px: not in order between row 1 (%v) and row 2 (%v)", i, got.Tops[i], row1.Top, got.Row2)
			}
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
		if *shots != "" {
			shot(t, ctx, filepath.Join(*shots, "traceview-expand.png"), 1280, 1100)
		}
		clickRow(t, ctx, 1)
		if n := eval[int](t, ctx, `document.querySelectorAll('#timeline .row.member, #timeline .bar.mix.member').length`); n != 0 {
			t.Errorf("collapsed: %d member lines and bars left", n)
		}
	})
	t.Run("detail", func(t *testing.T) {
		p := page(t, "-rows", "4", ring(t, 40, 4))
		ctx := browser(t, 1280, 1000)
		load(t, ctx, p)
		if s := state(t, ctx); s.Mode != "detail" {
			t.Fatalf("mode %q, want every slice", s.Mode)
		}
		clickRow(t, ctx, 2)
		// Every slice on its location's line when expanded, else its row.
		bad := eval[[]string](t, ctx, `(() => {
			const box = (css) => { const r = document.querySelector(css).getBoundingClientRect(); return [r.top, r.bottom]; };
			const out = [];
			for (const b of document.querySelectorAll('#timeline rect.bar')) {
				const l = +b.dataset.locId, y = b.getBoundingClientRect();
				const [a, z] = l > 10 && l <= 20 ? box('#timeline .row.member[data-loc-id="' + l + '"] rect') :
					box('#timeline .row.group[data-row="' + (1 + Math.floor((l - 1) / 10)) + '"] rect');
				if (y.top < a - 0.5 || y.bottom > z + 0.5) out.push(l + ': ' + y.top + '–' + y.bottom + ' not in ' + a + '–' + z);
			}
			return out; })()`)
		if len(bad) > 0 {
			t.Errorf("slices off their line: %v", bad)
		}
		n := eval[struct{ Members, Bars, Options, Process int }](t, ctx, `({Members: document.querySelectorAll('#timeline .row.member').length,
			Bars: document.querySelectorAll('#timeline rect.bar').length, Options: document.querySelectorAll('#process-select option').length,
			Process: document.querySelectorAll('#process-chart rect').length})`)
		if n.Members != 10 || n.Bars == 0 || n.Options != 10 || n.Process == 0 {
			t.Errorf("expanded row 2: %+v; want 10 lines, slices, the 10 locations to choose a call stack from, and one drawn", n)
		}
		checkLayout(t, ctx, 1280)
	})
}

// summaryView is traceview.summary(): the summary timeline drawn.
type summaryView struct {
	By, How string
	T0, T1  float64
	Bins    []struct {
		T0, T1 float64
		Counts map[string]float64
	}
}

// TestSummaryTimeline: under the timeline, the number of locations in
// each group (or region) per column of the visible window, from the mix
// at full view and from every slice zoomed in.
func TestSummaryTimeline(t *testing.T) {
	p := page(t, ring(t, 16, 100))
	ctx := browser(t, 1280, 1000)
	load(t, ctx, p)
	summary := func() summaryView { return eval[summaryView](t, ctx, `traceview.summary()`) }
	s := summary()
	if st := state(t, ctx); st.Mode != "mix" || s.How != "mix" || s.By != "group" || len(s.Bins) < 300 {
		t.Fatalf("full view: mode %q, summary by %q from %q in %d columns", st.Mode, s.By, s.How, len(s.Bins))
	}
	for i, b := range s.Bins {
		var sum float64
		for _, n := range b.Counts {
			sum += n
		}
		if math.Abs(sum-16) > 0.1 {
			t.Errorf("column %d (%v–%v): %v locations, want 16: %v", i, b.T0, b.T1, sum, b.Counts)
		}
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('#summary path.sum').length`); n < 2 {
		t.Errorf("%d groups drawn in the summary", n)
	}
	// Round 50, 1000 to 1600 ns into it: rank 4 waits in MPI_Recv for the
	// slow rank 3, which computes; the others are back in main.
	eval[bool](t, ctx, `location.hash = '#view=101010,101610'; true`)
	if err := chromedp.Do(ctx, chromedp.WaitReady(chromedp.CSS(`#timeline[data-view0="101010"]`))); err != nil {
		t.Fatal(err)
	}
	s = summary()
	if st := state(t, ctx); st.Mode != "detail" || s.How != "slices" || s.T0 != 101010 || s.T1 != 101610 {
		t.Fatalf("zoomed: mode %q, summary from %q over %v–%v", st.Mode, s.How, s.T0, s.T1)
	}
	check := func(want map[string]float64) {
		t.Helper()
		for i, b := range s.Bins {
			for k, n := range want {
				if math.Abs(b.Counts[k]-n) > 1e-6 {
					t.Errorf("column %d (%v–%v): %v, want %v in %s", i, b.T0, b.T1, b.Counts, n, k)
					return
				}
			}
		}
	}
	check(map[string]float64{"MPI": 1, "application": 15})
	eval[bool](t, ctx, `(() => { const s = document.getElementById('summary-by'); s.value = 'region'; s.dispatchEvent(new Event('change')); return true; })()`)
	s = summary()
	if s.By != "region" {
		t.Fatalf("summary by %q, want region", s.By)
	}
	check(map[string]float64{"MPI_Recv": 1, "compute": 1, "main": 14})
	if w := eval[[]float64](t, ctx, `['#timeline', '#summary'].map((s) => document.querySelector(s).getBoundingClientRect().width)`); math.Abs(w[0]-w[1]) > 2 {
		t.Errorf("timeline %v px wide, summary %v: not on one time axis", w[0], w[1])
	}
	checkLayout(t, ctx, 1280)
}

// TestHugeTicks: a trace whose ticks are about 2^60 (36 years of
// nanoseconds): axis labels, tooltips and #view links exact to the tick.
func TestHugeTicks(t *testing.T) {
	const base = int64(1) << 60
	p := page(t, ringAt(t, 8, 4, base))
	ctx := browser(t, 1280, 900)
	load(t, ctx, p)
	checkAxis(t, ctx, 1e9)
	us := func(ticks int64) string { // ns as µs, 3 decimals
		return fmt.Sprintf("%d.%03d µs", ticks/1000, ticks%1000)
	}
	// Rank 0 computes from 10 to 910 ns into the trace.
	b := eval[rect](t, ctx, `(() => { const bs = [...document.querySelectorAll('#timeline rect.bar[data-loc-id="1"]')].filter((b) => b.dataset.region === 'compute');
		bs.sort((a, b) => a.getBoundingClientRect().left - b.getBoundingClientRect().left);
		const r = bs[0].getBoundingClientRect(); return {Left: r.left, Top: r.top, W: r.width, H: r.height}; })()`)
	if err := chromedp.Do(ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, b.Left+b.W/2, b.Top+b.H/2)); err != nil {
		t.Fatal(err)
	}
	tip := eval[string](t, ctx, `document.getElementById('tip').textContent`)
	if want := us(base+10) + " to " + us(base+910); !strings.Contains(tip, want) {
		t.Errorf("tooltip %q, want %q", tip, want)
	}
	// A link to a window: the view is that window to the tick.
	v0, v1 := base+1001, base+3003
	eval[bool](t, ctx, fmt.Sprintf(`location.hash = '#view=%d,%d'; true`, v0, v1))
	if err := chromedp.Do(ctx, chromedp.WaitReady(chromedp.CSS(fmt.Sprintf(`#timeline[data-view0="%d"]`, v0)))); err != nil {
		t.Fatal(err)
	}
	if s := state(t, ctx); s.V0.Cmp(big.NewInt(v0)) != 0 || s.V1.Cmp(big.NewInt(v1)) != 0 || s.Ticks < 2 {
		t.Errorf("view %v–%v with %d ticks, want %d–%d", s.V0, s.V1, s.Ticks, v0, v1)
	}
	checkAxis(t, ctx, 1e9)
	meta := eval[string](t, ctx, `document.querySelector('.meta').textContent`)
	if want := "from " + us(base) + " to " + us(base+4*2000+10); !strings.Contains(meta, want) {
		t.Errorf("meta %q, want %q", meta, want)
	}
}
