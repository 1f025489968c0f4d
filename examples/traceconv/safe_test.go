package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace/examples/internal/outfile"
)

// copyTree copies the regular files of src into a new temporary directory.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// snapshot returns the names and contents of the files of dir.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(data)
	}
	return out
}

func sameSnapshot(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: directory holds %v, want %v", what, slices.Sorted(keys(got)), slices.Sorted(keys(want)))
		return
	}
	for n, w := range want {
		if g, ok := got[n]; !ok || g != w {
			t.Errorf("%s: %s changed", what, n)
		}
	}
}

func keys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// safetyCase is one input format: a valid input in a directory of its own,
// and a way to make it unreadable part-way.
type safetyCase struct {
	name    string
	dir     string // fixture directory
	in      string // input file name in dir
	outName string // a new output name (same format)
	corrupt func(t *testing.T, dir string)
}

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

var safetyCases = []safetyCase{
	{"picl", "../../picl/testdata", "ring4.trf", "out.trf", func(t *testing.T, dir string) {
		appendTo(t, filepath.Join(dir, "ring4.trf"), "-3 -21 garbage\n")
	}},
	{"json", "../../eventjson/testdata", "fig12_vclock.json", "out.json", func(t *testing.T, dir string) {
		data, _ := os.ReadFile(filepath.Join(dir, "fig12_vclock.json"))
		os.WriteFile(filepath.Join(dir, "fig12_vclock.json"), data[:len(data)-40], 0o644)
	}},
	{"dumpi", "../../dumpi/testdata/p2p_blocking", "dumpi-2026.11.22.01.32.56-0000.bin", "out.bin", func(t *testing.T, dir string) {
		p := filepath.Join(dir, "dumpi-2026.11.22.01.32.56-0000.bin")
		data, _ := os.ReadFile(p)
		for i := 200; i < len(data)-200; i++ {
			data[i] = 0xff // calls with unknown labels
		}
		os.WriteFile(p, data, 0o644)
	}},
	{"otf", "../../otf/testdata/minimal_ring_short", "mini.otf", "out.otf", func(t *testing.T, dir string) {
		appendTo(t, filepath.Join(dir, "mini.2.events"), "ffffffffffffffffffff\n")
	}},
}

// TestOutputIsInput refuses an output that is the input, through its own
// name, a hard link or a symbolic link, and leaves the input as it was.
func TestOutputIsInput(t *testing.T) {
	for _, tc := range safetyCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyTree(t, tc.dir)
			in := filepath.Join(dir, tc.in)
			if err := os.Link(in, filepath.Join(dir, "hard"+filepath.Ext(tc.in))); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(tc.in, filepath.Join(dir, "soft"+filepath.Ext(tc.in))); err != nil {
				t.Fatal(err)
			}
			want := snapshot(t, dir)
			for _, out := range []string{in, filepath.Join(dir, "hard"+filepath.Ext(tc.in)), filepath.Join(dir, "soft"+filepath.Ext(tc.in)), dir + "/./" + tc.in} {
				for _, force := range []bool{false, true} {
					err := convert(in, out, &options{force: force, otf: otfFlags{form: "short"}})
					if !errors.Is(err, outfile.ErrInput) {
						t.Errorf("%s -force=%v: got %v, want ErrInput", out, force, err)
					}
				}
			}
			sameSnapshot(t, "after refused copies", snapshot(t, dir), want)
		})
	}
}

