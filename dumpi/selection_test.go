package dumpi

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/hpctrace/hpctrace/model"
)

// openCounter is an fs.FS that counts the opens and closes of each file.
type openCounter struct {
	fs.FS
	mu            sync.Mutex
	opens, closes map[string]int
}

type countingFile struct {
	fs.File
	c    *openCounter
	name string
}

func newOpenCounter(fsys fs.FS) *openCounter {
	return &openCounter{FS: fsys, opens: map[string]int{}, closes: map[string]int{}}
}

func (c *openCounter) Open(name string) (fs.File, error) {
	f, err := c.FS.Open(name)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.opens[name]++
	c.mu.Unlock()
	return &countingFile{f, c, name}, nil
}

func (f *countingFile) ReadAt(p []byte, off int64) (int, error) {
	return f.File.(io.ReaderAt).ReadAt(p, off)
}

func (f *countingFile) Close() error {
	f.c.mu.Lock()
	f.c.closes[f.name]++
	f.c.mu.Unlock()
	return f.File.Close()
}

// check fails unless every file opened was closed exactly once.
func (c *openCounter) check(t *testing.T, what string) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	for name, n := range c.opens {
		if c.closes[name] != n {
			t.Errorf("%s: %s opened %d times, closed %d", what, name, n, c.closes[name])
		}
	}
}

