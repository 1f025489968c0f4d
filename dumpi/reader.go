package dumpi

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"

	"github.com/hpctrace/hpctrace/internal/wire"
)

// ReaderOptions configures a Reader. A nil or zero value means defaults.
type ReaderOptions struct {
	Path string // used only in error messages

	// Version is the file's header version, which selects the record
	// layouts of files older than DUMPI 0.6.9. The zero value means the
	// current layout. (A File's Calls uses the header's version.)
	Version Version

	// MaxRecord is the largest call record accepted, in bytes; 0 means
	// 64 MiB. The reader's buffer grows to hold the largest record seen.
	// (MaxRecord bounds a record of a binary format; the text formats'
	// readers bound a line with MaxLine.)
	MaxRecord int
}

const (
	defaultMaxRecord = 64 << 20
	readChunk        = 64 << 10
)

// A Reader reads the call stream of one rank: the 8-byte preamble with the
// CPU and wall-clock bases, then call records up to the END_OF_STREAM
// label.
//
// A Reader allocates nothing per call in the steady state: the Call and
// its argument structs are owned by the Reader and reused.
type Reader struct {
	src       io.Reader
	path      string
	lay       layout
	maxRecord int

	buf      []byte
	pos, end int
	eof      bool
	off      int64 // file offset of buf[0]
	srcLeft  int64 // bytes src can still deliver; -1 if unknown
	stopAt   int64 // file offset at which the stream ends; 0 if unknown

	needMagic bool
	started   bool
	done      bool
	err       error

	// fastLim bounds the record starts the fast path takes: below it the
	// longest record head is buffered and the stream has not reached
	// stopAt. It is 0 before the start and after the end, which sends
	// every Next to the general path.
	fastLim int

	cpuBase, wallBase int32
	n                 int64 // calls returned so far
	prevLabel         Label

	// Seconds added to the 16-bit span seconds: the base plus the
	// wrap-arounds seen so far; and the last start seconds seen.
	cpuOff, wallOff   int64
	cpuLast, wallLast uint16

	call Call
	args [NumLabels]Args
	d    decoder
}

// NewReader returns a Reader over a DUMPI file read from its start (the
// magic, then the stream preamble at offset 8, as the reference tracer
// writes it). It reads and checks the magic and preamble.
func NewReader(r io.Reader, opts *ReaderOptions) (*Reader, error) {
	var o ReaderOptions
	if opts != nil {
		o = *opts
	}
	if o.MaxRecord < 0 {
		return nil, fmt.Errorf("dumpi: negative MaxRecord %d", o.MaxRecord)
	}
	rd := &Reader{}
	lay := layout{}
	if o.Version != (Version{}) {
		lay = layoutOf(o.Version)
	}
	rd.init(r, o.Path, lay, 0, true, o.MaxRecord, -1)
	if !rd.start() {
		return nil, rd.err
	}
	return rd, nil
}

func (r *Reader) init(src io.Reader, path string, lay layout, off int64, magic bool, maxRecord int, srcLeft int64) {
	if maxRecord == 0 {
		maxRecord = defaultMaxRecord
	}
	buf := r.buf
	if buf == nil {
		n := int64(readChunk)
		if srcLeft >= 0 {
			n = max(min(n, srcLeft), 16)
		}
		buf = make([]byte, n)
	}
	args, perf := r.args, r.call.Perf[:0]
	*r = Reader{src: src, path: path, lay: lay, maxRecord: maxRecord, buf: buf, off: off, srcLeft: srcLeft, needMagic: magic, args: args}
	r.call.Perf = perf
	r.d.setLayout(lay)
}

// sync points the decoder at the buffered bytes and recomputes fastLim;
// it runs whenever buf, end, off, started, done or stopAt change.
func (r *Reader) sync() {
	r.d.B = r.buf[:r.end:r.end]
	lim := r.end - maxCallHead + 1
	if r.stopAt > 0 {
		lim = int(min(int64(lim), r.stopAt-r.off))
	}
	if !r.started || r.done {
		lim = 0
	}
	r.fastLim = max(lim, 0)
}

