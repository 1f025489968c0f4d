package otf

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"math"
	"math/bits"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/hpctrace/hpctrace/internal/mmapfs"
)

// A Stream is one line of the master file: a stream id and the processes
// whose records its files hold.
type Stream struct {
	ID        uint32
	Processes []uint32
}

// ReadMaster parses a master file (S.otf). Lines without ':' (and the
// IOFSL configuration line starting with 'i') are ignored. The streams
// are returned in file order.
func ReadMaster(r io.Reader) ([]Stream, error) {
	var streams []Stream
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 64<<20)
	ln := 0
	var off int64
	for sc.Scan() {
		line := sc.Bytes()
		ln++
		lineOff := off
		off += int64(len(line)) + 1
		line = bytes.Trim(line, " \t")
		if len(line) == 0 || line[0] == 'i' || bytes.IndexByte(line, ':') < 0 {
			continue
		}
		bad := func(err error) error {
			return &ParseError{Path: "master", Line: ln, Offset: lineOff, Record: int64(len(streams)), Err: err}
		}
		id, i, err := parseNum(line, 0, 32)
		if err != nil {
			return nil, bad(expected(err, "a stream id (a 32-bit hex number)", nil, line, i))
		}
		if i >= len(line) || line[i] != ':' {
			return nil, bad(expected(badChar(line, i), "':' after the stream id", nil, line, i))
		}
		i++
		s := Stream{ID: uint32(id)}
		for i < len(line) {
			var p uint64
			if p, i, err = parseNum(line, i, 32); err != nil {
				return nil, bad(expected(err, "a process (a 32-bit hex number)", nil, line, i))
			}
			s.Processes = append(s.Processes, uint32(p))
			if i < len(line) {
				if line[i] != ',' {
					return nil, bad(expected(badChar(line, i), "',' between processes", nil, line, i))
				}
				i++
			}
		}
		streams = append(streams, s)
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Path: "master", Line: ln + 1, Offset: off, Err: err}
	}
	return streams, nil
}

// AppendMaster appends the master file text for streams, sorted by stream
// id with each stream's processes sorted, as the reference writer does.
func AppendMaster(b []byte, streams []Stream) []byte {
	s := slices.Clone(streams)
	slices.SortFunc(s, func(a, b Stream) int { return cmp.Compare(a.ID, b.ID) })
	for _, st := range s {
		b = appendHex(b, uint64(st.ID))
		b = append(b, ':')
		procs := slices.Clone(st.Processes)
		slices.Sort(procs)
		for i, p := range procs {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendHex(b, uint64(p))
		}
		b = append(b, '\n')
	}
	return b
}

// A Trace is an OTF trace opened by [Open] or [OpenFS]: its name stub and
// the stream ↔ process mapping of the master file, read when it is opened.
// It opens the record files on demand, each for a reader that closes it. A
// Trace is safe for concurrent use by readers it creates.
type Trace struct {
	fsys fs.FS
	// Stub is the name stub: the master file's name without ".otf"
	// ("dir/trace" for "dir/trace.otf"), a path within the file system
	// the Trace reads.
	Stub string
	// Streams is the content of the master file, in file order.
	Streams []Stream

	closed atomic.Bool
}

// OpenOptions configures Open. A nil or zero value opens the files with
// os.Open.
type OpenOptions struct {
	// Mmap opens every record file as a read-only memory mapping
	// (golang.org/x/exp/mmap) instead of with os.Open. A reader seeks
	// through ReadAt, which is then a copy instead of a system call, so
	// that SeekTime and windows cost less; reading straight through gains
	// little.
	//
	// It is opt-in, for files no one writes while they are read: a file
	// truncated by another process while it is mapped makes the next
	// access to the lost pages crash the whole process (SIGBUS), which no
	// error can report. Each open file holds its mapping until the reader
	// that opened it is closed. OpenFS refuses it: the fs.FS given there
	// decides how its files are opened.
	Mmap bool
}

