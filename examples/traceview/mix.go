package main

import (
	"cmp"
	"slices"
	"strings"

	"github.com/hpctrace/hpctrace/export"
	"github.com/hpctrace/hpctrace/model"
)

// mixData is the mix of the timeline: for each row and column, the share
// of the column's time (over the row's locations) that each region held
// as the innermost open region. The page draws it as stacked shares, so
// that a column where MPI calls take a tenth of the time shows a tenth of
// MPI rather than only the region of most time.
//
// Cells are runs of columns of one row with the same mix:
// [row, first column, columns, region, share, region, share, …], shares
// in thousandths of the column's time times the row's locations (a row
// of 4 locations all in one region for the whole column: 1000). A cell
// keeps its mixSlots regions of most time exactly and the rest of each
// function group (groupsOf) summed as that group's "other": region
// -(g+1) is the rest of group g, so that a column's share of MPI, say,
// is exact at every zoom however many small MPI functions share it.
// Region 0 is "other regions", a rest of no group's: region 0's own
// time (and in the served summary, only at its fewest buckets past its
// memory bound, a group's rest it had no room for). The columns are the mixer's own (Start, ColWidth), not
// necessarily the aggregate timeline's.
type mixData struct {
	Start    model.Time `json:"start"`
	ColWidth model.Time `json:"col_width"`
	Columns  int        `json:"columns"`
	RowLocs  []int      `json:"row_locs"` // locations per row, index = row - 1
	Cells    [][]int64  `json:"cells"`
}

// mixSlots is the number of regions a mix cell keeps exactly.
const mixSlots = 6

// mixSlot is a cell's time of one region (region > 0), of the rest of
// group g (region -(g+1)), or of the other regions (region 0).
type mixSlot struct {
	region int64
	ticks  model.Time
}

type mixOpen struct {
	region model.RegionID
	coll   bool
	comm   model.CommID // a collective's communicator
	start  model.Time
}

// mixLoc is the state of one location: the regions open in the window,
// and, in a window, the regions left there that were entered before it.
type mixLoc struct {
	stack   []mixOpen
	last    model.Time
	seen    bool
	pending []span       // times with nothing open in the window: an outer region entered before it, not known yet (4096 runs at most: past them that time is not drawn)
	early   []earlySlice // regions left in the window, entered before it
}

// open pushes the frame of an Enter (of a region) or a CollBegin on l's
// stack and reports whether ev was one.
func (l *mixLoc) open(ev *model.Event) bool {
	switch ev.Kind {
	case model.KindEnter:
		if ev.Region != 0 {
			l.stack = append(l.stack, mixOpen{region: ev.Region, start: ev.Time})
		}
	case model.KindCollBegin:
		l.stack = append(l.stack, mixOpen{region: ev.Region, start: ev.Time, coll: true, comm: ev.Comm})
	default:
		return false
	}
	return true
}

// closes returns the index on l's stack of the innermost frame that a
// Leave (coll false) or a CollEnd (coll true) closes, with the frames
// above it, or -1 if none is open.
func (l *mixLoc) closes(coll bool) int {
	i := len(l.stack) - 1
	for i >= 0 && l.stack[i].coll != coll {
		i--
	}
	return i
}

type span struct{ a, b model.Time }

// earlySlice is a region entered before the window and left at end.
type earlySlice struct {
	region model.RegionID
	end    model.Time
	coll   bool
}

// mixer builds the mix in one pass, with columns as export.Timeline's:
// fixed by a window, or doubling in width as the trace goes on.
type mixer struct {
	defs     *model.Defs
	cols     int
	start    model.Time
	width    model.Time
	fixed    bool
	from, to model.Time
	started  bool
	last     model.Time
	rowSize  int
	locs     []mixLoc
	rows     [][][]mixSlot // row, column, slots
	groups   *groupTable   // each region's group, for the rests
}

func newMixer(defs *model.Defs, cols, rowSize int, win *model.Window) *mixer {
	m := &mixer{defs: defs, cols: max(cols, 1), width: 1, rowSize: max(rowSize, 1), groups: newGroupTable(defs)}
	if win != nil && win.To > win.From {
		m.fixed, m.from, m.to, m.start, m.started = true, win.From, win.To, win.From, true
		m.width = max((win.To-win.From+model.Time(m.cols)-1)/model.Time(m.cols), 1)
	}
	return m
}

func (m *mixer) row(l model.LocID) int {
	if l == 0 {
		return 0
	}
	return 1 + int(l-1)/m.rowSize
}

