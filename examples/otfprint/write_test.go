package main

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace/examples/internal/progtest"
)

const ring = "../../otf/testdata/minimal_ring_short/mini.otf"

// TestWriteErrors: an output that fails gives exit status 1 and one
// message, wherever it fails.
func TestWriteErrors(t *testing.T) {
	var full bytes.Buffer
	if code := command([]string{ring}, &full, io.Discard); code != 0 {
		t.Fatalf("exit status %d", code)
	}
	for _, n := range []int{0, 100, full.Len() / 2, full.Len() - 1} {
		var stderr bytes.Buffer
		if code := command([]string{ring}, &progtest.FailWriter{N: n}, &stderr); code != 1 {
			t.Errorf("writer failing after %d bytes: exit status %d, want 1", n, code)
		}
		if c := strings.Count(stderr.String(), progtest.ErrFull.Error()); c != 1 {
			t.Errorf("writer failing after %d bytes: stderr %q names the error %d times", n, stderr.String(), c)
		}
	}
}

// TestDevFull runs the program with its output on /dev/full, as standard
// output and as -o.
func TestDevFull(t *testing.T) {
	exe := progtest.Build(t)
	for _, args := range [][]string{{ring}, {"-o", "/dev/stdout", ring}} {
		code, stderr := progtest.DevFull(t, exe, args...)
		if code != 1 || !strings.Contains(stderr, "no space left") {
			t.Errorf("%v: exit status %d, stderr %q; want 1 and the error", args, code, stderr)
		}
	}
	var stderr bytes.Buffer
	if code := command([]string{"-o", "/dev/full", ring}, io.Discard, &stderr); code != 1 {
		t.Errorf("-o /dev/full: exit status %d, want 1", code)
	}
	if fi, err := os.Stat("/dev/full"); err != nil || fi.Mode()&fs.ModeDevice == 0 {
		t.Fatalf("/dev/full is gone or changed: %v %v", fi, err)
	}
}

// TestOutputFile: -o replaces a file with the whole output, refuses a
// file of the trace, and after a read error holds the text before it.
func TestOutputFile(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"mini.otf", "mini.0.def", "mini.1.events", "mini.2.events"} {
		data, err := os.ReadFile(filepath.Join("../../otf/testdata/minimal_ring_short", n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	master := filepath.Join(dir, "mini.otf")
	out := filepath.Join(dir, "out.txt")
	os.WriteFile(out, []byte("old"), 0o644)
	var stdout bytes.Buffer
	if code := command([]string{"--nodef", master}, &stdout, io.Discard); code != 0 {
		t.Fatal(code)
	}
	var errb bytes.Buffer
	if code := command([]string{"--nodef", "-o", out, master}, io.Discard, &errb); code != 1 || !strings.Contains(errb.String(), "-force") {
		t.Errorf("-o over an existing file without --force: exit status %d, stderr %q; want 1 naming -force", code, errb.String())
	}
	if got, _ := os.ReadFile(out); string(got) != "old" {
		t.Errorf("-o replaced an existing file without --force")
	}
	if code := command([]string{"--nodef", "--force", "-o", out, master}, io.Discard, io.Discard); code != 0 {
		t.Fatal(code)
	}
	got, _ := os.ReadFile(out)
	if cut(string(got)) != cut(stdout.String()) {
		t.Errorf("-o file holds\n%s\nwant\n%s", got, stdout.String())
	}

	// A file of the trace is refused, and stays.
	for _, n := range []string{"mini.otf", "mini.2.events"} {
		before, _ := os.ReadFile(filepath.Join(dir, n))
		var stderr bytes.Buffer
		if code := command([]string{"--force", "-o", filepath.Join(dir, n), master}, io.Discard, &stderr); code != 1 || !strings.Contains(stderr.String(), "input") {
			t.Errorf("-o %s: exit status %d, stderr %q", n, code, stderr.String())
		}
		if after, _ := os.ReadFile(filepath.Join(dir, n)); !bytes.Equal(before, after) {
			t.Errorf("-o %s changed it", n)
		}
	}

	// A damaged events file: the records before the fault, then status 1.
	f, _ := os.OpenFile(filepath.Join(dir, "mini.2.events"), os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString("ffffffffffffffffffff\n")
	f.Close()
	stdout.Reset()
	if code := command([]string{"--nodef", master}, &stdout, io.Discard); code != 1 {
		t.Fatalf("damaged trace: exit status %d", code)
	}
	var stderr bytes.Buffer
	if code := command([]string{"--nodef", "--force", "-o", out, master}, io.Discard, &stderr); code != 1 || stderr.Len() == 0 {
		t.Fatalf("damaged trace -o: exit status %d, stderr %q", code, stderr.String())
	}
	got, _ = os.ReadFile(out)
	if string(got) != stdout.String() || !strings.Contains(string(got), "Enter") {
		t.Errorf("-o file after a read error holds\n%s\nwant\n%s", got, stdout.String())
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// cut drops the processing-time line.
func cut(s string) string {
	i := strings.Index(s, "processing time:")
	if i < 0 {
		return s
	}
	return s[:i]
}
