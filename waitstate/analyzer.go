package waitstate

import (
	"slices"

	"github.com/hpctrace/hpctrace/model"
)

// Options configures an Analyzer. A nil or zero value means defaults.
type Options struct {
	// TopN is the number of instances kept per pattern in Report.Top;
	// 0 means 10, a negative value keeps none.
	TopN int
	// Instances asks for every instance in Report.Instances, as the
	// function Instances yields them, from the Analyzer fed in the
	// caller's own pass. They cost about 100 bytes each, held from
	// Finalize on. A saved state (MarshalBinary) does not carry it: the
	// Analyzer that decodes a state keeps its own setting.
	Instances bool
	// KeepLogs keeps every location's log of MPI calls until the end, as
	// MarshalBinary and Join need. Without it the Analyzer settles the
	// analysis of each stretch of the trace between collectives over
	// all locations that call MPI as the stream passes it (see the
	// package documentation), so that its memory does not grow with the
	// trace's length; MarshalBinary and Join then fail.
	KeepLogs bool
	// SpillDir is the directory of the temporary file in which a
	// settling Analyzer keeps what the backward passes of Finalize (the
	// critical path, the order of the delay costs) need of the settled
	// stretches; "" means os.TempDir(). Finalize removes the file.
	SpillDir string
	// Workers is the number of goroutines Finalize may use to analyse
	// the logs of an Analyzer that kept them (KeepLogs, or one joined
	// from shards): it cuts them where a settling Analyzer would settle
	// and analyses the stretches at once, with the report of one
	// goroutine. Afterwards the Analyzer is a settled one: MarshalBinary
	// and Join fail. 0 and 1 mean one goroutine, which keeps the logs.
	Workers int
}

func (o *Options) topN() int {
	switch {
	case o == nil || o.TopN == 0:
		return 10
	case o.TopN < 0:
		return 0
	}
	return o.TopN
}

// The operation of an MPI call, from its region name (classify) or, for
// a collective whose call is not a known MPI function, from the
// CollBegin event's Class.
const (
	opNone     uint8 = iota // a user region
	opOther                 // an MPI call of no pattern of its own (send, receive, wait, …)
	opTest                  // MPI_Test*: completes messages but has no wait state
	opBarrier               // MPI_Barrier, PICL sync0 (ClassBarrier)
	opNxN                   // all-to-all collectives
	opBcast                 // one-to-all collectives
	opReduce                // all-to-one collectives
	opScan                  // MPI_Scan, MPI_Exscan
	opInit                  // MPI_Init, MPI_Init_thread
	opFinalize              // MPI_Finalize
	opNBColl                // a non-blocking or neighbourhood collective: not analysed
)

// The kinds of a point-to-point log entry.
const (
	pSend uint8 = iota
	pRecv
	pPost
	pDone
)

// callRec is one MPI call instance of a location's log, 32 bytes: the
// call's region is its call path node's (Analyzer.nodes[cp].region).
type callRec struct {
	enter, leave   model.Time
	cp             uint32 // call path node of the call
	enterB, leaveB int32  // indexes of its Enter and Leave in the location's boundaries
	op             uint8
	open           bool // not left in the trace (closed at the location's last time)
}

// p2pRec is one point-to-point event of a location's log, in stream order.
type p2pRec struct {
	call  int32 // the innermost open MPI call; -1: none
	kind  uint8
	peer  model.LocID
	tag   int32
	comm  model.CommID
	match uint64 // request id (0: blocking)
	bytes int64
}

// collRec is one CollBegin of a location's log.
type collRec struct {
	call   int32 // the innermost open MPI call; -1: none
	comm   model.CommID
	root   model.LocID
	region model.RegionID // the CollBegin's region (0: none)
	class  model.Class
	seq    bool   // key is the per-(location, comm) sequence number
	key    uint64 // Match, or the sequence number
	sent   int64
	recvd  int64
}

// gapEnt is the exclusive time one call path accrued in one gap.
type gapEnt struct {
	cp uint32
	dt int64
}

