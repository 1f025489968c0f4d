package browser

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// groupsTrace writes an event-JSON trace of 2 locations doing the same,
// rounds rounds of 1000 ns from time 0: 8 application functions (app0 …
// app7, 50 + 5i ns each), each followed by a small MPI function (MPI_F0
// … MPI_F7, 5 + i ns), then MPI_Wait (120 ns). A mix cell keeps 6
// regions exactly (MPI_Wait, app3 … app7); the rest of MPI (the 8 small
// functions, 68 ns a round) and of the application (app0 … app2) are
// each their group's "other".
func groupsTrace(t testing.TB, rounds int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "groups.json")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprint(w, `{"format":"trace-events-json/1","ticks_per_second":1000000000,"locations":[{"id":0,"name":"rank 0"},{"id":1,"name":"rank 1"}],"regions":[`)
	for i := range 8 {
		fmt.Fprintf(w, `{"id":%d,"name":"app%d","kind":"function","paradigm":"user"},{"id":%d,"name":"MPI_F%d","kind":"function","paradigm":"mpi"},`, i+1, i, i+9, i)
	}
	fmt.Fprint(w, `{"id":17,"name":"MPI_Wait","kind":"function","paradigm":"mpi"}],"events":[`)
	sep := ""
	slice := func(region int, a, b int64) {
		for loc := range 2 {
			fmt.Fprintf(w, `%s{"t":%d,"loc":%d,"kind":"enter","region":%d},{"t":%d,"loc":%d,"kind":"leave","region":%d}`, sep, a, loc, region, b, loc, region)
			sep = ","
		}
	}
	for k := range rounds {
		t0 := int64(k) * 1000
		for i := range 8 {
			slice(i+1, t0, t0+50+5*int64(i))
			t0 += 50 + 5*int64(i)
			slice(i+9, t0, t0+5+int64(i))
			t0 += 5 + int64(i)
		}
		slice(17, t0, t0+120)
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

// mixOf is a mix as the page and the server write it.
type mixOf struct {
	Start    float64
	ColWidth float64 `json:"col_width"`
	Cells    [][]float64
}

// checkRests checks the mix drawn in the first row against m, the mix
// the page drew it from (and its groups): the rest
// of MPI (region -(g+1), "other MPI regions") is drawn in MPI's hue, as
// MPI_Wait is, and not as the application's rest; in every 2-pixel bin
// within one of m's columns, its height is its share of the row's
// height, as the page rounds it (to half pixels, one at least); the
// legend lists it in MPI's box in its colour, and its bar's tooltip
// names it with its share. It returns the bins checked.
func checkRests(t *testing.T, ctx context.Context, m *mixOf, groups []struct{ Name, Kind string }, view0, view1 float64) int {
	t.Helper()
	mpi, app := -1, -1
	for g, x := range groups {
		switch x.Kind {
		case "mpi":
			mpi = g
		case "application":
			app = g
		}
	}
	if mpi < 0 || app < 0 {
		t.Fatalf("groups %v: no MPI or application", groups)
	}
	rest, appRest := -(mpi + 1), -(app + 1)
	type path struct {
		Rid           int
		Fill, D, Name string
		Group         string
	}
	row := eval[struct {
		PlotW, Top, H float64
		Paths         []path
	}](t, ctx, `(() => { const r = document.querySelector('#timeline .row[data-loc-id="1"] rect');
		return {PlotW: +document.querySelector('#timeline svg').getAttribute('width'), Top: +r.getAttribute('y'), H: +r.getAttribute('height'),
			Paths: [...document.querySelectorAll('#timeline .bar.mix')].map((p) => ({Rid: +p.dataset.rid, Fill: p.getAttribute('fill'), D: p.getAttribute('d'),
				Name: p.dataset.region, Group: p.dataset.group}))}; })()`)
	hue := regexp.MustCompile(`^hsl\(([-\d.]+),`)
	hueOf := func(fill string) string {
		m := hue.FindStringSubmatch(fill)
		if m == nil {
			t.Fatalf("fill %q: not hsl", fill)
		}
		return m[1]
	}
	var restPath *path
	fills := map[int]string{}
	for i, p := range row.Paths {
		fills[p.Rid] = p.Fill
		if p.Rid == rest {
			restPath = &row.Paths[i]
		}
	}
	if restPath == nil {
		t.Fatalf("no path of the rest of MPI (region %d) drawn; drawn: %v", rest, fills)
	}
	if want := "other " + groups[mpi].Name + " regions"; restPath.Name != want || restPath.Group != groups[mpi].Name {
		t.Errorf("the rest of MPI is named %q in group %q, want %q in %q", restPath.Name, restPath.Group, want, groups[mpi].Name)
	}
	wait := 0 // a region of MPI's drawn (MPI_Wait)
	for _, p := range row.Paths {
		if p.Rid > 0 && p.Group == groups[mpi].Name {
			wait = p.Rid
		}
	}
	if wait == 0 || fills[appRest] == "" {
		t.Fatalf("no named MPI region or no rest of the application drawn: %v", fills)
	}
	if hueOf(restPath.Fill) != hueOf(fills[wait]) || hueOf(restPath.Fill) == hueOf(fills[appRest]) || restPath.Fill == fills[wait] {
		t.Errorf("the rest of MPI drawn %s, an MPI region %s, the rest of the application %s: want MPI's hue, a shade of its own", restPath.Fill, fills[wait], fills[appRest])
	}
	// The rest is hatched over its shade (its pale shade alone was near
	// the lightest shade of a region): a path of the same outline filled
	// with a pattern of stripes in its group's hue.
	hatch := eval[struct {
		N              int
		D, Fill, Strip string
	}](t, ctx, `(() => { const h = [...document.querySelectorAll('#timeline .mixhatch')].filter((p) => +p.dataset.rid === `+strconv.Itoa(rest)+` && !p.dataset.locId);
		const f = h.length ? h[0].getAttribute('fill') : '', m = /^url\(#(.+)\)$/.exec(f), pat = m && document.getElementById(m[1]);
		const r = pat && pat.querySelector('rect');
		return {N: h.length, D: h.length ? h[0].getAttribute('d') : '', Fill: f, Strip: r ? r.getAttribute('fill') : ''}; })()`)
	if hatch.N != 1 || hatch.D != restPath.D || hatch.Strip == "" || hueOf(hatch.Strip) != hueOf(restPath.Fill) {
		t.Errorf("the rest of MPI's hatch: %d paths, fill %q, stripes %q, same outline %v; want one, striped in MPI's hue %s", hatch.N, hatch.Fill, hatch.Strip, hatch.D == restPath.D, hueOf(restPath.Fill))
	}
	const bin, labelW = 2, 130
	h := row.H - 4
	bt := (view1 - view0) / row.PlotW * bin
	checked := 0
	var hover struct{ x, y, share float64 } // a bin of the rest to hover over
	re := regexp.MustCompile(`M([-\d.]+) ([-\d.]+)h([-\d.]+)v([-\d.]+)`)
	for _, sp := range re.FindAllStringSubmatch(restPath.D, -1) {
		x, _ := strconv.ParseFloat(sp[1], 64)
		y, _ := strconv.ParseFloat(sp[2], 64)
		w, _ := strconv.ParseFloat(sp[3], 64)
		v, _ := strconv.ParseFloat(sp[4], 64)
		if y < row.Top || y >= row.Top+row.H {
			continue
		}
		for i := int(math.Round((x - labelW) / bin)); i < int(math.Round((x+w-labelW)/bin)); i++ {
			lo, hi := view0+float64(i)*bt, view0+float64(i+1)*bt
			share := -1.0
			for _, c := range m.Cells {
				if c[0] != 1 {
					continue
				}
				for col := c[1]; col < c[1]+c[2]; col++ {
					a := m.Start + col*m.ColWidth
					if a <= lo && hi <= a+m.ColWidth {
						share = 0
						for k := 3; k+1 < len(c); k += 2 {
							if int(c[k]) == rest {
								share = c[k+1]
							}
						}
					}
				}
			}
			if share < 0 {
				continue // across columns
			}
			want := max(1, math.Round(math.Min(1, share/1000)*h*2)/2)
			if share == 0 || math.Abs(v-want) > 1e-9 {
				t.Fatalf("bin %d (ticks %v–%v): the rest of MPI drawn %v px high; its share %v‰ of %v px: %v", i, lo, hi, v, share, h, want)
			}
			checked++
			if hover.share == 0 && v >= 2 {
				hover.x, hover.y, hover.share = labelW+float64(i)*bin+bin/2, y+v/2, share
			}
		}
	}
	if checked < 100 || hover.share == 0 {
		t.Fatalf("%d bins of the rest of MPI checked; want 100 at least, one 2 px high", checked)
	}
	// The legend lists it in MPI's box, in its colour striped; the tooltip of
	// its bar names it with its share.
	lg := eval[[]string](t, ctx, `[...document.querySelectorAll('#legend .lgroup')].flatMap((g) => [...g.querySelectorAll('.lreg')].map((s) =>
		g.querySelector('b').textContent + '|' + s.textContent + '|' + s.querySelector('i').getAttribute('style')))`)
	if want := groups[mpi].Name + "|" + restPath.Name + "|background:repeating-linear-gradient(45deg," + hatch.Strip + " 0 2px," + restPath.Fill + " 2px 5px)"; !slices.Contains(lg, want) {
		t.Errorf("legend %q: no %q", lg, want)
	}
	box := eval[struct{ Left, Top float64 }](t, ctx, `(() => { const r = document.getElementById('timeline').getBoundingClientRect(); return {Left: r.left, Top: r.top}; })()`)
	if err := chromedp.Do(ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, box.Left+hover.x, box.Top+hover.y)); err != nil {
		t.Fatal(err)
	}
	tip := eval[string](t, ctx, `document.getElementById('tip').textContent`)
	if want := fmt.Sprintf("%.1f %%  %s", hover.share/10, restPath.Name); !strings.Contains(tip, want) {
		t.Errorf("tooltip of the rest of MPI's bar %q; want it to say %q", tip, want)
	}
	return checked
}