// TestOutputOverwritesInputFile refuses conversions whose output would
// replace one of the files of the input trace other than the one named.
func TestOutputOverwritesInputFile(t *testing.T) {
	dir := copyTree(t, "../../dumpi/testdata/p2p_blocking")
	want := snapshot(t, dir)
	meta := filepath.Join(dir, "dumpi-2026.11.22.01.32.56.meta")
	rank1 := filepath.Join(dir, "dumpi-2026.11.22.01.32.56-0001.bin")
	if err := convert(meta, rank1, &options{to: "picl", force: true}); !errors.Is(err, outfile.ErrInput) {
		t.Errorf("DUMPI run to its rank file: got %v, want ErrInput", err)
	}
	sameSnapshot(t, "DUMPI run", snapshot(t, dir), want)

	dir = copyTree(t, "../../otf/testdata/minimal_ring_short")
	want = snapshot(t, dir)
	// The output mini.otf -to picl is the master; mini.1.events as a PICL
	// output is a record file of the input.
	for _, out := range []string{"mini.otf", "mini.1.events"} {
		if err := convert(filepath.Join(dir, "mini.otf"), filepath.Join(dir, out), &options{to: "picl", force: true}); !errors.Is(err, outfile.ErrInput) {
			t.Errorf("OTF to %s: got %v, want ErrInput", out, err)
		}
	}
	// An OTF output in the input's directory whose files would replace
	// the input's: a PICL input converted to the OTF trace "mini".
	picl := filepath.Join(dir, "ring4.trf")
	data, _ := os.ReadFile("../../picl/testdata/ring4.trf")
	os.WriteFile(picl, data, 0o644)
	want["ring4.trf"] = string(data)
	if err := os.Link(picl, filepath.Join(dir, "mini.5.events")); err != nil {
		t.Fatal(err)
	}
	want["mini.5.events"] = string(data)
	if err := convert(picl, filepath.Join(dir, "mini.otf"), &options{to: "otf", force: true, otf: otfFlags{form: "short"}}); !errors.Is(err, outfile.ErrInput) {
		t.Errorf("PICL to an OTF trace holding a link to it: got %v, want ErrInput", err)
	}
	sameSnapshot(t, "OTF", snapshot(t, dir), want)
}

// TestFailedConversionKeepsOutput converts an input that fails part-way:
// an existing output stays as it was, a new one is not created, and no
// temporary file is left behind.
func TestFailedConversionKeepsOutput(t *testing.T) {
	for _, tc := range safetyCases {
		for _, to := range []string{"", "picl", "otf", "json"} {
			if tc.name == "dumpi" && to == "otf" {
				continue // a single rank file converts through the model too; covered by picl and json
			}
			t.Run(tc.name+"/"+to, func(t *testing.T) {
				dir := copyTree(t, tc.dir)
				in := filepath.Join(dir, tc.in)
				tc.corrupt(t, dir)
				target := to
				if target == "" {
					target = tc.name
				}
				out := filepath.Join(dir, strings.TrimSuffix(tc.outName, filepath.Ext(tc.outName))+map[string]string{"picl": ".trf", "otf": ".otf", "json": ".json", "dumpi": ".bin"}[target])
				opts := &options{to: to, otf: otfFlags{form: "short"}}
				want := snapshot(t, dir)
				if err := convert(in, out, opts); err == nil {
					t.Fatal("the conversion of a corrupt input succeeded")
				}
				sameSnapshot(t, "new output", snapshot(t, dir), want)

				// An existing output, replaced with -force: still the old one.
				if target == "otf" {
					for _, n := range []string{"out.otf", "out.0.def", "out.1.events"} {
						os.WriteFile(filepath.Join(dir, n), []byte("precious "+n), 0o644)
					}
				} else {
					os.WriteFile(out, []byte("precious"), 0o644)
				}
				want = snapshot(t, dir)
				opts.force = true
				if err := convert(in, out, opts); err == nil {
					t.Fatal("the conversion of a corrupt input succeeded")
				}
				sameSnapshot(t, "existing output", snapshot(t, dir), want)
			})
		}
	}
}

// TestExistingOutputNeedsForce refuses to replace an output without -force
// and replaces it with -force.
func TestExistingOutputNeedsForce(t *testing.T) {
	for _, tc := range safetyCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyTree(t, tc.dir)
			in := filepath.Join(dir, tc.in)
			out := filepath.Join(dir, tc.outName)
			opts := &options{otf: otfFlags{form: "short"}}
			if err := convert(in, out, opts); err != nil {
				t.Fatal(err)
			}
			want := snapshot(t, dir)
			if err := convert(in, out, opts); !errors.Is(err, outfile.ErrExists) {
				t.Fatalf("second copy: got %v, want ErrExists", err)
			}
			sameSnapshot(t, "refused copy", snapshot(t, dir), want)
			opts.force = true
			if err := convert(in, out, opts); err != nil {
				t.Fatalf("copy with -force: %v", err)
			}
			sameSnapshot(t, "replaced copy", snapshot(t, dir), want)
		})
	}
}

