package picl

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"

	"github.com/hpctrace/hpctrace/internal/textscan"
)

// ReaderOptions configures a Reader. A nil or zero value means defaults.
// MaxLine and Strict mean what they mean for the otf package's text
// reader: a bound on one line, and tolerated input turned into an error.
type ReaderOptions struct {
	Path    string // used only in error messages
	MaxLine int    // longest line accepted, in bytes, without the line end; 0 means 1 MiB
	Strict  bool   // turn what lenient reading tolerates into an error: records it keeps with FlagTruncated, FlagTrailing or FlagBadValue, and undefined descriptor aliases
}

// A Reader reads the records of a PICL trace one line at a time.
//
// Reading is lenient by default: a record whose data are cut short, carry
// extra text or do not fit their conversions is kept with [Flags] telling
// how (doc/picl.md §11, A10). With ReaderOptions.Strict such records are
// errors, and so is a descriptor alias that no earlier -6 record defines
// for the record's event and location (lenient reading keeps such a record
// with FlagUndecoded). In both modes a record whose control string the SDK
// cannot decode is kept with FlagUndecoded, and a line whose six fixed
// fields are malformed is an error.
//
// A Reader is not safe for concurrent use; separate Readers may run in
// parallel.
type Reader struct {
	opts   ReaderOptions
	sc     *textscan.Scanner
	rec    Record
	ctl    *control // the current record's control string, nil if none
	data   []Value
	scope  scope
	cache  descCache
	fields fieldCache // the buffer path's memory of field groups
	bufMax uint       // the longest line the buffer path reads: within its window and MaxLine

	// The buffer path's cursor. It reads lines from win[off:], win being
	// the scanner's Buffered bytes, and tells the scanner only when another
	// path or a caller needs it (syncScanner): since win was taken, when n
	// was winFrom, the lines up to off were read, the last from winLast.
	// The buffer path reads one record per line, so there are n-winFrom.
	win     []byte
	off     int
	winFrom int64
	winLast int

	extra bool  // the record may hold Chars, Raw or Flags, which the buffer path then clears
	n     int64 // records returned so far
	err   error
	done  bool

	file   io.Closer // the file Open or OpenFS opened, until Close
	closed bool
}

// Open opens the file name and returns a Reader of it; Close closes the
// file. The file is read through the Reader's own buffer. A nil opts
// means defaults; an empty opts.Path means name.
func Open(name string, opts *ReaderOptions) (*Reader, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	return newFileReader(f, name, opts)
}

