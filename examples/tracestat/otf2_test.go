package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace"
	"github.com/hpctrace/hpctrace/model"
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
		w, err := otf2.NewModelWriter(model.DirCreator(dir), defs, nil)
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
			// DUMPI's own statistics, checked, have no OTF2 records.
			if i := strings.Index(s, "\n\nStatistics stored in the trace:"); i >= 0 {
				j := strings.IndexByte(s[i+2:], '\n')
				s = s[:i] + s[i+2+j:]
			}
			return s
		}
		if diff := cmp.Diff(report(metas[0]), report(filepath.Join(dir, "traces.otf2"))); diff != "" {
			t.Errorf("%s: DUMPI and OTF2 reports differ (-DUMPI +OTF2):\n%s", run1, diff)
		}
	}
}

// TestCompatAPEXRenamed profiles the OTF2 compatibility fixture of APEX's
// renamed tasks (otf2/testdata/compat/apex_renamed): 15 of its 42 Leaves
// name the task's new name, not the region of their Enter. Each closes
// the innermost open region all the same and is counted; before, they were
// dropped and hpx_main stayed open until APEX MAIN ended (999 ms instead
// of 10.5 ms).
func TestCompatAPEXRenamed(t *testing.T) {
	const archive = "../../otf2/testdata/compat/apex_renamed/trace/traces.otf2"
	var out, errb bytes.Buffer
	if err := run([]string{archive}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	const golden = "testdata/apex_renamed.golden"
	if *update {
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), out.String()); diff != "" {
		t.Errorf("tracestat output (-want +got):\n%s", diff)
	}

	out.Reset()
	if err := run([]string{"-json", archive}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Final struct {
			Diagnostics map[string]int64 `json:"diagnostics"`
			Functions   []struct {
				Loc    int    `json:"loc"`
				Region string `json:"region"`
				Visits int64  `json:"visits"`
				Incl   int64  `json:"incl"`
			} `json:"functions"`
		} `json:"final"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	type row struct {
		visits, incl int64
	}
	got := map[[2]string]row{}
	for _, f := range rep.Final.Functions {
		got[[2]string{strconv.Itoa(f.Loc), f.Region}] = row{f.Visits, f.Incl}
	}
	wantRows := map[[2]string]row{
		{"0", "APEX MAIN"}: {1, 1_000_000_000},
		{"0", "hpx_main"}:  {1, 10_500_000},
		{"1", "async"}:     {20, 100_000_000},
		{"2", "async"}:     {20, 100_000_000},
	}
	if diff := cmp.Diff(wantRows, got, cmp.AllowUnexported(row{})); diff != "" {
		t.Errorf("visits and inclusive ticks (-want +got):\n%s", diff)
	}
	d := rep.Final.Diagnostics
	if d["leave_region_mismatch"] != 15 || d["unmatched_leave"] != 0 || d["open_at_end"] != 0 {
		t.Errorf("diagnostics %v, want leave_region_mismatch=15 and no unmatched_leave or open_at_end", d)
	}
}

// TestCounters: the metrics of the OTF2 fixture defs_attrs (a DOUBLE
// temperature, an accumulated UINT64 cycle count and an INT64 delta, as
// otf2-print lists them) are summarised per location in the text report
// and under "counters" in the JSON report.
func TestCounters(t *testing.T) {
	const archive = "../../otf2/testdata/defs_attrs/trace/traces.otf2"
	var out, errb bytes.Buffer
	if err := run([]string{archive}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"     loc counter                  mode  samples          min          max         mean         rate",
		"       0 temperature              inst        3           -0         36.6         12.7    -1.83e+07",
		"       0 cycles                    acc        1  1.23457e+11  1.23457e+11  1.23457e+11            0",
		"       0 delta                    inst        1          -42          -42          -42            0",
	} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("report lacks %q:\n%s", s, out.String())
		}
	}
	out.Reset()
	if err := run([]string{"-json", archive}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Final struct {
			Counters []map[string]any `json:"counters"`
		} `json:"final"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Final.Counters) != 3 {
		t.Fatalf("%d counters in the JSON report, want 3: %s", len(rep.Final.Counters), out.String())
	}
	c := rep.Final.Counters[0]
	if c["counter"] != "temperature" || c["float"] != true || c["samples"] != 3.0 || c["max"] != 36.6 || c["first_time"] == nil {
		t.Errorf("temperature %v", c)
	}
	if c := rep.Final.Counters[1]; c["counter"] != "cycles" || c["accumulating"] != true || c["first"] != 123456789012.0 {
		t.Errorf("cycles %v", c)
	}
}
