package otf_test

import (
	"io/fs"
	"slices"
	"testing"
	"testing/fstest"

	"pgregory.net/rapid"

	"github.com/hpctrace/hpctrace/otf"
)

// seqFS opens its files without io.ReaderAt, so a reader cannot seek in
// them and a time window can only filter.
type seqFS struct{ fstest.MapFS }

type seqOnly struct{ f fs.File }

func (s seqOnly) Read(p []byte) (int, error) { return s.f.Read(p) }
func (s seqOnly) Stat() (fs.FileInfo, error) { return s.f.Stat() }
func (s seqOnly) Close() error               { return s.f.Close() }

func (s seqFS) Open(name string) (fs.File, error) {
	f, err := s.MapFS.Open(name)
	if err != nil {
		return nil, err
	}
	return seqOnly{f}, nil
}

// TestWindowMatchesFilter draws traces of 1 to 3 streams (plain and zlib
// with many block sizes) and windows [From, To), some with a process
// selection, and checks that the window, which seeks, returns what the
// same window returns from files without random access, where it only
// filters.
func TestWindowMatchesFilter(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nstreams := rapid.IntRange(1, 3).Draw(t, "streams")
		zlib := rapid.Bool().Draw(t, "zlib")
		fsys := fstest.MapFS{}
		var master []otf.Stream
		var times []uint64
		for s := range nstreams {
			id := uint32(s + 1)
			recs := genTrace(t)
			for _, rec := range recs {
				rec.Process = id*10 + rec.Process%2
				times = append(times, rec.Time)
			}
			data := writeTrace(t, recs, zlib, rapid.IntRange(1, 64).Draw(t, "flushEvery"))
			fsys[otf.FileName("g", id, otf.FileEvents, zlib)] = &fstest.MapFile{Data: data}
			master = append(master, otf.Stream{ID: id, Processes: []uint32{id * 10, id*10 + 1}})
		}
		fsys["g.otf"] = &fstest.MapFile{Data: otf.AppendMaster(nil, master)}
		pick := func(label string) uint64 {
			tm := times[rapid.IntRange(0, len(times)-1).Draw(t, label)]
			return tm + rapid.Uint64Range(0, 2).Draw(t, label+"d") - 1
		}
		var opts otf.TraceReaderOptions
		opts.From = max(pick("from"), 1) // From 0 is no window
		if rapid.Bool().Draw(t, "to") {
			opts.To = max(pick("to"), opts.From)
		}
		opts.ReferenceOrder = rapid.Bool().Draw(t, "referenceOrder")
		if rapid.IntRange(0, 3).Draw(t, "sel") == 0 {
			opts.Processes = []uint32{10, 21}
		}
		read := func(fsys fs.FS) []string {
			tc, err := otf.OpenFS(fsys, "g.otf", nil)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := tc.NewReader(&opts)
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
			return out
		}
		got, want := read(fsys), read(seqFS{fsys})
		if !slices.Equal(got, want) {
			t.Fatalf("window [%d, %d): %d records, the filter gives %d", opts.From, opts.To, len(got), len(want))
		}
	})
}