// frame is an open region instance.
type frame struct {
	region  model.RegionID
	cp      uint32
	call    int32 // its MPI call record; -1 for a user region
	inner   int32 // the outermost open MPI call at or below this frame; -1: none
	childR  model.RegionID
	childCP uint32 // the call path of the last child entered (a cache)
}

// locLog is what the analysis keeps of one location: the MPI calls with
// their point-to-point and collective events, and the exclusive time of
// each call path between consecutive call boundaries (the Enter and Leave
// of every MPI call, the first and the last event): gap k spans
// [bounds[k], bounds[k+1]] and holds ents[gapEnd[k-1]:gapEnd[k]].
//
// A location of a large run may call no MPI function at all; such a
// location keeps only its times, its stream state and its one gap's
// entries (cur), inline: the rest (logExt) is allocated by the first MPI
// call, or by a gap or stack that needs an index. Without a logExt, or
// with one whose bounds are empty, the log is one gap [first, last] whose
// entries are cur (gapLog).
type locLog struct {
	first, last model.Time
	segStart    model.Time
	// Stream state, empty once closed.
	stack []frame
	// cur holds the open gap's entries; once closed, those of the one
	// gap of a log without bounds, else nothing.
	cur []gapEnt
	// The part of the log only some locations need: nil until one of
	// them is needed (ext allocates it); from the end of the streams on,
	// the Analyzer's shared empty one (fill) where it was not.
	*logExt
	seen   bool
	closed bool
	called bool // has entered an MPI call (settle.go)
	// Whether the logExt's curIx and open are set, asked here so that
	// the stream's hot paths need not load the logExt.
	hasCurIx, hasOpen bool
}

// logExt is the part of a location's log that a location without MPI
// calls does without.
type logExt struct {
	// The gaps, from the first call boundary on; empty: one gap (gapLog).
	bounds []model.Time
	gapEnd []int32
	ents   []gapEnt
	// curIx indexes cur by call path once cur is long (a gap in which
	// many call paths ran), so that charging stays O(1); nil otherwise.
	curIx map[uint32]int32
	// open counts the open frames of each region, kept from the first
	// Leave that names a region other than the innermost open one on, so
	// that such Leaves cost O(1) rather than a search of the stack; nil
	// before.
	open map[model.RegionID]int32
	// The MPI calls and their events.
	mpiLog
}

// mpiLog is the part of a location's log that its MPI calls fill.
type mpiLog struct {
	calls  []callRec
	p2p    []p2pRec
	colls  []collRec
	icolls []icollRec // CollPost and CollDone events (icoll.go)

	// Stream state, empty once closed.
	seq      map[model.CommID]uint64
	lastSeqC model.CommID
	lastSeqN uint64
}

// ext returns l's logExt, allocating it with the boundary of l's first
// time; only Add's paths call it, before the end of the streams.
func (l *locLog) ext() *logExt {
	if l.logExt == nil {
		l.logExt = &logExt{bounds: []model.Time{l.first}}
	}
	return l.logExt
}

// mpi returns l's MPI log, allocating it; only Add's paths call it,
// before the end of the streams.
func (l *locLog) mpi() *mpiLog { return &l.ext().mpiLog }

// gapLog returns l's gaps: their bounds, ends and entries (see locLog).
// A log of one gap has them made, two small allocations.
func (l *locLog) gapLog() (bounds []model.Time, gapEnd []int32, ents []gapEnt) {
	if l.logExt == nil || len(l.bounds) == 0 {
		return []model.Time{l.first, l.last}, []int32{int32(len(l.cur))}, l.cur
	}
	return l.bounds, l.gapEnd, l.ents
}

// gapEnts returns the entries of all of l's gaps.
func (l *locLog) gapEnts() []gapEnt {
	if l.logExt == nil || len(l.bounds) == 0 {
		return l.cur
	}
	return l.ents
}

