package stats

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/hpctrace/hpctrace/model"
)

// Spilling of message ends that wait long for a partner.
//
// A message end that finds no partner waits in its channel's queue, and
// keeps its operation (the frame it occurred in) and that operation's
// other ends in memory, until a partner arrives or the run ends. In a run
// whose ranks leave many ends unmatched (a rank's file that stops early,
// a partner in a part of the run not read), those ends pile up for the
// whole run. When more than spillState.at ends wait in memory, the oldest
// waiting end whose operation is closed and waits for no other end is
// moved, with its operation, to a temporary file: one fixed-size record
// per operation, in a slot that is reused once the end is matched or
// settled, so the file is as large as the most ends spilled at once.
// Its channel queue keeps a reference to the record in place of the end
// (a negative index), so matching finds it where it would find the end,
// in the same order; taking it from the queue reads the record back. The
// statistics are the same whether or not anything spills.
//
// In memory a spilled end costs its queue entry, its entry in the
// eviction order and a spillSlot, 20 bytes in all, against the end, its
// operation and the operation's other ends. The file is opened when the first end spills
// and removed at once (on systems that allow removing an open file), so
// that nothing is left behind however the process ends; it is closed when
// the accumulator is settled. If it cannot be created or written, ends
// stay in memory. If a record cannot be read back, the accumulator keeps
// the error (Accumulator.Err) and goes on with a stand-in for the lost
// operation: a waiting end of the channel with no other data, so that the
// bookkeeping stays consistent though the statistics are incomplete.

// defaultSpillAt is the number of waiting ends held in memory above
// which the oldest spill.
const defaultSpillAt = 4096

// maxSpillEps is the most endpoints an operation may have to spill; an
// operation with more (a wait on many requests) stays in memory.
const maxSpillEps = 4

// Record layout: the operation (loc, caller, site, region, enter, leave),
// the number of endpoints and the index of the waiting one, then each
// endpoint (dir, flags, matched, settled, peer, bytes, evTime,
// partnerEnter).
const (
	spillOpSize = 4*4 + 8 + 8 + 2
	spillEpSize = 4 + 4 + 8 + 8 + 8
)

// spillRec is the size of a slot of the file.
const spillRec = spillOpSize + maxSpillEps*spillEpSize

// spillBlock is the size of the write-behind and read-ahead buffers.
const spillBlock = 64 << 10

// spillSlot is the in-memory reference to one spilled operation, whose
// one waiting end is in channel queue q; its record is at offset
// index × spillRec.
type spillSlot struct {
	q   int32  // channel queue of the waiting end; -1: the slot is free
	gen uint32 // bumped when the slot is freed, so stale references fail
}

// spillFile is the spill file: an *os.File, or in tests one that fails.
type spillFile interface {
	io.ReaderAt
	io.WriterAt
	io.Closer
}

// spillState is the part of commState that concerns spilling.
type spillState struct {
	at     int    // waiting ends held in memory above which the oldest spill; 0: defaultSpillAt, -1: never
	dir    string // the file's directory (Options.SpillDir); "": os.TempDir
	err    error  // the first failure to read a record back
	f      spillFile
	name   string // the file's name if it could not be removed while open
	failed bool   // the file could not be made or written: spill no more
	slots  []spillSlot
	free   []int32 // free slots, below len(slots)
	n      int     // ends spilled now
	cur    int     // position in commState.order up to which ends were considered
	size   int64   // file size, counting the write-behind tail
	tail   []byte  // records at the end of the file not written yet
	tailAt int64   // file offset of tail[0]
	rd     []byte  // read-ahead block
	rdAt   int64   // file offset of rd[0]
	// whole: rd is the block readAll read, the whole written file, whose
	// records writeAt rewrites in rd only, writing them back (writeBack)
	// in one piece, from dlo to dhi, before rd goes. batch (in a join,
	// from beginJoin to endJoin): the tail grows to maxReadAll before it
	// is written. A join spills and reuses many slots, a write each
	// before.
	whole, batch bool
	dlo, dhi     int64  // the file offsets of rd's rewritten records, if dhi > dlo
	rec          []byte // one record, scratch
	ahead        bool   // read a block at a time (the records are read in order)

	// Counts for tests and the report of costs.
	spills, reloads int64
	peak            int64 // largest file size
}

