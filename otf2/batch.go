package otf2

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"

	"github.com/hpctrace/hpctrace/internal/kmerge"
)

// A BatchEvent is one event of a [Batch] in compact form: its time,
// location, kind and scalar fields, without the record's raw values,
// attribute list or event number.
//
// An event of a hot kind (Enter, Leave, MpiSend, MpiRecv,
// MpiCollectiveBegin, MpiCollectiveEnd, and Metric with one member)
// without an attribute list is compact: Vals holds its fields as
// [Event.Value] gives them (translated ids, zero past the kind's
// fields). A compact Metric event holds its metric, its member count
// (1), the member's type and its value in Vals[0:4]. Any other event
// (another kind, an attribute list, a Metric of several members) is not
// compact: Time, Location and Kind are set and [Batch.Full] returns the
// whole event.
type BatchEvent struct {
	Time     uint64    // clock-corrected time stamp
	Location uint64    // the location whose file holds the record
	Vals     [5]uint64 // the scalar fields of a compact event
	Kind     Kind
	// for an event that is not compact, 1 + rank×per + i: the event is
	// i of the pool of the location of the rank (64 bytes in all)
	full uint32
}

// Compact reports whether e holds the whole event (see BatchEvent).
func (e *BatchEvent) Compact() bool { return e.full == 0 }

// A Batch is a run of events in global time order, filled by
// [MergedReader.NextBatch]: events 0 to Len()-1, in the order
// MergedReader.Next yields them. Its events, and the events Full
// returns, are valid until the next call of NextBatch: they may be the
// reader's own buffers, not copies.
type Batch struct {
	mr *MergedReader
	// the events: keys, each naming its event in flat (mask): the
	// window's merged keys in the reader's buffers, or the loser trees'
	// copies in evs named by the reader's identity keys (ident), so that
	// At takes no branch
	keys []uint64
	flat []BatchEvent
	mask uint64
	evs  []BatchEvent
}

// Len returns the number of events of the batch.
func (b *Batch) Len() int { return len(b.keys) }

// At returns event i of the batch, 0 ≤ i < Len().
func (b *Batch) At(i int) *BatchEvent { return &b.flat[b.keys[i]&b.mask] }

// Full returns event i of the batch as a whole [Event] if it is not
// compact, nil if it is.
func (b *Batch) Full(i int) *Event {
	e := b.At(i)
	if e.full == 0 || b.mr == nil {
		return nil
	}
	x := int(e.full - 1)
	return &b.mr.bs[x/b.mr.per].full[x%b.mr.per]
}

// batchBudget bounds the events buffered by the merge of NextBatch
// across locations (each location buffers at least minLocBatch).
const (
	batchBudget = 2048
	minLocBatch = 16
	maxLocBatch = 1024
)

// hotLoc is the part of a location's buffer the merge reads per event.
type hotLoc struct {
	next uint64 // with packed keys, the key of buf[head+1] if buffered
	head int32  // the next event of buf to merge
	n    int32  // len(buf)
}

// locBatch is the decoded, not yet merged events of one location.
type locBatch struct {
	buf  []BatchEvent
	full []Event // the events of buf that are not compact
	nf   int     // events of full in use
	end  bool    // the reader has no more events (or failed)
	err  error   // the reader's error after the buffered events

	// the windowed merge's: the buffered events whose keys are in
	// MergedReader.wk, and the key of the last of them
	keyed int
	last  uint64
}

