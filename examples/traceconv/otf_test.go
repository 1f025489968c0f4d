package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace/internal/zflush"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf"
)

type memFile struct {
	bytes.Buffer
	name string
	fs   fstest.MapFS
}

func (f *memFile) Close() error {
	f.fs[f.name] = &fstest.MapFile{Data: bytes.Clone(f.Bytes())}
	return nil
}

func memCreator(m fstest.MapFS) model.Creator {
	return model.CreateFunc(func(name string) (io.WriteCloser, error) {
		return &memFile{name: name, fs: m}, nil
	})
}

func inflate(t *testing.T, data []byte) []byte {
	t.Helper()
	z, err := zflush.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// text returns the record files of trace stub in dir, inflated, by name without ".z".
func text(t *testing.T, fsys map[string][]byte) map[string]string {
	t.Helper()
	out := map[string]string{}
	for name, data := range fsys {
		if n, ok := strings.CutSuffix(name, ".z"); ok {
			out[n] = string(inflate(t, data))
		} else {
			out[name] = string(data)
		}
	}
	return out
}

func fixture(t *testing.T, dir string) (fstest.MapFS, string, map[string][]byte) {
	t.Helper()
	masters, _ := filepath.Glob(filepath.Join("../../otf/testdata", dir, "*.otf"))
	if len(masters) != 1 {
		t.Fatalf("master files in %s: %v", dir, masters)
	}
	stub := strings.TrimSuffix(filepath.Base(masters[0]), ".otf")
	files, _ := filepath.Glob(filepath.Join("../../otf/testdata", dir, stub+".*"))
	in := fstest.MapFS{}
	trace := map[string][]byte{}
	for _, f := range files {
		base := filepath.Base(f)
		if strings.HasSuffix(base, ".thumb") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		in[base] = &fstest.MapFile{Data: data}
		trace[base] = data
	}
	return in, stub, trace
}

func TestCopySameForm(t *testing.T) {
	for _, tc := range []struct {
		dir  string
		form string
		zlib bool
	}{
		{"all_records_short", "short", false},
		{"all_records_long", "long", false},
		{"edge_values_short", "short", false},
		{"minimal_ring_short", "short", false},
		{"otfaux_all", "short", false},
		{"all_records_zlib_smallbuf", "short", true},
		{"ring_zlib_blocks", "short", true},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			in, stub, trace := fixture(t, tc.dir)
			out := fstest.MapFS{}
			if err := copyOTF(in, stub+".otf", memCreator(out), stub, &otfFlags{form: tc.form, zlib: tc.zlib, zlibBlock: 512}); err != nil {
				t.Fatal(err)
			}
			got := map[string][]byte{}
			for n, f := range out {
				got[n] = f.Data
			}
			if !tc.zlib {
				for n, data := range got {
					if !bytes.Equal(data, trace[n]) {
						t.Errorf("%s differs from the reference file", n)
					}
				}
				if len(got) != len(trace) {
					t.Errorf("got %d files, want %d", len(got), len(trace))
				}
				return
			}
			if diff := cmp.Diff(text(t, trace), text(t, got)); diff != "" {
				t.Errorf("decompressed text (-reference +copy):\n%s", diff)
			}
		})
	}
}

// perProcess reads every record file type of a trace and returns each
// process's records as text, plus the definitions and markers.
func perProcess(t *testing.T, fsys fstest.MapFS, stub string) map[string][]string {
	t.Helper()
	tr, err := otf.OpenFS(fsys, stub+".otf", nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, f := range []otf.FileType{otf.FileDef, otf.FileEvents, otf.FileSnaps, otf.FileStats, otf.FileMarker} {
		r, err := tr.NewReader(&otf.TraceReaderOptions{File: f})
		if err != nil {
			t.Fatal(err)
		}
		for rec, err := range r.All() {
			if err != nil {
				t.Fatal(err)
			}
			key := fmt.Sprintf("%v/%d", f, rec.Process)
			if f == otf.FileDef {
				key = "def"
			}
			out[key] = append(out[key], rec.String())
		}
		r.Close()
	}
	return out
}

func TestRestream(t *testing.T) {
	for _, dir := range []string{"all_records_short", "ring_zlib_blocks", "otfaux_all"} {
		for _, m := range []int{1, 2, 5} {
			t.Run(fmt.Sprintf("%s/%d", dir, m), func(t *testing.T) {
				in, stub, _ := fixture(t, dir)
				out := fstest.MapFS{}
				if err := copyOTF(in, stub+".otf", memCreator(out), "new", &otfFlags{form: "long", streams: m}); err != nil {
					t.Fatal(err)
				}
				tr, err := otf.OpenFS(out, "new.otf", nil)
				if err != nil {
					t.Fatal(err)
				}
				var procs []uint32
				for _, s := range tr.Streams {
					procs = append(procs, s.Processes...)
				}
				if len(tr.Streams) > m {
					t.Errorf("got %d streams, want at most %d", len(tr.Streams), m)
				}
				slices.Sort(procs)
				want, got := perProcess(t, in, stub), perProcess(t, out, "new")
				slices.Sort(want["def"])
				slices.Sort(got["def"])
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("records per process (-input +output):\n%s", diff)
				}
			})
		}
	}
}