// spillLimit returns the number of waiting ends held in memory above
// which the oldest spill, or -1.
func (s *spillState) limit() int {
	if s.failed || s.at < 0 {
		return -1
	}
	if s.at == 0 {
		return defaultSpillAt
	}
	return s.at
}

// maybeSpill spills the oldest waiting ends while more than the limit
// wait in memory. Each end is considered once (the cursor only advances),
// so the cost is amortised O(1) per waiting end plus the record's write.
func (a *Accumulator) maybeSpill() {
	c := &a.comm
	s := &c.sp
	lim := s.limit()
	if lim < 0 || c.npend-s.n <= lim {
		return
	}
	s.cur = max(s.cur, c.ordHead)
	// Only ends at least lim places from the newest are considered: a
	// younger one's frame may still be open.
	for c.npend-s.n > lim && s.cur < len(c.order)-lim {
		ref := c.order[s.cur]
		s.cur++
		if ref.idx < 0 {
			continue
		}
		e := &c.eps[ref.idx]
		if e.gen != ref.gen || e.settled {
			continue
		}
		q := &c.chanQ[e.q]
		x := &q.sends
		if e.dir == dirRecv {
			x = &q.recvs
		}
		// The ends of x the cursor passed are the first x.scan ones, so
		// this one is next.
		pos := x.head + x.scan
		x.scan++
		if pos >= len(x.q) || x.q[pos] != ref.idx {
			continue // cannot happen: the queue is in arrival order
		}
		op := &c.ops[e.op]
		if !op.closed || op.pending != 1 {
			continue
		}
		n, k := 0, -1
		for i := op.first; i >= 0 && n <= maxSpillEps; i = c.eps[i].next {
			if i == ref.idx {
				k = n
			}
			n++
		}
		if n > maxSpillEps || k < 0 {
			continue
		}
		si, ok := a.spillOp(e.op, n, k, e.q)
		if !ok {
			return
		}
		x.q[pos] = -si - 1
		c.order[s.cur-1] = epRef{-si - 1, s.slots[si].gen}
	}
}

// spillOp writes operation oi, of n endpoints whose k-th waits in queue
// qi, to the file and frees its memory; it returns the slot, and false if
// the file failed (nothing changed then).
func (a *Accumulator) spillOp(oi int32, n, k int, qi int32) (int32, bool) {
	c := &a.comm
	s := &c.sp
	op := &c.ops[oi]
	if s.f == nil && !s.open() {
		return 0, false
	}
	b := s.rec[:0]
	b = binary.LittleEndian.AppendUint32(b, uint32(op.loc))
	b = binary.LittleEndian.AppendUint32(b, uint32(op.caller))
	b = binary.LittleEndian.AppendUint32(b, uint32(op.site))
	b = binary.LittleEndian.AppendUint32(b, uint32(op.region))
	b = binary.LittleEndian.AppendUint64(b, uint64(op.enter))
	b = binary.LittleEndian.AppendUint64(b, uint64(op.leave))
	b = append(b, byte(n), byte(k))
	for i := op.first; i >= 0; i = c.eps[i].next {
		e := &c.eps[i]
		b = append(b, byte(e.dir), byte(e.flags), b2u(e.matched), b2u(e.settled))
		b = binary.LittleEndian.AppendUint32(b, uint32(e.peer))
		b = binary.LittleEndian.AppendUint64(b, uint64(e.bytes))
		b = binary.LittleEndian.AppendUint64(b, uint64(e.evTime))
		b = binary.LittleEndian.AppendUint64(b, uint64(e.partnerEnter))
	}
	b = b[:spillRec]
	s.rec = b
	var si int32
	if m := len(s.free); m > 0 {
		si = s.free[m-1]
		if !s.writeAt(b, int64(si)*spillRec) {
			return 0, false
		}
		s.free = s.free[:m-1]
	} else {
		if !s.appendRec(b) {
			return 0, false
		}
		s.slots = append(s.slots, spillSlot{})
		si = int32(len(s.slots) - 1)
	}
	s.slots[si].q = qi
	s.n++
	s.spills++
	for i := op.first; i >= 0; {
		next := c.eps[i].next
		c.eps[i].gen++
		c.freeEps = append(c.freeEps, i)
		i = next
	}
	c.freeOps = append(c.freeOps, oi)
	return si, true
}

