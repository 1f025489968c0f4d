package stats

import (
	"iter"
	"math/bits"
	"slices"

	"github.com/hpctrace/hpctrace/model"
)

// dir is the direction of a message endpoint. Send sorts before recv.
type dir uint8

const (
	dirSend dir = iota
	dirRecv
)

func (d dir) String() string {
	if d == dirSend {
		return "send"
	}
	return "recv"
}

// opRec is a communication operation: the frame in which message endpoints
// occurred, with the bookkeeping to settle its synchronisation delay.
type opRec struct {
	loc         model.LocID
	caller      model.RegionID
	site        model.SiteID
	region      model.RegionID
	enter       model.Time
	leave       model.Time
	closed      bool
	pending     int32 // endpoints not yet matched or settled
	first, last int32 // endpoint list
}

type endpoint struct {
	op           int32
	next         int32
	q            int32 // channel queue while unmatched
	gen          uint32
	dir          dir
	flags        model.Flags
	matched      bool
	settled      bool // matched, or given up as unmatched
	peer         model.LocID
	bytes        int64
	evTime       model.Time
	partnerEnter model.Time
}

type chanKey struct {
	sender, receiver model.LocID
	tag              int32
	comm             model.CommID
}

// hash mixes the fields of k, which differ mostly in their low bits
// (locations, tags), into the high bits of the result.
func (k chanKey) hash() uint64 {
	h := uint64(k.sender)<<32 | uint64(k.receiver)
	h ^= (uint64(uint32(k.tag))<<32 | uint64(k.comm)) * 0x9e3779b97f4a7c15
	return h * 0xbf58476d1ce4e5b9
}

// A chanIndex finds a channel's position in commState.chanQ by its key.
// It is a hash table of positions with linear probing; the keys are the
// channels' own (chanQueue.key), so it holds four bytes per slot. A run
// whose messages each have their own tag makes a channel per message, so
// a missing key is the common case: it costs a probe or two of a slice
// that stays a few times the channels in flight (dropIdleChans), not a
// map's hashing and lookup of the key and its insertion apart.
type chanIndex struct {
	slots []int32 // position + 1, 0 when empty; a power of two long, or empty
	shift uint8   // 64 - log2(len(slots)): a key's first slot is hash >> shift
	n     int     // positions held
}

// find returns the position of k among chanQ, false if it has none.
func (x *chanIndex) find(chanQ []chanQueue, k chanKey) (int32, bool) {
	if len(x.slots) == 0 {
		return 0, false
	}
	mask := uint64(len(x.slots) - 1)
	for i := k.hash() >> x.shift; ; i = (i + 1) & mask {
		s := x.slots[i]
		if s == 0 {
			return 0, false
		}
		if chanQ[s-1].key == k {
			return s - 1, true
		}
	}
}

// add indexes position qi of chanQ, whose key it does not hold; chanQ
// holds every position indexed.
func (x *chanIndex) add(chanQ []chanQueue, qi int32) {
	if 2*(x.n+1) > len(x.slots) { // at most half full: a probe or two
		x.rehash(chanQ, max(64, 2*len(x.slots)))
	}
	x.place(chanQ[qi].key, qi)
	x.n++
}

// place puts position qi of key k in the first free slot from k's.
func (x *chanIndex) place(k chanKey, qi int32) {
	mask := uint64(len(x.slots) - 1)
	i := k.hash() >> x.shift
	for x.slots[i] != 0 {
		i = (i + 1) & mask
	}
	x.slots[i] = qi + 1
}

// rehash rebuilds the slots, n of them, with the positions of chanQ
// indexed so far.
func (x *chanIndex) rehash(chanQ []chanQueue, n int) {
	old := x.slots
	x.slots = make([]int32, n)
	x.shift = uint8(64 - bits.TrailingZeros(uint(n)))
	for _, s := range old {
		if s != 0 {
			x.place(chanQ[s-1].key, s-1)
		}
	}
}

// reset empties x, keeping its slots unless they are more than eight
// times what n positions need.
func (x *chanIndex) reset(n int) {
	if len(x.slots) > 8*max(64, 2*n) {
		x.slots = nil
	}
	clear(x.slots)
	x.n = 0
}

// clone returns a copy of x.
func (x *chanIndex) clone() chanIndex {
	return chanIndex{slots: slices.Clone(x.slots), shift: x.shift, n: x.n}
}

