package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace/examples/internal/progtest"
)

// TestCopyNoProgressOffTerminal copies a trace of every format with the
// program's standard error in a buffer (not a terminal): the copy
// succeeds and no progress line (carriage return, erase to the end of
// the line) is written. The counting itself is tested, through the same
// readers, in package progress.
func TestCopyNoProgressOffTerminal(t *testing.T) {
	prog := progtest.Build(t)
	for in, out := range map[string]string{
		"../../otf/testdata/all_records_zlib_smallbuf/allrec.otf":             "c.otf",
		"../../dumpi/testdata/annotations/dumpi-2026.11.22.01.33.19-0000.bin": "c-0000.bin",
		"../../picl/testdata/appendix_a.trf":                                  "c.trf",
		"../../otf2/testdata/minimal/trace/traces.otf2":                       "c.otf2",
		"../../eventjson/testdata/appendix_a.json":                            "c.json",
	} {
		var stderr bytes.Buffer
		cmd := exec.Command(prog, "-in", in, "-out", filepath.Join(t.TempDir(), out))
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Errorf("%s: %v\n%s", in, err, stderr.String())
			continue
		}
		if s := stderr.String(); strings.ContainsAny(s, "\r\x1b") {
			t.Errorf("%s: progress on a non-terminal: %q", in, s)
		}
	}
}
