package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace/examples/internal/progtest"
)

// TestNoProgressOffTerminal runs otfaux --all with its standard error in
// a buffer (not a terminal): it succeeds and writes no progress line
// (carriage return, erase to the end of the line). The progress counts
// are tested with otf.AuxOptions.Progress in package otf, the Meter in
// package progress.
func TestNoProgressOffTerminal(t *testing.T) {
	dir := copyTrace(t, "otfaux_all", traceFiles)
	var stderr bytes.Buffer
	cmd := exec.Command(progtest.Build(t), "--all", "-n", "4", filepath.Join(dir, "aux.otf"))
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if s := stderr.String(); strings.ContainsAny(s, "\r\x1b") {
		t.Errorf("progress on a non-terminal: %q", s)
	}
}
