package export

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/hpctrace/hpctrace/model"
)

// TimelineOptions configures a [Timeline]. A nil value means defaults.
type TimelineOptions struct {
	// Columns is the number of time columns of the aggregated timeline
	// (its width in pixels). 0 means 1200.
	Columns int
	// From and To, when To > From, fix the window the timeline covers;
	// events outside it are not drawn. Otherwise the timeline covers the
	// whole trace and its columns widen as the trace goes on.
	From, To model.Time
	// MaxDetail bounds the slices and messages kept in full detail. Past
	// it the detail is dropped (TimelineData.Detail is nil) and only the
	// aggregate remains. 0 means 20000; a negative value keeps none.
	MaxDetail int
	// MaxBundles bounds the aggregated message lines. 0 means 20000.
	MaxBundles int
	// MaxRows bounds the rows of the timeline. A trace of more locations
	// groups them: consecutive locations (by id), as many to a row as
	// needed, share a row whose cells hold the region that occupied most
	// of the column over all of them (the detail keeps each slice's and
	// message's locations). 0 means a row per location.
	MaxRows int
}

// Timeline aggregates a stream of events into a space-time diagram at a
// fixed resolution, in one pass: for each location and time column, the
// region that occupied most of the column (the innermost open region;
// collectives count as their operation) and the number of messages sent;
// and the message lines between columns, bundled by (sender, receiver,
// send column, receive column). Up to a bound it also keeps every slice
// and message in full detail, so that a small trace or a chosen window
// can be drawn exactly.
//
// Without a window, the first event's time is the left edge and the
// columns double in width (merging in pairs) whenever an event falls
// beyond the last one. Each cell keeps its 3 largest
// regions, so the dominant region of a column where more regions share
// the time is approximate.
//
// Memory grows with the rows times the columns, the locations times
// their nesting depth and the bounds on bundles and detail, not with the
// number of events.
type Timeline struct {
	defs       *model.Defs
	cols       int
	start      model.Time
	width      model.Time // ticks per column
	fixed      bool       // a window: start and width do not change
	from, to   model.Time
	started    bool
	last       model.Time
	locs       []tlLoc // index = LocID
	rowSize    int     // locations per row: 1, or more with MaxRows
	rows       [][]tlCell
	bundles    map[bundleKey]*Bundle
	maxBundles int
	lostLines  int64
	pairer     *Pairer
	emit       func(*MessageRow) error // t.message, bound once
	maxDetail  int
	detail     *TimelineDetail
}

// timelineSlots is the number of regions a timeline cell keeps.
const timelineSlots = 3

type tlSlot struct {
	region model.RegionID
	ticks  model.Time
}

type tlCell struct {
	slots [timelineSlots]tlSlot
	msgs  int32
}

type tlOpen struct {
	region model.RegionID
	coll   bool
	start  model.Time
	comm   model.CommID
}

type tlLoc struct {
	stack []tlOpen
	last  model.Time
	seen  bool
}

type bundleKey struct {
	from, to       model.LocID
	fromCol, toCol int32
}

// TimelineData is the result of a [Timeline], ready to be marshalled to
// JSON for a viewer. Times are ticks; TicksPerSecond converts them.
//
// The location ids of Cells, Bundles and Detail are named loc_id,
// from_id and to_id in JSON, as every output of the SDK names a
// [model.LocID]. With RowSize 1, every location has its row, the ids are
// model ids and Locations names them for a person. With RowSize n > 1,
// locations 1..n share row 1, n+1..2n row 2, and so on: the ids of Cells
// and Bundles are rows, and Locations names the rows ("ranks a–b", by the
// locations' native ids); those of Detail stay model ids (location l is
// on row 1 + (l-1)/n), so that a viewer can draw a row's locations apart.
type TimelineData struct {
	TicksPerSecond uint64           `json:"ticks_per_second"`
	Start          model.Time       `json:"start"`     // left edge of column 0
	ColWidth       model.Time       `json:"col_width"` // ticks per column
	Columns        int              `json:"columns"`
	End            model.Time       `json:"end"`        // the last time seen (or the window's end)
	Locations      []string         `json:"locations"`  // index = LocID - 1, or row - 1 (RowSize > 1)
	RowSize        int              `json:"row_size"`   // locations per row: 1, or more past TimelineOptions.MaxRows
	Regions        []TimelineRegion `json:"regions"`    // index = RegionID - 1
	Cells          []Cell           `json:"cells"`      // runs of columns with one dominant region
	Bundles        []Bundle         `json:"bundles"`    // message lines between columns
	LostLines      int64            `json:"lost_lines"` // messages beyond MaxBundles bundles
	Detail         *TimelineDetail  `json:"detail"`     // nil when past MaxDetail
}

