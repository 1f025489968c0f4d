package stats

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/hpctrace/hpctrace/model"
)

// clone returns a deep copy of a.
func (a *Accumulator) clone() *Accumulator {
	a.unspillAll()
	b := *a
	b.comm.sp = a.comm.sp.fresh()
	b.opts.SampleTimes = slices.Clone(a.opts.SampleTimes)
	b.locs = make([]locState, len(a.locs))
	for i := range a.locs {
		src, dst := &a.locs[i], &b.locs[i]
		*dst = *src
		dst.stack = slices.Clone(src.stack)
		dst.funcs = src.funcs.clone()
		if src.locMore != nil {
			dst.locMore = &locMore{openCol: slices.Clone(src.openCol)}
			if src.openMatch != nil {
				dst.openMatch = make(map[uint64][]int32, len(src.openMatch))
				for m, ps := range src.openMatch {
					dst.openMatch[m] = slices.Clone(ps)
				}
			}
			if src.rel != nil {
				dst.rel = make([]relLoc, len(src.rel))
				for e := range src.rel {
					dst.rel[e] = relLoc{eOpen: src.rel[e].eOpen, xs: src.rel[e].xs.clone(), active: slices.Clone(src.rel[e].active)}
				}
			}
		}
	}
	if a.ctrs != nil {
		b.ctrs = make(map[counterKey]*counterStat, len(a.ctrs))
		for k, s := range a.ctrs {
			c := *s
			b.ctrs[k] = &c
		}
	}
	b.edges = slices.Clone(a.edges)
	b.eidx = a.eidx.clone()
	b.relRegID = slices.Clone(a.relRegID)
	b.samples = slices.Clone(a.samples)

	c := &b.comm
	ac := &a.comm
	c.ops = slices.Clone(ac.ops)
	c.freeOps = slices.Clone(ac.freeOps)
	c.eps = slices.Clone(ac.eps)
	c.freeEps = slices.Clone(ac.freeEps)
	c.chans = ac.chans.clone()
	c.chanQ = slices.Clone(ac.chanQ)
	for i := range c.chanQ {
		c.chanQ[i].sends.q = slices.Clone(c.chanQ[i].sends.q)
		c.chanQ[i].recvs.q = slices.Clone(c.chanQ[i].recvs.q)
	}
	c.order = slices.Clone(ac.order)
	c.com = clonePtrMap(ac.com)
	c.matSend = clonePtrMap(ac.matSend)
	c.matRecv = clonePtrMap(ac.matRecv)
	c.transfer = clonePtrMap(ac.transfer)
	// Re-point the cached table cells at the copies.
	for k, qi := range c.chans.all(c.chanQ) {
		pk := pairKey{k.sender, k.receiver}
		q := &c.chanQ[qi]
		q.matSend, q.matRecv, q.transfer = c.matSend[pk], c.matRecv[pk], c.transfer[pk]
	}
	for i := range b.locs {
		b.locs[i].caches = nil // into a's maps
	}

	k := &b.coll
	ak := &a.coll
	k.idx = maps.Clone(ak.idx)
	k.insts = slices.Clone(ak.insts)
	for i := range k.insts {
		k.insts[i].members = slices.Clone(k.insts[i].members)
	}
	k.free = slices.Clone(ak.free)
	k.seq = clonePtrMap(ak.seq)
	k.heldOpen = slices.Clone(ak.heldOpen)
	k.heldFree = slices.Clone(ak.heldFree)
	k.heldLog = slices.Clone(ak.heldLog)
	k.stats = clonePtrMap(ak.stats)
	k.instances = slices.Clone(ak.instances)
	return &b
}

func clonePtrMap[K comparable, V any](m map[K]*V) map[K]*V {
	out := make(map[K]*V, len(m))
	for k, v := range m {
		c := *v
		out[k] = &c
	}
	return out
}

// JoinFrom is [Accumulator.Join] that uses b up instead of copying it:
// the joined state is the same, but b's open regions are closed in b
// itself and what b holds (its statistics, the message ends and
// collective members that wait for other locations) is moved into a
// rather than copied first, which saves a copy of b's state in time and
// memory. Afterwards b holds nothing but its definitions (Defs), and it
// must not be used otherwise: it takes no events, and neither reports,
// saves nor joins. An error (different definitions or options, a
// location in both, b being a) leaves a and b unchanged, and b may then
// be used as before.
//
// JoinFrom and Join give the same state, so shards may be joined with
// either in any tree; the joins of distinct pairs may run at once in
// separate goroutines, as no two share an accumulator.
func (a *Accumulator) JoinFrom(b *Accumulator) error { return a.join(b, true) }

