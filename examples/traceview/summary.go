package main

import (
	"cmp"
	"context"
	"math"
	"math/bits"
	"slices"
	"sort"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/hpctrace/hpctrace/export"
	"github.com/hpctrace/hpctrace/model"
)

// The summary answers the served viewer's wide windows without reading
// them. Built in the start-up read, it holds, per timeline row and per
// time bucket (a fine base resolution, as export.Timeline's columns: the
// first event's time is the left edge, and the buckets double in width,
// merging in pairs, whenever an event falls past the last one):
//
//   - the mix of regions: the ticks of each region as the innermost open
//     region of the row's locations, the mixSlots regions of most time
//     exactly, and the rest of every function group as that group's
//     "other" (addSlot, as the mixer);
//   - the number of events, from which the cost of reading a window is
//     estimated;
//
// and, per pair of rows and pair of buckets (coarser ones past
// maxSumBundles pairs), the number and bytes of the messages.
//
// Its size is bounded: its cells (sumCellBytes each, the rows times the
// buckets) and the groups' rests (sumRestBytes each, a bucket's list of
// as many as it has groups with a rest) stay within sumBytes, the
// buckets halving in number (merging in pairs) past it, and the bundles
// within maxSumBundles: it does not grow with the trace's length. Only
// at its fewest buckets (minSumBuckets) past sumBytes does a rest not
// yet in its bucket go to "other regions". A window of more events than the server's budget
// (-budget) is answered from it (summary.answer): its columns are whole
// buckets, its mix the buckets' mix summed, its message lines the
// bundles met, and the answer says so (windowReply.Summary).
type summary struct {
	defs    *model.Defs
	maxRows int
	rowSize int
	nb      int // buckets
	start   model.Time
	width   model.Time // ticks per bucket
	started bool
	last    model.Time
	dropped bool // a time before the first event's (a PICL file's): no summary

	// rows[r-1] is row r's cells, made when the row is first met (a
	// format may define its locations as it goes).
	rows   []sumRow
	shift  uint
	events []uint32 // per bucket, every location's (saturating)

	locs   []mixLoc
	groups *groupTable // each region's group, for the rests
	nrests int         // the rests kept, in every row
	minNB  int         // the fewest buckets
	limit  int         // bytes of the cells and rests at most (sumBytes; tests set less)

	bundles map[sumBundleKey]*sumBundle // in the start-up read; nil after finish
	bshift  uint                        // bundles are by buckets of width << bshift
	lines   []sumLine                   // after finish, the bundles by send bucket, rows and receive bucket
	done    bool                        // finished

	// long are the slices at least minLong and a bucket long (up to
	// maxLong of them: past it minLong doubles), so that the answer draws
	// the slices as long as its columns or longer. finish sorts them
	// into levels: levels[k] the slices of [width<<k, width<<(k+1))
	// ticks, by start, so that an answer touches only the levels of
	// slices as long as its columns and, in each, those that start
	// within the window or a level's longest length before it
	// (longTouched counts them).
	long        []export.Slice
	minLong     model.Time
	levels      [][]export.Slice
	longTouched atomic.Int64
}

// sumBundleKey is the messages from a row in one bucket (of the bundles'
// width) to a row in another.
type sumBundleKey struct {
	from, to   int32
	sent, recv int32
}

type sumBundle struct{ count, bytes int64 }

// sumLine is a bundle, as finish lists them.
type sumLine struct {
	sumBundleKey
	sumBundle
}

// sumRow is a row's cells: bucket b's slots are regions[b*mixSlots:]
// (region 0: an empty slot) and its ticks ticks[b*sumTicks:]: the
// regions', then "other regions"; its groups' rests are the entries of
// rests of bucket b (rests is by bucket, then group; a bucket holds one
// of each group with a rest there). Ticks are kept in units of 2^shift
// ticks, so that a cell (the bucket's width times the row's locations)
// fits in 32 bits.
type sumRow struct {
	regions []int32
	ticks   []uint32
	rests   []sumRest
	events  []uint32 // the members' summary's: the location's events per bucket (saturating); nil in the rows'
}

// sumRest is the rest of group g of bucket b of a row.
type sumRest struct {
	b, g  uint32
	ticks uint32
}

const (
	// sumTicks is the tick counts of a bucket: its regions' and "other
	// regions".
	sumTicks = mixSlots + 1
	// sumCellBytes is the bytes of a cell: its regions and its ticks.
	sumCellBytes = 4*mixSlots + 4*sumTicks
	// sumRestBytes is the bytes of a group's rest in a bucket.
	sumRestBytes = 12
	// sumBytes bounds the cells and the rests: 26 MiB (as 2^19 cells of
	// 6 regions and "other" were).
	sumBytes = 26 << 20

	maxSumBuckets = 1 << 16 // buckets at most (fewer past maxSumCells / rows)
	minSumBuckets = 1 << 8
	maxSumCells   = sumBytes / sumCellBytes // rows times buckets
	maxSumBundles = 1 << 16
	maxLong       = 1 << 16 // long slices kept
	maxLongAnswer = 20000   // long slices an answer holds
)