// TimelineRegion names a region and its kind.
type TimelineRegion struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
}

// Cell is a run of columns of one location whose dominant region is the
// same: Loc and Region are model ids (Region 0: nothing open), Col the
// first column, Span the number of columns, Msgs the messages sent in them.
type Cell struct {
	Loc    model.LocID    `json:"loc_id"`
	Col    int            `json:"col"`
	Span   int            `json:"span"`
	Region model.RegionID `json:"region"`
	Msgs   int64          `json:"msgs"`
}

// Bundle is the messages from one location and column to another.
type Bundle struct {
	From    model.LocID `json:"from_id"`
	To      model.LocID `json:"to_id"`
	FromCol int         `json:"from_col"`
	ToCol   int         `json:"to_col"`
	Count   int64       `json:"count"`
	Bytes   int64       `json:"bytes"`
}

// TimelineDetail holds every slice and message of the timeline's window.
type TimelineDetail struct {
	Slices   []Slice   `json:"slices"`
	Messages []Message `json:"messages"`
}

// Slice is one region instance, or one collective operation (Coll, with
// its communicator's name), at nesting Depth (0 outermost).
type Slice struct {
	Loc    model.LocID    `json:"loc_id"`
	Region model.RegionID `json:"region"`
	Start  model.Time     `json:"start"`
	End    model.Time     `json:"end"`
	Depth  int            `json:"depth"`
	Coll   bool           `json:"coll,omitempty"`
	Comm   string         `json:"comm,omitempty"`
}

// Message is one message with both ends.
type Message struct {
	From  model.LocID `json:"from_id"`
	To    model.LocID `json:"to_id"`
	Send  model.Time  `json:"send"`
	Recv  model.Time  `json:"recv"`
	Bytes int64       `json:"bytes"`
	Tag   int32       `json:"tag"`
}

// NewTimeline returns an empty timeline for events whose definitions are
// defs.
func NewTimeline(defs *model.Defs, opts *TimelineOptions) *Timeline {
	var o TimelineOptions
	if opts != nil {
		o = *opts
	}
	if o.Columns <= 0 {
		o.Columns = 1200
	}
	if o.MaxDetail == 0 {
		o.MaxDetail = 20000
	}
	if o.MaxBundles <= 0 {
		o.MaxBundles = 20000
	}
	t := &Timeline{defs: defs, cols: o.Columns, width: 1, bundles: make(map[bundleKey]*Bundle),
		maxBundles: o.MaxBundles, pairer: NewPairer(defs, nil), maxDetail: o.MaxDetail, rowSize: 1}
	if n := defs.NumLocations(); o.MaxRows > 0 && n > o.MaxRows {
		t.rowSize = (n + o.MaxRows - 1) / o.MaxRows
	}
	if o.To > o.From {
		t.fixed, t.from, t.to, t.start, t.started = true, o.From, o.To, o.From, true
		t.width = max((o.To-o.From+model.Time(o.Columns)-1)/model.Time(o.Columns), 1)
	}
	if o.MaxDetail > 0 {
		t.detail = &TimelineDetail{}
	}
	t.emit = t.message
	return t
}

// inWindow reports whether [a, b] meets the window (always without one).
func (t *Timeline) inWindow(a, b model.Time) bool {
	return !t.fixed || (b >= t.from && a <= t.to)
}

// col returns the column of time x, widening the columns to reach it
// when there is no window; ok is false for a time outside the window.
func (t *Timeline) col(x model.Time) (int, bool) {
	if x < t.start {
		return 0, !t.fixed
	}
	c := (x - t.start) / t.width
	if c >= model.Time(t.cols) {
		if t.fixed {
			return t.cols - 1, false
		}
		for c >= model.Time(t.cols) {
			t.widen()
			c = (x - t.start) / t.width
		}
	}
	return int(c), true
}

// widen doubles the width of the columns, merging them in pairs.
func (t *Timeline) widen() {
	t.width *= 2
	for _, cells := range t.rows {
		if cells == nil {
			continue
		}
		for c := 0; c < t.cols; c++ {
			var m tlCell
			for _, src := range cells[min(2*c, t.cols):min(2*c+2, t.cols)] {
				m.msgs += src.msgs
				for _, s := range src.slots {
					m.add(s.region, s.ticks)
				}
			}
			cells[c] = m
		}
	}
	old := t.bundles
	t.bundles = make(map[bundleKey]*Bundle, len(old))
	for k, b := range old {
		k.fromCol /= 2
		k.toCol /= 2
		if nb := t.bundles[k]; nb != nil {
			nb.Count += b.Count
			nb.Bytes += b.Bytes
		} else {
			b.FromCol, b.ToCol = int(k.fromCol), int(k.toCol)
			t.bundles[k] = b
		}
	}
}

