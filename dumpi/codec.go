package dumpi

import (
	"encoding/binary"
	"strconv"

	"github.com/hpctrace/hpctrace/internal/wire"
)

// decoder is the byte cursor of one call record plus the record- and
// version-dependent layout switches.
type decoder struct {
	wire.Dec
	hasStatus bool // the record's mask has status bits

	// Layouts of files older than the modern (0.6.9+) one.
	status10         bool // < 0.6.3: status entries without tag
	initTwice        bool // < 0.6.2: MPI_Init repeats argc
	cartGetScalar    bool // < 0.6.8: Cart_get coords is one int32
	typeStructScalar bool // < 0.6.9: Type_struct indices is one int32
}

// encoder mirrors decoder for writing.
type encoder struct {
	b         []byte
	hasStatus bool

	status10         bool
	initTwice        bool
	cartGetScalar    bool
	typeStructScalar bool
}

// A Version is the three version bytes of a file's header.
type Version [3]uint8

// Less reports whether v is older than w.
func (v Version) Less(w Version) bool {
	for i := range v {
		if v[i] != w[i] {
			return v[i] < w[i]
		}
	}
	return false
}

// String returns "major.minor.patch".
func (v Version) String() string {
	return itoa(int(v[0])) + "." + itoa(int(v[1])) + "." + itoa(int(v[2]))
}

type layout struct {
	status10, initTwice, cartGetScalar, typeStructScalar bool
	finalizeEnds                                         bool // < 0.6.0: label 0 after MPI_Finalize ends the stream
}

func layoutOf(v Version) layout {
	return layout{
		finalizeEnds:     v.Less(Version{0, 6, 0}),
		status10:         v.Less(Version{0, 6, 3}),
		initTwice:        v.Less(Version{0, 6, 2}),
		cartGetScalar:    v.Less(Version{0, 6, 8}),
		typeStructScalar: v.Less(Version{0, 6, 9}),
	}
}

func (d *decoder) setLayout(l layout) {
	d.status10, d.initTwice, d.cartGetScalar, d.typeStructScalar = l.status10, l.initTwice, l.cartGetScalar, l.typeStructScalar
}

func (e *encoder) setLayout(l layout) {
	e.status10, e.initTwice, e.cartGetScalar, e.typeStructScalar = l.status10, l.initTwice, l.cartGetScalar, l.typeStructScalar
}

func grow[T any](dst []T, n int) []T {
	if cap(dst) < n {
		return make([]T, n)
	}
	return dst[:n]
}

// count reads an int32 element count at the cursor and checks that n
// elements of size bytes fit in what is left; it returns the count and the
// element bytes, and advances past both. On failure it sets the error and
// returns -1.
func (d *decoder) count(size int) (int, []byte) {
	b := d.B[min(d.Off, len(d.B)):]
	if len(b) < 4 {
		d.Fail(wire.ErrShort)
		return -1, nil
	}
	n := int(int32(binary.BigEndian.Uint32(b)))
	switch {
	case n < 0:
		d.Fail(wire.ErrCount)
		return -1, nil
	case n > (len(b)-4)/size:
		d.Fail(wire.ErrTooMany)
		return -1, nil
	}
	d.Off += 4 + n*size
	return n, b[4 : 4+n*size]
}

func int32s[T ~int32](d *decoder, dst []T) []T {
	// Fast path, all in one function: count, bounds, elements.
	if off := d.Off; off+4 <= len(d.B) {
		b := d.B[off:]
		n := int(int32(binary.BigEndian.Uint32(b)))
		if uint(n) <= uint(len(b)-4)/4 {
			d.Off = off + 4 + 4*n
			dst = grow(dst, n)
			b = b[4 : 4+4*len(dst)]
			for i := range dst {
				dst[i] = T(int32(binary.BigEndian.Uint32(b[4*i:])))
			}
			return dst
		}
	}
	d.count(4) // sets the error
	return dst[:0]
}

func putInt32s[T ~int32](e *encoder, s []T) {
	e.b = wire.AppendI32(e.b, int32(len(s)))
	for _, v := range s {
		e.b = wire.AppendI32(e.b, int32(v))
	}
}

func putUint16s[T ~uint16](e *encoder, s []T) {
	e.b = wire.AppendI32(e.b, int32(len(s)))
	for _, v := range s {
		e.b = wire.AppendU16(e.b, uint16(v))
	}
}

func putUint8s[T ~uint8](e *encoder, s []T) {
	e.b = wire.AppendI32(e.b, int32(len(s)))
	for _, v := range s {
		e.b = append(e.b, uint8(v))
	}
}