// open creates the spill file and removes its name.
func (s *spillState) open() bool {
	f, err := os.CreateTemp(s.dir, "hpctrace-stats-spill-*")
	if err != nil {
		s.failed = true
		return false
	}
	// Where an open file cannot be removed, the name goes at close.
	s.name = ""
	if os.Remove(f.Name()) != nil {
		s.name = f.Name()
	}
	s.f = f
	s.rec = make([]byte, spillRec)
	return true
}

// appendRec adds b at the end of the file, through the write-behind tail.
func (s *spillState) appendRec(b []byte) bool {
	lim := spillBlock
	if s.batch {
		lim = maxReadAll
	}
	if len(s.tail)+len(b) > lim && !s.flush() {
		return false
	}
	if len(s.tail) == 0 {
		s.tailAt = s.size
		if s.tail == nil {
			s.tail = make([]byte, 0, spillBlock)
		}
	}
	s.tail = append(s.tail, b...)
	s.size += int64(len(b))
	s.peak = max(s.peak, s.size)
	return true
}

// flush writes the tail.
func (s *spillState) flush() bool {
	if len(s.tail) == 0 {
		return true
	}
	if _, err := s.f.WriteAt(s.tail, s.tailAt); err != nil {
		s.failed = true
		return false
	}
	s.tail = s.tail[:0]
	return true
}

// writeAt rewrites the record at off (a reused slot).
func (s *spillState) writeAt(b []byte, off int64) bool {
	if len(s.tail) > 0 && off >= s.tailAt {
		copy(s.tail[off-s.tailAt:], b)
		return true
	}
	if s.whole && off >= s.rdAt && off+int64(len(b)) <= s.rdAt+int64(len(s.rd)) {
		copy(s.rd[off-s.rdAt:], b)
		if s.dhi <= s.dlo {
			s.dlo, s.dhi = off, off+int64(len(b))
		} else {
			s.dlo, s.dhi = min(s.dlo, off), max(s.dhi, off+int64(len(b)))
		}
		return true
	}
	if _, err := s.f.WriteAt(b, off); err != nil {
		s.failed = true
		return false
	}
	switch {
	case off >= s.rdAt && off+int64(len(b)) <= s.rdAt+int64(len(s.rd)):
		copy(s.rd[off-s.rdAt:], b) // the read-ahead block stays current
	case len(s.rd) > 0 && off < s.rdAt+int64(len(s.rd)) && off+int64(len(b)) > s.rdAt:
		s.rd = s.rd[:0] // the read-ahead block is stale
	}
	return true
}

// beginJoin prepares the file for a join, which reads back many of its
// records and spills others, many into the slots freed: the written part
// is read in one piece (readAll), and until endJoin the records are
// rewritten and appended in memory.
func (s *spillState) beginJoin() {
	s.readAll()
	s.batch = true
}

// endJoin ends what beginJoin began: it writes the records rewritten and
// appended since (a write each for the rewritten and the appended ones)
// and lets the blocks go, if they are larger than a read-ahead block. A
// block that cannot be written stays, as the only copy of its records,
// and nothing more is spilled.
func (s *spillState) endJoin() {
	s.batch = false
	if len(s.tail) > spillBlock && s.flush() {
		s.tail = nil
	}
	if !s.writeBack() {
		return
	}
	s.whole = false
	if cap(s.rd) > spillBlock {
		s.rd, s.rdAt = nil, 0
	}
}

// writeBack writes the records rewritten in the block readAll read to the
// file, and reports whether they are there now (false: rd holds the only
// copy of them, and the file fails: nothing more is spilled).
func (s *spillState) writeBack() bool {
	if s.dhi <= s.dlo {
		return true
	}
	if _, err := s.f.WriteAt(s.rd[s.dlo-s.rdAt:s.dhi-s.rdAt], s.dlo); err != nil {
		s.failed = true
		return false
	}
	s.dlo, s.dhi = 0, 0
	return true
}

