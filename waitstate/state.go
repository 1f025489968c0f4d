package waitstate

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/hpctrace/hpctrace/model"
)

// StateVersion is the version of the layout [Analyzer.MarshalBinary]
// writes. A saved state is an exchange format between the shards of one
// run, not an archive: a decoder reads exactly its own version and refuses
// others with an error wrapping [ErrState].
const StateVersion = 2

const stateMagic = "hpctrace-wait\x00"

// ErrState is wrapped by every error of decoding a saved state or of
// joining states that do not belong together.
var ErrState = errors.New("waitstate: bad saved state")

// MarshalBinary saves the state of a shard: an Analyzer fed the events of
// some of a trace's locations (all of each one's events), to be joined
// with the other shards' ([Analyzer.Join]) after UnmarshalBinary, possibly
// in another process. It ends a's streams first, as Finalize does (open
// regions are closed at their location's last time), so a takes no more
// events afterwards. The state holds the options, the diagnostics, the
// call paths and every location's log, not the definitions: it is read
// against those of the Analyzer that decodes it, which must be the same
// trace's. Its size is that of the logs (see the package documentation)
// in variable-length integers, several times smaller.
func (a *Analyzer) MarshalBinary() ([]byte, error) {
	a.end()
	if a.st != nil && (a.st.epochs > 0 || a.st.err != nil) {
		return nil, errSettled
	}
	a.fill()
	e := &enc{}
	e.b = append(e.b, stateMagic...)
	e.u(StateVersion)
	e.i(int64(a.opts.TopN))
	for _, p := range a.diag.fields() {
		e.i(*p)
	}
	e.u(uint64(len(a.nodes) - 1))
	for _, n := range a.nodes[1:] {
		e.u(uint64(n.parent))
		e.u(uint64(n.region))
	}
	nseen := 0
	for li := range a.locs {
		if a.locs[li].seen {
			nseen++
		}
	}
	e.u(uint64(nseen))
	for li := range a.locs {
		l := &a.locs[li]
		if !l.seen {
			continue
		}
		e.u(uint64(li))
		e.i(int64(l.first))
		e.i(int64(l.last - l.first))
		bounds, gapEnd, ents := l.gapLog()
		e.u(uint64(len(bounds)))
		prev := l.first
		for _, b := range bounds {
			e.i(int64(b - prev))
			prev = b
		}
		for k, g := range gapEnd {
			lo := int32(0)
			if k > 0 {
				lo = gapEnd[k-1]
			}
			e.u(uint64(g - lo))
		}
		for _, x := range ents {
			e.u(uint64(x.cp))
			e.i(x.dt)
		}
		e.u(uint64(len(l.calls)))
		for _, c := range l.calls {
			e.u(uint64(c.cp))
			e.u(uint64(a.nodes[c.cp].region))
			e.u(uint64(c.enterB))
			e.u(uint64(c.leaveB - c.enterB))
			e.bool(c.open)
		}
		e.u(uint64(len(l.p2p)))
		for _, p := range l.p2p {
			e.i(int64(p.call))
			e.b = append(e.b, p.kind)
			e.u(uint64(p.peer))
			e.i(int64(p.tag))
			e.u(uint64(p.comm))
			e.u(p.match)
			e.i(p.bytes)
		}
		e.u(uint64(len(l.colls)))
		for _, c := range l.colls {
			e.i(int64(c.call))
			e.u(uint64(c.comm))
			e.u(uint64(c.root))
			e.u(uint64(c.region))
			e.b = append(e.b, byte(c.class))
			e.bool(c.seq)
			e.u(c.key)
			e.i(c.sent)
			e.i(c.recvd)
		}
		e.u(uint64(len(l.icolls)))
		for _, c := range l.icolls {
			e.u(uint64(c.call))
			e.bool(c.done)
			e.u(c.match)
			e.u(uint64(c.comm))
			e.u(uint64(c.root))
			e.u(uint64(c.region))
			e.b = append(e.b, byte(c.class))
			e.i(c.recvd)
		}
	}
	return e.b, nil
}

func (d *Diagnostics) fields() []*int64 {
	return []*int64{&d.Events, &d.UnknownLocation, &d.MPICalls, &d.MatchedMessages, &d.UnmatchedSends, &d.UnmatchedRecvs,
		&d.UnknownPeer, &d.OutsideCall, &d.UnknownComm, &d.IncompleteColls, &d.ClockViolations, &d.LeaveMismatch,
		&d.UnbalancedLeaves, &d.OpenAtEnd}
}

