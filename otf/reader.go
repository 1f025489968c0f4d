package otf

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"strconv"
	"strings"

	"github.com/hpctrace/hpctrace/internal/zflush"
)

// ReaderOptions configures a Reader. A nil or zero value means defaults.
type ReaderOptions struct {
	// Path names the file in errors. When File is FileNone the file type
	// is taken from Path's suffix (".events", ".def", ... with an optional
	// ".z", which also sets Zlib).
	Path string
	// Stream is reported as Record.Stream.
	Stream uint32
	// File is the type of file read; it decides which keywords are known
	// and whether state lines are used. FileNone means: from Path, else
	// FileEvents.
	File FileType
	// Zlib makes the reader inflate its input (a zlib stream of full-flush
	// blocks as the reference writer produces, terminated or not).
	Zlib bool
	// Strict turns what lenient reading tolerates into an error: an
	// unknown keyword is rejected with ErrUnknownRecord instead of being
	// returned as a KindUnknown record.
	Strict bool
	// MaxLine is the longest line accepted, in bytes; 0 means 1 MiB, and
	// values below 64 are raised to 64. A longer line is an error
	// wrapping ErrLimit, and so is a seek that lands in a line and
	// finds no line feed within MaxLine bytes.
	MaxLine int
	// StateRecords makes Next also return the state lines of event,
	// snapshot and summary files, as KindTime and KindProcess records.
	StateRecords bool
}

const defaultMaxLine = 1 << 20

// A Reader reads the records of one OTF record file (definitions, events,
// snapshots, statistics or markers) in file order, keeping the time and
// process of the file's state lines.
//
// A Reader is not safe for concurrent use; separate Readers may run in
// parallel.
type Reader struct {
	opts  ReaderOptions
	class fileClass
	fast  bool // fastNext applies: a file with state lines, StateRecords unset
	// general makes the reader take none of its fast paths (fast.go):
	// a switch for tests, which compare the two.
	general bool
	src     io.Reader
	z       *zflush.Reader

	buf        []byte
	start, end int
	data       []byte // buf[:end], kept by fill and ResetAt for fastNext
	eof        bool
	base       int64 // file offset of buf[0]
	line       int64 // lines consumed

	time uint64
	proc uint32

	rec     Record
	err     error
	nrec    int64
	kvs     []KeyValue
	kvSpan  [][2]int
	kvBytes []byte
	kvOff   int64
	lists   []uint32
	remain  int // bytes still expected for the last byte-array key-value
	file    fs.File
	closed  bool
	srcErr  error   // read error of the source, reported at the first incomplete line
	sk      *seeker // random access and byte count (seek.go)
	// nlast is the one-word merge's cache of the last process of this
	// stream (narrow.go), kept here, next to the record, so that the
	// merge's common case reads it through the reader it holds.
	nlast narrowProc
	// dirty is set when the general path has written r.rec: its byte
	// strings, list, raw line or key-values may then be set, and fastNext
	// clears them. Records of the fast path have none of them.
	dirty bool
}

// NewReader returns a Reader of the record file r. It reads nothing yet.
func NewReader(r io.Reader, opts *ReaderOptions) (*Reader, error) {
	rd := &Reader{}
	if opts != nil {
		rd.opts = *opts
	}
	if rd.opts.MaxLine <= 0 {
		rd.opts.MaxLine = defaultMaxLine
	}
	if rd.opts.MaxLine < 64 {
		rd.opts.MaxLine = 64
	}
	if rd.opts.File == FileNone {
		p := rd.opts.Path
		if s, ok := strings.CutSuffix(p, ".z"); ok {
			p = s
			rd.opts.Zlib = true
		}
		rd.opts.File = FileEvents
		for f := FileDef; f <= FileMarker; f++ {
			if strings.HasSuffix(p, "."+f.String()) {
				rd.opts.File = f
			}
		}
	}
	switch rd.opts.File {
	case FileDef:
		rd.class = classDef
	case FileEvents:
		rd.class = classEvents
	case FileSnaps:
		rd.class = classSnaps
	case FileStats:
		rd.class = classStats
	case FileMarker:
		rd.class = classMarker
	default:
		return nil, errors.New("otf: ReaderOptions.File: unknown file type")
	}
	rd.fast = rd.class != classDef && rd.class != classMarker && !rd.opts.StateRecords
	rd.buf = make([]byte, min(64<<10, rd.opts.MaxLine+1))
	if err := rd.Reset(r); err != nil {
		return nil, err
	}
	return rd, nil
}