// TestMixGroupRests: on a trace of many small MPI functions, the static
// page and the served page (a window read in full, and one answered from
// the summary) draw the rest of MPI past a mix cell's 6 regions as
// "other MPI regions", in MPI's hue, as high as its share in the page's
// or the server's mix (the old page drew it in one grey "other
// regions" with the application's rest).
func TestMixGroupRests(t *testing.T) {
	trace := groupsTrace(t, 300)
	ctx := browser(t, 1280, 900)
	t.Run("static", func(t *testing.T) {
		load(t, ctx, page(t, "-detail", "0", "-width", "20", trace))
		d := eval[struct {
			Mix    *mixOf
			Groups []struct{ Name, Kind string }
		}](t, ctx, `JSON.parse(document.getElementById('data').textContent)`)
		v := eval[struct{ T0, T1 float64 }](t, ctx, `traceview.view()`)
		if d.Mix == nil {
			t.Fatal("no mix")
		}
		checkRests(t, ctx, d.Mix, d.Groups, v.T0, v.T1)
	})
	for _, budget := range []string{"100000000", "100"} {
		t.Run("served budget "+budget, func(t *testing.T) {
			base := serveTrace(t, "-detail", "50", "-width", "20", "-budget", budget, trace)
			loadServed(t, ctx, base)
			click(t, ctx, "zoom-in", 1)
			s := awaitServed(t, ctx)
			if s.Mode != "mix" {
				t.Fatalf("mode %q, want mix", s.Mode)
			}
			r := getWindow(t, base, s.From, s.To)
			if r.Mix == nil {
				t.Fatal("no mix in the server's answer")
			}
			m := &mixOf{Start: r.Mix.Start, ColWidth: r.Mix.ColWidth, Cells: r.Mix.Cells}
			checkRests(t, ctx, m, r.Groups, s.View0, s.View1)
		})
	}
}
