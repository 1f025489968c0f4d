package stats

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/hpctrace/hpctrace/model"
)

// enc appends the variable-length integers and strings of a saved state.
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
func (e *enc) str(s string) {
	e.u(uint64(len(s)))
	e.b = append(e.b, s...)
}

// ErrState is wrapped by every error of decoding a saved state.
var ErrState = errors.New("stats: bad saved state")

// dec reads what enc wrote. Errors are sticky: after the first one every
// read returns zero, and err says where it happened.
type dec struct {
	b   []byte
	off int
	err error
	// pendingOnly: the state holds pending items only (DetachPending),
	// whose locations have no events in it.
	pendingOnly bool
}

func (d *dec) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s at offset %d", ErrState, what, d.off)
	}
	d.b = nil
}

// check fails with what unless ok.
func (d *dec) check(ok bool, what string) {
	if !ok {
		d.fail(what)
	}
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

func (d *dec) bool() bool {
	switch d.u() {
	case 0:
		return false
	case 1:
		return true
	}
	d.fail("bad boolean")
	return false
}

// count reads a number of elements, each of which takes at least per
// bytes, so that a count larger than the rest of the input is an error
// instead of an allocation.
func (d *dec) count(per int) int {
	n := d.u()
	if d.err == nil && n > uint64(len(d.b)/per) {
		d.fail(fmt.Sprintf("count %d exceeds the remaining %d bytes", n, len(d.b)))
		return 0
	}
	return int(n)
}

func (d *dec) str() string {
	n := d.count(1)
	if d.err != nil {
		return ""
	}
	s := string(d.b[:n])
	d.b, d.off = d.b[n:], d.off+n
	return s
}

// i32 reads a value that must fit an int32.
func (d *dec) i32() int32 {
	v := d.i()
	if v < math.MinInt32 || v > math.MaxInt32 {
		d.fail("value out of range")
		return 0
	}
	return int32(v)
}

// id reads an id in [lo, n].
// maxID bounds an id of 32 bits that no definition bounds, as an int:
// MaxUint32, or on a platform of 32-bit ints the largest int.
const maxID = int(min(math.MaxUint32, math.MaxInt))

func (d *dec) id(lo, n int) uint64 {
	v := d.u()
	if d.err == nil && (v < uint64(lo) || v > uint64(n)) {
		d.fail(fmt.Sprintf("id %d out of range [%d, %d]", v, lo, n))
		return 0
	}
	return v
}

func encodeDefs(e *enc, d *model.Defs) {
	e.u(d.TimeBase.TicksPerSecond)
	locs := d.Locations()
	e.u(uint64(len(locs)))
	for _, l := range locs {
		e.i(l.Native)
		e.str(l.Name)
		e.i(int64(l.Process))
		e.i(int64(l.Thread))
		e.bool(l.Host)
		e.bool(l.MPI)
		e.u(uint64(l.Stream))
	}
	regs := d.Regions()
	e.u(uint64(len(regs)))
	for _, r := range regs {
		e.i(r.Native)
		e.str(r.Name)
		e.u(uint64(r.Kind))
		e.str(r.Group)
		e.str(r.File)
		e.i(int64(r.Line))
		e.u(uint64(r.Paradigm))
	}
	sites := d.Sites()
	e.u(uint64(len(sites)))
	for _, s := range sites {
		e.str(s.File)
		e.i(int64(s.Line))
	}
	locList := func(ls []model.LocID) {
		if ls == nil {
			e.u(0)
			return
		}
		e.u(uint64(len(ls)) + 1)
		for _, l := range ls {
			e.u(uint64(l))
		}
	}
	comms := d.Comms()
	e.u(uint64(len(comms)))
	for _, c := range comms {
		e.i(c.Native)
		e.str(c.Name)
		locList(c.Members)
		locList(c.Remote)
		e.bool(c.Self)
	}
	cnts := d.Counters()
	e.u(uint64(len(cnts)))
	for _, c := range cnts {
		e.i(c.Native)
		e.str(c.Name)
		e.str(c.Unit)
		e.bool(c.Accumulating)
		e.bool(c.Float)
	}
	subs := d.Subsets()
	e.u(uint64(len(subs)))
	for _, s := range subs {
		e.i(s.Native)
		e.u(uint64(len(s.Members)))
		for _, m := range s.Members {
			e.i(m)
		}
	}
	e.u(uint64(len(d.Recorded)))
	for _, r := range d.Recorded {
		e.u(uint64(r.Kind))
		e.u(uint64(r.Loc))
		e.i(int64(r.Time))
		e.i(r.RelativeTo)
		e.u(uint64(r.Region))
		e.u(uint64(r.Peer))
		e.i(r.Value)
		e.bool(r.Unknown)
	}
}

func decodeDefs(d *dec) *model.Defs {
	defs := new(model.Defs)
	defs.TimeBase.TicksPerSecond = d.u()
	for range d.count(7) {
		l := model.Location{Native: d.i(), Name: d.str(), Process: d.i32(), Thread: d.i32(), Host: d.bool(), MPI: d.bool()}
		stream := d.u()
		d.check(stream <= uint64(defs.NumLocations())+1, "bad location stream") // a location kept in its own or an earlier one's stream
		l.Stream = model.LocID(stream)
		if d.err != nil {
			return nil
		}
		defs.AddLocation(l)
	}
	nloc := defs.NumLocations()
	for range d.count(7) {
		r := model.Region{Native: d.i(), Name: d.str()}
		k := d.u()
		if k > math.MaxUint8 {
			d.fail("bad region kind")
		}
		r.Kind = model.RegionKind(k)
		r.Group, r.File, r.Line = d.str(), d.str(), d.i32()
		p := d.u()
		if p > math.MaxUint8 {
			d.fail("bad region paradigm")
		}
		r.Paradigm = model.Paradigm(p)
		if d.err != nil {
			return nil
		}
		defs.AddRegion(r)
	}
	for range d.count(2) {
		s := model.Site{File: d.str(), Line: d.i32()}
		if d.err != nil {
			return nil
		}
		if int(defs.AddSite(s)) != len(defs.Sites()) {
			d.fail("duplicate site")
			return nil
		}
	}
	locList := func() []model.LocID {
		n := d.count(1)
		if n == 0 {
			return nil
		}
		ls := make([]model.LocID, n-1)
		for i := range ls {
			ls[i] = model.LocID(d.id(0, nloc))
		}
		return ls
	}
	for range d.count(4) {
		c := model.Comm{Native: d.i(), Name: d.str()}
		c.Members = locList()
		c.Remote = locList()
		c.Self = d.bool()
		if c.Self && (c.Members != nil || c.Remote != nil) {
			d.fail("a communicator of its caller alone lists members")
		}
		if d.err != nil {
			return nil
		}
		defs.AddComm(c)
	}
	for range d.count(4) {
		c := model.Counter{Native: d.i(), Name: d.str(), Unit: d.str(), Accumulating: d.bool(), Float: d.bool()}
		if d.err != nil {
			return nil
		}
		defs.AddCounter(c)
	}
	for range d.count(2) {
		s := model.Subset{Native: d.i()}
		if n := d.count(1); n > 0 {
			s.Members = make([]int64, n)
			for i := range s.Members {
				s.Members[i] = d.i()
			}
		}
		if d.err != nil {
			return nil
		}
		defs.AddSubset(s)
	}
	n := d.count(8)
	if d.err != nil {
		return nil
	}
	if n > 0 {
		defs.Recorded = make([]model.Recorded, n)
	}
	for i := range defs.Recorded {
		r := &defs.Recorded[i]
		k := d.u()
		if k > math.MaxUint8 {
			d.fail("bad recorded kind")
		}
		r.Kind = model.RecordedKind(k)
		r.Loc = model.LocID(d.id(0, nloc))
		r.Time = model.Time(d.i())
		r.RelativeTo = d.i()
		r.Region = model.RegionID(d.id(0, defs.NumRegions()))
		r.Peer = model.LocID(d.id(0, nloc))
		r.Value = d.i()
		r.Unknown = d.bool()
	}
	if d.err != nil {
		return nil
	}
	return defs
}