// Reset makes the reader read a new file from src from its beginning,
// keeping its buffers and options.
func (r *Reader) Reset(src io.Reader) error {
	return r.ResetAt(src, 0, false)
}

// ResetAt makes the reader read src, whose first byte is at byte offset
// off of the (decompressed) file, with the time and process undefined.
// If resync is true, the bytes up to and including the first line feed
// are skipped (the partial line at a jump target). It is the restart
// point for seeking; line numbers in errors count from the restart.
//
// With Zlib set, src must start a zlib stream (off = 0) or, when off > 0,
// a raw deflate block sequence right after a full-flush marker.
func (r *Reader) ResetAt(src io.Reader, off int64, resync bool) error {
	r.start, r.end, r.eof, r.srcErr = 0, 0, false, nil
	r.data = r.buf[:0]
	r.base = off
	r.line = 0
	r.time, r.proc = ^uint64(0), ^uint32(0)
	r.err = nil
	r.nrec = 0
	r.rec = Record{}
	r.kvs = r.kvs[:0]
	r.remain = 0
	if src == nil {
		src = eofReader{}
	}
	orig := src
	src = r.attach(src, off)
	r.src = src
	r.closed = false
	if r.opts.Zlib && off == 0 && isEOFReader(orig) {
		return nil // nothing to inflate: an empty file
	}
	if r.opts.Zlib {
		if r.z == nil {
			r.z = new(zflush.Reader)
		}
		var err error
		if off == 0 {
			err = r.z.Reset(src)
		} else {
			err = r.z.ResetRaw(src)
		}
		if err != nil {
			r.err = &ParseError{Path: r.opts.Path, Err: ErrFormat}
			return r.err
		}
		r.src = r.z
	}
	if resync {
		// The partial line is at most MaxLine bytes long, or the file
		// is not one the reader accepts: stop there rather than scan a
		// huge line on every seek.
		for {
			i := bytes.IndexByte(r.buf[r.start:r.end], '\n')
			if i >= 0 {
				r.start += i + 1
				break
			}
			if r.base+int64(r.end)-off > int64(r.opts.MaxLine) {
				r.fail(off, 1, r.longLine())
				return r.err
			}
			r.start = r.end
			if r.eof || !r.fill() {
				break
			}
		}
	}
	return nil
}

// State returns the current time and process of the file's state lines;
// all-ones values mean "not set yet".
func (r *Reader) State() (time uint64, process uint32) { return r.time, r.proc }

// InputOffset returns the offset in the (decompressed) file of the next
// byte the reader will parse.
func (r *Reader) InputOffset() int64 { return r.base + int64(r.start) }

// Record returns the current record. The Record and the slices it holds
// are valid until the next call to Next or Reset. Use [Record.Clone] to
// keep it. Before the first Next it is a zero record.
func (r *Reader) Record() *Record { return &r.rec }

// Err returns the first error other than io.EOF met by Next.
func (r *Reader) Err() error { return r.err }

// All returns an iterator over the remaining records, yielding
// (rec, nil) for each and at most one final (nil, err). It returns a
// single-use iterator.
func (r *Reader) All() iter.Seq2[*Record, error] {
	return func(yield func(*Record, error) bool) {
		for r.Next() {
			if !yield(&r.rec, nil) {
				return
			}
		}
		if r.err != nil {
			yield(nil, r.err)
		}
	}
}

// fill reads more input into buf, compacting and growing it as needed. It
// returns false when no byte could be added.
func (r *Reader) fill() bool {
	ok := r.fillBuf()
	r.data = r.buf[:r.end]
	return ok
}

