package main

import (
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace/examples/internal/progtest"
)

// TestDevFull runs the program with its output on /dev/full: exit status
// 1 and the write error on stderr.
func TestDevFull(t *testing.T) {
	code, stderr := progtest.DevFull(t, progtest.Build(t), "../../otf2/testdata/minimal/trace/traces.otf2")
	if code != 1 || !strings.Contains(stderr, "no space left") {
		t.Errorf("exit status %d, stderr %q; want 1 and the error", code, stderr)
	}
}
