package stats

import (
	"fmt"
	"maps"
	"slices"

	"github.com/hpctrace/hpctrace/model"
)

const pendingMagic = "hpctrace-pend\x00"

// DetachPending removes from a what waits only for locations outside a
// group and returns it encoded, to be added with [Accumulator.AdoptPending]
// to an accumulator that is fed (directly or by adoption) the events of
// those other locations. inside reports whether a location belongs to the
// group: a's own locations, and those of every state a adopted, must be
// inside.
//
// It is the step of a reduction in epochs: each shard of a partition of a
// trace's locations reads its events up to a time, detaches what waits for
// other shards and hands it to the next shard up a tree, which adopts it
// and detaches in turn what waits outside its own subtree; after the last
// epoch the shards' states are joined up the same tree
// ([Accumulator.Join]). What a shard keeps then is its statistics and
// what is in flight between shards in one epoch (and the held calls
// below), not what accumulates over the trace. The report is
// the same as from one pass over the whole trace, with the provisos of
// Join, whatever the epochs.
//
// Detached are:
//
//   - the closed communication operations whose message endpoints without
//     a partner all wait for locations outside the group, with all their
//     endpoints, as long as each such endpoint is at the front of its
//     channel's queue or behind others that leave (matching is first come
//     first served per channel, so the order of each channel is kept);
//   - the collective instances whose members in a have all ended, on a
//     communicator with a member outside the group.
//
// The calls of collectives on communicators of unknown membership stay:
// they are held to the end of the run wherever they are (see
// Diagnostics.HeldCollectives), and joined then.
//
// The result holds no definitions; it is read against the adopter's.
// The statistics already accounted stay in a: they are sums by location,
// added up when the states are joined.
func (a *Accumulator) DetachPending(inside func(model.LocID) bool) []byte {
	out := New(a.defs, &a.opts)
	a.detachOps(out, inside)
	a.detachColls(out, inside)
	e := &enc{}
	header(e, pendingMagic)
	out.encodePending(e)
	return e.b
}

// detachOps moves the leaving operations of a to out (see DetachPending).
func (a *Accumulator) detachOps(out *Accumulator, inside func(model.LocID) bool) {
	a.unspillAll()
	c := &a.comm
	// The channels whose queue waits for a location outside, with the
	// length of the prefix that may leave.
	type outChan struct {
		qi  int32
		x   *queue
		pre int
	}
	var chans []outChan
	// Per endpoint, its channel (index in chans) + 1 and position; per
	// operation, whether it may leave (so far): 0 not met, 1 yes, 2 no.
	type at struct{ ch, pos int32 }
	where := make([]at, len(c.eps))
	leaves := make([]uint8, len(c.ops))
	var stuck []int32 // operations found not to leave, to propagate
	nep := 0          // endpoints of the operations met
	for qi := range c.chanQ {
		q := &c.chanQ[qi]
		x, peer := &q.sends, q.key.receiver
		if x.len() == 0 {
			x, peer = &q.recvs, q.key.sender
		}
		if x.len() == 0 || inside(peer) {
			continue
		}
		ci := len(chans)
		chans = append(chans, outChan{int32(qi), x, x.len()})
		for j, ei := range x.q[x.head:] {
			where[ei] = at{int32(ci + 1), int32(j)}
			oi := c.eps[ei].op
			if leaves[oi] != 0 {
				continue
			}
			ok := c.ops[oi].closed
			for i := c.ops[oi].first; i >= 0; i = c.eps[i].next {
				if e := &c.eps[i]; !e.settled && inside(e.peer) {
					ok = false
				}
				nep++
			}
			leaves[oi] = 1
			if !ok {
				leaves[oi] = 2
				stuck = append(stuck, oi)
			}
		}
	}
	// An operation that stays keeps its endpoints, and every endpoint
	// behind them in their channels, with their operations: each position
	// of a channel is passed once, as its prefix only shrinks.
	for len(stuck) > 0 {
		oi := stuck[len(stuck)-1]
		stuck = stuck[:len(stuck)-1]
		for i := c.ops[oi].first; i >= 0; i = c.eps[i].next {
			w := where[i]
			if w.ch == 0 || c.eps[i].settled {
				continue
			}
			ch := &chans[w.ch-1]
			for j := int(w.pos); j < ch.pre; j++ {
				o := c.eps[ch.x.q[ch.x.head+j]].op
				if leaves[o] == 1 {
					leaves[o] = 2
					stuck = append(stuck, o)
				}
			}
			ch.pre = min(ch.pre, int(w.pos))
		}
	}
	oc := &out.comm
	oc.eps = make([]endpoint, 0, nep)
	moved := where // reused: per endpoint of a, its index in out + 1
	clear(moved)
	var gone []int32 // the operations that leave
	for _, ch := range chans {
		for _, ei := range ch.x.q[ch.x.head : ch.x.head+ch.pre] {
			oi := c.eps[ei].op
			if moved[c.ops[oi].first].ch != 0 {
				continue
			}
			gone = append(gone, oi)
			op := &c.ops[oi]
			ni := oc.newOp(opRec{loc: op.loc, caller: op.caller, site: op.site, region: op.region, enter: op.enter, leave: op.leave, closed: true})
			for i := op.first; i >= 0; i = c.eps[i].next {
				e := c.eps[i]
				e.op, e.q = ni, -1
				j := oc.newEp(e)
				o := &oc.ops[ni]
				if o.first < 0 {
					o.first = j
				} else {
					oc.eps[o.last].next = j
				}
				o.last = j
				moved[i].ch = j + 1
			}
		}
	}
	for _, ch := range chans {
		if ch.pre == 0 {
			continue
		}
		k := c.chanQ[ch.qi].key
		qi := oc.newChan(k)
		for range ch.pre {
			ei := ch.x.pop()
			c.npend--
			j := moved[ei].ch - 1
			oc.eps[j].q = qi
			q := &oc.chanQ[qi]
			if oc.eps[j].dir == dirSend {
				q.sends.push(j)
			} else {
				q.recvs.push(j)
			}
			oc.ops[oc.eps[j].op].pending++
			oc.npend++
		}
	}
	// Free the operations that left, and their endpoints (their places in
	// the eviction order go stale with their generation).
	for _, oi := range gone {
		for i := c.ops[oi].first; i >= 0; {
			next := c.eps[i].next
			c.eps[i].gen++
			c.freeEps = append(c.freeEps, i)
			i = next
		}
		c.freeOps = append(c.freeOps, oi)
	}
	if len(c.order)-c.ordHead > 2*c.npend+1024 {
		c.compactOrder()
	}
}

