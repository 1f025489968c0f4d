package stats

import (
	"cmp"
	"math"
	"slices"

	"github.com/hpctrace/hpctrace/model"
)

// Diagnostics counts structural problems found in the input. A report with
// non-zero diagnostics is still valid. All counts merge by sum.
type Diagnostics struct {
	// MatchedMessages counts the sends matched with their receive.
	MatchedMessages int64 `json:"matched_messages"`
	// UnmatchedSend and UnmatchedRecv count the sends and receives left
	// without a partner.
	UnmatchedSend int64 `json:"unmatched_send"`
	UnmatchedRecv int64 `json:"unmatched_recv"`
	// PendingEvicted counts the message ends settled as unmatched, oldest
	// first, because more than Options.MaxPending waited for a partner.
	PendingEvicted int64 `json:"pending_evicted,omitempty"`
	// UnknownPeer counts the sends and receives without a known partner
	// (Peer 0, as on a DUMPI communicator of unknown membership). They are
	// also counted in UnmatchedSend and UnmatchedRecv, settled at once
	// (never kept waiting for a partner), and left out of the
	// communication matrices and transfer times; their COM records have
	// PeerID 0 and Peer -1.
	UnknownPeer int64 `json:"unknown_peer,omitempty"`
	// LeaveRegionMismatch counts the Leaves that name another region than
	// the innermost one open on their location. A Leave closes that
	// innermost instance whatever region it names (model.ClassifyLeave),
	// so these are closed all the same: APEX renames a task after its
	// Enter and names the new name in the Leave.
	LeaveRegionMismatch int64 `json:"leave_region_mismatch,omitempty"`
	// UnmatchedLeave counts the Leaves with no region open on their
	// location; they are ignored.
	UnmatchedLeave int64 `json:"unmatched_leave,omitempty"`
	// OpenAtEnd counts the regions still open at the end, closed at their
	// location's last time.
	OpenAtEnd int64 `json:"open_at_end,omitempty"`
	// OpenCollectives counts the collective instances incomplete at the end.
	OpenCollectives int64 `json:"open_collectives,omitempty"`
	// HeldCollectives counts the collective instances on communicators
	// whose definition lists no members (or on no defined communicator):
	// which locations take part is known only when every location has
	// been read, so their members' calls are kept until the end of the
	// stream. The memory they take grows with these calls (tens of bytes
	// each), not only with the collectives in flight.
	HeldCollectives int64 `json:"held_collectives,omitempty"`
	// UnmatchedCollEnd counts the CollEnds without a CollBegin open on
	// their location; they are ignored.
	UnmatchedCollEnd int64 `json:"unmatched_coll_end,omitempty"`
	// NonMonotonic counts the events earlier than the previous one of their
	// location; their time is used as is and durations are clamped to 0.
	NonMonotonic int64 `json:"non_monotonic,omitempty"`
	// Backward counts the matched messages received no later than sent;
	// they are left out of the transfer times.
	Backward int64 `json:"backward,omitempty"`
	// VClockClamped and TraceLost are not counted by the Accumulator: the
	// caller sets them from its VClock (VClock.Clamped) and from its reader
	// (events the tracer lost).
	VClockClamped int64 `json:"vclock_clamped,omitempty"`
	TraceLost     int64 `json:"trace_lost,omitempty"`
	// Ignored counts the events not analysed: those with an undefined
	// location or region, Enters of region 0, samples of undefined
	// counters and kinds not defined by package model. RecvPost, SendDone,
	// ProgramBegin, ProgramEnd and Parameter events are known and not
	// counted, though no statistic of the profile uses them (a non-blocking
	// message counts at its Send and its Recv, like a blocking one).
	Ignored int64 `json:"ignored,omitempty"`
	// Overflow counts the int64 sums that would have overflowed; they
	// saturate instead.
	Overflow int64 `json:"overflow,omitempty"`
}

func (d *Diagnostics) add(o *Diagnostics) {
	d.MatchedMessages += o.MatchedMessages
	d.UnmatchedSend += o.UnmatchedSend
	d.UnmatchedRecv += o.UnmatchedRecv
	d.PendingEvicted += o.PendingEvicted
	d.UnknownPeer += o.UnknownPeer
	d.LeaveRegionMismatch += o.LeaveRegionMismatch
	d.UnmatchedLeave += o.UnmatchedLeave
	d.OpenAtEnd += o.OpenAtEnd
	d.OpenCollectives += o.OpenCollectives
	d.HeldCollectives += o.HeldCollectives
	d.UnmatchedCollEnd += o.UnmatchedCollEnd
	d.NonMonotonic += o.NonMonotonic
	d.Backward += o.Backward
	d.VClockClamped += o.VClockClamped
	d.TraceLost += o.TraceLost
	d.Ignored += o.Ignored
	d.Overflow += o.Overflow
}