// newSummary returns an empty summary of a trace of defs drawn in at
// most maxRows rows (-rows).
func newSummary(defs *model.Defs, maxRows int) *summary {
	rowSize := rowSizeOf(defs, maxRows)
	rows := max((defs.NumLocations()+rowSize-1)/rowSize, 1)
	nb := maxSumBuckets
	for nb > minSumBuckets && rows*nb > maxSumCells {
		nb /= 2
	}
	return &summary{defs: defs, maxRows: maxRows, rowSize: rowSize, nb: nb, width: 1, events: make([]uint32, nb),
		bundles: map[sumBundleKey]*sumBundle{}, groups: newGroupTable(defs), minNB: minSumBuckets, limit: sumBytes}
}

// bytes returns the bytes of the cells and the rests.
func (s *summary) bytes() int {
	cell := sumCellBytes
	if len(s.rows) > 0 && s.rows[0].events != nil {
		cell += 4
	}
	return len(s.rows)*s.nb*cell + s.nrests*sumRestBytes
}

// halve merges the buckets in pairs and halves their number.
func (s *summary) halve() {
	s.widen()
	s.nb /= 2
	s.events = s.events[:s.nb:s.nb]
	for i := range s.rows {
		x := &s.rows[i]
		x.regions, x.ticks = slices.Clip(x.regions[:s.nb*mixSlots]), slices.Clip(x.ticks[:s.nb*sumTicks])
		x.rests = slices.Clip(x.rests)
		if x.events != nil {
			x.events = slices.Clip(x.events[:s.nb])
		}
	}
}

// fit halves the buckets while the cells and rests are past the limit.
func (s *summary) fit() {
	for s.bytes() > s.limit && s.nb > s.minNB {
		s.halve()
	}
}

// cells returns row r's cells, making them (and the rows before) when
// first met; past maxSumCells cells, the buckets halve in number. Rows
// met past maxSumCells / minSumBuckets (a format that defines its
// locations as it goes, in rows of one) drop the summary: nil.
func (s *summary) cells(r int) *sumRow {
	if r > maxSumCells/minSumBuckets {
		*s = summary{dropped: true}
		return nil
	}
	for r > len(s.rows) {
		for s.nb > s.minNB && (len(s.rows)+1)*s.nb*sumCellBytes+s.nrests*sumRestBytes > s.limit {
			s.halve()
		}
		s.rows = append(s.rows, sumRow{regions: make([]int32, s.nb*mixSlots), ticks: make([]uint32, s.nb*sumTicks)})
	}
	return &s.rows[r-1]
}

func (s *summary) row(l model.LocID) int { return 1 + int(l-1)/s.rowSize }

// bucket returns the bucket of x, widening the buckets to reach it.
func (s *summary) bucket(x model.Time) int {
	c := (x - s.start) / s.width
	for c >= model.Time(s.nb) {
		s.widen()
		c = (x - s.start) / s.width
	}
	return int(c)
}

// widen doubles the buckets' width, merging them in pairs.
func (s *summary) widen() {
	s.width *= 2
	// A cell must hold width times a row's locations ticks.
	for (uint64(s.width)*uint64(s.rowSize))>>s.shift > 1<<32-1 {
		s.shift++
		for _, x := range s.rows {
			for i := range x.ticks {
				x.ticks[i] >>= 1
			}
			for i := range x.rests {
				x.rests[i].ticks >>= 1
			}
		}
	}
	var cell []mixSlot
	s.nrests = 0
	for r := range s.rows {
		x := &s.rows[r]
		old := x.rests
		x.rests = nil // rebuilt in order of bucket (old's are read before a bucket's are written: c <= 2c)
		j := 0
		for c := 0; c < s.nb; c++ {
			cell = cell[:0]
			for _, src := range []int{2 * c, 2*c + 1} {
				if src < s.nb {
					cell = s.appendSlots(cell, x, src)
					for ; j < len(old) && old[j].b == uint32(src); j++ {
						cell = addSlot(cell, -int64(old[j].g)-1, model.Time(old[j].ticks)<<s.shift, s.groups)
					}
				}
			}
			s.setCell(x, c, cell, true)
		}
	}
	merge := func(events []uint32) {
		for c := 0; c < s.nb; c++ {
			var n uint64
			for _, src := range []int{2 * c, 2*c + 1} {
				if src < s.nb {
					n += uint64(events[src])
				}
			}
			events[c] = uint32(min(n, 1<<32-1))
		}
	}
	merge(s.events)
	for _, x := range s.rows {
		if x.events != nil {
			merge(x.events)
		}
	}
	if s.bshift > 0 {
		s.bshift-- // the same bundles' width, now fewer buckets
	} else {
		s.rekey(func(k sumBundleKey) sumBundleKey { k.sent, k.recv = k.sent/2, k.recv/2; return k })
	}
}

