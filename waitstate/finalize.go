package waitstate

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/hpctrace/hpctrace/model"
)

// Finalize ends the event streams (open regions are closed at their
// location's last time, counted in Diagnostics.OpenAtEnd) and computes
// the report from the logs of every location: messages are matched, the
// patterns evaluated, delay costs propagated and the critical path walked.
// It may be called again and returns an equal report; Add may not follow.
// Its cost is O(MPI calls + messages) plus, for delay costs, the length
// of each wait state's synchronisation interval (see the package
// documentation).
func (a *Analyzer) Finalize() (*Report, error) {
	a.end()
	if a.st == nil && a.opts.workers() > 1 {
		a.settleLogs(a.opts.workers(), settleMin) // parallel.go
	}
	if a.st != nil && (a.st.epochs > 0 || a.st.err != nil) {
		return a.finalizeSettled()
	}
	f := a.newFin()
	f.run()
	return f.report(), nil
}

// wref names a point-to-point log entry: its location and index.
type wref struct {
	loc model.LocID
	idx int32
}

// matched is a message whose receive and send are in MPI calls,
// on its receiving location: the sender, the receive's and the send's
// calls, and the send call's enter and leave times.
type matched struct {
	s            model.LocID
	rcall, scall int32
	es, ls       model.Time
}

// inst is one instance of a pattern of doc/waitstates.md §2.
type inst struct {
	pat   Pattern
	loc   model.LocID
	call  int32
	w     model.Time
	dloc  model.LocID // the delayer (0: none)
	dcall int32
	wo    bool // late_sender: also late_sender_wrong_order
}

// handover is a point where the critical path passes to another location
// (doc/waitstates.md §4).
type handover struct {
	s     model.Time // the moment the wait ended
	e     model.Time // the enter time of the waiting call
	call  int32
	ploc  model.LocID
	pt    model.Time
	owner uint32 // the waiting call's call path
}

// collMember is one location's part in a collective instance.
type collMember struct {
	loc         model.LocID
	call        int32
	root        model.LocID
	sent, recvd int64
	op          uint8
}

type collInstKey struct {
	comm model.CommID
	self model.LocID
	key  uint64
	seq  bool
	init uint8 // opInit, opFinalize for the Init/Finalize instances, else 0
}

// part is a location's participation in a collective instance, for the
// sync points of delay costs.
type part struct {
	leave model.Time
	call  int32
	inst  int32
}

type fin struct {
	a    *Analyzer
	defs *model.Defs
	locs []locLog
	diag Diagnostics

	partner  [][]wref  // Send, Recv: the matched partner (loc 0: none)
	aux      [][]int32 // Send: completion call; Recv: posting call; SendDone: the send it completes (-1 none)
	deferred [][]bool  // Send: completed by a SendDone

	msgs      [][]matched // per receiving location, in its order
	insts     []inst
	handovers [][]handover // per location

	collMembers [][]collMember // per collective instance, by location
	parts       [][]part       // per location, by leave

	// Call paths: every node's id among the distinct region-name paths
	// (sid; nodes whose paths read the same share it), each sid's parent
	// sid and leaf name, from which its string is made when a report
	// needs it (a path's string costs its depth: making every node's would
	// cost the square of the depth of a deeply nested trace), and the
	// name of each node's leaf region.
	nodeSID  []int32
	sidUp    []int32 // parent sid; -1 at the root
	sidLeaf  []string
	sidStr   map[int32]string // the strings made so far
	nodeName []int32          // index into names
	names    []string

	rows     map[rowKey]*rowVal
	rowCache [numPatterns]struct { // the last row of each pattern
		k rowKey
		v *rowVal
	}
	delay map[rowKey]*[2]float64
	cp    CriticalPath
	cpSeg []CriticalSegment // the critical path's segments, latest first

	// Settling (settle.go). epoch marks the fin of one settled interval,
	// which leaves its delay costs to the deferred pass (dout, defer.go)
	// and walks no critical path; st is the settled
	// intervals' results when this is the last fin of a run that
	// settled. initSeen marks the locations whose MPI_Init an earlier
	// interval holds; openReqs counts requests left open at the end of
	// a location's log; exclNode sums exclusive time less wait-state
	// time by call path node (critical-path imbalance).
	epoch    bool
	st       *settled
	initSeen []bool
	openReqs int64
	dout     *deferOut // the deferred pass' part of a stretch to be settled (defer.go)
	local    bool      // a stretch of settleLogs: every pair synchronised at its start
	exclNode []int64
	err      error // reading the spill file

	sc *finScratch // working storage (scratch); nil until a pass needs it
}

type rowKey struct {
	pat Pattern
	loc model.LocID
	sid int32
}

type rowVal struct {
	time  model.Time
	count int64
}

func (a *Analyzer) newFin() *fin {
	a.fill()
	return a.newFinOn(a.locs, a.diag)
}

// newFinOn returns a fin over the logs locs, whose diagnostics start at
// diag.
func (a *Analyzer) newFinOn(locs []locLog, diag Diagnostics) *fin {
	f := &fin{a: a, defs: a.defs, locs: locs, diag: diag, rows: map[rowKey]*rowVal{}, delay: map[rowKey]*[2]float64{}}
	f.callPaths()
	return f
}

// callPaths names the call path nodes.
func (f *fin) callPaths() {
	nodes := f.a.nodes
	// A node's parent comes before it, so its parent's sid is known.
	type sidKey struct {
		up   int32
		name string
	}
	ix := make(map[sidKey]int32)
	f.nodeSID = make([]int32, len(nodes))
	f.sidStr = make(map[int32]string)
	for i := range nodes {
		k := sidKey{up: -1}
		if i > 0 {
			k.name = f.regionName(nodes[i].region)
			if nodes[i].parent != 0 {
				k.up = f.nodeSID[nodes[i].parent]
			}
		} else {
			k.up = -2 // the root, no path
		}
		sid, ok := ix[k]
		if !ok {
			sid = int32(len(f.sidUp))
			ix[k] = sid
			f.sidUp = append(f.sidUp, k.up)
			f.sidLeaf = append(f.sidLeaf, k.name)
		}
		f.nodeSID[i] = sid
	}
	leaf := make([]string, len(nodes))
	for i := 1; i < len(nodes); i++ {
		leaf[i] = f.regionName(nodes[i].region)
	}
	f.names = slices.Clone(leaf)
	slices.Sort(f.names)
	f.names = slices.Compact(f.names)
	f.nodeName = make([]int32, len(nodes))
	for i, s := range leaf {
		j, _ := slices.BinarySearch(f.names, s)
		f.nodeName[i] = int32(j)
	}
}

// path returns the call path string of sid: region names from the
// outermost to the leaf, joined by "/".
func (f *fin) path(sid int32) string {
	if s, ok := f.sidStr[sid]; ok {
		return s
	}
	var names []string
	for x := sid; x >= 0; x = f.sidUp[x] {
		names = append(names, f.sidLeaf[x])
	}
	slices.Reverse(names)
	s := strings.Join(names, "/")
	f.sidStr[sid] = s
	return s
}

func (f *fin) regionName(r model.RegionID) string {
	if reg, ok := f.defs.Region(r); ok {
		return reg.Name
	}
	return ""
}

func (f *fin) call(loc model.LocID, c int32) *callRec { return &f.locs[loc].calls[c] }

func (f *fin) run() {
	if f.sc != nil { // the instances' storage of the last interval kept
		f.insts = f.sc.insts[:0]
	}
	f.match()
	f.pointToPoint()
	f.collectives()
	f.icollectives()
	f.rowsOf()
	f.delayCosts()
	f.criticalPath()
}