// fill gives every location without a logExt the Analyzer's shared
// empty one, so that the readers of the logs (Finalize, MarshalBinary,
// Join) need not ask; it is called once the streams have ended, when no
// log grows any more.
func (a *Analyzer) fill() {
	if a.noMPI == nil {
		a.noMPI = new(logExt)
	}
	for li := range a.locs {
		if a.locs[li].logExt == nil {
			a.locs[li].logExt = a.noMPI
		}
	}
}

// regionInfo caches what the analysis needs of a region.
type regionInfo struct {
	known bool
	op    uint8
}

type cpKey struct {
	parent uint32
	region model.RegionID
}

// An Analyzer computes the wait-state analysis of a stream of events
// (see the package documentation). Feed it every event of a trace, or of
// some of its locations (all of each one's events), with Add, then call
// Finalize; or save its state with MarshalBinary and join it with the
// other shards' (Join). It is not safe for concurrent use.
type Analyzer struct {
	defs    *model.Defs
	opts    Options
	locs    []locLog // index = LocID
	regions []regionInfo
	// Call path tree: node 0 is the root (no region open).
	nodes  []cpKey
	nodeIx map[cpKey]uint32
	// A direct-mapped cache of nodeIx: the call paths entered lately.
	childCache *[1 << childCacheBits]childEnt
	diag       Diagnostics
	ended      bool
	// Settling (settle.go): nil with Options.KeepLogs. markSet and
	// markCall name a call just left that may be a settling point;
	// nCallLocs counts the locations that have entered an MPI call.
	st        *settled
	markSet   bool
	markCall  int32
	nCallLocs int
	noMPI     *logExt // the logExt of every location without one, once ended (fill)
}

// New returns an Analyzer that names regions, locations and
// communicators through defs, which may grow while events are added (as a
// source's do). opts is copied; nil means defaults.
func New(defs *model.Defs, opts *Options) *Analyzer {
	a := &Analyzer{defs: defs, nodes: []cpKey{{}}, nodeIx: make(map[cpKey]uint32), childCache: new([1 << childCacheBits]childEnt)}
	if opts != nil {
		a.opts = *opts
	}
	if !a.opts.KeepLogs {
		a.st = newSettled(a.opts.SpillDir)
	}
	return a
}

// HasCalls reports whether a location has an MPI call (one entered so
// far, or one in a joined state): without one, Finalize's report has no
// wait state and a Diagnostics.MPICalls of 0, and a caller that prints
// nothing then (as tracestat does) may skip Finalize. It costs a look
// at every location.
func (a *Analyzer) HasCalls() bool {
	for li := range a.locs {
		if x := a.locs[li].logExt; x != nil && len(x.calls) > 0 {
			return true
		}
	}
	return false
}

// Defs returns the definitions given to New.
func (a *Analyzer) Defs() *model.Defs { return a.defs }

// Analyze reads src to the end and returns its analysis. A read error is
// returned as is, with no report.
func Analyze(src model.Source, opts *Options) (*Report, error) {
	a := New(src.Defs(), opts)
	for src.Next() {
		a.Add(src.Event())
	}
	if err := src.Err(); err != nil {
		return nil, err
	}
	return a.Finalize()
}

// region returns the cached facts of region r.
func (a *Analyzer) region(r model.RegionID) regionInfo {
	if int(r) < len(a.regions) && a.regions[r].known {
		return a.regions[r]
	}
	return a.newRegion(r)
}

// newRegion returns the facts of region r, caching them: region's path
// for a region it has not seen.
func (a *Analyzer) newRegion(r model.RegionID) regionInfo {
	if r == 0 || int(r) > a.defs.NumRegions() {
		return regionInfo{known: true} // not defined: a user region
	}
	for int(r) >= len(a.regions) {
		a.regions = append(a.regions, regionInfo{})
	}
	reg, ok := a.defs.Region(r)
	info := regionInfo{known: true}
	if ok && isCall(&reg) {
		info.op = classify(reg.Name)
	}
	a.regions[r] = info
	return info
}

