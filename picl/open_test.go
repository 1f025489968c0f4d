package picl_test

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/picl"
)

// countFS is an fs.FS that counts the opens and closes of each file.
type countFS struct {
	fsys          fs.FS
	opens, closes map[string]int
}

func newCountFS(fsys fs.FS) *countFS {
	return &countFS{fsys: fsys, opens: map[string]int{}, closes: map[string]int{}}
}

func (c *countFS) Open(name string) (fs.File, error) {
	f, err := c.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	c.opens[name]++
	return &countFile{File: f, c: c, name: name}, nil
}

type countFile struct {
	fs.File
	c    *countFS
	name string
}

func (f *countFile) Close() error {
	f.c.closes[f.name]++
	return f.File.Close()
}

// balanced fails t unless every file opened was closed exactly once.
func (c *countFS) balanced(t *testing.T) {
	t.Helper()
	if !reflect.DeepEqual(c.opens, c.closes) {
		t.Errorf("opens %v, closes %v: want every file opened closed once", c.opens, c.closes)
	}
}

// closeCounter is an io.Reader given to NewReader that counts its closes.
type closeCounter struct {
	io.Reader
	closes int
}

func (c *closeCounter) Close() error { c.closes++; return nil }

func TestOpenFSCloses(t *testing.T) {
	c := newCountFS(os.DirFS("testdata"))
	r, err := picl.OpenFS(c, "ring4.trf", nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for r.Next() {
		n++
	}
	if err := r.Err(); err != nil || n == 0 {
		t.Fatalf("read %d records, err %v", n, err)
	}
	if c.closes["ring4.trf"] != 0 {
		t.Fatal("the file was closed before Close")
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	c.balanced(t)
	if err := r.Close(); err != nil {
		t.Errorf("second Close: %v, want nil", err)
	}
	c.balanced(t)
	if r.Next() {
		t.Error("Next after Close returned true")
	}
	if err := r.Err(); !errors.Is(err, picl.ErrClosed) {
		t.Errorf("Err after Close: %v, want ErrClosed", err)
	}
}

func TestOpenFSClosesMidRead(t *testing.T) {
	c := newCountFS(os.DirFS("testdata"))
	r, err := picl.OpenFS(c, "ring4.trf", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Next() {
		t.Fatal(r.Err())
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	c.balanced(t)
	if r.Next() || !errors.Is(r.Err(), picl.ErrClosed) {
		t.Errorf("Next after Close mid-read: err %v, want false and ErrClosed", r.Err())
	}
	if rec := r.Record(); rec.Type != 0 || rec.Time != 0 {
		t.Errorf("Record after Close: %+v, want zero", rec)
	}
	// Reset after Close reads a new stream, which Close then leaves alone.
	src := &closeCounter{Reader: bytes.NewReader(readFixture(t, "ring4"))}
	if err := r.Reset(src); err != nil {
		t.Fatal(err)
	}
	if !r.Next() {
		t.Fatalf("Next after Reset: %v", r.Err())
	}
	if err := r.Close(); err != nil || src.closes != 0 {
		t.Errorf("Close after Reset: err %v, %d closes of the given reader, want 0", err, src.closes)
	}
	c.balanced(t)
}

func TestOpenFSErrors(t *testing.T) {
	c := newCountFS(fstest.MapFS{"bad.trf": {Data: []byte("-3 x 0.1 0 0 0\n")}})
	if _, err := picl.OpenFS(c, "missing.trf", nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenFS of a missing file: %v, want fs.ErrNotExist", err)
	}
	if _, err := picl.OpenFS(c, "bad.trf", &picl.ReaderOptions{MaxLine: -1}); err == nil {
		t.Error("OpenFS with a negative MaxLine: no error")
	}
	c.balanced(t) // the file opened for the invalid options is closed
	if c.opens["bad.trf"] != 1 {
		t.Errorf("opens %v, want bad.trf once", c.opens)
	}
	if _, err := picl.OpenFS(nil, "bad.trf", nil); err == nil {
		t.Error("OpenFS of a nil fs.FS: no error")
	}

	// Path defaults to the name opened.
	r, err := picl.OpenFS(c, "bad.trf", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for r.Next() {
	}
	var pe *picl.ParseError
	if !errors.As(r.Err(), &pe) || pe.Path != "bad.trf" {
		t.Errorf("error %v, want a ParseError with Path bad.trf", r.Err())
	}
}

func TestOpenCloses(t *testing.T) {
	name := filepath.Join("testdata", "appendix_a.trf")
	r, err := picl.Open(name, &picl.ReaderOptions{Path: "given"})
	if err != nil {
		t.Fatal(err)
	}
	want := readRecords(t, bytes.NewReader(readFixture(t, "appendix_a")))
	var got []picl.Record
	for r.Next() {
		got = append(got, r.Record().Clone())
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Open read %d records, NewReader %d, or they differ", len(got), len(want))
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := picl.Open(filepath.Join("testdata", "missing.trf"), nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open of a missing file: %v, want fs.ErrNotExist", err)
	}
}

func readRecords(t *testing.T, src io.Reader) []picl.Record {
	t.Helper()
	r, err := picl.NewReader(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	var recs []picl.Record
	for r.Next() {
		recs = append(recs, r.Record().Clone())
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestCloseGivenNothing checks that neither a Reader from NewReader nor a
// ModelSource closes what it was given.
func TestCloseGivenNothing(t *testing.T) {
	src := &closeCounter{Reader: bytes.NewReader(readFixture(t, "ring4"))}
	r, err := picl.NewReader(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil || src.closes != 0 {
		t.Errorf("Close of a NewReader Reader: err %v, %d closes of its io.Reader, want 0", err, src.closes)
	}

	c := newCountFS(os.DirFS("testdata"))
	fr, err := picl.OpenFS(c, "ring4.trf", nil)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := picl.NewModelSource(fr, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !ms.Next() {
		t.Fatal(ms.Err())
	}
	if err := ms.Close(); err != nil {
		t.Fatal(err)
	}
	if c.closes["ring4.trf"] != 0 {
		t.Error("ModelSource.Close closed the Reader's file")
	}
	if err := ms.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if ms.Next() || !errors.Is(ms.Err(), picl.ErrClosed) {
		t.Errorf("Next after Close: err %v, want false and ErrClosed", ms.Err())
	}
	// The Reader is still open and readable: the source closed nothing.
	if !fr.Next() {
		t.Errorf("the Reader stopped after the ModelSource's Close: %v", fr.Err())
	}
	if err := fr.Close(); err != nil {
		t.Fatal(err)
	}
	c.balanced(t)
}

// reversed returns data's lines in reverse order: a trace whose file
// order goes back in time.
func reversed(data []byte) []byte {
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	slices.Reverse(lines)
	return []byte(strings.Join(lines, "\n") + "\n")
}

// TestSelectionExact checks that ModelOptions.Selection yields exactly
// the events of a whole read that the selection keeps, in the same order
// and with the same values, and the whole read's definitions, for
// location subsets and windows over traces sorted and not.
func TestSelectionExact(t *testing.T) {
	type fixture struct {
		name string
		data []byte
	}
	var fixtures []fixture
	for _, pat := range []string{"testdata/*.trf", "testdata/mpicl/*.trf"} {
		names, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			data, err := os.ReadFile(n)
			if err != nil {
				t.Fatal(err)
			}
			fixtures = append(fixtures, fixture{n, data})
		}
	}
	if len(fixtures) < 10 {
		t.Fatalf("%d fixtures", len(fixtures))
	}
	ring, err := os.ReadFile("testdata/ring4.trf")
	if err != nil {
		t.Fatal(err)
	}
	fixtures = append(fixtures, fixture{"ring4 reversed", reversed(ring)})

	for _, fx := range fixtures {
		whole, wholeDefs := selected(t, fx.data, model.Selection{})
		if len(whole) == 0 {
			t.Fatalf("%s: no events", fx.name)
		}
		var sels []model.Selection
		nloc := model.LocID(len(wholeDefs.Locations()))
		for l := model.LocID(1); l <= nloc; l++ {
			sels = append(sels, model.Selection{Locations: model.Only(l)})
		}
		sels = append(sels, model.Selection{Locations: func(l model.LocID) bool { return l%2 == 0 }})
		times := make([]model.Time, len(whole))
		for i, ev := range whole {
			times[i] = ev.Time
		}
		slices.Sort(times)
		lo, mid, hi := times[0], times[len(times)/2], times[len(times)-1]
		for _, w := range []model.Window{
			{From: math.MinInt64},
			{From: 0},
			{From: lo, To: lo + 1},
			{From: mid},
			{From: lo, To: mid},
			{From: mid, To: hi},
			{From: times[len(times)/4], To: times[3*len(times)/4] + 1},
			{From: hi + 1},
		} {
			sels = append(sels, model.Selection{Window: &w},
				model.Selection{Window: &w, Locations: func(l model.LocID) bool { return l%2 == 1 }})
		}
		for i, sel := range sels {
			got, defs := selected(t, fx.data, sel)
			var want []model.Event
			for _, ev := range whole {
				if sel.Keep(&ev) {
					want = append(want, ev)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s: selection %d (window %v): %d events, want the whole read's %d kept ones", fx.name, i, sel.Window, len(got), len(want))
			}
			if !reflect.DeepEqual(defs, wholeDefs) {
				t.Errorf("%s: selection %d: definitions differ from the whole read's", fx.name, i)
			}
		}
	}
}

// TestSelectionReversedWindow pins the window rule on a file whose order
// goes back in time: events before From come after events in the window,
// and the window keeps reading past times at To or later.
func TestSelectionReversedWindow(t *testing.T) {
	data := reversed(readFixture(t, "ring4"))
	whole, _ := selected(t, data, model.Selection{})
	if !slices.IsSortedFunc(whole, func(a, b model.Event) int { return int(b.Time - a.Time) }) {
		t.Fatal("the reversed fixture's events are not in decreasing time order")
	}
	mid := whole[len(whole)/2].Time
	w := model.Window{From: whole[len(whole)-1].Time + 1, To: mid}
	got, _ := selected(t, data, model.Selection{Window: &w})
	if len(got) == 0 {
		t.Fatal("the window holds no event")
	}
	for _, ev := range got {
		if !w.Contains(ev.Time) {
			t.Errorf("event at %d outside the window %v", ev.Time, w)
		}
	}
	if got[0].Time >= mid || got[len(got)-1].Time < w.From {
		t.Errorf("window %v yields %d..%d", w, got[0].Time, got[len(got)-1].Time)
	}
}

func TestSelectionEmptyWindow(t *testing.T) {
	r, err := picl.NewReader(bytes.NewReader(readFixture(t, "ring4")), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := picl.NewModelSource(r, &picl.ModelOptions{Selection: model.Selection{Window: &model.Window{From: 5, To: 5}}}); err == nil {
		t.Error("NewModelSource with an empty window: no error")
	}
}

// selected reads data through a ModelSource with selection sel and
// returns its events and its definitions at the end.
func selected(t *testing.T, data []byte, sel model.Selection) ([]model.Event, *model.Defs) {
	t.Helper()
	r, err := picl.NewReader(bytes.NewReader(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	src, err := picl.NewModelSource(r, &picl.ModelOptions{Selection: sel})
	if err != nil {
		t.Fatal(err)
	}
	var evs []model.Event
	for src.Next() {
		evs = append(evs, *src.Event())
	}
	if err := src.Err(); err != nil {
		t.Fatal(err)
	}
	return evs, src.Defs()
}
