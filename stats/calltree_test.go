package stats_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
)

// callTrace: main calls A and B, each of which calls C; C is short under
// A and long under B. Location 2 calls C directly and leaves main open.
func callTrace() (*model.Defs, []model.Event) {
	d := new(model.Defs)
	d.TimeBase.TicksPerSecond = 1000
	l1 := d.AddLocation(model.Location{Native: 1})
	l2 := d.AddLocation(model.Location{Native: 2})
	main := d.AddRegion(model.Region{Name: "main"})
	a := d.AddRegion(model.Region{Name: "A"})
	b := d.AddRegion(model.Region{Name: "B"})
	c := d.AddRegion(model.Region{Name: "C"})
	s := d.AddSite(model.Site{File: "x.c", Line: 7})
	e := func(t model.Time, l model.LocID, k model.Kind, r model.RegionID) model.Event {
		return model.Event{Time: t, Loc: l, Kind: k, Region: r}
	}
	evs := []model.Event{
		e(0, l1, model.KindEnter, main),
		e(0, l2, model.KindEnter, main),
		e(10, l1, model.KindEnter, a),
		{Time: 11, Loc: l1, Kind: model.KindEnter, Region: c, Site: s},
		e(12, l1, model.KindLeave, c),
		e(20, l1, model.KindLeave, a),
		e(30, l1, model.KindEnter, b),
		e(31, l1, model.KindEnter, c),
		e(51, l1, model.KindLeave, c),
		e(60, l1, model.KindLeave, b),
		e(60, l2, model.KindEnter, c),
		e(65, l2, model.KindLeave, 0), // region 0: the innermost
		e(100, l1, model.KindLeave, main),
		e(120, l2, model.KindMarker, 0), // l2's main is still open: closed at 120
	}
	return d, evs
}

// flat lists a tree's nodes depth first as "path: count incl excl min max".
func flat(n *stats.CallNode, path string, out *[]string) {
	for _, c := range n.Children {
		p := path + "/" + c.Region
		*out = append(*out, strings.TrimPrefix(p, "/")+":"+fmtInts(c.Site, c.Count, int64(c.Incl), int64(c.Excl), int64(c.Min), int64(c.Max)))
		flat(c, p, out)
	}
}

func fmtInts(site int32, v ...int64) string {
	var b strings.Builder
	b.WriteString(" site ")
	b.WriteString(itoa(int64(site)))
	for _, x := range v {
		b.WriteByte(' ')
		b.WriteString(itoa(x))
	}
	return b.String()
}

func itoa(v int64) string {
	if v < 0 {
		return "-" + itoa(-v)
	}
	if v < 10 {
		return string(rune('0' + v))
	}
	return itoa(v/10) + string(rune('0'+v%10))
}

func TestCallTree(t *testing.T) {
	d, evs := callTrace()
	ct := stats.NewCallTree(d, nil)
	for i := range evs {
		ct.Add(&evs[i])
	}
	root := ct.Root()
	var got []string
	flat(root, "", &got)
	// path: site count incl excl min max
	want := []string{
		"main: site 0 2 220 175 100 120",
		"main/B: site 0 1 30 10 30 30",
		"main/B/C: site 0 1 20 20 20 20",
		"main/A: site 0 1 10 9 10 10",
		"main/A/C: site 7 1 1 1 1 1",
		"main/C: site 0 1 5 5 5 5",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("call tree (-want +got):\n%s", diff)
	}
	if root.Incl != 220 {
		t.Errorf("root incl %d, want 220", root.Incl)
	}
	// Root works on a copy: main of location 2 is still open.
	if again := ct.Root(); again.Children[0].Incl != 220 {
		t.Errorf("a second Root gives main incl %d, want 220", again.Children[0].Incl)
	}
	var buf bytes.Buffer
	if err := root.WriteText(&buf, d.TimeBase, &stats.TextOptions{Top: 1, TopName: "-top"}); err != nil {
		t.Fatal(err)
	}
	if s := buf.String(); !strings.Contains(s, "... 2 more (raise -top to see them)") || strings.Count(s, "\n") != 6 {
		t.Errorf("WriteText with Top 1 (4 rows):\n%s", s)
	}
}