// col returns the column of x, widening the columns when there is no
// window; x must not be before the start.
func (m *mixer) col(x model.Time) int {
	c := (x - m.start) / m.width
	for !m.fixed && c >= model.Time(m.cols) {
		m.widen()
		c = (x - m.start) / m.width
	}
	return int(min(c, model.Time(m.cols-1)))
}

func (m *mixer) widen() {
	m.width *= 2
	for _, cells := range m.rows {
		for c := 0; c < len(cells); c++ {
			var merged []mixSlot
			for _, src := range cells[min(2*c, len(cells)):min(2*c+2, len(cells))] {
				for _, s := range src {
					merged = addSlot(merged, s.region, s.ticks, m.groups)
				}
			}
			cells[c] = merged
		}
	}
}

// addSlot adds d ticks of r (a region, a group's rest -(g+1), or 0) to
// a cell, keeping mixSlots regions exactly and the rest of each in its
// group's rest (gt.rest). A cell holds at most mixSlots regions, one rest
// per group, and "other".
func addSlot(cell []mixSlot, r int64, d model.Time, gt *groupTable) []mixSlot {
	named := 0
	for i := range cell {
		if cell[i].region == r {
			cell[i].ticks += d
			return cell
		}
		if cell[i].region > 0 {
			named++
		}
	}
	if named < mixSlots || r <= 0 {
		return append(cell, mixSlot{r, d})
	}
	// Full: the smallest region goes to its group's rest, unless r is
	// smaller.
	small := -1
	for i, s := range cell {
		if s.region > 0 && (small < 0 || s.ticks < cell[small].ticks) {
			small = i
		}
	}
	if small >= 0 && cell[small].ticks < d {
		out := cell[small]
		cell[small] = mixSlot{r, d}
		return addSlot(cell, gt.rest(out.region), out.ticks, gt)
	}
	return addSlot(cell, gt.rest(r), d, gt)
}

// groupTable is each region's group (groupsOf's), extended as the
// definitions grow (a format may define regions as it goes): a region's
// group index never changes.
type groupTable struct {
	defs   *model.Defs
	groups []regionGroup
	index  map[regionGroup]int
	of     []int // by RegionID; index 0 unused
}

func newGroupTable(defs *model.Defs) *groupTable {
	t := &groupTable{defs: defs, index: map[regionGroup]int{}, of: []int{0}}
	t.update()
	return t
}

// update adds the regions defined since the last call.
func (t *groupTable) update() {
	if t.defs == nil {
		return
	}
	rs := t.defs.Regions()
	for i := len(t.of) - 1; i < len(rs); i++ {
		r := &rs[i]
		kind := kindOf(r)
		name := r.Group
		if name == "" {
			name = map[string]string{"mpi": "MPI", "openmp": "OpenMP", "io": "I/O", "application": "application", "threads": "threads",
				"accelerator": "accelerator", "measurement": "measurement", "other": "other"}[kind]
		}
		g := regionGroup{Name: name, Kind: kind}
		k, ok := t.index[g]
		if !ok {
			k = len(t.groups)
			t.index[g] = k
			t.groups = append(t.groups, g)
		}
		t.of = append(t.of, k)
	}
}

// rest returns the key of the rest of r's group, -(g+1); a rest is its
// own, and region 0 or a region not defined goes to "other" (0).
func (t *groupTable) rest(r int64) int64 {
	if r <= 0 || t == nil {
		return min(r, 0)
	}
	if r >= int64(len(t.of)) {
		t.update()
	}
	if r < int64(len(t.of)) {
		return -int64(t.of[r]) - 1
	}
	return 0
}

// occupy attributes [a, b) of location l to region r.
func (m *mixer) occupy(l model.LocID, r model.RegionID, a, b model.Time) {
	if m.fixed {
		a, b = max(a, m.from), min(b, m.to)
	}
	a = max(a, m.start)
	if b <= a {
		return
	}
	cb := m.col(b - 1)
	ca := m.col(a)
	row := m.row(l)
	for row >= len(m.rows) {
		m.rows = append(m.rows, nil)
	}
	if m.rows[row] == nil {
		m.rows[row] = make([][]mixSlot, m.cols)
	}
	cells := m.rows[row]
	for c := ca; c <= cb; c++ {
		lo := max(a, m.start+model.Time(c)*m.width)
		hi := min(b, m.start+model.Time(c+1)*m.width)
		if hi > lo {
			cells[c] = addSlot(cells[c], int64(r), hi-lo, m.groups)
		}
	}
}