// Open opens the trace whose master file is the operating-system path
// name ("/data/run/trace.otf", "trace.otf", "..\\run\\trace"; a name
// without the ".otf" suffix is taken as the stub). It reads the master
// file; the record files beside it are opened from its directory on
// demand. Close the Trace when done.
func Open(name string, opts *OpenOptions) (*Trace, error) {
	dir, base := filepath.Split(name)
	if dir == "" {
		dir = "."
	}
	var fsys fs.FS
	if opts != nil && opts.Mmap {
		fsys = mmapfs.Dir(dir)
	} else {
		fsys = os.DirFS(dir)
	}
	return openFS(fsys, base)
}

// OpenFS opens the trace whose master file is name ("dir/trace.otf"; a
// name without the ".otf" suffix is taken as the stub) in fsys: traces in
// memory, archives, embedded files. The name is a slash-separated path
// within fsys in the sense of fs.ValidPath: for a file named by an
// operating-system path, absolute or with "..", use [Open]. The record
// files come from fsys too, on demand. opts may be nil; Mmap is refused.
// Close the Trace when done.
func OpenFS(fsys fs.FS, name string, opts *OpenOptions) (*Trace, error) {
	if fsys == nil {
		return nil, errors.New("otf: OpenFS: nil fs.FS")
	}
	if opts != nil && opts.Mmap {
		return nil, errors.New("otf: OpenFS: OpenOptions.Mmap applies to Open only (the fs.FS decides how its files are opened)")
	}
	return openFS(fsys, name)
}

func openFS(fsys fs.FS, name string) (*Trace, error) {
	stub := strings.TrimSuffix(name, ".otf")
	if !fs.ValidPath(stub + ".otf") {
		return nil, &fs.PathError{Op: "otf.OpenFS", Path: name,
			Err: fmt.Errorf("not a slash-separated path within the fs.FS (use Open for an operating-system path): %w", fs.ErrInvalid)}
	}
	data, err := fs.ReadFile(fsys, stub+".otf")
	if err != nil {
		return nil, err
	}
	streams, err := ReadMaster(bytes.NewReader(data))
	if err != nil {
		var pe *ParseError
		if errors.As(err, &pe) {
			pe.Path = stub + ".otf"
		}
		return nil, err
	}
	return &Trace{fsys: fsys, Stub: stub, Streams: streams}, nil
}

// Close closes the trace. The Trace holds no file open itself (its master
// file is read by Open, and each record file belongs to the reader that
// opened it, which closes it), so Close only makes the methods that would
// open a file fail with [ErrClosed]; readers made before keep working
// until they are closed. A second Close returns nil.
func (t *Trace) Close() error {
	t.closed.Store(true)
	return nil
}

// StreamOf returns the stream holding process's records.
func (t *Trace) StreamOf(process uint32) (uint32, bool) {
	for _, s := range t.Streams {
		if slices.Contains(s.Processes, process) {
			return s.ID, true
		}
	}
	return 0, false
}

// OpenFile opens stream id's file of type f: the plain file, or if that
// does not exist its ".z" form. It returns the file, its name and whether
// it is compressed; if neither exists, an error that names the master file
// and the stream and wraps fs.ErrNotExist.
func (t *Trace) OpenFile(id uint32, f FileType) (fs.File, string, bool, error) {
	name := FileName(t.Stub, id, f, false)
	if t.closed.Load() {
		return nil, name, false, ErrClosed
	}
	file, err := t.fsys.Open(name)
	if err == nil {
		return file, name, false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, name, false, err
	}
	zname := name + ".z"
	file, zerr := t.fsys.Open(zname)
	if zerr == nil {
		return file, zname, true, nil
	}
	return nil, name, false, fmt.Errorf("otf: %s.otf: stream %d: %w", t.Stub, id, err)
}

// OpenReader opens stream id's file of type f and returns a Reader of it
// (inflating a ".z" file). Close the Reader to close the file. opts may
// set Strict, MaxLine and StateRecords; Path, Stream, File and Zlib are
// filled in.
func (t *Trace) OpenReader(id uint32, f FileType, opts *ReaderOptions) (*Reader, error) {
	file, name, z, err := t.OpenFile(id, f)
	if err != nil {
		return nil, err
	}
	var o ReaderOptions
	if opts != nil {
		o = *opts
	}
	o.Path, o.Stream, o.File, o.Zlib = path.Base(name), id, f, z
	r, err := NewReader(file, &o)
	if err != nil {
		file.Close()
		return nil, err
	}
	r.file = file
	return r, nil
}