// TestForceRemovesStaleOTFFiles replaces an OTF trace of 4 streams by one
// of 1 stream: the old streams' files go, the user's other files stay.
func TestForceRemovesStaleOTFFiles(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "t.otf")
	os.WriteFile(filepath.Join(dir, "t.notes"), []byte("mine"), 0o644)
	if err := convert("../../picl/testdata/ring4.trf", out, &options{to: "otf", otf: otfFlags{form: "short"}}); err != nil {
		t.Fatal(err)
	}
	if err := convert("../../picl/testdata/ring4.trf", out, &options{to: "otf", force: true, otf: otfFlags{form: "short", streams: 1}}); err != nil {
		t.Fatal(err)
	}
	got := slices.Sorted(keys(snapshot(t, dir)))
	if want := []string{"t.0.def", "t.1.events", "t.notes", "t.otf"}; !slices.Equal(got, want) {
		t.Errorf("directory holds %v, want %v", got, want)
	}
}

// TestDeviceOutput writes to /dev/null and /dev/full directly: the write
// error of /dev/full is an error, and the device stays.
func TestDeviceOutput(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	for _, in := range []string{"../../picl/testdata/ring4.trf", "../../eventjson/testdata/fig12.json", "../../dumpi/testdata/minimal/dumpi-2026.11.22.01.38.03-0000.bin"} {
		if err := convert(in, "/dev/null", &options{}); err != nil {
			t.Errorf("%s to /dev/null: %v", in, err)
		}
		err := convert(in, "/dev/full", &options{})
		if err == nil {
			t.Errorf("%s to /dev/full succeeded", in)
		}
		if fi, err := os.Stat("/dev/full"); err != nil || fi.Mode()&fs.ModeDevice == 0 {
			t.Fatalf("/dev/full is gone or changed: %v %v", fi, err)
		}
	}
}

// TestExitStatus runs the command line: 0 for a conversion, 1 with a
// message for a refused or failed one, 2 for a usage error.
func TestExitStatus(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.trf")
	for _, tc := range []struct {
		args   []string
		status int
		msg    string
	}{
		{[]string{"-in", "../../picl/testdata/ring4.trf", "-out", out}, 0, ""},
		{[]string{"-in", "../../picl/testdata/ring4.trf", "-out", out}, 1, "give -force"},
		{[]string{"-force", "-in", "../../picl/testdata/ring4.trf", "-out", out}, 0, ""},
		{[]string{"-force", "-in", out, "-out", out}, 1, "input"},
		{[]string{"-in", "../../picl/testdata/ring4.trf", "-out", "/dev/full"}, 1, "no space left"},
		{[]string{"-in", "../../picl/testdata/ring4.trf"}, 2, "usage"},
		{[]string{"-nosuchflag"}, 2, "usage"},
		{[]string{"-to", "xml", "-in", "../../picl/testdata/ring4.trf", "-out", filepath.Join(dir, "x")}, 1, "want otf, otf2, picl, json, perfetto or csv"},
	} {
		if tc.args[len(tc.args)-1] == "/dev/full" {
			if _, err := os.Stat("/dev/full"); err != nil {
				continue
			}
		}
		var stderr strings.Builder
		if got := run(tc.args, &stderr); got != tc.status || !strings.Contains(stderr.String(), tc.msg) {
			t.Errorf("%v: exit status %d, stderr %q; want %d and %q", tc.args, got, stderr.String(), tc.status, tc.msg)
		}
	}
}

// TestCSVOutput: -to csv writes a directory of tables; a second export
// into it needs -force, and a regular file as the directory is refused.
func TestCSVOutput(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tables")
	in := "../../picl/testdata/ring4.trf"
	if err := convert(in, dir, &options{to: "csv"}); err != nil {
		t.Fatal(err)
	}
	want := snapshot(t, dir)
	if err := convert(in, dir, &options{to: "csv"}); !errors.Is(err, outfile.ErrExists) {
		t.Errorf("second export: got %v, want ErrExists", err)
	}
	sameSnapshot(t, "refused export", snapshot(t, dir), want)
	if err := convert(in, dir, &options{to: "csv", force: true}); err != nil {
		t.Errorf("export with -force: %v", err)
	}
	sameSnapshot(t, "replaced export", snapshot(t, dir), want)
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, []byte("mine"), 0o644)
	if err := convert(in, file, &options{to: "csv", force: true}); err == nil {
		t.Error("a regular file as the CSV directory was accepted")
	}
	if data, _ := os.ReadFile(file); string(data) != "mine" {
		t.Error("the file was changed")
	}
}
