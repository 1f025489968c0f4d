package otf

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/hpctrace/hpctrace/internal/zflush"
)

// ErrNotSeekable is returned by SeekTime on a reader whose source does not
// allow random access (see [Reader.SeekTime]) or whose file type has no
// time stamps (definitions, markers).
var ErrNotSeekable = errors.New("otf: reader is not seekable")

// Reads through a seeker start small and double, so that a bisection jump,
// which needs one or two lines, costs a few hundred bytes, while a long
// sequential read soon uses large reads.
const (
	firstChunk = 256
	maxChunk   = 64 << 10
	// linearSpan is the width of the byte interval below which the
	// bisection of a plain file stops and reads linearly (doc/otf.md §10).
	linearSpan = 1024
	// jumpChunk is the largest read of a bisection jump: a compressed jump
	// inflates a whole flush block, and larger reads would overshoot it.
	jumpChunk = 1024
)

// A seeker is the random-access side of a Reader: the file as an
// io.ReaderAt of known size, and the count of bytes read from it.
type seeker struct {
	ra   io.ReaderAt // nil: the source is only counted
	size int64
	n    int64 // bytes read from the source since it was attached
	src  raSource
	cnt  countSource
	scr  []byte // scratch for marker searches
}

// raSource reads the file from off through ReadAt, in chunks that grow
// from firstChunk to maxChunk.
type raSource struct {
	sk    *seeker
	off   int64
	chunk int
	limit int // largest chunk
}

func (s *raSource) Read(p []byte) (int, error) {
	if s.off >= s.sk.size {
		return 0, io.EOF
	}
	n := min(int64(len(p)), int64(s.chunk), s.sk.size-s.off)
	s.chunk = min(2*s.chunk, s.limit)
	k, err := s.sk.ra.ReadAt(p[:n], s.off)
	s.off += int64(k)
	s.sk.n += int64(k)
	if k > 0 && errors.Is(err, io.EOF) {
		err = nil
	}
	return k, err
}

// countSource counts the bytes read from a source without random access.
type countSource struct {
	sk *seeker
	r  io.Reader
}

func (c *countSource) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.sk.n += int64(n)
	return n, err
}

// randomAccess reports whether src can be read at any offset, and its size:
// src must implement io.ReaderAt and either have a Size method
// (bytes.Reader, strings.Reader, io.SectionReader) or be a regular file
// with a Stat method (os.File, the files of os.DirFS and fstest.MapFS).
func randomAccess(src io.Reader) (io.ReaderAt, int64, bool) {
	ra, ok := src.(io.ReaderAt)
	if !ok {
		return nil, 0, false
	}
	switch s := src.(type) {
	case interface{ Size() int64 }:
		return ra, s.Size(), true
	case interface{ Stat() (fs.FileInfo, error) }:
		fi, err := s.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			return nil, 0, false
		}
		return ra, fi.Size(), true
	}
	return nil, 0, false
}

// attach is called by ResetAt with the caller's source. A source the
// seeker itself made (a restart during a seek) is kept; any other source
// becomes the reader's new file: read through ReadAt if it allows random
// access (and starts at offset 0), else read as is; either way counted.
func (r *Reader) attach(src io.Reader, off int64) io.Reader {
	if r.sk == nil {
		r.sk = new(seeker)
	}
	sk := r.sk
	if src == io.Reader(&sk.src) {
		return src
	}
	sk.n = 0
	if ra, size, ok := randomAccess(src); ok && off == 0 {
		sk.ra, sk.size = ra, size
		sk.src = raSource{sk: sk, off: 0, chunk: firstChunk, limit: maxChunk}
		return &sk.src
	}
	sk.ra, sk.size = nil, 0
	sk.cnt = countSource{sk: sk, r: src}
	return &sk.cnt
}

// BytesRead returns the number of bytes the reader has read from its file
// (compressed bytes for a zlib file) since it was created or last Reset
// with a new source. Seeks do not reset it, so the difference across a
// SeekTime is what the seek cost.
func (r *Reader) BytesRead() int64 {
	if r.sk == nil {
		return 0
	}
	return r.sk.n
}