// all yields the key and position of every channel indexed, chanQ's.
func (x *chanIndex) all(chanQ []chanQueue) iter.Seq2[chanKey, int32] {
	return func(yield func(chanKey, int32) bool) {
		for _, s := range x.slots {
			if s != 0 && !yield(chanQ[s-1].key, s-1) {
				return
			}
		}
	}
}

// queue is a FIFO of endpoint indices that reuses its storage.
type queue struct {
	q    []int32 // endpoint indices; a negative one is a spilled end (spill.go)
	head int
	scan int // the first scan entries were considered for spilling
}

func (q *queue) len() int { return len(q.q) - q.head }
func (q *queue) push(i int32) {
	// The space before head is reused when the queue empties, or when it
	// is at least half the storage that must otherwise grow (a queue that
	// never empties, as a channel's across epochs, keeps a bounded size).
	if q.head > 0 && (q.head == len(q.q) || (len(q.q) == cap(q.q) && 2*q.head >= len(q.q))) {
		q.q, q.head = q.q[:copy(q.q, q.q[q.head:])], 0
	}
	q.q = append(q.q, i)
}
func (q *queue) pop() int32 {
	i := q.q[q.head]
	q.head++
	if q.scan > 0 {
		q.scan--
	}
	if q.head == len(q.q) {
		q.q, q.head = q.q[:0], 0
	}
	return i
}

// chanQueue holds the unmatched endpoints of a channel and the table cells
// its messages update.
type chanQueue struct {
	key          chanKey
	sends, recvs queue
	matSend      *pairStat
	matRecv      *pairStat
	transfer     *transferStat
}

type epRef struct {
	idx int32
	gen uint32
}

type comKey struct {
	loc    model.LocID
	caller model.RegionID
	site   model.SiteID
	op     model.RegionID
	peer   model.LocID
	dir    dir
}

type comStat struct {
	count, bytes, sync, trans, matched int64
}

type pairKey struct{ sender, receiver model.LocID }

type pairStat struct {
	count, bytes int64
}

type transferStat struct {
	sum, n, backward int64
}

type histBin struct{ count, bytes int64 }

// commState holds point-to-point matching state and tables.
type commState struct {
	ops     []opRec
	freeOps []int32
	eps     []endpoint
	freeEps []int32

	// chanQ[chans.find(k)] is channel k: its unmatched sends and
	// receives, at most one of them non-empty.
	chans   chanIndex
	chanQ   []chanQueue
	order   []epRef // unmatched endpoints in arrival order, for eviction
	ordHead int
	npend   int
	sp      spillState // ends that waited long, in a temporary file

	com      map[comKey]*comStat
	matSend  map[pairKey]*pairStat
	matRecv  map[pairKey]*pairStat
	transfer map[pairKey]*transferStat
	hist     [65]histBin
}

func (c *commState) init() {
	c.com = make(map[comKey]*comStat)
	c.matSend = make(map[pairKey]*pairStat)
	c.matRecv = make(map[pairKey]*pairStat)
	c.transfer = make(map[pairKey]*transferStat)
}

// sizeBin returns the log2 bin of a message size: 0 for 0 bytes, k >= 1 for
// [2^(k-1), 2^k - 1].
func sizeBin(n int64) int {
	if n <= 0 {
		return 0
	}
	return bits.Len64(uint64(n))
}

func (a *Accumulator) message(ev *model.Event, ls *locState) {
	c := &a.comm
	d := dirSend
	ck := chanKey{ev.Loc, ev.Peer, ev.Tag, ev.Comm}
	if ev.Kind == model.KindRecv {
		d = dirRecv
		ck = chanKey{ev.Peer, ev.Loc, ev.Tag, ev.Comm}
	}
	if ev.Peer == 0 {
		a.unknownPeer(ev, ls, d)
		return
	}
	qi, ok := c.chans.find(c.chanQ, ck)
	if !ok {
		if len(c.chanQ) >= 2*c.npend+chanSlack {
			a.dropIdleChans()
		}
		qi = a.addChan(ck)
	}
	q := &c.chanQ[qi]
	if d == dirSend {
		q.matSend.count++
		a.addSat(&q.matSend.bytes, ev.Bytes)
		if ev.Flags&model.BytesUnknown == 0 {
			h := &c.hist[sizeBin(ev.Bytes)]
			h.count++
			a.addSat(&h.bytes, ev.Bytes)
		}
	} else {
		q.matRecv.count++
		a.addSat(&q.matRecv.bytes, ev.Bytes)
	}
	if a.opts.Relative != nil {
		a.relVolume(ls, ev.Bytes)
	}

	a.enqueue(qi, a.endpoint(ev, ls, qi, d, false), d)
}