// rekey gives every bundle a new key, merging those that meet.
func (s *summary) rekey(f func(sumBundleKey) sumBundleKey) {
	old := s.bundles
	s.bundles = make(map[sumBundleKey]*sumBundle, len(old))
	for k, b := range old {
		k = f(k)
		if x := s.bundles[k]; x != nil {
			x.count += b.count
			x.bytes += b.bytes
		} else {
			s.bundles[k] = b
		}
	}
}

// restsOf returns the index in x.rests of bucket i's first rest and of
// the one past its last.
func restsOf(x *sumRow, i int) (int, int) {
	a := sort.Search(len(x.rests), func(j int) bool { return x.rests[j].b >= uint32(i) })
	b := a
	for b < len(x.rests) && x.rests[b].b == uint32(i) {
		b++
	}
	return a, b
}

// appendCell adds the slots of bucket i of row x to cell (in ticks), as
// addSlot: its regions, its groups' rests and "other regions".
func (s *summary) appendCell(cell []mixSlot, x *sumRow, i int) []mixSlot {
	cell = s.appendSlots(cell, x, i)
	a, b := restsOf(x, i)
	return s.appendRests(cell, x.rests[a:b])
}

// appendRests adds the rests rs (of one bucket) to cell (in ticks).
func (s *summary) appendRests(cell []mixSlot, rs []sumRest) []mixSlot {
	for _, e := range rs {
		cell = addSlot(cell, -int64(e.g)-1, model.Time(e.ticks)<<s.shift, s.groups)
	}
	return cell
}

// appendSlots adds the regions and "other regions" of bucket i of row x
// to cell (in ticks), as addSlot: not its groups' rests.
func (s *summary) appendSlots(cell []mixSlot, x *sumRow, i int) []mixSlot {
	reg, tk := x.regions[i*mixSlots:(i+1)*mixSlots], x.ticks[i*sumTicks:(i+1)*sumTicks]
	for k, r := range reg {
		if r != 0 {
			cell = addSlot(cell, int64(uint32(r)), model.Time(tk[k])<<s.shift, s.groups) // a RegionID, stored as int32
		}
	}
	if v := tk[sumTicks-1]; v != 0 {
		cell = addSlot(cell, 0, model.Time(v)<<s.shift, s.groups)
	}
	return cell
}

// setCell stores cell (addSlot's: at most mixSlots regions, the groups'
// rests and "other") as bucket i of row x, whose rests are either
// x.rests' entries of bucket i or none past the last bucket of x.rests
// (widen's, building them in order). Unless merging (widen's), at the
// fewest buckets past the limit a group's rest that bucket i did not
// hold goes to "other regions".
func (s *summary) setCell(x *sumRow, i int, cell []mixSlot, merging bool) {
	reg, tk := x.regions[i*mixSlots:(i+1)*mixSlots], x.ticks[i*sumTicks:(i+1)*sumTicks]
	clear(reg)
	clear(tk)
	a, b := len(x.rests), len(x.rests)
	if a > 0 && x.rests[a-1].b >= uint32(i) {
		a, b = restsOf(x, i)
	}
	var rs [8]sumRest
	rests := rs[:0]
	k := 0
	sat := func(t uint32, v uint64) uint32 { return uint32(min(uint64(t)+v, 1<<32-1)) }
	full := !merging && s.nb <= s.minNB && s.bytes() >= s.limit
	for _, c := range cell {
		v := min(uint64(c.ticks)>>s.shift, 1<<32-1)
		r := c.region
		if r > 0 && k == mixSlots {
			r = s.groups.rest(r)
		}
		if r > 0 {
			reg[k], tk[k] = int32(r), uint32(v)
			k++
			continue
		}
		if r < 0 {
			g := uint32(-r - 1)
			j := slices.IndexFunc(rests, func(e sumRest) bool { return e.g == g })
			if j < 0 && full && !slices.ContainsFunc(x.rests[a:b], func(e sumRest) bool { return e.g == g }) {
				r = 0 // no room for a new rest
			} else if j < 0 {
				rests = append(rests, sumRest{b: uint32(i), g: g, ticks: uint32(v)})
				continue
			} else {
				rests[j].ticks = sat(rests[j].ticks, v)
				continue
			}
		}
		tk[sumTicks-1] = sat(tk[sumTicks-1], v)
	}
	slices.SortFunc(rests, func(a, b sumRest) int { return cmp.Compare(a.g, b.g) })
	s.nrests += len(rests) - (b - a)
	x.rests = slices.Replace(x.rests, a, b, rests...)
}

// addTo adds d ticks of region r to bucket i of row x where that needs
// no region to go to a rest (r is in the cell, or a slot is free, or r
// is 0), as addSlot would; it reports whether it did.
func (s *summary) addTo(x *sumRow, i int, r model.RegionID, d model.Time) bool {
	reg, tk := x.regions[i*mixSlots:(i+1)*mixSlots], x.ticks[i*sumTicks:(i+1)*sumTicks]
	k := sumTicks - 1
	if r != 0 {
		k = -1
		for j, y := range reg {
			if y == int32(r) || (y == 0 && k < 0) {
				k = j
				if y == int32(r) {
					break
				}
			}
		}
		if k < 0 {
			return false
		}
		reg[k] = int32(r)
	}
	tk[k] = uint32(min(uint64(tk[k])+uint64(d)>>s.shift, 1<<32-1))
	return true
}

