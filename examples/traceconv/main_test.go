package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestDUMPICopyIdentical copies every fixture rank through convert.
func TestDUMPICopyIdentical(t *testing.T) {
	bins, _ := filepath.Glob("../../dumpi/testdata/*/*-[0-9][0-9][0-9][0-9].bin")
	if len(bins) == 0 {
		t.Fatal("no fixtures")
	}
	for _, in := range bins {
		out := filepath.Join(t.TempDir(), "copy.bin")
		if err := convert(in, out, &options{}); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		want, _ := os.ReadFile(in)
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: copy differs (got %d bytes, want %d)", in, len(got), len(want))
		}
	}
}

func TestDetectUnknown(t *testing.T) {
	in := filepath.Join(t.TempDir(), "x.txt")
	if err := os.WriteFile(in, []byte("hello, not a trace"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := convert(in, filepath.Join(t.TempDir(), "y"), &options{}); err == nil {
		t.Fatal("convert of a text file succeeded; want an unknown-format error")
	}
}