// funcStat is the raw flat-profile accumulator of one (location, region).
type funcStat struct {
	visits, incl, excl, actSum int64
	min, max                   int64
	closed                     int64 // closed instances (min and max are valid when > 0)
	// open counts the open instances, for the outermost-union Incl: the
	// outermost one, whose Enter time its frame keeps, is closed last.
	open int32
	// The edge of the last Enter of this region, a cache in front of
	// Accumulator.eidx: regions are mostly entered from the same site.
	// While eidx is soleEdge, every call of the region on its location
	// came from this edge, which has no entry in Accumulator.edges: its
	// statistics are the region's own (see soleStat). A trace of many
	// locations has a region or two per location, each called from one
	// site, and this saves their edges, their keys and their index.
	ecaller model.RegionID
	esite   model.SiteID
	eidx    int32 // edge index + 1; 0 = no edge; soleEdge
}

// soleEdge is funcStat.eidx, and frame.edge, for a region's sole edge.
const soleEdge = -1

// soleStat returns the statistics of the sole edge of fs (eidx soleEdge):
// the region's own, as every call of it came from that edge.
func (fs *funcStat) soleStat() edgeStat {
	return edgeStat{count: fs.closed, incl: fs.actSum, excl: fs.excl, min: fs.min, max: fs.max}
}

// explicit gives the sole edge of region r (fs) on location loc (ls) its
// entry in edges: r is now called from another edge. The open frames of
// the edge are pointed at the entry.
func (a *Accumulator) explicit(loc model.LocID, ls *locState, r model.RegionID, fs *funcStat) {
	ei := a.eidx.add(edgeKey{loc, fs.ecaller, fs.esite, r})
	a.edges = append(a.edges, fs.soleStat())
	fs.eidx = ei + 1
	for i := range ls.stack {
		if f := &ls.stack[i]; f.edge == soleEdge && f.region == r {
			f.edge = ei
		}
	}
}

func (fs *funcStat) inUse() bool { return fs.visits > 0 || fs.closed > 0 || fs.open > 0 }

type edgeKey struct {
	loc    model.LocID
	caller model.RegionID
	site   model.SiteID
	callee model.RegionID
}

type edgeStat struct {
	count, incl, excl, min, max int64
}

type frame struct {
	region model.RegionID
	site   model.SiteID
	caller model.RegionID
	enter  model.Time
	child  int64 // summed durations of closed direct children
	edge   int32 // index into Accumulator.edges, or soleEdge
	op     int32 // index into ops, -1 if no message endpoint uses this frame
	// rel has a bit per Options.Relative.RelativeTo entry that the frame counts toward.
	rel uint64
}

type collRef struct {
	inst   int32
	member int32
}

type locState struct {
	seen  bool
	first model.Time // time of the first event
	last  model.Time
	stack []frame
	funcs table[funcStat, *funcStat]
	// The open collective calls and the relative statistics, allocated
	// by the location's first event that uses them (more): a location of
	// a large run that calls no collective, without relative statistics, does
	// without them.
	*locMore

	// Caches in front of maps, allocated by the first location's event
	// that uses them: a location of a large run that sends no message
	// and calls no collective does without them.
	caches *locCaches
}

// locMore is the part of a location's state that its collective calls
// and the relative statistics fill.
type locMore struct {
	openCol []collRef // open collective calls; ended ones below the top are tombstones (inst endedRef)
	// The positions in openCol of the open calls with a match id, by id,
	// so that a coll_end finds its call without searching openCol.
	openMatch map[uint64][]int32
	rel       []relLoc // one per Options.Relative.RelativeTo entry
}

// more returns the location's locMore, allocating it.
func (ls *locState) more() *locMore {
	if ls.locMore == nil {
		ls.locMore = new(locMore)
	}
	return ls.locMore
}

// relLocs returns the location's relative statistics, nil if it has none.
func (ls *locState) relLocs() []relLoc {
	if ls.locMore == nil {
		return nil
	}
	return ls.rel
}

// locCaches are a location's caches in front of the collective sequence
// and statistics maps and the COM map.
type locCaches struct {
	lastSeq struct {
		comm model.CommID
		n    *uint64
	}
	lastColl struct {
		k collStatKey
		s *collStat
	}
	// The COM records of the location's last operations, by direction,
	// two of each (an operation with two ends, as a stencil's Waitall
	// on its two neighbours, alternates between two records), and the
	// entry of each direction that the next miss replaces.
	lastCom [2]comCaches
	comNext [2]uint8
	// The cells of the last two pairs the location sent on, newest first
	// (Accumulator.addChan).
	lastPair [2]pairCells
}

