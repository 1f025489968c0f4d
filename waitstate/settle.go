package waitstate

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"

	"github.com/hpctrace/hpctrace/model"
)

// Settling (doc/waitstates.md §8). The Analyzer settles a stretch of
// the run (an interval) when every location that has called MPI has
// passed a point after which no wait state starts before every one
// before it ended: a horizon (tryHorizon), a time at which none of them
// is inside an MPI call, or a blocking collective over every location
// the definitions hold that every member entered before any left
// (mark, tryCut). It analyses the stretch's logs, keeps the rows,
// counts, top instances and sums, writes to a temporary file (one block
// per interval) the records of its wait states for the deferred delay
// costs (defer.go) and each location's gaps and hand-over points, and
// drops the logs. Finalize analyses what is left, then reads the blocks
// backwards, latest first: the latest-first pass of the delay costs and
// the walk of the critical path. A wait state after the stretch whose
// pair last synchronised in it or before (or never) takes the part of
// its interval before the cut from running totals, so that no stretch
// needs to be a common sync point of every pair. An interval is settled
// once its MPI calls reach settleMin, so the memory held is that of one
// interval of at least settleMin calls plus what the locations ahead of
// the slowest one logged since. A stretch that fails a check (a
// message, request or collective instance crossing it, non-blocking
// collectives, MPI_Finalize, nested MPI calls) is kept and tried again
// once it has doubled; a collective that a member left before another
// entered (a root that did not wait, clocks out of order) is passed
// over at once, at the cost of a look at each location's mark.
//
// A horizon needs every member of a communicator the definitions hold
// to have called MPI: a location that calls MPI_Init later would join
// the instance of MPI_Init of the others, in a settled stretch. One
// outside every communicator that first calls MPI_Init after a stretch
// was settled is not covered.

// settleMin is the number of MPI calls (over all locations) of the
// stretch before a collective from which on it is settled.
const settleMin = 1 << 14

// maxMarks bounds the settling points a location keeps while it waits
// for the others to reach them. A location whose marks fill it keeps
// from then on only the collectives whose key is a multiple of a stride
// that doubles each time (thin), so that one far ahead of the others in
// the stream (a source that interleaves locations coarsely, or ranks
// whose clocks disagree) still holds points the slowest one will reach:
// the multiples of a larger stride are multiples of every smaller one.
const maxMarks = 64

// settled holds the Analyzer's settling state and what the settled
// intervals leave to Finalize.
type settled struct {
	dir    string
	min    int // settleMin; tests lower it
	epochs int32
	err    error // of the spill file; no more settling then
	report *Report

	world   model.CommID // the communicator of the settling points (0: none yet)
	nlocs   int          // the locations the definitions held when world was chosen
	marks   [][]mark     // per location, the points left and not yet settled
	strides []uint64     // per location, the stride of the keys it marks (0: 1)
	nready  int          // locations with a mark
	nextTry int          // after a failed check: the size to reach before the next try
	// horizonAt is the count of MPI calls at which the next horizon is
	// looked for (tryHorizon); horizonN the calls to wait after a failure.
	horizonAt int64
	horizonN  int64
	nComms    int           // the communicators inComm was made of
	inComm    []model.LocID // the members of those, sorted
	at        []mark        // tryCut's scratch

	rows       map[rowKey]*rowVal
	diag       Diagnostics // Finalize's counts of the settled intervals
	best       [numPatterns][]topCand
	instances  []Instance
	exclNode   []int64
	mpi        model.Time
	outerLeave []model.Time // per location: the leave of its last outermost call
	hadCall    []bool
	initSeen   []bool

	dfr   deferState // the deferred delay costs' running totals (defer.go)
	spill *spillFile
	// scratch is the working storage of the fin of the interval being
	// settled, reused from one to the next.
	scratch finScratch
}

func newSettled(dir string) *settled {
	return &settled{dir: dir, min: settleMin, horizonAt: settleMin, rows: map[rowKey]*rowVal{}}
}

// mark is a location's place in its log where it left a settling point.
type mark struct {
	key                       uint64
	calls, p2p, colls, icolls int32
	b0, ents                  int32 // the boundary of the Leave, the gap entries before it
	enter, leave              model.Time
}

// mark records that loc has just left the call a.markCall, if that is a
// settling point.
func (a *Analyzer) mark(loc model.LocID, l *locLog) {
	st := a.st
	ci := a.markCall
	if st.err != nil || l.logExt == nil || len(l.colls) == 0 {
		return
	}
	c := &l.colls[len(l.colls)-1]
	if c.call != ci || len(l.icolls) > 0 {
		return
	}
	switch a.collOp(l.calls[ci].op, c) {
	case opBarrier, opNxN, opBcast, opReduce, opScan:
	default:
		return
	}
	if st.world == 0 {
		cm, ok := a.defs.Comm(c.comm)
		if !ok || cm.Self || len(cm.Remote) > 0 || a.nCallLocs < 1 || !holdsAll(cm.Members, a.defs.NumLocations()) {
			return
		}
		st.world, st.nlocs = c.comm, a.defs.NumLocations()
	} else if c.comm != st.world || a.defs.NumLocations() != st.nlocs {
		return
	}
	cr := &l.calls[ci]
	mk := mark{key: c.key, calls: int32(len(l.calls)), p2p: int32(len(l.p2p)), colls: int32(len(l.colls)), icolls: int32(len(l.icolls)),
		b0: int32(len(l.bounds) - 1), ents: int32(len(l.ents)), enter: cr.enter, leave: cr.leave}
	for len(st.marks) <= int(loc) {
		st.marks = append(st.marks, nil)
		st.strides = append(st.strides, 1)
	}
	if mk.key%st.strides[loc] != 0 {
		return
	}
	q := st.marks[loc]
	if len(q) >= maxMarks {
		q = st.thin(loc, q)
	}
	if len(q) == 0 {
		st.nready++
	}
	st.marks[loc] = append(q, mk)
	if st.nready >= a.nCallLocs {
		a.tryCut()
	}
}