// isCall reports whether r's instances are calls the analysis looks
// into: MPI calls (model.Region.MPI), and the communication and collective
// regions of a region whose paradigm the format does not give (PICL's
// message and sync0 event types, which no MPI name marks).
func isCall(r *model.Region) bool {
	if r.MPI() {
		return true
	}
	return r.Paradigm == model.ParadigmUnknown && (r.Kind == model.RegionComm || r.Kind == model.RegionCollective)
}

// child returns the call path node of region r called from node p.
func (a *Analyzer) child(p uint32, r model.RegionID) uint32 {
	k := cpKey{p, r}
	h := (p*0x9e3779b1 ^ uint32(r)*0x85ebca6b) >> (32 - childCacheBits)
	if c := &a.childCache[h]; c.id != 0 && c.k == k {
		return c.id
	}
	id, ok := a.nodeIx[k]
	if !ok {
		id = uint32(len(a.nodes))
		a.nodes = append(a.nodes, k)
		a.nodeIx[k] = id
	}
	a.childCache[h] = childEnt{k, id}
	return id
}

// childCacheBits sizes the Analyzer's cache of call path nodes, in front
// of its map.
const childCacheBits = 8

type childEnt struct {
	k  cpKey
	id uint32 // 0: empty
}

// Add processes one event. Events of one location must come in their
// stream order; locations may interleave in any way (the analysis does
// not need a time-merged stream). ev is not retained. In the steady state
// Add allocates nothing but the growth of the location's log.
//
// Add must not be called after Finalize, MarshalBinary or Join, which
// end the event streams; it panics then.
func (a *Analyzer) Add(ev *model.Event) {
	if a.ended {
		panic("waitstate: Add after the end of the streams (Finalize, MarshalBinary or Join)")
	}
	a.diag.Events++
	// A location below len(a.locs) is defined (the logs grow only to
	// defined ones, and the definitions do not shrink): the location's
	// check needs the definitions only for the others.
	if ev.Loc == 0 || int(ev.Loc) >= len(a.locs) {
		if ev.Loc == 0 || int(ev.Loc) > a.defs.NumLocations() {
			a.diag.UnknownLocation++
			return
		}
		if n := int(ev.Loc) + 1; n > cap(a.locs) {
			// Room for every location defined, at once: appending a
			// location at a time would copy the logs of a trace of many
			// locations, some hundred bytes each, over and over.
			a.locs = slices.Grow(a.locs, max(n, a.defs.NumLocations()+1)-len(a.locs))
		}
		a.locs = a.locs[:int(ev.Loc)+1]
	}
	l := &a.locs[ev.Loc]
	t := ev.Time
	if !l.seen {
		l.seen, l.first, l.segStart = true, t, t
	}
	l.last = t
	switch ev.Kind {
	case model.KindEnter:
		a.enter(l, ev.Region, t)
	case model.KindLeave:
		a.leave(l, ev.Region, t)
		if a.markSet {
			a.markSet = false
			a.mark(ev.Loc, l)
		}
		if a.st != nil && a.diag.MPICalls >= a.st.horizonAt {
			a.tryHorizon()
		}
	case model.KindSend, model.KindRecv:
		call := l.innerCall()
		if call < 0 {
			a.diag.OutsideCall++
		}
		if ev.Peer == 0 {
			a.diag.UnknownPeer++
			return
		}
		k := pSend
		if ev.Kind == model.KindRecv {
			k = pRecv
		}
		m := l.mpi()
		m.p2p = push(m.p2p, p2pRec{call: call, kind: k, peer: ev.Peer, tag: ev.Tag, comm: ev.Comm, match: ev.Match, bytes: ev.Bytes})
	case model.KindRecvPost, model.KindSendDone:
		call := l.innerCall()
		if call < 0 {
			a.diag.OutsideCall++
			return
		}
		if ev.Match == 0 {
			return // nothing to tie it to
		}
		k := pPost
		if ev.Kind == model.KindSendDone {
			k = pDone
		}
		m := l.mpi()
		m.p2p = push(m.p2p, p2pRec{call: call, kind: k, peer: ev.Peer, tag: ev.Tag, comm: ev.Comm, match: ev.Match})
	case model.KindCollBegin:
		call := l.innerCall()
		if call < 0 {
			a.diag.OutsideCall++
		}
		r := collRec{call: call, comm: ev.Comm, root: ev.Peer, region: ev.Region, class: ev.Class, key: ev.Match, sent: ev.Bytes, recvd: ev.Recvd}
		m := l.mpi()
		if ev.Match == 0 {
			r.seq = true
			if m.lastSeqN == 0 || m.lastSeqC != ev.Comm {
				if m.lastSeqN != 0 {
					if m.seq == nil {
						m.seq = make(map[model.CommID]uint64)
					}
					m.seq[m.lastSeqC] = m.lastSeqN
				}
				m.lastSeqC, m.lastSeqN = ev.Comm, m.seq[ev.Comm]
			}
			m.lastSeqN++
			r.key = m.lastSeqN
		}
		m.colls = push(m.colls, r)
	case model.KindCollPost, model.KindCollDone:
		a.icoll(l, ev)
	}
}

