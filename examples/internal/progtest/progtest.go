// Package progtest helps the tests of the programs under examples/ check
// that write errors are errors: a writer that fails after a given number
// of bytes, and a run of a program with its standard output on /dev/full.
package progtest

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// ErrFull is the error of a FailWriter.
var ErrFull = errors.New("progtest: no space left on the test device")

// A FailWriter accepts N bytes, then fails with ErrFull.
type FailWriter struct{ N int }

// Write writes what still fits in N and fails with ErrFull when p does
// not fit.
func (w *FailWriter) Write(p []byte) (int, error) {
	if len(p) > w.N {
		k := w.N
		w.N = 0
		return k, ErrFull
	}
	w.N -= len(p)
	return len(p), nil
}

// Build builds the program in the current directory (the test's package)
// and returns the path of the executable.
func Build(t testing.TB) string {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "prog")
	if out, err := exec.Command("go", "build", "-o", exe, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return exe
}

// DevFull runs the executable exe with args and its standard output on
// /dev/full, and returns its exit status and standard error. It skips the
// test on a system without /dev/full.
func DevFull(t testing.TB, exe string, args ...string) (status int, stderr string) {
	t.Helper()
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full")
	}
	defer full.Close()
	cmd := exec.Command(exe, args...)
	cmd.Stdout = full
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, errOut.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), errOut.String()
	}
	t.Fatal(err)
	return -1, ""
}
