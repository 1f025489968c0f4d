// Package wire is a small byte cursor for binary trace formats: fixed-size
// big- or little-endian integers read from a []byte with a sticky error, so
// a whole record is decoded with one error check at its end, and the
// matching appenders for encoding into a reused buffer.
//
// A Dec never panics on short or malformed input: a read past the end sets
// Err to ErrShort, returns zero, and every later read returns zero too.
package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// ErrShort reports a read past the end of the buffer.
var ErrShort = errors.New("wire: short buffer")

// ErrCount reports a negative element count.
var ErrCount = errors.New("wire: negative element count")

// ErrTooMany reports an element count whose elements cannot fit in the
// bytes left. It wraps ErrShort: with more bytes the count may fit.
var ErrTooMany = fmt.Errorf("%w: element count exceeds the bytes left", ErrShort)

// Dec is a big-endian read cursor over B. Off is the number of bytes
// consumed. The zero Dec reads from an empty buffer.
type Dec struct {
	B   []byte
	Off int
	Err error
}

// Reset points d at b and clears the error.
func (d *Dec) Reset(b []byte) { d.B, d.Off, d.Err = b, 0, nil }

// Left reports the number of unread bytes.
func (d *Dec) Left() int { return len(d.B) - d.Off }

func (d *Dec) short() {
	if d.Err == nil {
		d.Err = ErrShort
	}
	d.Off = len(d.B)
}

// U8 reads one byte.
func (d *Dec) U8() uint8 {
	if d.Off < len(d.B) {
		v := d.B[d.Off]
		d.Off++
		return v
	}
	d.short()
	return 0
}

// U16 reads a big-endian uint16.
func (d *Dec) U16() uint16 {
	if b := d.B[min(d.Off, len(d.B)):]; len(b) >= 2 {
		d.Off += 2
		return binary.BigEndian.Uint16(b)
	}
	d.short()
	return 0
}

// U32 reads a big-endian uint32.
func (d *Dec) U32() uint32 {
	if b := d.B[min(d.Off, len(d.B)):]; len(b) >= 4 {
		d.Off += 4
		return binary.BigEndian.Uint32(b)
	}
	d.short()
	return 0
}

// U64 reads a big-endian uint64.
func (d *Dec) U64() uint64 {
	if b := d.B[min(d.Off, len(d.B)):]; len(b) >= 8 {
		d.Off += 8
		return binary.BigEndian.Uint64(b)
	}
	d.short()
	return 0
}

// I32 reads a big-endian int32.
func (d *Dec) I32() int32 { return int32(d.U32()) }

// I64 reads a big-endian int64.
func (d *Dec) I64() int64 { return int64(d.U64()) }

// Count reads an int32 element count and checks that count elements of
// elemSize bytes each fit in the bytes left. On failure it sets Err (to
// ErrCount for a negative count, ErrShort otherwise) and returns 0.
func (d *Dec) Count(elemSize int) int {
	n := d.I32()
	if d.Err != nil {
		return 0
	}
	if n < 0 {
		d.Err = ErrCount
		d.Off = len(d.B)
		return 0
	}
	if int64(n)*int64(elemSize) > int64(d.Left()) {
		d.Err = ErrTooMany
		d.Off = len(d.B)
		return 0
	}
	return int(n)
}

// Bytes returns the next n bytes, aliasing B.
func (d *Dec) Bytes(n int) []byte {
	if n >= 0 && n <= d.Left() {
		b := d.B[d.Off : d.Off+n : d.Off+n]
		d.Off += n
		return b
	}
	d.short()
	return nil
}

// Fail sets the sticky error if none is set yet and stops the cursor.
func (d *Dec) Fail(err error) {
	if d.Err == nil {
		d.Err = err
	}
	d.Off = len(d.B)
}

// AppendU8 appends v.
func AppendU8(b []byte, v uint8) []byte { return append(b, v) }

// AppendU16 appends v big-endian.
func AppendU16(b []byte, v uint16) []byte { return binary.BigEndian.AppendUint16(b, v) }

// AppendU32 appends v big-endian.
func AppendU32(b []byte, v uint32) []byte { return binary.BigEndian.AppendUint32(b, v) }

// AppendU64 appends v big-endian.
func AppendU64(b []byte, v uint64) []byte { return binary.BigEndian.AppendUint64(b, v) }

// AppendI32 appends v big-endian.
func AppendI32(b []byte, v int32) []byte { return binary.BigEndian.AppendUint32(b, uint32(v)) }

// AppendI64 appends v big-endian.
func AppendI64(b []byte, v int64) []byte { return binary.BigEndian.AppendUint64(b, uint64(v)) }