// enqueue matches the endpoint ei, pending on channel qi in direction d,
// with the oldest waiting endpoint of the other direction, or queues it.
func (a *Accumulator) enqueue(qi, ei int32, d dir) {
	c := &a.comm
	q := &c.chanQ[qi]
	mine, other := &q.sends, &q.recvs
	if d == dirRecv {
		mine, other = other, mine
	}
	if other.len() > 0 {
		pi := other.pop()
		if pi < 0 {
			pi = a.unspill(pi)
		}
		c.npend--
		if d == dirSend {
			a.match(ei, pi)
		} else {
			a.match(pi, ei)
		}
		return
	}
	mine.push(ei)
	c.npend++
	if len(c.order)-c.ordHead > 2*c.npend+1024 {
		c.compactOrder()
	}
	c.order = append(c.order, epRef{ei, c.eps[ei].gen})
	if c.npend > a.opts.MaxPending {
		a.evict()
	}
	a.maybeSpill()
}

// endpoint adds the message end of ev, on channel q (-1: none) in
// direction d, to the operation of ev, the innermost open frame of its
// location or a zero-length operation, and returns its index. An end not
// settled at once counts as pending in its operation.
//
// The operation and the end are filled in place: a struct built apart
// and copied in is stored field by field and loaded back whole, which
// stalls the store-to-load forwarding of the copy.
func (a *Accumulator) endpoint(ev *model.Event, ls *locState, q int32, d dir, settled bool) int32 {
	c := &a.comm
	var oi int32
	if n := len(ls.stack); n > 0 {
		f := &ls.stack[n-1]
		if f.op < 0 {
			var op *opRec
			f.op, op = c.allocOp()
			op.loc, op.caller, op.site, op.region, op.enter = ev.Loc, f.caller, f.site, f.region, f.enter
		}
		oi = f.op
	} else {
		var op *opRec
		oi, op = c.allocOp()
		op.loc, op.enter, op.leave, op.closed = ev.Loc, ev.Time, ev.Time, true
	}
	ei, e := c.allocEp()
	e.op, e.q, e.dir, e.flags, e.settled = oi, q, d, ev.Flags, settled
	e.peer, e.bytes, e.evTime = ev.Peer, ev.Bytes, ev.Time
	op := &c.ops[oi]
	if !settled {
		op.pending++
	}
	if op.first < 0 {
		op.first = ei
	} else {
		c.eps[op.last].next = ei
	}
	op.last = ei
	return ei
}

// unknownPeer accounts a message end without a known partner (Peer 0): it
// can match nothing, so it is settled as unmatched at once and counted in
// Diagnostics.UnknownPeer. Its size counts in the size histogram and its
// operation's COM record, but no communication matrix or transfer time
// names a partner for it.
func (a *Accumulator) unknownPeer(ev *model.Event, ls *locState, d dir) {
	if d == dirSend && ev.Flags&model.BytesUnknown == 0 {
		h := &a.comm.hist[sizeBin(ev.Bytes)]
		h.count++
		a.addSat(&h.bytes, ev.Bytes)
	}
	if a.opts.Relative != nil {
		a.relVolume(ls, ev.Bytes)
	}
	a.diag.UnknownPeer++
	if d == dirSend {
		a.diag.UnmatchedSend++
	} else {
		a.diag.UnmatchedRecv++
	}
	ei := a.endpoint(ev, ls, -1, d, true) // ev.Peer is 0
	a.tryFinishOp(a.comm.eps[ei].op)
}