// finish ends the stream.
func (r *Reader) finish() {
	r.done = true
	r.fastLim = 0
}

// Reset makes r read a new file from its start, as NewReader does, keeping
// its buffers and options.
func (r *Reader) Reset(src io.Reader) error {
	r.init(src, r.path, r.lay, 0, true, r.maxRecord, -1)
	if !r.start() {
		return r.err
	}
	return nil
}

// Bases returns the stream preamble: the seconds subtracted from every
// CPU and wall-clock timestamp.
func (r *Reader) Bases() (cpu, wall int32) { return r.cpuBase, r.wallBase }

// fill reads more bytes, keeping buf[pos:end]; it grows the buffer when it
// is full, up to need bytes (bounded by maxRecord).
func (r *Reader) fill() error {
	err := r.fill0()
	r.sync()
	return err
}

func (r *Reader) fill0() error {
	if r.pos > 0 {
		n := copy(r.buf, r.buf[r.pos:r.end])
		r.off += int64(r.pos)
		r.pos, r.end = 0, n
	}
	if r.end == len(r.buf) {
		if len(r.buf) >= r.maxRecord {
			return fmt.Errorf("%w: record longer than %d bytes", ErrRange, r.maxRecord)
		}
		n := int64(min(2*len(r.buf), max(r.maxRecord, readChunk)))
		if r.srcLeft >= 0 {
			n = min(n, int64(r.end)+r.srcLeft)
		}
		if n <= int64(len(r.buf)) {
			r.eof = true
			return nil
		}
		nb := make([]byte, n)
		copy(nb, r.buf[:r.end])
		r.buf = nb
	}
	for r.end < len(r.buf) {
		n, err := r.src.Read(r.buf[r.end:])
		r.end += n
		if r.srcLeft >= 0 {
			r.srcLeft -= int64(n)
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				r.eof = true
				return nil
			}
			return err
		}
		if n > 0 {
			return nil
		}
	}
	return nil
}

func (r *Reader) fail(err error) bool {
	r.err = &ParseError{Path: r.path, Offset: r.off + int64(r.pos), Record: r.n, Err: err}
	r.finish()
	return false
}

// start reads the magic (if expected) and the preamble.
func (r *Reader) start() bool {
	need := 8
	if r.needMagic {
		need = 16
	}
	for r.end-r.pos < need && !r.eof {
		if err := r.fill(); err != nil {
			return r.fail(err)
		}
	}
	if r.end-r.pos < need {
		if r.needMagic && r.end-r.pos >= 8 && be64(r.buf[r.pos:]) != Magic {
			return r.fail(ErrFormat)
		}
		return r.fail(io.ErrUnexpectedEOF)
	}
	if r.needMagic {
		if be64(r.buf[r.pos:]) != Magic {
			return r.fail(ErrFormat)
		}
		r.pos += 8
	}
	b := r.buf[r.pos:]
	r.cpuBase = int32(uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3]))
	r.wallBase = int32(uint32(b[4])<<24 | uint32(b[5])<<16 | uint32(b[6])<<8 | uint32(b[7]))
	r.pos += 8
	r.cpuOff, r.wallOff = int64(r.cpuBase), int64(r.wallBase)
	r.started = true
	r.sync()
	return true
}