// readAt returns the record of n bytes at off, or nil if it cannot be
// read (s.err says why).
func (s *spillState) readAt(off int64, n int) []byte {
	if len(s.tail) > 0 && off >= s.tailAt {
		return s.tail[off-s.tailAt : off-s.tailAt+int64(n)]
	}
	if off >= s.rdAt && off+int64(n) <= s.rdAt+int64(len(s.rd)) {
		return s.rd[off-s.rdAt : off-s.rdAt+int64(n)]
	}
	if !s.writeBack() {
		// rd holds records the file lacks: it stays, and this one is
		// read on its own.
		b := make([]byte, n)
		if k, err := s.f.ReadAt(b, off); k < n {
			s.readFailed(err)
			return nil
		}
		return b
	}
	s.whole = false
	m := int64(n)
	if s.ahead {
		m = min(int64(spillBlock), s.size-off)
	}
	if len(s.tail) > 0 {
		m = min(m, s.tailAt-off)
	}
	if int64(cap(s.rd)) < m {
		// None yet, or the block readAll read for a join, smaller
		// than a block (endJoin keeps it).
		s.rd = make([]byte, 0, max(m, spillBlock))
	}
	s.rd = s.rd[:m]
	k, err := s.f.ReadAt(s.rd, off)
	if k < n {
		s.readFailed(err)
		s.rd, s.rdAt = s.rd[:0], 0
		return nil
	}
	s.rd, s.rdAt = s.rd[:k], off
	return s.rd[:n]
}

// readFailed keeps the first failure to read a record back, err.
func (s *spillState) readFailed(err error) {
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	// The file is this accumulator's own, unlinked: a failure to read
	// it back is a failure of the system, not of the input.
	if s.err == nil {
		s.err = fmt.Errorf("stats: reading back spilled message ends: %w", err)
	}
}

// maxReadAll is the largest file readAll reads in one piece.
const maxReadAll = 256 << 20

// readAll reads the written part of the file into the read-ahead block,
// so that readAt finds every record there (the tail, not written yet, it
// finds in the tail), and reports whether it did. A file larger than
// maxReadAll, or one that fails to read, is left to readAt, a record at a
// time.
func (s *spillState) readAll() bool {
	end := s.size
	if len(s.tail) > 0 {
		end = s.tailAt
	}
	if s.f == nil || end <= 0 || end > maxReadAll || !s.writeBack() {
		return false
	}
	s.whole = false
	if int64(cap(s.rd)) < end {
		s.rd = make([]byte, end)
	}
	s.rd = s.rd[:end]
	if k, _ := s.f.ReadAt(s.rd, 0); int64(k) < end {
		s.rd = s.rd[:0] // readAt reports the failure, at the record it needs
		return false
	}
	s.rdAt, s.whole = 0, true
	return true
}

// unspill reads back the operation of spilled end x (a negative queue
// entry), frees its slot and returns the index of the end in memory, in
// channel queue q of the slot.
func (a *Accumulator) unspill(x int32) int32 {
	c := &a.comm
	s := &c.sp
	si := -x - 1
	sl := &s.slots[si]
	b := s.readAt(int64(si)*spillRec, spillRec)
	if b == nil {
		// Lost: a stand-in of the channel's sender, or of its receiver
		// when the sender is no location this accumulator has (the end
		// was a receive, from a peer out of range).
		k := c.chanQ[sl.q].key
		if k.sender != 0 && int(k.sender) < len(a.locs) {
			b = standIn(k.sender, k.receiver, dirSend)
		} else {
			b = standIn(k.receiver, k.sender, dirRecv)
		}
	}
	le := binary.LittleEndian
	oi := c.newOp(opRec{
		loc: model.LocID(le.Uint32(b[0:])), caller: model.RegionID(le.Uint32(b[4:])),
		site: model.SiteID(le.Uint32(b[8:])), region: model.RegionID(le.Uint32(b[12:])),
		enter: model.Time(le.Uint64(b[16:])), leave: model.Time(le.Uint64(b[24:])),
		closed: true, pending: 1,
	})
	n, k := int(b[32]), int(b[33])
	b = b[spillOpSize:]
	var ei int32 = -1
	for j := range n {
		r := b[j*spillEpSize:]
		e := endpoint{op: oi, q: -1, dir: dir(r[0]), flags: model.Flags(r[1]), matched: r[2] != 0, settled: r[3] != 0,
			peer: model.LocID(le.Uint32(r[4:])), bytes: int64(le.Uint64(r[8:])), evTime: model.Time(le.Uint64(r[16:])),
			partnerEnter: model.Time(le.Uint64(r[24:]))}
		if j == k {
			e.q = sl.q
		}
		i := c.newEp(e)
		o := &c.ops[oi]
		if o.first < 0 {
			o.first = i
		} else {
			c.eps[o.last].next = i
		}
		o.last = i
		if j == k {
			ei = i
		}
	}
	sl.q = -1
	sl.gen++
	s.free = append(s.free, si)
	s.n--
	s.reloads++
	return ei
}

