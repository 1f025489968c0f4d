package outfile

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ownedArchive claims the files of OTF2 archive "a": a.otf2, a.def and
// the directory a with its .evt and .def files.
func ownedArchive(name string) bool {
	switch name {
	case "a.otf2", "a.def", "a/":
		return true
	}
	f, ok := strings.CutPrefix(name, "a/")
	return ok && (strings.HasSuffix(f, ".evt") || strings.HasSuffix(f, ".def"))
}

// TestSetSubdir: a set with a directory creates it in the temporary
// directory, moves it into place whole, replaces an old one only with
// Force (removing its stale files) and refuses a directory holding files
// that are not the set's, or inputs.
func TestSetSubdir(t *testing.T) {
	dir := t.TempDir()
	s, err := NewSet(dir, "a.otf2", ownedArchive, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"a/x.txt", "b/0.evt", "a/b/0.evt", "../a/0.evt", "/a/0.evt"} {
		if _, err := s.Create(bad); err == nil {
			t.Errorf("Create(%q) accepted", bad)
		}
	}
	createAll(t, s, map[string]string{"a.otf2": "anchor", "a.def": "defs", "a/0.evt": "e0", "a/1.evt": "e1", "a/0.def": "d0"})
	if got := names(t, dir); len(got) != 1 || !strings.HasPrefix(got[0], ".a.otf2.tmp-") {
		t.Errorf("before Commit the directory holds %v", got)
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"a", "a.def", "a.otf2"}) {
		t.Errorf("directory holds %v", got)
	}
	if got := names(t, filepath.Join(dir, "a")); !slices.Equal(got, []string{"0.def", "0.evt", "1.evt"}) {
		t.Errorf("archive directory holds %v", got)
	}

	if _, err := NewSet(dir, "a.otf2", ownedArchive, nil); !errors.Is(err, ErrExists) {
		t.Fatalf("got %v, want ErrExists", err)
	}
	in := filepath.Join(dir, "a", "1.evt")
	if _, err := NewSet(dir, "a.otf2", ownedArchive, &Options{Force: true, Inputs: []string{in}}); !errors.Is(err, ErrInput) {
		t.Fatalf("an input in the directory: got %v, want ErrInput", err)
	}
	s, err = NewSet(dir, "a.otf2", ownedArchive, &Options{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	createAll(t, s, map[string]string{"a.otf2": "anchor2", "a.def": "defs2", "a/0.evt": "new"})
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := names(t, filepath.Join(dir, "a")); !slices.Equal(got, []string{"0.evt"}) {
		t.Errorf("archive directory holds %v", got)
	}
	if got := readString(t, filepath.Join(dir, "a", "0.evt")); got != "new" {
		t.Errorf("a/0.evt holds %q", got)
	}

	// An aborted set leaves the old output as it was.
	s, err = NewSet(dir, "a.otf2", ownedArchive, &Options{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	createAll(t, s, map[string]string{"a/0.evt": "aborted", "a/5.evt": "x"})
	if err := s.Abort(); err != nil {
		t.Fatal(err)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"a", "a.def", "a.otf2"}) {
		t.Errorf("after Abort the directory holds %v", got)
	}
	if got := readString(t, filepath.Join(dir, "a", "0.evt")); got != "new" {
		t.Errorf("after Abort a/0.evt holds %q", got)
	}

	// A directory with a file that is not the set's is not the old output.
	if err := os.WriteFile(filepath.Join(dir, "a", "notes.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := NewSet(dir, "a.otf2", ownedArchive, &Options{Force: true}); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a foreign file in the directory: got %v, want ErrNotRegular", err)
	}
}