// fillBuf is fill without the update of r.data.
func (r *Reader) fillBuf() bool {
	if r.start > 0 && (r.start == r.end || r.end == len(r.buf)) {
		n := copy(r.buf, r.buf[r.start:r.end])
		r.base += int64(r.start)
		r.end = n
		r.start = 0
	}
	if r.end == len(r.buf) {
		if len(r.buf) > r.opts.MaxLine {
			return false
		}
		nb := make([]byte, min(2*len(r.buf), r.opts.MaxLine+1))
		copy(nb, r.buf[:r.end])
		r.buf = nb
	}
	for tries := 0; tries < 100; tries++ {
		n, err := r.src.Read(r.buf[r.end:])
		r.end += n
		if err != nil {
			r.eof = true
			if !errors.Is(err, io.EOF) {
				r.srcErr = err
			}
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
	r.eof = true
	r.srcErr = io.ErrNoProgress
	return false
}

// readLine returns the next line without its LF and the line's file
// offset; ok is false at the end of input or on error (r.err set).
func (r *Reader) readLine() (line []byte, off int64, ok bool) {
	for {
		if i := bytes.IndexByte(r.buf[r.start:r.end], '\n'); i >= 0 {
			line = r.buf[r.start : r.start+i]
			off = r.base + int64(r.start)
			r.start += i + 1
			r.line++
			return line, off, true
		}
		if r.end-r.start > r.opts.MaxLine {
			r.fail(r.base+int64(r.start), 1, r.longLine())
			return nil, 0, false
		}
		if r.eof || !r.fill() {
			if r.srcErr != nil {
				r.fail(r.base+int64(r.start), 1, r.srcErr)
				return nil, 0, false
			}
			if r.start < r.end {
				// An unterminated last line is not a complete record.
				r.fail(r.base+int64(r.start), 1, io.ErrUnexpectedEOF)
			}
			return nil, 0, false
		}
	}
}

// longLine returns ErrLimit wrapped with the limit.
func (r *Reader) longLine() error {
	return fmt.Errorf("%w: a line longer than ReaderOptions.MaxLine (%d bytes)", ErrLimit, r.opts.MaxLine)
}

// fail records a positioned parse error for the line at off (lineDelta
// lines after the last one consumed, 0 or 1).
func (r *Reader) fail(off int64, lineDelta int64, err error) {
	r.err = &ParseError{Path: r.opts.Path, Line: int(r.line + lineDelta), Offset: off, Record: r.nrec, Err: err}
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }
func isHex(c byte) bool   { return c-'0' < 10 || c-'a' < 6 }
func isUpper(c byte) bool { return c-'A' < 26 }

// Next advances to the next record and reports whether there is one.
// Key-value lines attach to the following record; state lines update
// Record.Time and Record.Process (and are returned as records only with
// ReaderOptions.StateRecords).
func (r *Reader) Next() bool {
	if r.fast && r.err == nil && !r.closed && r.fastNext() {
		return true
	}
	return r.next()
}

// next is Next past the fast path.
func (r *Reader) next() bool {
	if r.err != nil || r.closed {
		return false
	}
	r.kvs = r.kvs[:0]
	r.kvSpan = r.kvSpan[:0]
	r.kvBytes = r.kvBytes[:0]
	r.lists = r.lists[:0]
	r.remain = 0
	state := r.class != classDef && r.class != classMarker
	for {
		if state && !r.general && r.fastState() {
			if r.opts.StateRecords {
				return true
			}
			continue
		}
		line, off, ok := r.readLine()
		if !ok {
			return false
		}
		i := 0
		for i < len(line) && isBlank(line[i]) {
			i++
		}
		if i == len(line) {
			continue
		}
		c := line[i]
		if state && isHex(c) {
			t, j, err := parseNum(line, i, 64)
			if err == nil && j != len(line) {
				err = expected(badChar(line, j), "the end of a time stamp line", nil, line, j)
			} else if err != nil {
				err = expected(err, "a time stamp (a 64-bit hex number)", nil, line, j)
			}
			if err != nil {
				r.fail(off, 0, err)
				return false
			}
			r.time = t
			if r.opts.StateRecords {
				r.setState(KindTime, off)
				return true
			}
			continue
		}
		if state && c == '*' {
			i++
			for i < len(line) && isBlank(line[i]) {
				i++
			}
			p, j, err := parseNum(line, i, 32)
			if err == nil && j != len(line) {
				err = expected(badChar(line, j), "the end of a process line", nil, line, j)
			} else if err != nil {
				err = expected(err, "a process (a 32-bit hex number)", []byte("*"), line, j)
			}
			if err != nil {
				r.fail(off, 0, err)
				return false
			}
			r.proc = uint32(p)
			if r.opts.StateRecords {
				r.setState(KindProcess, off)
				return true
			}
			continue
		}
		// Keyword.
		j := i
		if c == '#' {
			j++
		}
		for j < len(line) && isUpper(line[j]) {
			j++
		}
		kw := line[i:j]
		if string(kw) == "K" || string(kw) == "KEY" {
			if len(r.kvs) == 0 {
				r.kvOff = off
			}
			if err := r.parseKV(line, j, kw); err != nil {
				r.fail(off, 0, err)
				return false
			}
			continue
		}
		var k Kind
		switch r.class {
		case classEvents:
			if len(kw) == 1 {
				k = eventsShort1[kw[0]]
			} else {
				k = lookupEvents(kw)
			}
		case classDef:
			k = lookupDef(kw)
		case classSnaps:
			k = lookupSnaps(kw)
		case classStats:
			k = lookupStats(kw)
		case classMarker:
			k = lookupMarker(kw)
		}
		rec := &r.rec
		rec.setKind(k)
		r.dirty = true
		if k == KindUnknown {
			if r.opts.Strict {
				r.fail(off, 0, ErrUnknownRecord)
				return false
			}
			rec.raw = line
		} else if r.general || !r.fastFields(line, j, rec) {
			if err := r.parseFields(line, j, kw, rec); err != nil {
				r.fail(off, 0, err)
				return false
			}
		}
		r.finish(rec, off)
		return true
	}
}

func (r *Reader) setState(k Kind, off int64) {
	rec := &r.rec
	rec.setKind(k)
	r.dirty = true
	if k == KindTime {
		rec.num[0] = r.time
	} else {
		rec.num[0] = uint64(r.proc)
	}
	rec.kvs = nil
	rec.Stream = r.opts.Stream
	rec.Time, rec.Process = r.time, r.proc
	rec.Offset = off
	rec.Line = r.line
}

func (r *Reader) finish(rec *Record, off int64) {
	rec.Stream = r.opts.Stream
	rec.Line = r.line
	rec.Offset = off
	if len(r.kvs) > 0 {
		rec.Offset = r.kvOff
		for i, s := range r.kvSpan {
			if s[1] >= 0 {
				r.kvs[i].Bytes = r.kvBytes[s[0]:s[1]:s[1]]
			}
		}
		rec.kvs = r.kvs
	} else {
		rec.kvs = nil
	}
	switch r.class {
	case classDef:
		rec.Time, rec.Process = 0, 0
	case classMarker:
		if rec.Kind == KindMarkerSpot {
			rec.Time, rec.Process = rec.num[1], uint32(rec.num[2])
		} else {
			rec.Time, rec.Process = 0, 0
		}
	default:
		rec.Time, rec.Process = r.time, r.proc
	}
	r.nrec++
}

// badChar returns the error for an unexpected character at line[j].
func badChar(line []byte, j int) error {
	if j < len(line) && line[j]-'A' < 6 && j > 0 && (isHex(line[j-1]) || line[j-1]-'A' < 6) {
		return ErrUpperHex
	}
	return ErrSyntax
}

// expected wraps err, a sentinel from a failed parse at line[i], with what
// the reader wanted there, the token it follows (the record's or field's
// keyword, if any) and what it found: "syntax error: want a hex number
// after 'E', found "q"". It runs only on the error path.
func expected(err error, what string, after, line []byte, i int) error {
	var found string
	switch {
	case i >= len(line):
		found = "the end of the line"
	case len(line)-i > 16:
		found = strconv.Quote(string(line[i:i+16])) + "..."
	default:
		found = strconv.Quote(string(line[i:]))
	}
	if len(after) > 0 {
		return fmt.Errorf("%w: want %s after '%s', found %s", err, what, after, found)
	}
	return fmt.Errorf("%w: want %s, found %s", err, what, found)
}

// kwWant describes a field keyword, short and long ("field 'NM' (NAME)"), for errors.
func kwWant(kws []string) string {
	if len(kws) > 1 && kws[1] != kws[0] {
		return "field '" + kws[0] + "' (" + kws[1] + ")"
	}
	return "field '" + kws[0] + "'"
}

// fieldWant describes what a field of type typ looks like, for errors.
func fieldWant(typ fieldType) string {
	switch typ {
	case tU32:
		return "a 32-bit hex number"
	case tU64:
		return "a 64-bit hex number"
	case tStr:
		return "a quoted string"
	case tList:
		return "a list of hex numbers, each ending in ','"
	case tVer:
		return "a version (major.minor.sub followed by a quoted string)"
	}
	return "a value"
}

// hexVal maps a byte to its value as a lower-case hex digit, or 0xff.
var hexVal = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = byte(c - 'a' + 10)
	}
	return t
}()

