package main

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace/examples/internal/progtest"
)

// TestWriteErrors: an output that fails is an error, in text and JSON
// mode, with one file or several, wherever it fails.
func TestWriteErrors(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"-json"},
		{"../../eventjson/testdata/fig12.json", "../../picl/testdata/ring4.trf"},
		{"-json", "../../eventjson/testdata/fig12.json", "../../picl/testdata/ring4.trf"},
	} {
		var full bytes.Buffer
		if err := run(args, &full, io.Discard); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		for _, n := range []int{0, 100, full.Len() / 2, full.Len() - 1} {
			err := run(args, &progtest.FailWriter{N: n}, io.Discard)
			if !errors.Is(err, progtest.ErrFull) {
				t.Errorf("%v, writer failing after %d bytes: got %v, want the write error", args, n, err)
			}
		}
	}
}

// TestReportsBeforeError: the report of a good file is printed before the
// error of the next.
func TestReportsBeforeError(t *testing.T) {
	var want, got bytes.Buffer
	if err := run([]string{"../../eventjson/testdata/fig12.json"}, &want, io.Discard); err != nil {
		t.Fatal(err)
	}
	err := run([]string{"../../eventjson/testdata/fig12.json", "nonexistent.json"}, &got, io.Discard)
	if err == nil {
		t.Fatal("no error for a missing file")
	}
	if !strings.HasPrefix(got.String(), want.String()) {
		t.Errorf("the first file's report is not complete before the error:\n%s", got.String())
	}
}

// TestDevFull runs the program with its output on /dev/full.
func TestDevFull(t *testing.T) {
	exe := progtest.Build(t)
	for _, args := range [][]string{nil, {"-json"}} {
		code, stderr := progtest.DevFull(t, exe, args...)
		if code != 1 || !strings.Contains(stderr, "no space left") {
			t.Errorf("%v: exit status %d, stderr %q; want 1 and the error", args, code, stderr)
		}
	}
}