// cache returns the location's caches, allocating them.
func (ls *locState) cache() *locCaches {
	if ls.caches == nil {
		ls.caches = new(locCaches)
	}
	return ls.caches
}

// Accumulator computes the statistics of doc/stats.md from a stream of model
// events in one pass. The zero value is not usable; call New. An empty
// Accumulator is the identity of Merge.
//
// An Accumulator is not safe for concurrent use. Accumulators fed by
// different goroutines (one per shard) can be merged afterwards.
//
// Message ends that wait long for their partner (beyond the few thousand
// newest that wait) move, with the frame they occurred in, to a temporary
// file in Options.SpillDir (by default [os.TempDir]), whose name is
// removed as soon as it is made, and
// are read back when their partner comes or the stream ends: the memory
// of a run that leaves many ends unmatched stays flat, at the cost of a
// fixed-size record written per such end and read back once, and the
// file is as large as the most ends spilled at once. It is
// closed when the statistics are settled (FinalReport, FinalTextReport);
// an accumulator dropped before that leaves it to the garbage collector.
// If the file cannot be made or written, the ends stay in memory, and
// the statistics are the same. If it cannot be read back, the ends it
// held are lost: [Accumulator.Err] returns the error, and the statistics
// are incomplete.
type Accumulator struct {
	defs *model.Defs
	opts Options

	locs  []locState // indexed by LocID
	diag  Diagnostics
	edges []edgeStat
	eidx  edgeIndex // the edges' keys and positions

	ctrs     map[counterKey]*counterStat // counter samples by (location, counter)
	comm     commState
	coll     collState
	relRegID []model.RegionID // RegionID of each Options.Relative.RelativeTo entry (0 = whole trace)

	samples     []Sample
	nextSample  int
	periodic    bool
	periodsDone bool // the last period reaches the end of the time range
	nextPeriod  model.Time
	sampleDue   model.Time // Add calls sample at an event this late (setSampleDue)

	// The numbers of locations and regions defined when last looked at
	// (Accumulator.defined).
	nlocs, nregions int

	merged *Accumulator // settled statistics merged in from other accumulators
	closed bool         // frames closed for a saved state or Join; no more events
}

// New returns an empty accumulator for a trace with the given definitions.
// defs is used for names in the report and may grow while events are added.
// opts is copied; nil means defaults.
func New(defs *model.Defs, opts *Options) *Accumulator {
	if defs == nil {
		defs = new(model.Defs)
	}
	a := &Accumulator{defs: defs, opts: opts.withDefaults()}
	slices.Sort(a.opts.SampleTimes)
	a.opts.SampleTimes = slices.Compact(a.opts.SampleTimes)
	a.setSampleDue()
	a.comm.init()
	a.comm.sp.dir = a.opts.SpillDir
	a.coll.init()
	if p := cmp.Or(a.opts.Relative, defs.Relative); p != nil {
		a.opts.Relative = relativeDefaults(p)
		a.relRegID = make([]model.RegionID, len(a.opts.Relative.RelativeTo))
	}
	return a
}

// Err returns the first error of the accumulator's temporary file of
// waiting message ends: a record that could not be read back, whose
// message ends the statistics then lack. A program checks it before it
// trusts a report (Finalize, FinalReport, FinalTextReport); a saved
// state (MarshalBinary) fails with it. It is nil if the file never
// failed (or none was needed).
func (a *Accumulator) Err() error { return a.comm.sp.err }

func (a *Accumulator) loc(id model.LocID) *locState {
	if int(id) >= len(a.locs) {
		// At once as many as the definitions have, in one allocation: a
		// location's state is a few hundred bytes, and doubling would
		// leave the smaller copies behind as garbage.
		grown := make([]locState, max(int(id)+1, 2*len(a.locs), a.defs.NumLocations()+1))
		copy(grown, a.locs)
		a.locs = grown
	}
	return &a.locs[id]
}

func (ls *locState) fn(r model.RegionID) *funcStat {
	return ls.funcs.get(r)
}

// addSat adds v to *p, saturating and counting an overflow instead of wrapping.
func (a *Accumulator) addSat(p *int64, v int64) {
	s := *p + v
	// Overflow: *p and v of one sign, s of the other (one test on the
	// sign bit instead of four compares).
	if (s^*p)&(s^v) < 0 {
		a.diag.Overflow++
		if v > 0 {
			s = math.MaxInt64
		} else {
			s = math.MinInt64
		}
	}
	*p = s
}

