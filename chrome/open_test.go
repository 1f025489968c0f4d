package chrome_test

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

	"github.com/hpctrace/hpctrace/chrome"
	"github.com/hpctrace/hpctrace/model"
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
	r, err := chrome.OpenFS(c, "ring4.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for r.Next() {
		n++
	}
	if err := r.Err(); err != nil || n == 0 {
		t.Fatalf("read %d events, err %v", n, err)
	}
	if c.closes["ring4.json"] != 0 {
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
	if r.Next() || !errors.Is(r.Err(), chrome.ErrClosed) {
		t.Errorf("Next after Close: err %v, want false and ErrClosed", r.Err())
	}
}

func TestOpenFSClosesMidRead(t *testing.T) {
	c := newCountFS(os.DirFS("testdata"))
	r, err := chrome.OpenFS(c, "foreign.json", nil)
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
	if r.Next() || !errors.Is(r.Err(), chrome.ErrClosed) {
		t.Errorf("Next after Close mid-read: err %v, want false and ErrClosed", r.Err())
	}
	if *r.Event() != (model.Event{}) {
		t.Errorf("Event after Close: %+v, want zero", *r.Event())
	}
}

func TestOpenFSErrors(t *testing.T) {
	c := newCountFS(fstest.MapFS{
		"bad.json":  {Data: []byte(`42`)},
		"late.json": {Data: []byte(`[{"ph":"i","ts":1,"name":"a"}, 5]`)},
	})
	if _, err := chrome.OpenFS(c, "missing.json", nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenFS of a missing file: %v, want fs.ErrNotExist", err)
	}
	// A document whose head is bad fails in OpenFS, which closes the file
	// and names it in the error.
	_, err := chrome.OpenFS(c, "bad.json", nil)
	var pe *chrome.ParseError
	if !errors.As(err, &pe) || pe.Path != "bad.json" || !errors.Is(err, chrome.ErrFormat) {
		t.Errorf("OpenFS of a bad document: %v, want a ParseError of bad.json wrapping ErrFormat", err)
	}
	if _, err := chrome.OpenFS(c, "late.json", &chrome.ReaderOptions{ReorderWindow: -1}); err == nil {
		t.Error("OpenFS with a negative ReorderWindow: no error")
	}
	if _, err := chrome.OpenFS(nil, "bad.json", nil); err == nil {
		t.Error("OpenFS of a nil fs.FS: no error")
	}
	c.balanced(t)
	if c.opens["bad.json"] != 1 || c.opens["late.json"] != 1 {
		t.Errorf("opens %v, want bad.json and late.json once each", c.opens)
	}

	// A later error names the file too, and Close still closes it.
	r, err := chrome.OpenFS(c, "late.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
	}
	if !errors.As(r.Err(), &pe) || pe.Path != "late.json" {
		t.Errorf("error %v, want a ParseError with Path late.json", r.Err())
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if r.Next() || !errors.As(r.Err(), &pe) {
		t.Errorf("Next after Close of a failed Reader: err %v, want its ParseError kept", r.Err())
	}
	c.balanced(t)
}

func TestOpenCloses(t *testing.T) {
	name := filepath.Join("testdata", "otf2_minimal.json")
	r, err := chrome.Open(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := readAll(t, string(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []model.Event
	for r.Next() {
		got = append(got, *r.Event())
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("Open read %d events, NewReader %d, or they differ", len(got), len(want))
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := chrome.Open(filepath.Join("testdata", "missing.json"), nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open of a missing file: %v, want fs.ErrNotExist", err)
	}
}

func TestNewReaderClosesNothing(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "ring4.json"))
	if err != nil {
		t.Fatal(err)
	}
	src := &closeCounter{Reader: bytes.NewReader(data)}
	r, err := chrome.NewReader(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Next() {
		t.Fatal(r.Err())
	}
	if err := r.Close(); err != nil || src.closes != 0 {
		t.Errorf("Close of a NewReader Reader: err %v, %d closes of its io.Reader, want 0", err, src.closes)
	}
}

// unordered is a document out of time order (within a reorder window of
// 8 events), with slices, flows, counters and markers on three threads.
const unordered = `{"traceEvents":[
{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"main"}},
{"ph":"X","ts":5,"dur":10,"pid":1,"tid":1,"name":"compute","cat":"function"},
{"ph":"B","ts":1,"pid":1,"tid":2,"name":"io"},
{"ph":"s","ts":3,"pid":1,"tid":2,"name":"msg","cat":"mpi","id":7},
{"ph":"f","ts":9,"pid":2,"tid":2,"name":"msg","cat":"mpi","id":7},
{"ph":"E","ts":12,"pid":1,"tid":2},
{"ph":"i","ts":2,"pid":2,"tid":2,"name":"start"},
{"ph":"C","ts":4,"pid":2,"tid":2,"name":"mem","args":{"value":10,"peak":12}},
{"ph":"X","ts":6,"dur":2,"pid":1,"tid":1,"name":"inner","cat":"function"},
{"ph":"B","ts":0,"pid":2,"tid":2,"name":"outer"},
{"ph":"E","ts":20,"pid":2,"tid":2},
{"ph":"i","ts":15,"pid":1,"tid":1,"name":"done"}
]}`

// TestSelectionExact checks that ReaderOptions.Selection yields exactly
// the events of a whole read that the selection keeps, in the same order
// and with the same values, and the whole read's definitions and
// diagnostics, for location subsets and windows.
func TestSelectionExact(t *testing.T) {
	type fixture struct {
		name string
		doc  string
		opts chrome.ReaderOptions
	}
	fixtures := []fixture{{name: "unordered", doc: unordered}, {name: "unordered, window 8", doc: unordered, opts: chrome.ReaderOptions{ReorderWindow: 8}}}
	names, err := filepath.Glob("testdata/*.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		fixtures = append(fixtures, fixture{name: n, doc: string(data)})
	}
	if len(fixtures) < 5 {
		t.Fatalf("%d fixtures", len(fixtures))
	}
	for _, fx := range fixtures {
		whole, wr, err := readAll(t, fx.doc, &fx.opts)
		if err != nil {
			t.Fatalf("%s: %v", fx.name, err)
		}
		if len(whole) == 0 {
			t.Fatalf("%s: no events", fx.name)
		}
		var sels []model.Selection
		nloc := model.LocID(len(wr.Defs().Locations()))
		if nloc == 0 {
			t.Fatalf("%s: no locations", fx.name)
		}
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
			opts := fx.opts
			opts.Selection = sel
			got, r, err := readAll(t, fx.doc, &opts)
			if err != nil {
				t.Fatalf("%s: selection %d: %v", fx.name, i, err)
			}
			var want []model.Event
			for _, ev := range whole {
				if sel.Keep(&ev) {
					want = append(want, ev)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s: selection %d (window %v): %d events, want the whole read's %d kept ones", fx.name, i, sel.Window, len(got), len(want))
			}
			if !reflect.DeepEqual(r.Defs(), wr.Defs()) {
				t.Errorf("%s: selection %d: definitions differ from the whole read's", fx.name, i)
			}
			if r.Diagnostics() != wr.Diagnostics() {
				t.Errorf("%s: selection %d: diagnostics %+v, whole read %+v", fx.name, i, r.Diagnostics(), wr.Diagnostics())
			}
		}
	}
}

func TestSelectionEmptyWindow(t *testing.T) {
	_, err := chrome.NewReader(strings.NewReader(unordered), &chrome.ReaderOptions{Selection: model.Selection{Window: &model.Window{From: 5, To: 5}}})
	if err == nil {
		t.Error("NewReader with an empty window: no error")
	}
}