// match pairs the sends and receives of every channel (sender, receiver,
// tag, comm) first come first served in each location's stream order
// (doc/stats.md §5.2), and ties requests to their posting and completion
// calls.
func (f *fin) match() {
	// Channels are numbered as they come; a message is the k-th send and
	// the k-th receive of its channel. The sends are placed in one array,
	// by channel, then each receive takes its own.
	// A channel whose locations, tag and communicator fit in 16 bits
	// each (all but those of very large runs) is looked up by the four
	// packed in a word: a map of words hashes faster than one of 16-byte
	// structs.
	sc := f.scratch()
	if sc.chanIx == nil {
		sc.chanIx, sc.chanW = map[chanKey]int32{}, map[uint64]int32{}
		sc.posts, sc.sends = map[uint64]int32{}, map[uint64]int32{}
	}
	chanIx, chanW := sc.chanIx, sc.chanW
	clear(chanIx)
	clear(chanW)
	ns, nr := sc.ns[:0], sc.nr[:0] // per channel: sends, receives
	id := func(k chanKey) int32 {
		var c int32
		var ok bool
		if k.s|k.r|model.LocID(k.comm)|model.LocID(uint32(k.tag)) <= 0xffff {
			w := uint64(k.s) | uint64(k.r)<<16 | uint64(uint32(k.tag))<<32 | uint64(k.comm)<<48
			if c, ok = chanW[w]; !ok {
				c = int32(len(ns))
				chanW[w] = c
			}
		} else if c, ok = chanIx[k]; !ok {
			c = int32(len(ns))
			chanIx[k] = c
		}
		if !ok {
			ns, nr = append(ns, 0), append(nr, 0)
		}
		return c
	}
	// Every location's entries in one array of each kind: the partner,
	// the aux and deferred marks, the channel (Send, Recv).
	n := 0
	for li := range f.locs {
		n += len(f.locs[li].p2p)
	}
	sc.partner, sc.aux, sc.def = resize(sc.partner, n), grow(sc.aux, n), resize(sc.def, n)
	sc.ch = grow(sc.ch, n)
	sc.partnerL, sc.auxL, sc.defL = grow(sc.partnerL, len(f.locs)), grow(sc.auxL, len(f.locs)), grow(sc.defL, len(f.locs))
	sc.chL = grow(sc.chL, len(f.locs))
	f.partner, f.aux, f.deferred = sc.partnerL, sc.auxL, sc.defL
	chOf := sc.chL
	posts, sends := sc.posts, sc.sends
	o := 0
	for li := range f.locs {
		l := &f.locs[li]
		loc := model.LocID(li)
		k := len(l.p2p)
		f.partner[li] = sc.partner[o : o+k : o+k]
		aux := sc.aux[o : o+k : o+k]
		def := sc.def[o : o+k : o+k]
		ch := sc.ch[o : o+k : o+k]
		o += k
		clear(posts)
		clear(sends)
		for i, p := range l.p2p {
			aux[i] = p.call
			switch p.kind {
			case pSend:
				c := id(chanKey{loc, p.peer, p.tag, p.comm})
				ch[i] = c
				ns[c]++
				if p.match != 0 {
					sends[p.match] = int32(i)
				}
			case pRecv:
				c := id(chanKey{p.peer, loc, p.tag, p.comm})
				ch[i] = c
				nr[c]++
				if p.match != 0 {
					if c, ok := posts[p.match]; ok {
						aux[i] = c
						delete(posts, p.match)
					}
				}
			case pPost:
				posts[p.match] = p.call
			case pDone:
				aux[i] = -1
				if s, ok := sends[p.match]; ok {
					aux[s] = p.call
					def[s] = true
					aux[i] = s
					delete(sends, p.match)
				}
			}
		}
		f.aux[li], f.deferred[li], chOf[li] = aux, def, ch
		f.openReqs += int64(len(posts) + len(sends))
	}
	off := grow(sc.off, len(ns)+1) // the sends of channel c: flat[off[c]:off[c+1]]
	off[0] = 0
	for c, n := range ns {
		off[c+1] = off[c] + n
		k := min(n, nr[c])
		f.diag.MatchedMessages += int64(k)
		f.diag.UnmatchedSends += int64(n - k)
		f.diag.UnmatchedRecvs += int64(nr[c] - k)
	}
	flat := grow(sc.flat, int(off[len(ns)]))
	sc.ns, sc.nr, sc.off, sc.flat = ns, nr, off, flat
	clear(ns) // now: the sends placed, then the receives matched
	for li := range f.locs {
		for i, p := range f.locs[li].p2p {
			if p.kind == pSend {
				c := chOf[li][i]
				flat[off[c]+ns[c]] = wref{model.LocID(li), int32(i)}
				ns[c]++
			}
		}
	}
	clear(ns)
	for li := range f.locs {
		for i, p := range f.locs[li].p2p {
			if p.kind != pRecv {
				continue
			}
			c := chOf[li][i]
			if k := off[c] + ns[c]; k < off[c+1] {
				sr := flat[k]
				f.partner[li][i] = sr
				f.partner[sr.loc][sr.idx] = wref{model.LocID(li), int32(i)}
				ns[c]++
			}
		}
	}
}

// finScratch is the working storage of a fin's passes. A settling
// Analyzer hands it from the fin of one settled interval to the next
// (settle.go), whose passes resize it rather than allocate it anew; no
// result of a fin may point into it once the fin is done.
type finScratch struct {
	// match
	partner             []wref
	aux, ch             []int32
	def                 []bool
	partnerL            [][]wref
	auxL, chL           [][]int32
	defL                [][]bool
	chanIx              map[chanKey]int32
	chanW, posts, sends map[uint64]int32
	ns, nr, off         []int32
	flat                []wref
	// pointToPoint
	msgs         []matched
	msgsL        [][]matched
	lsW, lrW     []model.Time
	lsMsg, lrMsg []int32
	lsViol       []bool
	// delayCosts and the deferred delay costs (defer.go)
	dfr    deferScratch
	woHeap []woKept // wrongOrder's heap
	insts  []inst   // fin.insts, handed back by keep
	// The rows of a settled interval's fin, handed back by keep once
	// added to the settled rows, and the slab of their values (newRow).
	rows    map[rowKey]*rowVal
	rowSlab []rowVal
	// collectives: the instances' indexes by key, their keys and members;
	// the per-location parts and hand-overs (fin.parts, fin.handovers)
	collIx      map[collInstKey]int32
	collKeys    []collInstKey
	collMs      [][]collMember
	collMembers [][]collMember
	parts       [][]part
	handovers   [][]handover
}

// scratch returns f's working storage, made if f was given none.
func (f *fin) scratch() *finScratch {
	if f.sc == nil {
		f.sc = new(finScratch)
	}
	return f.sc
}

// grow returns s with length n, reallocated only if its capacity is
// short; its elements are not cleared (resize clears them).
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	return s[:n]
}

// wrongOrderWindow is the number of late-sender instances per receiving
// location kept as candidates for wrong order (doc/waitstates.md §2.1).
const wrongOrderWindow = 100

// pointToPoint finds late_sender (with wrong order) and late_receiver.
func (f *fin) pointToPoint() {
	sc := f.scratch()
	lsW, lrW := sc.lsW, sc.lrW
	lsMsg, lrMsg := sc.lsMsg, sc.lrMsg
	lsViol := sc.lsViol
	defer func() {
		sc.lsW, sc.lrW, sc.lsMsg, sc.lrMsg, sc.lsViol = lsW, lrW, lsMsg, lrMsg, lsViol
	}()
	// The matched receives of every location in one array.
	nrecv := 0
	for li := range f.locs {
		for i := range f.locs[li].p2p {
			if f.locs[li].p2p[i].kind == pRecv {
				nrecv++
			}
		}
	}
	all := grow(sc.msgs, nrecv)[:0]
	sc.msgs = all
	sc.msgsL = resize(sc.msgsL, len(f.locs))
	f.msgs = sc.msgsL
	for li := range f.locs {
		l := &f.locs[li]
		loc := model.LocID(li)
		n := len(l.calls)
		lsW, lrW = resize(lsW, n), resize(lrW, n)
		lsMsg, lrMsg = resize(lsMsg, n), resize(lrMsg, n)
		lsViol = resize(lsViol, n)
		// The matched receives in calls, with their sends' calls; and
		// late_sender: the latest sender of each completion call.
		msgs := all[len(all):len(all):cap(all)]
		for i, p := range l.p2p {
			if p.kind != pRecv || p.call < 0 {
				continue
			}
			pr := f.partner[li][i]
			if pr.loc == 0 {
				continue
			}
			sc := f.locs[pr.loc].p2p[pr.idx].call
			if sc < 0 {
				continue
			}
			s := f.call(pr.loc, sc)
			msgs = append(msgs, matched{s: pr.loc, rcall: p.call, scall: sc, es: s.enter, ls: s.leave})
			c := &l.calls[p.call]
			if c.op == opTest {
				continue
			}
			if v := min(s.enter, c.leave) - c.enter; v > lsW[p.call] {
				lsW[p.call], lsMsg[p.call], lsViol[p.call] = v, int32(len(msgs)-1), s.enter > c.leave
			}
		}
		f.msgs[li] = msgs[:len(msgs):len(msgs)]
		all = all[:len(all)+len(msgs)]
		firstLS := len(f.insts)
		for ci := range n {
			if lsW[ci] <= 0 {
				continue
			}
			m := &msgs[lsMsg[ci]]
			if lsViol[ci] {
				f.diag.ClockViolations++
			}
			f.insts = push(f.insts, inst{pat: LateSender, loc: loc, call: int32(ci), w: lsW[ci], dloc: m.s, dcall: m.scall})
		}
		f.wrongOrder(loc, f.insts[firstLS:])
		// late_receiver: per send-completion call, in its event order.
		for i, p := range l.p2p {
			s := int32(-1)
			switch {
			case p.kind == pSend && !f.deferred[li][i]:
				s = int32(i)
			case p.kind == pDone:
				s = f.aux[li][i]
			}
			if s < 0 {
				continue
			}
			cc := f.aux[li][s]
			pr := f.partner[li][s]
			if cc < 0 || pr.loc == 0 || l.calls[cc].op == opTest {
				continue
			}
			post := f.aux[pr.loc][pr.idx]
			if post < 0 {
				continue
			}
			ep := f.call(pr.loc, post).enter
			c := &l.calls[cc]
			if c.leave > ep {
				if v := ep - c.enter; v > lrW[cc] {
					lrW[cc], lrMsg[cc] = v, s
				}
			}
		}
		for ci := range n {
			if lrW[ci] <= 0 || lsW[ci] > 0 {
				continue
			}
			pr := f.partner[li][lrMsg[ci]]
			f.insts = push(f.insts, inst{pat: LateReceiver, loc: loc, call: int32(ci), w: lrW[ci], dloc: pr.loc, dcall: f.aux[pr.loc][pr.idx]})
		}
	}
}

