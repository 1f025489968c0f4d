package outfile

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestTraceFiles: the files of an OTF2 archive, an OTF trace and a DUMPI
// run, and nothing else of their directory.
func TestTraceFiles(t *testing.T) {
	dir := t.TempDir()
	files := []string{"t.otf2", "t.def", "t.marker", "t.0.thumb", "t/0.evt", "t/0.def", "t/12.snap", "t/x.txt", "u.otf2",
		"s.otf", "s.0.def", "s.1.events.z", "s.a.stats", "s.thumb", "s.notes",
		"run.meta", "run-0000.bin", "run-0001.bin", "other.bin"}
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f))
		os.MkdirAll(filepath.Dir(p), 0o755)
		data := []byte("x")
		if f == "run.meta" {
			data = []byte("hostname=h\nnumprocs=2\nusername=u\nstartime=1\nfileprefix=run\nversion=1\nsubversion=1\nsubsubversion=0\n")
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rel := func(paths []string) []string {
		var out []string
		for _, p := range paths {
			r, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(r))
		}
		slices.Sort(out)
		return out
	}
	for in, want := range map[string][]string{
		"t.otf2":    {"t.0.thumb", "t.def", "t.marker", "t.otf2", "t/0.def", "t/0.evt", "t/12.snap"},
		"s.otf":     {"s.0.def", "s.1.events.z", "s.a.stats", "s.otf", "s.thumb"},
		"run.meta":  {"run-0000.bin", "run-0001.bin", "run.meta"},
		"other.bin": {"other.bin"},
	} {
		if got := rel(TraceFiles(filepath.Join(dir, in))); !slices.Equal(got, want) {
			t.Errorf("TraceFiles(%s) = %v, want %v", in, got, want)
		}
	}
}
