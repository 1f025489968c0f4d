package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var (
	numPrefix = regexp.MustCompile(`(?m)^\(#[0-9]+\) `)
	timeRe    = regexp.MustCompile(`^\t([0-9]+) `)
	procRe    = regexp.MustCompile(`(?:process|sender|receiver|initiator|origin) ([0-9]+)`)
	snapCntRe = regexp.MustCompile(`SnapCounter: otime ([0-9]+)`)
)

// normalize drops the record numbers and the processing-time line and
// sorts each section stably by (time, process): the reference's order
// among equal times from different streams is undefined.
func normalize(s string) []string {
	s = numPrefix.ReplaceAllString(s, "")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "processing time:") {
			lines = append(lines[:i], lines[i+1:]...)
			break
		}
	}
	type key struct{ t, p uint64 }
	keyOf := func(l string) key {
		var k key
		if m := timeRe.FindStringSubmatch(l); m != nil {
			k.t, _ = strconv.ParseUint(m[1], 10, 64)
		}
		m := procRe.FindStringSubmatch(l)
		if c := snapCntRe.FindStringSubmatch(l); c != nil {
			m = c // the reference prints the process after "otime"
		}
		if m != nil {
			k.p, _ = strconv.ParseUint(m[1], 10, 64)
		}
		return k
	}
	start := 0
	flush := func(end int) {
		seg := lines[start:end]
		slices.SortStableFunc(seg, func(a, b string) int {
			ka, kb := keyOf(a), keyOf(b)
			if ka.t != kb.t {
				if ka.t < kb.t {
					return -1
				}
				return 1
			}
			if ka.p != kb.p {
				if ka.p < kb.p {
					return -1
				}
				return 1
			}
			return 0
		})
	}
	for i, l := range lines {
		if strings.HasSuffix(l, ":") && !strings.HasPrefix(l, "\t") {
			flush(i)
			start = i + 1
		}
	}
	flush(len(lines))
	return lines
}

func goldenArgs(name string) []string {
	n := strings.TrimSuffix(strings.TrimPrefix(name, "golden_otfprint"), ".txt")
	switch {
	case n == "":
		return nil
	case n == "_fullkeyvalue":
		return []string{"--fullkeyvalue"}
	case n == "_snaps_stats":
		return []string{"--nodef", "--noevent"}
	case strings.HasPrefix(n, "_procs_"):
		return append([]string{"--procs"}, strings.Split(strings.TrimPrefix(n, "_procs_"), "_")...)
	case strings.HasPrefix(n, "_time_"):
		return append([]string{"--time"}, strings.Split(strings.TrimPrefix(n, "_time_"), "_")...)
	case strings.HasPrefix(n, "_num_"):
		return append([]string{"--num"}, strings.Split(strings.TrimPrefix(n, "_num_"), "_")...)
	}
	return []string{"unknown-golden"}
}

func TestGoldens(t *testing.T) {
	goldens, err := filepath.Glob("../../otf/testdata/*/golden_otfprint*.txt")
	compat, err2 := filepath.Glob("../../otf/testdata/compat/*/golden_otfprint*.txt")
	goldens = append(goldens, compat...)
	if err != nil || err2 != nil || len(goldens) == 0 || len(compat) == 0 {
		t.Fatalf("no goldens: %v %v", err, err2)
	}
	for _, g := range goldens {
		dir := filepath.Dir(g)
		t.Run(filepath.Base(dir)+"/"+filepath.Base(g), func(t *testing.T) {
			masters, _ := filepath.Glob(filepath.Join(dir, "*.otf"))
			if len(masters) != 1 {
				t.Fatalf("want one master file in %s, got %v", dir, masters)
			}
			args := append(goldenArgs(filepath.Base(g)), filepath.Base(masters[0]))
			c, err := parseArgs(args)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := run(c, os.DirFS(dir), filepath.Base(masters[0]), &out); err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(g)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(normalize(string(want)), normalize(out.String())); diff != "" {
				t.Errorf("otfprint %v (-reference +ours):\n%s", args, diff)
			}
		})
	}
}

func TestParseArgs(t *testing.T) {
	c, err := parseArgs([]string{"--procs", "1", "2", "--time", "5", "9", "--nokeyvalue", "x.otf"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.procs, []uint32{1, 2}) || c.from != 5 || c.to != 9 || !c.noKV || c.input != "x.otf" {
		t.Errorf("got %+v", c)
	}
	for _, bad := range [][]string{{}, {"--bogus", "x.otf"}, {"--time", "1"}} {
		if _, err := parseArgs(bad); err == nil {
			t.Errorf("parseArgs(%q): got nil error", bad)
		}
	}
}
