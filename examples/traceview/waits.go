package main

import (
	"cmp"
	"slices"

	"github.com/hpctrace/hpctrace/export"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/waitstate"
)

// waitData is what the page draws of the wait-state analysis (package
// waitstate): the waiting part of each MPI call, the critical path and
// the most severe instances. A trace without MPI calls has none.
type waitData struct {
	MPICalls int64    `json:"mpi_calls"`
	Patterns []string `json:"patterns"` // index = Wait.Pat
	// Waits has every wait when the timeline keeps its detail; Cells,
	// otherwise, the ticks waited per location and timeline column.
	Waits    []wait     `json:"waits,omitempty"`
	Cells    []waitCell `json:"cells,omitempty"`
	Critical critical   `json:"critical"`
	Top      []topInst  `json:"top"`
}

// wait is the waiting part [Start, End] of one MPI call on Loc, caused by
// a call on Delayer (0: none, as for a barrier's completion).
type wait struct {
	Loc     model.LocID `json:"loc_id"`
	Start   model.Time  `json:"start"`
	End     model.Time  `json:"end"`
	Pat     int         `json:"pat"`
	Region  string      `json:"region"`
	Delayer model.LocID `json:"delayer_id"`
}

// waitCell is the waiting time of Loc in timeline column Col, ticks.
type waitCell struct {
	Loc  model.LocID `json:"loc_id"`
	Col  int         `json:"col"`
	Time model.Time  `json:"time"`
}

// critical is the critical path: its length and segments in time order,
// exact, or, when there are more than the timeline has columns, merged
// per column to the location on the path for most of it (Coarse).
type critical struct {
	Length   model.Time   `json:"length"`
	Coarse   bool         `json:"coarse,omitempty"`
	Segments []critSeg    `json:"segments"`
	Regions  []critRegion `json:"regions"`
}

type critSeg struct {
	Loc   model.LocID `json:"loc_id"`
	Start model.Time  `json:"start"`
	End   model.Time  `json:"end"`
}

type critRegion struct {
	Region string     `json:"region"`
	Time   model.Time `json:"time"`
}

// topInst is one of the most severe wait instances, with the window
// [View0, View1] that shows both calls.
//
// WaiterName and DelayerName name the calls' locations: with grouped
// timeline rows the page's row names are ranges, not locations.
type topInst struct {
	Pattern     string     `json:"pattern"`
	WaiterName  string     `json:"waiter_name"`
	DelayerName string     `json:"delayer_name,omitempty"`
	Time        model.Time `json:"time"`
	Waiter      call       `json:"waiter"`
	Delayer     call       `json:"delayer"`
	View0       model.Time `json:"view0"`
	View1       model.Time `json:"view1"`
}

// call is a waitstate.Call as the page holds it: its location's model id
// (always a location, also with grouped rows), call path and times.
type call struct {
	Loc      model.LocID `json:"loc_id"`
	CallPath string      `json:"callpath"`
	Enter    model.Time  `json:"enter"`
	Leave    model.Time  `json:"leave"`
}

func callOf(c waitstate.Call) call { return call{c.Loc, c.CallPath, c.Enter, c.Leave} }

// atEnd reports whether pattern p's wait is the end of its call (the
// completions: X − max(earliest X, latest E)) rather than its start.
func atEnd(p waitstate.Pattern) bool {
	return p == waitstate.BarrierCompletion || p == waitstate.NxNCompletion || p == waitstate.InitCompletion
}

// waitsOf describes rep for the page drawn over tl; top bounds the
// instances listed.
func waitsOf(rep *waitstate.Report, tl *export.TimelineData, defs *model.Defs, top int) *waitData {
	if rep.Diagnostics.MPICalls == 0 {
		return nil
	}
	d := &waitData{MPICalls: rep.Diagnostics.MPICalls}
	pat := map[waitstate.Pattern]int{}
	for i := range rep.Instances {
		in := &rep.Instances[i]
		if in.Pattern == waitstate.LateSenderWrongOrder || in.Time <= 0 {
			continue // the same wait as its late_sender instance
		}
		s, e := in.Waiter.Enter, in.Waiter.Enter+in.Time
		if atEnd(in.Pattern) {
			s, e = in.Waiter.Leave-in.Time, in.Waiter.Leave
		}
		s, e = max(s, in.Waiter.Enter), min(e, in.Waiter.Leave)
		if e <= s {
			continue
		}
		p, ok := pat[in.Pattern]
		if !ok {
			p = len(d.Patterns)
			pat[in.Pattern] = p
			d.Patterns = append(d.Patterns, in.Pattern.String())
		}
		if tl.Detail != nil {
			name := ""
			if r, ok := defs.Region(in.Waiter.Region); ok {
				name = r.Name
			}
			d.Waits = append(d.Waits, wait{Loc: in.Waiter.Loc, Start: s, End: e, Pat: p, Region: name, Delayer: in.Delayer.Loc})
			continue
		}
		d.Cells = addCells(d.Cells, tl, in.Waiter.Loc, s, e)
	}
	if tl.Detail == nil {
		d.Cells = mergeCells(d.Cells)
	}
	d.Critical = criticalOf(rep, tl)
	d.Top = topOf(rep, tl, defs, top)
	return d
}

// addCells adds the wait [s, e] of loc to the columns of tl it covers.
func addCells(cells []waitCell, tl *export.TimelineData, loc model.LocID, s, e model.Time) []waitCell {
	w := max(tl.ColWidth, 1)
	for c := max((s-tl.Start)/w, 0); c < model.Time(tl.Columns); c++ {
		a, b := tl.Start+c*w, tl.Start+(c+1)*w
		if a >= e {
			break
		}
		if v := min(b, e) - max(a, s); v > 0 {
			cells = append(cells, waitCell{Loc: loc, Col: int(c), Time: v})
		}
	}
	return cells
}