func (m *mixer) loc(l model.LocID) *mixLoc {
	for int(l) >= len(m.locs) {
		m.locs = append(m.locs, mixLoc{})
	}
	return &m.locs[l]
}

// add takes the next event, as export.Timeline.Add does: a Leave ends the
// innermost open region, a CollEnd the innermost open collective. In a
// window, a Leave (or CollEnd) with nothing open to end is a region
// entered before the window: the time since the last event, and the times
// before with nothing open, were that region's.
func (m *mixer) add(ev *model.Event) {
	if !m.started {
		m.start, m.started = ev.Time, true
	}
	if ev.Time > m.last {
		m.last = ev.Time
	}
	l := m.loc(ev.Loc)
	if l.seen && ev.Time > l.last {
		if n := len(l.stack); n > 0 {
			m.occupy(ev.Loc, l.stack[n-1].region, l.last, ev.Time)
		} else if m.fixed && len(l.pending) < 1<<12 {
			if k := len(l.pending); k > 0 && l.pending[k-1].b == l.last {
				l.pending[k-1].b = ev.Time
			} else {
				l.pending = append(l.pending, span{l.last, ev.Time})
			}
		}
	}
	if !l.seen && m.fixed && ev.Time > m.from {
		l.pending = append(l.pending, span{m.from, ev.Time})
	}
	if !l.seen || ev.Time > l.last {
		l.last, l.seen = ev.Time, true
	}
	if l.open(ev) {
		return
	}
	if ev.Kind == model.KindLeave || ev.Kind == model.KindCollEnd {
		coll := ev.Kind == model.KindCollEnd
		if i := l.closes(coll); i >= 0 {
			l.stack = l.stack[:i]
		} else if len(l.stack) == 0 && m.fixed && ev.Region != 0 {
			for _, p := range l.pending {
				m.occupy(ev.Loc, ev.Region, p.a, p.b)
			}
			l.pending = l.pending[:0]
			l.early = append(l.early, earlySlice{region: ev.Region, end: ev.Time, coll: coll})
		}
	}
}

// finish returns the mix; the regions still open are open to the
// window's end, or to the last event without a window.
func (m *mixer) finish() *mixData {
	end := m.last
	if m.fixed {
		end = m.to
	}
	for i := range m.locs {
		l := &m.locs[i]
		if n := len(l.stack); n > 0 && end > l.last {
			m.occupy(model.LocID(i), l.stack[n-1].region, l.last, end)
		}
	}
	d := &mixData{Start: m.start, ColWidth: m.width, Columns: m.cols}
	n := m.defs.NumLocations()
	for r := 1; (r-1)*m.rowSize < n; r++ {
		d.RowLocs = append(d.RowLocs, min(m.rowSize, n-(r-1)*m.rowSize))
	}
	mc := &mixCells{d: d}
	for row, cells := range m.rows {
		if row == 0 || row > len(d.RowLocs) {
			continue
		}
		full := int64(m.width) * int64(d.RowLocs[row-1])
		mc.prev = nil
		for c := 0; c < len(cells); c++ {
			mc.add(row, c, cells[c], full)
		}
	}
	return d
}

// mixCells builds a mixData's cells, a row's columns in order: runs of
// one arena (a cell's slice stays valid where the arena grows past it).
type mixCells struct {
	d       *mixData
	arena   []int64
	scratch []mixSlot
	prev    []int64 // the row's last run; nil at a row's start
}

// add adds column c of row row, the slots cell of full ticks (the
// column's width times the row's locations): to the row's last run if
// it has the same shares.
func (b *mixCells) add(row, c int, cell []mixSlot, full int64) {
	a := len(b.arena)
	b.arena = append(b.arena, int64(row), int64(c), 1)
	b.arena, b.scratch = appendShares(b.arena, b.scratch, cell, full)
	mix := b.arena[a+3:]
	if len(mix) == 0 {
		b.arena, b.prev = b.arena[:a], nil
		return
	}
	if b.prev != nil && slices.Equal(b.prev[3:], mix) {
		b.prev[2]++
		b.arena = b.arena[:a]
		return
	}
	b.prev = b.arena[a:len(b.arena):len(b.arena)]
	b.d.Cells = append(b.d.Cells, b.prev)
}

