package dumpi

import (
	"fmt"
	"io"

	"github.com/hpctrace/hpctrace/internal/wire"
)

// WriterOptions configures a Writer: the stream's clock bases and the
// sections written by Close. A nil or zero value writes a header for
// version 13.0.0 with empty names, a footer counted from the written
// calls, and empty keyval, perf-label, datatype-size and function-name
// sections.
type WriterOptions struct {
	CPUBase, WallBase int32 // the stream preamble (see Reader.Bases)

	// Header is the header section. A zero Version means 13.0.0. The
	// version also selects the record layouts written (see ReaderOptions).
	Header Header

	// Footer, if not nil, is written as given; otherwise Close counts the
	// written calls per label (ignored counts 0, totals in slot 290).
	Footer *Footer

	KeyVals       []KeyValue
	IndexKeyVals  bool // record the keyval offset in the index (the reference tracer leaves it 0)
	PerfLabels    []string
	DatatypeSizes []int32
	FunctionNames []FunctionName
}

// A Writer writes one rank's DUMPI file: the magic and stream preamble
// when created, one record per Write, and on Close the END_OF_STREAM
// label, the header, footer, keyval, perf-label, datatype-size and
// function-name sections and the 64-byte index, in the order of the
// reference tracer.
//
// A Writer buffers its output; it is not safe for concurrent use.
type Writer struct {
	w      io.Writer
	opts   WriterOptions
	e      encoder
	off    int64 // bytes handed to w so far
	n      int64 // calls written
	counts [FooterSlots]uint32
	err    error
	closed bool
}

const flushAt = 64 << 10

// NewWriter returns a Writer to w and buffers the magic and preamble.
// The options are copied.
func NewWriter(w io.Writer, opts *WriterOptions) (*Writer, error) {
	wr := &Writer{w: w}
	if opts != nil {
		wr.opts = *opts
	}
	if wr.opts.Header.Version == (Version{}) {
		wr.opts.Header.Version = Version{13, 0, 0}
	}
	wr.e.setLayout(layoutOf(wr.opts.Header.Version))
	wr.e.b = make([]byte, 0, flushAt+4096)
	wr.e.b = wire.AppendU64(wr.e.b, Magic)
	wr.e.b = wire.AppendI32(wr.e.b, wr.opts.CPUBase)
	wr.e.b = wire.AppendI32(wr.e.b, wr.opts.WallBase)
	return wr, nil
}

// rangeErr reports a call the writer cannot encode: an error wrapping
// ErrRange that names the record index and the field, as the other format
// packages' writers do (a ParseError is for malformed input only).
func (w *Writer) rangeErr(field string, format string, args ...any) error {
	return fmt.Errorf("dumpi: record %d: %s: %s: %w", w.n, field, fmt.Sprintf(format, args...), ErrRange)
}

// Write encodes one call record. The mask decides which optional parts are
// written (thread, CPU and wall spans, perf block, status lists). A call
// without arguments of its label, or with more than 255 perf values, is
// rejected with an error wrapping ErrRange before any byte is written.
// Write never retains c.
func (w *Writer) Write(c *Call) error {
	if w.closed {
		return ErrClosed
	}
	if w.err != nil {
		return w.err
	}
	if !c.Label.IsCall() {
		return w.rangeErr("Label", "%d is not a call label", c.Label)
	}
	if c.args == nil || c.args.Label() != c.Label {
		return w.rangeErr("Args", "arguments do not match label %s", c.Label)
	}
	if c.Mask&MaskPerf != 0 && len(c.Perf) > 255 {
		return w.rangeErr("Perf", "%d perf values, at most 255 fit", len(c.Perf))
	}
	e := &w.e
	e.b = wire.AppendU16(e.b, uint16(c.Label))
	e.b = append(e.b, uint8(c.Mask))
	if c.Mask&MaskThread != 0 {
		e.b = wire.AppendU16(e.b, c.Thread)
	}
	if c.Mask&MaskCPUTime != 0 {
		e.b = appendSpan(e.b, c.CPU)
	}
	if c.Mask&MaskWallTime != 0 {
		e.b = appendSpan(e.b, c.Wall)
	}
	if c.Mask&MaskPerf != 0 {
		e.b = append(e.b, uint8(len(c.Perf)))
		for _, p := range c.Perf {
			e.b = wire.AppendI64(e.b, p.In)
			e.b = wire.AppendI64(e.b, p.Out)
		}
	}
	e.hasStatus = c.Mask&0x03 != 0
	c.args.encode(e)
	if int(c.Label) < FooterSlots {
		w.counts[c.Label]++
		w.counts[LabelAllFunctions]++
	}
	w.n++
	if len(e.b) >= flushAt {
		return w.Flush()
	}
	return nil
}

func appendSpan(b []byte, s Span) []byte {
	b = wire.AppendU16(b, s.StartSec)
	b = wire.AppendU32(b, s.StartNsec)
	b = wire.AppendU16(b, s.StopSec)
	return wire.AppendU32(b, s.StopNsec)
}

// Flush writes the buffered bytes to the underlying writer.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	if len(w.e.b) == 0 {
		return nil
	}
	n, err := w.w.Write(w.e.b)
	w.off += int64(n)
	w.e.b = w.e.b[:0]
	if err != nil {
		w.err = err
	}
	return err
}