// parseNum parses a lower-case hex number of at most bits bits at line[i:].
func parseNum(line []byte, i int, bits int) (uint64, int, error) {
	start := i
	var v uint64
	for ; i < len(line); i++ {
		d := hexVal[line[i]]
		if d > 15 {
			break
		}
		v = v<<4 | uint64(d)
	}
	if n := i - start; n == 0 || n > bits/4 {
		if n == 0 {
			return 0, i, badChar(line, i)
		}
		// Long numbers are fine when the excess digits are leading zeros.
		for j := start; j < i-bits/4; j++ {
			if line[j] != '0' {
				return 0, j, ErrRange
			}
		}
		v = 0
		for j := i - bits/4; j < i; j++ {
			v = v<<4 | uint64(hexVal[line[j]])
		}
	}
	return v, i, nil
}

func skipBlanks(line []byte, i int) int {
	for i < len(line) && isBlank(line[i]) {
		i++
	}
	return i
}

// matchKW reports whether an upper-case keyword of kws starts at line[i:]
// and returns the index after it.
func matchKW(line []byte, i int, kws []string) (int, bool) {
	// Fast path: the short keyword, followed by a non-letter.
	if k := kws[0]; len(line)-i > len(k) && line[i] == k[0] && (len(k) == 1 || string(line[i:i+len(k)]) == k) && !isUpper(line[i+len(k)]) {
		return i + len(k), true
	}
	j := i
	for j < len(line) && isUpper(line[j]) {
		j++
	}
	if j == i {
		return i, false
	}
	w := line[i:j]
	for _, k := range kws {
		if string(w) == k {
			return j, true
		}
	}
	return i, false
}