// NextBatch fills b with the next events in global order, those Next
// would yield one by one, and reports whether it holds any; false at the
// end or on the first error of any location (see Err). The reader
// buffers up to 2048 decoded events in all (at least 16, at most 1024
// per location: memory bounded by that and the number of locations); a
// batch holds up to that many. In steady state NextBatch allocates
// nothing.
//
// Each location's records are decoded in a tight loop into its buffer
// (the hot kinds of a location without mapping tables or clock offsets;
// other records, and any record of a location with them, through Next's
// decoder). Up to 160 locations (64 on other architectures than amd64),
// the buffers are merged a window at a time: the events up to the
// earliest of the locations' last buffered events, merged in pairs by
// four independent merges per loop, without a branch per event; with
// more locations, or once a location's time goes back, by a loser tree.
// On amd64 the decoder's loop and the merges' are in assembly. A batch
// of the windowed merge is the buffered events themselves, in merged
// order, not copies. Against Next, whose per-event Event has many more
// fields to set, that saves much of the CPU per event
// (BenchmarkMergedBatch against BenchmarkMergedReader).
//
// NextBatch may follow calls of Next (it continues after the current
// event); once it has been called, Next returns false.
func (mr *MergedReader) NextBatch(b *Batch) bool {
	b.mr = mr
	b.keys, b.flat, b.evs = nil, nil, b.evs[:0]
	if mr.err != nil && !mr.batch {
		return false
	}
	if !mr.batch {
		mr.startBatch()
	}
	if mr.berr != nil {
		return false
	}
	if mr.refill >= 0 {
		i := mr.refill
		mr.refill = -1
		if !mr.fill(i) {
			return false
		}
	}
	if mr.windowed {
		for i := range mr.bs {
			if !mr.topUp(i) {
				return false
			}
		}
		if !mr.windowed {
			mr.rekey()
		}
	}
	if need := len(mr.flat); !mr.windowed && cap(b.evs) < need {
		b.evs = make([]BatchEvent, 0, need) // the loser trees' copies
	}
	switch {
	case mr.windowed:
		mr.mergeWindow(b)
		return b.Len() > 0
	case mr.wide:
		mr.mergeWide(b)
	default:
		mr.mergePacked(b)
	}
	// the copies, named by the identity keys
	if len(mr.ident) < len(b.evs) {
		mr.ident = make([]uint64, cap(b.evs))
		for j := range mr.ident {
			mr.ident[j] = uint64(j)
		}
	}
	b.keys, b.flat, b.mask = mr.ident[:len(b.evs)], b.evs, ^uint64(0)
	return b.Len() > 0
}

// startBatch moves the merge from Next to NextBatch: each location's
// current event (the next after the one Next yielded) becomes the first
// of its buffer.
func (mr *MergedReader) startBatch() {
	mr.batch = true
	mr.berr = mr.err
	mr.refill = -1
	k := len(mr.ranked)
	per := min(max(batchBudget/max(k, 1), minLocBatch), maxLocBatch)
	if mr.perLoc > 0 {
		per = mr.perLoc
	}
	mr.per = per
	if uint64(k)*uint64(per) >= math.MaxUint32 {
		// BatchEvent.full numbers the buffered events in 32 bits
		if mr.berr == nil {
			mr.berr = fmt.Errorf("otf2: NextBatch merges at most %d locations, not %d: %w", uint64(math.MaxUint32)/uint64(per)-1, k, ErrRange)
		}
		return
	}
	mr.bs = make([]locBatch, k)
	mr.hot = make([]hotLoc, k)
	live := make([]bool, k)
	if mr.wide {
		for i, key := range mr.t.Keys() {
			live[i] = !key.Done()
		}
	} else {
		for i, key := range mr.pt.Keys() {
			live[i] = key != kmerge.PackedDone
		}
	}
	if w := mr.win; w >= 0 && mr.berr == nil {
		live[w] = mr.advanceBatch(mr.ranked[w])
	}
	mr.win, mr.cur = -1, nil
	mr.flat = make([]BatchEvent, k*per)
	for i, r := range mr.ranked {
		// every event of a location's buffer is of the location:
		// decodeBatch does not store it
		for j := range per {
			mr.flat[i*per+j].Location = r.opts.Location
		}
	}
	for i, r := range mr.ranked {
		s := &mr.bs[i]
		s.buf = mr.flat[i*per : i*per : (i+1)*per]
		if !live[i] {
			s.end = true
			continue
		}
		s.buf = s.buf[:1]
		mr.convert(s, &s.buf[0], &r.ev, i)
		mr.decode(i)
		mr.hot[i].n = int32(len(s.buf))
	}
	mr.rekey()
	// (the windowed merge's keys hold times relative to the earliest
	// buffered, so that it also takes times too large for the packed keys)
	if winFits(k, per) {
		mr.windowed = true
		mr.wk = new(winKeys)
		mr.wsh = uint(bits.Len(uint(k*per - 1)))
		mr.wmask = 1<<mr.wsh - 1
		mr.wmax = ^uint64(0)>>mr.wsh - 1 // so that no key is PackedDone
		mr.wbase = ^uint64(0)
		for i := range mr.bs {
			if s := &mr.bs[i]; len(s.buf) > 0 {
				mr.wbase = min(mr.wbase, s.buf[0].Time)
			}
		}
		mr.runs, mr.runs2 = make([]winRun, 0, k), make([]winRun, 0, k)
		mr.merges, mr.pieces = make([]winMerge, 0, k), make([]winPiece, 0, k+8)
	}
}