// Close closes the file opened by Trace.OpenReader; for a Reader made by
// NewReader it does nothing. Next returns false afterwards.
func (r *Reader) Close() error {
	r.closed = true
	if r.file != nil {
		f := r.file
		r.file = nil
		return f.Close()
	}
	return nil
}

// TraceReaderOptions configures a TraceReader. A nil or zero value reads
// all events of all processes.
type TraceReaderOptions struct {
	// File is the type of files to read; FileNone means FileEvents.
	File FileType
	// Processes selects the processes whose records are returned, by
	// their native tokens; nil means all. Streams without a selected process are not opened (so
	// their local definitions are not read either, as in the reference
	// reader); global definitions and markers are not filtered.
	Processes []uint32
	// From and To select records with From ≤ Time < To, in the native
	// unsigned times of the files (Record.Time; a ModelSource takes a
	// model.Window in its ModelOptions instead); To == 0 means no upper
	// bound. Definitions and markers are not filtered.
	//
	// A window seeks by itself, in either merge order: when From > 0,
	// the first Next (and the first after Reset) positions each stream
	// whose file allows random access at its first record with time ≥
	// From by the bisection of [Reader.SeekTime], so that reading the last 1 % of a trace reads
	// about 1 % of its bytes; other files are read from the start and
	// filtered. Each stream stops at its first record with time ≥ To. The
	// records are those of the filter alone, with one exception that
	// holds for either way of reading: records before the first time line
	// of a file, whose time is undefined (all-ones), are not in any window.
	From, To uint64
	// Limit stops the reader after that many records; 0 means no limit.
	Limit int64
	// Strict, MaxLine and StateRecords are passed to each stream's Reader
	// (see ReaderOptions).
	Strict       bool
	MaxLine      int
	StateRecords bool
	// ReferenceOrder merges the streams of events, snapshots and
	// summaries in the order of the reference reader, for tools that must
	// print what it prints (see TraceReader); it is slower.
	ReferenceOrder bool
}

// A TraceReader reads one type of file of every stream of a trace as one
// sequence. Definitions come stream by stream (stream 0, then the master
// file's order), markers from S.0.marker; events, snapshots and summaries
// are merged by time, with ties broken by process and then by position
// in the file, so the order is deterministic.
//
// With TraceReaderOptions.ReferenceOrder, records of equal time in
// different streams come in the order of the reference reader instead: it
// keeps the streams, ordered by id, in a binary heap on the time of their
// next line, and after each line it reads (a key-value line, a record, or
// a record of a process not selected) it sifts the stream of that line
// down the heap, past any child of equal time. Its order therefore
// depends on the key-value lines and on the records left out, not only on
// the times.
//
// A TraceReader is not safe for concurrent use.
type TraceReader struct {
	t        *Trace
	opts     TraceReaderOptions
	readers  []*Reader
	merged   bool
	filter   bool // Processes, From or To select records
	hot      bool // Next may take its common case (see there)
	cur      int
	seekFrom bool // the next start of the merge seeks to opts.From
	m        merger
	win      int // source of the current merged record
	sel      map[uint32]bool
	rec      *Record
	zero     Record
	n        int64
	err      error
	started  bool
	closed   bool
	nw       narrow // the one-word merge (narrow.go)
	noNarrow bool   // tests: never use nw
	ref      refMerge
}