// Next advances to the next call. It returns false at the end of the
// stream or on an error; Err tells which.
func (r *Reader) Next() bool {
	// The fast path takes a call whose head is buffered (pos < fastLim).
	// It hands the call to the general path, having changed nothing but
	// the current Call and the decoder, for a label that is not a call or
	// whose arguments struct is not allocated yet, a possible end of a
	// pre-0.6.0 stream, a perf-counter block, and a record not wholly
	// buffered or malformed.
	o := r.pos
	if o >= r.fastLim {
		return r.next()
	}
	d := &r.d
	h := (*[maxCallHead]byte)(d.B[o : o+maxCallHead])
	label := Label(binary.BigEndian.Uint16(h[:]))
	if uint(label) >= NumLabels {
		return r.next()
	}
	a := r.args[label]
	mask := Mask(h[2])
	if a == nil || mask&MaskPerf != 0 || label == LabelSend && r.lay.finalizeEnds {
		return r.next()
	}
	c := &r.call
	c.Label, c.Mask = label, mask
	k := 3
	if mask&MaskThread != 0 {
		c.Thread = binary.BigEndian.Uint16(h[3:])
		k = 5
	} else {
		c.Thread = 0
	}
	// One case per pair of span bits, so that every offset into h is
	// k plus a constant and needs no bounds check.
	switch mask & (MaskCPUTime | MaskWallTime) {
	case MaskWallTime:
		c.CPU = Span{}
		c.Wall = span(h[k:])
		k += 12
	case MaskCPUTime | MaskWallTime:
		c.CPU = span(h[k:])
		c.Wall = span(h[k+12:])
		k += 24
	case MaskCPUTime:
		c.CPU = span(h[k:])
		c.Wall = Span{}
		k += 12
	default:
		c.CPU = Span{}
		c.Wall = Span{}
	}
	c.Perf = c.Perf[:0]
	d.hasStatus = mask&0x03 != 0
	rest := a.decode(d, d.B[o+k:])
	if d.Err != nil {
		return r.next()
	}
	c.args = a
	r.pos = len(d.B) - len(rest)
	r.prevLabel = label
	if mask&MaskCPUTime != 0 {
		c.cpuOff = unwrap(&r.cpuOff, &r.cpuLast, c.CPU.StartSec)
	}
	if mask&MaskWallTime != 0 {
		c.wallOff = unwrap(&r.wallOff, &r.wallLast, c.Wall.StartSec)
	}
	r.n++
	return true
}

// next is the general path of Next: the start of the stream, a record
// head not yet buffered, records that need more bytes, the end, and
// errors.
func (r *Reader) next() bool {
	if r.done {
		return false
	}
	if !r.started && !r.start() {
		return false
	}
	for {
		if r.stopAt > 0 && r.off+int64(r.pos) >= r.stopAt {
			r.finish()
			return false
		}
		st := r.decode()
		switch st {
		case stepCall:
			r.n++
			return true
		case stepEnd:
			r.finish()
			return false
		case stepShort:
			if r.eof {
				if errors.Is(r.d.Err, wire.ErrTooMany) {
					return r.fail(fmt.Errorf("%w: %s: element count larger than the bytes left", ErrRange, r.call.Label))
				}
				if r.end == r.pos {
					return r.fail(fmt.Errorf("%w: stream ends without END_OF_STREAM", io.ErrUnexpectedEOF))
				}
				return r.fail(io.ErrUnexpectedEOF)
			}
			if err := r.fill(); err != nil {
				return r.fail(err)
			}
		default:
			return r.fail(r.d.Err)
		}
	}
}

// perf decodes the perf-counter block at the decoder's cursor into c.Perf.
func (r *Reader) perf(c *Call) bool {
	d := &r.d
	k := int(d.U8())
	if k*16 > d.Left() {
		d.Fail(wire.ErrShort)
		return false
	}
	c.Perf = grow(c.Perf, k)
	for i := range c.Perf {
		c.Perf[i] = PerfValue{d.I64(), d.I64()}
	}
	return d.Err == nil
}

type step int

const (
	stepCall step = iota
	stepEnd
	stepShort
	stepErr
)

func span(b []byte) Span {
	b = b[:12]
	x := binary.BigEndian.Uint64(b)
	return Span{uint16(x >> 48), uint32(x >> 16), uint16(x), binary.BigEndian.Uint32(b[8:])}
}

// maxCallHead is the largest record head: label, mask, thread, two spans.
const maxCallHead = 2 + 1 + 2 + 12 + 12

