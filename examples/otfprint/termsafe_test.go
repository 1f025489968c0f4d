package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileNames: names and comments with escape sequences, carriage
// returns and bells are printed escaped; a tab and bytes that are not
// UTF-8 (a KOI8-R name) are printed as they are, as the reference does.
func TestHostileNames(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"m.otf":      "1:1\n",
		"m.0.def":    "DTR3b9aca00\nDP1NM\"Proc\x1b[31m\r0\"\nDFG1NM\"App\"\nDF1G1NM\"ma\x1b[2Jin\a\"\nDF2G1NM\"\xc7\xcc\xc1\"\n",
		"m.1.events": "100\n*1\nE1\n200\n*1\nE2\n300\n*1\nL2\n400\n*1\nL1\n",
	}
	for n, s := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := command([]string{filepath.Join(dir, "m.otf")}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	out := stdout.String()
	for i := 0; i < len(out); i++ {
		if c := out[i]; c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
			t.Errorf("control byte %#x at byte %d of the output", c, i)
		}
	}
	for _, want := range []string{`"Proc\x1b[31m\x0d0"`, `"ma\x1b[2Jin\x07"`, "\"\xc7\xcc\xc1\""} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
