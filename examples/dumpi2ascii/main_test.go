package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoldens runs the program on every fixture rank and compares its
// output with the reference dumpi2ascii -a golden.
func TestGoldens(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "dumpi2ascii")
	if out, err := exec.Command("go", "build", "-o", exe, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	bins, _ := filepath.Glob("../../dumpi/testdata/*/*-[0-9][0-9][0-9][0-9].bin")
	if len(bins) == 0 {
		t.Fatal("no fixtures")
	}
	for _, bin := range bins {
		rank := strings.TrimLeft(bin[len(bin)-8:len(bin)-4], "0")
		if rank == "" {
			rank = "0"
		}
		golden := filepath.Join(filepath.Dir(bin), "rank"+rank+".ascii.txt.gz")
		t.Run(bin, func(t *testing.T) {
			got, err := exec.Command(exe, bin).Output()
			if err != nil {
				t.Fatal(err)
			}
			gf, err := os.Open(golden)
			if err != nil {
				t.Fatal(err)
			}
			defer gf.Close()
			z, err := gzip.NewReader(gf)
			if err != nil {
				t.Fatal(err)
			}
			want, err := io.ReadAll(z)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("output differs from %s (got %d bytes, want %d)", golden, len(got), len(want))
			}
		})
	}
}