// advanceBatch is advance, keeping the error in berr.
func (mr *MergedReader) advanceBatch(r *EventReader) bool {
	if r.Next() {
		return true
	}
	if err := r.Err(); err != nil && mr.berr == nil {
		mr.berr = err
	}
	return false
}

// rekey builds the merge from the first buffered event of every
// location, with packed keys while every buffered time fits.
func (mr *MergedReader) rekey() {
	fits := true
	for i := range mr.bs {
		s := &mr.bs[i]
		for j := int(mr.hot[i].head); j < len(s.buf); j++ {
			fits = fits && s.buf[j].Time <= mr.maxTime
		}
	}
	if !fits {
		keys := mr.t.Reset(len(mr.bs))
		for i := range mr.bs {
			if s, h := &mr.bs[i], mr.hot[i].head; int(h) < len(s.buf) {
				keys[i] = kmerge.MakeKey(s.buf[h].Time, 0, i)
			}
		}
		mr.t.Init()
		mr.wide = true
		return
	}
	keys := mr.pt.Reset(len(mr.bs))
	for i := range mr.bs {
		if s, h := &mr.bs[i], mr.hot[i].head; int(h) < len(s.buf) {
			keys[i] = s.buf[h].Time<<mr.sh | uint64(i)
		}
		mr.setNext(i)
	}
	mr.pt.Init()
	mr.wide = false
}

// fill decodes the next events of location i into its empty buffer and
// puts its first into the merge; false if the merge must stop (an error
// of that location).
func (mr *MergedReader) fill(i int) bool {
	s := &mr.bs[i]
	s.buf, s.nf = s.buf[:0], 0
	mr.decode(i)
	mr.hot[i] = hotLoc{n: int32(len(s.buf))}
	if len(s.buf) == 0 {
		if s.err != nil {
			mr.berr = s.err
			return false
		}
		if mr.wide {
			mr.t.Push(i, kmerge.Done[uint64]())
		} else {
			mr.pt.Push(i, kmerge.PackedDone)
		}
		return true
	}
	if !mr.wide {
		for j := range s.buf {
			if s.buf[j].Time > mr.maxTime {
				// the key of i in pt is its previous one, which still
				// marks it as live
				mr.rekey()
				return true
			}
		}
		mr.setNext(i)
		mr.pt.Push(i, s.buf[0].Time<<(mr.sh&63)|uint64(i))
		return true
	}
	mr.t.Push(i, kmerge.MakeKey(s.buf[0].Time, 0, i))
	return true
}

// decode appends the next events of location i to its buffer, up to its
// capacity or the reader's end.
func (mr *MergedReader) decode(i int) {
	s := &mr.bs[i]
	r := mr.ranked[i]
	n := len(s.buf)
	buf := s.buf[:cap(s.buf)]
	for n < len(buf) && !s.end {
		if n += r.decodeBatch(buf[n:]); n == len(buf) {
			break
		}
		if !r.Next() {
			s.end, s.err = true, r.Err()
			break
		}
		mr.convert(s, &buf[n], &r.ev, i)
		n++
	}
	s.buf = buf[:n]
}