// occupy attributes [a, b) of location l to region r.
func (s *summary) occupy(l model.LocID, r model.RegionID, a, b model.Time) {
	a = max(a, s.start)
	if b <= a || l == 0 {
		return
	}
	x := s.cells(s.row(l))
	if x == nil {
		return
	}
	cb, ca := s.bucket(b-1), s.bucket(a)
	var cell []mixSlot
	for c := ca; c <= cb; c++ {
		lo := max(a, s.start+model.Time(c)*s.width)
		hi := min(b, s.start+model.Time(c+1)*s.width)
		if hi <= lo {
			continue
		}
		if !s.addTo(x, c, r, hi-lo) {
			cell = s.appendCell(cell[:0], x, c)
			s.setCell(x, c, addSlot(cell, int64(r), hi-lo, s.groups), false)
		}
	}
	s.fit()
}

// take notes time t of the next event of the start-up read and reports
// whether the summary takes it. A time before the first event's (a PICL
// file is in file order) drops the summary: its buckets, from the first
// event's time on, cannot hold it, and its memory goes.
func (s *summary) take(t model.Time) bool {
	if s.dropped {
		return false
	}
	if !s.started {
		s.start, s.started, s.last = t, true, t
	}
	if t < s.start {
		*s = summary{dropped: true}
		return false
	}
	s.last = max(s.last, t)
	return true
}

// add takes the next event of the start-up read, as the mixer's add
// without a window.
func (s *summary) add(ev *model.Event) {
	if !s.take(ev.Time) {
		return
	}
	c := s.bucket(ev.Time)
	if s.events[c] < 1<<32-1 {
		s.events[c]++
	}
	for int(ev.Loc) >= len(s.locs) {
		s.locs = append(s.locs, mixLoc{})
	}
	l := &s.locs[ev.Loc]
	if l.seen && ev.Time > l.last {
		if n := len(l.stack); n > 0 {
			if s.occupy(ev.Loc, l.stack[n-1].region, l.last, ev.Time); s.dropped {
				return
			}
		}
	}
	if !l.seen || ev.Time > l.last {
		l.last, l.seen = ev.Time, true
	}
	if l.open(ev) || (ev.Kind != model.KindLeave && ev.Kind != model.KindCollEnd) {
		return
	}
	if i := l.closes(ev.Kind == model.KindCollEnd); i >= 0 {
		for j := len(l.stack) - 1; j >= i; j-- {
			s.keepLong(ev.Loc, j, &l.stack[j], ev.Time)
		}
		l.stack = l.stack[:i]
	}
}

// keepLong keeps the slice o of l at depth, ended at end, if it is long.
func (s *summary) keepLong(l model.LocID, depth int, o *mixOpen, end model.Time) {
	if end-o.start < max(s.width, s.minLong) {
		return
	}
	x := export.Slice{Loc: l, Region: o.region, Start: o.start, End: end, Depth: depth, Coll: o.coll}
	if o.coll && o.comm != 0 {
		// As the timeline names a collective's communicator.
		x.Comm = "comm " + strconv.FormatUint(uint64(o.comm), 10)
		if c, ok := s.defs.Comm(o.comm); ok && c.Name != "" {
			x.Comm = c.Name
		}
	}
	s.long = append(s.long, x)
	for len(s.long) > maxLong {
		s.minLong = 2 * max(s.width, s.minLong)
		s.long = slices.DeleteFunc(s.long, func(x export.Slice) bool { return x.End-x.Start < s.minLong })
	}
}

// message takes a message paired in the start-up read.
func (s *summary) message(m *export.Message) {
	if s.dropped || s.done || !s.started || m.From == 0 || m.To == 0 ||
		m.Send < s.start || m.Recv < s.start {
		return
	}
	sb, rb := s.bucket(m.Send), s.bucket(m.Recv)
	k := sumBundleKey{from: int32(s.row(m.From)), to: int32(s.row(m.To)), sent: int32(sb >> s.bshift), recv: int32(rb >> s.bshift)}
	b := s.bundles[k]
	if b == nil {
		for len(s.bundles) >= maxSumBundles {
			s.bshift++
			s.rekey(func(k sumBundleKey) sumBundleKey { k.sent, k.recv = k.sent/2, k.recv/2; return k })
			k.sent, k.recv = k.sent/2, k.recv/2
		}
		if b = s.bundles[k]; b == nil {
			b = &sumBundle{}
			s.bundles[k] = b
		}
	}
	b.count++
	b.bytes += m.Bytes
}

