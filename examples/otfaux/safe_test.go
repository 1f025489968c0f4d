package main

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace/examples/internal/progtest"
)

// dirState returns the names and contents of the files of dir.
func dirState(t *testing.T, dir string) map[string]string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(data)
	}
	return out
}

// TestFailureLeavesTrace runs otfaux -F --all on a trace whose second
// events file is damaged at its end: the run fails after the snapshot and
// statistics of earlier breaks were written, and the trace, its old
// auxiliary files and S.0.def are exactly as before, with no temporary
// file left.
func TestFailureLeavesTrace(t *testing.T) {
	dir := copyTrace(t, "otfaux_all", func(n string) bool { return strings.HasPrefix(n, "aux.") })
	f, err := os.OpenFile(filepath.Join(dir, "aux.2.events"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("ffffffffffffffffffff\n")
	f.Close()
	want := dirState(t, dir)
	for _, args := range [][]string{{"--all", "-F", "-n", "4"}, {"--all", "-F", "-t", "1"}, {"--thumbnail"}} {
		c, err := parseArgs(append(args, filepath.Join(dir, "aux.otf")))
		if err != nil {
			t.Fatal(err)
		}
		if err := run(c, os.Stderr); err == nil {
			t.Fatalf("%v: otfaux on a damaged trace succeeded", args)
		}
		got := dirState(t, dir)
		if !slices.Equal(slices.Sorted(keysOf(got)), slices.Sorted(keysOf(want))) {
			t.Fatalf("%v: directory holds %v, want %v", args, slices.Sorted(keysOf(got)), slices.Sorted(keysOf(want)))
		}
		for n := range want {
			if got[n] != want[n] {
				t.Errorf("%v: %s changed", args, n)
			}
		}
	}
}

func keysOf(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// TestForceReplaces: -F replaces the auxiliary files and removes the old
// ones the new run does not write (here compressed ones).
func TestForceReplaces(t *testing.T) {
	dir := copyTrace(t, "otfaux_all", traceFiles)
	os.WriteFile(filepath.Join(dir, "aux.1.snaps.z"), []byte("old"), 0o644)
	os.WriteFile(filepath.Join(dir, "aux.1.stats"), []byte("old"), 0o644)
	c, err := parseArgs([]string{"--all", "-n", "4", filepath.Join(dir, "aux.otf")})
	if err != nil {
		t.Fatal(err)
	}
	if err := run(c, os.Stderr); err == nil || !strings.Contains(err.Error(), "-F") {
		t.Fatalf("without -F: got %v, want a refusal", err)
	}
	runArgs(t, "--all", "-F", "-n", "4", filepath.Join(dir, "aux.otf"))
	got := dirState(t, dir)
	if _, ok := got["aux.1.snaps.z"]; ok {
		t.Error("the old aux.1.snaps.z is still there")
	}
	if got["aux.1.stats"] == "old" || got["aux.1.snaps"] == "" {
		t.Error("the auxiliary files were not written")
	}
}

// TestWriteErrors: -l and -v print to stdout; a failing stdout is an
// error.
func TestWriteErrors(t *testing.T) {
	dir := copyTrace(t, "otfaux_all", traceFiles)
	for _, args := range [][]string{{"-l"}, {"-v", "-n", "4"}} {
		c, err := parseArgs(append(args, filepath.Join(dir, "aux.otf")))
		if err != nil {
			t.Fatal(err)
		}
		c.force = true
		if err := run(c, &progtest.FailWriter{N: 5}); !errors.Is(err, progtest.ErrFull) {
			t.Errorf("%v: got %v, want the write error", args, err)
		}
	}
	code, stderr := progtest.DevFull(t, progtest.Build(t), "-l", filepath.Join(dir, "aux.otf"))
	if code != 1 || !strings.Contains(stderr, "no space left") {
		t.Errorf("-l on /dev/full: exit status %d, stderr %q", code, stderr)
	}
}
