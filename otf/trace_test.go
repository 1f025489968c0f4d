package otf

import (
	"bytes"
	"errors"
	"github.com/hpctrace/hpctrace/model"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

func fixtureFS(t testing.TB, dir string) fstest.MapFS {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("testdata", dir, "*"))
	m := fstest.MapFS{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m[filepath.Base(f)] = &fstest.MapFile{Data: data}
	}
	return m
}

func collect(t testing.TB, tr *Trace, opts *TraceReaderOptions) []*Record {
	t.Helper()
	r, err := tr.NewReader(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []*Record
	for rec, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rec.Clone())
	}
	return out
}

func TestTraceReaderOrder(t *testing.T) {
	tr, err := OpenFS(fixtureFS(t, "all_records_short"), "allrec.otf", nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Stream{{1, []uint32{1, 2}}, {2, []uint32{3}}, {3, []uint32{4, 5}}}, tr.Streams); diff != "" {
		t.Errorf("streams (-want +got):\n%s", diff)
	}
	if s, ok := tr.StreamOf(5); !ok || s != 3 {
		t.Errorf("StreamOf(5) = %d, %v", s, ok)
	}
	all := collect(t, tr, nil)
	if len(all) != 241 {
		t.Errorf("got %d events, want 241", len(all))
	}
	// Deterministic: sorted by (time, process) except inside one stream's
	// file order, and every stream's records keep file order.
	for i := 1; i < len(all); i++ {
		a, b := all[i-1], all[i]
		if b.Time < a.Time {
			t.Fatalf("record %d: time %d after %d", i, b.Time, a.Time)
		}
		if b.Time == a.Time && b.Stream != a.Stream && b.Process < a.Process {
			t.Fatalf("record %d: process %d after %d at time %d across streams", i, b.Process, a.Process, b.Time)
		}
	}
	again := collect(t, tr, nil)
	if diff := cmp.Diff(all, again, cmpRecord); diff != "" {
		t.Errorf("second read differs:\n%s", diff)
	}
	// Interval [2000, 2320), processes 1 and 4, limit.
	sel := collect(t, tr, &TraceReaderOptions{Processes: []uint32{1, 4}, From: 2000, To: 2320})
	var want []*Record
	for _, r := range all {
		if r.Time >= 2000 && r.Time < 2320 && (r.Process == 1 || r.Process == 4) {
			want = append(want, r)
		}
	}
	if diff := cmp.Diff(want, sel, cmpRecord); diff != "" || len(want) == 0 {
		t.Errorf("selection (-want +got):\n%s", diff)
	}
	lim := collect(t, tr, &TraceReaderOptions{Limit: 10})
	if diff := cmp.Diff(all[:10], lim, cmpRecord); diff != "" {
		t.Errorf("limit (-want +got):\n%s", diff)
	}
	defs := collect(t, tr, &TraceReaderOptions{File: FileDef})
	if len(defs) != 66 || defs[0].Kind != KindDefVersion || defs[65].Stream != 2 {
		t.Errorf("definitions: %d records", len(defs))
	}
	if m := collect(t, tr, &TraceReaderOptions{File: FileMarker}); len(m) != 6 {
		t.Errorf("markers: %d records", len(m))
	}
	if s := collect(t, tr, &TraceReaderOptions{File: FileStats, Processes: []uint32{3}}); len(s) != 8 {
		t.Errorf("stats of process 3: %d records", len(s))
	}
}

func TestTraceMissingFiles(t *testing.T) {
	fsys := fixtureFS(t, "minimal_ring_short")
	tr, err := OpenFS(fsys, "mini", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(collect(t, tr, &TraceReaderOptions{File: FileSnaps})); n != 0 {
		t.Errorf("snapshots: %d", n)
	}
	delete(fsys, "mini.2.events")
	if _, err := tr.NewReader(nil); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "mini.otf: stream 2: ") {
		t.Errorf("missing events file: got %v, want fs.ErrNotExist naming mini.otf and stream 2", err)
	}
	if _, err := OpenFS(fsys, "nothere.otf", nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing master: got %v", err)
	}
	fsys["bad.otf"] = &fstest.MapFile{Data: []byte("1:1,2\nzz:3\n")}
	var pe *ParseError
	if _, err := OpenFS(fsys, "bad.otf", nil); !errors.As(err, &pe) || pe.Line != 2 {
		t.Errorf("bad master: got %v", err)
	}
}