// wrongOrder marks the late-sender instances of loc (in call order) that a
// later completion call on loc overtook: it completed a message sent
// (send call entered) strictly before the instance's latest sender.
func (f *fin) wrongOrder(loc model.LocID, ls []inst) {
	if len(ls) == 0 {
		return
	}
	// The kept instances not yet found wrong order, in a max-heap by the
	// enter time of their latest sender's send call. An instance leaves
	// the window when wrongOrderWindow later ones have entered it; such
	// stale entries are dropped when they reach the top, and the heap is
	// rebuilt without them when they are many.
	sc := f.scratch()
	h := sc.woHeap[:0]
	defer func() { sc.woHeap = h[:0] }()
	up := func(j int) {
		for j > 0 {
			p := (j - 1) / 2
			if h[p].es >= h[j].es {
				break
			}
			h[p], h[j] = h[j], h[p]
			j = p
		}
	}
	down := func(j int) {
		for {
			c := 2*j + 1
			if c >= len(h) {
				return
			}
			if c+1 < len(h) && h[c+1].es > h[c].es {
				c++
			}
			if h[j].es >= h[c].es {
				return
			}
			h[j], h[c] = h[c], h[j]
			j = c
		}
	}
	next := 0 // the next instance of ls to enter the window
	cur := int32(-1)
	for _, m := range f.msgs[loc] {
		if m.rcall != cur {
			// The instances of the calls before this one enter the window.
			for next < len(ls) && ls[next].call < m.rcall {
				in := &ls[next]
				h = append(h, woKept{f.call(in.dloc, in.dcall).enter, next})
				up(len(h) - 1)
				next++
			}
			if len(h) > 4*wrongOrderWindow {
				live := h[:0]
				for _, k := range h {
					if k.i >= next-wrongOrderWindow {
						live = append(live, k)
					}
				}
				h = live
				for j := len(h)/2 - 1; j >= 0; j-- {
					down(j)
				}
			}
			cur = m.rcall
		}
		es := m.es
		for len(h) > 0 && h[0].es > es {
			if k := h[0]; k.i >= next-wrongOrderWindow {
				ls[k.i].wo = true
			}
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
			down(0)
		}
	}
}

// woKept is an entry of wrongOrder's heap: a kept instance.
type woKept struct {
	es model.Time // the enter time of its latest sender's send call
	i  int        // its index in the instances
}