// add adds ticks of region r to the cell, keeping the largest regions.
func (c *tlCell) add(r model.RegionID, d model.Time) {
	if d <= 0 {
		return
	}
	small := 0
	for i := range c.slots {
		s := &c.slots[i]
		if s.region == r && s.ticks > 0 {
			s.ticks += d
			return
		}
		if s.ticks < c.slots[small].ticks {
			small = i
		}
	}
	if c.slots[small].ticks < d {
		c.slots[small] = tlSlot{r, d}
	}
}

func (t *Timeline) loc(l model.LocID) *tlLoc {
	for int(l) >= len(t.locs) {
		t.locs = append(t.locs, tlLoc{})
	}
	return &t.locs[l]
}

// row returns the row of location l: l itself, or with grouped rows
// 1 + (l-1)/rowSize (0 for location 0).
func (t *Timeline) row(l model.LocID) model.LocID {
	if t.rowSize == 1 || l == 0 {
		return l
	}
	return 1 + (l-1)/model.LocID(t.rowSize)
}

// cells returns the cells of location l's row, allocating them.
func (t *Timeline) cells(l model.LocID) []tlCell {
	r := int(t.row(l))
	for r >= len(t.rows) {
		t.rows = append(t.rows, nil)
	}
	if t.rows[r] == nil {
		t.rows[r] = make([]tlCell, t.cols)
	}
	return t.rows[r]
}

// rowLabel names row r of grouped rows by its locations' native ids.
func (t *Timeline) rowLabel(r int) string {
	first := model.LocID((r-1)*t.rowSize + 1)
	last := min(first+model.LocID(t.rowSize)-1, model.LocID(t.defs.NumLocations()))
	a, _ := t.defs.Location(first)
	b, _ := t.defs.Location(last)
	return "ranks " + strconv.FormatInt(a.Native, 10) + "–" + strconv.FormatInt(b.Native, 10)
}

// occupy attributes [a, b) of location id to region r.
func (t *Timeline) occupy(id model.LocID, r model.RegionID, a, b model.Time) {
	if t.fixed {
		a, b = max(a, t.from), min(b, t.to)
	}
	if b <= a {
		return
	}
	cb, _ := t.col(b - 1) // first: it may widen the columns
	ca, _ := t.col(a)
	cells := t.cells(id)
	for c := ca; c <= cb; c++ {
		lo := max(a, t.start+model.Time(c)*t.width)
		hi := min(b, t.start+model.Time(c+1)*t.width)
		cells[c].add(r, hi-lo)
	}
}

// Add takes the next event of the stream.
func (t *Timeline) Add(ev *model.Event) {
	if !t.started {
		t.start, t.started = ev.Time, true
	}
	if ev.Time > t.last {
		t.last = ev.Time
	}
	l := t.loc(ev.Loc)
	if l.seen && len(l.stack) > 0 && ev.Time > l.last {
		t.occupy(ev.Loc, l.stack[len(l.stack)-1].region, l.last, ev.Time)
	}
	if !l.seen || ev.Time > l.last {
		l.last, l.seen = ev.Time, true
	}
	switch ev.Kind {
	case model.KindEnter:
		if ev.Region != 0 {
			l.stack = append(l.stack, tlOpen{region: ev.Region, start: ev.Time})
		}
	case model.KindCollBegin:
		l.stack = append(l.stack, tlOpen{region: ev.Region, start: ev.Time, coll: true, comm: ev.Comm})
	case model.KindLeave, model.KindCollEnd:
		// A Leave ends the innermost open region, whatever region it
		// names (model.ClassifyLeave), a CollEnd the innermost open
		// collective; either ends what is still open inside it.
		coll := ev.Kind == model.KindCollEnd
		i := len(l.stack) - 1
		for i >= 0 && l.stack[i].coll != coll {
			i--
		}
		if i >= 0 {
			for j := len(l.stack) - 1; j >= i; j-- {
				t.slice(ev.Loc, j, l.stack[j], ev.Time)
			}
			l.stack = l.stack[:i]
		}
	case model.KindSend:
		if c, ok := t.col(ev.Time); ok {
			t.cells(ev.Loc)[c].msgs++
		}
	}
	t.pairer.Add(ev, t.emit)
}

