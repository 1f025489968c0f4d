package otf_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hpctrace/hpctrace/otf"
)

// TestOpenMmap reads the fixtures merged, and after SeekTime, opened with
// and without OpenOptions.Mmap, and compares the records.
func TestOpenMmap(t *testing.T) {
	for _, dir := range []string{"all_records_short", "all_records_zlib_smallbuf", "ring_zlib_blocks", "minimal_ring_short"} {
		path := filepath.Join("testdata", dir)
		masters, err := fs.Glob(os.DirFS(path), "*.otf")
		if err != nil || len(masters) != 1 {
			t.Fatalf("%s: master file: %v %v", dir, masters, err)
		}
		open := func(o *otf.OpenOptions) *otf.TraceReader {
			tc, err := otf.Open(filepath.Join(path, masters[0]), o)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := tc.NewReader(nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { tr.Close() })
			return tr
		}
		read := func(tr *otf.TraceReader, n int) []string {
			var out []string
			for rec, err := range tr.All() {
				if err != nil {
					t.Fatalf("%s: %v", dir, err)
				}
				out = append(out, rec.String())
				if len(out) == n {
					break
				}
			}
			return out
		}
		plain, mapped := open(nil), open(&otf.OpenOptions{Mmap: true})
		want, got := read(plain, -1), read(mapped, -1)
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Fatalf("%s: mapped read %d records, want %d (or they differ)", dir, len(got), len(want))
		}
		for _, ts := range []uint64{0, 1000, 2500, 50_000, 1_500_000, 1 << 40} {
			if err := plain.SeekTime(ts); err != nil {
				t.Fatal(err)
			}
			if err := mapped.SeekTime(ts); err != nil {
				t.Fatalf("%s: mapped SeekTime(%d): %v", dir, ts, err)
			}
			if got, want := read(mapped, 50), read(plain, 50); !slices.Equal(got, want) {
				t.Fatalf("%s: after SeekTime(%d): mapped %q, want %q", dir, ts, got, want)
			}
		}
	}
}