// finish ends the start-up read: the regions still open are open to end
// (the trace's span's end).
func (s *summary) finish(end model.Time) {
	if s.dropped {
		return
	}
	for i := range s.locs {
		l := &s.locs[i]
		if n := len(l.stack); n > 0 && end > l.last {
			if s.occupy(model.LocID(i), l.stack[n-1].region, l.last, end); s.dropped {
				return
			}
		}
		// The slices still open end at the last event, as the
		// timeline's.
		for j := len(l.stack) - 1; j >= 0; j-- {
			s.keepLong(model.LocID(i), j, &l.stack[j], s.last)
		}
	}
	s.locs = nil
	s.done = true
	s.lines = make([]sumLine, 0, len(s.bundles))
	for k, b := range s.bundles {
		s.lines = append(s.lines, sumLine{k, *b})
	}
	slices.SortFunc(s.lines, func(a, b sumLine) int {
		return cmp.Or(cmp.Compare(a.sent, b.sent), cmp.Compare(a.from, b.from), cmp.Compare(a.to, b.to), cmp.Compare(a.recv, b.recv))
	})
	s.bundles = nil
	for _, x := range s.long {
		if x.End-x.Start < s.width {
			continue
		}
		k := bits.Len64(uint64((x.End-x.Start)/s.width)) - 1
		for k >= len(s.levels) {
			s.levels = append(s.levels, nil)
		}
		s.levels[k] = append(s.levels[k], x)
	}
	for _, lv := range s.levels {
		slices.SortFunc(lv, func(a, b export.Slice) int { return cmp.Compare(a.Start, b.Start) })
	}
	s.long = nil
}

// levelMax returns the least length past level k's slices: width<<(k+1)
// ticks, or MaxInt64.
func (s *summary) levelMax(k int) model.Time {
	if k+1 >= 63 || s.width > math.MaxInt64>>(k+1) {
		return math.MaxInt64
	}
	return s.width << (k + 1)
}

// longIn returns the long slices of at least least ticks that meet
// [from, to], longest level first, stopping after the level past which
// there are more than maxLongAnswer.
func (s *summary) longIn(from, to, least model.Time) []export.Slice {
	var out []export.Slice
	touched := 0
	for k := len(s.levels) - 1; k >= 0 && len(out) <= maxLongAnswer; k-- {
		hi := s.levelMax(k)
		if hi <= least {
			break // every slice of this level and below is shorter
		}
		// A slice meeting the window ends at or after from, so it
		// starts after from-hi.
		lo := from - hi
		if from < math.MinInt64+hi {
			lo = math.MinInt64
		}
		lv := s.levels[k]
		for i := sort.Search(len(lv), func(i int) bool { return lv[i].Start > lo }); i < len(lv) && lv[i].Start <= to; i++ {
			touched++
			if x := &lv[i]; x.End-x.Start >= least && x.End >= from {
				out = append(out, *x)
			}
		}
	}
	s.longTouched.Add(int64(touched))
	return out
}

// usable reports whether the summary holds the trace.
func (s *summary) usable() bool { return s != nil && !s.dropped && s.started }

// span returns the buckets [b0, b1) that meet [from, to).
func (s *summary) span(from, to model.Time) (b0, b1 int) {
	b0 = int(min(max((from-s.start)/s.width, 0), model.Time(s.nb)))
	b1 = int(min(max((to-s.start+s.width-1)/s.width, 0), model.Time(s.nb)))
	return b0, max(b1, b0)
}

// estimate returns the events of the buckets that meet [from, to): an
// upper bound of the events of the window.
func (s *summary) estimate(from, to model.Time) int64 {
	b0, b1 := s.span(from, to)
	var n int64
	for _, e := range s.events[b0:b1] {
		n += int64(e)
	}
	return n
}

// summaryInfo says how a window was answered from the summary.
type summaryInfo struct {
	Bucket  model.Time `json:"bucket"`  // ticks per bucket of the summary
	Buckets int        `json:"buckets"` // buckets per column
	Events  int64      `json:"events"`  // events of the buckets of the window (an upper bound of the window's)
	Budget  int64      `json:"budget"`  // events a window may hold to be read in full
	// Long are the window's slices of at least LongMin ticks (the
	// answer's column width, or more where they would be more than
	// maxLongAnswer): every slice of that length, the shorter ones only
	// in the mix. Their regions are the timeline's.
	Long    []export.Slice `json:"long"`
	LongMin model.Time     `json:"long_min"`
}

