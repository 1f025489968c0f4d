package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var fixtures = []string{"minimal", "c_localdefs", "defs_attrs", "threads_rma", "unknown_records", "thumbnail", "nbcoll"}

// TestSnapshots compares the snapshot section with otf2-print's goldens.
func TestSnapshots(t *testing.T) {
	dir := filepath.Join("..", "..", "otf2", "testdata", "snapshots_markers")
	for _, v := range []struct {
		suffix string
		args   []string
	}{{"", nil}, {"_offset", []string{"--timestamps=offset"}}, {"_A", []string{"-A"}}} {
		t.Run(v.suffix, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(dir, "golden_otf2print"+v.suffix+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			got := output(t, append(v.args, filepath.Join(dir, "trace", "traces.otf2")))
			if volatile(got) != volatile(string(want)) {
				diffLines(t, volatile(string(want)), volatile(got))
			}
		})
	}
}

var variants = []struct {
	suffix string
	args   []string
}{
	{"", nil},
	{"_A", []string{"-A"}},
	{"_G", []string{"-G"}},
	{"_I", []string{"-I"}},
	{"_T", []string{"-T"}},
	{"_MC", []string{"-M", "-C"}},
	{"_offset", []string{"--timestamps=offset"}},
}

func output(t *testing.T, args []string) string {
	t.Helper()
	o, err := parseArgs(args)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	if err := run(w, o); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	return buf.String()
}

// volatile drops the lines the reference regenerates per run of a writer
// (the trace identifier) or prints in local time (the clock's date).
func volatile(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "Trace identifier") || strings.HasPrefix(l, "CLOCK_PROPERTIES") {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

func TestGoldens(t *testing.T) {
	for _, fx := range fixtures {
		for _, v := range variants {
			t.Run(fx+v.suffix, func(t *testing.T) {
				anchor := filepath.Join("..", "..", "otf2", "testdata", fx, "trace", "traces.otf2")
				want, err := os.ReadFile(filepath.Join("..", "..", "otf2", "testdata", fx, "golden_otf2print"+v.suffix+".txt"))
				if err != nil {
					t.Fatal(err)
				}
				got := output(t, append(v.args, anchor))
				if volatile(got) != volatile(string(want)) {
					t.Errorf("output differs from otf2-print's:\n got: %q\nwant: %q", got, want)
				}
			})
		}
	}
}

func TestLocationFilter(t *testing.T) {
	anchor := filepath.Join("..", "..", "otf2", "testdata", "threads_rma", "trace", "traces.otf2")
	all := output(t, []string{anchor})
	one := output(t, []string{"-L", "2", anchor})
	var want []string
	for _, l := range strings.Split(all, "\n") {
		f := strings.Fields(l)
		if len(f) > 2 && strings.ToUpper(f[0]) == f[0] && f[0] != "===" && f[0] != "Event" && !strings.HasPrefix(f[0], "-") && !strings.HasPrefix(l, " ") {
			if f[1] != "2" {
				continue
			}
		}
		want = append(want, l)
	}
	if one != strings.Join(want, "\n") {
		t.Fatalf("-L 2:\n%s\nwant:\n%s", one, strings.Join(want, "\n"))
	}
}

// TestLive compares with the installed otf2-print on every fixture.
func TestLive(t *testing.T) {
	if _, err := exec.LookPath("otf2-print"); err != nil {
		t.Skip("otf2-print not installed")
	}
	for _, fx := range fixtures {
		for _, v := range append(variants, struct {
			suffix string
			args   []string
		}{"_L0", []string{"-L", "0"}}) {
			t.Run(fx+v.suffix, func(t *testing.T) {
				anchor := filepath.Join("..", "..", "otf2", "testdata", fx, "trace", "traces.otf2")
				cmd := exec.Command("otf2-print", append(v.args, anchor)...)
				cmd.Env = append(os.Environ(), "TZ=UTC")
				want, err := cmd.Output()
				if err != nil {
					t.Fatal(err)
				}
				got := output(t, append(v.args, anchor))
				if volatile(got) != volatile(string(want)) {
					t.Errorf("output differs from otf2-print's:\n got: %q\nwant: %q", got, want)
				}
			})
		}
	}
}

// diffLines reports the first lines where got and want differ.
func diffLines(t *testing.T, want, got string) {
	t.Helper()
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	n := 0
	for i := 0; i < max(len(w), len(g)) && n < 10; i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			t.Errorf("line %d:\nwant %q\n got %q", i+1, a, b)
			n++
		}
	}
}

// TestCompatAPEXRenamed: the APEX fixture, whose Leaves name a task's new
// name, prints as otf2-print prints it: each Leave with the region it
// names.
func TestCompatAPEXRenamed(t *testing.T) {
	dir := filepath.Join("..", "..", "otf2", "testdata", "compat", "apex_renamed")
	want, err := os.ReadFile(filepath.Join(dir, "golden_otf2print.txt"))
	if err != nil {
		t.Fatal(err)
	}
	got := output(t, []string{filepath.Join(dir, "trace", "traces.otf2")})
	if volatile(got) != volatile(string(want)) {
		diffLines(t, volatile(string(want)), volatile(got))
	}
}