func TestCallTreeLimits(t *testing.T) {
	d, evs := callTrace()
	ct := stats.NewCallTree(d, &stats.CallTreeOptions{MaxNodes: 3, MaxCallDepth: 2})
	for i := range evs {
		ct.Add(&evs[i])
	}
	var got []string
	flat(ct.Root(), "", &got)
	// Nodes: root, main, main/A; main/B is beyond MaxNodes, C under A
	// beyond MaxCallDepth, main/C beyond MaxNodes: their time stays in the caller.
	want := []string{
		"main: site 0 2 220 210 100 120",
		"main/A: site 0 1 10 10 10 10",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("limited call tree (-want +got):\n%s", diff)
	}
	if n := ct.Dropped(); n != 4 {
		t.Errorf("Dropped = %d, want 4", n)
	}
}

// TestCallTreeManyPaths: thousands of call paths, the same calls under
// many parents, so that the paths found recently share the tree's cache
// slots; every path's count and inclusive time must be its own.
func TestCallTreeManyPaths(t *testing.T) {
	d := new(model.Defs)
	var locs []model.LocID
	for i := range 3 {
		locs = append(locs, d.AddLocation(model.Location{Native: int64(i)}))
	}
	var regs []model.RegionID
	names := map[model.RegionID]string{}
	for i := range 24 {
		name := "r" + itoa(int64(i))
		r := d.AddRegion(model.Region{Name: name})
		regs, names[r] = append(regs, r), name
	}
	sites := []model.SiteID{0, d.AddSite(model.Site{File: "x.c", Line: 1}), d.AddSite(model.Site{File: "x.c", Line: 2})}
	type open struct {
		path  string
		enter model.Time
	}
	stacks := make([][]open, len(locs))
	last := make([]model.Time, len(locs))
	want := map[string][2]int64{} // path → count, incl
	ct := stats.NewCallTree(d, nil)
	rnd := uint64(1)
	next := func(n int) int { // xorshift: the same events on every run
		rnd ^= rnd << 13
		rnd ^= rnd >> 7
		rnd ^= rnd << 17
		return int(rnd % uint64(n))
	}
	for tm := model.Time(1); tm <= 200000; tm++ {
		li := next(len(locs))
		st := &stacks[li]
		ev := model.Event{Time: tm, Loc: locs[li]}
		if len(*st) < 4 && (len(*st) == 0 || next(2) == 0) {
			r, s := regs[next(len(regs))], sites[next(len(sites))]
			path := names[r] + "@" + itoa(int64(s))
			if n := len(*st); n > 0 {
				path = (*st)[n-1].path + "/" + path
			}
			*st = append(*st, open{path, tm})
			ev.Kind, ev.Region, ev.Site = model.KindEnter, r, s
		} else {
			o := (*st)[len(*st)-1]
			*st = (*st)[:len(*st)-1]
			w := want[o.path]
			want[o.path] = [2]int64{w[0] + 1, w[1] + int64(tm-o.enter)}
			ev.Kind = model.KindLeave
		}
		ct.Add(&ev)
		last[li] = tm
	}
	for li, st := range stacks { // Root closes them at their location's last event
		for _, o := range st {
			w := want[o.path]
			want[o.path] = [2]int64{w[0] + 1, w[1] + int64(last[li]-o.enter)}
		}
	}
	got := map[string][2]int64{}
	var walk func(n *stats.CallNode, path string)
	walk = func(n *stats.CallNode, path string) {
		for _, c := range n.Children {
			p := c.Region + "@" + itoa(int64(c.SiteID))
			if path != "" {
				p = path + "/" + p
			}
			got[p] = [2]int64{c.Count, int64(c.Incl)}
			walk(c, p)
		}
	}
	walk(ct.Root(), "")
	if len(got) != len(want) {
		t.Errorf("%d call paths, want %d", len(got), len(want))
	}
	for p, w := range want {
		if got[p] != w {
			t.Errorf("%s: count, incl %v, want %v", p, got[p], w)
		}
	}
	if len(want) < 2000 {
		t.Fatalf("%d call paths; the test wants thousands", len(want))
	}
}