// matchPrefix matches kw at line[i:] even when an upper-case letter follows.
func matchPrefix(line []byte, i int, kw string) (int, bool) {
	if len(line)-i > len(kw) && string(line[i:i+len(kw)]) == kw {
		return i + len(kw), true
	}
	return i, false
}

func parseString(line []byte, i int) ([]byte, int, error) {
	if i >= len(line) || line[i] != '"' {
		return nil, i, ErrSyntax
	}
	k := bytes.IndexByte(line[i+1:], '"')
	if k < 0 {
		return nil, i, ErrSyntax
	}
	return line[i+1 : i+1+k : i+1+k], i + 2 + k, nil
}

// parseFields parses the fields of rec.Kind from line[i:]; kw is the
// record's keyword, named in errors.
func (r *Reader) parseFields(line []byte, i int, kw []byte, rec *Record) error {
	sp := &kindSpecs[rec.Kind]
	fields := sp.fields
	any := false
	after := kw // the token a field follows, for errors
	for fi := range fields {
		f := &fields[fi]
		if j := skipBlanks(line, i); j == len(line) && j > i && any {
			return expected(ErrSyntax, "no blanks at the end of the line", nil, line, i)
		}
		i = skipBlanks(line, i)
		if i == len(line) {
			for _, g := range fields[fi:] {
				if !g.opt {
					if g.kws != nil {
						return expected(ErrSyntax, kwWant(g.kws), after, line, i)
					}
					return expected(ErrSyntax, fieldWant(g.typ), after, line, i)
				}
			}
			break
		}
		if f.kws != nil {
			j, ok := matchKW(line, i, f.kws)
			if !ok && f.typ == tList {
				// An empty list glued to the next keyword: DPG1MNM"x".
				j, ok = matchPrefix(line, i, f.kws[0])
			}
			if !ok {
				if f.opt {
					continue
				}
				return expected(badChar(line, i), kwWant(f.kws), after, line, i)
			}
			after = line[i:j]
			i = skipBlanks(line, j)
		} else if f.opt && !isHex(line[i]) {
			continue
		}
		any = true
		start := i
		var err error
		switch f.typ {
		case tU32:
			rec.num[f.slot], i, err = parseNum(line, i, 32)
		case tU64:
			rec.num[f.slot], i, err = parseNum(line, i, 64)
		case tStr:
			rec.str[f.slot], i, err = parseString(line, i)
		case tList:
			first := len(r.lists)
			for i < len(line) && isHex(line[i]) {
				var v uint64
				v, i, err = parseNum(line, i, 32)
				if err != nil {
					return expected(err, "a list member (a 32-bit hex number)", after, line, i)
				}
				if i >= len(line) || line[i] != ',' {
					return expected(badChar(line, i), "',' after each list member", after, line, i)
				}
				i++
				r.lists = append(r.lists, uint32(v))
			}
			rec.list = r.lists[first:len(r.lists):len(r.lists)]
		case tVer:
			for n := range 3 {
				if n > 0 {
					if i >= len(line) || line[i] != '.' {
						return expected(ErrSyntax, "'.' between the numbers of a version", after, line, i)
					}
					i++
				}
				var v uint64
				if v, i, err = parseNum(line, i, 8); err != nil {
					return expected(err, "a version number (an 8-bit hex number)", after, line, i)
				}
				rec.num[int(f.slot)+n] = v
			}
			i = skipBlanks(line, i)
			start = i
			rec.str[0], i, err = parseString(line, i)
		}
		if err != nil {
			if f.typ == tVer {
				return expected(err, "a quoted string after the version", after, line, start)
			}
			return expected(err, fieldWant(f.typ), after, line, i)
		}
		after = line[start:i]
	}
	if i != len(line) {
		if !any && len(bytes.Trim(line[i:], " \t")) == 0 {
			return nil // "NOOP ", "LEAVE ": a keyword with its trailing blank
		}
		return expected(badChar(line, i), "the end of the line", after, line, i)
	}
	return nil
}

