package main

import (
	"cmp"
	"math"
	"slices"
	"strconv"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
)

// track is one counter track of the page: the samples of one counter on
// one location, drawn as a step line under the location's row.
//
// Up to a budget shared by all tracks the samples are kept exactly
// (Points); past it only the buckets remain: the track's span cut into at
// most -width columns, each with its first, lowest, highest and last
// value, which is what a line one pixel per column can show.
type track struct {
	Loc          model.LocID `json:"loc_id"`
	Counter      string      `json:"counter"`
	Unit         string      `json:"unit,omitempty"`
	Accumulating bool        `json:"accumulating,omitempty"`
	Float        bool        `json:"float,omitempty"`
	Samples      int64       `json:"samples"`
	NonFinite    int64       `json:"non_finite,omitempty"` // NaN or infinite samples of a Float counter, not drawn
	Min          float64     `json:"min"`
	Max          float64     `json:"max"`
	Mean         float64     `json:"mean"`
	Start        model.Time  `json:"start"` // left edge of bucket 0
	Width        model.Time  `json:"width"` // ticks per bucket
	// Buckets are [column, first, min, max, last], by column; Points are
	// [time, value] in stream order, nil past the budget. The points'
	// times count from Start while the tracks are built (so that they are
	// exact as doubles) and are ticks of the page once rebased.
	Buckets [][5]float64 `json:"buckets"`
	Points  [][2]float64 `json:"points,omitempty"`

	cols int
	id   model.CounterID
}

// counterTracks builds the tracks in one pass over the events.
type counterTracks struct {
	defs    *model.Defs
	cols    int
	start   model.Time
	started bool
	fixed   bool // start is a window's: samples before it are not drawn
	budget  int  // exact points left; < 0: points dropped everywhere
	byKey   map[[2]int64]*track
	tracks  []*track
}

// newCounterTracks returns tracks of at most cols buckets each, keeping
// up to budget samples exactly (none if budget ≤ 0). start, when fixed,
// is the left edge of every track (a window's start).
func newCounterTracks(defs *model.Defs, cols, budget int, start model.Time, fixed bool) *counterTracks {
	if budget <= 0 {
		budget = -1
	}
	return &counterTracks{defs: defs, cols: max(cols, 1), budget: budget, start: start, started: fixed, fixed: fixed, byKey: map[[2]int64]*track{}}
}

// add takes one event; it ignores every kind but Counter.
func (c *counterTracks) add(ev *model.Event) {
	if !c.started {
		c.start, c.started = ev.Time, true
	}
	if ev.Kind != model.KindCounter || (c.fixed && ev.Time < c.start) {
		return
	}
	k := [2]int64{int64(ev.Loc), int64(ev.Counter)}
	tr := c.byKey[k]
	if tr == nil {
		def, _ := c.defs.Counter(ev.Counter)
		tr = &track{Loc: ev.Loc, Counter: def.Name, Unit: def.Unit, Accumulating: def.Accumulating, Float: def.Float,
			Start: c.start, Width: 1, cols: c.cols, id: ev.Counter}
		if tr.Counter == "" {
			tr.Counter = "counter " + strconv.Itoa(int(ev.Counter))
		}
		c.byKey[k] = tr
		c.tracks = append(c.tracks, tr)
	}
	v := float64(ev.Value)
	if tr.Float {
		v = math.Float64frombits(uint64(ev.Value))
		if math.IsNaN(v) || math.IsInf(v, 0) {
			tr.NonFinite++
			return
		}
	}
	tr.Samples++
	tr.bucket(max(ev.Time, tr.Start), v) // a stream not merged by time may go back before the first event
	if c.budget > 0 {
		tr.Points = append(tr.Points, [2]float64{float64(ev.Time - tr.Start), v})
		c.budget--
	} else if c.budget == 0 {
		for _, t := range c.tracks {
			t.Points = nil
		}
		c.budget = -1
	}
}

// bucket adds value v at time x, widening the buckets (twice as wide,
// pairs merged) until x fits.
func (t *track) bucket(x model.Time, v float64) {
	for (x-t.Start)/t.Width >= model.Time(t.cols) {
		t.Width *= 2
		out := t.Buckets[:0]
		for _, b := range t.Buckets {
			b[0] = math.Floor(b[0] / 2)
			if n := len(out); n > 0 && out[n-1][0] == b[0] {
				o := &out[n-1]
				o[2], o[3], o[4] = min(o[2], b[2]), max(o[3], b[3]), b[4]
				continue
			}
			out = append(out, b)
		}
		t.Buckets = out
	}
	col := float64((x - t.Start) / t.Width)
	if n := len(t.Buckets); n > 0 && t.Buckets[n-1][0] == col {
		b := &t.Buckets[n-1]
		b[2], b[3], b[4] = min(b[2], v), max(b[3], v), v
		return
	}
	t.Buckets = append(t.Buckets, [5]float64{col, v, v, v, v})
}

// finish returns the tracks by location, then counter name, with the
// mean of package stats' summary (0 where that is not finite).
func (c *counterTracks) finish(sums []stats.CounterSummary) []*track {
	for _, t := range c.tracks {
		t.Min, t.Max = math.Inf(1), math.Inf(-1)
		for _, b := range t.Buckets {
			t.Min, t.Max = min(t.Min, b[2]), max(t.Max, b[3])
		}
		if len(t.Buckets) == 0 {
			t.Min, t.Max = 0, 0
		}
		for _, s := range sums {
			if m := float64(s.Mean); s.LocID == t.Loc && s.CounterID == t.id && !math.IsNaN(m) && !math.IsInf(m, 0) {
				t.Mean = m
			}
		}
	}
	slices.SortFunc(c.tracks, func(x, y *track) int {
		return cmp.Or(cmp.Compare(x.Loc, y.Loc), cmp.Compare(x.Counter, y.Counter))
	})
	return c.tracks
}
