package picl

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/hpctrace/hpctrace/internal/textscan"
)

// WriterOptions configures a Writer. A nil or zero value means defaults.
type WriterOptions struct {
	// TimeDigits is the number of decimals of timestamps the Writer
	// formats itself (those without a usable Record.TimeText). As in
	// ModelWriterOptions, 0 means the fewest decimals, at least 6 (PICL's
	// microseconds), that resolve one tick of the clock; a Writer's records
	// carry seconds without a clock, so that is 6. -1 means the shortest
	// decimal that reads back as the same float64.
	TimeDigits int
}

// defaultTimeDigits is what a TimeDigits of 0 means: the fewest decimals,
// at least 6 (PICL's microseconds), that resolve one tick of a clock of
// tps ticks per second (tps <= 1: no finer clock).
func defaultTimeDigits(tps uint64) int {
	if tps <= 1 {
		return 6
	}
	return max(6, int(math.Ceil(math.Log10(float64(tps)))))
}

// A Writer writes PICL records, one line each, fields separated by single
// blanks, lines ended by LF.
//
// Tokens a Reader kept (Record.TimeText, Value.Text, Record.Descriptor) are
// written as they were when they still match their values, so a trace read
// and written back is byte-identical up to blanks and line ends; values
// without text are written canonically (timestamps with %.6f, integers in
// decimal, floats in the shortest form that reads back exactly).
//
// The Writer resolves descriptor aliases with the -6 records written through
// it, exactly as a Reader of its output will, and rejects a record the
// format cannot carry before writing any of it.
//
// A Writer is not safe for concurrent use.
type Writer struct {
	w      *bufio.Writer
	digits int
	buf    []byte
	scope  scope
	cache  descCache
	ctl    *control // control of the record being encoded
	n      int64
	err    error
	closed bool
}

// NewWriter returns a Writer writing to w. PICL has no header, so nothing is
// written until the first record. It fails only on invalid options.
func NewWriter(w io.Writer, opts *WriterOptions) (*Writer, error) {
	var o WriterOptions
	if opts != nil {
		o = *opts
	}
	if o.TimeDigits < -1 || o.TimeDigits > 30 {
		return nil, fmt.Errorf("picl: WriterOptions.TimeDigits %d out of range [-1, 30]", o.TimeDigits)
	}
	if o.TimeDigits == 0 {
		o.TimeDigits = defaultTimeDigits(0)
	}
	return &Writer{w: bufio.NewWriterSize(w, 64<<10), digits: o.TimeDigits}, nil
}

// Write writes one record. It checks the record first: a record that cannot
// be written (see below) is rejected with an error wrapping [ErrRange] that
// names the record index and the field, and nothing is written. Errors of
// the underlying writer are sticky. Write never retains rec.
//
// A record is written from these fields: Type, Event, Time (TimeText when
// it reads back as Time), Processor, Process, Count, Descriptor, then Chars
// when the control string is a lone %c, or Data, or Raw when FlagUndecoded
// is set; Raw is appended after the data when FlagTrailing is set. Control,
// when not empty, must equal the control string the descriptor resolves
// to.
func (w *Writer) Write(rec *Record) error {
	if w.closed {
		return ErrClosed
	}
	if w.err != nil {
		return w.err
	}
	b, ctl, err := w.encode(w.buf[:0], rec)
	w.buf = b
	if err != nil {
		return fmt.Errorf("picl: record %d: %w", w.n, err)
	}
	if n := len(b); n >= 2 && b[n-2] == '\r' {
		return fmt.Errorf("picl: record %d: line ends in a carriage return, which readers drop: %w", w.n, ErrRange)
	}
	if _, err := w.w.Write(b); err != nil {
		w.err = err
		return err
	}
	w.scope.apply(rec, ctl)
	w.n++
	return nil
}

// Flush writes buffered data to the underlying writer.
func (w *Writer) Flush() error {
	if w.closed {
		return ErrClosed
	}
	if w.err != nil {
		return w.err
	}
	if err := w.w.Flush(); err != nil {
		w.err = err
		return err
	}
	return nil
}