// push appends v to s, doubling its storage when full: a log grows by
// amortised copies of its own size, where append's smaller steps for
// large slices would copy it several times over. It starts small, with
// room for pushMin: a location of a few calls, or of none (whose log is
// its first and last time and one gap), keeps a few bytes.
func push[T any](s []T, v T) []T {
	if len(s) == cap(s) {
		s = slices.Grow(s, max(len(s), pushMin))
	}
	return append(s, v)
}

// pushMin is the room a log is given by its first push.
const pushMin = 4

// innerCall returns the open MPI call events belong to (the outermost
// one), or -1.
func (l *locLog) innerCall() int32 {
	if n := len(l.stack); n > 0 {
		return l.stack[n-1].inner
	}
	return -1
}

// charge adds the time since the last region change to the innermost
// open call path.
func (l *locLog) charge(t model.Time) {
	if dt := int64(t - l.segStart); dt > 0 && len(l.stack) > 0 {
		cp := l.stack[len(l.stack)-1].cp
		if n := len(l.cur); n > 0 && l.cur[n-1].cp == cp {
			l.cur[n-1].dt += dt
		} else if l.hasCurIx {
			if i, ok := l.curIx[cp]; ok {
				l.cur[i].dt += dt
			} else {
				l.curIx[cp] = int32(len(l.cur))
				l.cur = append(l.cur, gapEnt{cp, dt})
			}
		} else {
			found := false
			for i := range l.cur {
				if l.cur[i].cp == cp {
					l.cur[i].dt += dt
					found = true
					break
				}
			}
			if !found {
				l.cur = append(l.cur, gapEnt{cp, dt})
				if len(l.cur) > curScan {
					l.ext().curIx = make(map[uint32]int32, len(l.cur))
					l.hasCurIx = true
					for i, e := range l.cur {
						l.curIx[e.cp] = int32(i)
					}
				}
			}
		}
	}
	l.segStart = t
}

// curScan is the length of a gap's entries up to which charge searches
// them rather than indexing them.
const curScan = 16

// boundary ends the open gap at t.
func (l *locLog) boundary(t model.Time) {
	if len(l.ents)+len(l.cur) > cap(l.ents) {
		l.ents = slices.Grow(l.ents, max(len(l.ents), len(l.cur), pushMin))
	}
	// A gap between call boundaries mostly holds one call path's time:
	// stored in place, without the call of a copy.
	if len(l.cur) == 1 {
		l.ents = append(l.ents, l.cur[0])
	} else {
		l.ents = append(l.ents, l.cur...)
	}
	l.cur = l.cur[:0]
	if l.hasCurIx {
		l.curIx, l.hasCurIx = nil, false
	}
	l.gapEnd = push(l.gapEnd, int32(len(l.ents)))
	l.bounds = push(l.bounds, t)
}