func appendStr16(b []byte, s string) []byte {
	b = wire.AppendU16(b, uint16(len(s)))
	return append(b, s...)
}

// Close writes the END_OF_STREAM label, the sections and the index, and
// flushes. It does not close the underlying writer: the caller owns it,
// and the file under it. After Close, Write returns ErrClosed and Close
// returns nil.
//
// If Close, or a Write or Flush before it, fails, the underlying writer
// holds what was flushed before the failure, without the index that
// makes a DUMPI file readable (Open fails on it): the caller should
// remove it, or better write to a temporary file and rename it into
// place only after Close and the file's own Close succeed.
func (w *Writer) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	if w.err != nil {
		return w.err
	}
	o := &w.opts
	for _, s := range []string{o.Header.Host, o.Header.User} {
		if len(s) > 0xFFFF {
			return w.rangeErr("Header", "string of %d bytes, at most 65535 fit", len(s))
		}
	}
	for _, kv := range o.KeyVals {
		if len(kv.Key) > 0xFFFF || len(kv.Value) > 0xFFFF {
			return w.rangeErr("KeyVals", "string longer than 65535 bytes")
		}
	}
	for _, s := range o.PerfLabels {
		if len(s) > 0xFFFF {
			return w.rangeErr("PerfLabels", "string longer than 65535 bytes")
		}
	}
	for _, f := range o.FunctionNames {
		if len(f.Name) > 0xFFFF {
			return w.rangeErr("FunctionNames", "string longer than 65535 bytes")
		}
	}
	b := wire.AppendU16(w.e.b, uint16(LabelEndOfStream))
	pos := func() int64 { return w.off + int64(len(b)) }
	var ix Index
	ix.Size, ix.Body = 64, 8

	ix.Header = pos()
	h := &o.Header
	b = append(b, h.Version[:]...)
	b = wire.AppendU64(b, h.StartTime)
	b = appendStr16(b, h.Host)
	b = appendStr16(b, h.User)
	b = wire.AppendI32(b, int32(len(h.MeshCoords)))
	for _, v := range h.MeshCoords {
		b = wire.AppendI32(b, v)
	}
	if !h.Version.Less(Version{0, 5, 0}) {
		b = wire.AppendI32(b, int32(len(h.MeshSize)))
		for _, v := range h.MeshSize {
			b = wire.AppendI32(b, v)
		}
	}

	ix.Footer = pos()
	ft := o.Footer
	if ft == nil {
		ft = &Footer{Called: w.counts}
	}
	b = wire.AppendU64(b, FooterMagic)
	for _, v := range ft.Called {
		b = wire.AppendU32(b, v)
	}
	for _, v := range ft.Ignored {
		b = wire.AppendU32(b, v)
	}

	if o.IndexKeyVals {
		ix.KeyVals = pos()
	}
	b = wire.AppendI32(b, int32(len(o.KeyVals)))
	for _, kv := range o.KeyVals {
		b = appendStr16(b, kv.Key)
		b = appendStr16(b, kv.Value)
	}

	ix.PerfLabels = pos()
	b = wire.AppendI32(b, int32(len(o.PerfLabels)))
	for _, s := range o.PerfLabels {
		b = appendStr16(b, s)
	}

	ix.DatatypeSizes = pos()
	b = wire.AppendI32(b, int32(len(o.DatatypeSizes)))
	for _, v := range o.DatatypeSizes {
		b = wire.AppendI32(b, v)
	}

	ix.FunctionNames = pos()
	b = wire.AppendI32(b, int32(len(o.FunctionNames)))
	for _, f := range o.FunctionNames {
		b = wire.AppendU64(b, f.Addr)
		b = appendStr16(b, f.Name)
	}

	for _, v := range [...]uint64{Magic, uint64(ix.DatatypeSizes), uint64(ix.FunctionNames), uint64(ix.PerfLabels),
		uint64(ix.Header), uint64(ix.Body), uint64(ix.Footer), uint64(ix.KeyVals)} {
		b = wire.AppendU64(b, v)
	}
	w.e.b = b
	return w.Flush()
}

// CopyOptions returns the WriterOptions that make a Writer reproduce f:
// its bases, header, footer, keyvals, perf labels, datatype sizes and
// function names. Writing every call of f.Calls() with them gives a file
// identical to one written by the reference tracer.
func (f *File) CopyOptions() (*WriterOptions, error) {
	o := &WriterOptions{IndexKeyVals: f.Index.KeyVals != 0}
	h, err := f.Header()
	if err != nil {
		return nil, err
	}
	o.Header = *h
	if o.Footer, err = f.Footer(); err != nil {
		return nil, err
	}
	if o.KeyVals, err = f.KeyVals(); err != nil {
		return nil, err
	}
	if o.PerfLabels, err = f.PerfLabels(); err != nil {
		return nil, err
	}
	if o.DatatypeSizes, err = f.DatatypeSizes(); err != nil {
		return nil, err
	}
	if o.FunctionNames, err = f.FunctionNames(); err != nil {
		return nil, err
	}
	r := f.Calls()
	if !r.started && !r.start() {
		return nil, r.err
	}
	o.CPUBase, o.WallBase = r.Bases()
	return o, nil
}