// holdsAll reports whether members holds every location 1 … n. A
// settling point must be a collective over every location the trace
// defines, not only over those that have called MPI so far: one outside
// it that first calls MPI after a cut could have a wait state whose
// synchronisation interval reaches back into the settled stretch (its
// pair's previous common sync point is the start of the run), and pass
// delay costs on to the wait states there (TestSettleLateCaller). A
// member that has not called MPI yet makes the collective incomplete,
// which cut refuses.
func holdsAll(members []model.LocID, n int) bool {
	if len(members) < n {
		return false
	}
	in := make([]bool, n+1)
	k := 0
	for _, m := range members {
		if m >= 1 && int(m) <= n && !in[m] {
			in[m] = true
			k++
		}
	}
	return k == n
}

// thin doubles loc's stride and keeps of q the marks whose key is a
// multiple of it; if that leaves it full (keys that are not numbers in
// sequence), it drops the oldest half.
func (st *settled) thin(loc model.LocID, q []mark) []mark {
	st.strides[loc] *= 2
	s := st.strides[loc]
	n := 0
	for _, m := range q {
		if m.key%s == 0 {
			q[n] = m
			n++
		}
	}
	q = q[:n]
	if len(q) >= maxMarks {
		q = shift(q, len(q)/2)
	}
	return q
}

// tryCut settles the stretch up to the latest settling point every
// location has left, if it is large enough and passes the checks.
func (a *Analyzer) tryCut() {
	st := a.st
	var k uint64
	lag := -1 // the location whose last mark has the lowest key
	for li := range a.locs {
		if !a.locs[li].called {
			continue
		}
		if li >= len(st.marks) || len(st.marks[li]) == 0 {
			return
		}
		q := st.marks[li]
		if last := q[len(q)-1].key; lag < 0 || last < k {
			k, lag = last, li
		}
	}
	if lag < 0 {
		return
	}
	at := resize(st.at, len(a.locs))
	st.at = at
	// The latest of lag's marks that every location holds.
	found := false
	total := 0
	for i := len(st.marks[lag]) - 1; i >= 0 && !found; i-- {
		kc := st.marks[lag][i].key
		found, total = true, 0
		for li := range a.locs {
			if !a.locs[li].called {
				continue
			}
			q := st.marks[li]
			j := slices.IndexFunc(q, func(m mark) bool { return m.key == kc })
			if j < 0 {
				found = false
				break
			}
			at[li] = q[j]
			total += int(q[j].calls)
		}
		if found {
			k = kc
		}
	}
	switch {
	case !found:
		a.dropMarks(k, true, nil)
		return
	case total < max(st.min, st.nextTry):
		a.dropMarks(k, false, nil)
		return
	case !a.inOrder(at):
		// Not a common synchronisation point of the run's timeline
		// (a root left before a member entered, or clocks disagree):
		// cheap to see, so the next collective is tried as it comes.
		a.dropMarks(k, true, nil)
		return
	}
	cut := a.cut(at)
	if !cut {
		st.nextTry = 2 * total
		a.dropMarks(k, true, nil)
		return
	}
	st.nextTry = 0
	st.horizonN = 0
	st.horizonAt = a.diag.MPICalls + int64(st.min)
	a.dropMarks(k, true, at)
}

// commsCalled reports whether every member of a communicator the
// definitions hold (but MPI_COMM_SELF) has called MPI. Until then a
// location still to call MPI_Init could join the instance of MPI_Init
// (one over every location that calls it), which would change the wait
// states of the others' calls of it in a stretch settled already.
func (a *Analyzer) commsCalled() bool {
	st := a.st
	if cs := a.defs.Comms(); len(cs) != st.nComms {
		st.nComms = len(cs)
		st.inComm = st.inComm[:0]
		for _, c := range cs {
			if c.Self {
				continue
			}
			for _, m := range c.Members {
				if m >= 1 && int(m) <= a.defs.NumLocations() {
					st.inComm = append(st.inComm, m)
				}
			}
		}
		slices.Sort(st.inComm)
		st.inComm = slices.Compact(st.inComm)
	}
	for _, m := range st.inComm {
		if int(m) >= len(a.locs) || !a.locs[m].called {
			return false
		}
	}
	return true
}