// convert sets be from the reader's current event e.
func (mr *MergedReader) convert(s *locBatch, be *BatchEvent, e *Event, rank int) {
	*be = BatchEvent{Time: e.Time, Location: e.Location, Kind: e.Kind}
	compact := len(e.Attrs) == 0 && !e.snap && e.TypeID == uint8(e.Kind)
	switch e.Kind {
	case KindEnter, KindLeave, KindMpiSend, KindMpiRecv, KindMpiCollectiveBegin, KindMpiCollectiveEnd:
		for f := range be.Vals {
			be.Vals[f] = e.Value(f)
		}
	case KindMetric:
		compact = compact && e.Value(1) == 1 && len(e.Elems(2)) == 1 && len(e.Elems(3)) == 1
		if compact {
			be.Vals[0], be.Vals[1], be.Vals[2], be.Vals[3] = e.Value(0), 1, e.Elems(2)[0], e.Elems(3)[0]
		}
	default:
		compact = false
	}
	if compact {
		return
	}
	be.Vals = [5]uint64{}
	if s.nf == len(s.full) {
		s.full = append(s.full, Event{})
	}
	copyEvent(&s.full[s.nf], e)
	s.nf++
	be.full = uint32(rank*mr.per + s.nf)
}

// copyEvent sets dst to a deep copy of src, reusing dst's slices. It
// copies the fields one by one, and a slice only if it has elements:
// most events that are not compact (MpiIsend, MpiIrecv and their
// requests and completions) have neither attributes nor arrays, and a
// copy of the whole struct (with its slice headers, under write
// barriers) and six appends of nothing cost several times the rest.
// TestCopyEventFields fails if Event gains a field this does not copy.
func copyEvent(dst, src *Event) {
	dst.Kind, dst.TypeID, dst.Location = src.Kind, src.TypeID, src.Location
	dst.Time, dst.RawTime, dst.Number = src.Time, src.RawTime, src.Number
	dst.vals, dst.raw, dst.snap = src.vals, src.raw, src.snap
	dst.Attrs = dst.Attrs[:0]
	if len(src.Attrs) > 0 {
		dst.Attrs = append(dst.Attrs, src.Attrs...)
	}
	for i := range src.arrs {
		dst.arrs[i], dst.rawArrs[i] = dst.arrs[i][:0], dst.rawArrs[i][:0]
		if len(src.arrs[i]) > 0 {
			dst.arrs[i] = append(dst.arrs[i], src.arrs[i]...)
		}
		if len(src.rawArrs[i]) > 0 {
			dst.rawArrs[i] = append(dst.rawArrs[i], src.rawArrs[i]...)
		}
	}
}

// setNext sets the key the merge pushes when location i wins, that of
// the event after its head (packed keys).
func (mr *MergedReader) setNext(i int) {
	h := &mr.hot[i]
	if s := &mr.bs[i]; int(h.head)+1 < len(s.buf) {
		h.next = s.buf[h.head+1].Time<<(mr.sh&63) | uint64(i)
	}
}

// mergePacked moves events from the location buffers to b in global
// order with packed keys, until a location's buffer runs out (it is
// refilled by the next NextBatch) or every location ends. The key a
// location pushes when it wins is prepared the event before (hotLoc.next),
// so that the loop carries from one event to the next only the tree's
// winner and one load.
func (mr *MergedReader) mergePacked(b *Batch) {
	out := b.evs[:cap(b.evs)]
	n := 0
	bs, hot := mr.bs, mr.hot
	sh := mr.sh & 63
	mask := uint64(1)<<sh - 1
	w := mr.pt.Winner()
	for w != kmerge.PackedDone && n < len(out) {
		i := int(w & mask)
		h := &hot[i]
		k := h.next
		j := h.head
		buf := bs[i].buf
		out[n] = buf[j]
		n++
		j++
		h.head = j
		if j < h.n {
			w = mr.pt.Push(i, k)
			if int(j)+1 < len(buf) {
				h.next = buf[j+1].Time<<sh | uint64(i)
			}
			continue
		}
		if s := &bs[i]; s.end {
			if s.err != nil {
				mr.berr = s.err
				break
			}
			w = mr.pt.Push(i, kmerge.PackedDone)
			continue
		}
		mr.refill = i
		break
	}
	b.evs = out[:n]
}

// mergeWide is mergePacked with two-word keys.
func (mr *MergedReader) mergeWide(b *Batch) {
	out := b.evs[:cap(b.evs)]
	n := 0
	w := mr.t.Winner()
	for !w.Done() && n < len(out) {
		i := w.Source()
		s, h := &mr.bs[i], &mr.hot[i]
		out[n] = s.buf[h.head]
		n++
		h.head++
		if int(h.head) < len(s.buf) {
			w = mr.t.Push(i, kmerge.MakeKey(s.buf[h.head].Time, 0, i))
			continue
		}
		if s.end {
			if s.err != nil {
				mr.berr = s.err
				break
			}
			w = mr.t.Push(i, kmerge.Done[uint64]())
			continue
		}
		mr.refill = i
		break
	}
	b.evs = out[:n]
}

