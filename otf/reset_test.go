package otf

import (
	"io"
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// seekOnlyFS opens files that implement Read, Seek and Close only, so a
// Reader cannot use ReadAt; readOnlyFS's files cannot seek either.
type (
	seekOnlyFS struct{ fs.FS }
	readOnlyFS struct{ fs.FS }
	seekFile   struct{ f fs.File }
	readFile   struct{ f fs.File }
)

func (s seekOnlyFS) Open(name string) (fs.File, error) {
	f, err := s.FS.Open(name)
	if err != nil {
		return nil, err
	}
	return seekFile{f}, nil
}

func (s readOnlyFS) Open(name string) (fs.File, error) {
	f, err := s.FS.Open(name)
	if err != nil {
		return nil, err
	}
	return readFile{f}, nil
}

func (f seekFile) Read(p []byte) (int, error)           { return f.f.Read(p) }
func (f seekFile) Stat() (fs.FileInfo, error)           { return f.f.Stat() }
func (f seekFile) Close() error                         { return f.f.Close() }
func (f seekFile) Seek(off int64, w int) (int64, error) { return f.f.(io.Seeker).Seek(off, w) }
func (f readFile) Read(p []byte) (int, error)           { return f.f.Read(p) }
func (f readFile) Stat() (fs.FileInfo, error)           { return f.f.Stat() }
func (f readFile) Close() error                         { return f.f.Close() }

// readPass reads r to the end, cloning every record.
func readPass(t *testing.T, r *TraceReader) []*Record {
	t.Helper()
	var out []*Record
	for r.Next() {
		out = append(out, r.Record().Clone())
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTraceReaderReset reads traces through every kind of file a Trace
// can open, with several options, and checks that the passes after Reset
// (also after a partial pass and after SeekTime) repeat the first one.
func TestTraceReaderReset(t *testing.T) {
	plain := genTrace(t, 3, 5, 3000, false)
	zlib := genTrace(t, 3, 5, 3000, true)
	traces := map[string]fs.FS{
		"plain":         plain,
		"zlib":          zlib,
		"plain/seek":    seekOnlyFS{plain},
		"zlib/seek":     seekOnlyFS{zlib},
		"plain/reopen":  readOnlyFS{plain},
		"zlib/reopen":   readOnlyFS{zlib},
		"fixture/short": fixtureFS(t, "all_records_short"),
	}
	opts := map[string]*TraceReaderOptions{
		"all":       nil,
		"selection": {Processes: []uint32{2, 4}, From: 5000, To: 200000, Limit: 300},
		"defs":      {File: FileDef},
		"markers":   {File: FileMarker},
		"stats":     {File: FileStats},
	}
	for tname, fsys := range traces {
		name := "bench.otf"
		if tname == "fixture/short" {
			name = "allrec.otf"
		}
		tc, err := OpenFS(fsys, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		for oname, o := range opts {
			t.Run(tname+"/"+oname, func(t *testing.T) {
				r, err := tc.NewReader(o)
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				want := readPass(t, r)
				if err := r.Reset(); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, readPass(t, r), cmpRecord); diff != "" {
					t.Fatalf("second pass (-first +second):\n%s", diff)
				}
				// A partial pass, then Reset.
				if err := r.Reset(); err != nil {
					t.Fatal(err)
				}
				for range len(want) / 2 {
					r.Next()
				}
				if err := r.Reset(); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, readPass(t, r), cmpRecord); diff != "" {
					t.Fatalf("pass after a partial pass (-first +second):\n%s", diff)
				}
			})
		}
	}
}

// TestTraceReaderResetSeek checks Reset after SeekTime and SeekTime after
// Reset.
func TestTraceReaderResetSeek(t *testing.T) {
	r := openMerged(t, genTrace(t, 3, 5, 3000, false))
	want := readPass(t, r)
	mid := want[len(want)/2].Time
	if err := r.SeekTime(mid); err != nil {
		t.Fatal(err)
	}
	r.Next()
	if err := r.Reset(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, readPass(t, r), cmpRecord); diff != "" {
		t.Fatalf("pass after SeekTime and Reset (-first +second):\n%s", diff)
	}
	if err := r.Reset(); err != nil {
		t.Fatal(err)
	}
	r.Next()
	if err := r.SeekTime(mid); err != nil {
		t.Fatal(err)
	}
	got := readPass(t, r)
	if len(got) == 0 || got[0].Time < mid || len(got) > len(want) {
		t.Fatalf("SeekTime after Reset: %d records, want some from time %d", len(got), mid)
	}
	// Line numbers count from the restart point of a seek.
	tail := want[len(want)-len(got):]
	for i := range got {
		got[i].Line, tail[i].Line = 0, 0
	}
	if diff := cmp.Diff(tail, got, cmpRecord); diff != "" {
		t.Fatalf("SeekTime after Reset (-want +got):\n%s", diff)
	}
}

// TestTraceReaderResetClosed checks that Reset fails after Close.
func TestTraceReaderResetClosed(t *testing.T) {
	r := openMerged(t, genTrace(t, 2, 2, 100, false))
	r.Close()
	if err := r.Reset(); err == nil {
		t.Fatal("Reset after Close: got nil error")
	}
	if r.Next() {
		t.Fatal("Next after Close and Reset: got true")
	}
}

// TestTraceReaderResetAllocs pins the zero-allocation promise of Reset:
// a full merged pass over a plain trace, as BenchmarkGlobalRead runs it,
// allocates nothing.
func TestTraceReaderResetAllocs(t *testing.T) {
	plain := genTrace(t, 4, 8, 20000, false)
	zlib := genTrace(t, 4, 8, 20000, true)
	for i, f := range []fs.FS{plain, seekOnlyFS{plain}, zlib, seekOnlyFS{zlib}} {
		r := openMerged(t, f)
		pass := func() {
			if err := r.Reset(); err != nil {
				t.Fatal(err)
			}
			for r.Next() {
			}
			if err := r.Err(); err != nil {
				t.Fatal(err)
			}
		}
		pass()
		if n := testing.AllocsPerRun(5, pass); n != 0 {
			t.Errorf("%T (zlib %v): Reset and a full pass allocate %.1f times; want 0", f, i >= 2, n)
		}
		r.Close()
	}
}

var _ fs.FS = fstest.MapFS{}
