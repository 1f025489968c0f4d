package otf2

import "encoding/binary"

// The hot event kinds (region enter and leave, MPI point-to-point and
// collective records, the non-blocking sends and receives and their
// requests and completions, metrics) are decoded by fastNext without the
// generic field loop of decodeFields: one switch on the record type, the
// compressed integers read with one 8-byte load each, and the bounds
// checked once per record (a window of fixed size). Any record it does not expect (another kind,
// an attribute list, a short or malformed body, a big-endian chunk, the
// last bytes of a chunk) is left to the generic path, which reads it from
// the same position and reports its errors, so both paths yield the same
// events.

// fastSlack is the number of bytes that must follow the end of a Metric
// record's body in the chunk for fastMetric to read it: it reads a value
// only from a position at most one past the body's end (and finds out
// afterwards), and the 8-byte load of a compressed integer ends 9 bytes
// after its size byte.
const fastSlack = 10

// compMask[n] keeps the n low bytes of a little-endian 8-byte load.
var compMask = [9]uint64{0, 0xff, 0xffff, 0xffffff, 0xffffffff, 0xff_ffffffff, 0xffff_ffffffff, 0xffffff_ffffffff, ^uint64(0)}

// comp32 reads a compressed 32-bit integer at b[p:]; p+9 <= len(b).
// ok is false for a malformed size byte.
func comp32(b []byte, p int) (v uint64, q int, ok bool) {
	n := b[p]
	if n <= 4 {
		x := binary.LittleEndian.Uint64(b[p+1:])
		return x & compMask[n], p + 1 + int(n), true
	}
	return 0xffffffff, p + 1, n == 0xff
}

// fastWindow is the size of the window fastNext reads a record's fields
// from: a field starts within 32 bytes and its 8-byte load ends 9 later.
const fastWindow = 48

// wcomp32 is comp32 at position q of a window, masked to its first 32
// bytes.
func wcomp32(w *[fastWindow]byte, q int) (v uint64, next int, ok bool) {
	i := q & 31
	n := w[i]
	if n <= 4 {
		return binary.LittleEndian.Uint64(w[i+1:i+9]) & compMask[n], q + 1 + int(n), true
	}
	return 0xffffffff, q + 1, n == 0xff
}

// wcomp64 is comp64 at position q of a window, masked to its first 32
// bytes.
func wcomp64(w *[fastWindow]byte, q int) (v uint64, next int, ok bool) {
	i := q & 31
	n := w[i]
	if n <= 8 {
		return binary.LittleEndian.Uint64(w[i+1:i+9]) & compMask[n], q + 1 + int(n), true
	}
	return ^uint64(0), q + 1, n == 0xff
}

// comp64 reads a compressed 64-bit integer at b[p:]; p+9 <= len(b).
func comp64(b []byte, p int) (v uint64, q int, ok bool) {
	n := b[p]
	if n <= 8 {
		x := binary.LittleEndian.Uint64(b[p+1:])
		return x & compMask[n], p + 1 + int(n), true
	}
	return ^uint64(0), p + 1, n == 0xff
}