// detachColls moves the leaving collective instances of a to out (see
// DetachPending).
func (a *Accumulator) detachColls(out *Accumulator, inside func(model.LocID) bool) {
	k := &a.coll
	local := make(map[model.CommID]bool) // communicator → all its members inside
	keys := slices.SortedFunc(maps.Keys(k.idx), cmpCollKey)
	for _, key := range keys {
		ii := k.idx[key]
		in := &k.insts[ii]
		if in.ended < len(in.members) {
			continue
		}
		all, ok := local[key.comm]
		if !ok {
			// Instances are kept only on communicators of defined
			// membership (the others are held).
			cm, _ := a.defs.Comm(key.comm)
			all = true
			for _, ls := range [][]model.LocID{cm.Members, cm.Remote} {
				for _, l := range ls {
					all = all && inside(l)
				}
			}
			local[key.comm] = all
		}
		if all {
			continue
		}
		oi := out.coll.newInst(key, in.region)
		o := &out.coll.insts[oi]
		o.ended = in.ended
		o.members = append(o.members, in.members...)
		delete(k.idx, key)
		if cs := &k.idxCache[key.slot()]; cs.k == key {
			cs.ii = 0
		}
		in.members = in.members[:0]
		k.free = append(k.free, ii)
	}
}

// AdoptPending adds to a what [Accumulator.DetachPending] detached from
// an accumulator of the same trace (the same definitions and options) fed
// with other locations than a's: its message endpoints join a's channels
// behind those already there, matching a's endpoints of their channel in
// order, and its collective members join a's instances, which complete
// when all their members are there. Unlike [Accumulator.Join] it closes
// no region of a, which takes more events afterwards. Data that is not
// such a state, or that names a's own locations, yields an error wrapping
// [ErrState] and leaves a unchanged.
func (a *Accumulator) AdoptPending(data []byte) error {
	d := &dec{b: data, pendingOnly: true}
	readHeader(d, pendingMagic)
	if d.err != nil {
		return d.err
	}
	s := New(a.defs, &a.opts)
	s.closed = true
	s.decodePending(d)
	if d.err == nil && len(d.b) > 0 {
		d.fail("trailing bytes")
	}
	if d.err != nil {
		return d.err
	}
	var locs []model.LocID
	for _, oi := range s.comm.liveOps() {
		locs = append(locs, s.comm.ops[oi].loc)
	}
	for _, ii := range s.coll.idx {
		for _, m := range s.coll.insts[ii].members {
			locs = append(locs, m.loc)
		}
	}
	for _, l := range locs {
		if a.seenLoc(int(l)) {
			return fmt.Errorf("%w: pending items of location %d, one of the adopter's own", ErrState, l)
		}
	}
	// The statistics of the adopted items are accounted here under their
	// locations, whose state must exist (it stays unseen: the location's
	// own events are elsewhere).
	for _, l := range locs {
		a.loc(l)
	}
	a.transplant(s)
	return nil
}