// tryHorizon settles the stretch of the logs before a horizon: a time T
// at which no location that has called MPI is inside an MPI call, before
// which every one of them left a call since the last cut (doc/waitstates.md
// §8). Every wait state before T then ends before every one after it
// starts, as the latest-first order of the delay costs needs, and the
// delay costs of the wait states after it whose intervals reach before
// it are those of the running totals (defer.go). T is the least over
// those locations of the time up to which each one's events are in and
// it is outside MPI calls, moved back to the Enter of any call that
// holds it on another location. cut checks that no message, request or
// collective instance crosses it.
func (a *Analyzer) tryHorizon() {
	st := a.st
	held := a.diag.MPICalls
	st.horizonAt = held + max(int64(st.min), st.horizonN, 1)
	if st.err != nil {
		return
	}
	var T model.Time
	first := true
	for li := range a.locs {
		l := &a.locs[li]
		if !l.called {
			continue
		}
		t := l.last
		if c := l.innerCall(); c >= 0 {
			t = l.calls[c].enter
		}
		if first || t < T {
			T, first = t, false
		}
	}
	if first || !a.commsCalled() {
		return
	}
	at := resize(st.at, len(a.locs))
	st.at = at
	fail := func() {
		st.horizonN = max(2*st.horizonN, int64(st.min))
		st.horizonAt = held + st.horizonN
	}
	for iter := 0; ; iter++ {
		if iter > 2*len(a.locs)+8 {
			fail()
			return
		}
		moved := false
		for li := range a.locs {
			l := &a.locs[li]
			if !l.called {
				continue
			}
			k, _ := slices.BinarySearchFunc(l.calls, T, func(c callRec, t model.Time) int { return cmp.Compare(c.enter, t) })
			if k == 0 {
				fail() // a location without a call before T
				return
			}
			if c := &l.calls[k-1]; c.open || c.leave > T {
				T, moved = c.enter, true
			}
			at[li].calls = int32(k)
		}
		if !moved {
			break
		}
	}
	minLeave := model.Time(0)
	first = true
	for li := range a.locs {
		l := &a.locs[li]
		if !l.called {
			continue
		}
		k := at[li].calls
		c := &l.calls[k-1]
		b0 := c.leaveB
		m := mark{calls: k, b0: b0, ents: l.gapEnd[b0-1], leave: c.leave}
		// The events before the first of a call from k on; those outside
		// calls among them (which no sync point holds) go with the
		// stretch, and cut refuses a message they cross.
		m.p2p = int32(len(l.p2p))
		for i := m.p2p - 1; i >= 0 && (l.p2p[i].call >= k || l.p2p[i].call < 0); i-- {
			if l.p2p[i].call >= k {
				m.p2p = i
			}
		}
		m.colls = int32(len(l.colls))
		for i := m.colls - 1; i >= 0 && (l.colls[i].call >= k || l.colls[i].call < 0); i-- {
			if l.colls[i].call >= k {
				m.colls = i
			}
		}
		m.icolls = int32(len(l.icolls))
		for m.icolls > 0 && l.icolls[m.icolls-1].call >= k {
			m.icolls--
		}
		if first || m.leave < minLeave {
			minLeave, first = m.leave, false
		}
		at[li] = m
	}
	for li := range at {
		at[li].enter = minLeave // every call before T left by T: no order to check
	}
	if !a.cut(at) {
		fail()
		return
	}
	st.horizonN = 0
	// The collective settling points' marks: those before the cut go,
	// the rest count from the new start.
	st.nready = 0
	for li, q := range st.marks {
		if li >= len(at) || !a.locs[li].called {
			continue
		}
		m := at[li]
		n := 0
		for _, x := range q {
			if x.calls > m.calls {
				x.calls -= m.calls
				x.p2p -= m.p2p
				x.colls -= m.colls
				x.icolls -= m.icolls
				x.b0 -= m.b0
				x.ents -= m.ents
				q[n] = x
				n++
			}
		}
		st.marks[li] = q[:n]
		if n > 0 {
			st.nready++
		}
	}
}

// inOrder reports whether every calling location entered the settling
// point at needs before any left it: then every wait state before it
// ends before any after it starts, and the latest-first order of the
// delay costs puts the stretch's wait states after all later ones.
func (a *Analyzer) inOrder(at []mark) bool {
	var latestE, earliestX model.Time
	first := true
	for li := range a.locs {
		if !a.locs[li].called {
			continue
		}
		m := at[li]
		if first || m.enter > latestE {
			latestE = m.enter
		}
		if first || m.leave < earliestX {
			earliestX = m.leave
		}
		first = false
	}
	return !first && latestE <= earliestX
}

// collOp returns the operation of a collective event c held by a call
// of operation callOp: the call's when it is a known MPI collective,
// else the CollBegin's region's, else its Class's; opNone for what is
// not analysed.
func (a *Analyzer) collOp(callOp uint8, c *collRec) uint8 {
	switch callOp {
	case opBarrier, opNxN, opBcast, opReduce, opScan:
		return callOp
	case opNBColl, opInit, opFinalize:
		return opNone
	}
	if c.region != 0 {
		switch op := a.region(c.region).op; op {
		case opBarrier, opNxN, opBcast, opReduce, opScan:
			return op
		case opNBColl:
			return opNone
		}
	}
	switch c.class {
	case model.ClassBarrier:
		return opBarrier
	case model.ClassAllToAll:
		return opNxN
	case model.ClassOneToAll:
		return opBcast
	case model.ClassAllToOne:
		return opReduce
	}
	return opNone
}

// dropMarks drops every location's marks before key k (and k itself if
// incl); with at, the settled stretch's, the rest are rebased.
func (a *Analyzer) dropMarks(k uint64, incl bool, at []mark) {
	st := a.st
	st.nready = 0
	for li, q := range st.marks {
		j := 0
		for j < len(q) && (q[j].key < k || (incl && q[j].key == k)) {
			j++
		}
		q = append(q[:0], q[j:]...)
		if at != nil && li < len(at) {
			m := at[li]
			for i := range q {
				q[i].calls -= m.calls
				q[i].p2p -= m.p2p
				q[i].colls -= m.colls
				q[i].icolls -= m.icolls
				q[i].b0 -= m.b0
				q[i].ents -= m.ents
			}
		}
		st.marks[li] = q
		if len(q) > 0 {
			st.nready++
		}
	}
}

