package outfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// names lists the entries of dir.
func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWriteNew(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	if err := Write(out, nil, writeString("hello")); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, out); got != "hello" {
		t.Errorf("content %q, want hello", got)
	}
	// The same permission bits as os.Create gives.
	ref := filepath.Join(dir, "ref")
	f, err := os.Create(ref)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	a, _ := os.Stat(out)
	b, _ := os.Stat(ref)
	if a.Mode() != b.Mode() {
		t.Errorf("mode %v, want %v as os.Create", a.Mode(), b.Mode())
	}
	if got := names(t, dir); !slices.Equal(got, []string{"out", "ref"}) {
		t.Errorf("directory holds %v", got)
	}
}

func TestExistingNeedsForce(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	if err := os.WriteFile(out, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := Write(out, nil, writeString("new")); !errors.Is(err, ErrExists) {
		t.Fatalf("got %v, want ErrExists", err)
	}
	if got := readString(t, out); got != "old" {
		t.Errorf("content %q after a refused write", got)
	}
	if err := Write(out, &Options{Force: true}, writeString("new")); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, out); got != "new" {
		t.Errorf("content %q, want new", got)
	}
	if fi, _ := os.Stat(out); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want the replaced file's 0640", fi.Mode())
	}
}

func TestFailureKeepsTarget(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	if err := os.WriteFile(out, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(out, &Options{Force: true}, func(w io.Writer) error {
		w.Write(make([]byte, 1<<20)) // past the buffer: the temporary file has data
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want boom", err)
	}
	if got := readString(t, out); got != "old" {
		t.Errorf("content %q after a failed write", got)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"out"}) {
		t.Errorf("directory holds %v: the temporary file was not removed", got)
	}
	// A new output that fails leaves nothing.
	err = Write(filepath.Join(dir, "new"), nil, func(w io.Writer) error { return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want boom", err)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"out"}) {
		t.Errorf("directory holds %v", got)
	}
}

func TestAbort(t *testing.T) {
	dir := t.TempDir()
	f, err := Create(filepath.Join(dir, "out"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.Direct() {
		t.Fatal("a new regular file is written directly")
	}
	f.Write([]byte("x"))
	if err := f.Abort(); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := names(t, dir); len(got) != 0 {
		t.Errorf("directory holds %v after Abort", got)
	}
}

func TestInputRefused(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	if err := os.WriteFile(in, []byte("input"), 0o644); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard")
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	soft := filepath.Join(dir, "soft")
	if err := os.Symlink("in", soft); err != nil {
		t.Fatal(err)
	}
	opts := &Options{Force: true, Inputs: []string{in}}
	for _, out := range []string{in, hard, soft, dir + "/./in"} {
		if err := Write(out, opts, writeString("x")); !errors.Is(err, ErrInput) {
			t.Errorf("%s: got %v, want ErrInput", out, err)
		}
	}
	if got := readString(t, in); got != "input" {
		t.Errorf("input now holds %q", got)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"hard", "in", "soft"}) {
		t.Errorf("directory holds %v", got)
	}
}

func TestSymlinkFollowed(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "real"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink("real", link); err != nil {
		t.Fatal(err)
	}
	if err := Write(link, &Options{Force: true}, writeString("new")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi, err)
	}
	if got := readString(t, filepath.Join(dir, "real")); got != "new" {
		t.Errorf("target holds %q", got)
	}
}

func TestRefusedPaths(t *testing.T) {
	dir := t.TempDir()
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink("nowhere", dangling); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, dangling} {
		if err := Write(p, &Options{Force: true}, writeString("x")); !errors.Is(err, ErrNotRegular) {
			t.Errorf("%s: got %v, want ErrNotRegular", p, err)
		}
	}
	if got := names(t, dir); !slices.Equal(got, []string{"dangling"}) {
		t.Errorf("directory holds %v", got)
	}
}

// TestDevices writes to devices directly: no temporary file, no -force,
// and the write error of /dev/full is returned.
func TestDevices(t *testing.T) {
	if _, err := os.Stat("/dev/null"); err != nil {
		t.Skip("no /dev/null")
	}
	if err := Write("/dev/null", nil, writeString("x")); err != nil {
		t.Errorf("/dev/null: %v", err)
	}
	if _, err := os.Stat("/dev/full"); err != nil {
		return
	}
	f, err := Create("/dev/full", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !f.Direct() {
		t.Error("/dev/full is not written directly")
	}
	f.Abort()
	err = Write("/dev/full", nil, writeString(strings.Repeat("x", 100)))
	if err == nil {
		t.Fatal("writing /dev/full succeeded")
	}
	if fi, serr := os.Stat("/dev/full"); serr != nil || fi.Mode()&fs.ModeDevice == 0 {
		t.Fatalf("/dev/full is gone or changed: %v %v", fi, serr)
	}
}

// owned claims the files of trace "t".
func owned(name string) bool { return strings.HasPrefix(name, "t.") }

func createAll(t *testing.T, s *Set, files map[string]string) {
	t.Helper()
	for _, n := range slices.Sorted(func(yield func(string) bool) {
		for n := range files {
			if !yield(n) {
				return
			}
		}
	}) {
		w, err := s.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(w, files[n]); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSet(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "other"), []byte("keep"), 0o644)
	s, err := NewSet(dir, "t.otf", owned, nil)
	if err != nil {
		t.Fatal(err)
	}
	createAll(t, s, map[string]string{"t.otf": "master", "t.1.events": "ev1", "t.2.events": "ev2"})
	if got := names(t, dir); len(got) != 2 {
		t.Errorf("before Commit the directory holds %v", got)
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"other", "t.1.events", "t.2.events", "t.otf"}) {
		t.Errorf("directory holds %v", got)
	}

	// A second output needs Force; then it replaces and removes stale files.
	if _, err := NewSet(dir, "t.otf", owned, nil); !errors.Is(err, ErrExists) {
		t.Fatalf("got %v, want ErrExists", err)
	}
	s, err = NewSet(dir, "t.otf", owned, &Options{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	createAll(t, s, map[string]string{"t.otf": "master2", "t.1.events": "new"})
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"other", "t.1.events", "t.otf"}) {
		t.Errorf("directory holds %v", got)
	}
	if got := readString(t, filepath.Join(dir, "t.1.events")); got != "new" {
		t.Errorf("t.1.events holds %q", got)
	}
	if got := readString(t, filepath.Join(dir, "other")); got != "keep" {
		t.Errorf("other holds %q", got)
	}
}

func TestSetFailure(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "t.otf"), []byte("old"), 0o644)
	os.WriteFile(filepath.Join(dir, "t.1.events"), []byte("old"), 0o644)
	want := names(t, dir)

	// Aborted, an open file left behind, or no last file: nothing changes.
	for _, tc := range []struct {
		name string
		run  func(s *Set) error
	}{
		{"abort", func(s *Set) error {
			createAll(t, s, map[string]string{"t.otf": "m", "t.1.events": "e"})
			s.Abort()
			return errors.New("aborted")
		}},
		{"open", func(s *Set) error {
			createAll(t, s, map[string]string{"t.otf": "m"})
			if _, err := s.Create("t.1.events"); err != nil {
				t.Fatal(err)
			}
			return s.Commit()
		}},
		{"no last", func(s *Set) error {
			createAll(t, s, map[string]string{"t.1.events": "e"})
			return s.Commit()
		}},
	} {
		s, err := NewSet(dir, "t.otf", owned, &Options{Force: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := tc.run(s); err == nil {
			t.Errorf("%s: Commit succeeded", tc.name)
		}
		if got := names(t, dir); !slices.Equal(got, want) {
			t.Errorf("%s: directory holds %v, want %v", tc.name, got, want)
		}
		if got := readString(t, filepath.Join(dir, "t.otf")); got != "old" {
			t.Errorf("%s: t.otf holds %q", tc.name, got)
		}
	}
}

func TestSetRefusals(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(t.TempDir(), "input.events")
	os.WriteFile(in, []byte("in"), 0o644)
	if err := os.Link(in, filepath.Join(dir, "t.1.events")); err != nil {
		t.Fatal(err)
	}
	if _, err := NewSet(dir, "t.otf", owned, &Options{Force: true, Inputs: []string{in}}); !errors.Is(err, ErrInput) {
		t.Errorf("got %v, want ErrInput", err)
	}
	os.Remove(filepath.Join(dir, "t.1.events"))
	if err := os.Symlink(in, filepath.Join(dir, "t.2.events")); err != nil {
		t.Fatal(err)
	}
	if _, err := NewSet(dir, "t.otf", owned, &Options{Force: true}); !errors.Is(err, ErrNotRegular) {
		t.Errorf("got %v, want ErrNotRegular", err)
	}
	if _, err := NewSet(dir, "x.otf", owned, nil); err == nil {
		t.Error("a last name the set does not own was accepted")
	}
	s, err := NewSet(dir, "t.otf", func(n string) bool { return strings.HasPrefix(n, "t.") && n != "t.2.events" }, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Abort()
	for _, n := range []string{"u.otf", "../t.otf", "sub/t.1.events"} {
		if _, err := s.Create(n); err == nil {
			t.Errorf("Create(%q) succeeded", n)
		}
	}
}

// TestStdoutAppends writes through /dev/stdout of a child whose standard
// output is a file opened for appending: the file's content stays and the
// output follows it; and an input file as that standard output is refused.
func TestStdoutAppends(t *testing.T) {
	if os.Getenv("OUTFILE_CHILD") != "" {
		err := Write("/dev/stdout", &Options{Inputs: strings.Split(os.Getenv("OUTFILE_INPUTS"), ":")}, writeString("new\n"))
		if err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(3)
		}
		os.Exit(0)
	}
	if _, err := os.Stat("/proc/self/fd/1"); err != nil {
		t.Skip("no /proc")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	os.WriteFile(out, []byte("old\n"), 0o644)
	for _, tc := range []struct {
		inputs string
		status int
		want   string
	}{{"", 0, "old\nnew\n"}, {out, 3, "old\nnew\n"}} {
		f, err := os.OpenFile(out, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestStdoutAppends$")
		cmd.Env = append(os.Environ(), "OUTFILE_CHILD=1", "OUTFILE_INPUTS="+tc.inputs)
		cmd.Stdout = f
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err = cmd.Run()
		f.Close()
		status := 0
		if ee, ok := err.(*exec.ExitError); ok {
			status = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if status != tc.status {
			t.Errorf("inputs %q: exit status %d, want %d (%s)", tc.inputs, status, tc.status, stderr.String())
		}
		if got := readString(t, out); got != tc.want {
			t.Errorf("inputs %q: file holds %q, want %q", tc.inputs, got, tc.want)
		}
	}
}