// Close flushes the Writer. It does not close the underlying writer: the
// caller owns it, and the file under it. After Close, Write and Flush
// return ErrClosed; a second Close returns nil.
//
// If Close, or a Write or Flush before it, fails, the underlying writer
// holds the records flushed before the failure and possibly part of a
// line: an incomplete trace, which may even read without error when the
// cut falls between lines. A caller writing a file should write to a
// temporary file and rename it into place only after Close and the
// file's own Close succeed, and remove it otherwise.
func (w *Writer) Close() error {
	if w.closed {
		return nil
	}
	err := w.Flush()
	w.closed = true
	return err
}

func rangeErr(field string, format string, args ...any) error {
	return fmt.Errorf("%s: %s: %w", field, fmt.Sprintf(format, args...), ErrRange)
}

func (w *Writer) encode(b []byte, rec *Record) ([]byte, *control, error) {
	b, err := w.encodeLine(b, rec)
	return b, w.ctl, err
}

func (w *Writer) encodeLine(b []byte, rec *Record) ([]byte, error) {
	w.ctl = nil
	b = strconv.AppendInt(b, int64(rec.Type), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(rec.Event), 10)
	b = append(b, ' ')
	switch {
	case math.IsNaN(rec.Time) || math.IsInf(rec.Time, 0):
		return b, rangeErr("timestamp", "%v", rec.Time)
	case textIsFloat(rec.TimeText, rec.Time):
		b = append(b, rec.TimeText...)
	default:
		b = strconv.AppendFloat(b, rec.Time, 'f', w.digits, 64)
	}
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(rec.Processor), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(rec.Process), 10)
	b = append(b, ' ')
	if rec.Count < 0 || rec.Count > math.MaxInt32 {
		return b, rangeErr("count", "%d", rec.Count)
	}
	b = strconv.AppendInt(b, int64(rec.Count), 10)
	if rec.Flags&^(FlagUndecoded|FlagTruncated|FlagTrailing|FlagBadValue) != 0 {
		return b, rangeErr("flags", "unknown flags %#x", uint8(rec.Flags))
	}
	if rec.Count == 0 {
		if rec.Descriptor != "" || len(rec.Data) != 0 || rec.Chars != nil || rec.Flags&(FlagUndecoded|FlagTruncated) != 0 {
			return b, rangeErr("count", "0 with a descriptor or data")
		}
		return w.trailing(b, rec)
	}
	if rec.Descriptor == "" {
		if rec.Flags&FlagTruncated == 0 || len(rec.Data) != 0 || rec.Chars != nil || rec.Raw != nil {
			return b, rangeErr("descriptor", "missing")
		}
		return append(b, '\n'), nil
	}
	alias, err := parseDescriptorToken(rec.Descriptor)
	if err != nil {
		return b, rangeErr("descriptor", "%q is neither an alias nor a quoted control string", rec.Descriptor)
	}
	var ctl *control
	if alias < 0 {
		ctl = w.cache.quotedString(rec.Descriptor).ctl
	} else {
		ctl = w.scope.resolve(alias, rec.Event, rec.Processor, rec.Process)
	}
	resolved := ""
	if ctl != nil {
		resolved = ctl.text
	}
	w.ctl = ctl
	if rec.Control != "" && rec.Control != resolved {
		return b, rangeErr("control", "%q, but descriptor %s resolves to %q here", rec.Control, rec.Descriptor, resolved)
	}
	b = append(b, ' ')
	b = append(b, rec.Descriptor...)

	if rec.Flags&FlagUndecoded != 0 || ctl == nil || ctl.undecoded {
		if rec.Flags&FlagUndecoded == 0 {
			return b, rangeErr("descriptor", "%s has no decodable control string for this record; set FlagUndecoded and Raw", rec.Descriptor)
		}
		if len(rec.Data) != 0 || rec.Chars != nil || rec.Flags&(FlagTruncated|FlagTrailing) != 0 {
			return b, rangeErr("flags", "an undecoded record holds only Raw")
		}
		if err := checkRaw(rec.Raw); err != nil {
			return b, err
		}
		if len(rec.Raw) > 0 {
			b = append(b, ' ')
			b = append(b, rec.Raw...)
		}
		return append(b, '\n'), nil
	}
	truncated := rec.Flags&FlagTruncated != 0
	if ctl.chars {
		n := len(rec.Chars)
		if len(rec.Data) != 0 || (!truncated && n != rec.Count) || (truncated && n >= rec.Count) {
			return b, rangeErr("chars", "%d characters for count %d (truncated %v)", n, rec.Count, truncated)
		}
		if bytes.IndexByte(rec.Chars, '\n') >= 0 {
			return b, rangeErr("chars", "line feed in character data")
		}
		if truncated && rec.Flags&FlagTrailing != 0 {
			return b, rangeErr("flags", "truncated character data cannot be followed by text")
		}
		b = append(b, ' ')
		b = append(b, rec.Chars...)
		if truncated {
			return append(b, '\n'), nil
		}
		return w.trailing(b, rec)
	}
	if rec.Chars != nil {
		return b, rangeErr("chars", "character data, but the control string is %q", ctl.text)
	}
	want := rec.Count * len(ctl.convs)
	if (!truncated && len(rec.Data) != want) || (truncated && len(rec.Data) >= want) {
		return b, rangeErr("data", "%d values, want %d for count %d and control %q (truncated %v)", len(rec.Data), want, rec.Count, ctl.text, truncated)
	}
	if truncated && rec.Flags&FlagTrailing != 0 {
		return b, rangeErr("flags", "truncated data cannot be followed by text")
	}
	for i := range rec.Data {
		v := &rec.Data[i]
		b = append(b, ' ')
		switch c := ctl.convs[i%len(ctl.convs)]; {
		case c == convInt && v.Kind == KindInt:
			b = v.AppendText(b)
		case c == convFloat && v.Kind == KindFloat:
			if math.IsNaN(v.Float) || math.IsInf(v.Float, 0) {
				return b, rangeErr("data", "value %d is %v", i, v.Float)
			}
			b = v.AppendText(b)
		case c == convString && v.Kind == KindString:
			b, err = appendString(b, v)
			if err != nil {
				return b, fmt.Errorf("data value %d: %w", i, err)
			}
		default:
			return b, rangeErr("data", "value %d is %v, control %q wants another kind", i, v.Kind, ctl.text)
		}
	}
	if truncated {
		return append(b, '\n'), nil
	}
	return w.trailing(b, rec)
}