// addChan is newChan through the sender's cache of the table cells of
// the pairs it sent on last: a run whose messages each have their own tag
// makes a channel per message, and a rank sends to a few neighbours.
func (a *Accumulator) addChan(k chanKey) int32 {
	c := &a.comm
	if k.sender == 0 || int(k.sender) >= len(a.locs) {
		return c.newChan(k)
	}
	lp := &a.locs[k.sender].cache().lastPair
	if lp[0].ms == nil || lp[0].recv != k.receiver {
		if lp[1].ms != nil && lp[1].recv == k.receiver {
			lp[0], lp[1] = lp[1], lp[0]
		} else {
			qi := c.newChan(k)
			q := &c.chanQ[qi]
			lp[1] = lp[0]
			lp[0] = pairCells{recv: k.receiver, ms: q.matSend, mr: q.matRecv, tr: q.transfer}
			return qi
		}
	}
	p := &lp[0]
	return c.appendChan(k, p.ms, p.mr, p.tr)
}

// pairCells are the table cells of the messages from one location to
// receiver recv.
type pairCells struct {
	recv   model.LocID
	ms, mr *pairStat
	tr     *transferStat
}

// newChan adds channel k and looks up the table cells of its messages.
func (c *commState) newChan(k chanKey) int32 {
	pk := pairKey{k.sender, k.receiver}
	get := func(m map[pairKey]*pairStat) *pairStat {
		p := m[pk]
		if p == nil {
			p = new(pairStat)
			m[pk] = p
		}
		return p
	}
	t := c.transfer[pk]
	if t == nil {
		t = new(transferStat)
		c.transfer[pk] = t
	}
	return c.appendChan(k, get(c.matSend), get(c.matRecv), t)
}

// appendChan adds channel k, whose messages update the cells ms, mr and tr.
func (c *commState) appendChan(k chanKey, ms, mr *pairStat, tr *transferStat) int32 {
	qi := int32(len(c.chanQ))
	c.chanQ = append(c.chanQ, chanQueue{})
	q := &c.chanQ[qi] // filled in place (see Accumulator.endpoint)
	q.key, q.matSend, q.matRecv, q.transfer = k, ms, mr, tr
	c.chans.add(c.chanQ, qi)
	return qi
}

// chanSlack is the number of channels without unmatched endpoints that
// may accumulate before dropIdleChans removes them. A run whose messages
// each have their own tag makes a channel per message, which is looked
// up in chans once or twice and then idles: the fewer idle ones, the
// more of chanQ and of its index stay in the caches (a dropped channel
// used again costs only a new chanQueue and an index slot).
const chanSlack = 1024

// dropIdleChans removes the channels that hold no unmatched endpoint, so
// that the channel state is proportional to the messages in flight rather
// than to every (sender, receiver, tag, communicator) ever seen: a run in
// which every message has its own tag keeps no more state than one that
// reuses a tag. A channel's statistics live in the per-pair tables, which
// the channel only points into, so nothing is lost; a later message on a
// dropped channel adds it again. The remaining channels are renumbered in
// their order (so the result does not depend on map order), with the
// endpoints queued on them, and indexed anew. The
// storage is reused, so that dropping makes no garbage, unless it is more
// than eight times what the remaining channels need (after a burst of
// messages in flight), when it is made anew and shrinks. Called when the channels outnumber twice the pending endpoints
// by chanSlack, it costs amortised O(1) per new channel.
func (a *Accumulator) dropIdleChans() {
	c := &a.comm
	n := 0
	for qi := range c.chanQ {
		if q := &c.chanQ[qi]; q.sends.len() > 0 || q.recvs.len() > 0 {
			n++
		}
	}
	old := len(c.chanQ)
	live := c.chanQ[:0]
	if cap(c.chanQ) > 8*(2*n+chanSlack) {
		live = make([]chanQueue, 0, 2*n+chanSlack)
	}
	c.chans.reset(2*n + chanSlack)
	for qi := range old {
		q := c.chanQ[qi]
		if q.sends.len() == 0 && q.recvs.len() == 0 {
			continue
		}
		ni := int32(len(live))
		for _, qq := range []*queue{&q.sends, &q.recvs} {
			qq.q = qq.q[:copy(qq.q, qq.q[qq.head:])]
			qq.head = 0
			for _, ei := range qq.q {
				if ei < 0 {
					c.sp.slots[-ei-1].q = ni
				} else {
					c.eps[ei].q = ni
				}
			}
		}
		live = append(live, q) // in place: ni ≤ qi
		c.chans.add(live, ni)
	}
	if cap(live) == cap(c.chanQ) {
		// The slots after the live channels held channels that moved or
		// were dropped: forget their queues, which the moved ones share.
		clear(c.chanQ[len(live):old])
	}
	c.chanQ = live
}

