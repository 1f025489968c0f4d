package otf

import (
	"io"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/hpctrace/hpctrace/model"
)

// countFS counts the bytes read from the files it opens, through Read and
// ReadAt alike; if noRandom is set its files hide ReadAt, so a reader
// cannot seek in them and a time window is only a filter.
type countFS struct {
	fsys     fstest.MapFS
	n        int64
	noRandom bool
}

func (c *countFS) Open(name string) (fs.File, error) {
	f, err := c.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	if c.noRandom {
		return &seqFile{f: f, n: &c.n}, nil
	}
	return &countFile{seqFile{f: f, n: &c.n}}, nil
}

type seqFile struct {
	f fs.File
	n *int64
}

func (s *seqFile) Read(p []byte) (int, error) {
	k, err := s.f.Read(p)
	*s.n += int64(k)
	return k, err
}
func (s *seqFile) Stat() (fs.FileInfo, error) { return s.f.Stat() }
func (s *seqFile) Close() error               { return s.f.Close() }

type countFile struct{ seqFile }

func (c *countFile) ReadAt(p []byte, off int64) (int, error) {
	k, err := c.f.(io.ReaderAt).ReadAt(p, off)
	*c.n += int64(k)
	return k, err
}

// windowTrace writes a trace of 4 streams, 8 processes and n events
// (zlib-compressed in 8 KiB blocks if zlib) and returns it with the time
// range of its events.
func windowTrace(t *testing.T, n int, zlib bool) (fstest.MapFS, uint64, uint64) {
	t.Helper()
	fsys := fstest.MapFS{}
	c := model.CreateFunc(func(name string) (io.WriteCloser, error) {
		return &mapFile{name: name, fs: fsys}, nil
	})
	w, err := NewTraceWriter(c, &TraceWriterOptions{Stub: "w", WriterOptions: WriterOptions{Zlib: zlib, ZlibBlockSize: 8 << 10}, MaxStreams: 4})
	if err != nil {
		t.Fatal(err)
	}
	var rec Record
	tm := uint64(1000)
	first := tm
	for i := 0; i < n; i++ {
		p := uint32(i%8) + 1
		rec.Process = p
		if i%3 != 0 {
			tm += uint64(i % 7) // some times repeat
		}
		rec.Time = tm
		if i/8%2 == 0 {
			rec.SetEnter(Enter{Function: uint32(i % 5)})
		} else {
			rec.SetLeave(Leave{Function: uint32(i % 5)})
		}
		if err := w.Write(&rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return fsys, first, tm
}

// windowRead reads the events of fsys in opts's window, returning the
// records as text and the bytes read from the files.
func windowRead(t *testing.T, fsys fstest.MapFS, noRandom bool, opts *TraceReaderOptions) ([]string, int64) {
	t.Helper()
	cfs := &countFS{fsys: fsys, noRandom: noRandom}
	tc, err := OpenFS(cfs, "w.otf", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfs.n = 0
	tr, err := tc.NewReader(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	var out []string
	for rec, err := range tr.All() {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rec.String())
	}
	return out, cfs.n
}

// TestWindowSeeks checks that a time window reads only about the bytes of
// the window, and that its records are those of the same window read
// from files without random access, where it can only filter.
func TestWindowSeeks(t *testing.T) {
	for _, zlib := range []bool{false, true} {
		fsys, first, last := windowTrace(t, 400_000, zlib)
		var size int64
		for name, f := range fsys {
			if strings.Contains(name, ".events") {
				size += int64(len(f.Data))
			}
		}
		span := last - first
		for _, tc := range []struct {
			name     string
			opts     TraceReaderOptions
			maxShare float64 // of the events files' size, read at most
		}{
			{"last 1%", TraceReaderOptions{From: last - span/100}, 0.05},
			{"1% in the middle", TraceReaderOptions{From: first + span/2, To: first + span/2 + span/100}, 0.05},
			{"last 10% of two processes", TraceReaderOptions{From: last - span/10, Processes: []uint32{2, 7}}, 0.10},
			{"from before the start", TraceReaderOptions{From: 1, To: first + span/100}, 0.05},
			{"past the end", TraceReaderOptions{From: last + 1}, 0.05},
		} {
			for _, ref := range []bool{false, true} {
				tc.opts.ReferenceOrder = ref
				want, all := windowRead(t, fsys, true, &tc.opts)
				got, n := windowRead(t, fsys, false, &tc.opts)
				t.Logf("zlib %v, reference order %v, %s: %d records, %d of %d bytes read (filter alone: %d)", zlib, ref, tc.name, len(got), n, size, all)
				if !slices.Equal(got, want) {
					t.Errorf("zlib %v, reference order %v, %s: %d records, want the filter's %d", zlib, ref, tc.name, len(got), len(want))
				}
				if tc.name != "past the end" && len(want) == 0 {
					t.Errorf("zlib %v, reference order %v, %s: empty window", zlib, ref, tc.name)
				}
				limit := tc.maxShare
				if zlib {
					// A compressed seek has a fixed cost of a few 8 KiB
					// blocks and marker searches per bisection step (about
					// 90 KiB per stream here), large beside these 330 KiB
					// streams, and a window ends inside a block of up to 64 KiB
					// read; the cost grows with the logarithm of the size.
					limit = 0.4
				}
				if float64(n) > limit*float64(size) {
					t.Errorf("zlib %v, reference order %v, %s: read %d of %d bytes; want at most %.0f %%", zlib, ref, tc.name, n, size, 100*limit)
				}
			}
		}
	}
}

// TestWindowReset checks that Reset seeks to the window again and that
// SeekTime replaces the window's own seek.
func TestWindowReset(t *testing.T) {
	fsys, first, last := windowTrace(t, 100_000, false)
	from := last - (last-first)/100
	want, _ := windowRead(t, fsys, true, &TraceReaderOptions{From: from})
	later, _ := windowRead(t, fsys, true, &TraceReaderOptions{From: from + (last-from)/2})
	cfs := &countFS{fsys: fsys}
	tc, err := OpenFS(cfs, "w.otf", nil)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := tc.NewReader(&TraceReaderOptions{From: from})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	read := func() []string {
		var out []string
		for rec, err := range tr.All() {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, rec.String())
		}
		return out
	}
	for pass := range 2 {
		cfs.n = 0
		if got := read(); !slices.Equal(got, want) {
			t.Fatalf("pass %d: %d records, want %d", pass, len(got), len(want))
		}
		if cfs.n > 200<<10 {
			t.Errorf("pass %d: read %d bytes", pass, cfs.n)
		}
		if err := tr.Reset(); err != nil {
			t.Fatal(err)
		}
	}
	if err := tr.SeekTime(from + (last-from)/2); err != nil {
		t.Fatal(err)
	}
	if got := read(); !slices.Equal(got, later) {
		t.Fatalf("after SeekTime: %d records, want %d", len(got), len(later))
	}
	if err := tr.SeekTime(0); err != nil { // before From: the window's start
		t.Fatal(err)
	}
	if got := read(); !slices.Equal(got, want) {
		t.Fatalf("after SeekTime(0): %d records, want %d", len(got), len(want))
	}
}

// TestWindowModelSource: a ModelSource with a window yields the events of
// the whole trace's source in the window, every Leave of function 0
// resolved to the same region, on a trace whose Leaves of function 0 and
// of other functions do not nest.
func TestWindowModelSource(t *testing.T) {
	fsys, first, last := windowTrace(t, 100_000, false)
	read := func(o *ModelOptions) []model.Event {
		tc, err := OpenFS(fsys, "w.otf", nil)
		if err != nil {
			t.Fatal(err)
		}
		src, err := NewModelSource(tc, o)
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		var evs []model.Event
		for ev, err := range src.All() {
			if err != nil {
				t.Fatal(err)
			}
			evs = append(evs, *ev)
		}
		return evs
	}
	all := read(nil)
	span := last - first
	for _, o := range []TraceReaderOptions{
		{From: first + span/3, To: first + span/2},
		{From: last - span/100},
		{From: first + 1, To: first + 100},
	} {
		got := read(windowFrom(o.From, o.To))
		var want []model.Event
		for _, ev := range all {
			if uint64(ev.Time) >= o.From && (o.To == 0 || uint64(ev.Time) < o.To) {
				want = append(want, ev)
			}
		}
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("window [%d, %d): %d events, want the filter's %d", o.From, o.To, len(got), len(want))
		}
	}
}

// windowFrom returns the options of a model source with the window
// [from, to).
func windowFrom(from, to uint64) *ModelOptions {
	return &ModelOptions{Selection: model.Selection{Window: &model.Window{From: model.Time(from), To: model.Time(to)}}}
}

// TestWindowModelSourceCrossedLeave: a Leave of a function entered before
// the window closes the functions entered in the window too, so a later
// Leave of function 0 leaves none of them: the window's source resolves
// it as the whole trace's does.
func TestWindowModelSourceCrossedLeave(t *testing.T) {
	fsys := fstest.MapFS{}
	c := model.CreateFunc(func(name string) (io.WriteCloser, error) { return &mapFile{name: name, fs: fsys}, nil })
	w, err := NewTraceWriter(c, &TraceWriterOptions{Stub: "x"})
	if err != nil {
		t.Fatal(err)
	}
	var rec Record
	for f := uint32(1); f <= 4; f++ {
		rec.SetDefFunction(DefFunction{Function: f, Name: []byte{'f', byte('0' + f)}})
		if err := w.Write(&rec); err != nil {
			t.Fatal(err)
		}
	}
	rec = Record{Process: 1}
	for i, step := range []struct {
		enter bool
		f     uint32
	}{{true, 1}, {true, 2}, {true, 3}, {false, 1}, {false, 0}, {true, 4}, {false, 0}} {
		rec.Time = uint64(i + 1)
		if step.enter {
			rec.SetEnter(Enter{Function: step.f})
		} else {
			rec.SetLeave(Leave{Function: step.f})
		}
		if err := w.Write(&rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	read := func(from uint64) []model.Event {
		tc, err := OpenFS(fsys, "x.otf", nil)
		if err != nil {
			t.Fatal(err)
		}
		src, err := NewModelSource(tc, windowFrom(from, 0))
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		var evs []model.Event
		for ev, err := range src.All() {
			if err != nil {
				t.Fatal(err)
			}
			evs = append(evs, *ev)
		}
		return evs
	}
	all := read(0)
	for from := uint64(2); from <= 5; from++ {
		if got, want := read(from), all[from-1:]; !slices.Equal(got, want) {
			t.Errorf("From %d: %v, want %v", from, got, want)
		}
	}
}