// cut analyses the stretch of every calling location's log up to at and,
// if it passes the checks, settles it: keeps its results, spills what
// Finalize's backward passes need and drops it from the logs.
func (a *Analyzer) cut(at []mark) bool {
	st := a.st
	var latestE, earliestX model.Time
	first := true
	elocs := make([]locLog, len(a.locs))
	empty := new(logExt)
	for li := range a.locs {
		l := &a.locs[li]
		if !l.called {
			elocs[li].logExt = empty
			continue
		}
		m := at[li]
		if first || m.enter > latestE {
			latestE = m.enter
		}
		if first || m.leave < earliestX {
			earliestX = m.leave
		}
		first = false
		if m.icolls > 0 {
			return false
		}
		for i := range m.calls {
			if l.calls[i].op == opFinalize {
				return false
			}
			// Nested MPI calls: the running totals of the deferred delay
			// costs count a wait state at its Leave, which needs calls
			// that do not overlap.
			if i > 0 && l.calls[i].enterB < l.calls[i-1].leaveB {
				return false
			}
		}
		x := &logExt{bounds: l.bounds[:m.b0+1], gapEnd: l.gapEnd[:m.b0], ents: l.ents[:m.ents]}
		x.calls, x.p2p, x.colls = l.calls[:m.calls], l.p2p[:m.p2p], l.colls[:m.colls]
		elocs[li] = locLog{first: l.bounds[0], last: m.leave, seen: true, closed: true, logExt: x}
	}
	if first || latestE > earliestX {
		return false
	}
	f := a.newFinOn(elocs, Diagnostics{})
	f.epoch, f.initSeen, f.sc = true, st.initSeen, &st.scratch
	if st.scratch.rows != nil { // the map of the last interval kept, empty
		f.rows, st.scratch.rows = st.scratch.rows, nil
	}
	f.run()
	if d := f.diag; d.UnmatchedSends != 0 || d.UnmatchedRecvs != 0 || d.IncompleteColls != 0 || d.UnknownComm != 0 || f.openReqs != 0 {
		return false
	}
	if !a.keep(f, elocs, nil) {
		return false
	}
	// Drop the stretch from the logs.
	for li := range a.locs {
		if l := &a.locs[li]; l.called {
			l.rebase(at[li])
		}
	}
	return true
}

// keep keeps the results of f, the analysis of the settled stretch
// elocs, and spills its block (encoded already if blk is not nil); it
// reports false, with st.err set, if the spill file fails.
func (a *Analyzer) keep(f *fin, elocs []locLog, blk []byte) bool {
	st := a.st
	if blk == nil {
		blk = f.block(st.spillBuf())
	}
	if err := st.writeBlock(blk); err != nil {
		st.err = err
		st.spill.close()
		return false
	}
	for k, v := range f.rows {
		if r := st.rows[k]; r != nil {
			r.time += v.time
			r.count += v.count
		} else {
			st.rows[k] = &rowVal{v.time, v.count} // v may be in the scratch's slab
		}
	}
	// f's rows are added: its map and the slab of their values serve the
	// next interval's fin.
	clear(f.rows)
	st.scratch.rows, st.scratch.rowSlab = f.rows, st.scratch.rowSlab[:0]
	sp, dp := st.diag.fields(), f.diag.fields()
	for i := range sp {
		*sp[i] += *dp[i]
	}
	f.topInto(&st.best, a.opts.topN(), st.epochs)
	if a.opts.Instances {
		st.instances = f.appendInstances(st.instances)
	}
	if len(st.exclNode) < len(f.exclNode) {
		st.exclNode = append(st.exclNode, make([]int64, len(f.exclNode)-len(st.exclNode))...)
	}
	for i, v := range f.exclNode {
		st.exclNode[i] += v
	}
	for len(st.hadCall) < len(a.locs) {
		st.hadCall = append(st.hadCall, false)
		st.outerLeave = append(st.outerLeave, 0)
		st.initSeen = append(st.initSeen, false)
	}
	for li := range elocs {
		el := &elocs[li]
		if !el.seen {
			continue
		}
		for i := range el.calls {
			c := &el.calls[i]
			if !st.hadCall[li] || c.enter >= st.outerLeave[li] {
				st.hadCall[li] = true
				st.mpi += max(0, c.leave-c.enter)
				st.outerLeave[li] = c.leave
			}
			if c.op == opInit {
				st.initSeen[li] = true
			}
		}
	}
	st.dfr.commit(f.dout, len(f.sidUp))
	st.epochs++
	if f.sc == &st.scratch { // f's instances are kept (topInto, appendInstances): their storage serves the next interval
		st.scratch.insts = f.insts[:0]
	}
	return true
}