// slice records a closed region instance in the detail.
func (t *Timeline) slice(loc model.LocID, depth int, o tlOpen, end model.Time) {
	if t.detail == nil || !t.inWindow(o.start, end) {
		return
	}
	if len(t.detail.Slices)+len(t.detail.Messages) >= t.maxDetail {
		t.detail = nil
		return
	}
	s := Slice{Loc: loc, Region: o.region, Start: o.start, End: end, Depth: depth, Coll: o.coll}
	if o.coll {
		s.Comm = commName(t.defs, o.comm)
	}
	t.detail.Slices = append(t.detail.Slices, s)
}

// message records a paired message as a line bundle and in the detail.
func (t *Timeline) message(m *MessageRow) error {
	if m.Status != "matched" {
		return nil
	}
	send, recv := model.Time(m.SendTime), model.Time(m.RecvTime)
	if !t.inWindow(min(send, recv), max(send, recv)) {
		return nil
	}
	if t.detail != nil {
		if len(t.detail.Slices)+len(t.detail.Messages) >= t.maxDetail {
			t.detail = nil
		} else {
			t.detail.Messages = append(t.detail.Messages, Message{From: model.LocID(m.Sender), To: model.LocID(m.Receiver),
				Send: send, Recv: recv, Bytes: m.Bytes, Tag: m.Tag})
		}
	}
	t.col(max(send, recv)) // first: it may widen the columns
	cs, _ := t.col(send)
	cr, _ := t.col(recv)
	k := bundleKey{t.row(model.LocID(m.Sender)), t.row(model.LocID(m.Receiver)), int32(cs), int32(cr)}
	b := t.bundles[k]
	if b == nil {
		if len(t.bundles) >= t.maxBundles {
			t.lostLines++
			return nil
		}
		b = &Bundle{From: k.from, To: k.to, FromCol: cs, ToCol: cr}
		t.bundles[k] = b
	}
	b.Count++
	b.Bytes += m.Bytes
	return nil
}

// Finish closes the regions still open at the last time seen and returns
// the timeline.
func (t *Timeline) Finish() *TimelineData {
	for i := range t.locs {
		l := &t.locs[i]
		for j := len(l.stack) - 1; j >= 0; j-- {
			if t.last > l.last {
				t.occupy(model.LocID(i), l.stack[j].region, l.last, t.last)
				l.last = t.last
			}
			t.slice(model.LocID(i), j, l.stack[j], t.last)
		}
		l.stack = l.stack[:0]
	}
	d := &TimelineData{TicksPerSecond: t.defs.TimeBase.TicksPerSecond, Start: t.start, ColWidth: t.width, Columns: t.cols,
		End: t.last, LostLines: t.lostLines, Detail: t.detail, RowSize: t.rowSize}
	if t.fixed {
		d.End = t.to
	}
	d.Locations = t.rowNames()
	for _, r := range t.defs.Regions() {
		d.Regions = append(d.Regions, TimelineRegion{Name: t.defs.RegionName(r.ID), Kind: r.Kind.String()})
	}
	for i, cells := range t.rows {
		for c := 0; c < len(cells); {
			r := cells[c].dominant()
			run := Cell{Loc: model.LocID(i), Col: c, Region: r}
			for c < len(cells) && cells[c].dominant() == r {
				run.Msgs += int64(cells[c].msgs)
				c++
			}
			run.Span = c - run.Col
			if r != 0 || run.Msgs != 0 {
				d.Cells = append(d.Cells, run)
			}
		}
	}
	for _, b := range t.bundles {
		d.Bundles = append(d.Bundles, *b)
	}
	slices.SortFunc(d.Bundles, func(a, b Bundle) int {
		return cmp.Or(cmp.Compare(a.FromCol, b.FromCol), cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To), cmp.Compare(a.ToCol, b.ToCol))
	})
	return d
}

// dominant returns the region with the most ticks in the cell (0 if none).
func (c *tlCell) dominant() model.RegionID {
	best := tlSlot{}
	for _, s := range c.slots {
		if s.ticks > best.ticks || (s.ticks == best.ticks && s.ticks > 0 && s.region < best.region) {
			best = s
		}
	}
	return best.region
}

// rowNames returns the names of the rows: the locations', or with grouped
// rows their ranges.
func (t *Timeline) rowNames() []string {
	var names []string
	if t.rowSize == 1 {
		for _, l := range t.defs.Locations() {
			names = append(names, t.defs.LocationName(l.ID))
		}
		return names
	}
	rows := (t.defs.NumLocations() + t.rowSize - 1) / t.rowSize
	for r := 1; r <= rows; r++ {
		names = append(names, t.rowLabel(r))
	}
	return names
}