// answer returns the data of the window [from, to) from the summary: the
// timeline (its aggregate, the dominant region of each column, and its
// message lines; no detail) and the mix, at columns of whole buckets, as
// many buckets to a column as keep them within cols, from the bucket of
// from on.
func (s *summary) answer(from, to model.Time, cols int) (*export.TimelineData, *mixData, summaryInfo) {
	b0, b1 := s.span(from, to)
	k := max((b1-b0+cols-1)/max(cols, 1), 1)
	ncol := max((b1-b0+k-1)/k, 1)
	start, cw := s.start+model.Time(b0)*s.width, model.Time(k)*s.width
	b1 = min(b0+ncol*k, s.nb) // whole columns
	tl := export.NewTimeline(s.defs, &export.TimelineOptions{Columns: ncol, MaxDetail: -1, MaxRows: s.maxRows, From: start, To: start + model.Time(ncol)*cw}).Finish()
	tl.RowSize = s.rowSize
	tl.End = to
	// The aggregate's cells: the dominant region of each row and column,
	// with the messages sent there.
	sent := make([]int64, (len(s.rows)+1)*ncol) // by row and column
	bw := s.width << s.bshift
	colOf := func(bb int32) int {
		t := s.start + model.Time(bb)*bw - start
		c := t / cw
		if t < 0 && t%cw != 0 {
			c--
		}
		return int(c)
	}
	lo, hi := int32(b0>>s.bshift), int32((b1-1)>>s.bshift)
	for i := range s.lines {
		key, b := &s.lines[i].sumBundleKey, &s.lines[i].sumBundle
		if (key.sent < lo || key.sent > hi) && (key.recv < lo || key.recv > hi) {
			continue
		}
		fc := colOf(key.sent)
		tl.Bundles = append(tl.Bundles, export.Bundle{From: model.LocID(key.from), To: model.LocID(key.to), FromCol: fc, ToCol: colOf(key.recv),
			Count: b.count, Bytes: b.bytes})
		if fc >= 0 && fc < ncol {
			sent[int(key.from)*ncol+fc] += b.count
		}
	}
	// The bundles met, by column (lines are by bucket: nearly in order
	// already), the bundles of a column and pair of rows as one.
	slices.SortStableFunc(tl.Bundles, func(a, b export.Bundle) int {
		return cmp.Or(cmp.Compare(a.FromCol, b.FromCol), cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To), cmp.Compare(a.ToCol, b.ToCol))
	})
	tl.Bundles = mergeBundles(tl.Bundles)
	// The mix, and each column's dominant region, made a cell at a time.
	md := &mixData{Start: start, ColWidth: cw, Columns: ncol}
	n := s.defs.NumLocations()
	for r := 1; (r-1)*s.rowSize < n; r++ {
		md.RowLocs = append(md.RowLocs, min(s.rowSize, n-(r-1)*s.rowSize))
	}
	mc := &mixCells{d: md}
	doms := make([]model.RegionID, ncol)
	var cell []mixSlot
	for r := 1; r <= len(s.rows); r++ {
		x := &s.rows[r-1]
		j, _ := restsOf(x, b0)
		mc.prev = nil
		for c := range ncol {
			cell = cell[:0]
			for b := b0 + c*k; b < min(b0+(c+1)*k, b1); b++ {
				cell = s.appendSlots(cell, x, b)
				e := j
				for e < len(x.rests) && x.rests[e].b == uint32(b) {
					e++
				}
				cell = s.appendRests(cell, x.rests[j:e])
				j = e
			}
			doms[c] = dominant(cell)
			if r <= len(md.RowLocs) {
				mc.add(r, c, cell, int64(cw)*int64(md.RowLocs[r-1]))
			}
		}
		for c := 0; c < ncol; {
			d := doms[c]
			run := export.Cell{Loc: model.LocID(r), Col: c, Region: d}
			for c < ncol && doms[c] == d {
				run.Msgs += sent[r*ncol+c]
				c++
			}
			run.Span = c - run.Col
			if d != 0 || run.Msgs != 0 {
				tl.Cells = append(tl.Cells, run)
			}
		}
	}
	info := summaryInfo{Bucket: s.width, Buckets: k, Events: s.estimate(from, to), LongMin: cw}
	info.Long = s.longIn(from, to, cw)
	if len(info.Long) > maxLongAnswer {
		slices.SortFunc(info.Long, func(a, b export.Slice) int { return cmp.Compare(b.End-b.Start, a.End-a.Start) })
		info.LongMin = info.Long[maxLongAnswer].End - info.Long[maxLongAnswer].Start + 1
		info.Long = slices.DeleteFunc(info.Long, func(x export.Slice) bool { return x.End-x.Start < info.LongMin })
	}
	return tl, md, info
}

// mergeBundles returns bs (sorted by column and rows) with the bundles
// of one column, pair of rows and receive column made one.
func mergeBundles(bs []export.Bundle) []export.Bundle {
	out := bs[:0]
	for _, b := range bs {
		if n := len(out); n > 0 {
			if l := &out[n-1]; l.FromCol == b.FromCol && l.From == b.From && l.To == b.To && l.ToCol == b.ToCol {
				l.Count += b.Count
				l.Bytes += b.Bytes
				continue
			}
		}
		out = append(out, b)
	}
	return out
}

// dominant returns the region of most ticks in cell (0: none).
func dominant(cell []mixSlot) model.RegionID {
	var best mixSlot
	for _, x := range cell {
		if x.region > 0 && (x.ticks > best.ticks || (x.ticks == best.ticks && x.region < best.region)) {
			best = x
		}
	}
	return model.RegionID(best.region)
}