// Add accounts one event. Events of one location must come in that
// location's order; statistics that combine locations (message matching,
// collective waits) need a time-merged stream. Add allocates only when it
// meets a new key (location, region, call site, channel …).
func (a *Accumulator) Add(ev *model.Event) {
	t := ev.Time
	if t >= a.sampleDue {
		a.sample(t)
	}
	// Ids must be defined before use (model.Source guarantees it); others
	// are ignored rather than trusted to size tables. The counts of
	// definitions seen last are checked first: the definitions only grow.
	if uint(ev.Loc-1) >= uint(a.nlocs) || uint(ev.Region) > uint(a.nregions) {
		if !a.defined(ev) {
			a.diag.Ignored++
			return
		}
	}
	ls := a.loc(ev.Loc)
	if ls.seen && t >= ls.last {
		ls.last = t
	} else {
		a.reorder(ls, t)
	}
	switch ev.Kind {
	case model.KindEnter:
		if ev.Region == 0 {
			a.diag.Ignored++
			return
		}
		a.enter(ev.Loc, ls, ev.Region, ev.Site, t)
	case model.KindLeave:
		a.leave(ev.Loc, ls, ev.Region, t)
	case model.KindMarker:
		if ev.Region != 0 {
			ls.fn(ev.Region).visits++
			if a.opts.Relative != nil {
				a.relMark(ls, ev.Region)
			}
		}
	case model.KindSend, model.KindRecv:
		a.message(ev, ls)
	case model.KindCollBegin:
		a.collBegin(ev, ls)
	case model.KindCollEnd:
		a.collEnd(ev, ls)
	case model.KindCounter:
		a.counter(ev)
	case model.KindRecvPost, model.KindSendDone, model.KindProgramBegin, model.KindProgramEnd, model.KindParameter, model.KindCollPost, model.KindCollDone:
		// known, and no statistic of the profile uses them
	default:
		a.diag.Ignored++
	}
}

// sample takes the samples due at time t (Options.SamplePeriod and
// SampleTimes) and sets sampleDue to the time the next one is.
func (a *Accumulator) sample(t model.Time) {
	if p := a.opts.SamplePeriod; p > 0 && !a.periodsDone {
		if !a.periodic {
			var ok bool
			a.periodic = true
			a.nextPeriod, ok = nextMultiple(t, p)
			a.periodsDone = !ok
		} else if t >= a.nextPeriod {
			// Sparse periods: the interval that held events is closed at
			// its boundary, and the boundaries of the stretch without
			// events up to t collapse into one (Options.SamplePeriod).
			a.samples = mergeSamples(a.samples, []Sample{a.Sample(a.nextPeriod)})
			if b := floorDiv(t, p) * p; b > a.nextPeriod {
				a.samples = mergeSamples(a.samples, []Sample{a.Sample(b)})
			}
			var ok bool
			a.nextPeriod, ok = nextMultiple(t, p)
			a.periodsDone = !ok
		}
	}
	for a.nextSample < len(a.opts.SampleTimes) && t >= a.opts.SampleTimes[a.nextSample] {
		a.samples = mergeSamples(a.samples, []Sample{a.Sample(a.opts.SampleTimes[a.nextSample])})
		a.nextSample++
	}
	a.setSampleDue()
}

// setSampleDue sets sampleDue to the earliest time at which Add must call
// sample: at once if the periods have not started, else the next period's
// boundary or sample time, the end of time if there is none.
func (a *Accumulator) setSampleDue() {
	due := model.Time(math.MaxInt64)
	if a.opts.SamplePeriod > 0 && !a.periodsDone {
		due = math.MinInt64
		if a.periodic {
			due = a.nextPeriod
		}
	}
	if a.nextSample < len(a.opts.SampleTimes) {
		due = min(due, a.opts.SampleTimes[a.nextSample])
	}
	a.sampleDue = due
}

// defined reports whether the location and region of ev are defined,
// taking the counts of definitions anew.
func (a *Accumulator) defined(ev *model.Event) bool {
	a.nlocs, a.nregions = a.defs.NumLocations(), a.defs.NumRegions()
	return ev.Loc != 0 && int(ev.Loc) <= a.nlocs && (ev.Region == 0 || int(ev.Region) <= a.nregions)
}

