package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// copyTrace copies the files of a fixture whose names pass keep into a new
// temporary directory; DEFAUXSAMPLEPOINT lines are dropped from S.0.def.
func copyTrace(t *testing.T, fixture string, keep func(string) bool) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join("../../otf/testdata", fixture)
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		n := e.Name()
		if strings.HasPrefix(n, "golden") || !keep(n) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, n))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(n, ".0.def") {
			var kept []string
			for l := range strings.Lines(string(data)) {
				if !strings.HasPrefix(l, "DAUX") {
					kept = append(kept, l)
				}
			}
			data = []byte(strings.Join(kept, ""))
		}
		if err := os.WriteFile(filepath.Join(dir, n), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func traceFiles(n string) bool {
	return strings.HasSuffix(n, ".otf") || strings.HasSuffix(n, ".def") || strings.HasSuffix(n, ".events") ||
		strings.HasSuffix(n, ".marker")
}

func runArgs(t *testing.T, args ...string) {
	t.Helper()
	c, err := parseArgs(args)
	if err != nil {
		t.Fatal(err)
	}
	if err := run(c, io.Discard); err != nil {
		t.Fatalf("otfaux %v: %v", args, err)
	}
}

func sameFile(t *testing.T, got, want string) {
	t.Helper()
	g, err := os.ReadFile(got)
	if err != nil {
		t.Fatal(err)
	}
	w, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	if string(g) != string(w) {
		t.Errorf("%s differs from %s:\ngot\n%s\nwant\n%s", got, want, g, w)
	}
}

// TestFixture reruns `otfaux --all -n 4 -t 108500` on the otfaux_all trace
// and compares every file it writes with the reference's, byte for byte,
// the thumbnail included.
func TestFixture(t *testing.T) {
	dir := copyTrace(t, "otfaux_all", traceFiles)
	runArgs(t, "--all", "-n", "4", "-t", "108500", filepath.Join(dir, "aux.otf"))
	for _, n := range []string{"aux.0.def", "aux.1.snaps", "aux.2.snaps", "aux.1.stats", "aux.2.stats", "aux.thumb"} {
		sameFile(t, filepath.Join(dir, n), filepath.Join("../../otf/testdata/otfaux_all", n))
	}
	// A second run refuses to overwrite, -F overwrites, -R removes.
	c, _ := parseArgs([]string{"--all", filepath.Join(dir, "aux.otf")})
	if err := run(c, io.Discard); err == nil {
		t.Error("a second run overwrote the snapshot files without -F")
	}
	runArgs(t, "-R", filepath.Join(dir, "aux.otf"))
	if _, err := os.Stat(filepath.Join(dir, "aux.1.snaps")); err == nil {
		t.Error("-R left aux.1.snaps")
	}
}

func TestParseArgs(t *testing.T) {
	c, err := parseArgs([]string{"-p", "100", "-t", "5", "-t", "9", "--statistics", "x.otf"})
	if err != nil || c.period != 100 || len(c.times) != 2 || c.snaps || !c.stats || c.n != 0 {
		t.Errorf("parseArgs: %+v, %v", c, err)
	}
	if c, err := parseArgs([]string{"x.otf"}); err != nil || c.n != 200 || !c.snaps || c.stats {
		t.Errorf("defaults: %+v, %v", c, err)
	}
	for _, bad := range [][]string{{}, {"-n", "1", "x.otf"}, {"--bogus", "x.otf"}, {"-n"}, {"a.otf", "b.otf"}} {
		if _, err := parseArgs(bad); err == nil {
			t.Errorf("parseArgs(%q): no error", bad)
		}
	}
}

// TestReference compares with the reference otfaux (skipped when it is not
// installed) on the all_records_short trace, which has file operations,
// begin/end collectives and file operations, counters, key-values and
// messages, for several option sets: the snapshot and statistics files and
// the DEFAUXSAMPLEPOINT records must be the same.
func TestReference(t *testing.T) {
	ref, err := exec.LookPath("otfaux")
	if err != nil {
		t.Skip("reference otfaux not installed")
	}
	for _, opts := range [][]string{
		{"--all", "-n", "5"},
		{"--all", "-n", "7", "--funcgroups", "--filegroups"},
		{"--statistics", "-p", "500", "-t", "3000"},
		{"--snapshots", "-n", "3"},
		{"--thumbnail", "--thumbnail-samples", "500"},
	} {
		t.Run(strings.Join(opts, " "), func(t *testing.T) {
			keep := traceFiles
			theirs := copyTrace(t, "all_records_short", keep)
			ours := copyTrace(t, "all_records_short", keep)
			cmd := exec.Command(ref, append(opts, "allrec.otf")...)
			cmd.Dir = theirs
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("reference otfaux: %v\n%s", err, out)
			}
			runArgs(t, append(opts, filepath.Join(ours, "allrec.otf"))...)
			for _, id := range []string{"1", "2", "3"} {
				for _, ext := range []string{"snaps", "stats"} {
					n := "allrec." + id + "." + ext
					_, e1 := os.Stat(filepath.Join(theirs, n))
					_, e2 := os.Stat(filepath.Join(ours, n))
					if (e1 == nil) != (e2 == nil) {
						t.Errorf("%s: reference wrote it: %v, we did: %v", n, e1 == nil, e2 == nil)
						continue
					}
					if e1 == nil {
						sameFile(t, filepath.Join(ours, n), filepath.Join(theirs, n))
					}
				}
			}
			if _, err := os.Stat(filepath.Join(theirs, "allrec.thumb")); err == nil {
				sameFile(t, filepath.Join(ours, "allrec.thumb"), filepath.Join(theirs, "allrec.thumb"))
			} else if _, err := os.Stat(filepath.Join(ours, "allrec.thumb")); err == nil {
				t.Error("we wrote a thumbnail, the reference did not")
			}
			if opts[0] == "--thumbnail" {
				if _, err := os.Stat(filepath.Join(theirs, "allrec.thumb")); err != nil {
					t.Fatalf("the reference wrote no thumbnail: %v", err)
				}
				return
			}
			daux := func(dir string) string {
				data, err := os.ReadFile(filepath.Join(dir, "allrec.0.def"))
				if err != nil {
					t.Fatal(err)
				}
				var out []string
				for l := range strings.Lines(string(data)) {
					if strings.HasPrefix(l, "DAUX") {
						out = append(out, l)
					}
				}
				return strings.Join(out, "")
			}
			if g, w := daux(ours), daux(theirs); g != w || g == "" {
				t.Errorf("DEFAUXSAMPLEPOINT records:\ngot\n%s\nwant\n%s", g, w)
			}
		})
	}
}