// join is Join, and with use JoinFrom.
func (a *Accumulator) join(b *Accumulator, use bool) error {
	if use && a == b {
		return errors.New("stats: a state joined with itself")
	}
	extend := false
	if a.defs != b.defs {
		if d := defsDiff(a.defs, b.defs); d != "" {
			switch {
			case defsPrefix(b.defs, a.defs):
			case defsPrefix(a.defs, b.defs):
				extend = true
			default:
				return fmt.Errorf("stats: joined states have different definitions (%s)", d)
			}
		}
	}
	if !reflect.DeepEqual(a.opts, b.opts) {
		return errors.New("stats: joined states have different options")
	}
	var s *Accumulator
	if use {
		// The locations of b and of what was merged into it, checked
		// before b is touched.
		for li := range b.numLocs() {
			if b.seenLoc(li) && a.seenLoc(li) {
				return fmt.Errorf("stats: location %d is in both joined states", li)
			}
		}
		b.closeFrames()
		s = b
	} else {
		s = b.closedCopy()
		for li := range s.locs {
			if s.locs[li].seen && a.seenLoc(li) {
				return fmt.Errorf("stats: location %d is in both joined states", li)
			}
		}
	}
	if extend {
		extendDefs(a.defs, b.defs)
	}
	if !a.closed {
		a.closeFrames()
	}
	a.absorb(s)
	a.transplant(s)
	if use {
		// transplant read b's spilled ends back and closed its file.
		*b = Accumulator{defs: b.defs}
	}
	return nil
}

// numLocs returns the number of location slots of a and of the
// accumulators merged into it, an upper bound of the ids seenLoc may
// report.
func (a *Accumulator) numLocs() int {
	n := len(a.locs)
	if a.merged != nil {
		n = max(n, a.merged.numLocs())
	}
	return n
}

// settle ends the stream: samples not reached yet are taken, open frames are
// closed at their location's last timestamp, open collectives and unmatched
// message endpoints are settled.
func (a *Accumulator) settle() {
	for a.nextSample < len(a.opts.SampleTimes) {
		a.samples = mergeSamples(a.samples, []Sample{a.Sample(a.opts.SampleTimes[a.nextSample])})
		a.nextSample++
	}
	for li := range a.locs {
		ls := &a.locs[li]
		for len(ls.stack) > 0 {
			a.diag.OpenAtEnd++
			a.closeTop(model.LocID(li), ls, ls.last)
		}
		// No more events: the room of the frames goes, which for a run
		// of many locations is a good part of what a report's sections
		// can use.
		ls.stack = nil
	}
	// Collectives: members that never ended end at their location's last time.
	keys := slices.SortedFunc(maps.Keys(a.coll.idx), func(x, y collKey) int {
		switch {
		case x.comm != y.comm:
			return cmpU(uint64(x.comm), uint64(y.comm))
		case x.seq != y.seq:
			if x.seq {
				return 1
			}
			return -1
		}
		return cmp.Or(cmpU(x.match, y.match), cmp.Compare(x.loc, y.loc))
	})
	for _, k := range keys {
		ii := a.coll.idx[k]
		in := &a.coll.insts[ii]
		for i := range in.members {
			if m := &in.members[i]; !m.ended {
				m.end, m.ended = max(a.locs[m.loc].last, m.begin), true
			}
		}
		a.finishColl(ii, true)
	}
	a.settleHeld()
	for li := range a.locs {
		if m := a.locs[li].locMore; m != nil {
			m.openCol, m.openMatch = m.openCol[:0], nil
		}
	}
	// Unmatched message endpoints.
	c := &a.comm
	a.settleSpilled()
	for qi := range c.chanQ {
		for _, q := range []*queue{&c.chanQ[qi].sends, &c.chanQ[qi].recvs} {
			for q.len() > 0 {
				i := q.pop()
				if i < 0 {
					continue // settled by settleSpilled
				}
				c.npend--
				a.settleUnmatched(i)
			}
		}
	}
	c.order, c.ordHead = c.order[:0], 0
	c.sp.close()
}