// reorder takes time t of an event of ls that is its first or earlier
// than its last.
func (a *Accumulator) reorder(ls *locState, t model.Time) {
	if !ls.seen {
		ls.seen = true
		ls.first, ls.last = t, t
		if a.opts.Relative != nil {
			a.relInit(ls)
		}
		return
	}
	a.diag.NonMonotonic++
}

func (a *Accumulator) enter(loc model.LocID, ls *locState, r model.RegionID, site model.SiteID, t model.Time) {
	var caller model.RegionID
	if n := len(ls.stack); n > 0 {
		caller = ls.stack[n-1].region
	}
	fs := ls.fn(r)
	var ei int32
	switch {
	case fs.eidx == 0:
		fs.ecaller, fs.esite, fs.eidx = caller, site, soleEdge
		ei = soleEdge
	case fs.ecaller == caller && fs.esite == site && fs.eidx == soleEdge:
		ei = soleEdge
	case fs.ecaller == caller && fs.esite == site:
		ei = fs.eidx - 1
	default:
		if fs.eidx == soleEdge {
			a.explicit(loc, ls, r, fs)
		}
		k := edgeKey{loc, caller, site, r}
		var ok bool
		ei, ok = a.eidx.find(k)
		if !ok {
			ei = a.eidx.add(k)
			a.edges = append(a.edges, edgeStat{})
		}
		fs.ecaller, fs.esite, fs.eidx = caller, site, ei+1
	}
	fs.visits++
	fs.open++
	var rel uint64
	if a.opts.Relative != nil {
		rel = a.relEnter(ls, r, t)
	}
	// The frame is filled in place, not copied in from a struct built
	// apart (see Accumulator.endpoint).
	ls.stack = append(ls.stack, frame{})
	f := &ls.stack[len(ls.stack)-1]
	f.region, f.site, f.caller, f.enter, f.edge, f.op, f.rel = r, site, caller, t, ei, -1, rel
}

// leave closes the innermost open frame of ls, whatever region r the
// Leave names (model.ClassifyLeave).
func (a *Accumulator) leave(loc model.LocID, ls *locState, r model.RegionID, t model.Time) {
	n := len(ls.stack)
	var top model.RegionID
	if n > 0 {
		top = ls.stack[n-1].region
	}
	switch model.ClassifyLeave(n, top, r) {
	case model.LeaveUnmatched:
		a.diag.UnmatchedLeave++
		return
	case model.LeaveMismatched:
		a.diag.LeaveRegionMismatch++
	}
	a.closeTop(loc, ls, t)
}

// closeTop closes the innermost open frame of ls at time t.
func (a *Accumulator) closeTop(loc model.LocID, ls *locState, t model.Time) {
	n := len(ls.stack) - 1
	f := &ls.stack[n]
	d := max(int64(t-f.enter), 0)
	excl := max(d-f.child, 0)
	fs := ls.fn(f.region)
	over := a.diag.Overflow
	a.addSat(&fs.actSum, d)
	a.addSat(&fs.excl, excl)
	if f.edge == soleEdge {
		// The sole edge's sums are these: their overflows count as the
		// edge's own too, as an entry's would.
		a.diag.Overflow += a.diag.Overflow - over
	}
	if fs.closed == 0 || d < fs.min {
		fs.min = d
	}
	if fs.closed == 0 || d > fs.max {
		fs.max = d
	}
	fs.closed++
	fs.open--
	if fs.open == 0 {
		// f is the region's outermost open instance (frames close
		// innermost first).
		a.addSat(&fs.incl, d)
	}
	if f.edge != soleEdge {
		e := &a.edges[f.edge]
		if e.count == 0 || d < e.min {
			e.min = d
		}
		if e.count == 0 || d > e.max {
			e.max = d
		}
		e.count++
		a.addSat(&e.incl, d)
		a.addSat(&e.excl, excl)
	}
	if a.opts.Relative != nil {
		a.relLeave(ls, f.region, f.rel, t)
	}
	if f.op >= 0 {
		a.comm.closeOp(a, f.op, t)
	}
	ls.stack = ls.stack[:n]
	if n > 0 {
		a.addSat(&ls.stack[n-1].child, d)
	}
}

func floorDiv(a, b model.Time) model.Time {
	q := a / b
	if (a%b != 0) && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// nextMultiple returns the least multiple of p above t; ok is false when it
// exceeds the time range (t is then in the last period, which never ends).
func nextMultiple(t, p model.Time) (next model.Time, ok bool) {
	q := floorDiv(t, p)
	if q < math.MinInt64/p { // q+1 == MinInt64/p
		return math.MinInt64 / p * p, true
	}
	if q >= math.MaxInt64/p {
		return 0, false
	}
	return (q + 1) * p, true
}