func (c *commState) newOp(o opRec) int32 {
	i, op := c.allocOp()
	*op = o
	op.first, op.last = -1, -1
	return i
}

// allocOp returns the index of a new operation, zero but for its empty
// endpoint list, and a pointer to it, valid until the next allocOp.
func (c *commState) allocOp() (int32, *opRec) {
	var i int32
	if n := len(c.freeOps); n > 0 {
		i = c.freeOps[n-1]
		c.freeOps = c.freeOps[:n-1]
	} else {
		i = int32(len(c.ops))
		c.ops = append(c.ops, opRec{})
	}
	op := &c.ops[i]
	*op = opRec{}
	op.first, op.last = -1, -1
	return i, op
}

// newEp stores endpoint e in a new slot (allocEp's) and returns its
// index.
func (c *commState) newEp(e endpoint) int32 {
	i, p := c.allocEp()
	e.next, e.gen = -1, p.gen
	*p = e
	return i
}

// allocEp returns the index of a new endpoint, zero but for its
// generation (kept from the slot's last use) and its empty next link,
// and a pointer to it, valid until the next allocEp.
func (c *commState) allocEp() (int32, *endpoint) {
	var i int32
	if n := len(c.freeEps); n > 0 {
		i = c.freeEps[n-1]
		c.freeEps = c.freeEps[:n-1]
	} else {
		i = int32(len(c.eps))
		c.eps = append(c.eps, endpoint{})
	}
	e := &c.eps[i]
	gen := e.gen
	*e = endpoint{}
	e.next, e.gen = -1, gen
	return i, e
}

// match pairs send s with receive r.
func (a *Accumulator) match(s, r int32) {
	c := &a.comm
	se, re := &c.eps[s], &c.eps[r]
	se.matched, se.settled = true, true
	re.matched, re.settled = true, true
	se.partnerEnter = c.ops[re.op].enter
	re.partnerEnter = c.ops[se.op].enter
	a.diag.MatchedMessages++
	ts := c.chanQ[se.q].transfer
	if d := int64(re.evTime - se.evTime); d > 0 {
		a.addSat(&ts.sum, d)
		ts.n++
	} else {
		ts.backward++
		a.diag.Backward++
	}
	so, ro := se.op, re.op
	c.ops[so].pending--
	c.ops[ro].pending--
	a.tryFinishOp(so)
	if ro != so {
		a.tryFinishOp(ro)
	}
}

// evict settles the oldest unmatched endpoint as unmatched.
func (a *Accumulator) evict() {
	c := &a.comm
	for c.ordHead < len(c.order) {
		ref := c.order[c.ordHead]
		c.ordHead++
		if ref.idx < 0 {
			if !c.sp.valid(ref) {
				continue
			}
			sq := &c.chanQ[c.sp.slots[-ref.idx-1].q]
			for _, q := range []*queue{&sq.sends, &sq.recvs} {
				if q.len() > 0 && q.q[q.head] == ref.idx {
					q.pop()
					c.npend--
				}
			}
			a.diag.PendingEvicted++
			a.settleUnmatched(a.unspill(ref.idx))
			return
		}
		e := &c.eps[ref.idx]
		if e.gen != ref.gen || e.settled {
			continue
		}
		// The oldest unmatched endpoint is the head of its channel queue.
		q := &c.chanQ[e.q].sends
		if e.dir == dirRecv {
			q = &c.chanQ[e.q].recvs
		}
		if q.len() > 0 && q.q[q.head] == ref.idx {
			q.pop()
			c.npend--
		}
		a.diag.PendingEvicted++
		a.settleUnmatched(ref.idx)
		return
	}
}

// compactOrder drops settled endpoints from the eviction order, so that its
// length stays proportional to the number of pending endpoints.
// The spilling cursor keeps its place among the entries kept.
func (c *commState) compactOrder() {
	n, cur := 0, 0
	for j := c.ordHead; j < len(c.order); j++ {
		if j == c.sp.cur {
			cur = n
		}
		ref := c.order[j]
		if ref.idx < 0 && c.sp.valid(ref) || ref.idx >= 0 && c.eps[ref.idx].gen == ref.gen && !c.eps[ref.idx].settled {
			c.order[n] = ref
			n++
		}
	}
	if c.sp.cur >= len(c.order) {
		cur = n
	}
	c.order, c.ordHead, c.sp.cur = c.order[:n], 0, cur
}