// rebase drops the part of l's log before m, which the log keeps
// afterwards as its first boundary. The rest moves to the front of the
// same arrays, which keep their room for the next stretch.
func (l *locLog) rebase(m mark) {
	nc := m.calls
	l.calls = shift(l.calls, int(nc))
	for i := range l.calls {
		c := &l.calls[i]
		c.enterB -= m.b0
		if c.leaveB >= m.b0 {
			c.leaveB -= m.b0
		} else {
			c.leaveB = 0 // not left yet
		}
	}
	l.p2p = shift(l.p2p, int(m.p2p))
	for i := range l.p2p {
		if l.p2p[i].call >= 0 {
			l.p2p[i].call -= nc
		}
	}
	l.colls = shift(l.colls, int(m.colls))
	for i := range l.colls {
		if l.colls[i].call >= 0 {
			l.colls[i].call -= nc
		}
	}
	l.icolls = shift(l.icolls, int(m.icolls))
	for i := range l.icolls {
		l.icolls[i].call -= nc
	}
	for i := range l.stack {
		f := &l.stack[i]
		if f.call >= 0 {
			f.call -= nc
		}
		if f.inner >= 0 {
			f.inner -= nc
		}
	}
	l.gapEnd = shift(l.gapEnd, int(m.b0))
	for i := range l.gapEnd {
		l.gapEnd[i] -= m.ents
	}
	l.bounds = shift(l.bounds, int(m.b0))
	l.ents = shift(l.ents, int(m.ents))
}

// shift drops the first n elements of s, moving the rest to the front.
func shift[T any](s []T, n int) []T {
	k := copy(s, s[n:])
	return s[:k]
}

// spillFile is the temporary file of the settled intervals' blocks,
// each followed by its length in 8 bytes, read back latest first. It is
// unlinked as soon as it is made where the system allows (the open file
// stays usable), else when closed.
type spillFile struct {
	f       *os.File
	name    string
	removed bool
	end     int64 // the end of the blocks not read yet
	buf     []byte
}

// spillBuf returns the buffer of the last block written, for the next
// one to reuse.
func (st *settled) spillBuf() []byte {
	if st.spill == nil {
		return nil
	}
	return st.spill.buf[:0]
}

// writeBlock appends a block (made by fin.block) to the spill file.
func (st *settled) writeBlock(b []byte) error {
	if st.spill == nil {
		fl, err := os.CreateTemp(st.dir, "hpctrace-waitstate-*.spill")
		if err != nil {
			return fmt.Errorf("waitstate: spill file: %w", err)
		}
		st.spill = &spillFile{f: fl, name: fl.Name()}
		st.spill.removed = os.Remove(fl.Name()) == nil
	}
	st.spill.buf = b
	if _, err := st.spill.f.WriteAt(b, st.spill.end); err != nil {
		return fmt.Errorf("waitstate: spill file: %w", err)
	}
	st.spill.end += int64(len(b))
	return nil
}

// block appends to b the block of the settled interval f: its delay row
// additions and, per location, its gaps and hand-over points, followed
// by its length in 8 bytes. A location's gaps come after its hand-over
// points in chunks of gapChunk gaps, each the time it spans, its length
// in bytes, then its gaps' inner bounds, entry counts and entries, so
// that the read-back (decodeEpoch) can leave those the walk of the
// critical path does not reach undecoded; a flag before them says
// whether the location's bounds are in order, which such a partial read
// needs to search them.
func (f *fin) block(b []byte) []byte {
	e := &enc{b: b}
	f.dout.st.encode(e)
	b = e.b
	// The number of locations, then the totals of their bounds, entries
	// and hand-over points, so that decodeEpoch makes one array of each.
	var n, nb, ne, nh int
	for li := range f.locs {
		if l := &f.locs[li]; l.seen {
			n++
			nb += len(l.bounds)
			ne += len(l.ents)
			nh += len(f.handovers[li])
		}
	}
	b = binary.AppendUvarint(b, uint64(n))
	b = binary.AppendUvarint(b, uint64(nb))
	b = binary.AppendUvarint(b, uint64(ne))
	b = binary.AppendUvarint(b, uint64(nh))
	for li := range f.locs {
		l := &f.locs[li]
		if !l.seen {
			continue
		}
		b = binary.AppendUvarint(b, uint64(li))
		b0 := l.bounds[0]
		b = binary.AppendVarint(b, int64(b0))
		b = binary.AppendUvarint(b, uint64(len(l.bounds)))
		b = appendBool(b, slices.IsSorted(l.bounds))
		hs := f.handovers[li]
		b = binary.AppendUvarint(b, uint64(len(hs)))
		for _, h := range hs {
			b = binary.AppendVarint(b, int64(h.s-b0))
			b = binary.AppendVarint(b, int64(h.s-h.e))
			b = binary.AppendVarint(b, int64(h.call))
			b = binary.AppendUvarint(b, uint64(h.ploc))
			b = binary.AppendVarint(b, int64(h.pt-b0))
			b = binary.AppendUvarint(b, uint64(h.owner))
		}
		lo := int32(0)
		for k0 := 0; k0 < len(l.gapEnd); k0 += gapChunk {
			k1 := min(k0+gapChunk, len(l.gapEnd))
			// Room for the chunk at its longest, so that its integers are
			// stored in place (putUvarint) rather than appended byte by
			// byte, each append checking the capacity.
			ne := int(l.gapEnd[k1-1] - lo)
			b = slices.Grow(b, binary.MaxVarintLen64+1+(k1-k0)*(binary.MaxVarintLen64+binary.MaxVarintLen32)+ne*(binary.MaxVarintLen32+binary.MaxVarintLen64))
			w := b[:cap(b)]
			i := putVarint(w, len(b), int64(l.bounds[k1]-l.bounds[k0]))
			start := i
			w[i] = 0 // the chunk's length, one byte if it fits
			i++
			prev := l.bounds[k0]
			for _, t := range l.bounds[k0+1 : k1] {
				i = putVarint(w, i, int64(t-prev))
				prev = t
			}
			for _, g := range l.gapEnd[k0:k1] {
				i = putUvarint(w, i, uint64(g-lo))
				for _, x := range l.ents[lo:g] {
					i = putUvarint(w, i, uint64(x.cp))
					i = putVarint(w, i, x.dt)
				}
				lo = g
			}
			b = putLen(w[:i], start)
		}
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(len(b)))
	return b
}