func cmpU(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Merge adds the statistics of b to a. b is not modified: its open regions,
// pending messages and open collectives are settled on a copy first, as at
// the end of a stream, so messages between a and b stay unmatched. The
// settled statistics of b are kept apart from a's own streaming state, so a
// may continue to Add. Merge is associative and commutative, with the empty
// accumulator as identity, and merged results are bit-identical whatever the
// merge tree (all sums are integers), but for the means of Float counters
// sampled on one location in both (a float sum). Both accumulators must
// describe the same definitions.
func (a *Accumulator) Merge(b *Accumulator) {
	s := b.settledCopy()
	if a.merged == nil {
		a.merged = s
		return
	}
	a.merged.absorb(s)
}

// settledCopy returns a's statistics as at the end of the stream, including
// everything merged into a.
func (a *Accumulator) settledCopy() *Accumulator {
	c := a.clone()
	c.merged = nil
	c.settle()
	if a.merged != nil {
		c.absorb(a.merged)
	}
	return c
}

// absorb adds the tables of the settled accumulator s to a.
func (a *Accumulator) absorb(s *Accumulator) {
	a.diag.add(&s.diag)
	for k, g := range s.ctrs {
		if a.ctrs == nil {
			a.ctrs = make(map[counterKey]*counterStat)
		}
		f := a.ctrs[k]
		if f == nil {
			f = &counterStat{}
			a.ctrs[k] = f
		}
		f.merge(g)
	}
	for li := range s.locs {
		src := &s.locs[li]
		if !src.seen {
			continue
		}
		dst := a.loc(model.LocID(li))
		fresh := !dst.seen
		if fresh {
			dst.seen, dst.first, dst.last = true, src.first, src.last
			if a.opts.Relative != nil {
				a.relInit(dst)
			}
		} else {
			dst.first, dst.last = min(dst.first, src.first), max(dst.last, src.last)
		}
		for r, g := range src.funcs.all() {
			if g.visits == 0 && g.closed == 0 {
				continue
			}
			f := dst.fn(r)
			switch {
			case fresh:
				// a has nothing of the location: a sole edge stays one.
				if g.eidx == soleEdge {
					f.ecaller, f.esite, f.eidx = g.ecaller, g.esite, soleEdge
				}
			default:
				// Both have calls of r: their edges get entries.
				if f.eidx == soleEdge {
					a.explicit(model.LocID(li), dst, r, f)
				}
				if g.eidx == soleEdge && g.closed > 0 {
					a.addEdge(edgeKey{model.LocID(li), g.ecaller, g.esite, r}, g.soleStat())
				}
			}
			f.visits += g.visits
			a.addSat(&f.incl, g.incl)
			a.addSat(&f.excl, g.excl)
			a.addSat(&f.actSum, g.actSum)
			if g.closed > 0 {
				if f.closed == 0 || g.min < f.min {
					f.min = g.min
				}
				if f.closed == 0 || g.max > f.max {
					f.max = g.max
				}
				f.closed += g.closed
			}
		}
		for e, sp := range src.relLocs() {
			if e >= len(dst.relLocs()) {
				break
			}
			for x, g := range sp.xs.all() {
				if g.count == 0 && g.time == 0 && g.volume == 0 {
					continue
				}
				f := dst.rel[e].x(x)
				a.addSat(&f.time, g.time)
				f.count += g.count
				a.addSat(&f.volume, g.volume)
			}
		}
	}
	for i, k := range s.eidx.keys {
		if g := s.edges[i]; g.count > 0 {
			a.addEdge(k, g)
		}
	}
	for k, g := range s.comm.com {
		f := a.comm.com[k]
		if f == nil {
			f = new(comStat)
			a.comm.com[k] = f
		}
		f.count += g.count
		f.matched += g.matched
		a.addSat(&f.bytes, g.bytes)
		a.addSat(&f.sync, g.sync)
		a.addSat(&f.trans, g.trans)
	}
	mergePairs(a, a.comm.matSend, s.comm.matSend)
	mergePairs(a, a.comm.matRecv, s.comm.matRecv)
	for k, g := range s.comm.transfer {
		f := a.comm.transfer[k]
		if f == nil {
			f = new(transferStat)
			a.comm.transfer[k] = f
		}
		a.addSat(&f.sum, g.sum)
		f.n += g.n
		f.backward += g.backward
	}
	for i := range a.comm.hist {
		a.comm.hist[i].count += s.comm.hist[i].count
		a.addSat(&a.comm.hist[i].bytes, s.comm.hist[i].bytes)
	}
	for k, g := range s.coll.stats {
		f := a.coll.stats[k]
		if f == nil {
			f = new(collStat)
			a.coll.stats[k] = f
		}
		f.count += g.count
		a.addSat(&f.duration, g.duration)
		a.addSat(&f.wait, g.wait)
		a.addSat(&f.sent, g.sent)
		a.addSat(&f.recvd, g.recvd)
	}
	a.coll.instances = append(a.coll.instances, s.coll.instances...)
	a.samples = mergeSamples(a.samples, s.samples)
}

// addEdge adds the statistics g of the edge k to a's entry of it.
func (a *Accumulator) addEdge(k edgeKey, g edgeStat) {
	j, ok := a.eidx.find(k)
	if !ok {
		j = a.eidx.add(k)
		a.edges = append(a.edges, edgeStat{})
	}
	f := &a.edges[j]
	if f.count == 0 || g.min < f.min {
		f.min = g.min
	}
	if f.count == 0 || g.max > f.max {
		f.max = g.max
	}
	f.count += g.count
	a.addSat(&f.incl, g.incl)
	a.addSat(&f.excl, g.excl)
}

func mergePairs(a *Accumulator, dst, src map[pairKey]*pairStat) {
	for k, g := range src {
		f := dst[k]
		if f == nil {
			f = new(pairStat)
			dst[k] = f
		}
		f.count += g.count
		a.addSat(&f.bytes, g.bytes)
	}
}