func (a *Accumulator) settleUnmatched(i int32) {
	c := &a.comm
	e := &c.eps[i]
	e.settled = true
	if e.dir == dirSend {
		a.diag.UnmatchedSend++
	} else {
		a.diag.UnmatchedRecv++
	}
	oi := e.op
	c.ops[oi].pending--
	a.tryFinishOp(oi)
}

func (c *commState) closeOp(a *Accumulator, oi int32, t model.Time) {
	op := &c.ops[oi]
	op.leave = t
	op.closed = true
	a.tryFinishOp(oi)
}

// tryFinishOp accounts a closed operation whose endpoints are all settled:
// each message's synchronisation delay (doc/stats.md §5.3), the operation's maximum,
// and the COM records.
func (a *Accumulator) tryFinishOp(oi int32) {
	c := &a.comm
	op := &c.ops[oi]
	if !op.closed || op.pending > 0 {
		return
	}
	dur := max(int64(op.leave-op.enter), 0)
	var best int32 = -1
	var bestSync int64
	var bestStat *comStat // the COM record of best
	// The COM records through the location's cache; their key is built
	// only when it misses: its six fields would be stored one by one
	// and compared whole.
	lc := &a.locs[op.loc].cache().lastCom
	for i := op.first; i >= 0; i = c.eps[i].next {
		e := &c.eps[i]
		var sync int64
		switch {
		case e.dir == dirRecv && e.matched:
			sync = clamp(int64(e.partnerEnter-op.enter), 0, dur)
		case e.dir == dirRecv && e.flags&model.Waited != 0:
			sync = dur
		case e.dir == dirSend && e.matched && e.flags&model.SyncMode != 0:
			sync = clamp(int64(e.partnerEnter-op.enter), 0, dur)
		}
		s := lc[e.dir].lookup(op, e.peer)
		if s == nil {
			s = a.comStatMiss(op, e.peer, e.dir)
		}
		if best < 0 || sync > bestSync || (sync == bestSync && e.peer < c.eps[best].peer) {
			best, bestSync, bestStat = i, sync, s
		}
		s.count++
		a.addSat(&s.bytes, e.bytes)
		if e.matched {
			s.matched++
		}
	}
	if best >= 0 {
		a.addSat(&bestStat.sync, bestSync)
		a.addSat(&bestStat.trans, dur-bestSync)
	}
	for i := op.first; i >= 0; {
		next := c.eps[i].next
		c.eps[i].gen++
		c.freeEps = append(c.freeEps, i)
		i = next
	}
	c.freeOps = append(c.freeOps, oi)
}

// comCache is an entry of a location's cache of COM records
// (locCaches.lastCom): the record of the operation op from caller at
// site with peer, in the direction of the cache's row.
type comCache struct {
	caller model.RegionID
	site   model.SiteID
	op     model.RegionID
	peer   model.LocID
	s      *comStat
}

// comCaches are the entries of a location's cache of COM records of
// one direction.
type comCaches [2]comCache

// lookup returns the record of the ends with peer of operation op if
// one of the entries holds it, nil if not.
func (lc *comCaches) lookup(op *opRec, peer model.LocID) *comStat {
	for i := range lc {
		if x := &lc[i]; x.peer == peer && x.op == op.region && x.caller == op.caller && x.site == op.site {
			return x.s // nil while the entry is unused
		}
	}
	return nil
}

// comStatMiss returns the COM record of the ends in direction d with
// peer of operation op when its location's cache (locCaches.lastCom)
// misses: from the map, then cached in the entry of d used less
// recently.
//
//go:noinline
func (a *Accumulator) comStatMiss(op *opRec, peer model.LocID, d dir) *comStat {
	k := comKey{op.loc, op.caller, op.site, op.region, peer, d}
	s := a.comm.com[k]
	if s == nil {
		s = new(comStat)
		a.comm.com[k] = s
	}
	lc := a.locs[op.loc].caches
	x := &lc.lastCom[d][lc.comNext[d]]
	lc.comNext[d] ^= 1
	x.caller, x.site, x.op, x.peer, x.s = op.caller, op.site, op.region, peer, s
	return s
}

func clamp(v, lo, hi int64) int64 {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}