func TestMaster(t *testing.T) {
	s, err := ReadMaster(strings.NewReader("i1:2:3\n\n2:3\n1:2,1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Stream{{2, []uint32{3}}, {1, []uint32{2, 1}}}, s); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := string(AppendMaster(nil, s)); got != "1:1,2\n2:3\n" {
		t.Errorf("AppendMaster = %q", got)
	}
}

// TestParallelStreams reads every stream of a trace in its own goroutine
// and checks the union equals the merged read.
func TestParallelStreams(t *testing.T) {
	fsys := genTrace(t, 4, 7, 20000, true)
	tr, err := OpenFS(fsys, "bench.otf", nil)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []string
	var wg sync.WaitGroup
	errs := make(chan error, len(tr.Streams))
	for _, s := range tr.Streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := tr.OpenReader(s.ID, FileEvents, nil)
			if err != nil {
				errs <- err
				return
			}
			defer r.Close()
			var local []string
			for r.Next() {
				local = append(local, r.Record().String())
			}
			if err := r.Err(); err != nil {
				errs <- err
			}
			mu.Lock()
			got = append(got, local...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var want []string
	for _, r := range collect(t, tr, nil) {
		want = append(want, r.String())
	}
	slices.Sort(got)
	slices.Sort(want)
	if len(want) < 19000 || !slices.Equal(got, want) {
		t.Errorf("parallel read: %d records, merged: %d", len(got), len(want))
	}
}

// memFS collects the files a TraceWriter creates.
func memFS() (fstest.MapFS, model.Creator) {
	m := fstest.MapFS{}
	return m, model.CreateFunc(func(name string) (io.WriteCloser, error) {
		return &mapFile{name: name, fs: m}, nil
	})
}

func TestTraceWriterStreams(t *testing.T) {
	m, c := memFS()
	w, err := NewTraceWriter(c, &TraceWriterOptions{Stub: "x", MaxStreams: 2})
	if err != nil {
		t.Fatal(err)
	}
	var rec Record
	for i, p := range []uint32{1, 2, 3, 1, 4} {
		rec.Time, rec.Process = uint64(10*i+10), p
		rec.SetEnter(Enter{Function: 1})
		if err := w.Write(&rec); err != nil {
			t.Fatal(err)
		}
	}
	rec.SetDefComment(DefComment{Comment: []byte("c")})
	rec.Stream = 2
	if err := w.Write(&rec); err != nil {
		t.Fatal(err)
	}
	rec.SetUnknown([]byte("QQQ"))
	if err := w.Write(&rec); err == nil {
		t.Error("Write of an unknown record: got nil error")
	}
	if err := w.WriteIn(FileMarker, &rec); err != nil {
		t.Fatal(err)
	}
	rec.SetEnter(Enter{Function: 1})
	rec.Time = 1
	if err := w.Write(&rec); !errors.Is(err, ErrTimeOrder) {
		t.Errorf("decreasing time: got %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := w.Write(&rec); !errors.Is(err, ErrClosed) {
		t.Errorf("Write after Close: %v", err)
	}
	want := map[string]string{
		"x.otf":      "1:1,3\n2:2,4\n",
		"x.1.events": "a\n*1\nE1\n1e\n*3\nE1\n28\n*1\nE1\n28\n*1\n",
		"x.2.events": "14\n*2\nE1\n32\n*4\nE1\n32\n*4\n",
		"x.2.def":    "DCMT\"c\"\n",
		"x.0.marker": "QQQ\n",
	}
	got := map[string]string{}
	for n, f := range m {
		got[n] = string(f.Data)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if _, err := NewTraceWriter(c, &TraceWriterOptions{Stub: "y", Streams: []Stream{{1, []uint32{1}}, {2, []uint32{1}}}}); !errors.Is(err, ErrRange) {
		t.Errorf("process in two streams: %v", err)
	}
}

func TestWriterRejects(t *testing.T) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, nil)
	var rec Record
	rec.SetEnter(Enter{Function: 1})
	rec.num[0] = 1 << 40
	if err := w.Write(&rec); !errors.Is(err, ErrRange) {
		t.Errorf("u32 overflow: %v", err)
	}
	rec.SetUnknown([]byte("a\nb"))
	if err := w.Write(&rec); !errors.Is(err, ErrRange) {
		t.Errorf("LF in unknown: %v", err)
	}
	w.Close()
	if buf.Len() != 0 {
		t.Errorf("rejected records wrote %q", buf.String())
	}
}

// TestTraceReaderStreamError checks the merge's common case in Next: an
// error in one stream ends the merge and stays, and Next after Close is
// false.
func TestTraceReaderStreamError(t *testing.T) {
	fsys := fixtureFS(t, "minimal_ring_short")
	data := fsys["mini.1.events"].Data
	cut := bytes.Index(data, []byte("\nCNT1V955\n"))
	if cut < 0 {
		t.Fatal("fixture changed")
	}
	bad := slices.Concat(data[:cut+1], []byte("E 1 2 3 q\n"), data[cut+1:])
	fsys["mini.1.events"] = &fstest.MapFile{Data: bad}
	tr, err := OpenFS(fsys, "mini", nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := tr.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for r.Next() {
		n++
	}
	var pe *ParseError
	if !errors.As(r.Err(), &pe) || pe.Path != "mini.1.events" {
		t.Fatalf("got error %v, want a ParseError in mini.1.events", r.Err())
	}
	if n == 0 {
		t.Fatal("got no record before the error")
	}
	first := r.Err()
	if r.Next() || r.Err() != first {
		t.Fatalf("after the error: got Next true or error %v, want false and %v", r.Err(), first)
	}
	r.Close()
	r2, err := tr.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	r2.Next()
	r2.Next()
	r2.Close()
	if r2.Next() {
		t.Fatal("Next after Close: got true, want false")
	}
}
