package picl

import (
	"io"
	"io/fs"
	"slices"

	"github.com/hpctrace/hpctrace/internal/textscan"
)

// fileRelativeTo returns -1 and the event types that the statistics
// records of the file r opened are relative to, ascending, reading the
// file once more through an io.ReaderAt, so that r's position is not
// moved. Only records with at least one complete pair count, as only they
// add to Defs().Recorded. The pass reads the statistics records and the
// records that define how others are read (descriptors and subsets) with
// r's options, and skips the others unparsed; it stops at the first of
// those lines that the reader refuses, keeping what it found before (the
// read of the events fails there too). ok is false when
// r was not opened by Open or OpenFS, has already read, or its file offers
// no io.ReaderAt and size.
func fileRelativeTo(r *Reader) (rel []int64, ok bool) {
	if r.n != 0 || r.err != nil || r.done || r.closed {
		return nil, false
	}
	ra, isRA := r.file.(io.ReaderAt)
	st, isStat := r.file.(interface{ Stat() (fs.FileInfo, error) })
	if !isRA || !isStat {
		return nil, false
	}
	info, err := st.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return nil, false
	}
	f := &statLines{sc: textscan.NewScanner(io.NewSectionReader(ra, 0, info.Size()), r.opts.MaxLine)}
	sub, err := NewReader(f, &r.opts)
	if err != nil {
		return nil, false
	}
	rel = []int64{-1}
	for sub.Next() {
		rec := sub.Record()
		if !rec.Type.IsStatistics() || slices.Contains(rel, int64(rec.Event)) {
			continue
		}
		for range rec.Stats() {
			rel = append(rel, int64(rec.Event))
			break
		}
	}
	slices.Sort(rel)
	return rel, true
}

// statLines is an io.Reader of the lines of a PICL file that hold
// statistics records or define the scope in which others are read: the
// lines whose first field is such a record type.
type statLines struct {
	sc  *textscan.Scanner
	buf []byte
	off int
}

func (f *statLines) Read(p []byte) (int, error) {
	for f.off == len(f.buf) {
		if !f.sc.Scan() {
			if err := f.sc.Err(); err != nil {
				return 0, err
			}
			return 0, io.EOF
		}
		line := f.sc.Bytes()
		_, v, _, err := textscan.IntField(line, 64)
		if err != nil {
			continue
		}
		if t := RecordType(v); v == int64(t) && (t.IsStatistics() || definesScope(t)) {
			f.buf = append(append(f.buf[:0], line...), '\n')
			f.off = 0
		}
	}
	n := copy(p, f.buf[f.off:])
	f.off += n
	return n, nil
}