// sortRuns sorts v by cmp (which must order every two distinct elements)
// with a natural merge sort: lists built location by location come in a
// few sorted runs, which merging costs O(n log runs); many runs are
// sorted as usual. buf is scratch space, returned for reuse.
func sortRuns[T any](v, buf []T, cmp func(x, y T) int) []T {
	var starts [65]int
	nr := 1
	for i := 1; i < len(v); i++ {
		if cmp(v[i-1], v[i]) > 0 {
			if nr == len(starts)-1 {
				slices.SortFunc(v, cmp)
				return buf
			}
			starts[nr] = i
			nr++
		}
	}
	if nr == 1 {
		return buf
	}
	starts[nr] = len(v)
	if cap(buf) < len(v) {
		buf = make([]T, len(v))
	}
	buf = buf[:len(v)]
	src, dst := v, buf
	for nr > 1 {
		k := 0
		for r := 0; r < nr; r += 2 {
			lo, mid := starts[r], starts[r+1]
			hi := mid
			if r+2 <= nr {
				hi = starts[r+2]
			}
			a, b, o := lo, mid, lo
			for a < mid && b < hi {
				if cmp(src[b], src[a]) < 0 {
					dst[o] = src[b]
					b++
				} else {
					dst[o] = src[a]
					a++
				}
				o++
			}
			o += copy(dst[o:], src[a:mid])
			copy(dst[o:], src[b:hi])
			starts[k] = lo
			k++
		}
		starts[k] = len(v)
		nr = k
		src, dst = dst, src
	}
	if &src[0] != &v[0] {
		copy(v, src)
	}
	return buf
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// collOp returns the operation of a collective call: its call's region
// when that is a known MPI collective, else the CollBegin's region's,
// else its Class's; opNone for what is not analysed.
func (f *fin) collOp(l *locLog, c *collRec) uint8 {
	return f.a.collOp(l.calls[c.call].op, c)
}

// collectives forms the collective instances (doc/stats.md §5.6; MPI_Init
// and MPI_Finalize as one instance each over their callers) and evaluates
// their patterns.
func (f *fin) collectives() {
	// The instances' members, by key; the map, the members' slices and
	// the per-location parts and hand-overs are the scratch's, reused
	// from interval to interval.
	sc := f.scratch()
	if sc.collIx == nil {
		sc.collIx = make(map[collInstKey]int32)
	}
	insts, keys, members := sc.collIx, sc.collKeys[:0], sc.collMs[:0]
	member := func(k collInstKey) int32 {
		i, ok := insts[k]
		if !ok {
			i = int32(len(keys))
			insts[k] = i
			keys = append(keys, k)
			if len(members) < cap(members) {
				members = members[:i+1]
				members[i] = members[i][:0]
			} else {
				members = append(members, nil)
			}
		}
		return i
	}
	nseen := 0
	for li := range f.locs {
		if f.locs[li].seen {
			nseen++
		}
	}
	for li := range f.locs {
		l := &f.locs[li]
		loc := model.LocID(li)
		for i := range l.colls {
			c := &l.colls[i]
			if c.call < 0 {
				continue
			}
			op := f.collOp(l, c)
			if op == opNone {
				continue
			}
			k := collInstKey{comm: c.comm, key: c.key, seq: c.seq}
			cm, known := f.defs.Comm(c.comm)
			if known && cm.Self {
				k.self = loc
			}
			i := member(k)
			if cap(members[i]) == 0 && known && !cm.Self { // room for the members, as many as locations have events
				members[i] = make([]collMember, 0, min(len(cm.Members)+len(cm.Remote), nseen))
			}
			members[i] = append(members[i], collMember{loc: loc, call: c.call, root: c.root, sent: c.sent, recvd: c.recvd, op: op})
		}
		var sawInit, sawFin bool
		if li < len(f.initSeen) {
			sawInit = f.initSeen[li]
		}
		for ci := range l.calls {
			switch op := l.calls[ci].op; {
			case op == opInit && !sawInit, op == opFinalize && !sawFin:
				sawInit = sawInit || op == opInit
				sawFin = sawFin || op == opFinalize
				i := member(collInstKey{init: op})
				members[i] = append(members[i], collMember{loc: loc, call: int32(ci), op: op, recvd: 1})
			}
		}
	}
	slices.SortFunc(keys, func(x, y collInstKey) int {
		return cmp.Or(cmp.Compare(x.init, y.init), cmp.Compare(x.comm, y.comm), cmp.Compare(x.self, y.self),
			cmpBool(x.seq, y.seq), cmp.Compare(x.key, y.key))
	})
	sc.collKeys, sc.collMs = keys, members
	// At most one part per CollBegin, and Init and Finalize.
	sc.parts = grow(sc.parts, len(f.locs))
	for li := range f.locs {
		sc.parts[li] = sc.parts[li][:0]
		if n := len(f.locs[li].colls); n > 0 {
			sc.parts[li] = slices.Grow(sc.parts[li], n+2)
		}
	}
	f.parts = sc.parts
	sc.handovers = grow(sc.handovers, len(f.locs))
	for li := range sc.handovers {
		sc.handovers[li] = sc.handovers[li][:0]
	}
	f.handovers = sc.handovers
	f.collMembers = grow(sc.collMembers, len(keys))[:0]
	for _, k := range keys {
		ms := members[insts[k]]
		ii := int32(len(f.collMembers))
		f.collMembers = append(f.collMembers, ms)
		for _, m := range ms {
			f.parts[m.loc] = append(f.parts[m.loc], part{leave: f.call(m.loc, m.call).leave, call: m.call, inst: ii})
		}
		f.collective(k, ms)
	}
	sc.collMembers = f.collMembers
	clear(insts)
	for li := range f.parts {
		slices.SortFunc(f.parts[li], func(x, y part) int { return cmp.Or(cmp.Compare(x.leave, y.leave), cmp.Compare(x.call, y.call)) })
	}
}

func cmpBool(x, y bool) int {
	switch {
	case x == y:
		return 0
	case !x:
		return -1
	}
	return 1
}

// collective evaluates one instance; ms are its members by location.
func (f *fin) collective(k collInstKey, ms []collMember) {
	open := false
	for _, m := range ms {
		open = open || f.call(m.loc, m.call).open
	}
	var cm model.Comm
	known := true
	if k.init == 0 {
		var ok bool
		cm, ok = f.defs.Comm(k.comm)
		known = ok && (cm.Self || len(cm.Members) > 0)
		if !known {
			f.diag.UnknownComm += int64(len(ms))
		} else if !cm.Self && len(ms) < len(cm.Members)+len(cm.Remote) {
			open = true
		}
	}
	if open {
		f.diag.IncompleteColls++
	}
	op := ms[0].op
	var root model.LocID
	for _, m := range ms {
		if m.root != 0 {
			root = m.root
			break
		}
	}
	ri := -1
	for i, m := range ms {
		if root != 0 && m.loc == root {
			ri = i
		}
	}
	late := 0
	latestE := f.call(ms[0].loc, ms[0].call).enter
	earliestX := f.call(ms[0].loc, ms[0].call).leave
	for i, m := range ms {
		c := f.call(m.loc, m.call)
		if c.enter > latestE {
			latestE, late = c.enter, i
		}
		earliestX = min(earliestX, c.leave)
	}
	lm := ms[late]
	add := func(p Pattern, m collMember, v model.Time, dloc model.LocID, dcall int32, viol bool) {
		if v <= 0 {
			return
		}
		if viol {
			f.diag.ClockViolations++
		}
		f.insts = push(f.insts, inst{pat: p, loc: m.loc, call: m.call, w: v, dloc: dloc, dcall: dcall})
	}
	waitPat, complPat := Pattern(0), Pattern(0)
	switch op {
	case opBarrier:
		waitPat, complPat = WaitBarrier, BarrierCompletion
	case opNxN:
		waitPat, complPat = WaitNxN, NxNCompletion
	case opFinalize:
		waitPat = WaitFinalize
	case opInit:
		complPat = InitCompletion
	}
	switch op {
	case opBarrier, opNxN, opFinalize, opInit:
		for _, m := range ms {
			c := f.call(m.loc, m.call)
			if waitPat != 0 && (op != opNxN || m.recvd != 0) {
				add(waitPat, m, min(latestE, c.leave)-c.enter, lm.loc, lm.call, latestE > c.leave)
			}
			if complPat != 0 {
				add(complPat, m, c.leave-max(earliestX, latestE), 0, -1, false)
			}
		}
	case opBcast:
		if ri < 0 {
			return
		}
		rc := f.call(root, ms[ri].call)
		for i, m := range ms {
			if i == ri || m.recvd == 0 {
				continue
			}
			c := f.call(m.loc, m.call)
			add(LateBroadcast, m, min(rc.enter, c.leave)-c.enter, root, ms[ri].call, rc.enter > c.leave)
		}
	case opReduce:
		if ri < 0 {
			return
		}
		rm := ms[ri]
		rc := f.call(root, rm.call)
		if rm.recvd != 0 && len(ms) > 1 {
			minE := model.Time(math.MaxInt64)
			for i, m := range ms {
				if i != ri {
					minE = min(minE, f.call(m.loc, m.call).enter)
				}
			}
			add(EarlyReduce, rm, min(minE, rc.leave)-rc.enter, 0, -1, minE > rc.leave)
		}
		if latestE > rc.enter {
			f.handovers[root] = append(f.handovers[root], handover{s: min(latestE, rc.leave), e: rc.enter, call: rm.call,
				ploc: lm.loc, pt: latestE, owner: rc.cp})
		}
	case opScan:
		if !known || cm.Self || len(cm.Remote) > 0 {
			return
		}
		rank := map[model.LocID]int{}
		for r, l := range cm.Members {
			if _, dup := rank[l]; !dup {
				rank[l] = r
			}
		}
		type rm struct {
			rank int
			i    int
		}
		var byRank []rm
		for i, m := range ms {
			if r, ok := rank[m.loc]; ok {
				byRank = append(byRank, rm{r, i})
			}
		}
		slices.SortFunc(byRank, func(x, y rm) int { return cmp.Compare(x.rank, y.rank) })
		best := -1
		var bestE model.Time
		for _, x := range byRank {
			m := ms[x.i]
			c := f.call(m.loc, m.call)
			if x.rank > 0 && best >= 0 {
				bm := ms[best]
				add(EarlyScan, m, min(bestE, c.leave)-c.enter, bm.loc, bm.call, bestE > c.leave)
			}
			if best < 0 || c.enter > bestE || (c.enter == bestE && m.loc < ms[best].loc) {
				best, bestE = x.i, c.enter
			}
		}
	}
}

// isWait reports whether p is a wait state (doc/waitstates.md §3).
func isWait(p Pattern) bool {
	switch p {
	case LateSender, LateReceiver, WaitBarrier, WaitNxN, LateBroadcast, EarlyReduce, EarlyScan, WaitFinalize,
		WaitIBarrier, WaitINxN, LateIBroadcast, EarlyIReduce, EarlyIScan:
		return true
	}
	return false
}

// hasDelay reports whether the wait states of p have delay costs.
func hasDelay(p Pattern) bool {
	switch p {
	case LateSender, LateReceiver, WaitBarrier, WaitNxN, LateBroadcast:
		return true
	}
	return false
}

func (f *fin) addRow(p Pattern, loc model.LocID, call int32, v model.Time) {
	if v <= 0 {
		return
	}
	k := rowKey{p, loc, f.nodeSID[f.call(loc, call).cp]}
	c := &f.rowCache[p]
	r := c.v
	if r == nil || c.k != k {
		if r = f.rows[k]; r == nil {
			r = f.newRow()
			f.rows[k] = r
		}
		c.k, c.v = k, r
	}
	r.time += v
	r.count++
}

// newRow returns a zero row for f.rows: from the scratch's slab when f
// has a scratch (the rows of a settled interval, which keep copies
// before the slab is reused), else allocated.
func (f *fin) newRow() *rowVal {
	sc := f.sc
	if sc == nil {
		return &rowVal{}
	}
	if len(sc.rowSlab) == cap(sc.rowSlab) {
		// A new slab: the rows given out from the full one stay where
		// they are.
		sc.rowSlab = make([]rowVal, 0, max(64, 2*cap(sc.rowSlab)))
	}
	sc.rowSlab = append(sc.rowSlab, rowVal{})
	return &sc.rowSlab[len(sc.rowSlab)-1]
}

func (f *fin) rowsOf() {
	for i := range f.insts {
		in := &f.insts[i]
		f.addRow(in.pat, in.loc, in.call, in.w)
		if in.wo {
			f.addRow(LateSenderWrongOrder, in.loc, in.call, in.w)
		}
	}
}

// acc sums call path times by sid, with the sids it touched.
type acc struct {
	v       []int64
	touched []int32
}

func (x *acc) add(sid int32, d int64) {
	if x.v[sid] == 0 && d != 0 {
		x.touched = append(x.touched, sid)
	}
	x.v[sid] += d
}

func (x *acc) reset() {
	for _, s := range x.touched {
		x.v[s] = 0
	}
	x.touched = x.touched[:0]
}

// gaps adds to x the exclusive times of l's gaps ia … ib-1.
func (f *fin) gaps(l *locLog, ia, ib int32, x *acc) {
	gapEnd, ents := l.gapEnd, l.ents
	if len(l.bounds) == 0 { // a log of one gap
		_, gapEnd, ents = l.gapLog()
	}
	// The gaps' entries are contiguous: one range of ents.
	ib = min(ib, int32(len(gapEnd)))
	if ia >= ib {
		return
	}
	lo := int32(0)
	if ia > 0 {
		lo = gapEnd[ia-1]
	}
	v, sids := x.v, f.nodeSID
	for _, e := range ents[lo:gapEnd[ib-1]] {
		sid := sids[e.cp]
		if v[sid] == 0 && e.dt != 0 {
			x.touched = append(x.touched, sid)
		}
		v[sid] += e.dt
	}
}

type syncPt struct {
	lx, ly model.Time
	cx, cy int32
}

type locPair struct{ x, y model.LocID }

// pairIndex maps ordered pairs of locations to small positive numbers
// (0: none): a dense table for up to 1024 locations, a map beyond. Its
// storage is reused by reset.
type pairIndex struct {
	n     int
	dense []int32
	used  []int32 // the dense table's nonzero entries
	m     map[locPair]int32
}

// reset empties x for n locations and returns it.
func (x *pairIndex) reset(n int) *pairIndex {
	for _, i := range x.used {
		if int(i) < len(x.dense) {
			x.dense[i] = 0
		}
	}
	x.used = x.used[:0]
	clear(x.m)
	x.n = n
	if n <= 1024 {
		if x.dense == nil || len(x.dense) != n*n {
			x.dense = make([]int32, n*n)
		}
	} else {
		x.dense = nil
		if x.m == nil {
			x.m = map[locPair]int32{}
		}
	}
	return x
}

func (x *pairIndex) get(a, b model.LocID) int32 {
	if x.dense != nil {
		return x.dense[int(a)*x.n+int(b)]
	}
	return x.m[locPair{a, b}]
}

func (x *pairIndex) set(a, b model.LocID, v int32) {
	if x.dense != nil {
		i := int(a)*x.n + int(b)
		if x.dense[i] == 0 {
			x.used = append(x.used, int32(i))
		}
		x.dense[i] = v
		return
	}
	x.m[locPair{a, b}] = v
}

// delayCosts computes the delay costs, the direct/indirect split and the
// propagating/terminal split (doc/waitstates.md §3).
func (f *fin) delayCosts() {
	sc := &f.scratch().dfr
	// The wait states of each location, in call order: slices of one
	// array.
	sc.byLoc = resize(sc.byLoc, len(f.locs))
	byLoc := sc.byLoc
	sc.nw = resize(sc.nw, len(f.locs))
	nw := sc.nw
	for i := range f.insts {
		if in := &f.insts[i]; isWait(in.pat) {
			nw[in.loc]++
		}
	}
	var nwAll int
	for _, n := range nw {
		nwAll += int(n)
	}
	sc.wFlat = grow(sc.wFlat, nwAll)
	sc.ebFlat = grow(sc.ebFlat, nwAll)
	nwAll = 0
	for li, n := range nw {
		if n > 0 {
			byLoc[li] = sc.wFlat[nwAll : nwAll : nwAll+int(n)]
			nwAll += int(n)
		}
	}
	for i := range f.insts {
		if in := &f.insts[i]; isWait(in.pat) {
			c := f.call(in.loc, in.call)
			byLoc[in.loc] = append(byLoc[in.loc], wpos{c.enterB, c.leaveB, f.nodeSID[c.cp], int32(i), int64(in.w)})
		}
	}
	wBuf := sc.wBuf
	sc.ebs = resize(sc.ebs, len(f.locs)) // the eb of byLoc's entries, to search
	ebs := sc.ebs
	sc.posOf = grow(sc.posOf, len(f.insts)) // a wait state's index in byLoc
	posOf := sc.posOf
	nwAll = 0
	for li := range byLoc {
		wBuf = sortRuns(byLoc[li], wBuf, func(x, y wpos) int { // point-to-point, then collective waits
			if x.eb != y.eb {
				return cmp.Compare(x.eb, y.eb)
			}
			return cmp.Compare(x.wi, y.wi)
		})
		if len(byLoc[li]) > 0 {
			ebs[li] = sc.ebFlat[nwAll : nwAll+len(byLoc[li])]
			nwAll += len(byLoc[li])
			for k, w := range byLoc[li] {
				ebs[li][k] = w.eb
				posOf[w.wi] = int32(k)
			}
		}
	}
	sc.wBuf = wBuf
	// The pairs whose sync points are needed, and their message sync points.
	pairs := sc.pairs.reset(len(f.locs))
	pts := sc.pts[:0] // per needed pair (pairs' value − 1)
	for i := range f.insts {
		if in := &f.insts[i]; hasDelay(in.pat) && in.dloc != 0 && in.dloc != in.loc && in.dcall >= 0 {
			if pairs.get(in.loc, in.dloc) == 0 {
				pts = append(pts, nil)
				pairs.set(in.loc, in.dloc, int32(len(pts)))
			}
		}
	}
	sc.npts = resize(sc.npts, len(pts))
	npts := sc.npts
	for li := range f.locs {
		for _, m := range f.msgs[li] {
			r, s := model.LocID(li), m.s
			if k := pairs.get(r, s); k != 0 {
				npts[k-1]++
			}
			if k := pairs.get(s, r); k != 0 {
				npts[k-1]++
			}
		}
	}
	var nptAll int
	for _, n := range npts {
		nptAll += int(n)
	}
	sc.ptFlat = grow(sc.ptFlat, nptAll)
	nptAll = 0
	for k, n := range npts {
		pts[k] = sc.ptFlat[nptAll : nptAll : nptAll+int(n)]
		nptAll += int(n)
	}
	sc.pts = pts
	for li := range f.locs {
		calls := f.locs[li].calls
		for _, m := range f.msgs[li] {
			r, s := model.LocID(li), m.s
			if k := pairs.get(r, s); k != 0 {
				pts[k-1] = append(pts[k-1], syncPt{calls[m.rcall].leave, m.ls, m.rcall, m.scall})
			}
			if k := pairs.get(s, r); k != 0 {
				pts[k-1] = append(pts[k-1], syncPt{m.ls, calls[m.rcall].leave, m.scall, m.rcall})
			}
		}
	}
	cmpPt := func(x, y syncPt) int {
		switch {
		case x.lx != y.lx:
			return cmp.Compare(x.lx, y.lx)
		case x.ly != y.ly:
			return cmp.Compare(x.ly, y.ly)
		case x.cx != y.cx:
			return cmp.Compare(x.cx, y.cx)
		}
		return cmp.Compare(x.cy, y.cy)
	}
	ptBuf := sc.ptBuf
	for _, v := range pts {
		ptBuf = sortRuns(v, ptBuf, cmpPt) // two runs: each side's receives
	}
	sc.ptBuf = ptBuf

	dfr := f.deferState() // nil unless the delay costs are deferred (defer.go)
	sc.recs = resize(sc.recs, len(f.insts))
	recs := sc.recs
	ex := sc.ex[:0] // the excesses; cp holds a sid
	candPool := sc.cands[:0]
	xr, xs := &sc.xr, &sc.xs
	xr.reset()
	xs.reset()
	xr.v, xs.v = resize(xr.v, len(f.sidUp)), resize(xs.v, len(f.sidUp))
	type sideKey struct {
		loc    model.LocID
		ia, ib int32
	}
	type side struct {
		k              sideKey
		candLo, candHi int32
		wS             int64
	}
	last := side{k: sideKey{loc: 0}} // location 0 never delays
	sc.ptHints = resize(sc.ptHints, len(pts))
	sc.partHints = resize(sc.partHints, len(f.locs))
	ptHints, partHints := sc.ptHints, sc.partHints
	for j := range f.insts {
		in := &f.insts[j]
		if !hasDelay(in.pat) || in.dloc == 0 || in.dloc == in.loc || in.dcall < 0 {
			continue
		}
		R, S := in.loc, in.dloc
		wc, sc := f.call(R, in.call), f.call(S, in.dcall)
		bR, bS := wc.enter, sc.enter
		k := pairs.get(R, S) - 1
		pt, found := f.prevSync(pts[k], &ptHints[k], R, S, bR, bS, &partHints[R])
		var iaR, iaS int32
		if found {
			iaR, iaS = f.call(R, pt.cx).leaveB, f.call(S, pt.cy).leaveB
		}
		ibR, ibS := wc.enterB, sc.enterB
		iaR, iaS = min(iaR, ibR), min(iaS, ibS)
		xr.reset()
		r := dcRec{ok: true}
		if !found && dfr != nil && !f.local {
			// The interval reaches back before the stretch: its part
			// there is that of the running totals.
			sR, sS := dfr.prev(R, S)
			dfr.settledPart(R, sR, xr)
			f.gaps(&f.locs[R], 0, ibR, xr)
			for _, w := range inside(byLoc[R], ebs[R], 0, ibR) {
				if w.lb <= ibR {
					xr.add(w.sid, -w.w)
				}
			}
			xs.reset()
			lo, wS := dfr.settledPart(S, sS, xs)
			f.gaps(&f.locs[S], 0, ibS, xs)
			last = side{k: sideKey{loc: 0}, candLo: int32(len(candPool)), wS: wS}
			for _, w := range inside(byLoc[S], ebs[S], 0, ibS) {
				if w.lb <= ibS {
					xs.add(w.sid, -w.w)
					candPool = append(candPool, w.wi)
					last.wS += w.w
				}
			}
			last.candHi = int32(len(candPool))
			r.setLo, r.setHi = lo, dfr.base(S)
			slices.Sort(xs.touched)
			xs.touched = slices.Compact(xs.touched)
		} else {
			f.gaps(&f.locs[R], iaR, ibR, xr)
		}
		// R's wait states in the interval: those around this one's.
		lo, hi := int(posOf[j]), int(posOf[j])
		for e := ebs[R]; lo > 0 && e[lo-1] >= iaR; lo-- {
		}
		for e := ebs[R]; hi < len(e) && e[hi] <= ibR; hi++ {
		}
		for _, w := range byLoc[R][lo:hi] {
			if w.lb <= ibR && (found || dfr == nil || f.local) {
				xr.add(w.sid, -w.w)
			}
		}
		// The delayer's side, shared by the wait states of one
		// collective instance that have the same interval on it.
		if sk := (sideKey{S, iaS, ibS}); (found || dfr == nil || f.local) && sk != last.k {
			xs.reset()
			f.gaps(&f.locs[S], iaS, ibS, xs)
			last = side{k: sk, candLo: int32(len(candPool))}
			for _, w := range inside(byLoc[S], ebs[S], iaS, ibS) {
				if w.lb <= ibS {
					xs.add(w.sid, -w.w)
					candPool = append(candPool, w.wi)
					last.wS += w.w
				}
			}
			last.candHi = int32(len(candPool))
		}
		r.candLo, r.candHi, r.wS = last.candLo, last.candHi, last.wS
		r.exLo = int32(len(ex))
		for _, sid := range xs.touched {
			if e := xs.v[sid] - xr.v[sid]; e > 0 {
				ex = append(ex, gapEnt{uint32(sid), e})
				r.d += e
			}
		}
		r.exHi = int32(len(ex))
		recs[j] = r
	}
	sc.ex, sc.cands = ex, candPool
	// Latest first: by the end of the wait, then by enter time.
	// Each location's wait states, latest call first, are nearly in
	// order already: a few runs to merge.
	order := sc.order[:0]
	for li := range byLoc {
		ws := byLoc[li]
		for k := len(ws) - 1; k >= 0; k-- {
			order = append(order, ws[k].wi)
		}
	}
	sc.order = order
	sc.keys = grow(sc.keys, len(order))
	keys := sc.keys
	for k, i := range order {
		in := &f.insts[i]
		e := f.call(in.loc, in.call).enter
		keys[k] = okey{e + in.w, e, in.loc, in.call, in.pat, i}
	}
	sc.keyBuf = sortRuns(keys, sc.keyBuf, func(x, y okey) int { // descending
		switch {
		case x.end != y.end:
			return cmp.Compare(y.end, x.end)
		case x.e != y.e:
			return cmp.Compare(y.e, x.e)
		case x.loc != y.loc:
			return cmp.Compare(y.loc, x.loc)
		case x.call != y.call:
			return cmp.Compare(y.call, x.call)
		}
		return cmp.Compare(y.pat, x.pat)
	})
	for k := range keys {
		order[k] = keys[k].i
	}
	if dfr != nil {
		// The records of the deferred pass, latest first.
		ds := &sc.out.st
		ds.reset(len(f.locs))
		for li := range f.locs {
			ds.count[li] = int32(len(byLoc[li]))
		}
		for _, j := range order {
			in := &f.insts[j]
			if !hasDelay(in.pat) {
				continue
			}
			r := &recs[j]
			c := f.call(in.loc, in.call)
			dr := drec{pat: in.pat, loc: in.loc, dloc: in.dloc, ok: r.ok, ord: posOf[j], sid: f.nodeSID[c.cp], w: int64(in.w), d: r.d, wS: r.wS, cLo: r.setLo, cHi: r.setHi}
			if r.ok {
				dr.exLo = int32(len(ds.ex))
				ds.ex = append(ds.ex, ex[r.exLo:r.exHi]...)
				dr.exHi = int32(len(ds.ex))
				dr.caLo = int32(len(ds.cands))
				for _, i := range candPool[r.candLo:r.candHi] {
					ds.cands = append(ds.cands, posOf[i])
				}
				dr.caHi = int32(len(ds.cands))
			}
			ds.recs = append(ds.recs, dr)
		}
		f.deferDone(sc, byLoc)
		return
	}
	dcache := make([]struct { // per sid, the last delay row used
		k rowKey
		v *[2]float64
	}, len(f.sidUp))
	cost := make([]float64, len(f.insts))
	prop := make([]bool, len(f.insts))
	indirect := make([]float64, len(f.insts))
	for _, j := range order {
		r := &recs[j]
		in := &f.insts[j]
		if !r.ok || r.d+r.wS == 0 {
			continue
		}
		dw := float64(r.d + r.wS)
		sw := min(1, float64(in.w)/dw)
		sc := cost[j] / dw
		for _, e := range ex[r.exLo:r.exHi] {
			k := rowKey{in.pat, in.dloc, int32(e.cp)}
			c := &dcache[e.cp]
			v := c.v
			if v == nil || c.k != k {
				if v = f.delay[k]; v == nil {
					v = new([2]float64)
					f.delay[k] = v
				}
				c.k, c.v = k, v
			}
			v[0] += float64(e.dt) * sw
			v[1] += float64(e.dt) * sc
		}
		for _, i := range candPool[r.candLo:r.candHi] {
			cost[i] += float64(f.insts[i].w) * (sw + sc)
			prop[i] = true
		}
		indirect[j] = sw * float64(r.wS)
	}
	for i := range f.insts {
		in := &f.insts[i]
		parts, ok := waitParts(in.pat, in.w, indirect[i], prop[i])
		if !ok {
			continue
		}
		for _, x := range parts {
			f.addRow(x.pat, in.loc, in.call, x.t)
		}
	}
}

// wpos is a wait state's place on its location: its call's boundaries,
// its call path's sid, its index in fin.insts and its value.
type wpos struct {
	eb, lb int32
	sid    int32
	wi     int32
	w      int64
}

// inside returns the wait states of ws (in call order, ebs their eb)
// whose calls enter in the boundaries [ia, ib]; the caller checks that
// they also leave in them.
func inside(ws []wpos, ebs []int32, ia, ib int32) []wpos {
	lo := searchInt32(ebs, ia)
	hi := lo + searchInt32(ebs[lo:], ib+1)
	return ws[lo:hi]
}

// searchInt32 returns the index of the first element of the sorted a
// that is ≥ v (len(a) if none).
func searchInt32(a []int32, v int32) int {
	lo, hi := 0, len(a)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if a[m] < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// prevSync returns the previous common sync point of R and S before bR on
// R and bS on S (doc/waitstates.md §3.1): the matched message (list pts,
// sorted) or collective instance with both whose calls left at ≤ bR on R
// and ≤ bS on S, with the largest (leave on R, leave on S).
//
// ptHint and partHint are where the previous searches in pts and in R's
// collectives ended: wait states come mostly in time order, so the next
// search starts there.
func (f *fin) prevSync(pts []syncPt, ptHint *int32, R, S model.LocID, bR, bS model.Time, partHint *int32) (syncPt, bool) {
	var best syncPt
	found := false
	lo := after(len(pts), int(*ptHint), func(i int) bool { return pts[i].lx <= bR }) // the first point with lx > bR
	*ptHint = int32(lo)
	for i := lo - 1; i >= 0; i-- {
		if pts[i].ly <= bS {
			best, found = pts[i], true
			break
		}
	}
	ps := f.parts[R]
	lo = after(len(ps), int(*partHint), func(i int) bool { return ps[i].leave <= bR }) // the first part with leave > bR
	*partHint = int32(lo)
	for i := lo - 1; i >= 0; i-- {
		p := ps[i]
		if found && p.leave < best.lx {
			break
		}
		ms := f.collMembers[p.inst]
		j, ok := member(ms, S)
		if !ok {
			continue
		}
		ls := f.call(S, ms[j].call).leave
		if ls > bS {
			continue
		}
		c := syncPt{p.leave, ls, p.call, ms[j].call}
		if !found || c.lx > best.lx || (c.lx == best.lx && c.ly > best.ly) {
			best, found = c, true
		}
	}
	return best, found
}

// after returns the first i in [0, n) for which le(i) is false, given
// that le holds on a prefix: it looks first at the few elements from
// hint on (the previous answer), then searches by halves.
func after(n, hint int, le func(i int) bool) int {
	lo, hi := 0, n
	if hint > 0 && hint <= n && le(hint-1) {
		lo = hint
		for end := min(n, hint+4); lo < end; lo++ {
			if !le(lo) {
				return lo
			}
		}
	} else if hint < n && hint > 0 {
		hi = hint
	}
	for lo < hi {
		if m := int(uint(lo+hi) >> 1); le(m) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// member returns the index of loc among ms (sorted by location).
func member(ms []collMember, loc model.LocID) (int, bool) {
	if len(ms) == 0 {
		return 0, false
	}
	if j := int(loc) - int(ms[0].loc); j >= 0 && j < len(ms) && ms[j].loc == loc && (j == 0 || ms[j-1].loc < loc) { // the usual dense membership
		return j, true
	}
	lo, hi := 0, len(ms)
	for lo < hi {
		if m := int(uint(lo+hi) >> 1); ms[m].loc < loc {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(ms) && ms[lo].loc == loc
}

// criticalPath walks the critical path backwards (doc/waitstates.md §4).
// The fin of a settled interval only makes its hand-over points and sums
// its exclusive times (settle.go spills them); the last fin walks its own
// logs, then those of the settled intervals, latest first (finalizeSettled).
func (f *fin) criticalPath() {
	f.buildHandovers()
	f.exclOf()
	if f.epoch {
		return
	}
	w := f.newWalk()
	need := w != nil && w.step(f.liveEpoch())
	if f.st != nil {
		// The settled intervals, latest first: their delay row
		// additions, and the walk while it needs them.
		need = f.st.replay(f, w, need)
	}
	if w == nil {
		return
	}
	if need {
		w.end()
	}
	f.finishCP(w)
}

// buildHandovers adds the wait states' hand-over points to those of the
// reductions (collectives) and sorts each location's.
func (f *fin) buildHandovers() {
	nh := make([]int32, len(f.locs)) // at most the hand-overs below
	for i := range f.insts {
		if in := &f.insts[i]; in.dloc != 0 && in.dcall >= 0 {
			nh[in.loc]++
		}
	}
	for li, n := range nh {
		if n > 0 {
			f.handovers[li] = slices.Grow(f.handovers[li], int(n))
		}
	}
	for i := range f.insts {
		in := &f.insts[i]
		switch in.pat {
		case LateSender, LateReceiver, WaitBarrier, WaitNxN, LateBroadcast, EarlyScan, WaitFinalize,
			WaitIBarrier, WaitINxN, LateIBroadcast, EarlyIScan:
		default:
			continue
		}
		if in.dloc == 0 || in.dcall < 0 {
			continue
		}
		c := f.call(in.loc, in.call)
		f.handovers[in.loc] = append(f.handovers[in.loc], handover{s: c.enter + in.w, e: c.enter, call: in.call,
			ploc: in.dloc, pt: f.call(in.dloc, in.dcall).enter, owner: c.cp})
	}
	cmpH := func(x, y handover) int {
		switch {
		case x.s != y.s:
			return cmp.Compare(x.s, y.s)
		case x.e != y.e:
			return cmp.Compare(x.e, y.e)
		case x.call != y.call:
			return cmp.Compare(x.call, y.call)
		case x.ploc != y.ploc:
			return cmp.Compare(x.ploc, y.ploc)
		}
		return cmp.Compare(x.pt, y.pt)
	}
	var hBuf []handover
	for li := range f.handovers {
		hBuf = sortRuns(f.handovers[li], hBuf, cmpH)
	}
}

// exclOf sums, by call path node, the exclusive time of f's logs less
// the wait-state time charged to each node.
func (f *fin) exclOf() {
	f.exclNode = make([]int64, len(f.a.nodes))
	for li := range f.locs {
		l := &f.locs[li]
		if !l.seen {
			continue
		}
		for _, e := range l.gapEnts() {
			f.exclNode[e.cp] += e.dt
		}
	}
	for i := range f.insts {
		if in := &f.insts[i]; isWait(in.pat) {
			f.exclNode[f.call(in.loc, in.call).cp] -= int64(in.w)
		}
	}
}

// cpEpoch is what the walk of the critical path needs of the logs of an
// interval: each location's gaps and sorted hand-over points.
type cpEpoch struct {
	logs []cpLog // by location
	hs   [][]handover
	used [][]bool
	// A settled interval's (decodeEpoch): its block, the entries of the
	// gap chunks decoded so far, their most and the number of call path
	// nodes (bounds for decodeChunk's checks), and the first chunk that
	// failed to decode.
	b       []byte
	ents    []gapEnt
	maxEnts uint64
	nnodes  uint64
	err     error
	// The storage of logs' bounds and gap ends, of hs and used, and of
	// the chunks, which the next block's decodeEpoch reuses.
	bounds  []model.Time
	gapEnd  []int32
	hsAll   []handover
	usedAll []bool
	chunks  []gapChunkAt
}

// cpLog is a location's gaps in one interval (has: the interval holds
// the location); first is its first time there. The entries of gap k
// are ents[gapEnd[k-1]:gapEnd[k]] (cpEpoch.gap); in a settled
// interval's log (chunks not nil) those of the chunks decoded, in
// cpEpoch.ents.
type cpLog struct {
	has    bool
	first  model.Time
	bounds []model.Time
	gapEnd []int32
	ents   []gapEnt
	chunks []gapChunkAt
	lazy   bool // bounds in order, whose chunks are decoded when needed
}

func (ep *cpEpoch) has(loc model.LocID) bool { return int(loc) < len(ep.logs) && ep.logs[loc].has }

// liveEpoch returns the walk's view of f's own logs.
func (f *fin) liveEpoch() *cpEpoch {
	ep := &cpEpoch{logs: make([]cpLog, len(f.locs)), hs: f.handovers, used: make([][]bool, len(f.handovers))}
	for li := range f.locs {
		l := &f.locs[li]
		if !l.seen {
			continue
		}
		b, g, e := l.gapLog()
		ep.logs[li] = cpLog{has: true, first: l.first, bounds: b, gapEnd: g, ents: e}
	}
	return ep
}

// cpWalk is the state of the backward walk: the location it is on, the
// time it has reached there, and what it has summed.
type cpWalk struct {
	f         *fin
	loc       model.LocID
	t         model.Time
	pendFirst model.Time // the first time of loc in the latest interval walked
	prof      []int64
	perLoc    []int64
	length    int64
}

// newWalk starts the walk at the location with the last event (ties:
// lowest id); nil if there is none.
func (f *fin) newWalk() *cpWalk {
	var loc model.LocID
	var t model.Time
	for li := range f.locs {
		if l := &f.locs[li]; l.seen && (loc == 0 || l.last > t) {
			loc, t = model.LocID(li), l.last
		}
	}
	if loc == 0 {
		return nil
	}
	return &cpWalk{f: f, loc: loc, t: t, prof: make([]int64, len(f.names)), perLoc: make([]int64, len(f.locs))}
}

// step walks ep until the path leaves it or ends; it reports whether the
// walk needs the interval before ep: the location it is on has no
// hand-over point left in ep, whose time before w.t is summed already.
func (w *cpWalk) step(ep *cpEpoch) bool {
	f := w.f
	for {
		loc, t := w.loc, w.t
		lg := &ep.logs[loc]
		var hs []handover
		if int(loc) < len(ep.hs) {
			hs = ep.hs[loc]
		}
		if ep.used[loc] == nil && len(hs) > 0 {
			ep.used[loc] = make([]bool, len(hs))
		}
		k := sort.Search(len(hs), func(i int) bool { return hs[i].s > t })
		best := -1
		for i := k - 1; i >= 0; i-- {
			if best >= 0 && hs[i].s < hs[best].s {
				break
			}
			if !ep.used[loc][i] && hs[i].e < t && (best < 0 || hs[i].e > hs[best].e) {
				best = i
			}
		}
		if best < 0 {
			f.profile(ep, lg, lg.first, t, 0, w.prof)
			w.pendFirst = lg.first
			return true
		}
		h := hs[best]
		ep.used[loc][best] = true
		f.profile(ep, lg, h.s, t, h.owner, w.prof)
		w.length += int64(t - h.s)
		w.perLoc[loc] += int64(t - h.s)
		if h.s < t {
			f.cpSeg = append(f.cpSeg, CriticalSegment{Loc: loc, Start: h.s, End: t})
		}
		w.loc, w.t = h.ploc, min(h.pt, h.s)
		if !ep.has(w.loc) {
			w.pendFirst = w.t
			return false
		}
	}
}

// end ends the walk on its location: the segment from the location's
// first time to the walk's is on the path (its profile is summed).
func (w *cpWalk) end() {
	if s, t := w.pendFirst, w.t; s < t {
		w.length += int64(t - s)
		w.perLoc[w.loc] += int64(t - s)
		w.f.cpSeg = append(w.f.cpSeg, CriticalSegment{Loc: w.loc, Start: s, End: t})
	}
}

// finishCP fills f.cp from the walk and the exclusive times.
func (f *fin) finishCP(w *cpWalk) {
	f.cp.Length = model.Time(w.length)
	slices.Reverse(f.cpSeg)
	for li, v := range w.perLoc {
		if v > 0 {
			f.cp.Locations = append(f.cp.Locations, CriticalLocation{Loc: model.LocID(li), Time: model.Time(v)})
		}
	}
	// Imbalance: the mean over locations of each region's exclusive time
	// less the wait-state time charged to it.
	excl := make([]int64, len(f.names))
	for cp, v := range f.exclNode {
		excl[f.nodeName[cp]] += v
	}
	if f.st != nil {
		for cp, v := range f.st.exclNode {
			excl[f.nodeName[cp]] += v
		}
	}
	nloc := 0
	for li := range f.locs {
		if f.locs[li].seen {
			nloc++
		}
	}
	for ni, v := range w.prof {
		if v <= 0 {
			continue
		}
		mean := float64(excl[ni]) / float64(max(nloc, 1))
		f.cp.Profile = append(f.cp.Profile, CriticalRegion{Region: f.names[ni], Time: model.Time(v), Imbalance: max(0, float64(v)-mean)})
	}
}

// profile adds to prof, by leaf region name, the exclusive times of lg in
// [s, t]. The part of the gap holding s before s is taken first from owner
// (the waiting call, whose waiting part is never on the path), the part of
// the gap holding t after t from its last entries.
func (f *fin) profile(ep *cpEpoch, lg *cpLog, s, t model.Time, owner uint32, prof []int64) {
	if t <= s {
		return
	}
	bounds := lg.bounds
	nb := len(bounds)
	k := ep.search(lg, s) - 1
	k = max(k, 0)
	var tmp []gapEnt
	for ; k < nb-1 && bounds[k] < t; k++ {
		ents := ep.gap(lg, k) // decodes the chunk of gap k and its bounds
		g0, g1 := bounds[k], bounds[k+1]
		cut0, cut1 := int64(max(0, s-g0)), int64(max(0, g1-t))
		if cut0 == 0 && cut1 == 0 {
			for _, e := range ents {
				prof[f.nodeName[e.cp]] += e.dt
			}
			continue
		}
		tmp = append(tmp[:0], ents...)
		for i := range tmp {
			if cut0 > 0 && tmp[i].cp == owner {
				d := min(cut0, tmp[i].dt)
				tmp[i].dt -= d
				cut0 -= d
			}
		}
		for i := 0; i < len(tmp) && cut0 > 0; i++ {
			d := min(cut0, tmp[i].dt)
			tmp[i].dt -= d
			cut0 -= d
		}
		for i := len(tmp) - 1; i >= 0 && cut1 > 0; i-- {
			d := min(cut1, tmp[i].dt)
			tmp[i].dt -= d
			cut1 -= d
		}
		for _, e := range tmp {
			prof[f.nodeName[e.cp]] += e.dt
		}
	}
}

// report builds the report.
func (f *fin) report() *Report {
	r := &Report{TimeBase: f.defs.TimeBase, Diagnostics: f.diag, CriticalPath: f.cp}
	if f.st != nil {
		r.MPI = f.st.mpi
	}
	for li := range f.locs {
		l := &f.locs[li]
		if !l.seen {
			continue
		}
		r.Total += l.last - l.first
		var outerLeave model.Time
		first := true
		if f.st != nil && li < len(f.st.hadCall) && f.st.hadCall[li] {
			first, outerLeave = false, f.st.outerLeave[li]
		}
		for i := range l.calls {
			c := &l.calls[i]
			if first || c.enter >= outerLeave {
				first = false
				r.MPI += max(0, c.leave-c.enter)
				outerLeave = c.leave
			}
		}
	}
	for k, v := range f.rows {
		r.WaitStates = append(r.WaitStates, WaitState{Pattern: k.pat, Loc: k.loc, CallPath: f.path(k.sid), Time: v.time, Count: v.count})
	}
	slices.SortFunc(r.WaitStates, func(x, y WaitState) int {
		return cmp.Or(cmp.Compare(x.Pattern, y.Pattern), cmp.Compare(x.Loc, y.Loc), strings.Compare(x.CallPath, y.CallPath))
	})
	for k, v := range f.delay {
		if v[0] == 0 && v[1] == 0 {
			continue
		}
		r.DelayCosts = append(r.DelayCosts, DelayCost{Pattern: k.pat, Loc: k.loc, CallPath: f.path(k.sid), ShortTerm: v[0], LongTerm: v[1]})
	}
	slices.SortFunc(r.DelayCosts, func(x, y DelayCost) int {
		return cmp.Or(cmp.Compare(x.Pattern, y.Pattern), cmp.Compare(x.Loc, y.Loc), strings.Compare(x.CallPath, y.CallPath))
	})
	r.Top = f.top(f.a.opts.topN())
	r.CriticalSegments = f.cpSeg
	if f.a.opts.Instances {
		r.Instances = f.allInstances()
		sortByWaiter(r.Instances)
	}
	return r
}

// callOf describes call c of loc.
func (f *fin) callOf(loc model.LocID, c int32) Call {
	if loc == 0 || c < 0 {
		return Call{}
	}
	cr := f.call(loc, c)
	return Call{Loc: loc, Region: f.a.nodes[cr.cp].region, CallPath: f.path(f.nodeSID[cr.cp]), Enter: cr.enter, Leave: cr.leave}
}

func (f *fin) instance(in *inst, p Pattern) Instance {
	return Instance{Pattern: p, Time: in.w, Waiter: f.callOf(in.loc, in.call), Delayer: f.callOf(in.dloc, in.dcall)}
}

// allInstances returns every instance of a §2 pattern (wrong-order ones
// twice, the second time as late_sender_wrong_order) in pattern order,
// most severe first (ties: earlier, then lower location).
func (f *fin) allInstances() []Instance {
	var out []Instance
	if f.st != nil {
		out = f.st.instances
	}
	out = f.appendInstances(out)
	slices.SortFunc(out, cmpInstance)
	return out
}

// appendInstances appends f's instances, unsorted.
func (f *fin) appendInstances(out []Instance) []Instance {
	for i := range f.insts {
		in := &f.insts[i]
		out = append(out, f.instance(in, in.pat))
		if in.wo {
			out = append(out, f.instance(in, LateSenderWrongOrder))
		}
	}
	return out
}

func cmpInstance(x, y Instance) int {
	return cmp.Or(cmp.Compare(x.Pattern, y.Pattern), cmp.Compare(y.Time, x.Time), cmp.Compare(x.Waiter.Enter, y.Waiter.Enter),
		cmp.Compare(x.Waiter.Loc, y.Waiter.Loc), cmp.Compare(x.Waiter.Leave, y.Waiter.Leave), strings.Compare(x.Waiter.CallPath, y.Waiter.CallPath),
		cmp.Compare(x.Delayer.Loc, y.Delayer.Loc), cmp.Compare(x.Delayer.Enter, y.Delayer.Enter))
}

func (f *fin) top(n int) []Instance {
	if n <= 0 {
		return nil
	}
	var best [numPatterns][]topCand
	ep := int32(0)
	if f.st != nil {
		for p := range best {
			best[p] = slices.Clone(f.st.best[p])
		}
		ep = f.st.epochs
	}
	f.topInto(&best, n, ep)
	var out []Instance
	for p := range best {
		k := len(out)
		for _, c := range best[p] {
			out = append(out, c.in)
		}
		slices.SortStableFunc(out[k:], cmpInstance)
	}
	return out
}

// topCand is a candidate for Report.Top: its order (severity, then enter
// time, location, interval and index among its interval's instances)
// and, once kept, its description.
type topCand struct {
	w, e model.Time
	loc  model.LocID
	ep   int32
	i    int32
	in   Instance
	done bool // in is made
}

// topInto keeps in best, per pattern, the n most severe of best and f's
// instances (f being interval ep), selected on the compact records (an
// index with the wrong-order flag as pattern) before the kept ones of f
// are described.
func (f *fin) topInto(best *[numPatterns][]topCand, n int, ep int32) {
	if n <= 0 {
		return
	}
	less := func(x, y *topCand) bool { // x more severe than y
		return cmp.Or(cmp.Compare(y.w, x.w), cmp.Compare(x.e, y.e), cmp.Compare(x.loc, y.loc), cmp.Compare(x.ep, y.ep), cmp.Compare(x.i, y.i)) < 0
	}
	keep := func(p Pattern, c topCand) {
		b := best[p]
		if len(b) == n && !less(&c, &b[n-1]) {
			return
		}
		if len(b) < n {
			b = append(b, c)
		} else {
			b[n-1] = c
		}
		for j := len(b) - 1; j > 0 && less(&b[j], &b[j-1]); j-- {
			b[j], b[j-1] = b[j-1], b[j]
		}
		best[p] = b
	}
	for i := range f.insts {
		in := &f.insts[i]
		c := topCand{w: in.w, e: f.call(in.loc, in.call).enter, loc: in.loc, ep: ep, i: int32(i)}
		keep(in.pat, c)
		if in.wo {
			keep(LateSenderWrongOrder, c)
		}
	}
	for p := range best {
		for j := range best[p] {
			if c := &best[p][j]; !c.done {
				c.in, c.done = f.instance(&f.insts[c.i], Pattern(p)), true
			}
		}
	}
}

// A waitPart is a part of a wait state's time charged to a sub-pattern.
type waitPart struct {
	pat Pattern
	t   model.Time
}

// waitParts splits a late sender or late receiver wait of time w, of
// which indirect (rounded, at most w) was caused indirectly: its
// indirect and direct parts, then the whole as propagating or terminal
// (doc/waitstates.md §3.4); ok is false for every other pattern.
func waitParts(p Pattern, w model.Time, indirect float64, propagates bool) (parts [3]waitPart, ok bool) {
	var dir, ind, pr, te Pattern
	switch p {
	case LateSender:
		dir, ind, pr, te = LateSenderDirect, LateSenderIndirect, LateSenderPropagating, LateSenderTerminal
	case LateReceiver:
		dir, ind, pr, te = LateReceiverDirect, LateReceiverIndirect, LateReceiverPropagating, LateReceiverTerminal
	default:
		return parts, false
	}
	iv := min(model.Time(math.Round(indirect)), w)
	last := te
	if propagates {
		last = pr
	}
	return [3]waitPart{{ind, iv}, {dir, w - iv}, {last, w}}, true
}