// putUvarint stores v as a uvarint at b[i:], which has room for it, and
// returns the index after it.
func putUvarint(b []byte, i int, v uint64) int {
	for v >= 0x80 {
		b[i] = byte(v) | 0x80
		v >>= 7
		i++
	}
	b[i] = byte(v)
	return i + 1
}

// putVarint stores v as a varint (zig-zag, as binary.AppendVarint) at
// b[i:], which has room for it, and returns the index after it.
func putVarint(b []byte, i int, v int64) int {
	return putUvarint(b, i, uint64(v<<1)^uint64(v>>63))
}

// appendBool appends v as a byte, 0 or 1.
func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

// gapChunk is the number of gaps of a chunk of a spilled location (block).
const gapChunk = 8

// putLen writes the length of b[at+1:] as a uvarint at b[at], where one
// byte was reserved for it, moving the bytes after it if it needs more.
func putLen(b []byte, at int) []byte {
	n := len(b) - at - 1
	if n < 0x80 {
		b[at] = byte(n)
		return b
	}
	var hdr [binary.MaxVarintLen64]byte
	h := binary.PutUvarint(hdr[:], uint64(n))
	b = append(b, hdr[:h-1]...)
	copy(b[at+h:], b[at+1:at+1+n])
	copy(b[at:], hdr[:h])
	return b
}

// close closes and removes the spill file.
func (s *spillFile) close() {
	if s == nil || s.f == nil {
		return
	}
	s.f.Close()
	if !s.removed {
		os.Remove(s.name)
	}
	s.f, s.buf = nil, nil
}

// prev reads the block before s.end into dst's storage, which it grows
// if need be, and returns it: a caller that reads the blocks one by one
// passes the last one back, so that the read-back reuses one buffer.
func (s *spillFile) prev(dst []byte) ([]byte, error) {
	if s.end < 8 {
		return nil, errors.New("waitstate: spill file: truncated")
	}
	var t [8]byte
	if _, err := s.f.ReadAt(t[:], s.end-8); err != nil {
		return nil, fmt.Errorf("waitstate: spill file: %w", err)
	}
	n := int64(binary.LittleEndian.Uint64(t[:]))
	if n < 0 || n > s.end-8 {
		return nil, errors.New("waitstate: spill file: bad block")
	}
	b := slices.Grow(dst[:0], int(n))[:n]
	if _, err := s.f.ReadAt(b, s.end-8-n); err != nil && !(errors.Is(err, io.EOF) && n == 0) {
		return nil, fmt.Errorf("waitstate: spill file: %w", err)
	}
	s.end -= 8 + n
	return b, nil
}

// replay reads the settled intervals' blocks, latest first: it adds
// their delay row additions to f's, in order, and walks the critical
// path w on through them while need holds; it returns need as the walk
// leaves it.
func (st *settled) replay(f *fin, w *cpWalk, need bool) bool {
	defer st.spill.close()
	var b []byte
	var ep *cpEpoch // the storage of the last block's, reused
	for range st.epochs {
		var err error
		b, err = st.spill.prev(b)
		if err != nil {
			f.err = err
			return false
		}
		d := &dec{b: b}
		if ds := decodeStretch(d, len(f.locs), len(f.sidUp), &st.dfr.back.rd); d.err == nil {
			st.dfr.back.replayStretch(f, ds)
		}
		if need && w != nil {
			ep = f.decodeEpoch(d, ep)
			if d.err == nil {
				if ep.has(w.loc) {
					need = w.step(ep)
				} else {
					w.end()
					need = false
				}
			}
			if ep.err != nil {
				f.err = fmt.Errorf("waitstate: spill file: %w", ep.err)
				return false
			}
		}
		if d.err != nil {
			f.err = fmt.Errorf("waitstate: spill file: %w", d.err)
			return false
		}
	}
	return need
}

