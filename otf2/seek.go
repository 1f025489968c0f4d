package otf2

import (
	"errors"
	"fmt"
	"io"
)

// chunkStart reads the header of chunk k and, for k > 0, the TIMESTAMP
// record writers put right after it. ok is false if the chunk does not
// start with one.
func (r *EventReader) chunkStart(ra io.ReaderAt, k int64) (first, raw uint64, ok bool, err error) {
	var b [chunkHeaderSize + 9]byte
	n, err := ra.ReadAt(b[:], k*r.opts.ChunkSize)
	if n < chunkHeaderSize {
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return 0, 0, false, err
	}
	var ch chunks
	ch.buf = b[:n]
	if err := ch.header(); err != nil {
		return 0, 0, false, err
	}
	if n < len(b) || b[chunkHeaderSize] != bTimestamp {
		return ch.first, 0, false, nil
	}
	c := cursor{b: b[chunkHeaderSize+1:], be: ch.be}
	return ch.first, c.u64(), true, nil
}

func (r *EventReader) seekable() (io.ReaderAt, int64, error) {
	ra, ok := r.src.(io.ReaderAt)
	if !ok {
		return nil, 0, errors.New("otf2: seeking needs an io.ReaderAt source")
	}
	size := r.opts.Size
	if size <= 0 {
		s, ok := r.src.(io.Seeker)
		if !ok {
			return nil, 0, errors.New("otf2: seeking needs the file size (EventReaderOptions.Size)")
		}
		n, err := s.Seek(0, io.SeekEnd)
		if err != nil {
			return nil, 0, err
		}
		size = n
	}
	return ra, size, nil
}

// startAt positions the reader at the start of chunk k, whose first event
// has number first.
func (r *EventReader) startAt(ra io.ReaderAt, size, k int64, first uint64) {
	off := k * r.opts.ChunkSize
	r.ch.reset(io.NewSectionReader(ra, off, size-off), r.opts.ChunkSize)
	r.ch.at(off)
	r.ch.limit = size
	r.c = cursor{}
	r.time = 0
	r.n = first - 1
	if k == 0 {
		r.n = 0
	}
	r.err, r.done, r.hold = nil, false, false
	r.clk.i = 0
}

// SeekTime positions the reader so that the next Next yields the first
// event whose clock-corrected time is ≥ t, in file order; past the end,
// Next returns false and Err nil.
//
// Cost: a check that the time stamps the chunks after the first start
// with do not decrease (one 27-byte read per chunk), a binary search over
// the chunks by those time stamps (about log2(chunks) of the same reads),
// then the decoding of the events before t in the chunk found (at most one
// chunk, plus the following ones while their events are before t). If the
// chunks' start times decrease (clock offsets that correct time backwards,
// or a damaged file), the bisection would be wrong, and SeekTime decodes
// the events from the first chunk instead.
//
// The events before the position are all before t when the location's
// clock-corrected times do not decrease, as OTF2 requires (and libotf2's
// writer ensures for the raw times); when they decrease inside a chunk,
// an event at t or later in a chunk before the one found is skipped.
//
// The source must be an io.ReaderAt (an *os.File, a *bytes.Reader, the
// files of an Archive); the size comes from EventReaderOptions.Size or
// io.Seeker. The reader an Archive opens for a location without an event
// file has no event, and its seeks do nothing.
func (r *EventReader) SeekTime(t uint64) error {
	if r.empty {
		return nil // a location without an event file: no event to seek to
	}
	ra, size, err := r.seekable()
	if err != nil {
		return err
	}
	chunks := (size + r.opts.ChunkSize - 1) / r.opts.ChunkSize
	ascend, err := r.chunkTimesAscend(ra, chunks)
	if err != nil {
		return err
	}
	if !ascend {
		chunks = 1 // no bisection: decode from the first chunk
	}
	// largest k with start time < t (chunk 0 always qualifies)
	lo, hi := int64(0), chunks
	var firstLo uint64 = 1
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		first, raw, ok, err := r.chunkStart(ra, mid)
		if err != nil {
			return &ParseError{Path: r.opts.Path, Offset: mid * r.opts.ChunkSize, Err: err}
		}
		if ok && r.clk.correct(raw) < t {
			lo, firstLo = mid, first
		} else {
			hi = mid
		}
	}
	r.startAt(ra, size, lo, firstLo)
	for r.Next() {
		if r.ev.Time >= t {
			r.hold = true
			return nil
		}
	}
	return r.err
}

// chunkTimesAscend reports whether the clock-corrected time stamps the
// chunks after the first start with do not decrease.
func (r *EventReader) chunkTimesAscend(ra io.ReaderAt, chunks int64) (bool, error) {
	var prev uint64
	for k := int64(1); k < chunks; k++ {
		_, raw, ok, err := r.chunkStart(ra, k)
		if err != nil {
			return false, &ParseError{Path: r.opts.Path, Offset: k * r.opts.ChunkSize, Err: err}
		}
		if !ok {
			continue
		}
		tm := r.clk.correct(raw)
		if tm < prev {
			return false, nil
		}
		prev = tm
	}
	return true, nil
}

// SeekEvent positions the reader so that the next Next yields the event
// with 1-based number n (Event.Number); past the end, Next returns false.
// Cost: a binary search over the chunk headers' event numbers, then the
// decoding of the events before n in their chunk.
func (r *EventReader) SeekEvent(n uint64) error {
	if r.empty {
		return nil // a location without an event file: no event to seek to
	}
	ra, size, err := r.seekable()
	if err != nil {
		return err
	}
	chunks := (size + r.opts.ChunkSize - 1) / r.opts.ChunkSize
	lo, hi := int64(0), chunks
	var firstLo uint64 = 1
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		first, _, _, err := r.chunkStart(ra, mid)
		if err != nil {
			return &ParseError{Path: r.opts.Path, Offset: mid * r.opts.ChunkSize, Err: fmt.Errorf("chunk header: %w", err)}
		}
		if first <= n {
			lo, firstLo = mid, first
		} else {
			hi = mid
		}
	}
	r.startAt(ra, size, lo, firstLo)
	for r.Next() {
		if r.ev.Number >= n {
			r.hold = true
			return nil
		}
	}
	return r.err
}