// NewReader returns a TraceReader over the trace's files of type
// opts.File. It opens the files it needs: a missing definition, snapshot,
// statistics or marker file counts as empty; a missing events file of a
// selected stream is an error, as for the reference reader.
func (t *Trace) NewReader(opts *TraceReaderOptions) (*TraceReader, error) {
	if t.closed.Load() {
		return nil, ErrClosed
	}
	tr := &TraceReader{t: t}
	if opts != nil {
		tr.opts = *opts
		tr.opts.Processes = slices.Clone(opts.Processes)
	}
	if tr.opts.File == FileNone {
		tr.opts.File = FileEvents
	}
	ro := &ReaderOptions{Strict: tr.opts.Strict, MaxLine: tr.opts.MaxLine, StateRecords: tr.opts.StateRecords}
	open := func(id uint32, required bool) error {
		r, err := t.OpenReader(id, tr.opts.File, ro)
		if err != nil {
			if !required && errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		tr.readers = append(tr.readers, r)
		return nil
	}
	var err error
	if tr.opts.Processes != nil {
		tr.sel = make(map[uint32]bool, len(tr.opts.Processes))
		for _, p := range tr.opts.Processes {
			tr.sel[p] = true
		}
	}
	selected := func(s Stream) bool {
		return tr.sel == nil || slices.ContainsFunc(s.Processes, func(p uint32) bool { return tr.sel[p] })
	}
	switch tr.opts.File {
	case FileDef:
		if err = open(0, false); err != nil {
			break
		}
		for _, s := range t.Streams {
			if s.ID == 0 || !selected(s) {
				continue
			}
			if err = open(s.ID, false); err != nil {
				break
			}
		}
	case FileMarker:
		err = open(0, false)
	case FileEvents, FileSnaps, FileStats:
		tr.merged = true
		for _, s := range t.Streams {
			if !selected(s) {
				continue
			}
			if err = open(s.ID, tr.opts.File == FileEvents); err != nil {
				break
			}
		}
	default:
		err = fmt.Errorf("otf: TraceReaderOptions.File: unknown file type %d", tr.opts.File)
	}
	if err != nil {
		tr.Close()
		return nil, err
	}
	tr.filter = tr.sel != nil || tr.opts.From != 0 || tr.opts.To != 0
	tr.seekFrom = tr.merged && tr.opts.From > 0
	tr.rec = &tr.zero
	return tr, nil
}

// advance moves stream i to its next selected record.
func (tr *TraceReader) advance(i int) bool {
	r := tr.readers[i]
	for r.Next() {
		if tr.accept(i, &r.rec) {
			return true
		}
		if tr.m.Keys()[i].Done() {
			return false
		}
	}
	tr.end(i)
	return false
}

// end marks stream i exhausted, keeping its reader's error.
func (tr *TraceReader) end(i int) {
	if err := tr.readers[i].Err(); err != nil && tr.err == nil {
		tr.err = err
		tr.hot = false // Next's common case assumes no error
	}
	tr.m.Keys()[i] = doneKey
}

// accept sets stream i's merge key from rec and reports whether rec is
// selected; a record past To ends the stream (times never decrease
// within a file).
func (tr *TraceReader) accept(i int, rec *Record) bool {
	if rec.Time == unsetTime && (tr.opts.From != 0 || tr.opts.To != 0) {
		return false // before the file's first time line: in no window
	}
	if tr.opts.To != 0 && rec.Time >= tr.opts.To {
		tr.m.Keys()[i] = doneKey
		return false
	}
	if rec.Time < tr.opts.From || tr.sel != nil && !tr.sel[rec.Process] {
		return false
	}
	tr.m.Keys()[i] = makeKey(rec.Time, rec.Process, i)
	return true
}

// Next advances to the next record and reports whether there is one.
func (tr *TraceReader) Next() bool {
	if !tr.hot { // hot implies tr.err == nil (see end)
		return tr.next()
	}
	if !tr.nw.on {
		return tr.nextWide()
	}
	// The common case, kept small: the merge is running with no
	// selection and no limit, on one-word keys (narrow.go). tr.err ==
	// nil implies that the winner's reader has no error (end copies it),
	// and only Close, which clears hot, closes the readers; so the
	// reader's fast path needs no checks. The merge keys of the streams
	// are not kept in tr.m.Keys(), which the general path alone reads, but
	// only in the tree.
	nw := &tr.nw
	w := tr.win
	r := tr.readers[w]
	key := doneWord
	if r.fast && r.fastNext() || r.next() {
		if r.rec.Process != r.nlast.proc || r.rec.Time >= nw.tmax {
			if _, ok := tr.narrowLow(w, r.rec.Process, r.rec.Time); !ok {
				tr.widen()
				return tr.settle(tr.m.Push(w, makeKey(r.rec.Time, r.rec.Process, w)))
			}
		}
		key = r.rec.Time<<(nw.shift&63) | r.nlast.low // shift < 48 (narrowStart)
	} else {
		tr.end(w)
	}
	if key < nw.run {
		// A run of one stream: its next record still comes before
		// every other stream's head (see narrow.run), so the tree
		// stays as it is, and tr.rec is the winner's record already.
		nw.tree[0] = key
		tr.n++
		return true
	}
	tree := nw.tree
	for n := uint(w+tr.m.K()) >> 1; n > 0; n >>= 1 {
		// Without branches (the outcome is data-dependent and
		// mispredicts; the compiler makes a branch of min and max
		// here): the mask is all ones when t < key, and then swaps
		// them, so that the loser, the larger key, stays.
		t := tree[n]
		_, b := bits.Sub64(t, key, 0)
		d := (t ^ key) & -b
		tree[n] = t ^ d
		key ^= d
	}
	tree[0] = key
	if tr.err != nil || key == doneWord {
		return false
	}
	i := int(key & nw.srcMask)
	nw.run = 0
	if i == w {
		nw.run = nw.runnerUp(w + tr.m.K())
	}
	tr.win = i
	tr.rec = &tr.readers[i].rec
	tr.n++
	return true
}

// nextWide is the common case of Next on two-word keys.
func (tr *TraceReader) nextWide() bool {
	w := tr.win
	r := tr.readers[w]
	key := doneKey
	if r.fast && r.fastNext() || r.next() {
		key = makeKey(r.rec.Time, r.rec.Process, w)
	} else {
		tr.end(w)
	}
	return tr.settle(tr.m.Push(w, key))
}

// settle ends a merged Next whose winner has key.
func (tr *TraceReader) settle(key mergeKey) bool {
	if tr.err != nil || key.Done() {
		return false
	}
	i := key.Source()
	tr.win = i
	tr.rec = &tr.readers[i].rec
	tr.n++
	return true
}

// next is Next outside the common case of a running, unselective merge.
func (tr *TraceReader) next() bool {
	if tr.closed || tr.err != nil || tr.opts.Limit > 0 && tr.n >= tr.opts.Limit {
		return false
	}
	if tr.merged && tr.opts.ReferenceOrder {
		return tr.nextRef()
	}
	if tr.merged {
		if !tr.started {
			tr.started = true
			if tr.seekFrom {
				tr.seekFrom = false
				if err := tr.seekWindow(); err != nil {
					tr.err = err
					return false
				}
			}
			// advance reads a key that accept may have set, not Reset's.
			clear(tr.m.Reset(len(tr.readers)))
			for i := range tr.readers {
				tr.advance(i)
			}
			tr.m.Init()
			tr.hot = len(tr.readers) > 0 && !tr.filter && tr.opts.Limit <= 0
			if tr.hot {
				tr.narrowStart()
			}
		} else {
			w := tr.win
			r := tr.readers[w]
			// r.Next, with its fast path taken here to save a call.
			if !(r.fast && r.err == nil && !r.closed && r.fastNext() || r.next()) {
				tr.end(w)
			} else if !tr.filter {
				tr.m.Keys()[w] = makeKey(r.rec.Time, r.rec.Process, w)
			} else if !tr.accept(w, &r.rec) && !tr.m.Keys()[w].Done() {
				tr.advance(w) // a record outside the selection
			}
			tr.m.Replay(w)
		}
		if tr.err != nil || len(tr.readers) == 0 {
			return false
		}
		win := tr.m.Winner()
		if win.Done() {
			return false
		}
		i := win.Source()
		tr.win = i
		tr.rec = &tr.readers[i].rec
		tr.n++
		return true
	}
	for tr.cur < len(tr.readers) {
		r := tr.readers[tr.cur]
		if r.Next() {
			tr.rec = &r.rec
			tr.n++
			return true
		}
		if err := r.Err(); err != nil {
			tr.err = err
			return false
		}
		tr.cur++
	}
	return false
}

// unsetTime is the time of records before a file's first time line.
const unsetTime = ^uint64(0)

// seekWindow positions every stream that allows random access at its
// first record with time ≥ opts.From; the others stay at their start and
// are filtered by accept.
func (tr *TraceReader) seekWindow() error {
	for _, r := range tr.readers {
		if !r.Seekable() {
			continue
		}
		if err := r.SeekTime(tr.opts.From); err != nil {
			return err
		}
	}
	return nil
}

// Record returns the current record. The Record and the slices it holds
// are valid until the next call to Next, SeekTime, Reset or Close. Use
// [Record.Clone] to keep it.
func (tr *TraceReader) Record() *Record { return tr.rec }

// Err returns the first error met by Next, nil after a clean end.
func (tr *TraceReader) Err() error { return tr.err }

// All returns an iterator over the remaining records, yielding (rec, nil)
// for each and at most one final (nil, err). It returns a single-use
// iterator.
func (tr *TraceReader) All() iter.Seq2[*Record, error] {
	return func(yield func(*Record, error) bool) {
		for tr.Next() {
			if !yield(tr.rec, nil) {
				return
			}
		}
		if tr.err != nil {
			yield(nil, tr.err)
		}
	}
}

// Reset rewinds the reader to the start of the trace for another pass
// over the same files with the same options, keeping its buffers. A
// previous error is cleared, and the record limit counts from the
// rewind. The Record returned before is no longer valid.
//
// A file read through ReadAt (one whose fs.File implements io.ReaderAt
// and Stat, as those of os.DirFS and fstest.MapFS do) is simply read
// again from offset 0, another file that implements io.Seeker is seeked
// back to its start, and any other file is closed and opened again. In
// the first two cases a pass after Reset allocates nothing, for plain and
// compressed files alike, so that a trace can be read repeatedly without
// garbage.
//
// Reset on a closed reader returns an error. If a file cannot be
// rewound, Reset returns the error, which Err reports too.
func (tr *TraceReader) Reset() error {
	if tr.closed {
		return errors.New("otf: Reset on a closed TraceReader")
	}
	tr.err = nil
	for _, r := range tr.readers {
		if err := tr.rewind(r); err != nil {
			tr.err = err
			break
		}
	}
	tr.n = 0
	tr.cur = 0
	tr.win = 0
	tr.started = false
	tr.seekFrom = tr.merged && tr.opts.From > 0
	tr.hot = false // the merge restarts: Next takes its general path once
	tr.rec = &tr.zero
	return tr.err
}

// rewind makes r read its file from the start again.
func (tr *TraceReader) rewind(r *Reader) error {
	if r.sk != nil && r.sk.ra != nil {
		r.restart(0, false, maxChunk)
		r.sk.n = 0
		return r.err
	}
	if sk, ok := r.file.(io.Seeker); ok {
		if _, err := sk.Seek(0, io.SeekStart); err == nil {
			return r.Reset(r.file)
		}
	}
	file, name, z, err := tr.t.OpenFile(r.opts.Stream, tr.opts.File)
	if err != nil {
		return err
	}
	if r.file != nil {
		r.file.Close()
	}
	r.file = file
	r.opts.Path, r.opts.Zlib = path.Base(name), z
	return r.Reset(file)
}

// Close closes the files the reader opened.
func (tr *TraceReader) Close() error {
	var first error
	for _, r := range tr.readers {
		if err := r.Close(); err != nil && first == nil {
			first = err
		}
	}
	tr.readers = nil
	tr.closed = true
	tr.hot = false
	return first
}

// refMerge is the state of a merge in the reference reader's order (see
// TraceReader).
type refMerge struct {
	heap    []refEntry // a binary heap on time
	pending bool       // the record of heap[0] was returned and its stream must advance
}

// A refEntry is a stream in the heap of a refMerge, with the time of its
// next line kept beside it so that sifting reads no other slice.
type refEntry struct {
	time   uint64
	stream int // index in TraceReader.readers
	kv     int // key-value lines left before the stream's record
}

// nextRef is Next for TraceReaderOptions.ReferenceOrder.
func (tr *TraceReader) nextRef() bool {
	m := &tr.ref
	if !tr.started {
		tr.started = true
		if tr.seekFrom {
			tr.seekFrom = false
			if err := tr.seekWindow(); err != nil {
				tr.err = err
				return false
			}
		}
		m.heap = slices.Grow(m.heap[:0], len(tr.readers)+1)
		for i := range tr.readers {
			m.heap = append(m.heap, refEntry{stream: i})
		}
		slices.SortStableFunc(m.heap, func(a, b refEntry) int {
			return cmp.Compare(tr.readers[a.stream].opts.Stream, tr.readers[b.stream].opts.Stream)
		})
		// Empty streams leave the heap as in the reference: the last one
		// takes their place.
		for i := 0; i < len(m.heap); {
			if tr.loadRef(&m.heap[i]) {
				i++
				continue
			}
			m.heap[i] = m.heap[len(m.heap)-1]
			m.heap = m.heap[:len(m.heap)-1]
		}
		m.setSentinel()
		for i := (len(m.heap) - 1) / 2; i >= 0 && len(m.heap) > 0; i-- {
			m.sift(i)
		}
		m.pending = false
	}
	to := tr.opts.To
	for tr.err == nil {
		if m.pending {
			m.pending = false
			top := &m.heap[0]
			r := tr.readers[top.stream]
			// loadRef, with r.Next's fast path taken here to save two
			// calls: the stream has no error (loadRef would have ended
			// the merge) and is open (Close ends it too).
			if r.fast && r.fastNext() && r.rec.Time >= tr.opts.From &&
				(r.rec.Time != unsetTime || tr.opts.From == 0 && tr.opts.To == 0) {
				top.time = r.rec.Time
				top.kv = len(r.rec.kvs)
			} else if !tr.loadRef(top) {
				m.drop()
			}
			m.sift(0)
		}
		if tr.err != nil || len(m.heap) == 0 {
			break
		}
		top := &m.heap[0]
		switch {
		case to != 0 && top.time >= to:
			m.drop()
			m.sift(0)
			continue
		case top.kv > 0:
			top.kv--
			m.sift(0)
			continue
		}
		m.pending = true
		rec := &tr.readers[top.stream].rec
		if tr.sel != nil && !tr.sel[rec.Process] {
			continue
		}
		tr.win = top.stream
		tr.rec = rec
		tr.n++
		return true
	}
	return false
}

// loadRef reads the next record of stream e.stream at or after From into
// e and reports whether there is one.
func (tr *TraceReader) loadRef(e *refEntry) bool {
	r := tr.readers[e.stream]
	window := tr.opts.From != 0 || tr.opts.To != 0
	for r.Next() {
		if r.rec.Time < tr.opts.From || window && r.rec.Time == unsetTime {
			continue // outside the window, or before the first time line
		}
		e.time = r.rec.Time
		e.kv = len(r.rec.kvs)
		return true
	}
	if err := r.Err(); err != nil && tr.err == nil {
		tr.err = err
	}
	return false
}

// drop removes the top of the heap, moving the last stream there.
func (m *refMerge) drop() {
	n := len(m.heap) - 1
	m.heap[0] = m.heap[n]
	m.heap = m.heap[:n]
	m.setSentinel()
}

// sift moves the stream at v down the heap as the reference does: below
// its earlier child unless it is strictly earlier, so that of streams of
// equal time the one just read goes down.
//
// It does so bottom-up: the earlier children from v down to a leaf move
// up one level, and then the stream climbs back above those of them that
// are later than it. The times on that path do not decrease downwards,
// so it ends where the reference's sift ends; but a stream that has just
// read a line most often goes to the bottom, and then the comparisons
// with it, which a branch predictor cannot guess, are one instead of one
// per level. The earlier child is chosen without a branch, the entry
// past the heap being a sentinel that is never earlier (see setSentinel).
func (m *refMerge) sift(v int) {
	h := m.heap
	n := len(h)
	if v >= n {
		return
	}
	h = h[:n+1]
	x := h[v]
	top := v
	for {
		w := 2*v + 1
		if w >= n {
			break
		}
		_, right := bits.Sub64(h[w+1].time, h[w].time, 0) // 1 if the right child is earlier
		w += int(right)
		h[v] = h[w]
		v = w
	}
	for v > top {
		up := (v - 1) / 2
		if h[up].time <= x.time {
			break
		}
		h[v] = h[up]
		v = up
	}
	h[v] = x
}

// setSentinel writes the entry past the heap that sift reads as the right
// child of the last stream with only a left one: a time no stream's is
// above, and equal is not earlier.
func (m *refMerge) setSentinel() {
	m.heap[:len(m.heap)+1][len(m.heap)] = refEntry{time: math.MaxUint64}
}