func (a *Analyzer) enter(l *locLog, r model.RegionID, t model.Time) {
	l.charge(t)
	info := a.region(r)
	var parent uint32
	inner := int32(-1)
	var cp uint32
	if n := len(l.stack); n > 0 {
		f := &l.stack[n-1]
		parent, inner = f.cp, f.inner
		if f.childR == r && f.childCP != 0 {
			cp = f.childCP
		} else {
			cp = a.child(parent, r)
			f.childR, f.childCP = r, cp
		}
	} else {
		cp = a.child(0, r)
	}
	call := int32(-1)
	if info.op != opNone {
		if !l.called {
			l.called = true
			a.nCallLocs++
		}
		m := l.mpi()
		l.boundary(t)
		call = int32(len(m.calls))
		m.calls = push(m.calls, callRec{enter: t, leave: t, cp: cp, enterB: int32(len(l.bounds) - 1), op: info.op, open: true})
		if inner < 0 { // events belong to the outermost open MPI call
			inner = call
		}
	}
	l.stack = append(l.stack, frame{region: r, cp: cp, call: call, inner: inner})
	if l.hasOpen {
		l.open[r]++
	}
}

func (a *Analyzer) leave(l *locLog, r model.RegionID, t model.Time) {
	n := len(l.stack)
	if n == 0 {
		a.diag.UnbalancedLeaves++
		return
	}
	if l.stack[n-1].region == r { // the innermost open region: the common case
		l.charge(t)
		a.pop(l, t, false)
		return
	}
	if x := l.ext(); x.open == nil {
		// The first mismatch: count the open frames per region from
		// now on, so that a Leave of a region not open is O(1).
		x.open = make(map[model.RegionID]int32)
		l.hasOpen = true
		for _, f := range l.stack {
			l.open[f.region]++
		}
	}
	if l.open[r] == 0 {
		a.diag.LeaveMismatch++
		return
	}
	// r is open, below the innermost frame: the search pops every frame
	// it passes.
	j := n - 2
	for l.stack[j].region != r {
		j--
	}
	a.diag.LeaveMismatch++
	l.charge(t)
	for len(l.stack) > j {
		a.pop(l, t, false)
	}
}

// pop closes the innermost open frame at t.
// atEnd marks a call closed because its stream ended.
func (a *Analyzer) pop(l *locLog, t model.Time, atEnd bool) {
	f := &l.stack[len(l.stack)-1]
	call, inner := f.call, f.inner
	if l.hasOpen {
		l.open[f.region]--
	}
	l.stack = l.stack[:len(l.stack)-1]
	if call >= 0 {
		l.boundary(t)
		c := &l.calls[call]
		c.leave, c.leaveB, c.open = t, int32(len(l.bounds)-1), atEnd
		a.diag.MPICalls++
		if inner == call && !atEnd && a.st != nil && len(l.colls) > 0 && l.colls[len(l.colls)-1].call == call {
			a.markSet, a.markCall = true, call
		}
	}
}

// end ends the streams: open regions are closed at their location's last
// time (Diagnostics.OpenAtEnd) and the last gap is closed.
func (a *Analyzer) end() {
	if a.ended {
		return
	}
	a.ended = true
	for li := range a.locs {
		l := &a.locs[li]
		if !l.seen || l.closed {
			continue
		}
		l.charge(l.last)
		for len(l.stack) > 0 {
			a.diag.OpenAtEnd++
			a.pop(l, l.last, true)
		}
		if l.logExt == nil || len(l.gapEnd) == 0 {
			// No call boundary: the log is one gap, from the first time
			// to the last, whose entries are the open gap's, held in cur
			// as they are (gapLog).
			l.cur = slices.Clip(l.cur)
			if l.logExt != nil {
				l.bounds = nil
			}
		} else {
			l.boundary(l.last)
			l.cur = nil
		}
		l.closed = true
		l.stack = nil
		if l.logExt != nil {
			l.curIx, l.open, l.seq = nil, nil, nil
			l.hasCurIx, l.hasOpen = false, false
		}
	}
}