// TestOpenCloseRule: a value closes what it opened itself, never what it
// was given. A Run from OpenRunFS closes each rank file once; its model
// source and a Run from NewRun close nothing; a File from NewFile does
// not close its io.ReaderAt; a second Close returns nil and reads after
// Close fail.
func TestOpenCloseRule(t *testing.T) {
	const dir = "testdata/p2p_nonblocking"
	metas, err := filepath.Glob(dir + "/*.meta")
	if err != nil || len(metas) != 1 {
		t.Fatal(metas, err)
	}
	oc := newOpenCounter(os.DirFS(dir))
	run, err := OpenRunFS(oc, filepath.Base(metas[0]), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(oc.opens) != 1+len(run.Files) {
		t.Fatalf("%d files opened, want the metafile and %d rank files", len(oc.opens), len(run.Files))
	}
	src, err := NewModelSource(run, nil)
	if err != nil {
		t.Fatal(err)
	}
	for !src.Next() {
		t.Fatal("no event")
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	if src.Next() {
		t.Error("Next after Close: true")
	}
	if n := len(oc.closes); n != 1 { // the metafile, after parsing it
		t.Errorf("after the source's Close: %d files closed, want the metafile only", n)
	}
	if err := run.Close(); err != nil {
		t.Fatal(err)
	}
	oc.check(t, "run")
	if err := run.Close(); err != nil {
		t.Errorf("second Run.Close: %v", err)
	}
	oc.check(t, "run closed twice")
	if _, err := run.Files[0].Header(); !errors.Is(err, ErrClosed) {
		t.Errorf("Header after Close: %v, want ErrClosed", err)
	}
	r := run.Files[0].Calls()
	if r.Next() || !errors.Is(r.Err(), ErrClosed) {
		t.Errorf("Calls after Close: %v, want ErrClosed", r.Err())
	}

	// One rank file: OpenFS's File closes it; NewRun's Run and its source
	// do not.
	oc = newOpenCounter(os.DirFS(dir))
	f, err := OpenFS(oc, run.Meta.RankFile(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	one := NewRun(f, 1)
	src, err = NewModelSource(one, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := readAllEvents(src); err != nil {
		t.Fatal(err)
	}
	src.Close()
	one.Close()
	if len(oc.closes) != 0 {
		t.Errorf("the source and NewRun's Run closed %v", oc.closes)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Errorf("second File.Close: %v", err)
	}
	oc.check(t, "rank file")

	// NewFile: the io.ReaderAt given is not closed.
	oc = newOpenCounter(os.DirFS(dir))
	raw, err := oc.Open(run.Meta.RankFile(0))
	if err != nil {
		t.Fatal(err)
	}
	st, err := raw.Stat()
	if err != nil {
		t.Fatal(err)
	}
	nf, err := NewFile(raw.(io.ReaderAt), st.Size())
	if err != nil {
		t.Fatal(err)
	}
	if err := nf.Close(); err != nil || len(oc.closes) != 0 {
		t.Errorf("NewFile's Close: %v, closed %v; want nothing closed", err, oc.closes)
	}
	raw.Close()
	oc.check(t, "NewFile")
}

func readAllEvents(src *ModelSource) ([]model.Event, error) {
	var evs []model.Event
	for ev, err := range src.All() {
		if err != nil {
			return nil, err
		}
		evs = append(evs, *ev)
	}
	return evs, nil
}

// threadedRun writes a run of three ranks whose ranks 1 and 2 call on a
// second thread too.
func threadedRun(t *testing.T) string {
	var ranks [][]Args
	for r := range 3 {
		calls := []Args{&Init{}}
		for range 6 {
			calls = append(calls, &Send{Count: 1, Datatype: MPI_INT, Dest: int32((r + 1) % 3), Tag: 1, Comm: MPI_COMM_WORLD},
				&Barrier{Comm: MPI_COMM_WORLD})
		}
		ranks = append(ranks, append(calls, &Finalize{}))
	}
	n := make([]int, 3)
	return writeSpec(t, t.TempDir(), &runSpec{prefix: "threads", ranks: ranks, tweak: func(r int, c *Call) {
		if r > 0 && n[r]%3 == 2 {
			c.Thread = 1
		}
		n[r]++
	}})
}

// TestSelectionExact: for every fixture run and a run with threads, a
// source with a selection (locations, threads' included, a window, both)
// yields exactly the events of the whole read that the selection keeps,
// with the definitions of the whole read, whichever ranks it reads.
func TestSelectionExact(t *testing.T) {
	metas, err := filepath.Glob("testdata/*/*.meta")
	if err != nil || len(metas) < 10 {
		t.Fatalf("fixtures %v: %v", metas, err)
	}
	metas = append(metas, threadedRun(t))
	for _, meta := range metas {
		run, err := OpenRun(meta, nil)
		if err != nil {
			t.Fatal(err)
		}
		whole, err := NewModelSource(run, nil)
		if err != nil {
			t.Fatal(err)
		}
		all, defs := readAll(t, whole)
		nloc := whole.Defs().NumLocations()
		if len(all) == 0 {
			run.Close()
			continue
		}
		first, last := all[0].Time, all[len(all)-1].Time
		mid := first + (last-first)/2
		var sels []model.Selection
		for l := 1; l <= nloc; l++ {
			sels = append(sels, model.Selection{Locations: model.Only(model.LocID(l))})
		}
		for _, w := range []model.Window{{From: mid}, {From: first, To: mid}, {From: mid, To: mid + 1}, {From: last + 1}} {
			sels = append(sels, model.Selection{Window: &w},
				model.Selection{Window: &w, Locations: func(l model.LocID) bool { return l%2 == 0 }})
		}
		for k, sel := range sels {
			src, err := NewModelSource(run, &ModelOptions{Selection: sel})
			if err != nil {
				t.Fatal(err)
			}
			got, gotDefs := readAll(t, src)
			var want []model.Event
			for i := range all {
				if sel.Keep(&all[i]) {
					want = append(want, all[i])
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s selection %d: %d events, want %d of the whole read's", meta, k, len(got), len(want))
			}
			if !reflect.DeepEqual(gotDefs, defs) && !prefixDefs(src.Defs(), whole.Defs()) {
				t.Errorf("%s selection %d: definitions neither the whole read's nor a prefix of them", meta, k)
			}
		}
		run.Close()
	}
}

// TestSelectionThreadOfUnreadRank: a selection of a thread's location
// alone yields its events, although it refuses its rank's location.
func TestSelectionThreadOfUnreadRank(t *testing.T) {
	run, err := OpenRun(threadedRun(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	whole, err := NewModelSource(run, nil)
	if err != nil {
		t.Fatal(err)
	}
	all, defs := readAll(t, whole)
	for _, l := range whole.Defs().Locations() {
		if l.Thread == 0 {
			continue
		}
		src, err := NewModelSource(run, &ModelOptions{Selection: model.Selection{Locations: model.Only(l.ID)}})
		if err != nil {
			t.Fatal(err)
		}
		got, gotDefs := readAll(t, src)
		var want []model.Event
		for _, ev := range all {
			if ev.Loc == l.ID {
				want = append(want, ev)
			}
		}
		if len(want) == 0 || !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotDefs, defs) {
			t.Errorf("%s alone: %d events, want %d (> 0); same definitions: %v", l.Name, len(got), len(want), reflect.DeepEqual(gotDefs, defs))
		}
	}
}

// TestOpenMaxRecord: OpenOptions.MaxRecord (and RunOptions.MaxRecord for
// every rank file) bounds the call records a File's Readers accept.
func TestOpenMaxRecord(t *testing.T) {
	const n = 40000 // a Waitall of 160 kB
	dir := t.TempDir()
	meta := writeRun(t, dir, "big", [][]Args{{&Init{}, &Waitall{Count: n, Requests: make([]Request, n)}, &Finalize{}}}, nil)
	calls := func(f *File) error {
		r := f.Calls()
		for r.Next() {
		}
		return r.Err()
	}
	for _, c := range []struct {
		max  int
		fail bool
	}{{0, false}, {1 << 20, false}, {64 << 10, true}} {
		run, err := OpenRun(meta, &RunOptions{MaxRecord: c.max})
		if err != nil {
			t.Fatal(err)
		}
		f, err := Open(filepath.Join(dir, run.Meta.RankFile(0)), &OpenOptions{MaxRecord: c.max})
		if err != nil {
			t.Fatal(err)
		}
		for _, err := range []error{calls(run.Files[0]), calls(f)} {
			if got := errors.Is(err, ErrRange); got != c.fail {
				t.Errorf("MaxRecord %d: %v, want an ErrRange: %v", c.max, err, c.fail)
			}
		}
		run.Close()
		f.Close()
	}
	if _, err := Open(meta, &OpenOptions{MaxRecord: -1}); err == nil {
		t.Error("Open with a negative MaxRecord: no error")
	}
	if _, err := OpenRun(meta, &RunOptions{MaxRecord: -1}); err == nil {
		t.Error("OpenRun with a negative MaxRecord: no error")
	}
}