// summarized reports whether the window [from, to) of the locations locs
// (nil: all) is answered from the summary: a window of every location,
// with a summary, of more events than -budget (0: none is).
func (s *server) summarized(from, to model.Time, locs func(model.LocID) bool) bool {
	return locs == nil && s.cfg.budget > 0 && s.sum.usable() && s.sum.estimate(from, to) > s.cfg.budget
}

// fromSummary answers the window [from, to) from the summary, its long
// slices' times counted from origin (as rebase counts the rest's), with
// the members' mix (members nil: none): for a format that seeks (OTF,
// OTF2: a read of some locations reads only their streams), a read of
// the members' events over the window (from the index's checkpoint at or
// before from) at the page's columns, where the members' summary
// estimates them within -budget; else from the members' summary.
func (s *server) fromSummary(ctx context.Context, from, to, origin model.Time, members *memberSet) (*windowReply, error) {
	began := time.Now()
	tl, md, info := s.sum.answer(from, to, s.cfg.width)
	info.Budget = s.cfg.budget
	rep := &windowReply{From: from, To: to, Summary: &info}
	rep.pageData = pageData{Name: s.name, Events: info.Events, Locations: s.defs.NumLocations(), Regions: s.defs.NumRegions(),
		Clock: s.defs.TimeBase.String(), Window: true, Top: s.cfg.top, Timeline: tl, Mix: md, Groups: s.groups}
	// The long slices' regions are renumbered as a detail's.
	tl.Detail = &export.TimelineDetail{Slices: info.Long}
	var mmd *mixData
	if members != nil && s.msum.usable() {
		if start, _ := s.ix.span(from, to); s.seeks && s.msum.estimate(max(start.time, s.ix.first), to, members.keep) <= s.cfg.budget {
			var err error
			if mmd, err = s.readMembers(ctx, from, to, members); err != nil {
				return nil, err
			}
			rep.MembersRead = true
		} else {
			mmd = s.msum.answer(from, to, members.columns(&s.cfg), members.keep)
		}
		rep.Members = &memberData{Mix: mmd}
	}
	for _, r := range renumberRegions(tl, md, true, mmd) {
		rep.RegionGroups = append(rep.RegionGroups, s.group[r])
	}
	info.Long, tl.Detail = tl.Detail.Slices, nil
	for i := range info.Long {
		info.Long[i].Start -= origin
		info.Long[i].End -= origin
	}
	rep.Took = time.Since(began).Seconds()
	return rep, nil
}