// fastNext reads the next event if it is of a hot kind, optionally after
// its timestamp record, and lies whole in the current chunk. Otherwise it
// returns false, with the read position, time and event count unchanged
// (a Metric record may leave its arrays half set, which the generic path
// sets again).
func (r *EventReader) fastNext() bool {
	b := r.c.b
	off := r.c.off
	if r.c.be || off+fastWindow > len(b) {
		return false
	}
	// The record's fields are read from a window of fixed size, with
	// positions masked to it: no bounds checks per field. A field of a
	// hot kind that the record's compressed integers leave well-formed
	// starts within 31 bytes of the record (9 of a timestamp, 22 of the
	// fields before the last), so the mask changes no position of a
	// record read here; on any other record it reads garbage that the
	// checks of its sizes and length reject.
	w := (*[fastWindow]byte)(b[off : off+fastWindow])
	time := r.time
	q := 0
	if w[0] == bTimestamp {
		time = binary.LittleEndian.Uint64(w[1:9])
		q = 9
	}
	t := w[q&31]
	q++
	e := &r.ev
	var v0, v1, v2, v3, v4 uint64
	var n int // scalar fields
	var ok bool
	var p int // the absolute position after the record
	switch Kind(t) {
	case KindEnter, KindLeave:
		if v0, q, ok = wcomp32(w, q); !ok {
			return false
		}
		n = 1
		p = off + q
	case KindMpiIsendComplete, KindMpiIrecvRequest:
		// a request id, as Enter's region but 64 bits
		if v0, q, ok = wcomp64(w, q); !ok {
			return false
		}
		n = 1
		p = off + q
	case KindMpiSend, KindMpiRecv, KindMpiCollectiveEnd, KindMpiCollectiveBegin, KindMetric, KindMpiIsend, KindMpiIrecv:
		l := int(w[q&31])
		q++
		end := off + q + l
		if l == 0xff || end > len(b) {
			return false
		}
		switch Kind(t) {
		case KindMpiSend, KindMpiRecv, KindMpiIsend, KindMpiIrecv:
			if v0, q, ok = wcomp32(w, q); !ok {
				return false
			}
			if v1, q, ok = wcomp32(w, q); !ok {
				return false
			}
			if v2, q, ok = wcomp32(w, q); !ok {
				return false
			}
			if v3, q, ok = wcomp64(w, q); !ok {
				return false
			}
			n = 4
			if k := Kind(t); k == KindMpiIsend || k == KindMpiIrecv {
				// and a request id, which may start past the window's
				// first 32 bytes (then the generic path reads the record)
				if q > 31 {
					return false
				}
				if v4, q, ok = wcomp64(w, q); !ok {
					return false
				}
				n = 5
			}
		case KindMpiCollectiveEnd:
			v0 = uint64(w[q&31])
			if v1, q, ok = wcomp32(w, q+1); !ok {
				return false
			}
			if v2, q, ok = wcomp32(w, q); !ok {
				return false
			}
			if v3, q, ok = wcomp64(w, q); !ok {
				return false
			}
			if v4, q, ok = wcomp64(w, q); !ok {
				return false
			}
			n = 5
		case KindMetric:
			if end+fastSlack > len(b) {
				return false
			}
			return r.fastMetric(b, off+q, end, time)
		}
		if off+q > end {
			return false
		}
		p = end
	default:
		return false
	}
	// the header, without a call (which would spill the values) unless
	// the reader corrects times or the last event had arrays
	e.Kind, e.TypeID = Kind(t), t
	e.Location = r.opts.Location
	e.RawTime, e.Time = time, time
	if len(r.clk.offs) >= 2 {
		e.Time = r.clk.correct(time)
	}
	if len(e.Attrs) != 0 {
		e.Attrs = e.Attrs[:0]
	}
	e.Number = r.n + 1
	if r.hadArrs {
		r.emptyArrays()
	}
	r.time = time
	r.c.off = p
	// scalar stores to both arrays: copying raw to vals as an array
	// would load what was just stored in wider words, which stalls
	e.raw[0], e.raw[1], e.raw[2], e.raw[3], e.raw[4] = v0, v1, v2, v3, v4
	e.vals[0], e.vals[1], e.vals[2], e.vals[3], e.vals[4] = v0, v1, v2, v3, v4
	r.setUsed(5)
	r.used = n
	if !r.plain {
		r.translate(eventLayouts[t])
	}
	r.n++
	return true
}

// fastMetric reads the body b[p:end] of a Metric record at the given raw
// time; end+fastSlack <= len(b).
func (r *EventReader) fastMetric(b []byte, p, end int, time uint64) bool {
	v0, p, ok := comp32(b, p)
	if !ok || p >= end {
		return false
	}
	k := int(b[p])
	p++
	e := &r.ev
	// The arrays are set whether or not the record is read here;
	// readEvent sets them again when it reads the record instead.
	r.hadArrs = true
	tys, vals := e.rawArrs[0][:0], e.rawArrs[1][:0]
	for range k {
		// (type, value) pairs; p <= end here, so the loads stay in the chunk
		tys = append(tys, uint64(b[p]))
		var v uint64
		if v, p, ok = comp64(b, p+1); !ok || p > end {
			e.rawArrs[0], e.rawArrs[1] = tys, vals
			return false
		}
		vals = append(vals, v)
	}
	e.rawArrs[0], e.rawArrs[1] = tys, vals
	e.Kind, e.TypeID = KindMetric, uint8(KindMetric)
	e.Location = r.opts.Location
	e.RawTime, e.Time = time, time
	if len(r.clk.offs) >= 2 {
		e.Time = r.clk.correct(time)
	}
	if len(e.Attrs) != 0 {
		e.Attrs = e.Attrs[:0]
	}
	e.Number = r.n + 1
	r.time = time
	e.rawArrs[2] = e.rawArrs[2][:0]
	e.arrs[0] = append(e.arrs[0][:0], tys...)
	e.arrs[1] = append(e.arrs[1][:0], vals...)
	e.arrs[2] = e.arrs[2][:0]
	r.hadArrs = true
	e.raw[0], e.raw[1] = v0, uint64(k)
	e.vals[0], e.vals[1] = v0, uint64(k)
	r.setUsed(2)
	if !r.plain {
		r.translate(eventLayouts[KindMetric])
	}
	r.c.off = end
	r.n++
	return true
}

// emptyArrays empties the event's element arrays.
func (r *EventReader) emptyArrays() {
	e := &r.ev
	for i := range e.arrs {
		e.arrs[i], e.rawArrs[i] = e.arrs[i][:0], e.rawArrs[i][:0]
	}
	r.hadArrs = false
}

// setUsed clears the value slots from n up to those the previous event
// used (slots past those an event uses are zero), and records that the
// current one uses n.
func (r *EventReader) setUsed(n int) {
	if r.used > n {
		clear(r.ev.raw[n:r.used])
		clear(r.ev.vals[n:r.used])
	}
	r.used = n
}

// translate maps the scalar reference fields of l through the location's
// mapping tables (the hot kinds have no clock-corrected fields).
func (r *EventReader) translate(l *layout) {
	m := r.opts.Mapping
	e := &r.ev
	for i := range l.fields {
		if f := &l.fields[i]; f.mapping != noMap && f.scalar() {
			e.vals[f.slot] = m.apply(f.mapping, e.raw[f.slot])
		}
	}
}