// mergeCells sums the cells of each (location, column).
func mergeCells(cells []waitCell) []waitCell {
	slices.SortFunc(cells, func(x, y waitCell) int { return cmp.Or(cmp.Compare(x.Loc, y.Loc), cmp.Compare(x.Col, y.Col)) })
	out := cells[:0]
	for _, c := range cells {
		if n := len(out); n > 0 && out[n-1].Loc == c.Loc && out[n-1].Col == c.Col {
			out[n-1].Time += c.Time
			continue
		}
		out = append(out, c)
	}
	return out
}

// criticalOf returns the critical path, its segments exact up to the
// timeline's columns, coarsened beyond.
func criticalOf(rep *waitstate.Report, tl *export.TimelineData) critical {
	cp := critical{Length: rep.CriticalPath.Length}
	for _, r := range rep.CriticalPath.Profile {
		cp.Regions = append(cp.Regions, critRegion{Region: r.Region, Time: r.Time})
	}
	slices.SortStableFunc(cp.Regions, func(x, y critRegion) int { return cmp.Compare(y.Time, x.Time) })
	segs := rep.CriticalSegments
	if len(segs) <= max(tl.Columns, 1) {
		for _, s := range segs {
			cp.Segments = append(cp.Segments, critSeg{s.Loc, s.Start, s.End})
		}
		return cp
	}
	// Per column, the location on the path for most of it (segments are
	// in time order and do not overlap, so a column's come together).
	cp.Coarse = true
	w := max(tl.ColWidth, 1)
	col := func(t model.Time) model.Time { return (t - tl.Start) / w }
	cur, best := model.Time(-1), critSeg{}
	var bestLen model.Time
	cover := map[model.LocID]model.Time{}
	flush := func() {
		if cur < 0 || bestLen == 0 {
			return
		}
		a, b := tl.Start+cur*w, tl.Start+(cur+1)*w
		if n := len(cp.Segments); n > 0 && cp.Segments[n-1].Loc == best.Loc && cp.Segments[n-1].End == a {
			cp.Segments[n-1].End = b
		} else {
			cp.Segments = append(cp.Segments, critSeg{best.Loc, a, b})
		}
	}
	for _, s := range segs {
		for c := col(s.Start); c <= col(s.End-1); c++ {
			if c != cur {
				flush()
				cur, bestLen = c, 0
				clear(cover)
			}
			a, b := max(s.Start, tl.Start+c*w), min(s.End, tl.Start+(c+1)*w)
			cover[s.Loc] += b - a
			if v := cover[s.Loc]; v > bestLen {
				best, bestLen = critSeg{Loc: s.Loc}, v
			}
		}
	}
	flush()
	return cp
}

// topOf returns the n most severe instances of every pattern together
// (late_sender_wrong_order left out: each is a late_sender instance too).
func topOf(rep *waitstate.Report, tl *export.TimelineData, defs *model.Defs, n int) []topInst {
	var out []topInst
	for _, in := range rep.Top {
		if in.Pattern == waitstate.LateSenderWrongOrder {
			continue
		}
		t0, t1 := in.Waiter.Enter, in.Waiter.Leave
		if in.Delayer.Loc != 0 {
			t0, t1 = min(t0, in.Delayer.Enter), max(t1, in.Delayer.Leave)
		}
		m := max((t1-t0)/4, 1)
		t0, t1 = max(t0-m, tl.Start), min(t1+m, max(tl.End, tl.Start+1))
		ti := topInst{Pattern: in.Pattern.String(), WaiterName: defs.LocationName(in.Waiter.Loc), Time: in.Time, Waiter: callOf(in.Waiter), Delayer: callOf(in.Delayer), View0: t0, View1: t1}
		if in.Delayer.Loc != 0 {
			ti.DelayerName = defs.LocationName(in.Delayer.Loc)
		}
		out = append(out, ti)
	}
	slices.SortStableFunc(out, func(x, y topInst) int {
		return cmp.Or(cmp.Compare(y.Time, x.Time), cmp.Compare(x.Waiter.Enter, y.Waiter.Enter), cmp.Compare(x.Waiter.Loc, y.Waiter.Loc))
	})
	if len(out) > n {
		out = out[:max(n, 0)]
	}
	return out
}

// groupRows moves the waits and the critical path of w onto the timeline's
// rows of size locations each (location l is row 1 + (l-1)/size), as
// groupRows does for the page's tables: waits of one row and column add
// up, and consecutive critical-path segments on one row join. The most
// severe instances keep their locations, named by WaiterName and
// DelayerName.
func (w *waitData) groupRows(size int) {
	row := func(l model.LocID) model.LocID {
		if l == 0 {
			return 0
		}
		return 1 + (l-1)/model.LocID(size)
	}
	for i := range w.Waits {
		w.Waits[i].Loc = row(w.Waits[i].Loc)
		w.Waits[i].Delayer = row(w.Waits[i].Delayer)
	}
	for i := range w.Cells {
		w.Cells[i].Loc = row(w.Cells[i].Loc)
	}
	w.Cells = mergeCells(w.Cells)
	segs := w.Critical.Segments[:0]
	for _, s := range w.Critical.Segments {
		s.Loc = row(s.Loc)
		if n := len(segs); n > 0 && segs[n-1].Loc == s.Loc && segs[n-1].End == s.Start {
			segs[n-1].End = s.End
			continue
		}
		segs = append(segs, s)
	}
	w.Critical.Segments = segs
}