func first[T ~int32](s []T) int32 {
	if len(s) == 0 {
		return 0
	}
	return int32(s[0])
}

// short records that the record ends before its fields do.
func (d *decoder) short() { d.Fail(wire.ErrShort) }

// badCount records an element count n that is negative or larger than
// the bytes left.
func (d *decoder) badCount(n int) {
	if n < 0 {
		d.Fail(wire.ErrCount)
	} else {
		d.Fail(wire.ErrTooMany)
	}
}

// statusList decodes the status list at the front of b into *dst and
// returns the rest of b. On failure it sets the error and returns false.
// The generated decoders call it when the record's mask has status bits
// and the list is not the common empty one.
func (d *decoder) statusList(dst *[]Status, b []byte) ([]byte, bool) {
	size := 14
	if d.status10 {
		size = 10
	}
	if len(b) < 4 {
		d.short()
		return b, false
	}
	n := int(int32(binary.BigEndian.Uint32(b)))
	b = b[4:]
	if uint(n) > uint(len(b))/uint(size) {
		d.badCount(n)
		return b, false
	}
	s := grow(*dst, n)
	*dst = s
	for i := range s {
		e := b[:size]
		st := &s[i]
		st.Bytes = int32(binary.BigEndian.Uint32(e[0:]))
		st.Source = int32(binary.BigEndian.Uint32(e[4:]))
		st.Cancelled = e[8]
		st.Error = int8(e[9])
		if size == 14 {
			st.Tag = int32(binary.BigEndian.Uint32(e[10:14]))
		} else {
			st.Tag = MPI_ANY_TAG
		}
		b = b[size:]
	}
	return b, true
}

func (e *encoder) statuses(s []Status) {
	if !e.hasStatus {
		return
	}
	e.b = wire.AppendI32(e.b, int32(len(s)))
	for _, v := range s {
		e.b = wire.AppendI32(e.b, v.Bytes)
		e.b = wire.AppendI32(e.b, v.Source)
		e.b = append(e.b, v.Cancelled, uint8(v.Error))
		if !e.status10 {
			e.b = wire.AppendI32(e.b, v.Tag)
		}
	}
}

// str decodes a str32; the result aliases the record buffer.
func (d *decoder) str() []byte {
	return d.Bytes(d.Count(1))
}

func (e *encoder) str(s []byte) {
	e.b = wire.AppendI32(e.b, int32(len(s)))
	e.b = append(e.b, s...)
}

// strs decodes a counted list of strings.
func (d *decoder) strs(dst [][]byte) [][]byte {
	return d.strsN(dst, d.Count(4))
}

// strsN decodes n strings that have no count prefix (the argv of
// MPI_Init, whose count is the argc field).
func (d *decoder) strsN(dst [][]byte, n int) [][]byte {
	if n < 0 {
		d.Fail(wire.ErrCount)
		return dst[:0]
	}
	if int64(n)*4 > int64(d.Left()) {
		d.Fail(wire.ErrTooMany)
		return dst[:0]
	}
	dst = grow(dst, n)
	for i := range dst {
		dst[i] = d.str()
	}
	return dst
}

func (e *encoder) strs(s [][]byte, counted bool) {
	if counted {
		e.b = wire.AppendI32(e.b, int32(len(s)))
	}
	for _, v := range s {
		e.str(v)
	}
}

func (d *decoder) strLists(dst [][][]byte) [][][]byte {
	n := d.Count(4)
	dst = grow(dst, n)
	for i := range dst {
		dst[i] = d.strs(dst[i][:0])
	}
	return dst
}

func (e *encoder) strLists(s [][][]byte) {
	e.b = wire.AppendI32(e.b, int32(len(s)))
	for _, v := range s {
		e.strs(v, true)
	}
}

func (d *decoder) rows(dst [][]int32) [][]int32 {
	n := d.Count(4)
	dst = grow(dst, n)
	for i := range dst {
		dst[i] = int32s(d, dst[i][:0])
	}
	return dst
}

func (e *encoder) rows(s [][]int32) {
	e.b = wire.AppendI32(e.b, int32(len(s)))
	for _, v := range s {
		putInt32s(e, v)
	}
}

func itoa(v int) string {
	var b [20]byte
	return string(appendInt(b[:0], int64(v)))
}

func appendInt(b []byte, v int64) []byte { return strconv.AppendInt(b, v, 10) }

func appendUint(b []byte, u uint64) []byte { return strconv.AppendUint(b, u, 10) }