// decode decodes the call at pos in the general way.
func (r *Reader) decode() step {
	d := &r.d
	d.B, d.Off, d.Err = r.buf[:r.end:r.end], r.pos, nil
	b := d.B[r.pos:]
	if len(b) < 2 {
		return stepShort
	}
	label := Label(uint16(b[0])<<8 | uint16(b[1]))
	if label == LabelEndOfStream || (label == LabelSend && r.prevLabel == LabelFinalize && r.lay.finalizeEnds) {
		r.pos += 2
		return stepEnd
	}
	if !label.IsCall() {
		d.Err = fmt.Errorf("%w: unknown call label %d", ErrSyntax, label)
		return stepErr
	}
	c := &r.call
	c.Label = label
	if len(b) >= maxCallHead {
		// Fast path: the whole head is buffered; one bounds check.
		mask := Mask(b[2])
		c.Mask = mask
		o := 3
		c.Thread = 0
		if mask&MaskThread != 0 {
			c.Thread = uint16(b[3])<<8 | uint16(b[4])
			o = 5
		}
		c.CPU = Span{}
		if mask&MaskCPUTime != 0 {
			c.CPU = span(b[o : o+12])
			o += 12
		}
		c.Wall = Span{}
		if mask&MaskWallTime != 0 {
			c.Wall = span(b[o : o+12])
			o += 12
		}
		d.Off = r.pos + o
	} else {
		d.Off = r.pos + 2
		mask := Mask(d.U8())
		c.Mask = mask
		c.Thread = 0
		if mask&MaskThread != 0 {
			c.Thread = d.U16()
		}
		c.CPU = Span{}
		if mask&MaskCPUTime != 0 {
			c.CPU = span12(d)
		}
		c.Wall = Span{}
		if mask&MaskWallTime != 0 {
			c.Wall = span12(d)
		}
	}
	mask := c.Mask
	c.Perf = c.Perf[:0]
	if d.Err == nil && mask&MaskPerf != 0 {
		r.perf(c)
	}
	a := r.args[label]
	if a == nil {
		a = newArgs(label)
		r.args[label] = a
	}
	var rest []byte
	if d.Err == nil {
		d.hasStatus = mask&0x03 != 0
		rest = a.decode(d, d.B[d.Off:])
	}
	if d.Err != nil {
		if errors.Is(d.Err, wire.ErrShort) {
			return stepShort
		}
		if errors.Is(d.Err, wire.ErrCount) {
			d.Err = fmt.Errorf("%w: negative element count in %s", ErrRange, label)
		}
		return stepErr
	}
	c.args = a
	r.pos = len(d.B) - len(rest)
	r.prevLabel = label
	r.times(c)
	return stepCall
}

func span12(d *decoder) Span {
	if b := d.Next(12); b != nil {
		return span(b)
	}
	return Span{}
}

// unwrap returns the seconds offset for a start second s after last: a
// drop of more than half the 16-bit range is taken as a wrap-around.
func unwrap(off *int64, last *uint16, s uint16) int64 {
	if s < *last && *last-s > 1<<15 {
		*off += 1 << 16
	}
	*last = s
	return *off
}

func (r *Reader) times(c *Call) {
	if c.Mask&MaskCPUTime != 0 {
		c.cpuOff = unwrap(&r.cpuOff, &r.cpuLast, c.CPU.StartSec)
	}
	if c.Mask&MaskWallTime != 0 {
		c.wallOff = unwrap(&r.wallOff, &r.wallLast, c.Wall.StartSec)
	}
}

// Record returns the current call. Before the first Next it returns a
// zero Call. The Call and the slices it holds are valid until the next
// call to Next or Reset. Use [Call.Clone] to keep it.
func (r *Reader) Record() *Call { return &r.call }

// Err returns the first error other than the clean end of the stream.
func (r *Reader) Err() error { return r.err }

// Count returns the number of calls returned so far.
func (r *Reader) Count() int64 { return r.n }

// All returns a single-use iterator over the remaining calls. It yields
// each call with a nil error, then at most one (nil, err) pair if reading
// fails. After a break, a later Next or All continues with the following
// call.
func (r *Reader) All() iter.Seq2[*Call, error] {
	return func(yield func(*Call, error) bool) {
		for r.Next() {
			if !yield(&r.call, nil) {
				return
			}
		}
		if r.err != nil {
			yield(nil, r.err)
		}
	}
}
