package otf

import (
	"errors"
	"fmt"
	"io"

	"github.com/hpctrace/hpctrace/internal/zflush"
)

// WriterOptions configures a Writer. A nil or zero value means defaults:
// short format, no compression.
type WriterOptions struct {
	// Long selects the long format (ENTER 1 SCL 32) instead of the short
	// one (E1X32).
	Long bool
	// Zlib compresses the output as the reference writer does: a zlib
	// stream of full-flush blocks that is never finished.
	Zlib bool
	// ZlibLevel is the compress/flate level; 0 means 6.
	ZlibLevel int
	// ZlibBlockSize is the amount of text per full-flush block; 0 means
	// 1 MiB, the reference default.
	ZlibBlockSize int
	// File is the type of file written. It only matters for KindUnknown
	// records: in an events, snapshot or statistics file they get state
	// lines for their Time and Process like any other record (unless both
	// are all-ones, "undefined"). The TraceWriter sets it.
	File FileType
	// StateRecords makes the Writer write the state lines it is given, as
	// the KindTime and KindProcess records a Reader returns with
	// ReaderOptions.StateRecords, where they come and nowhere else: it
	// writes no state lines of its own, checks no time order and writes no
	// closing state lines. A file read with state records and written back
	// with them keeps the state lines of whatever wrote it (a writer that
	// repeats them, omits the closing ones, or starts a file with a
	// process line).
	StateRecords bool
}

// A Writer writes the records of one OTF record file. It writes the state
// lines (time and process) of event, snapshot and summary records the way
// the reference writer does, so a file from the reference writer read and
// written back is byte for byte the same; with WriterOptions.StateRecords
// it writes the state lines it is given instead, for files from other
// writers.
//
// A Writer is not safe for concurrent use.
type Writer struct {
	out    io.Writer
	z      *zflush.Writer
	long   bool
	buf    []byte
	time   uint64
	proc   uint32
	stated bool // a process line was written
	n      int64
	err    error
	closed bool
	file   FileType
	given  bool // WriterOptions.StateRecords
}

const writeBufSize = 64 << 10

// NewWriter returns a Writer to w. It writes nothing until the first record.
func NewWriter(w io.Writer, opts *WriterOptions) (*Writer, error) {
	var o WriterOptions
	if opts != nil {
		o = *opts
	}
	wr := &Writer{out: w, long: o.Long, buf: make([]byte, 0, writeBufSize), file: o.File, given: o.StateRecords}
	if o.Zlib {
		z, err := zflush.NewWriter(w, o.ZlibLevel, o.ZlibBlockSize)
		if err != nil {
			return nil, err
		}
		wr.z = z
		wr.out = z
	}
	return wr, nil
}

// Write writes rec: for event, snapshot and summary records the state
// lines its Time and Process need, then its key-value lines, then the
// record line. Definitions and markers ignore the state (a MarkerSpot
// carries its own time). KindTime and KindProcess records write nothing:
// the writer makes its own state lines (unless WriterOptions.StateRecords
// is set: then they are the state lines). A record that cannot be encoded
// (a time earlier than the previous one of the file, a 32-bit field out of
// range, a line feed in an unknown record's text) is rejected before any
// byte is written, with an error wrapping ErrRange or ErrTimeOrder. Write
// does not retain rec.
func (w *Writer) Write(rec *Record) error {
	if w.closed {
		return ErrClosed
	}
	if w.err != nil {
		return w.err
	}
	switch rec.Kind {
	case KindTime, KindProcess:
		if w.given {
			return w.writeState(rec)
		}
		return nil
	case KindKeyValue, KindStreamMap:
		return fmt.Errorf("otf: record %d: kind %v is not a record line: %w", w.n, rec.Kind, ErrRange)
	}
	if field, ok := checkRecord(rec); !ok {
		return fmt.Errorf("otf: record %d: %v %s: %w", w.n, rec.Kind, field, ErrRange)
	}
	b := w.buf
	useState := rec.Kind != KindUnknown && rec.Kind.usesState()
	if rec.Kind == KindUnknown {
		switch w.file {
		case FileEvents, FileSnaps, FileStats:
			useState = rec.Time != ^uint64(0) || rec.Process != ^uint32(0)
		}
	}
	if useState && !w.given {
		t, p := rec.Time, rec.Process
		if t < w.time {
			return fmt.Errorf("otf: record %d: time %d after %d: %w", w.n, t, w.time, ErrTimeOrder)
		}
		switch {
		case t == w.time && t > 0 && w.stated && p == w.proc:
		case t == w.time && t > 0 && w.stated:
			b = append(b, '*')
			b = appendHex(b, uint64(p))
			b = append(b, '\n')
		default:
			b = appendHex(b, t)
			b = append(b, '\n', '*')
			b = appendHex(b, uint64(p))
			b = append(b, '\n')
		}
		w.time, w.proc, w.stated = t, p, true
	}
	for i := range rec.kvs {
		b = appendKeyValue(b, &rec.kvs[i], w.long)
		b = append(b, '\n')
	}
	b = appendBody(b, rec, w.long)
	b = append(b, '\n')
	w.buf = b
	w.n++
	if len(w.buf) >= writeBufSize {
		return w.flushBuf()
	}
	return nil
}

func (w *Writer) flushBuf() error {
	if len(w.buf) == 0 {
		return nil
	}
	_, err := w.out.Write(w.buf)
	w.buf = w.buf[:0]
	if err != nil {
		w.err = err
	}
	return err
}

// Flush writes the buffered text to the underlying writer (for zlib: ends
// the current block with a full flush).
func (w *Writer) Flush() error {
	if w.closed {
		return ErrClosed
	}
	if err := w.flushBuf(); err != nil {
		return err
	}
	if w.z != nil {
		if err := w.z.Flush(); err != nil {
			w.err = err
			return err
		}
	}
	return w.err
}

// writeState writes the state line of a KindTime or KindProcess record.
func (w *Writer) writeState(rec *Record) error {
	if rec.Kind == KindTime {
		w.buf = appendHex(w.buf, rec.Time)
		w.time = rec.Time
	} else {
		w.buf = append(w.buf, '*')
		w.buf = appendHex(w.buf, uint64(rec.Process))
		w.proc = rec.Process
	}
	w.buf = append(w.buf, '\n')
	w.n++
	if len(w.buf) >= writeBufSize {
		return w.flushBuf()
	}
	return nil
}

// Close writes the closing state lines (the current time and process once
// more, as the reference writer does for files with state lines) and
// flushes. It does not close the underlying writer: the caller owns it,
// and the file under it. A second Close returns nil.
//
// If Close, or a Write or Flush before it, fails, the underlying writer
// holds what was flushed before the failure, possibly ending in part of
// a line or of a zlib block; the caller should not keep it as a record
// file (see [TraceWriter.Close] for whole traces).
func (w *Writer) Close() error {
	if w.closed {
		return nil
	}
	if w.err == nil && w.stated && !w.given {
		w.buf = appendHex(w.buf, w.time)
		w.buf = append(w.buf, '\n', '*')
		w.buf = appendHex(w.buf, uint64(w.proc))
		w.buf = append(w.buf, '\n')
	}
	err := w.Flush()
	w.closed = true
	if err != nil && !errors.Is(err, ErrClosed) {
		return err
	}
	return nil
}
