package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// mpiFixture is an OTF2 archive of 5 MPI ranks exchanging messages and
// calling collectives (testdata/otf2_mpi/README.txt).
const mpiFixture = "testdata/otf2_mpi/trace/traces.otf2"

// waitKeys are the keys the wait-state analysis adds to "final".
var waitKeys = []string{"wait_states", "delay_costs", "critical_path"}

func runOK(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if err := run(args, &out, &errb); err != nil {
		t.Fatalf("tracestat %v: %v\n%s", args, err, errb.String())
	}
	return out.String()
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

// TestWaitsGolden: the report of an MPI trace ends with the wait-state
// section in text, and has the analysis in "final" in JSON.
func TestWaitsGolden(t *testing.T) {
	text := runOK(t, mpiFixture)
	golden(t, "testdata/otf2_mpi_waits.golden", text)
	for _, s := range []string{"\n\nWait states (% of Time", "\nlate_sender: ", "\nDelay costs", "\nCritical path: "} {
		if !strings.Contains(text, s) {
			t.Errorf("the text report lacks %q", s)
		}
	}
	js := runOK(t, "-json", mpiFixture)
	golden(t, "testdata/otf2_mpi_waits.json.golden", js)
	var rep struct {
		Final map[string]json.RawMessage `json:"final"`
	}
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatal(err)
	}
	var ws []struct {
		Pattern string `json:"pattern"`
		Time    int64  `json:"time"`
	}
	if err := json.Unmarshal(rep.Final["wait_states"], &ws); err != nil {
		t.Fatal(err)
	}
	pats := map[string]bool{}
	for _, w := range ws {
		pats[w.Pattern] = w.Time > 0
	}
	for _, p := range []string{"late_sender", "wait_nxn", "wait_barrier"} {
		if !pats[p] {
			t.Errorf("final.wait_states has no %s row with time: %v", p, ws)
		}
	}
	for _, k := range waitKeys[1:] {
		if len(rep.Final[k]) == 0 {
			t.Errorf("final.%s missing", k)
		}
	}
}