// appendShares appends to out the cell's regions (and rests) and their
// thousandths of full, by region id (the rests first), leaving out
// regions of less than half a thousandth but keeping the region of most
// time always; nothing for an empty cell. It sorts a copy of cell in
// scratch, and returns out and scratch.
func appendShares(out []int64, scratch, cell []mixSlot, full int64) ([]int64, []mixSlot) {
	if len(cell) == 0 || full <= 0 {
		return out, scratch
	}
	s := append(scratch[:0], cell...)
	slices.SortFunc(s, func(a, b mixSlot) int { return cmp.Compare(a.region, b.region) })
	best := 0
	for i := range s {
		if s[i].ticks > s[best].ticks {
			best = i
		}
	}
	for i, x := range s {
		v := (int64(x.ticks)*1000 + full/2) / full
		if v == 0 && i == best {
			v = 1
		}
		if v > 0 {
			out = append(out, int64(x.region), min(v, 1000))
		}
	}
	return out, s
}

// clipDetail adds to the detail the regions entered before the window and
// left in it (from the window's start), extends the regions still open at
// the end to the window's end, and gives every slice of a location its
// depth under the regions entered before the window that were still open.
// It does nothing without a window. (The detail's slices are on
// locations also where the timeline groups them into rows.)
func (m *mixer) clipDetail(det *export.TimelineDetail, last model.Time) {
	if det == nil || !m.fixed {
		return
	}
	// Depth under the early regions of l still open at time t.
	outer := func(l model.LocID, t model.Time) int {
		if int(l) >= len(m.locs) {
			return 0
		}
		n := 0
		for _, e := range m.locs[l].early {
			if e.end > t {
				n++
			}
		}
		return n
	}
	for i := range det.Slices {
		s := &det.Slices[i]
		if k := int(s.Loc); k < len(m.locs) {
			// Still open at the end: the Timeline closed it at the last event.
			if s.End == last && last < m.to {
				for _, o := range m.locs[k].stack {
					if o.region == s.Region && o.start == s.Start {
						s.End = m.to
					}
				}
			}
		}
		s.Depth += outer(s.Loc, s.Start)
	}
	for i := range m.locs {
		early := m.locs[i].early
		for j, e := range early {
			det.Slices = append(det.Slices, export.Slice{Loc: model.LocID(i), Region: e.region, Start: m.from, End: e.end,
				Depth: len(early) - 1 - j, Coll: e.coll})
		}
	}
}

// regionGroup is a function group of the page: regions of one group share
// a hue, each region a shade of it.
type regionGroup struct {
	Name string `json:"name"`
	Kind string `json:"kind"` // mpi, openmp, io, application, other (a trace's own group)
}

// groupsOf returns the groups of the regions of defs and each region's
// group, indexed by RegionID (index 0 unused). A region in a function
// group of the trace (OTF, OTF2) is in that group, named as the trace
// names it, and classed by its paradigm, or by the group's name when the
// paradigm is not known; a region without one is in MPI, OpenMP, I/O or
// application by its paradigm or, where the format does not say, its name.
func groupsOf(defs *model.Defs) ([]regionGroup, []int) {
	t := newGroupTable(defs)
	return t.groups, t.of
}

// kindOf classes a region: its paradigm, or where the format does not
// say, its group's name or its own.
func kindOf(r *model.Region) string {
	switch r.Paradigm {
	case model.ParadigmMPI:
		return "mpi"
	case model.ParadigmOpenMP:
		return "openmp"
	case model.ParadigmIO:
		return "io"
	case model.ParadigmUser:
		return "application"
	case model.ParadigmThreads:
		return "threads"
	case model.ParadigmAccelerator:
		return "accelerator"
	case model.ParadigmMeasurement:
		return "measurement"
	case model.ParadigmOther:
		return "other"
	}
	if r.MPI() {
		return "mpi"
	}
	for _, s := range []string{strings.ToLower(r.Group), strings.ToLower(r.Name)} {
		switch {
		case strings.HasPrefix(s, "mpi"):
			return "mpi"
		case strings.HasPrefix(s, "omp") || strings.HasPrefix(s, "$omp") || strings.HasPrefix(s, "!$omp") || strings.Contains(s, "openmp"):
			return "openmp"
		case s == "io" || s == "i/o" || s == "posix_io" || s == "file" || slices.Contains(ioNames, s):
			return "io"
		}
	}
	return "application"
}

// ioNames are the POSIX and ISO C file calls a region of unknown paradigm
// may be named after.
var ioNames = []string{"open", "close", "read", "write", "pread", "pwrite", "lseek", "fopen", "fclose", "fread", "fwrite",
	"fseek", "fflush", "fsync", "readv", "writev", "open64", "pread64", "pwrite64", "lseek64"}