// standIn returns the record of an operation that could not be read
// back: a closed operation of loc, of no region, with one waiting end in
// direction d to or from peer, of no bytes and no time. Matched, evicted
// or settled like the lost one, it keeps the counts of waiting ends and
// operations right; the statistics lack the lost operation
// (Accumulator.Err reports it).
func standIn(loc, peer model.LocID, d dir) []byte {
	b := make([]byte, spillRec)
	binary.LittleEndian.PutUint32(b[0:], uint32(loc))
	b[32], b[33] = 1, 0 // one endpoint, the waiting one
	r := b[spillOpSize:]
	r[0] = byte(d)
	binary.LittleEndian.PutUint32(r[4:], uint32(peer))
	return b
}

// valid reports whether ref, a negative reference in the eviction order,
// names an end that is spilled now.
func (s *spillState) valid(ref epRef) bool {
	si := int(-ref.idx - 1)
	return si < len(s.slots) && s.slots[si].q >= 0 && s.slots[si].gen == ref.gen
}

// close closes the file; nothing may be spilled.
func (s *spillState) close() {
	if s.f != nil {
		s.f.Close()
		s.f = nil
		if s.name != "" {
			os.Remove(s.name)
		}
	}
	s.tail, s.rd, s.rec = nil, nil, nil
	s.rdAt, s.size = 0, 0
	s.whole, s.dlo, s.dhi = false, 0, 0
}

// unspillAll reads every spilled end back into memory, in place in its
// queue and in the eviction order, and lets the ends be considered for
// spilling again. The code that reads or copies the matching state as a
// whole (saving, detaching, joining, copying) calls it first.
func (a *Accumulator) unspillAll() {
	c := &a.comm
	s := &c.sp
	if s.n > 0 {
		// Every spilled end comes back, in the order of the queues, not of
		// the file: the file is read in one piece rather than a record at
		// a time, and the tables grow once.
		neps := s.n
		if s.readAll() {
			// The ends of the spilled operations, from their records.
			neps = 0
			for si, sl := range s.slots {
				if sl.q >= 0 {
					neps += int(s.readAt(int64(si)*spillRec, spillRec)[32])
				}
			}
		}
		c.ops = slices.Grow(c.ops, max(0, s.n-len(c.freeOps)))
		c.eps = slices.Grow(c.eps, max(0, neps-len(c.freeEps)))
		back := make(map[int32]int32, s.n) // slot → endpoint
		for qi := range c.chanQ {
			q := &c.chanQ[qi]
			for _, x := range []*queue{&q.sends, &q.recvs} {
				for j := x.head; j < len(x.q); j++ {
					if v := x.q[j]; v < 0 {
						si := -v - 1
						ei := a.unspill(v)
						back[si] = ei
						x.q[j] = ei
					}
				}
			}
		}
		for j := c.ordHead; j < len(c.order); j++ {
			if ref := c.order[j]; ref.idx < 0 {
				si := -ref.idx - 1
				if ei, ok := back[si]; ok && s.slots[si].gen == ref.gen+1 {
					c.order[j] = epRef{ei, c.eps[ei].gen}
				}
			}
		}
	}
	s.close()
	c.compactOrder() // drops the stale references to slots
	s.slots, s.free = s.slots[:0], s.free[:0]
	s.cur = 0
	for qi := range c.chanQ {
		c.chanQ[qi].sends.scan, c.chanQ[qi].recvs.scan = 0, 0
	}
}

// fresh returns the spill state of a copy of an accumulator whose ends
// are all in memory.
func (s *spillState) fresh() spillState {
	return spillState{at: s.at, dir: s.dir, err: s.err, failed: s.failed}
}

// settleSpilled settles every spilled end as unmatched, at the end of the
// stream, in the order of the file, which it reads block by block; the
// order in which ends settle does not change the statistics. Their
// negative queue entries stay, for the caller to drop.
func (a *Accumulator) settleSpilled() {
	s := &a.comm.sp
	s.ahead = true
	for si := range s.slots {
		if s.slots[si].q >= 0 {
			a.comm.npend--
			a.settleUnmatched(a.unspill(int32(-si - 1)))
		}
	}
	s.ahead = false
}
