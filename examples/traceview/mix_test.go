package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace/export"
	"github.com/hpctrace/hpctrace/model"
)

// synthTrace writes an event-JSON trace of ranks locations and rounds
// rounds (ticks in nanoseconds): main, then per round compute (900 ns,
// 1800 on rank 3) and a ring exchange, MPI_Send to the right (40 ns) and
// MPI_Recv from the left (which waits for the slow rank). MPI is a tenth
// of the time or less, so a column's dominant region is always compute.
func synthTrace(t testing.TB, ranks, rounds int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), fmt.Sprintf("ring%d.json", ranks))
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprint(w, `{"format":"trace-events-json/1","ticks_per_second":1000000000,"locations":[`)
	for r := range ranks {
		fmt.Fprintf(w, "%s{\"id\":%d,\"name\":\"rank %d\"}", map[bool]string{true: ",", false: ""}[r > 0], r, r)
	}
	fmt.Fprint(w, `],"regions":[{"id":1,"name":"main","kind":"function","paradigm":"user"},{"id":2,"name":"compute","kind":"function","paradigm":"user"},`+
		`{"id":3,"name":"MPI_Send","kind":"function","paradigm":"mpi"},{"id":4,"name":"MPI_Recv","kind":"function","paradigm":"mpi"}],"events":[`)
	type ev struct {
		t    int64
		loc  int
		body string
	}
	var evs []ev
	first := true
	flush := func() {
		slices.SortStableFunc(evs, func(a, b ev) int { return int(a.t - b.t) })
		for _, e := range evs {
			if !first {
				fmt.Fprint(w, ",")
			}
			first = false
			fmt.Fprintf(w, `{"t":%d,"loc":%d,%s}`, e.t, e.loc, e.body)
		}
		evs = evs[:0]
	}
	add := func(t int64, loc int, body string) { evs = append(evs, ev{t, loc, body}) }
	for r := range ranks {
		add(0, r, `"kind":"enter","region":1`)
	}
	flush()
	const round = 2000
	for k := range rounds {
		t0 := int64(k)*round + 10
		slow := int64(900)
		for r := range ranks {
			c := int64(900)
			if r == 3%ranks {
				c = 1800 - 100
				slow = c
			}
			add(t0, r, `"kind":"enter","region":2`)
			add(t0+c, r, `"kind":"leave","region":2`)
			add(t0+c, r, `"kind":"enter","region":3`)
			add(t0+c+20, r, fmt.Sprintf(`"kind":"send","peer":%d,"tag":1,"bytes":%d`, (r+1)%ranks, 1024*(r+1)))
			add(t0+c+40, r, `"kind":"leave","region":3`)
		}
		for r := range ranks {
			src := (r + ranks - 1) % ranks
			cs := int64(900)
			if src == 3%ranks {
				cs = slow
			}
			ci := int64(900)
			if r == 3%ranks {
				ci = slow
			}
			add(t0+ci+40, r, `"kind":"enter","region":4`)
			recv := max(t0+ci+60, t0+cs+60)
			add(recv, r, fmt.Sprintf(`"kind":"recv","peer":%d,"tag":1,"bytes":%d`, src, 1024*(src+1)))
			add(recv+5, r, `"kind":"leave","region":4`)
		}
		flush()
	}
	for r := range ranks {
		add(int64(rounds)*round+10, r, `"kind":"leave","region":1`)
	}
	flush()
	fmt.Fprint(w, "]}\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestMixHonest: at full view of a 16-rank run whose MPI calls take a
// tenth of the time, the timeline draws the MPI calls as their shares
// (the old page drew compute alone, the dominant region), every region
// drawn is in the legend, MPI and application regions are told apart by
// the hues of their groups, and the mix holds each column's time exactly.
func TestMixHonest(t *testing.T) {
	trace := synthTrace(t, 16, 400)
	page, _, d := pageOf(t, "-detail", "0", trace)
	if d.Mix == nil || len(d.Mix.Cells) == 0 {
		t.Fatal("no mix")
	}
	// Each row's columns hold main's time: shares add to 1000 in every
	// column inside the run (rounding each share to a thousandth).
	for _, c := range d.Mix.Cells {
		sum := int64(0)
		for k := 4; k < len(c); k += 2 {
			sum += c[k]
		}
		col0 := d.Mix.Start + model.Time(c[1])*d.Mix.ColWidth
		inside := col0 > 10 && col0+model.Time(c[2]+1)*d.Mix.ColWidth < 400*2000
		if inside && (sum < 990 || sum > 1010) {
			t.Errorf("cell %v: shares sum to %d‰", c, sum)
		}
	}
	names := map[string]bool{}
	for _, n := range mixRegions(d) {
		names[n] = true
	}
	for _, n := range []string{"compute", "MPI_Send", "MPI_Recv"} {
		if !names[n] {
			t.Errorf("the mix lacks %s", n)
		}
	}
	dom := chromium(t, page)
	checkDOM(t, dom, d, -1, len(d.Timeline.Bundles))
	hue := func(name string) string {
		m := regexp.MustCompile(`<path class="bar mix"[^>]* fill="hsl\(([0-9]+),[^"]*" data-mix="1" data-region="` + name + `"`).FindStringSubmatch(dom)
		if m == nil {
			t.Fatalf("no path of %s", name)
		}
		return m[1]
	}
	if hue("MPI_Send") != hue("MPI_Recv") || hue("MPI_Send") == hue("compute") || hue("compute") != hue("main") {
		t.Errorf("hues: MPI_Send %s, MPI_Recv %s, compute %s, main %s; want MPI's one hue, the application's another",
			hue("MPI_Send"), hue("MPI_Recv"), hue("compute"), hue("main"))
	}
	if !strings.Contains(dom, "<b>MPI</b>") || !strings.Contains(dom, "<b>application</b>") {
		t.Errorf("the legend does not name the groups")
	}
}

// TestGroups: regions are grouped by paradigm, by the trace's own
// function group, or by name where the format does not say.
func TestGroups(t *testing.T) {
	var defs model.Defs
	defs.AddRegion(model.Region{Name: "MPI_Send"})
	defs.AddRegion(model.Region{Name: "solve", Paradigm: model.ParadigmUser})
	defs.AddRegion(model.Region{Name: "!$omp parallel"})
	defs.AddRegion(model.Region{Name: "fwrite"})
	defs.AddRegion(model.Region{Name: "halo", Group: "COMM_LIB"})
	defs.AddRegion(model.Region{Name: "MPI_Recv", Group: "MPI", Paradigm: model.ParadigmMPI})
	groups, of := groupsOf(&defs)
	got := []string{}
	for id := 1; id <= 6; id++ {
		g := groups[of[id]]
		got = append(got, g.Name+"/"+g.Kind)
	}
	want := []string{"MPI/mpi", "application/application", "OpenMP/openmp", "I/O/io", "COMM_LIB/application", "MPI/mpi"}
	if !slices.Equal(got, want) {
		t.Errorf("groups %v, want %v", got, want)
	}
}

// clipped returns the slices of det cut to [from, to), as strings, sorted,
// their depths less shift.
func clipped(det *export.TimelineDetail, from, to model.Time, shift int) []string {
	var out []string
	for _, s := range det.Slices {
		a, b := max(s.Start, from), min(s.End, to)
		if b <= a {
			continue
		}
		out = append(out, fmt.Sprintf("loc %d region %d depth %d [%d, %d)", s.Loc, s.Region, s.Depth-shift, a, b))
	}
	slices.Sort(out)
	return out
}

// TestWindowClipped: in a -from/-to window, the slices already running
// at its start (entered before it) and still running at its end are in
// the detail, cut at the window's edges at their true depth: the slices
// of the window are those of the whole trace cut to it. Before, the
// window's first regions had no slice. A region open across the whole
// window (main, in the windows that end before the trace does) has no
// event in it and is not known: those windows are compared without it,
// the depths counted from under it.
func TestWindowClipped(t *testing.T) {
	trace := synthTrace(t, 4, 20)
	_, _, full := pageOf(t, trace)
	for _, w := range [][2]model.Time{{5000, 50000}, {2005, 50000}, {100, 50000}, {5000, 9000}, {2005, 2950}} {
		_, _, d := pageOf(t, "-from", strconv.Itoa(int(w[0])), "-to", strconv.Itoa(int(w[1])), trace)
		got, want := clipped(d.Timeline.Detail, w[0], w[1], 0), clipped(full.Timeline.Detail, w[0], w[1], 0)
		if w[1] < 40010 {
			// Depths count from under main.
			want = clipped(full.Timeline.Detail, w[0], w[1], 1)
			want = slices.DeleteFunc(want, func(s string) bool { return strings.Contains(s, " region 1 depth -1 ") })
			if len(want) == 0 {
				t.Fatal("nothing to compare")
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("window %v: %d slices, want the %d of the whole trace cut to it:\n%s\nwant\n%s", w, len(got), len(want),
				strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		// The mix of each row covers the window whole (main is open throughout).
		for r := 1; r <= 4 && w[1] > 40010; r++ {
			total := int64(0)
			for _, c := range d.Mix.Cells {
				if c[0] != int64(r) {
					continue
				}
				for k := 4; k < len(c); k += 2 {
					total += c[k] * c[2]
				}
			}
			cols := float64(40010-w[0]) / float64(d.Mix.ColWidth)
			if math.Abs(float64(total)/1000-cols) > 0.01*cols+1 {
				t.Errorf("window %v row %d: mix covers %.1f columns of %.1f", w, r, float64(total)/1000, cols)
			}
		}
	}
}

// TestChromiumWindowEdges: a window's page marks the slices cut by its
// edges, and its axis is absolute (the window's start, not 0) with round
// ticks.
func TestChromiumWindowEdges(t *testing.T) {
	trace := synthTrace(t, 4, 20)
	page, _, d := pageOf(t, "-from", "5000", "-to", "9000", trace)
	cut := 0
	for _, s := range d.Timeline.Detail.Slices {
		if s.Start <= 5000 {
			cut++
		}
		if s.End >= 9000 {
			cut++
		}
	}
	dom := chromium(t, page)
	checkDOM(t, dom, d, len(d.Timeline.Detail.Slices), len(d.Timeline.Detail.Messages))
	if got := attr(t, dom, "timeline", "data-clips"); got != cut || cut == 0 {
		t.Errorf("%d edges marked, want %d", got, cut)
	}
	checkAxis(t, dom, 5000, 9000, 1e9)
}

// checkAxis checks the tick labels of the timeline: at least three, in
// the view [t0, t1] (ticks, absolute), each at a multiple of a step of 1,
// 2 or 5 times a power of ten seconds, labelled with its time.
func checkAxis(t *testing.T, dom string, t0, t1 float64, tps float64) {
	t.Helper()
	ms := regexp.MustCompile(`<text class="axis tick"[^>]* data-t="([0-9.e+-]+)">([0-9.]+) (s|ms|µs|ns)</text>`).FindAllStringSubmatch(dom, -1)
	if len(ms) < 3 {
		t.Fatalf("%d tick labels", len(ms))
	}
	unit := map[string]float64{"s": 1, "ms": 1e-3, "µs": 1e-6, "ns": 1e-9}
	var ts []float64
	for _, m := range ms {
		at, _ := strconv.ParseFloat(m[1], 64)
		v, _ := strconv.ParseFloat(m[2], 64)
		if at < t0-0.5 || at > t1+0.5 {
			t.Errorf("tick at %v outside [%v, %v]", at, t0, t1)
		}
		if sec := v * unit[m[3]]; math.Abs(sec*tps-at) > 1e-6*at+1e-9 {
			t.Errorf("tick at %v ticks labelled %s %s", at, m[2], m[3])
		}
		ts = append(ts, at)
	}
	step := (ts[1] - ts[0]) / tps
	e := math.Floor(math.Log10(step) + 1e-9)
	m := step / math.Pow(10, e)
	if math.Abs(m-1) > 1e-6 && math.Abs(m-2) > 1e-6 && math.Abs(m-5) > 1e-6 {
		t.Errorf("tick step %g s is not 1, 2 or 5 times a power of ten", step)
	}
	for i, at := range ts {
		if k := at / tps / step; math.Abs(k-math.Round(k)) > 1e-6 {
			t.Errorf("tick %d at %v is not a multiple of the step", i, at)
		}
	}
}

var _ = io.Discard
