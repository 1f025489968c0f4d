package stats

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"maps"
	"math"
	"reflect"
	"slices"

	"github.com/hpctrace/hpctrace/model"
)

// StateVersion is the version of the layout [Accumulator.MarshalBinary]
// and [CallTree.MarshalBinary] write.
//
// # Compatibility
//
// A saved state is an exchange format between the shards of one run, not
// an archive: a state is read only by a decoder of exactly its version,
// and any change to the layout or to the meaning of a field (a new
// statistic, a changed rule) takes a new version. A decoder refuses every
// other version with an error wrapping [ErrState], so states of different
// releases are never merged into a silently wrong report; the remedy is to
// save the shards again with one release.
//
// # Integrity
//
// Since version 3 a state written by MarshalBinary ends with the CRC-32C
// (Castagnoli) of all the bytes before it, big-endian; a decoder refuses a
// state whose checksum does not match, which catches every corruption of
// up to 32 consecutive bits, and checks the decoded values (counts and
// times not negative, exclusive time not above inclusive, a minimum not
// above the maximum, ids within the definitions). Two saves of the same
// statistics are byte-identical: every table is written in key order.
// Version 2 wrote the hash-map tables in map order and had no checksum;
// version 4 adds the counter summaries and Region.Paradigm, version 5
// Location.MPI and Location.Stream, version 6 the whole description of the
// relative statistics (model.RelativeStats: kinds and groups besides the
// regions).
const StateVersion = 6

const (
	accMagic  = "hpctrace-stats\x00"
	treeMagic = "hpctrace-ctree\x00"
)

func header(e *enc, magic string) {
	e.b = append(e.b, magic...)
	e.u(StateVersion)
}