// decodeEpoch reads the critical path's part of a block. It reads the
// block's integers straight from its bytes (uvarint, varint) and puts
// every location's bounds and hand-over points in one array of each
// kind, whose lengths the block gives first. The gaps' entries stay in
// the block, in chunks the walk decodes when it first needs them
// (cpEpoch.gap); ep keeps the block's bytes, which the caller must not
// reuse while it walks ep. The result reuses the storage of prev, the
// result of the last call (nil for none), which it replaces.
func (f *fin) decodeEpoch(d *dec, prev *cpEpoch) *cpEpoch {
	ep := prev
	if ep == nil || len(ep.logs) != len(f.locs) {
		ep = &cpEpoch{logs: make([]cpLog, len(f.locs)), hs: make([][]handover, len(f.locs)), used: make([][]bool, len(f.locs))}
	} else {
		clear(ep.logs)
		clear(ep.hs)
		clear(ep.used)
		ep.ents, ep.err = ep.ents[:0], nil
	}
	n := d.count(1)
	// Every bound and entry takes at least one byte, a hand-over six.
	tb, te, th := d.count(1), d.count(1), d.count(6)
	if d.err != nil {
		return ep
	}
	ep.bounds, ep.gapEnd = grow(ep.bounds, int(tb)), grow(ep.gapEnd, int(tb))
	ep.hsAll, ep.usedAll = grow(ep.hsAll, int(th)), grow(ep.usedAll, int(th))
	bounds, gapEnd := ep.bounds[:0:tb], ep.gapEnd[:tb:tb]
	hs, used := ep.hsAll[:0:th], ep.usedAll[:th:th]
	clear(used)
	ep.maxEnts, ep.nnodes = te, uint64(len(f.a.nodes))
	b, i := d.b, 0
	ep.b = b
	fail := func(what string) *cpEpoch {
		d.off += i
		d.fail(what)
		return ep
	}
	chunks := ep.chunks[:0]
	defer func() { ep.chunks = chunks }()
	for range n {
		li, j := uvarint(b, i)
		if j < 0 || li == 0 || li >= uint64(len(f.locs)) {
			return fail("bad location")
		}
		i = j
		lg := &ep.logs[li]
		lg.has = true
		b0i, j := varint(b, i)
		nb, k := uvarint(b, j)
		if k < 0 || nb == 0 || nb > uint64(cap(bounds)-len(bounds)) {
			i = max(i, j)
			return fail("bad boundaries")
		}
		i = k
		if i >= len(b) || b[i] > 1 {
			return fail("bad order flag")
		}
		lg.lazy = b[i] == 1
		i++
		b0 := model.Time(b0i)
		lg.first = b0
		start := len(bounds)
		bounds = bounds[:start+int(nb)]
		lg.bounds = bounds[start:len(bounds):len(bounds)]
		lg.bounds[0] = b0
		lg.gapEnd = gapEnd[start : start+int(nb)-1 : start+int(nb)-1]
		nh, j := uvarint(b, i)
		if j < 0 || nh > uint64(cap(hs)-len(hs)) {
			return fail("bad hand-overs")
		}
		i = j
		hstart := len(hs)
		for range nh {
			var h handover
			ds, j1 := varint(b, i)
			de, j2 := varint(b, j1)
			call, j3 := varint(b, j2)
			ploc, j4 := uvarint(b, j3)
			dpt, j5 := varint(b, j4)
			owner, j6 := uvarint(b, j5)
			if j6 < 0 || ploc == 0 || ploc >= uint64(len(f.locs)) || owner > math.MaxUint32 || call > math.MaxInt32 || call < math.MinInt32 {
				return fail("bad hand-over")
			}
			i = j6
			h.s = b0 + model.Time(ds)
			h.e = h.s - model.Time(de)
			h.call = int32(call)
			h.ploc = model.LocID(ploc)
			h.pt = b0 + model.Time(dpt)
			h.owner = uint32(owner)
			hs = append(hs, h)
		}
		ep.hs[li] = hs[hstart:len(hs):len(hs)]
		ep.used[li] = used[hstart:len(hs):len(hs)]
		// The chunks of the gaps: where each one's bytes are, and the
		// bounds between them.
		cstart := len(chunks)
		t := b0
		for k0 := 0; k0 < int(nb)-1; k0 += gapChunk {
			span, j := varint(b, i)
			m, k := uvarint(b, j)
			if k < 0 || m > uint64(len(b)-k) {
				return fail("bad chunk")
			}
			t += model.Time(span)
			lg.bounds[min(k0+gapChunk, int(nb)-1)] = t
			chunks = append(chunks, gapChunkAt{off: k, end: k + int(m), ents: -1})
			i = k + int(m)
		}
		lg.chunks = chunks[cstart:len(chunks):len(chunks)]
		if !lg.lazy {
			// Bounds out of order are searched as a whole: every chunk
			// is decoded now.
			for c := range lg.chunks {
				if !ep.decodeChunk(lg, c*gapChunk, &lg.chunks[c]) {
					i = lg.chunks[c].off
					return fail("bad chunk")
				}
			}
		}
	}
	d.b, d.off = b[i:], d.off+i
	return ep
}

// gapChunkAt is where a chunk of a spilled location's gaps is in its
// block, and where its entries start in cpEpoch.ents once decoded (-1
// before).
type gapChunkAt struct {
	off, end int
	ents     int32
}

// gap returns the entries of lg's gap k: for a spilled interval's log it
// decodes the gaps' chunk first if that was not done yet. A chunk that
// fails to decode sets ep.err and yields no entries.
func (ep *cpEpoch) gap(lg *cpLog, k int) []gapEnt {
	if lg.chunks == nil {
		lo := int32(0)
		if k > 0 {
			lo = lg.gapEnd[k-1]
		}
		return lg.ents[lo:lg.gapEnd[k]]
	}
	c := &lg.chunks[k/gapChunk]
	if c.ents < 0 && !ep.decodeChunk(lg, k-k%gapChunk, c) {
		return nil
	}
	lo := c.ents
	if k%gapChunk > 0 {
		lo = lg.gapEnd[k-1]
	}
	return ep.ents[lo:lg.gapEnd[k]]
}