// Seekable reports whether SeekTime can work: the reader's source allows
// random access and the file has time stamps.
func (r *Reader) Seekable() bool {
	return r.sk != nil && r.sk.ra != nil && r.class != classDef && r.class != classMarker
}

// restart makes the reader parse the file from byte pos (a compressed
// offset for zlib files; there pos must be 0 or just after a full-flush
// marker), skipping the partial line at pos if resync is set. Reads grow
// up to limit bytes.
func (r *Reader) restart(pos int64, resync bool, limit int) {
	sk := r.sk
	sk.src.off = pos
	sk.src.chunk = min(firstChunk, limit)
	sk.src.limit = limit
	_ = r.ResetAt(&sk.src, pos, resync) // an error is kept in r.err
}

// SeekTime positions the reader so that the next Next returns the first
// record with time ≥ t. If there is none, Next returns false and Err
// returns nil. After SeekTime the time and process are those of the state
// lines before that record, and a previous error is cleared. Records
// before the first time line of the file, whose time is undefined
// (all-ones), are never returned after a seek. The Record returned by
// Record before the seek, and the slices it holds, are no longer valid.
//
// SeekTime needs random access: the source given to NewReader, Reset or
// ResetAt (at offset 0) must implement io.ReaderAt and have a Size method or
// be a regular file with a Stat method (os.File, files of os.DirFS and
// fstest.MapFS); such a source is read through ReadAt from offset 0, whatever
// its current position. Otherwise, and for definition and marker files, it
// returns an error wrapping ErrNotSeekable.
//
// Cost: no index is used. SeekTime bisects the file's byte offsets (doc/otf.md
// §10): each step jumps to the middle of the interval, skips to the next
// line feed and reads up to the next time line, typically a few hundred
// bytes; when the interval is narrower than 1 KiB it reads linearly to the
// first time line ≥ t. A seek thus reads O(log size) small pieces. An
// exact hit of t does not end the bisection early (doc/otf.md §10 allows it):
// the trailing state lines of a file repeat its last time, and writers
// other than the reference may repeat a time line.
//
// On a zlib-compressed file the bisection runs over compressed offsets: a
// jump searches the next full-flush marker (00 00 ff ff), starts a raw
// inflater after it and reads the first time line, which must be followed
// by a process line (else the marker was a false one inside compressed
// data, and the search goes on). A jump inflates up to one flush block, so
// a compressed seek reads O(log(size/block)) blocks plus the marker
// searches; blocks of the reference writer hold 1 MiB of text, a trade-off
// between seek cost and compression. If the target lies in text a jump
// has already inflated, the seek ends there. Use BytesRead to measure a
// seek.
//
// After a seek in a zlib file, Record.Offset and InputOffset count from the
// compressed offset of the restart point rather than from the start of the
// decompressed text; line numbers in errors count from the restart point.
func (r *Reader) SeekTime(t uint64) error {
	if !r.Seekable() {
		return fmt.Errorf("%w: %s", ErrNotSeekable, r.opts.Path)
	}
	if r.closed {
		return fmt.Errorf("otf: %s: SeekTime on a closed reader", r.opts.Path)
	}
	var pos int64
	var err error
	if r.opts.Zlib {
		var done bool
		pos, done, err = r.bisectZlib(t)
		if done {
			r.sk.src.limit = maxChunk
			return nil
		}
	} else {
		pos = r.bisectPlain(t)
	}
	if err != nil {
		return err
	}
	r.restart(pos, pos > 0 && r.opts.Zlib, maxChunk)
	r.scanTo(t)
	if r.err != nil && pos > 0 && r.opts.Zlib {
		// The restart point was a false marker after all (the data after
		// it inflated and looked like records for a while): read from the
		// start of the stream instead.
		r.restart(0, false, maxChunk)
		r.scanTo(t)
	}
	return nil
}

// bisectPlain returns a line start from which a linear scan finds the
// first record with time ≥ t: a position whose following time line is
// < t, or 0.
func (r *Reader) bisectPlain(t uint64) int64 {
	a, b := int64(0), r.sk.size
	for b-a > linearSpan {
		c := a + (b-a)/2
		tm, at, ok := r.jump(c, c > 0, b)
		if ok && tm < t {
			a = at // the time line at 'at' is < t: start there
		} else {
			b = c
		}
	}
	return a
}