// parseKV parses a key-value line after its K/KEY keyword kw.
func (r *Reader) parseKV(line []byte, i int, kw []byte) error {
	i = skipBlanks(line, i)
	key, i, err := parseNum(line, i, 32)
	if err != nil {
		return expected(err, "a key (a 32-bit hex number)", kw, line, i)
	}
	i = skipBlanks(line, i)
	j, ok := matchKW(line, i, kwType)
	if !ok {
		return expected(badChar(line, i), "field 'Y' (TYPE)", kw, line, i)
	}
	i = skipBlanks(line, j)
	typ, i, err := parseNum(line, i, 32)
	if err != nil {
		return expected(err, "a value type (a hex number)", []byte("Y"), line, i)
	}
	if typ > uint64(TypeByteArray) {
		return fmt.Errorf("%w: value type %d", ErrRange, typ)
	}
	i = skipBlanks(line, i)
	t := ValueType(typ)
	j, ok = matchKW(line, i, kwValue)
	if !ok && t == TypeByteArray {
		j, ok = matchPrefix(line, i, "V") // an empty array: K1YbVL0
	}
	if !ok {
		return expected(badChar(line, i), "field 'V' (VALUE)", nil, line, i)
	}
	i = skipBlanks(line, j)
	if t != TypeByteArray {
		v, i2, err := parseNum(line, i, 64)
		if err != nil {
			return expected(err, "a value (a hex number)", []byte("V"), line, i2)
		}
		if i2 != len(line) {
			return expected(badChar(line, i2), "the end of the line", line[i:i2], line, i2)
		}
		if n := t.bits(); n < 64 && v>>n != 0 {
			return fmt.Errorf("%w: value %#x does not fit type %v", ErrRange, v, t)
		}
		r.kvs = append(r.kvs, KeyValue{Key: uint32(key), Type: t, Value: v})
		r.kvSpan = append(r.kvSpan, [2]int{0, -1})
		r.remain = 0
		return nil
	}
	start := i
	for i+1 < len(line) && isHex(line[i]) && isHex(line[i+1]) {
		i += 2
	}
	if i < len(line) && isHex(line[i]) {
		return expected(badChar(line, i+1), "an even number of hex digits", []byte("V"), line, start)
	}
	hexb := line[start:i]
	i = skipBlanks(line, i)
	j, ok = matchKW(line, i, kwLen)
	if !ok {
		return expected(badChar(line, i), "field 'L' (LEN)", nil, line, i)
	}
	i = skipBlanks(line, j)
	total, i, err := parseNum(line, i, 32)
	if err != nil {
		return expected(err, "a length (a 32-bit hex number)", []byte("L"), line, i)
	}
	if i != len(line) {
		return expected(badChar(line, i), "the end of the line", []byte("L"), line, i)
	}
	n := len(hexb) / 2
	if int(total) < n {
		return fmt.Errorf("%w: byte array of %d bytes longer than its total length %d", ErrSyntax, n, total)
	}
	// A continuation piece of the previous byte array?
	if last := len(r.kvs) - 1; r.remain > 0 && last >= 0 && r.kvs[last].Key == uint32(key) &&
		r.kvs[last].Type == TypeByteArray && int(total) == r.remain {
		r.kvBytes = appendUnhex(r.kvBytes, hexb)
		r.kvSpan[last][1] = len(r.kvBytes)
		r.remain -= n
		return nil
	}
	s := len(r.kvBytes)
	r.kvBytes = appendUnhex(r.kvBytes, hexb)
	r.kvs = append(r.kvs, KeyValue{Key: uint32(key), Type: TypeByteArray})
	r.kvSpan = append(r.kvSpan, [2]int{s, len(r.kvBytes)})
	r.remain = int(total) - n
	return nil
}

// hexRun reads the run of hex digits of b from index i on. It returns
// their value (that of the last 16 digits) and the index after the run.
func hexRun(b []byte, i uint) (uint64, uint) {
	var v uint64
	for ; i < uint(len(b)); i++ {
		d := hexVal[b[i]]
		if d > 15 {
			break
		}
		v = v<<4 | uint64(d)
	}
	return v, i
}

func unhex(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c - 'a' + 10
}

func appendUnhex(b, h []byte) []byte {
	for k := 0; k+1 < len(h); k += 2 {
		b = append(b, unhex(h[k])<<4|unhex(h[k+1]))
	}
	return b
}

var (
	kwType  = []string{"Y", "TYPE"}
	kwValue = []string{"V", "VALUE"}
	kwLen   = []string{"L", "LEN"}
)

// eventsShort1 maps the one-letter event keywords to their kinds.
var eventsShort1 = func() (t [256]Kind) {
	for k := KindUnknown + 1; k < numKinds; k++ {
		if sp := kindSpecs[k]; sp.class == classEvents && len(sp.short) == 1 {
			t[sp.short[0]] = k
		}
	}
	return t
}()

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

func isEOFReader(r io.Reader) bool {
	_, ok := r.(eofReader)
	return ok
}