// appendString appends a %s value, quoted when it was quoted or must be.
func appendString(b []byte, v *Value) ([]byte, error) {
	t := v.Text
	if bytes.IndexByte(t, '\n') >= 0 {
		return b, rangeErr("string", "line feed in %q", t)
	}
	need := len(t) == 0 || bytes.IndexByte(t, ' ') >= 0 || bytes.IndexByte(t, '\t') >= 0 || t[0] == '"'
	if !need && !v.Quoted {
		return append(b, t...), nil
	}
	if bytes.IndexByte(t, '"') >= 0 {
		return b, rangeErr("string", "%q needs quotes but holds a double quote", t)
	}
	b = append(b, '"')
	b = append(b, t...)
	return append(b, '"'), nil
}

func (w *Writer) trailing(b []byte, rec *Record) ([]byte, error) {
	if rec.Flags&FlagTrailing == 0 {
		if rec.Raw != nil && rec.Flags&FlagUndecoded == 0 {
			return b, rangeErr("raw", "Raw set without FlagTrailing or FlagUndecoded")
		}
		return append(b, '\n'), nil
	}
	if len(rec.Raw) == 0 {
		return b, rangeErr("raw", "FlagTrailing without Raw text")
	}
	if err := checkRaw(rec.Raw); err != nil {
		return b, err
	}
	b = append(b, ' ')
	b = append(b, rec.Raw...)
	return append(b, '\n'), nil
}

// checkRaw checks that raw text re-reads as itself: one line, no blanks at
// its ends.
func checkRaw(raw []byte) error {
	if bytes.IndexByte(raw, '\n') >= 0 {
		return rangeErr("raw", "line feed in %q", raw)
	}
	if len(textscan.TrimBlanks(raw)) != len(raw) {
		return rangeErr("raw", "%q starts or ends with a blank", raw)
	}
	return nil
}
