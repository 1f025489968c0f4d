package otf2

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// renamedCopy copies fixture fx into a temporary directory as the archive
// named name (name.otf2, name.def, name.marker, name.N.thumb and the
// directory name/) and returns the path of its anchor.
func renamedCopy(t testing.TB, fx, name string) string {
	t.Helper()
	src := filepath.Join("testdata", fx, "trace")
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if rel == "." {
			return nil
		}
		if rel != "traces" && !strings.HasPrefix(rel, "traces.") && !strings.HasPrefix(rel, "traces"+string(filepath.Separator)) {
			t.Fatalf("%s: a file of no archive", p)
		}
		out := filepath.Join(dst, name+strings.TrimPrefix(rel, "traces"))
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(out, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dst, name+".otf2")
}

// archiveText lists what an archive holds: its definitions, every
// location's events, the model events, the markers and thumbnails.
func archiveText(t *testing.T, a *Archive) []string {
	t.Helper()
	var out []string
	for _, d := range a.Defs.All() {
		out = append(out, d.Kind.String())
	}
	for _, l := range a.Locations() {
		r, err := a.EventReader(l)
		if err != nil {
			t.Fatal(err)
		}
		for r.Next() {
			ev := r.Record()
			out = append(out, ev.Kind.String()+" "+strings.Repeat("x", int(ev.Time%3)))
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		r.Close()
	}
	s, err := NewModelSource(a, nil)
	if err != nil {
		t.Fatal(err)
	}
	for ev, err := range s.All() {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev.Kind.String())
	}
	s.Close()
	if r, err := a.MarkerReader(); err == nil {
		for r.Next() {
		}
		out = append(out, "markers "+strings.Repeat("m", int(r.Count())))
		r.Close()
	}
	for n := range a.Anchor.NumThumbnails {
		r, err := a.ThumbnailReader(n)
		if err != nil {
			t.Fatal(err)
		}
		for r.Next() {
		}
		out = append(out, "thumbnail "+strings.Repeat("t", int(r.Count())))
		r.Close()
	}
	return out
}

// TestArchiveName: an archive whose anchor is not named traces.otf2 (its
// files renamed with it, as libotf2 and otf2-print expect) opens and reads
// as the original, names with dots in them too.
func TestArchiveName(t *testing.T) {
	for _, fx := range []string{"snapshots_markers", "threads_rma"} {
		want := archiveText(t, openFixture(t, fx))
		if fx == "snapshots_markers" && !slices.ContainsFunc(want, func(s string) bool { return strings.HasPrefix(s, "markers m") }) {
			t.Fatalf("%s: no markers read: %q", fx, want)
		}
		if fx == "snapshots_markers" && !slices.ContainsFunc(want, func(s string) bool { return strings.HasPrefix(s, "thumbnail t") }) {
			t.Fatalf("%s: no thumbnail read: %q", fx, want)
		}
		for _, name := range []string{"run1", "run.v2", "traces-copy"} {
			a, err := Open(renamedCopy(t, fx, name), nil)
			if err != nil {
				t.Fatalf("%s as %s: %v", fx, name, err)
			}
			if got := archiveText(t, a); !slices.Equal(got, want) {
				t.Errorf("%s as %s: %d records, want %d as the original's", fx, name, len(got), len(want))
			}
		}
	}
}