// OpenFS is Open for the file name of fsys (a slash-separated path
// within fsys).
func OpenFS(fsys fs.FS, name string, opts *ReaderOptions) (*Reader, error) {
	if fsys == nil {
		return nil, errors.New("picl: OpenFS: nil fs.FS")
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	return newFileReader(f, name, opts)
}

// newFileReader returns a Reader of f that owns it: f is closed here on
// error, else by the Reader's Close.
func newFileReader(f fs.File, name string, opts *ReaderOptions) (*Reader, error) {
	var o ReaderOptions
	if opts != nil {
		o = *opts
	}
	if o.Path == "" {
		o.Path = name
	}
	r, err := NewReader(f, &o)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.file = f
	return r, nil
}

// Close closes the file that Open or OpenFS opened; a Reader made by
// NewReader closes nothing (its io.Reader is the caller's). After Close,
// Next returns false and Err returns ErrClosed unless it already returned
// another error; Reset makes the Reader read a new stream, which it does
// not own. A second Close returns nil.
func (r *Reader) Close() error {
	if r.closed {
		return nil
	}
	r.syncScanner()
	r.win, r.off, r.winFrom = nil, 0, r.n
	r.rec = Record{}
	r.closed = true
	f := r.file
	r.file = nil
	if f != nil {
		return f.Close()
	}
	return nil
}

// NewReader returns a Reader reading the trace from r. PICL files have no
// header, so NewReader reads nothing; it fails only on invalid options
// (a negative MaxLine). The Reader's Close does not close r.
func NewReader(r io.Reader, opts *ReaderOptions) (*Reader, error) {
	var o ReaderOptions
	if opts != nil {
		o = *opts
	}
	if o.MaxLine < 0 {
		return nil, fmt.Errorf("picl: ReaderOptions.MaxLine is negative (%d)", o.MaxLine)
	}
	if o.MaxLine == 0 {
		o.MaxLine = textscan.DefaultMaxLine
	}
	rd := &Reader{opts: o, sc: textscan.NewScanner(r, o.MaxLine), bufMax: uint(min(winLimit-1, o.MaxLine))}
	rd.fields.init()
	return rd, nil
}

// Reset makes r read a new stream from src, as NewReader would with r's
// options, keeping its buffers. Definitions (-6 aliases and subsets) of the
// old stream are forgotten. A file that Open or OpenFS opened stays the
// Reader's until Close; after Close, Reset makes the Reader read src
// again (and Close then closes nothing). It returns nil; the error result
// is there for symmetry with the other formats' readers.
func (r *Reader) Reset(src io.Reader) error {
	r.closed = false
	r.sc.Reset(src)
	r.win, r.off, r.winFrom = nil, 0, 0
	r.rec = Record{}
	r.scope.reset()
	r.cache.reset()
	r.n = 0
	r.err = nil
	r.done = false
	return nil
}

// syncScanner tells the scanner what the buffer path read.
func (r *Reader) syncScanner() {
	if lines := int(r.n - r.winFrom); lines > 0 {
		r.sc.Advance(r.off, lines, r.winLast)
		r.win, r.off, r.winFrom = r.win[r.off:], 0, r.n
	}
}

// nextLine is Next for a line the buffer path leaves. Three tiers read a
// line: the buffer path (Next, in fastbuf.go) plain lines in place, the
// line path (fast.go) the other well-formed lines once scanned, and the
// general parser reads, flags or rejects the rest. nextLine scans the line
// and reads it with the line path or the general parser.
func (r *Reader) nextLine() bool {
	if r.closed {
		if r.err == nil {
			r.err = ErrClosed
		}
		return false
	}
	if r.err != nil || r.done {
		return false
	}
	r.syncScanner()
	defer r.takeWindow()
	for r.sc.Scan() {
		line := r.sc.Bytes()
		if len(line) == 0 || (textscan.IsBlank(line[0]) && len(textscan.TrimBlanks(line)) == 0) {
			continue
		}
		// The one-pass fast path (fast.go) reads plain lines; the general
		// parser reads, flags or rejects the others.
		r.rec = Record{}
		r.ctl = nil
		var err error
		if !r.fastLine(line) {
			err = r.parseGeneral(line)
		}
		if err != nil {
			var se *shortError
			if errors.As(err, &se) {
				if r.sc.Terminated() {
					err = fmt.Errorf("%s: %w", se.msg, ErrSyntax)
				} else {
					err = fmt.Errorf("%s: %w", se.msg, io.ErrUnexpectedEOF)
				}
			}
			r.fail(err)
			r.rec = Record{}
			return false
		}
		if definesScope(r.rec.Type) {
			r.scope.apply(&r.rec, r.ctl)
		}
		r.extra = r.rec.Chars != nil || r.rec.Raw != nil || r.rec.Flags != 0
		r.n++
		return true
	}
	r.rec = Record{}
	switch err := r.sc.Err(); {
	case err == nil:
		r.done = true
	case errors.Is(err, textscan.ErrLimit):
		r.fail(fmt.Errorf("%w: a line longer than ReaderOptions.MaxLine (%d bytes)", ErrLimit, r.opts.MaxLine))
	default:
		r.fail(err)
	}
	return false
}

// definesScope reports whether records of type t may change the scope: only
// descriptor and subset definitions do.
func definesScope(t RecordType) bool {
	return t == RecordDescriptor || (t <= RecordProcessorSubset && t >= RecordEventSubset)
}

// takeWindow gives the buffer path the scanner's buffered bytes, or nothing
// once Next has failed or ended.
func (r *Reader) takeWindow() {
	if r.err != nil || r.done {
		r.win = nil
	} else {
		r.win = r.sc.Buffered()
	}
	r.off, r.winFrom = 0, r.n
}

// fail records err at the current line; nextLine, its only caller, has
// told the scanner what the buffer path read.
func (r *Reader) fail(err error) {
	r.err = &ParseError{Path: r.opts.Path, Line: r.sc.Line(), Offset: r.sc.Offset(), Record: r.n, Err: err}
}

// Record returns the current record. Before the first call to Next, and
// after Next returns false, it returns a zero Record.
//
// The Record and the slices it holds are valid until the next call to
// Next, Reset or Close. Use [Record.Clone] to keep it.
func (r *Reader) Record() *Record { return &r.rec }

// Err returns the first error met by Next, or nil after a clean end of the
// input. Errors are sticky: once Next has failed it keeps returning false.
// Malformed input gives a *[ParseError]; Next after Close gives ErrClosed.
func (r *Reader) Err() error { return r.err }

// Line returns the 1-based line number of the current record (or of the
// line that caused the error).
func (r *Reader) Line() int {
	r.syncScanner()
	return r.sc.Line()
}

// Offset returns the byte offset of the start of the current record's line.
func (r *Reader) Offset() int64 {
	r.syncScanner()
	return r.sc.Offset()
}

// All returns an iterator over the remaining records. It yields each record
// with a nil error, then, if reading failed, one (nil, err) pair. It returns
// a single-use iterator: after a break, a later Next or All continues with
// the following record. The records are valid as [Reader.Record] says.
func (r *Reader) All() iter.Seq2[*Record, error] {
	return func(yield func(*Record, error) bool) {
		for r.Next() {
			if !yield(&r.rec, nil) {
				return
			}
		}
		if err := r.Err(); err != nil {
			yield(nil, err)
		}
	}
}

// A shortError marks a line that ends before a required token; Next turns
// it into ErrSyntax, or io.ErrUnexpectedEOF on an unterminated last line.
type shortError struct{ msg string }

func (e *shortError) Error() string { return e.msg }

func short(format string, args ...any) error {
	return &shortError{fmt.Sprintf(format, args...)}
}

// short reports data cut short: an error in strict mode, or on a last line
// without its line feed (which may be a file cut in the middle of a
// record). Strict mode's message says that lenient reading keeps such a
// record.
func (r *Reader) short(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if r.sc.Terminated() {
		msg += " (lenient reading keeps the record, flagged truncated)"
	}
	return &shortError{msg}
}

// A hintError adds to a strict-mode error how lenient reading would read
// the record.
type hintError struct {
	err  error
	hint string
}

func (e *hintError) Error() string { return e.err.Error() + " (" + e.hint + ")" }
func (e *hintError) Unwrap() error { return e.err }

// parseGeneral decodes any non-blank line into r.rec, flagging or
// reporting what is wrong with it.
func (r *Reader) parseGeneral(line []byte) error {
	rec := &r.rec
	*rec = Record{}
	r.ctl = nil
	var rest, tok []byte
	if err := r.slowFixed(line, &rest); err != nil {
		return err
	}

	if rec.Count == 0 {
		return r.trailing(rest)
	}

	// Descriptor.
	rest = skipBlanks(rest)
	if len(rest) == 0 {
		if r.opts.Strict || !r.sc.Terminated() {
			return r.short("missing descriptor")
		}
		rec.Flags |= FlagTruncated
		return nil
	}
	var ctl *control
	if rest[0] == '"' {
		end := 1
		for end < len(rest) && rest[end] != '"' {
			end++
		}
		if end == len(rest) {
			return short("unterminated descriptor %.40q", rest)
		}
		tok, rest = rest[:end+1], rest[end+1:]
		if len(rest) > 0 && !textscan.IsBlank(rest[0]) {
			return fieldErr(ErrSyntax, "descriptor", tok)
		}
		q := r.cache.quotedControl(tok)
		rec.Descriptor, ctl = q.token, q.ctl
	} else {
		tok, rest = textscan.Field(rest)
		alias, err := parseDescriptorToken(tok)
		if err != nil {
			return fieldErr(err, "descriptor", tok)
		}
		rec.Descriptor = r.cache.aliasToken(tok, alias)
		ctl = r.scope.resolve(alias, rec.Event, rec.Processor, rec.Process)
		if ctl == nil && r.opts.Strict {
			return fmt.Errorf("descriptor alias %s is not defined for event type %d on processor %d process %d "+
				"(no earlier -6 record defines it there; lenient reading keeps the record undecoded): %w",
				tok, rec.Event, rec.Processor, rec.Process, ErrSyntax)
		}
	}
	if ctl == nil || ctl.undecoded {
		if ctl != nil {
			rec.Control = ctl.text
		}
		rec.Flags |= FlagUndecoded
		rec.Raw = textscan.TrimBlanks(rest)
		return nil
	}
	rec.Control = ctl.text
	r.ctl = ctl
	if ctl.chars {
		return r.chars(rest)
	}
	return r.values(rest, ctl)
}

// chars reads character data: Count characters after the one blank that
// follows the descriptor.
func (r *Reader) chars(rest []byte) error {
	rec := &r.rec
	if len(rest) > 0 {
		rest = rest[1:] // the single blank after the descriptor
	}
	if len(rest) < rec.Count {
		if r.opts.Strict || !r.sc.Terminated() {
			return r.short("%d characters, want %d", len(rest), rec.Count)
		}
		rec.Chars = rest
		rec.Flags |= FlagTruncated
		return nil
	}
	rec.Chars = rest[:rec.Count:rec.Count]
	return r.trailing(rest[rec.Count:])
}

// values decodes Count repetitions of the control's conversions.
func (r *Reader) values(rest []byte, ctl *control) error {
	rec := &r.rec
	data := r.data[:0]
	want := rec.Count * len(ctl.convs)
	var tok []byte
	ci := 0 // index of the conversion of value i
	for i := 0; i < want; i, ci = i+1, ci+1 {
		if ci == len(ctl.convs) {
			ci = 0
		}
		rest = skipBlanks(rest)
		if len(rest) == 0 {
			if r.opts.Strict || !r.sc.Terminated() {
				r.data = data
				return r.short("%d values, want %d", i, want)
			}
			rec.Flags |= FlagTruncated
			break
		}
		c := ctl.convs[ci]
		var v Value
		var err error
		if rest[0] == '"' {
			end := indexByteFrom(rest, '"', 1)
			switch {
			case end < 0:
				err = fieldErr(ErrSyntax, "unterminated quoted value", rest)
			case end+1 < len(rest) && !textscan.IsBlank(rest[end+1]):
				err = fieldErr(ErrSyntax, "quoted value", rest[:end+1])
			case c != convString:
				err = fieldErr(ErrSyntax, "quoted value for a numeric conversion", rest[:end+1])
			default:
				v = Value{Kind: KindString, Text: rest[1:end:end], Quoted: true}
				rest = rest[end+1:]
			}
		} else if j, x := quickInt(rest); c == convInt && j > 0 {
			v = Value{Kind: KindInt, Int: x, Text: rest[:j:j]}
			rest = rest[j:]
		} else if c == convInt {
			var n int64
			tok, n, rest, err = textscan.IntField(rest, 64)
			if err != nil {
				err = fieldErr(sentinel(err), "integer value", tok)
			}
			v = Value{Kind: KindInt, Int: n, Text: tok[:len(tok):len(tok)]}
		} else {
			tok, rest = textscan.Field(rest)
			v, err = decodeValue(c, tok)
		}
		if err != nil {
			r.data = data
			if r.opts.Strict {
				return &hintError{err, "lenient reading keeps the record, flagged undecoded"}
			}
			rec.Flags |= FlagUndecoded | FlagBadValue
			rec.Raw = textscan.TrimBlanks(r.dataText())
			rec.Data = nil
			return nil
		}
		data = append(data, v)
	}
	r.data = data
	rec.Data = data
	return r.trailing(rest)
}

// dataText returns the current line's text after the descriptor.
func (r *Reader) dataText() []byte {
	line := r.sc.Bytes()
	rest := line
	var tok []byte
	for range 6 {
		tok, rest = textscan.Field(rest)
	}
	_ = tok
	rest = skipBlanks(rest)
	if len(rest) > 0 && rest[0] == '"' {
		if i := indexByteFrom(rest, '"', 1); i >= 0 {
			return rest[i+1:]
		}
		return nil
	}
	_, rest = textscan.Field(rest)
	return rest
}

func indexByteFrom(b []byte, c byte, from int) int {
	for i := from; i < len(b); i++ {
		if b[i] == c {
			return i
		}
	}
	return -1
}

func decodeValue(c conv, tok []byte) (Value, error) {
	switch c {
	case convInt:
		n, err := textscan.ParseInt(tok, 64)
		if err != nil {
			return Value{}, fieldErr(sentinel(err), "integer value", tok)
		}
		return Value{Kind: KindInt, Int: n, Text: tok[:len(tok):len(tok)]}, nil
	case convFloat:
		f, err := textscan.ParseFloat(tok)
		if err != nil {
			return Value{}, fieldErr(sentinel(err), "float value", tok)
		}
		return Value{Kind: KindFloat, Float: f, Text: tok[:len(tok):len(tok)]}, nil
	}
	return Value{Kind: KindString, Text: tok[:len(tok):len(tok)]}, nil
}

// trailing handles what follows the data.
func (r *Reader) trailing(rest []byte) error {
	rest = textscan.TrimBlanks(rest)
	if len(rest) == 0 {
		return nil
	}
	if r.opts.Strict {
		if r.rec.Count == 0 {
			// MPICL writes "-3 1 0.000104 0 0 0 2" for user events.
			return fmt.Errorf("text %.40q after a data count of 0 (MPICL writes a stray value there on "+
				"user-event records; lenient reading ignores it, flagged trailing): %w", rest, ErrSyntax)
		}
		return fmt.Errorf("text %.40q after the data (lenient reading keeps the record, flagged trailing): %w", rest, ErrSyntax)
	}
	r.rec.Flags |= FlagTrailing
	r.rec.Raw = rest
	return nil
}

// slowFixed parses the six fixed fields of any line, with positioned
// errors, leaving the rest of the line in *rest.
func (r *Reader) slowFixed(line []byte, restp *[]byte) error {
	rec := &r.rec
	rest := line
	var tok []byte
	var v int64
	var err error
	if v, _, rest, err = intField(rest, "record type"); err != nil {
		return err
	}
	rec.Type = RecordType(v)
	if v, _, rest, err = intField(rest, "event type"); err != nil {
		return err
	}
	rec.Event = EventType(v)
	tok, rest = textscan.Field(rest)
	if len(tok) == 0 {
		return short("missing timestamp")
	}
	f, err := textscan.ParseFloat(tok)
	if err != nil {
		return fieldErr(sentinel(err), "timestamp", tok)
	}
	rec.Time, rec.TimeText = f, tok[:len(tok):len(tok)]
	if v, _, rest, err = intField(rest, "processor"); err != nil {
		return err
	}
	rec.Processor = int32(v)
	if v, _, rest, err = intField(rest, "process"); err != nil {
		return err
	}
	rec.Process = int32(v)
	if v, tok, rest, err = intField(rest, "count"); err != nil {
		return err
	}
	if v < 0 {
		return fieldErr(ErrSyntax, "count", tok)
	}
	rec.Count = int(v)

	*restp = rest
	return nil
}

// quickInt parses a plain integer token (optional '-', at most 9 digits)
// at the start of b, which starts with a non-blank. It returns the token's
// length, or 0 when the token needs the general parser.
func quickInt(b []byte) (int, int64) {
	i := 0
	if len(b) > 0 && b[0] == '-' {
		i = 1
	}
	start := i
	var x int64
	for i < len(b) && i-start < 9 {
		c := b[i] - '0'
		if c > 9 {
			break
		}
		x = x*10 + int64(c)
		i++
	}
	if i == start || (i < len(b) && b[i] != ' ' && b[i] != '\t') {
		return 0, 0
	}
	if start == 1 {
		x = -x
	}
	return i, x
}

// intField reads a 32-bit integer field from the start of b.
func intField(b []byte, name string) (int64, []byte, []byte, error) {
	tok, v, rest, err := textscan.IntField(b, 32)
	if len(tok) == 0 {
		return 0, tok, rest, short("missing %s", name)
	}
	if err != nil {
		return 0, tok, rest, fieldErr(sentinel(err), name, tok)
	}
	return v, tok, rest, nil
}

// sentinel maps textscan's number errors to this package's sentinels.
func sentinel(err error) error {
	if errors.Is(err, textscan.ErrRange) {
		return ErrRange
	}
	return ErrSyntax
}