// jump restarts at pos (skipping the partial line if resync) and returns
// the first time line found before the file offset bound, with its offset.
// Malformed lines are skipped: the bisection needs only a lower bound, and
// Next reports the damage when it reads the line.
func (r *Reader) jump(pos int64, resync bool, bound int64) (uint64, int64, bool) {
	r.restart(pos, resync, jumpChunk)
	if r.err != nil {
		return 0, 0, false // no line feed within MaxLine bytes
	}
	for {
		if r.sk.src.off-pos > bound-pos+maxChunk && r.opts.Zlib {
			return 0, 0, false // inflated past the next known restart point
		}
		line, off, ok := r.readLine()
		if !ok {
			return 0, 0, false
		}
		if !r.opts.Zlib && off >= bound {
			return 0, 0, false
		}
		if tm, ok := timeLine(line); ok {
			if !r.opts.Zlib {
				return tm, off, true
			}
			// After a marker found by pattern search, demand the writer's
			// "time line, process line" pair, which inflated garbage
			// after a false marker is unlikely to produce.
			next, _, ok := r.readLine()
			if !ok {
				return 0, 0, false
			}
			if p, ok := processLine(next); ok {
				r.time, r.proc = tm, p
				return tm, off, true
			}
		}
	}
}

// timeLine parses a time line ("  1a2f").
func timeLine(line []byte) (uint64, bool) {
	i := skipBlanks(line, 0)
	if i == len(line) || !isHex(line[i]) {
		return 0, false
	}
	tm, j, err := parseNum(line, i, 64)
	if err != nil || j != len(line) {
		return 0, false
	}
	return tm, true
}

// processLine parses a process line ("*1a").
func processLine(line []byte) (uint32, bool) {
	i := skipBlanks(line, 0)
	if i == len(line) || line[i] != '*' {
		return 0, false
	}
	i = skipBlanks(line, i+1)
	p, j, err := parseNum(line, i, 32)
	if err != nil || j != len(line) {
		return 0, false
	}
	return uint32(p), true
}

// scanTo reads lines until the first time line ≥ t and leaves it unread,
// keeping the time and process of the state lines before it. Records
// before it are skipped without being parsed.
func (r *Reader) scanTo(t uint64) {
	for {
		line, _, ok := r.readLine()
		if !ok {
			return
		}
		if tm, ok := timeLine(line); ok {
			if tm >= t {
				r.start -= len(line) + 1 // the line is still in buf
				r.line--
				return
			}
			r.time = tm
			continue
		}
		if p, ok := processLine(line); ok {
			r.proc = p
		}
	}
}

// bisectZlib returns the compressed offset of a restart point (0, or the
// end of a full-flush marker) after which a linear scan finds the first
// record with time ≥ t.
//
// Invariants: a is 0 or a restart point whose first time line is < t; the
// first restart point at or after b is mb (or the end of the file), and
// its first time line is ≥ t or missing.
//
// If a jump finds, in the text it has already inflated, the first time
// line ≥ t after one < t, the reader is left positioned there and done is
// true.
func (r *Reader) bisectZlib(t uint64) (pos int64, done bool, err error) {
	size := r.sk.size
	a, b, mb := int64(0), size, size
	for b-a > 1 {
		c := a + (b-a)/2
		from := c
		for {
			m, found, err := r.sk.findMarker(from, b)
			if err != nil {
				return 0, false, err
			}
			if !found {
				b = c // the first restart point at or after c is mb
				break
			}
			tm, ok, valid := r.jumpZlib(m, mb)
			if !valid {
				from = m - 3 // a false marker: search on
				continue
			}
			if ok && tm < t {
				if r.scanBuffered(t) {
					return m, true, nil
				}
				a = m
			} else {
				b, mb = c, m
			}
			break
		}
	}
	return a, false, nil
}

