package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
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

// TestDropsAndStrict: a conversion that drops events says how many of
// each kind on stderr, and with -strict fails and writes nothing.
func TestDropsAndStrict(t *testing.T) {
	in := "../../otf/testdata/all_records_short/allrec.otf"
	dir := t.TempDir()
	var stderr bytes.Buffer
	out := filepath.Join(dir, "a.trf")
	if code := run([]string{"-to", "picl", "-in", in, "-out", out}, &stderr); code != 0 {
		t.Fatalf("exit status %d: %s", code, stderr.String())
	}
	for _, want := range []string{"59 other events not written", "24 coll_begin", "24 coll_end", "11 counter"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr %q: want %q", stderr.String(), want)
		}
	}
	stderr.Reset()
	out = filepath.Join(dir, "b.trf")
	if code := run([]string{"-strict", "-to", "picl", "-in", in, "-out", out}, &stderr); code != 1 || !strings.Contains(stderr.String(), "-strict: 59 other events") {
		t.Errorf("-strict: exit status %d, stderr %q; want 1 and the count", code, stderr.String())
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("-strict: the output was written")
	}
	stderr.Reset()
	rank := "../../dumpi/testdata/bgp_comm_create/dumpi-2026.11.24.12.10.00-0000.bin"
	if code := run([]string{"-to", "perfetto", "-in", rank, "-out", filepath.Join(dir, "p.json")}, &stderr); code != 0 || !strings.Contains(stderr.String(), "events not drawn: 2 messages without a known peer") {
		t.Errorf("-to perfetto: exit status %d, stderr %q; want 0 and the 2 messages not drawn", code, stderr.String())
	}
	stderr.Reset()
	if code := run([]string{"-strict", "-to", "otf", "-in", in, "-out", filepath.Join(dir, "c.otf")}, &stderr); code != 0 {
		t.Errorf("-strict OTF to OTF (nothing dropped): exit status %d, %s", code, stderr.String())
	}
}

// TestOTF2OutDir: -to otf2 -out DIR/ writes DIR/traces.otf2, creating
// DIR; an OUT that is neither an anchor name nor a directory is refused
// with a message saying what is expected.
func TestOTF2OutDir(t *testing.T) {
	in := "../../eventjson/testdata/fig12.json"
	dir := filepath.Join(t.TempDir(), "new")
	var stderr bytes.Buffer
	if code := run([]string{"-to", "otf2", "-in", in, "-out", dir + "/"}, &stderr); code != 0 {
		t.Fatalf("exit status %d: %s", code, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "traces.otf2")); err != nil {
		t.Errorf("no anchor inside the directory: %v", err)
	}
	// An existing directory, without the slash: a second archive there
	// needs -force.
	stderr.Reset()
	if code := run([]string{"-to", "otf2", "-in", in, "-out", dir}, &stderr); code != 1 || !strings.Contains(stderr.String(), "-force") {
		t.Errorf("existing archive in the directory: exit status %d, stderr %q; want 1 naming -force", code, stderr.String())
	}
	stderr.Reset()
	if code := run([]string{"-to", "otf2", "-in", in, "-out", filepath.Join(dir, "x.trf")}, &stderr); code != 1 || !strings.Contains(stderr.String(), "NAME.otf2 or a directory") {
		t.Errorf("-out x.trf: exit status %d, stderr %q; want 1 saying what is expected", code, stderr.String())
	}
}