// UnmarshalBinary replaces a's state with the one data holds, as written
// by MarshalBinary, read against a's definitions (those given to New).
// The result can be joined and finalized; it takes no more events. Input
// that is not such a state, truncated, or inconsistent with itself or the
// definitions yields an error wrapping [ErrState], never a panic; every
// count is checked against the bytes left, so memory stays proportional
// to len(data).
func (a *Analyzer) UnmarshalBinary(data []byte) error {
	d := &dec{b: data}
	if len(d.b) < len(stateMagic) || string(d.b[:len(stateMagic)]) != stateMagic {
		return fmt.Errorf("%w: not a saved wait-state analysis (bad magic)", ErrState)
	}
	d.b, d.off = d.b[len(stateMagic):], len(stateMagic)
	if v := d.u(); d.err == nil && v != StateVersion {
		d.fail(fmt.Sprintf("state version %d, this decoder reads version %d only", v, StateVersion))
	}
	n := New(a.defs, nil)
	n.opts.TopN = int(d.i())
	n.opts.Instances = a.opts.Instances // not saved: the decoding Analyzer's own
	for _, p := range n.diag.fields() {
		*p = d.i()
	}
	nregions := uint64(a.defs.NumRegions())
	nn := d.count(2)
	for i := range nn {
		parent, region := d.u(), d.u()
		if parent > uint64(i) || region > 1<<32-1 { // a region need not be defined
			d.fail("bad call path node")
			break
		}
		n.nodes = append(n.nodes, cpKey{uint32(parent), model.RegionID(region)})
		n.nodeIx[n.nodes[len(n.nodes)-1]] = uint32(len(n.nodes) - 1)
	}
	nnodes := uint64(len(n.nodes))
	nlocs := uint64(a.defs.NumLocations())
	nseen := d.count(4)
	prevLoc := uint64(0)
	for range nseen {
		li := d.u()
		if d.err != nil {
			break
		}
		if li <= prevLoc || li > nlocs {
			d.fail("bad or repeated location")
			break
		}
		prevLoc = li
		for uint64(len(n.locs)) <= li {
			n.locs = append(n.locs, locLog{})
		}
		l := &n.locs[li]
		l.seen, l.closed = true, true
		l.logExt = new(logExt)
		l.first = model.Time(d.i())
		l.last = l.first + model.Time(d.i())
		nb := d.count(1)
		if nb == 0 && d.err == nil {
			d.fail("location without boundaries")
		}
		t := l.first
		l.bounds = make([]model.Time, 0, nb)
		for range nb {
			t += model.Time(d.i())
			l.bounds = append(l.bounds, t)
		}
		if nb > 0 {
			l.gapEnd = make([]int32, 0, nb-1)
			total := uint64(0)
			for range nb - 1 {
				g := d.u()
				if g > uint64(len(d.b)) || total+g > uint64(len(d.b)) {
					d.fail("gap too long")
					break
				}
				total += g
				l.gapEnd = append(l.gapEnd, int32(total))
			}
			if d.err != nil {
				break
			}
			l.ents = make([]gapEnt, 0, total)
			for range total {
				cp := d.u()
				if cp == 0 || cp >= nnodes {
					d.fail("bad call path")
					break
				}
				l.ents = append(l.ents, gapEnt{uint32(cp), d.i()})
			}
		}
		ncalls := d.count(5)
		l.calls = make([]callRec, 0, ncalls)
		for range ncalls {
			cp, region, eb := d.u(), d.u(), d.u()
			lb := eb + d.u()
			open := d.bool()
			if d.err != nil {
				break
			}
			if cp == 0 || cp >= nnodes || region == 0 || region > nregions || eb >= nb || lb >= nb || lb < eb || n.nodes[cp].region != model.RegionID(region) {
				d.fail("bad call")
				break
			}
			op := n.region(model.RegionID(region)).op
			if op == opNone {
				d.fail("call of a region that is not an MPI call")
				break
			}
			l.calls = append(l.calls, callRec{enter: l.bounds[eb], leave: l.bounds[lb], cp: uint32(cp),
				enterB: int32(eb), leaveB: int32(lb), op: op, open: open})
		}
		ncalls = uint64(len(l.calls))
		np := d.count(7)
		l.p2p = make([]p2pRec, 0, np)
		for range np {
			var p p2pRec
			call := d.i()
			p.kind = d.byte()
			p.peer = model.LocID(d.u32())
			p.tag = int32(d.i())
			p.comm = model.CommID(d.u32())
			p.match = d.u()
			p.bytes = d.i()
			if d.err != nil {
				break
			}
			if call < -1 || call >= int64(ncalls) || p.kind > pDone || (p.kind <= pRecv && p.peer == 0) {
				d.fail("bad point-to-point event")
				break
			}
			p.call = int32(call)
			if p.kind >= pPost && (p.call < 0 || p.match == 0) {
				d.fail("bad request event")
				break
			}
			l.p2p = append(l.p2p, p)
		}
		nc := d.count(9)
		l.colls = make([]collRec, 0, nc)
		for range nc {
			var c collRec
			call := d.i()
			c.comm = model.CommID(d.u32())
			c.root = model.LocID(d.u32())
			c.region = model.RegionID(d.u32())
			c.class = model.Class(d.byte())
			c.seq = d.bool()
			c.key = d.u()
			c.sent, c.recvd = d.i(), d.i()
			if d.err != nil {
				break
			}
			if call < -1 || call >= int64(ncalls) {
				d.fail("bad collective event")
				break
			}
			c.call = int32(call)
			l.colls = append(l.colls, c)
		}
		ni := d.count(8)
		l.icolls = make([]icollRec, 0, ni)
		for range ni {
			var c icollRec
			call := d.u()
			c.done = d.bool()
			c.match = d.u()
			c.comm = model.CommID(d.u32())
			c.root = model.LocID(d.u32())
			c.region = model.RegionID(d.u32())
			c.class = model.Class(d.byte())
			c.recvd = d.i()
			if d.err != nil {
				break
			}
			if call >= uint64(ncalls) || c.match == 0 {
				d.fail("bad non-blocking collective event")
				break
			}
			c.call = int32(call)
			l.icolls = append(l.icolls, c)
		}
	}
	if d.err == nil && len(d.b) > 0 {
		d.fail("trailing bytes")
	}
	if d.err != nil {
		return d.err
	}
	n.ended = true
	*a = *n
	return nil
}