// scanBuffered goes on like scanTo over the lines already in the buffer,
// reading nothing. It reports whether it found a time line ≥ t followed by
// a process line; that time line is left unread.
func (r *Reader) scanBuffered(t uint64) bool {
	for {
		if r.err != nil || bytes.IndexByte(r.buf[r.start:r.end], '\n') < 0 {
			return false
		}
		line, _, _ := r.readLine()
		if tm, ok := timeLine(line); ok {
			if tm < t {
				r.time = tm
				continue
			}
			rest := r.buf[r.start:r.end]
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				return false
			}
			if _, ok := processLine(rest[:i]); !ok {
				return false
			}
			r.start -= len(line) + 1
			r.line--
			return true
		}
		if p, ok := processLine(line); ok {
			r.proc = p
		}
	}
}

// jumpZlib inflates from the restart point m and returns the first time
// line after the first line feed. valid is false if the data after m does
// not inflate, so m was not a real flush marker.
func (r *Reader) jumpZlib(m, mb int64) (tm uint64, ok, valid bool) {
	tm, _, ok = r.jump(m, true, mb)
	if !ok && r.err != nil {
		var pe *ParseError
		if errors.As(r.err, &pe) && !errors.Is(pe.Err, ErrRange) && !errors.Is(pe.Err, ErrLimit) && !errors.Is(pe.Err, io.ErrUnexpectedEOF) {
			return 0, false, false
		}
	}
	return tm, ok, true
}

// findMarker returns the offset just after the first full-flush marker that
// starts in [from, limit), reading the bytes up to limit+3 in reads that
// grow from firstChunk.
func (sk *seeker) findMarker(from, limit int64) (int64, bool, error) {
	if sk.scr == nil {
		sk.scr = make([]byte, maxChunk)
	}
	end := min(limit+3, sk.size)
	chunk := int64(firstChunk)
	for from < limit && from+4 <= end {
		n := min(chunk, end-from)
		chunk = min(2*chunk, int64(len(sk.scr)))
		buf := sk.scr[:n]
		k, err := sk.ra.ReadAt(buf, from)
		sk.n += int64(k)
		if k < len(buf) {
			if err == nil || errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return 0, false, err
		}
		if i := bytes.Index(buf, zflush.Marker[:]); i >= 0 && from+int64(i) < limit {
			return from + int64(i) + 4, true, nil
		}
		if from+n >= end {
			break
		}
		from += n - 3 // a marker may straddle the two reads
	}
	return 0, false, nil
}

// SeekTime positions every stream of the reader at its first record with
// time ≥ t (but not before TraceReaderOptions.From) and merges them again,
// so that the next Next returns the first record of the merged sequence
// with time ≥ t. Past the end, Next returns false and Err returns nil. A
// previous error is cleared, and the record limit counts from the seek.
// The Record returned before the seek is no longer valid.
//
// It costs one [Reader.SeekTime] per stream (a bisection over byte
// offsets) and needs random access to every file, which a [Trace] has when
// its fs.FS opens files that implement io.ReaderAt and Stat (os.DirFS and
// fstest.MapFS do); otherwise it returns an error wrapping ErrNotSeekable.
// Readers of definitions and markers are not seekable.
func (tr *TraceReader) SeekTime(t uint64) error {
	if tr.closed {
		return fmt.Errorf("otf: SeekTime on a closed TraceReader")
	}
	if !tr.merged {
		return fmt.Errorf("%w: %v files have no time order", ErrNotSeekable, tr.opts.File)
	}
	t = max(t, tr.opts.From)
	for _, r := range tr.readers {
		if err := r.SeekTime(t); err != nil {
			return err
		}
	}
	tr.err = nil
	tr.n = 0
	tr.started = false
	tr.seekFrom = false // the seek replaces the window's own
	tr.hot = false      // the merge restarts: Next takes its general path once
	tr.rec = &tr.zero
	return nil
}

// BytesRead returns the number of bytes read from the files of the
// reader's streams (compressed bytes for zlib files).
func (tr *TraceReader) BytesRead() int64 {
	var n int64
	for _, r := range tr.readers {
		n += r.BytesRead()
	}
	return n
}