// readMembers returns the members' mix of the window [from, to) from a
// read of their events only, from the index's checkpoint at or before
// from (its open regions of theirs) to the first event at or past to, at
// the members' columns over the window: that of read.
func (s *server) readMembers(ctx context.Context, from, to model.Time, members *memberSet) (*mixData, error) {
	start, _ := s.ix.span(from, to)
	src, closeSrc, err := s.source(start.time, to, members.keep)
	if err != nil {
		return nil, err
	}
	defer closeSrc()
	mm := newMixer(s.defs, members.columns(&s.cfg), 1, &model.Window{From: from, To: to})
	var ev model.Event
	for _, o := range start.open {
		if members.keep(o.loc) {
			ev = model.Event{Time: o.start, Loc: o.loc, Kind: model.KindEnter, Region: o.region}
			if o.coll {
				ev.Kind, ev.Comm = model.KindCollBegin, o.comm
			}
			mm.add(&ev)
		}
	}
	var n int64
	for src.Next() {
		e := src.Event()
		if e.Time >= to {
			break
		}
		if members.keep(e.Loc) {
			mm.add(e)
		}
		if n++; n&0xffff == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	if err := src.Err(); err != nil {
		return nil, err
	}
	md := mm.finish()
	md.RowLocs = nil // one location a row
	return md, nil
}

// memberSummary is the summary's mix per location, kept where the
// timeline groups locations into rows, so that a wide window answered
// from the summary gives the locations of an expanded row their own mix
// of that window (the summary's rows hold only the rows'). Its cells
// are the summary's (sumRow, one row per location: rows[l-1] is
// location l's), in as many buckets as keep them within maxMemberCells,
// so that its size is bounded whatever the trace's length; the buckets
// double in width as the summary's do.
type memberSummary struct {
	sum  summary
	locs []mixLoc // by LocID
}

// maxMemberCells bounds the cells of the members' summary, each a
// summary's cell and its location's events: with its rests, within
// sumBytes as the summary (its buckets halving past it, down to one).
const maxMemberCells = sumBytes / (sumCellBytes + 4)

// estimate returns the events of the locations members accepts in the
// buckets that meet [from, to): an upper bound of theirs in the window.
func (m *memberSummary) estimate(from, to model.Time, members func(model.LocID) bool) int64 {
	s := &m.sum
	b0, b1 := s.span(from, to)
	var n int64
	for l := range s.rows {
		if members(model.LocID(l + 1)) {
			for _, e := range s.rows[l].events[b0:b1] {
				n += int64(e)
			}
		}
	}
	return n
}

// newMemberSummary returns an empty members' summary of a trace of defs
// drawn in at most maxRows rows, or nil where each row is one location or
// the page holds no members' data (past maxMembers locations).
func newMemberSummary(defs *model.Defs, maxRows int) *memberSummary {
	n := defs.NumLocations()
	if rowSizeOf(defs, maxRows) == 1 || n > maxMembers {
		return nil
	}
	nb := maxSumBuckets
	for nb > 1 && n*nb*(sumCellBytes+4) > sumBytes {
		nb /= 2
	}
	m := &memberSummary{sum: summary{defs: defs, maxRows: n, rowSize: 1, nb: nb, width: 1, events: make([]uint32, nb),
		bundles: map[sumBundleKey]*sumBundle{}, rows: make([]sumRow, n), groups: newGroupTable(defs), minNB: 1, limit: sumBytes}, locs: make([]mixLoc, n+1)}
	for i := range m.sum.rows {
		m.sum.rows[i] = sumRow{regions: make([]int32, nb*mixSlots), ticks: make([]uint32, nb*sumTicks), events: make([]uint32, nb)}
	}
	return m
}

// usable reports whether m holds the trace.
func (m *memberSummary) usable() bool { return m != nil && m.sum.usable() }

// add takes the next event of the start-up read, as summary.add takes it
// for the rows' mix. Events of locations defined after the start (past
// the rows made) are not in it.
func (m *memberSummary) add(ev *model.Event) {
	s := &m.sum
	if !s.take(ev.Time) {
		if s.dropped {
			*m = memberSummary{sum: summary{dropped: true}} // times that go back: no summary
		}
		return
	}
	if ev.Loc == 0 || int(ev.Loc) > len(s.rows) {
		return
	}
	if e := &s.rows[ev.Loc-1].events[s.bucket(ev.Time)]; *e < 1<<32-1 {
		*e++
	}
	l := &m.locs[ev.Loc]
	if l.seen && ev.Time > l.last {
		if n := len(l.stack); n > 0 {
			m.occupy(ev.Loc, l.stack[n-1].region, l.last, ev.Time)
		}
	}
	if !l.seen || ev.Time > l.last {
		l.last, l.seen = ev.Time, true
	}
	if l.open(ev) || (ev.Kind != model.KindLeave && ev.Kind != model.KindCollEnd) {
		return
	}
	if i := l.closes(ev.Kind == model.KindCollEnd); i >= 0 {
		l.stack = l.stack[:i]
	}
}

// occupy attributes [a, b) of location l to region r.
func (m *memberSummary) occupy(l model.LocID, r model.RegionID, a, b model.Time) {
	s := &m.sum
	a = max(a, s.start)
	if b <= a {
		return
	}
	cb, ca := s.bucket(b-1), s.bucket(a)
	x := &s.rows[l-1]
	var cell []mixSlot
	for c := ca; c <= cb; c++ {
		lo := max(a, s.start+model.Time(c)*s.width)
		hi := min(b, s.start+model.Time(c+1)*s.width)
		if hi <= lo {
			continue
		}
		if !s.addTo(x, c, r, hi-lo) {
			cell = s.appendCell(cell[:0], x, c)
			s.setCell(x, c, addSlot(cell, int64(r), hi-lo, s.groups), false)
		}
	}
	s.fit()
}

// finish ends the start-up read: the regions still open are open to end,
// as summary.finish.
func (m *memberSummary) finish(end model.Time) {
	if m.sum.dropped {
		return
	}
	for i := range m.locs {
		l := &m.locs[i]
		if n := len(l.stack); n > 0 && end > l.last {
			m.occupy(model.LocID(i), l.stack[n-1].region, l.last, end)
		}
	}
	m.locs = nil
}

// answer returns the mix of the window [from, to) of the locations
// members accepts (row = LocID, as memberData's), at columns of whole
// buckets, as many to a column as keep them within cols, from the
// bucket of from on.
func (m *memberSummary) answer(from, to model.Time, cols int, members func(model.LocID) bool) *mixData {
	s := &m.sum
	b0, b1 := s.span(from, to)
	k := max((b1-b0+cols-1)/max(cols, 1), 1)
	ncol := max((b1-b0+k-1)/k, 1)
	start, cw := s.start+model.Time(b0)*s.width, model.Time(k)*s.width
	b1 = min(b0+ncol*k, s.nb)
	mx := &mixer{defs: s.defs, cols: ncol, start: start, width: cw, fixed: true, from: start, to: start + model.Time(ncol)*cw,
		started: true, rowSize: 1, rows: make([][][]mixSlot, len(s.rows)+1), groups: s.groups}
	for l := 1; l <= len(s.rows); l++ {
		if !members(model.LocID(l)) {
			continue
		}
		cells := make([][]mixSlot, ncol)
		for b := b0; b < b1; b++ {
			cells[(b-b0)/k] = s.appendCell(cells[(b-b0)/k], &s.rows[l-1], b)
		}
		mx.rows[l] = cells
	}
	md := mx.finish()
	md.RowLocs = nil // one location a row
	return md
}