// withoutWaits returns the report without what the wait-state analysis
// adds: the text from its section on, or the JSON's three keys of
// "final" (re-encoded as tracestat encodes).
func withoutWaits(t *testing.T, report string, js bool) string {
	t.Helper()
	if !js {
		i := strings.Index(report, "\n\nWait states (")
		if i < 0 {
			t.Fatalf("no wait-state section in\n%s", report)
		}
		return report[:i+1]
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(report), &m); err != nil {
		t.Fatal(err)
	}
	final := m["final"].(map[string]any)
	for _, k := range waitKeys {
		if _, ok := final[k]; !ok {
			t.Fatalf("final.%s missing", k)
		}
		delete(final, k)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func canonJSON(t *testing.T, s string) string {
	t.Helper()
	var m any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestWaitsOff: -waits=false prints the statistics' report alone, which
// is the report with the analysis less what it adds; a trace without MPI
// calls has the same report either way, byte for byte.
func TestWaitsOff(t *testing.T) {
	for _, trace := range []string{mpiFixture, "../../dumpi/testdata/collectives/dumpi-2026.11.22.01.33.17.meta"} {
		for _, js := range []bool{false, true} {
			var flags []string
			if js {
				flags = []string{"-json"}
			}
			off := runOK(t, append(append(flags, "-waits=false"), trace)...)
			on := runOK(t, append(flags, trace)...)
			want := withoutWaits(t, on, js)
			if js {
				if strings.Contains(off, `"wait_states"`) {
					t.Errorf("%s -json -waits=false has wait_states", trace)
				}
				off = canonJSON(t, off)
			}
			if off != want {
				t.Errorf("%s %v: -waits=false differs from the report less the analysis:\n%s", trace, flags, firstLineDiff(want, off))
			}
		}
	}
	for _, trace := range []string{"../../otf2/testdata/minimal/trace/traces.otf2", "../../otf2/testdata/thumbnail/trace/traces.otf2"} {
		for _, flags := range [][]string{nil, {"-json"}} {
			on := runOK(t, append(flags, trace)...)
			if off := runOK(t, append(append(flags, "-waits=false"), trace)...); on != off {
				t.Errorf("%s %v (no MPI calls): the report changes with -waits=false:\n%s", trace, flags, firstLineDiff(off, on))
			}
		}
	}
	// The sample of Figure 12: its send and receive blocks are
	// communication calls (regions of unknown paradigm), so it has the
	// section; the rest is the statistics' report as before.
	sample, err := os.ReadFile("testdata/noargs.golden")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := runOK(t, "-waits=false"), withoutWaits(t, string(sample), false); got != want {
		t.Errorf("-waits=false on the sample:\n%s", firstLineDiff(want, got))
	}
}

// TestWaitsIntervals: with -at the wait states are those of the whole
// run, and the report says so.
func TestWaitsIntervals(t *testing.T) {
	whole := runOK(t, mpiFixture)
	at := runOK(t, "-at", "1500", mpiFixture)
	const note = "# The wait states are those of the whole run; the intervals above are of the statistics only.\n"
	if !strings.Contains(at, "\n\n"+note+"Wait states (") {
		t.Fatalf("-at: the wait-state section is not introduced by the note:\n%s", at)
	}
	if got, want := at[strings.Index(at, "Wait states ("):], whole[strings.Index(whole, "Wait states ("):]; got != want {
		t.Errorf("-at changes the wait states:\n%s", firstLineDiff(want, got))
	}
	if strings.Contains(whole, note) {
		t.Error("the note is printed without intervals")
	}
}

// TestWaitsShards: the states of shards carry the analysis; two saves of
// a shard are byte-identical; states saved with and without it do not
// merge; states saved without it merge to the report of -waits=false and
// say so.
func TestWaitsShards(t *testing.T) {
	dir := t.TempDir()
	save := func(name string, args ...string) string {
		p := filepath.Join(dir, name)
		runOK(t, append(append([]string{"-force", "-save", p}, args...), mpiFixture)...)
		return p
	}
	a := save("a.hps", "-shard", "1/3")
	b := save("b.hps", "-shard", "1/3")
	da, _ := os.ReadFile(a)
	db, _ := os.ReadFile(b)
	if len(da) == 0 || !bytes.Equal(da, db) {
		t.Errorf("two saves of shard 1/3 differ (%d and %d bytes)", len(da), len(db))
	}
	off := save("off.hps", "-shard", "1/3", "-waits=false")
	if d, _ := os.ReadFile(off); len(d) >= len(da) {
		t.Errorf("a state without the analysis has %d bytes, with it %d", len(d), len(da))
	}
	s0 := save("s0.hps", "-shard", "0/3")
	s2 := save("s2.hps", "-shard", "2/3")
	var out, errb bytes.Buffer
	err := run([]string{"-merge", s0, off, s2}, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "wait-state analysis") {
		t.Errorf("merging states with and without the analysis: got %v, want an error naming it", err)
	}
	o0 := save("o0.hps", "-shard", "0/3", "-waits=false")
	o2 := save("o2.hps", "-shard", "2/3", "-waits=false")
	out.Reset()
	errb.Reset()
	if err := run([]string{"-merge", o0, off, o2}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if want := runOK(t, "-waits=false", mpiFixture); out.String() != want {
		t.Errorf("merged states without the analysis:\n%s", firstLineDiff(want, out.String()))
	}
	if !strings.Contains(errb.String(), "-waits=false") {
		t.Errorf("merging states without the analysis: stderr %q, want a note", errb.String())
	}
	// -merge -waits=false leaves the analysis out.
	if got, want := runOK(t, "-merge", "-waits=false", s0, a, s2), runOK(t, "-waits=false", mpiFixture); got != want {
		t.Errorf("-merge -waits=false:\n%s", firstLineDiff(want, got))
	}
}
