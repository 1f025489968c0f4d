package otf

import (
	"errors"
	"io"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace/model"
)

// openCloseFS counts the opens and closes of each file of an fs.FS, and
// passes ReadAt through so that readers seek in its files.
type openCloseFS struct {
	fsys   fs.FS
	opens  map[string]int
	closes map[string]int
}

func newOpenCloseFS(fsys fs.FS) *openCloseFS {
	return &openCloseFS{fsys: fsys, opens: map[string]int{}, closes: map[string]int{}}
}

func (c *openCloseFS) Open(name string) (fs.File, error) {
	f, err := c.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	c.opens[name]++
	return &closeCountFile{File: f, name: name, c: c}, nil
}

type closeCountFile struct {
	fs.File
	name string
	c    *openCloseFS
}

func (f *closeCountFile) ReadAt(p []byte, off int64) (int, error) {
	return f.File.(io.ReaderAt).ReadAt(p, off)
}

func (f *closeCountFile) Close() error {
	f.c.closes[f.name]++
	return f.File.Close()
}

// check fails unless every file opened was closed exactly once per open.
func (c *openCloseFS) check(t *testing.T) {
	t.Helper()
	if len(c.opens) == 0 {
		t.Fatal("no file opened")
	}
	for name, n := range c.opens {
		if c.closes[name] != n {
			t.Errorf("%s: opened %d times, closed %d", name, n, c.closes[name])
		}
	}
	for name := range c.closes {
		if c.opens[name] == 0 {
			t.Errorf("%s: closed, never opened", name)
		}
	}
}