// decodeBatch decodes the events of hot kinds without attribute lists
// (Metric with one member) that follow in the current chunk into dst, as
// fastNext reads them, if the reader's values are stored values (plain)
// and it reads event records. It stops at the first record it does not
// read (which Next reads) and returns the number of events decoded.
func (r *EventReader) decodeBatch(dst []BatchEvent) int {
	if !r.fast || !r.plain || r.hold || r.done || r.c.be {
		return 0
	}
	k, off, time := decodeHot(r.c.b, r.c.off, r.time, dst)
	r.c.off = off
	r.time = time
	r.n += uint64(k)
	return k
}

// decodeHotGo decodes the records of b from off into dst, as
// decodeBatch describes, time being the time of the record before off.
// It returns the number of events decoded, the position of the first
// record not decoded and the time of the last decoded. The fields of
// dst[k], past the decoded events, may be overwritten. decodeHot is this
// function, or on amd64 the same in assembly (hot_amd64.s).
func decodeHotGo(b []byte, off int, time uint64, dst []BatchEvent) (k, next int, last uint64) {
	// Each kind stores its own fields: values held in variables across
	// the kinds would not all stay in registers, and a value reloaded
	// from the stack on the way to the next record's position delays
	// every record after it.
loop:
	for ; k < len(dst) && off+fastWindow <= len(b); k++ {
		w := (*[fastWindow]byte)(b[off : off+fastWindow])
		t0 := time
		q := 0
		if w[0] == bTimestamp {
			t0 = binary.LittleEndian.Uint64(w[1:9])
			q = 9
		}
		t := Kind(w[q&31])
		e := &dst[k]
		switch t {
		case KindEnter, KindLeave:
			var ok bool
			if e.Vals[0], q, ok = wcomp32(w, q+1); !ok {
				break loop
			}
			off += q
			e.Vals[1], e.Vals[2], e.Vals[3], e.Vals[4] = 0, 0, 0, 0
		case KindMpiSend, KindMpiRecv, KindMpiCollectiveEnd, KindMpiCollectiveBegin, KindMetric:
			l := int(w[(q+1)&31])
			q += 2
			end := off + q + l
			if l == 0xff || end > len(b) {
				break loop
			}
			var ok bool
			switch t {
			case KindMpiSend, KindMpiRecv:
				if e.Vals[0], q, ok = wcomp32(w, q); !ok {
					break loop
				}
				if e.Vals[1], q, ok = wcomp32(w, q); !ok {
					break loop
				}
				if e.Vals[2], q, ok = wcomp32(w, q); !ok {
					break loop
				}
				if e.Vals[3], q, ok = wcomp64(w, q); !ok {
					break loop
				}
				e.Vals[4] = 0
			case KindMpiCollectiveEnd:
				e.Vals[0] = uint64(w[q&31])
				if e.Vals[1], q, ok = wcomp32(w, q+1); !ok {
					break loop
				}
				if e.Vals[2], q, ok = wcomp32(w, q); !ok {
					break loop
				}
				if e.Vals[3], q, ok = wcomp64(w, q); !ok {
					break loop
				}
				if e.Vals[4], q, ok = wcomp64(w, q); !ok {
					break loop
				}
			case KindMetric:
				// one member: metric, count 1, type, value
				if e.Vals[0], q, ok = wcomp32(w, q); !ok || w[q&31] != 1 {
					break loop
				}
				e.Vals[1], e.Vals[2] = 1, uint64(w[(q+1)&31])
				if e.Vals[3], q, ok = wcomp64(w, q+2); !ok {
					break loop
				}
				e.Vals[4] = 0
			default: // MpiCollectiveBegin: no fields
				e.Vals = [5]uint64{}
			}
			if off+q > end {
				break loop
			}
			off = end
		default:
			break loop
		}
		// Location is the buffer's already
		e.Time = t0
		e.Kind, e.full = t, 0
		time = t0
	}
	return k, off, time
}