// Join adds to a the state of b, an Analyzer of other locations of the
// same trace (read against the same definitions, with the same options):
// a then finalizes to the report of one pass over both shards' events,
// exactly. It ends the streams of both; b must not be used afterwards.
// Joining states with a location in common is an error wrapping
// [ErrState].
func (a *Analyzer) Join(b *Analyzer) error {
	if a.opts.topN() != b.opts.topN() {
		return fmt.Errorf("%w: joined states have different options", ErrState)
	}
	if a.defs.NumRegions() < b.defs.NumRegions() || a.defs.NumLocations() < b.defs.NumLocations() {
		return fmt.Errorf("%w: joined states have different definitions", ErrState)
	}
	if (a.st != nil && a.st.epochs > 0) || (b.st != nil && b.st.epochs > 0) {
		return errSettled
	}
	for li := range b.locs {
		if b.locs[li].seen && li < len(a.locs) && a.locs[li].seen {
			return fmt.Errorf("%w: location %d is in both joined states", ErrState, li)
		}
	}
	a.end()
	b.end()
	b.fill()
	remap := make([]uint32, len(b.nodes))
	for i := 1; i < len(b.nodes); i++ {
		remap[i] = a.child(remap[b.nodes[i].parent], b.nodes[i].region)
	}
	for li := range b.locs {
		bl := &b.locs[li]
		if !bl.seen {
			continue
		}
		for len(a.locs) <= li {
			a.locs = append(a.locs, locLog{})
		}
		for i := range bl.calls {
			bl.calls[i].cp = remap[bl.calls[i].cp]
		}
		for i := range bl.ents {
			bl.ents[i].cp = remap[bl.ents[i].cp]
		}
		for i := range bl.cur { // the entries of a log of one gap
			bl.cur[i].cp = remap[bl.cur[i].cp]
		}
		a.locs[li] = *bl
	}
	ap, bp := a.diag.fields(), b.diag.fields()
	for i := range ap {
		*ap[i] += *bp[i]
	}
	*b = Analyzer{defs: b.defs, ended: true}
	return nil
}

// enc appends the variable-length integers of a saved state.
type enc struct{ b []byte }

func (e *enc) u(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *enc) i(v int64)  { e.b = binary.AppendVarint(e.b, v) }
func (e *enc) bool(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

// dec reads what enc wrote, with a sticky error.
type dec struct {
	b   []byte
	off int
	err error
}

func (d *dec) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s at offset %d", ErrState, what, d.off)
	}
	d.b = nil
}

func (d *dec) u() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("truncated or overlong integer")
		return 0
	}
	d.b, d.off = d.b[n:], d.off+n
	return v
}

func (d *dec) u32() uint32 {
	v := d.u()
	if v > 1<<32-1 {
		d.fail("identifier out of range")
		return 0
	}
	return uint32(v)
}

func (d *dec) i() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail("truncated or overlong integer")
		return 0
	}
	d.b, d.off = d.b[n:], d.off+n
	return v
}

func (d *dec) byte() byte {
	if d.err != nil {
		return 0
	}
	if len(d.b) == 0 {
		d.fail("truncated")
		return 0
	}
	v := d.b[0]
	d.b, d.off = d.b[1:], d.off+1
	return v
}

func (d *dec) bool() bool {
	switch d.byte() {
	case 0:
		return false
	case 1:
		return true
	}
	d.fail("bad boolean")
	return false
}

// count reads a number of elements of at least min bytes each, checked
// against the bytes left.
func (d *dec) count(min int) uint64 {
	n := d.u()
	if d.err == nil && n > uint64(len(d.b)/min) {
		d.fail("count exceeds the data")
		return 0
	}
	return n
}