// events reads every event of a source made with opts.
// A marker's Text is replaced by the index of its text in texts.
func events(t *testing.T, fsys fs.FS, name string, opts *ModelOptions) (evs []model.Event, defs *model.Defs, texts []string) {
	t.Helper()
	tr, err := OpenFS(fsys, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	src, err := NewModelSource(tr, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	for ev, err := range src.All() {
		if err != nil {
			t.Fatal(err)
		}
		e := *ev
		if e.Kind == model.KindMarker {
			// String ids follow the order of the texts read: compare
			// the texts.
			e.Text = model.StringID(len(texts))
			texts = append(texts, src.Defs().String(ev.Text))
		}
		evs = append(evs, e)
	}
	return evs, src.Defs(), texts
}

// keep returns the events of all that sel keeps, with their texts, and
// reports whether they are evs with texts.
func keep(all []model.Event, texts []string, sel model.Selection, evs []model.Event, etexts []string) bool {
	var out []model.Event
	var outTexts []string
	for _, ev := range all {
		if sel.Keep(&ev) {
			if ev.Kind == model.KindMarker {
				outTexts = append(outTexts, texts[ev.Text])
				ev.Text = model.StringID(len(outTexts) - 1)
			}
			out = append(out, ev)
		}
	}
	return len(out) > 0 && slices.Equal(out, evs) && slices.Equal(outTexts, etexts)
}

// TestOpenClose: every file a Trace and a ModelSource open (the master
// file, definitions, summaries, events, and the records before a window
// read to resolve a Leave of function 0) is closed exactly once by
// ModelSource.Close and Trace.Close; Close is idempotent; a closed Trace
// opens nothing more, and a closed source reads nothing more.
func TestOpenClose(t *testing.T) {
	for _, tc := range []struct {
		dir, name string
		opts      *ModelOptions
	}{
		{"all_records_zlib_smallbuf", "allrec.otf", nil},
		{"compat/vt_leaves", "vt.otf", windowFrom(3000, 0)},
		{"ring_zlib_blocks", "ring.otf", &ModelOptions{Selection: model.Selection{Locations: model.Only(2)}}},
	} {
		c := newOpenCloseFS(fixtureFS(t, tc.dir))
		tr, err := OpenFS(c, tc.name, nil)
		if err != nil {
			t.Fatal(err)
		}
		src, err := NewModelSource(tr, tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, err := range src.All() {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		if n == 0 {
			t.Fatalf("%s: no events", tc.dir)
		}
		if err := src.Close(); err != nil {
			t.Fatal(err)
		}
		if err := src.Close(); err != nil {
			t.Errorf("%s: second ModelSource.Close: %v", tc.dir, err)
		}
		if src.Next() || src.ReadEvents(make([]model.Event, 4)) != 0 || src.Err() != nil {
			t.Errorf("%s: a closed source reads on (Err %v)", tc.dir, src.Err())
		}
		// The source closed its files and not the Trace: a reader opens.
		r, err := tr.NewReader(&TraceReaderOptions{File: FileDef})
		if err != nil {
			t.Fatalf("%s: the source closed the Trace: %v", tc.dir, err)
		}
		r.Close()
		if err := tr.Close(); err != nil {
			t.Fatal(err)
		}
		if err := tr.Close(); err != nil {
			t.Errorf("%s: second Trace.Close: %v", tc.dir, err)
		}
		c.check(t)
		opens := maps.Clone(c.opens)
		if _, err := tr.NewReader(nil); !errors.Is(err, ErrClosed) {
			t.Errorf("%s: NewReader after Close: %v; want ErrClosed", tc.dir, err)
		}
		if _, err := tr.OpenReader(1, FileEvents, nil); !errors.Is(err, ErrClosed) {
			t.Errorf("%s: OpenReader after Close: %v; want ErrClosed", tc.dir, err)
		}
		if _, err := NewModelSource(tr, nil); !errors.Is(err, ErrClosed) {
			t.Errorf("%s: NewModelSource after Close: %v; want ErrClosed", tc.dir, err)
		}
		if !maps.Equal(opens, c.opens) {
			t.Errorf("%s: a closed Trace opened files: %v, before %v", tc.dir, c.opens, opens)
		}
	}
}

// TestOpenFSRefusesMmap: OpenFS takes the fs.FS it is given as it is.
func TestOpenFSRefusesMmap(t *testing.T) {
	if _, err := OpenFS(fixtureFS(t, "minimal_ring_short"), "mini.otf", &OpenOptions{Mmap: true}); err == nil {
		t.Error("OpenFS with Mmap: no error")
	}
}

// TestSelectionExact: on every fixture, a source whose selection takes
// every other location yields the whole read's events of those
// locations, with the same definitions, and opens the event files of only
// the streams holding one of them.
func TestSelectionExact(t *testing.T) {
	for _, tc := range []struct{ dir, name string }{
		{"all_records_short", "allrec.otf"},
		{"all_records_zlib_smallbuf", "allrec.otf"},
		{"compat/many_processes", "many.otf"},
		{"compat/vt_leaves", "vt.otf"},
		{"edge_values_short", "edge.otf"},
		{"minimal_ring_short", "mini.otf"},
		{"otfaux_all", "aux.otf"},
		{"reader_tolerance", "tol.otf"},
		{"ring_zlib_blocks", "ring.otf"},
	} {
		fsys := fixtureFS(t, tc.dir)
		all, defs, texts := events(t, fsys, tc.name, nil)
		for _, odd := range []bool{false, true} {
			sel := model.Selection{Locations: func(l model.LocID) bool { return l%2 == 1 == odd }}
			c := newOpenCloseFS(fsys)
			got, gdefs, gtexts := events(t, c, tc.name, &ModelOptions{Selection: sel})
			if !keep(all, texts, sel, got, gtexts) {
				t.Errorf("%s odd=%v: %d events, not the filter's", tc.dir, odd, len(got))
			}
			if !slices.Equal(gdefs.Locations(), defs.Locations()) || !slices.Equal(gdefs.Regions(), defs.Regions()) {
				t.Errorf("%s odd=%v: the definitions differ from the whole read's", tc.dir, odd)
			}
			tr, err := OpenFS(fsys, tc.name, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tr.Streams {
				selected := slices.ContainsFunc(s.Processes, func(p uint32) bool {
					l, ok := defs.LocationByNative(int64(p))
					return ok && sel.KeepsLocation(l)
				})
				name := FileName(tr.Stub, s.ID, FileEvents, false)
				opened := c.opens[name]+c.opens[name+".z"] > 0
				if opened != selected {
					t.Errorf("%s odd=%v: stream %d (processes %v): events opened %v, want %v", tc.dir, odd, s.ID, s.Processes, opened, selected)
				}
			}
			c.check(t)
		}
	}
}

// TestSelectionWindowExact: a window, alone and with a location sharing
// its stream with one not selected, yields the whole read's events that
// the selection keeps. (What a window reads is measured on the
// TraceReader, in window_test.go.)
func TestSelectionWindowExact(t *testing.T) {
	fsys, first, last := windowTrace(t, 50_000, false)
	all, defs, texts := events(t, fsys, "w.otf", nil)
	tr, err := OpenFS(fsys, "w.otf", nil)
	if err != nil {
		t.Fatal(err)
	}
	// Two locations of one stream: select one of them.
	var shared []model.LocID
	for _, p := range tr.Streams[0].Processes {
		l, _ := defs.LocationByNative(int64(p))
		shared = append(shared, l)
	}
	if len(shared) < 2 {
		t.Fatalf("stream %d holds %v", tr.Streams[0].ID, tr.Streams[0].Processes)
	}
	span := model.Time(last - first)
	f := model.Time(first)
	for _, sel := range []model.Selection{
		{Window: &model.Window{From: f + span/3, To: f + span/2}},
		{Window: &model.Window{From: f + span - span/50}},
		{Window: &model.Window{From: -5, To: f + span/10}},
		{Locations: model.Only(shared[0])},
		{Locations: model.Only(shared[1], shared[0]+2), Window: &model.Window{From: f + span/4, To: f + span/3}},
	} {
		got, _, gtexts := events(t, fsys, "w.otf", &ModelOptions{Selection: sel})
		if !keep(all, texts, sel, got, gtexts) {
			t.Errorf("selection %v: %d events, not the filter's", sel.Window, len(got))
		}
		// The same through ReadEvents, which the bulk readers use.
		if bulk := bulkEvents(t, fsys, &ModelOptions{Selection: sel}); !slices.Equal(bulk, got) {
			t.Errorf("selection %v: ReadEvents gives %d events, Next %d", sel.Window, len(bulk), len(got))
		}
	}
}

// bulkEvents reads w.otf with ReadEvents, and Next where it stops.
func bulkEvents(t *testing.T, fsys fs.FS, opts *ModelOptions) []model.Event {
	t.Helper()
	tr, err := OpenFS(fsys, "w.otf", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	src, err := NewModelSource(tr, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var evs []model.Event
	buf := make([]model.Event, 100)
	for {
		if n := src.ReadEvents(buf); n > 0 {
			evs = append(evs, buf[:n]...)
			continue
		}
		if !src.Next() {
			break
		}
		evs = append(evs, *src.Event())
	}
	if err := src.Err(); err != nil {
		t.Fatal(err)
	}
	return evs
}

// TestModelSourceSeekTime: after SeekTime(tm) a source yields the whole
// read's events at tm or later, each Leave of function 0 resolved as in
// the whole read, and a second seek back to the start the whole read.
func TestModelSourceSeekTime(t *testing.T) {
	fsys := fixtureFS(t, "compat/vt_leaves")
	all, _, texts := events(t, fsys, "vt.otf", nil)
	tr, err := OpenFS(fsys, "vt.otf", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	src, err := NewModelSource(tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	read := func() ([]model.Event, []string) {
		var evs []model.Event
		var texts []string
		for ev, err := range src.All() {
			if err != nil {
				t.Fatal(err)
			}
			e := *ev
			if e.Kind == model.KindMarker {
				e.Text = model.StringID(len(texts))
				texts = append(texts, src.Defs().String(ev.Text))
			}
			evs = append(evs, e)
		}
		return evs, texts
	}
	mid := all[len(all)/2].Time
	for _, tm := range []model.Time{mid, 0, all[len(all)-1].Time, mid + 1} {
		if err := src.SeekTime(tm); err != nil {
			t.Fatal(err)
		}
		got, gtexts := read()
		if !keep(all, texts, model.Selection{Window: &model.Window{From: tm}}, got, gtexts) {
			t.Errorf("SeekTime(%d): %d events, not the whole read's from there", tm, len(got))
		}
	}
	var _ model.TimeSeeker = src
}

// TestModelOptionsWindowCheck: an empty window is refused.
func TestModelOptionsWindowCheck(t *testing.T) {
	tr, err := OpenFS(fixtureFS(t, "minimal_ring_short"), "mini.otf", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewModelSource(tr, windowFrom(10, 5))
	if err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("window [10, 5): %v; want an error", err)
	}
}
