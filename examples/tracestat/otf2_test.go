package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace"
	"github.com/hpctrace/hpctrace/otf2"
)

// TestOTF2Fixture profiles an OTF2 archive written by libotf2 (two
// locations with clock offsets and a message each way on a communicator
// of two).
func TestOTF2Fixture(t *testing.T) {
	var out, errb bytes.Buffer
	if err := run([]string{"../../otf2/testdata/c_localdefs/trace/traces.otf2"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		": 14 events, 2 locations, clock 1 ns (tick)", // 12 and the two ProgramEnd records
		"   66.7%       5.000 µs       7.500 µs          2  main",
		"   33.3%       2.500 µs       2.500 µs          2  work",
		"       0      1 send        1          0 B            0     1.500 µs        1",
		"Diagnostics: matched=2 unmatched_send=0 unmatched_recv=0",
	} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("report lacks %q:\n%s", s, out.String())
		}
	}
}

// TestOTF2MatchesDUMPI converts DUMPI runs to OTF2 through
// otf2.ModelWriter and profiles both: the reports are the same but for
// the trace's name and the statistics DUMPI stores, which OTF2 has no
// place for.
func TestOTF2MatchesDUMPI(t *testing.T) {
	for _, run1 := range []string{"collectives", "bgp_comm_create", "comm_topo"} {
		metas, _ := filepath.Glob(filepath.Join("../../dumpi/testdata", run1, "*.meta"))
		if len(metas) != 1 {
			t.Fatalf("%s: %d runs", run1, len(metas))
		}
		tr, err := hpctrace.Open(metas[0], nil)
		if err != nil {
			t.Fatal(err)
		}
		// a first pass for the definitions, as traceconv does
		for tr.Next() {
		}
		defs := tr.Defs()
		tr.Close()
		dir := t.TempDir()
		w, err := otf2.NewModelWriter(otf2.DirCreator(dir), defs, nil)
		if err != nil {
			t.Fatal(err)
		}
		tr, err = hpctrace.Open(metas[0], nil)
		if err != nil {
			t.Fatal(err)
		}
		for tr.Next() {
			if err := w.Write(tr.Event()); err != nil {
				t.Fatal(err)
			}
		}
		if err := tr.Err(); err != nil {
			t.Fatal(err)
		}
		tr.Close()
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		report := func(name string) string {
			var out, errb bytes.Buffer
			if err := run([]string{name}, &out, &errb); err != nil {
				t.Fatal(err)
			}
			s := out.String()
			s = s[strings.IndexByte(s, ':'):] // the trace's name
			if i := strings.Index(s, "\n\nStatistics stored in the trace:"); i >= 0 {
				s = s[:i+1]
			}
			return s
		}
		if diff := cmp.Diff(report(metas[0]), report(filepath.Join(dir, "traces.otf2"))); diff != "" {
			t.Errorf("%s: DUMPI and OTF2 reports differ (-DUMPI +OTF2):\n%s", run1, diff)
		}
	}
}