// castagnoli is the CRC-32C table of the states' checksums.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// seal appends the checksum of b to it (see [StateVersion]).
func seal(b []byte) []byte {
	return binary.BigEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// openSealed checks the magic, version and checksum of a state written by
// seal and returns a decoder of its body, after the header.
func openSealed(data []byte, magic string) *dec {
	d := &dec{b: data}
	readHeader(d, magic)
	if d.err != nil {
		return d
	}
	n := len(data) - 4
	if n < d.off {
		d.fail("truncated (no checksum)")
		return d
	}
	if crc32.Checksum(data[:n], castagnoli) != binary.BigEndian.Uint32(data[n:]) {
		d.fail("checksum mismatch: the state is damaged")
		return d
	}
	d.b = d.b[:len(d.b)-4]
	return d
}

func readHeader(d *dec, magic string) {
	if len(d.b) < len(magic) || string(d.b[:len(magic)]) != magic {
		d.fail("not a saved statistics state (bad magic)")
		return
	}
	d.b, d.off = d.b[len(magic):], len(magic)
	if v := d.u(); d.err == nil && v != StateVersion {
		d.fail(fmt.Sprintf("state version %d, this decoder reads version %d only", v, StateVersion))
	}
}

// Defs returns the definitions the accumulator names things with: those
// given to New, or those read by UnmarshalBinary.
func (a *Accumulator) Defs() *model.Defs { return a.defs }

// closeFrames ends the streams of a's locations: their open frames are
// closed at their last timestamps, as at the end of the trace. What is
// left open afterwards (message endpoints waiting for a partner,
// collectives waiting for members) involves other locations.
func (a *Accumulator) closeFrames() {
	for li := range a.locs {
		ls := &a.locs[li]
		for len(ls.stack) > 0 {
			a.diag.OpenAtEnd++
			a.closeTop(model.LocID(li), ls, ls.last)
		}
		if ls.locMore != nil {
			ls.openCol, ls.openMatch = ls.openCol[:0], nil
		}
	}
	a.coll.packOpen()
	if a.merged != nil {
		a.absorb(a.merged)
		a.merged = nil
	}
	a.closed = true
}

// closedCopy returns a copy of a with its frames closed.
func (a *Accumulator) closedCopy() *Accumulator {
	c := a.clone()
	if a.merged != nil {
		c.merged = a.merged.clone()
	}
	c.closeFrames()
	return c
}

// MarshalBinary saves the state of a shard: an accumulator fed with the
// events of some of a trace's locations (all of each one's events), to be
// combined with the other shards' by [Accumulator.Join] after
// UnmarshalBinary, possibly in another process. The state holds the
// definitions, the options and the statistics; the open regions of a's
// locations are closed at their last timestamps, as at the end of the
// trace, and what still waits for other locations is kept as it is:
// message endpoints without their partner, with the operation they belong
// to, collective instances without all their members, and the calls of
// collectives on communicators of unknown membership (held to the end of
// the run; see Diagnostics.HeldCollectives). Its size is proportional to
// the keys of the statistics plus those pending items, not to the number
// of events. a is not modified.
//
// Accumulators with samples (Options.SampleTimes, Options.SamplePeriod)
// cannot be saved: a sample needs every location's state at one time.
// Nor can one whose statistics lack message ends ([Accumulator.Err]).
func (a *Accumulator) MarshalBinary() ([]byte, error) {
	if len(a.opts.SampleTimes) > 0 || a.opts.SamplePeriod > 0 || len(a.samples) > 0 {
		return nil, errors.New("stats: an accumulator with samples cannot be saved")
	}
	c := a.closedCopy()
	e := &enc{}
	header(e, accMagic)
	encodeDefs(e, c.defs)
	c.encodeOpts(e)
	c.encodeTables(e)
	c.encodePending(e)
	if err := c.Err(); err != nil {
		return nil, err
	}
	return seal(e.b), nil
}

// UnmarshalBinary replaces a with the state data holds, as written by
// MarshalBinary, with its own definitions (see [Accumulator.Defs]). The
// result can be joined with other shards' states, merged, and finalized;
// it takes no more events. Input that is not such a state, truncated or
// inconsistent yields an error wrapping [ErrState], never a panic: every
// count is checked against the bytes left and every id against the
// definitions, so memory stays proportional to len(data) (in the worst
// case a few hundred times it, as a location's tables are allocated in
// blocks).
func (a *Accumulator) UnmarshalBinary(data []byte) error {
	d := openSealed(data, accMagic)
	if d.err != nil {
		return d.err
	}
	defs := decodeDefs(d)
	if d.err != nil {
		return d.err
	}
	opts := decodeOpts(d, defs)
	if d.err != nil {
		return d.err
	}
	n := New(defs, &opts)
	n.closed = true
	n.decodeTables(d)
	n.decodePending(d)
	if d.err == nil && len(d.b) > 0 {
		d.fail("trailing bytes")
	}
	if d.err != nil {
		return d.err
	}
	*a = *n
	return nil
}

func (a *Accumulator) encodeOpts(e *enc) {
	o := &a.opts
	e.u(uint64(o.MaxPending))
	e.u(uint64(o.MaxDrillDepth))
	e.i(int64(o.MaxCollectiveInstances))
	e.u(uint64(len(o.IdleRegions)))
	for _, r := range o.IdleRegions {
		e.u(uint64(r))
	}
	e.bool(o.Relative != nil)
	if p := o.Relative; p != nil {
		for _, l := range [][]int64{p.RelativeTo, p.UnknownVolume} {
			e.u(uint64(len(l)))
			for _, v := range l {
				e.i(v)
			}
		}
		e.u(uint64(len(p.Kinds)))
		for _, k := range p.Kinds {
			e.u(uint64(k.Kind))
			e.i(k.Native)
		}
		e.u(uint64(len(p.Groups)))
		for _, g := range p.Groups {
			e.i(g.Native)
			e.u(uint64(len(g.Ranges)))
			for _, r := range g.Ranges {
				e.i(r[0])
				e.i(r[1])
			}
		}
	}
}

func decodeOpts(d *dec, defs *model.Defs) Options {
	var o Options
	o.MaxPending = int(d.id(1, math.MaxInt32))
	o.MaxDrillDepth = int(d.id(1, math.MaxInt32))
	o.MaxCollectiveInstances = int(d.i32())
	o.IdleRegions = make([]model.RegionID, d.count(1))
	for i := range o.IdleRegions {
		o.IdleRegions[i] = model.RegionID(d.id(0, defs.NumRegions()))
	}
	if d.bool() {
		p := &model.RelativeStats{}
		for _, l := range []*[]int64{&p.RelativeTo, &p.UnknownVolume} {
			*l = make([]int64, d.count(1))
			for i := range *l {
				(*l)[i] = d.i()
			}
		}
		p.Kinds = make([]model.RelativeKind, d.count(2))
		for i := range p.Kinds {
			p.Kinds[i] = model.RelativeKind{Kind: model.RecordedKind(d.u()), Native: d.i()}
		}
		p.Groups = make([]model.RegionGroup, d.count(2))
		for i := range p.Groups {
			g := &p.Groups[i]
			g.Native = d.i()
			g.Ranges = make([][2]int64, d.count(2))
			for j := range g.Ranges {
				g.Ranges[j] = [2]int64{d.i(), d.i()}
			}
		}
		if len(p.RelativeTo) == 0 || len(p.RelativeTo) > 64 || len(p.Kinds) == 0 {
			d.fail("bad relative statistics options")
		}
		o.Relative = p
	}
	return o
}

func (d *Diagnostics) fields() []*int64 {
	return []*int64{&d.MatchedMessages, &d.UnmatchedSend, &d.UnmatchedRecv, &d.PendingEvicted, &d.UnknownPeer,
		&d.LeaveRegionMismatch, &d.UnmatchedLeave, &d.OpenAtEnd, &d.OpenCollectives, &d.HeldCollectives, &d.UnmatchedCollEnd,
		&d.NonMonotonic, &d.Backward, &d.VClockClamped, &d.TraceLost, &d.Ignored, &d.Overflow}
}

func (a *Accumulator) encodeTables(e *enc) {
	for _, p := range a.diag.fields() {
		e.i(*p)
	}
	var seen []int
	for li := range a.locs {
		if a.locs[li].seen {
			seen = append(seen, li)
		}
	}
	e.u(uint64(len(seen)))
	for _, li := range seen {
		ls := &a.locs[li]
		e.u(uint64(li))
		e.i(int64(ls.first))
		e.i(int64(ls.last))
		var rs []model.RegionID
		for r, fs := range ls.funcs.all() {
			if fs.visits > 0 || fs.closed > 0 {
				rs = append(rs, r)
			}
		}
		e.u(uint64(len(rs)))
		for _, r := range rs {
			fs := ls.funcs.find(r)
			e.u(uint64(r))
			for _, v := range []int64{fs.visits, fs.incl, fs.excl, fs.actSum, fs.min, fs.max, fs.closed} {
				e.i(v)
			}
		}
		e.u(uint64(len(ls.relLocs())))
		for p := range ls.relLocs() {
			var xs []model.RegionID
			for r, x := range ls.rel[p].xs.all() {
				if x.count != 0 || x.time != 0 || x.volume != 0 {
					xs = append(xs, r)
				}
			}
			e.u(uint64(len(xs)))
			for _, r := range xs {
				x := ls.rel[p].xs.find(r)
				e.u(uint64(r))
				e.i(x.time)
				e.i(x.count)
				e.i(x.volume)
			}
		}
	}
	type keyed struct {
		k edgeKey
		s edgeStat
	}
	var edges []keyed
	for i, k := range a.eidx.keys {
		if a.edges[i].count > 0 {
			edges = append(edges, keyed{k, a.edges[i]})
		}
	}
	a.soleEdges(func(k edgeKey, s edgeStat) { edges = append(edges, keyed{k, s}) })
	slices.SortFunc(edges, func(x, y keyed) int { return cmpKey(x.k, y.k) })
	e.u(uint64(len(edges)))
	for i := range edges {
		k, g := edges[i].k, &edges[i].s
		e.u(uint64(k.loc))
		e.u(uint64(k.caller))
		e.u(uint64(k.site))
		e.u(uint64(k.callee))
		for _, v := range []int64{g.count, g.incl, g.excl, g.min, g.max} {
			e.i(v)
		}
	}
	c := &a.comm
	e.u(uint64(len(c.com)))
	for _, k := range slices.SortedFunc(maps.Keys(c.com), cmpComKey) {
		s := c.com[k]
		e.u(uint64(k.loc))
		e.u(uint64(k.caller))
		e.u(uint64(k.site))
		e.u(uint64(k.op))
		e.u(uint64(k.peer))
		e.u(uint64(k.dir))
		for _, v := range []int64{s.count, s.bytes, s.sync, s.trans, s.matched} {
			e.i(v)
		}
	}
	for _, m := range []map[pairKey]*pairStat{c.matSend, c.matRecv} {
		e.u(uint64(len(m)))
		for _, k := range slices.SortedFunc(maps.Keys(m), cmpPairKey) {
			s := m[k]
			e.u(uint64(k.sender))
			e.u(uint64(k.receiver))
			e.i(s.count)
			e.i(s.bytes)
		}
	}
	e.u(uint64(len(c.transfer)))
	for _, k := range slices.SortedFunc(maps.Keys(c.transfer), cmpPairKey) {
		s := c.transfer[k]
		e.u(uint64(k.sender))
		e.u(uint64(k.receiver))
		e.i(s.sum)
		e.i(s.n)
		e.i(s.backward)
	}
	for _, h := range c.hist {
		e.i(h.count)
		e.i(h.bytes)
	}
	k := &a.coll
	e.u(uint64(len(k.stats)))
	for _, key := range slices.SortedFunc(maps.Keys(k.stats), cmpCollStatKey) {
		s := k.stats[key]
		e.u(uint64(key.loc))
		e.u(uint64(key.region))
		e.u(uint64(key.site))
		for _, v := range []int64{s.count, s.duration, s.wait, s.sent, s.recvd} {
			e.i(v)
		}
	}
	e.u(uint64(len(k.instances)))
	for _, in := range k.instances {
		e.u(uint64(in.CommID))
		e.u(in.Instance)
		e.u(uint64(in.LocID))
		e.u(uint64(in.RegionID))
		e.str(in.Class)
		for _, v := range []int64{int64(in.Duration), int64(in.Wait), in.Sent, in.Recvd} {
			e.i(v)
		}
		e.bool(in.bySeq)
	}
	e.u(uint64(len(a.ctrs)))
	// In key order, so that two saves of one state are byte-identical.
	for _, key := range slices.SortedFunc(maps.Keys(a.ctrs), func(x, y counterKey) int {
		return cmp.Or(cmp.Compare(x.loc, y.loc), cmp.Compare(x.ctr, y.ctr))
	}) {
		s := a.ctrs[key]
		e.u(uint64(key.loc))
		e.u(uint64(key.ctr))
		e.i(s.n)
		e.i(int64(s.firstT))
		e.i(int64(s.lastT))
		for _, v := range []float64{s.first, s.last, s.min, s.max, s.sum} {
			e.u(math.Float64bits(v))
		}
		e.bool(s.float)
	}
}

func (a *Accumulator) decodeTables(d *dec) {
	nloc, nreg, nsite := a.defs.NumLocations(), a.defs.NumRegions(), len(a.defs.Sites())
	for _, p := range a.diag.fields() {
		*p = d.i()
		d.check(*p >= 0, "negative diagnostic count")
	}
	// Locations in tables must have events, so that their state exists.
	loc := func() model.LocID {
		l := d.id(1, nloc)
		if d.err == nil && !a.seenLoc(int(l)) {
			d.fail("statistics of a location without events")
		}
		return model.LocID(l)
	}
	anyLoc := func() model.LocID { return model.LocID(d.id(0, maxID)) }
	reg := func() model.RegionID { return model.RegionID(d.id(0, nreg)) }
	site := func() model.SiteID { return model.SiteID(d.id(0, nsite)) }
	prev := -1
	for range d.count(4) {
		li := int(d.id(1, nloc))
		if d.err != nil {
			return
		}
		if li <= prev {
			d.fail("locations out of order")
			return
		}
		prev = li
		ls := a.loc(model.LocID(li))
		ls.seen = true
		ls.first, ls.last = model.Time(d.i()), model.Time(d.i())
		d.check(ls.first <= ls.last, "a location's first time after its last")
		if a.opts.Relative != nil {
			a.relInit(ls)
		}
		for range d.count(8) {
			r := reg()
			if d.err != nil {
				return
			}
			fs := ls.fn(r)
			for _, p := range []*int64{&fs.visits, &fs.incl, &fs.excl, &fs.actSum, &fs.min, &fs.max, &fs.closed} {
				*p = d.i()
				d.check(*p >= 0, "negative region statistic")
			}
			d.check(fs.excl <= fs.actSum && fs.min <= fs.max && fs.closed <= fs.visits,
				"inconsistent region statistics (exclusive above inclusive time, minimum above maximum, or more calls ended than made)")
		}
		if n := d.count(1); d.err == nil && n != len(ls.relLocs()) {
			d.fail("relative statistics tables do not match the options")
			return
		}
		for p := range ls.relLocs() {
			for range d.count(4) {
				r := reg()
				if d.err != nil {
					return
				}
				x := ls.rel[p].x(r)
				x.time, x.count, x.volume = d.i(), d.i(), d.i()
			}
		}
	}
	for range d.count(9) {
		// A call site's callee is a region (0 is only ever a caller: the
		// root); Finalize's call graph relies on it.
		k := edgeKey{loc(), reg(), site(), model.RegionID(d.id(1, nreg))}
		if d.err != nil {
			return
		}
		if _, dup := a.eidx.find(k); dup {
			d.fail("duplicate call site")
			return
		}
		g := edgeStat{count: d.i(), incl: d.i(), excl: d.i(), min: d.i(), max: d.i()}
		d.check(g.count >= 0 && g.excl >= 0 && g.min >= 0 && g.excl <= g.incl && g.min <= g.max,
			"inconsistent call-site statistics (negative, exclusive above inclusive time, or minimum above maximum)")
		a.eidx.add(k)
		a.edges = append(a.edges, g)
	}
	c := &a.comm
	for range d.count(11) {
		k := comKey{loc: loc(), caller: reg(), site: site(), op: reg(), peer: anyLoc(), dir: dir(d.id(0, 1))}
		s := &comStat{count: d.i(), bytes: d.i(), sync: d.i(), trans: d.i(), matched: d.i()}
		d.check(s.count >= 0 && s.matched >= 0, "negative message count")
		if d.err != nil {
			return
		}
		c.com[k] = s
	}
	for _, m := range []map[pairKey]*pairStat{c.matSend, c.matRecv} {
		for range d.count(4) {
			k := pairKey{anyLoc(), anyLoc()}
			s := &pairStat{count: d.i(), bytes: d.i()}
			d.check(s.count >= 0, "negative message count")
			if d.err != nil {
				return
			}
			m[k] = s
		}
	}
	for range d.count(5) {
		k := pairKey{anyLoc(), anyLoc()}
		s := &transferStat{sum: d.i(), n: d.i(), backward: d.i()}
		d.check(s.n >= 0 && s.backward >= 0, "negative message count")
		if d.err != nil {
			return
		}
		c.transfer[k] = s
	}
	for i := range c.hist {
		c.hist[i] = histBin{d.i(), d.i()}
		d.check(c.hist[i].count >= 0, "negative message count")
	}
	k := &a.coll
	for range d.count(8) {
		key := collStatKey{loc(), reg(), site()}
		s := &collStat{count: d.i(), duration: d.i(), wait: d.i(), sent: d.i(), recvd: d.i()}
		d.check(s.count >= 0 && s.duration >= 0, "negative collective statistic")
		if d.err != nil {
			return
		}
		k.stats[key] = s
	}
	n := d.count(10)
	if d.err != nil {
		return
	}
	k.instances = make([]CollectiveInstance, 0, n)
	for range n {
		in := CollectiveInstance{CommID: model.CommID(d.id(0, maxID)), Instance: d.u(), LocID: loc(), RegionID: reg(), Class: d.str(),
			Duration: model.Time(d.i()), Wait: model.Time(d.i()), Sent: d.i(), Recvd: d.i(), bySeq: d.bool()}
		if d.err != nil {
			return
		}
		k.instances = append(k.instances, in)
	}
	nctr := len(a.defs.Counters())
	for range d.count(10) {
		key := counterKey{loc(), model.CounterID(d.id(1, nctr))}
		s := &counterStat{n: d.i(), firstT: model.Time(d.i()), lastT: model.Time(d.i())}
		for _, p := range []*float64{&s.first, &s.last, &s.min, &s.max, &s.sum} {
			*p = math.Float64frombits(d.u())
		}
		s.float = d.bool()
		if d.err == nil && s.n <= 0 {
			d.fail("counter summary without samples")
		}
		if d.err != nil {
			return
		}
		if a.ctrs == nil {
			a.ctrs = make(map[counterKey]*counterStat)
		}
		a.ctrs[key] = s
	}
}

// liveOps returns the operations of a closed accumulator that still wait
// for message partners, in index order.
func (c *commState) liveOps() []int32 {
	free := make(map[int32]bool, len(c.freeOps))
	for _, i := range c.freeOps {
		free[i] = true
	}
	var live []int32
	for i := range c.ops {
		if !free[int32(i)] {
			live = append(live, int32(i))
		}
	}
	return live
}

func (a *Accumulator) encodePending(e *enc) {
	a.unspillAll()
	c := &a.comm
	num := make([]uint64, len(c.eps)) // endpoint index → its number in the state
	var numbered uint64
	live := c.liveOps()
	e.u(uint64(len(live)))
	for _, oi := range live {
		op := &c.ops[oi]
		e.u(uint64(op.loc))
		e.u(uint64(op.caller))
		e.u(uint64(op.site))
		e.u(uint64(op.region))
		e.i(int64(op.enter))
		e.i(int64(op.leave))
		n := 0
		for i := op.first; i >= 0; i = c.eps[i].next {
			n++
		}
		e.u(uint64(n))
		for i := op.first; i >= 0; i = c.eps[i].next {
			ep := &c.eps[i]
			num[i] = numbered
			numbered++
			e.u(uint64(ep.dir))
			e.u(uint64(ep.flags))
			e.bool(ep.matched)
			e.bool(ep.settled)
			e.u(uint64(ep.peer))
			e.i(ep.bytes)
			e.i(int64(ep.evTime))
			e.i(int64(ep.partnerEnter))
		}
	}
	var qs []int
	for qi := range c.chanQ {
		if q := &c.chanQ[qi]; q.sends.len()+q.recvs.len() > 0 {
			qs = append(qs, qi)
		}
	}
	e.u(uint64(len(qs)))
	for _, qi := range qs {
		q := &c.chanQ[qi]
		e.u(uint64(q.key.sender))
		e.u(uint64(q.key.receiver))
		e.i(int64(q.key.tag))
		e.u(uint64(q.key.comm))
		x := &q.sends
		if q.sends.len() == 0 {
			x = &q.recvs
		}
		e.u(uint64(x.len()))
		for _, ei := range x.q[x.head:] {
			e.u(num[ei])
		}
	}
	k := &a.coll
	keys := slices.SortedFunc(maps.Keys(k.idx), cmpCollKey)
	e.u(uint64(len(keys)))
	for _, key := range keys {
		in := &k.insts[k.idx[key]]
		e.u(uint64(key.comm))
		e.u(key.match)
		e.bool(key.seq)
		e.u(uint64(key.loc))
		e.u(uint64(in.region))
		e.u(uint64(len(in.members)))
		for _, m := range in.members {
			e.u(uint64(m.loc))
			e.u(uint64(m.region))
			e.u(uint64(m.site))
			e.u(uint64(m.root))
			e.u(uint64(m.class))
			e.i(int64(m.begin))
			e.i(int64(m.end))
			e.i(m.sent)
			e.i(m.recvd)
			e.bool(m.ended)
		}
	}
	var n int
	for range heldCalls(k.heldLog) {
		n++
	}
	e.u(uint64(n))
	for h := range heldCalls(k.heldLog) {
		e.u(uint64(h.loc))
		e.u(uint64(h.root))
		e.u(uint64(h.region))
		e.u(uint64(h.site))
		e.u(uint64(h.comm))
		e.u(uint64(h.class))
		e.bool(h.seq)
		e.bool(h.ended)
		e.u(h.match)
		e.i(int64(h.begin))
		e.i(int64(h.end))
		e.i(h.sent)
		e.i(h.recvd)
	}
}

func cmpComKey(x, y comKey) int {
	return cmp.Or(cmp.Compare(x.loc, y.loc), cmp.Compare(x.caller, y.caller), cmp.Compare(x.site, y.site),
		cmp.Compare(x.op, y.op), cmp.Compare(x.peer, y.peer), cmp.Compare(x.dir, y.dir))
}

func cmpPairKey(x, y pairKey) int {
	return cmp.Or(cmp.Compare(x.sender, y.sender), cmp.Compare(x.receiver, y.receiver))
}

func cmpCollStatKey(x, y collStatKey) int {
	return cmp.Or(cmp.Compare(x.loc, y.loc), cmp.Compare(x.region, y.region), cmp.Compare(x.site, y.site))
}

func cmpBool(x, y bool) int {
	switch {
	case x == y:
		return 0
	case x:
		return 1
	}
	return -1
}

func (a *Accumulator) decodePending(d *dec) {
	nloc, nreg, nsite := a.defs.NumLocations(), a.defs.NumRegions(), len(a.defs.Sites())
	loc := func() model.LocID { return model.LocID(d.id(1, nloc)) }
	reg := func() model.RegionID { return model.RegionID(d.id(0, nreg)) }
	site := func() model.SiteID { return model.SiteID(d.id(0, nsite)) }
	c := &a.comm
	nops := d.count(7) // each with at least one endpoint
	c.ops, c.eps = slices.Grow(c.ops, nops), slices.Grow(c.eps, nops)
	eps := make([]int32, 0, nops) // by number in the state
	for range nops {
		op := opRec{loc: loc(), caller: reg(), site: site(), region: reg(), enter: model.Time(d.i()), leave: model.Time(d.i()), closed: true}
		if d.err != nil {
			return
		}
		if !d.pendingOnly && !a.seenLoc(int(op.loc)) {
			d.fail("operation on a location without events")
			return
		}
		oi := c.newOp(op)
		n := d.count(8)
		if n == 0 && d.err == nil {
			d.fail("operation without message endpoints")
		}
		for range n {
			e := endpoint{op: oi, q: -1, dir: dir(d.id(0, 1)), flags: model.Flags(d.id(0, math.MaxUint8)), matched: d.bool(), settled: d.bool(),
				peer: model.LocID(d.id(0, maxID)), bytes: d.i(), evTime: model.Time(d.i()), partnerEnter: model.Time(d.i())}
			if d.err != nil {
				return
			}
			if e.matched && !e.settled {
				d.fail("matched endpoint not settled")
				return
			}
			ei := c.newEp(e)
			o := &c.ops[oi]
			if o.first < 0 {
				o.first = ei
			} else {
				c.eps[o.last].next = ei
			}
			o.last = ei
			eps = append(eps, ei)
		}
	}
	for range d.count(5) {
		k := chanKey{sender: loc(), receiver: loc(), tag: d.i32(), comm: model.CommID(d.id(0, maxID))}
		if d.err != nil {
			return
		}
		if _, dup := c.chans.find(c.chanQ, k); dup {
			d.fail("duplicate channel")
			return
		}
		qi := c.newChan(k)
		n := d.count(1)
		if n == 0 && d.err == nil {
			d.fail("empty channel")
		}
		for range n {
			x := d.id(0, len(eps))
			if d.err == nil && x == uint64(len(eps)) {
				d.fail("no such endpoint")
			}
			if d.err != nil {
				return
			}
			ei := eps[x]
			e := &c.eps[ei]
			me, peer := k.sender, k.receiver
			if e.dir == dirRecv {
				me, peer = peer, me
			}
			if e.settled || e.q >= 0 || c.ops[e.op].loc != me || e.peer != peer {
				d.fail("endpoint does not belong to its channel")
				return
			}
			q := &c.chanQ[qi]
			if (e.dir == dirSend && q.recvs.len() > 0) || (e.dir == dirRecv && q.sends.len() > 0) {
				d.fail("channel holds sends and receives")
				return
			}
			e.q = qi
			if e.dir == dirSend {
				q.sends.push(ei)
			} else {
				q.recvs.push(ei)
			}
			c.ops[e.op].pending++
			c.npend++
			c.order = append(c.order, epRef{ei, e.gen})
		}
	}
	for _, ei := range eps {
		if e := &c.eps[ei]; !e.settled && e.q < 0 {
			d.fail("unsettled endpoint outside every channel")
			return
		}
	}
	for _, oi := range c.liveOps() {
		if c.ops[oi].pending == 0 {
			d.fail("operation without pending endpoints")
			return
		}
	}
	k := &a.coll
	for range d.count(7) {
		key := collKey{comm: model.CommID(d.id(0, maxID)), match: d.u(), seq: d.bool()}
		key.loc = model.LocID(d.id(0, nloc))
		region := reg()
		if d.err != nil {
			return
		}
		if _, dup := k.idx[key]; dup {
			d.fail("duplicate collective instance")
			return
		}
		switch size := a.definedSize(key.comm); {
		case size == 0:
			d.fail("collective instance on a communicator of unknown membership")
			return
		case (size == selfSize) != (key.loc != 0):
			d.fail("collective instance keyed by its caller on a communicator that is not the caller's own, or not keyed on one")
			return
		}
		ii := k.newInst(key, region)
		in := &k.insts[ii]
		n := d.count(8)
		if n == 0 && d.err == nil {
			d.fail("collective without members")
		}
		for range n {
			m := member{loc: loc(), region: reg(), site: site(), root: model.LocID(d.id(0, maxID)), class: model.Class(d.id(0, math.MaxUint8)),
				begin: model.Time(d.i()), end: model.Time(d.i()), sent: d.i(), recvd: d.i(), ended: d.bool()}
			if d.err != nil {
				return
			}
			if !d.pendingOnly && !a.seenLoc(int(m.loc)) {
				d.fail("collective member on a location without events")
				return
			}
			in.members = append(in.members, m)
			if m.ended {
				in.ended++
			}
		}
	}
	n := d.count(13)
	if d.err != nil {
		return
	}
	for range n {
		h := heldMember{loc: loc(), root: model.LocID(d.id(0, maxID)), region: reg(), site: site(), comm: model.CommID(d.id(0, maxID)),
			class: model.Class(d.id(0, math.MaxUint8)), seq: d.bool(), ended: d.bool(), match: d.u(),
			begin: model.Time(d.i()), end: model.Time(d.i()), sent: d.i(), recvd: d.i()}
		if d.err != nil {
			return
		}
		if !a.seenLoc(int(h.loc)) {
			d.fail("collective member on a location without events")
			return
		}
		if a.definedSize(h.comm) != 0 {
			d.fail("held collective call on a communicator of defined membership")
			return
		}
		k.heldLog = appendHeld(k.heldLog, &h)
	}
}

// newInst adds an empty collective instance with key k.
func (c *collState) newInst(k collKey, region model.RegionID) int32 {
	var ii int32
	if n := len(c.free); n > 0 {
		ii = c.free[n-1]
		c.free = c.free[:n-1]
	} else {
		c.insts = append(c.insts, collInst{})
		ii = int32(len(c.insts) - 1)
	}
	in := &c.insts[ii]
	*in = collInst{key: k, members: in.members[:0], region: region}
	c.idx[k] = ii
	return ii
}

// Join adds the shard b to a, as if a had been fed b's events too: b must
// hold other locations of the same trace (the same definitions and
// options), each with all its events. Unlike [Accumulator.Merge], what
// waits for other locations is carried over: a message endpoint of b
// matches a's pending endpoint of the same channel, in the order of each
// side's stream, and the members of a collective instance in a and b form
// one instance, completed when every member of its communicator has
// ended (on a communicator whose definition lists no members, the calls
// of a and b are held together until the joined state is finalized). So
// the shards of a partition of the locations, joined in any tree,
// finalize to the report of the whole trace, provided no endpoint was
// evicted (Options.MaxPending), with no more instances than
// Options.MaxCollectiveInstances.
// Join closes the open regions of a and b (of b on a copy) as
// MarshalBinary does; a takes no more events afterwards. b is not
// modified ([Accumulator.JoinFrom] uses it up instead). An error (different definitions or options, a location in
// both) leaves a unchanged.
//
// The definitions of a and b are equal, or those of one extend the
// other's: each kind's list is the other's followed by more (a source
// defines some only as its events need them, as a DUMPI run's threads,
// and a shard that needs none has not). When b's extend a's, Join appends
// the extra ones to a's Defs (with the same ids), so that a's Defs, and
// a CallTree on them, describe the union.
func (a *Accumulator) Join(b *Accumulator) error { return a.join(b, false) }

// defsPrefix reports whether the definitions x are those of y but for
// some of the last of each kind (of equal time base and Recorded).
func defsPrefix(x, y *model.Defs) bool {
	return x.TimeBase == y.TimeBase && prefix(x.Locations(), y.Locations()) && prefix(x.Regions(), y.Regions()) &&
		prefix(x.Sites(), y.Sites()) && prefix(x.Comms(), y.Comms()) && prefix(x.Counters(), y.Counters()) &&
		prefix(x.Subsets(), y.Subsets()) && equal(x.Recorded, y.Recorded)
}

func prefix[T any](x, y []T) bool { return len(x) <= len(y) && equal(x, y[:len(x)]) }

// extendDefs appends to x the definitions of y after those x has (x is a
// prefix of y), which get the same ids.
func extendDefs(x, y *model.Defs) {
	for _, l := range y.Locations()[x.NumLocations():] {
		x.AddLocation(l)
	}
	for _, r := range y.Regions()[x.NumRegions():] {
		x.AddRegion(r)
	}
	for _, s := range y.Sites()[len(x.Sites()):] {
		x.AddSite(s)
	}
	for _, c := range y.Comms()[len(x.Comms()):] {
		x.AddComm(c)
	}
	for _, c := range y.Counters()[len(x.Counters()):] {
		x.AddCounter(c)
	}
	for _, s := range y.Subsets()[len(x.Subsets()):] {
		x.AddSubset(s)
	}
}

func (a *Accumulator) seenLoc(li int) bool {
	if li < len(a.locs) && a.locs[li].seen {
		return true
	}
	return a.merged != nil && a.merged.seenLoc(li)
}

// defsDiff names the first kind of definitions in which x and y differ,
// or returns "".
func defsDiff(x, y *model.Defs) string {
	switch {
	case x.TimeBase != y.TimeBase:
		return "time base"
	case !equal(x.Locations(), y.Locations()):
		return "locations"
	case !equal(x.Regions(), y.Regions()):
		return "regions"
	case !equal(x.Sites(), y.Sites()):
		return "sites"
	case !equal(x.Comms(), y.Comms()):
		return "communicators"
	case !equal(x.Counters(), y.Counters()):
		return "counters"
	case !equal(x.Subsets(), y.Subsets()):
		return "subsets"
	case !equal(x.Recorded, y.Recorded):
		return "recorded statistics"
	}
	return ""
}

// equal compares two lists of definitions element by element (a nil list
// equals an empty one).
func equal[T any](x, y []T) bool {
	return slices.EqualFunc(x, y, func(a, b T) bool { return reflect.DeepEqual(a, b) })
}

// transplant moves the pending endpoints and open collectives of the
// closed accumulator s into a, matching and completing what now can be.
func (a *Accumulator) transplant(s *Accumulator) {
	// a's spilled ends come back as s's ends match them, from the file
	// read in one piece rather than a read each; the rest stay spilled,
	// and those spilled meanwhile are written at the end, not a write
	// each.
	a.comm.sp.beginJoin()
	defer a.comm.sp.endJoin()
	s.unspillAll()
	c, sc := &a.comm, &s.comm
	moved := make([]int32, len(sc.eps)) // endpoint of s → of a
	live := sc.liveOps()
	// Room for them all at once: appended one by one, the tables would
	// be copied as they double.
	c.ops = slices.Grow(c.ops, max(0, len(live)-len(c.freeOps)))
	c.eps = slices.Grow(c.eps, max(0, len(sc.eps)-len(sc.freeEps)-len(c.freeEps)))
	for _, oi := range live {
		so := sc.ops[oi]
		ni := c.newOp(opRec{loc: so.loc, caller: so.caller, site: so.site, region: so.region, enter: so.enter, leave: so.leave, closed: so.closed})
		for i := so.first; i >= 0; i = sc.eps[i].next {
			e := sc.eps[i]
			e.op, e.q = ni, -1
			ei := c.newEp(e)
			o := &c.ops[ni]
			if o.first < 0 {
				o.first = ei
			} else {
				c.eps[o.last].next = ei
			}
			o.last = ei
			if !e.settled {
				o.pending++
			}
			moved[i] = ei
		}
	}
	// The unsettled endpoints arrive in their channels' order.
	for qi := range sc.chanQ {
		q := &sc.chanQ[qi]
		for _, x := range []*queue{&q.sends, &q.recvs} {
			for _, ei := range x.q[x.head:] {
				k := q.key
				qi, ok := c.chans.find(c.chanQ, k)
				if !ok {
					if len(c.chanQ) >= 2*c.npend+chanSlack {
						a.dropIdleChans()
					}
					qi = c.newChan(k)
				}
				ni := moved[ei]
				c.eps[ni].q = qi
				a.enqueue(qi, ni, c.eps[ni].dir)
			}
		}
	}
	k := &a.coll
	keys := slices.SortedFunc(maps.Keys(s.coll.idx), cmpCollKey)
	for _, key := range keys {
		si := &s.coll.insts[s.coll.idx[key]]
		ii, ok := k.idx[key]
		if !ok {
			ii = k.newInst(key, si.region)
		}
		in := &k.insts[ii]
		in.members = append(in.members, si.members...)
		in.ended += si.ended
		if in.ended == len(in.members) && len(in.members) >= a.definedSize(key.comm) {
			a.finishColl(ii, false)
		}
	}
	k.heldLog = append(k.heldLog, s.coll.heldLog...)
}