// search returns the first i for which lg.bounds[i] > s (len(lg.bounds)
// if none), as sort.Search does. A spilled log whose bounds are in order
// (lazy) is searched on its chunks' first bounds first, then in the one
// chunk that holds the answer, which it decodes; the answer is the same.
// Afterwards bounds[i-1] and bounds[i] are set, and every bound up to
// the next chunk's first.
func (ep *cpEpoch) search(lg *cpLog, s model.Time) int {
	bounds := lg.bounds
	if !lg.lazy {
		return sort.Search(len(bounds), func(i int) bool { return bounds[i] > s })
	}
	nc := len(lg.chunks)
	c := sort.Search(nc, func(c int) bool { return bounds[c*gapChunk] > s })
	if c == 0 {
		return 0
	}
	c--
	k0, k1 := c*gapChunk, min(c*gapChunk+gapChunk, len(bounds)-1)
	if ch := &lg.chunks[c]; ch.ents < 0 && !ep.decodeChunk(lg, k0, ch) {
		return len(bounds)
	}
	for i := k0 + 1; i <= k1; i++ {
		if bounds[i] > s {
			return i
		}
	}
	return k1 + 1
}

// decodeChunk decodes the chunk c of lg, which starts at gap k0, into
// ep.ents, lg.gapEnd and lg.bounds.
func (ep *cpEpoch) decodeChunk(lg *cpLog, k0 int, c *gapChunkAt) bool {
	if ep.err != nil {
		return false
	}
	b, i := ep.b[:c.end], c.off
	start := len(ep.ents)
	if ep.ents == nil {
		ep.ents = make([]gapEnt, 0, min(ep.maxEnts, 1024))
	}
	k1 := min(k0+gapChunk, len(lg.gapEnd))
	t := lg.bounds[k0]
	for k := k0 + 1; k < k1; k++ {
		dt, j := varint(b, i)
		if j < 0 {
			ep.err = fmt.Errorf("%w: bad bounds at offset %d of a block", ErrState, i)
			return false
		}
		i = j
		t += model.Time(dt)
		lg.bounds[k] = t
	}
	for k := k0; k < k1; k++ {
		g, j := uvarint(b, i)
		if j < 0 || g > uint64(c.end-j) || uint64(len(ep.ents))+g > ep.maxEnts {
			ep.err = fmt.Errorf("%w: bad gaps at offset %d of a block", ErrState, i)
			return false
		}
		i = j
		for range g {
			cp, j := uvarint(b, i)
			dt, k := varint(b, j)
			if k < 0 || cp >= ep.nnodes {
				ep.err = fmt.Errorf("%w: bad call path at offset %d of a block", ErrState, i)
				return false
			}
			i = k
			ep.ents = append(ep.ents, gapEnt{uint32(cp), dt})
		}
		lg.gapEnd[k] = int32(len(ep.ents))
	}
	if i != c.end {
		ep.err = fmt.Errorf("%w: bad chunk at offset %d of a block", ErrState, i)
		return false
	}
	c.ents = int32(start)
	return true
}

// uvarint decodes the unsigned variable-length integer at b[i:] and
// returns it with the index past it; -1 if it is truncated or longer
// than ten bytes, and at once if i is -1 already, so that a run of reads
// checks once.
func uvarint(b []byte, i int) (uint64, int) {
	var v uint64
	for s := uint(0); uint(i) < uint(len(b)) && s < 64; s += 7 {
		c := b[i]
		i++
		v |= uint64(c&0x7f) << s
		if c < 0x80 {
			return v, i
		}
	}
	return 0, -1
}

// varint is uvarint for a signed (zig-zag) integer.
func varint(b []byte, i int) (int64, int) {
	u, j := uvarint(b, i)
	return int64(u>>1) ^ -int64(u&1), j
}

// finalizeSettled is Finalize for an Analyzer that settled intervals: it
// analyses the logs left, then the settled intervals' blocks (replay).
// The report is kept: the spill file is gone after the first call.
func (a *Analyzer) finalizeSettled() (*Report, error) {
	st := a.st
	if st.report != nil {
		return st.report.clone(), nil
	}
	if st.err != nil {
		st.spill.close()
		return nil, st.err
	}
	a.fill()
	diag := a.diag
	dp, sp := diag.fields(), st.diag.fields()
	for i := range dp {
		*dp[i] += *sp[i]
	}
	f := a.newFinOn(a.locs, diag)
	f.st, f.initSeen, f.sc = st, st.initSeen, &st.scratch
	for k, v := range st.rows {
		f.rows[k] = &rowVal{v.time, v.count}
	}
	f.run()
	st.spill.close()
	if f.err != nil {
		st.err = f.err
		return nil, f.err
	}
	st.report = f.report()
	st.rows, st.instances, st.exclNode = nil, nil, nil
	return st.report.clone(), nil
}

// clone returns a copy of r that shares no slice with it.
func (r *Report) clone() *Report {
	c := *r
	c.WaitStates = slices.Clone(r.WaitStates)
	c.DelayCosts = slices.Clone(r.DelayCosts)
	c.CriticalPath.Profile = slices.Clone(r.CriticalPath.Profile)
	c.CriticalPath.Locations = slices.Clone(r.CriticalPath.Locations)
	c.Top = slices.Clone(r.Top)
	c.CriticalSegments = slices.Clone(r.CriticalSegments)
	c.Instances = slices.Clone(r.Instances)
	return &c
}

// errSettled is the error of saving or joining an Analyzer that settled.
var errSettled = fmt.Errorf("%w: the Analyzer settled stretches of the trace as it went and no longer has their logs (Options.KeepLogs keeps them)", ErrState)
