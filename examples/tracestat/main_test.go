package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hpctrace/hpctrace"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestNoArgsGolden(t *testing.T) {
	var out, errb bytes.Buffer
	if err := run(nil, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("testdata/noargs.golden", out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("testdata/noargs.golden")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), out.String()); diff != "" {
		t.Errorf("tracestat output (-want +got):\n%s", diff)
	}
	for _, s := range []string{"Hot path (all): main -> P2 (line 3) -> P3 (line 7) -> P4 (line 10)", "sync=", "Load imbalance"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("output lacks %q", s)
		}
	}
}

// TestJSONMatchesExpected checks that -json output compares directly with the
// expected.json of stats/testdata.
func TestJSONMatchesExpected(t *testing.T) {
	var out, errb bytes.Buffer
	if err := run([]string{"-json"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	var got, want map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("-json output is not JSON: %v", err)
	}
	data, err := os.ReadFile("testdata/fig12_expected.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	got = withoutModelIDs(got).(map[string]any)
	gf, wf := got["final"].(map[string]any), want["final"].(map[string]any)
	for _, k := range []string{"diagnostics", "functions", "callsites", "com", "loops", "transfer_time", "matrix_send_side", "matrix_recv_side", "size_histogram_log2", "hot_path", "drilldown"} {
		if diff := cmp.Diff(wf[k], gf[k]); diff != "" {
			t.Errorf("final.%s (-want +got):\n%s", k, diff)
		}
	}
}

func TestFormats(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"run.trf", "run.meta", "rank0.bin", "notes.txt"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		err := run([]string{p}, &out, &errb)
		if err == nil {
			t.Errorf("%s: malformed file accepted", name)
		}
		if name == "notes.txt" && !errors.Is(err, hpctrace.ErrUnknownFormat) {
			t.Errorf("%s: got %v, want hpctrace.ErrUnknownFormat", name, err)
		}
	}
}

// TestPICLAppendixA profiles the Appendix A trace through the picl model
// source: PICL's own statistics agree with the events except the four
// timestamp-rounding cases of the expected report (1 us each), and the -901 volume
// is not derivable.
func TestPICLAppendixA(t *testing.T) {
	var out, errb bytes.Buffer
	if err := run([]string{"../../picl/testdata/appendix_a.trf"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"Statistics stored in the trace: 27 agree with the events, 4 differ, 1 not derivable (largest difference 1 ",
		"Diagnostics: matched=0 unmatched_send=1 unmatched_recv=2",
	} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("output lacks %q:\n%s", s, out.String())
		}
	}
}

// TestDUMPIRuns profiles every DUMPI run of the dumpi fixtures: the footer
// call counts agree with the events and no message or collective is left
// unmatched.
func TestDUMPIRuns(t *testing.T) {
	metas, _ := filepath.Glob("../../dumpi/testdata/*/*.meta")
	if len(metas) < 5 {
		t.Fatalf("found %d DUMPI runs", len(metas))
	}
	for _, m := range metas {
		var out, errb bytes.Buffer
		if err := run([]string{"-json", m}, &out, &errb); err != nil {
			t.Errorf("%s: %v", m, err)
			continue
		}
		var rep struct {
			Final struct{ Diagnostics stats.Diagnostics } `json:"final"`
		}
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		out.Reset()
		if err := run([]string{m}, &out, &errb); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), " 0 differ, 0 not derivable") {
			t.Errorf("%s: footer counts disagree:\n%s", m, out.String())
		}
		if d := rep.Final.Diagnostics; d.OpenCollectives+d.UnmatchedCollEnd != 0 {
			t.Errorf("%s: %+v", m, d)
		}
	}
}

func TestIntervals(t *testing.T) {
	var out, errb bytes.Buffer
	if err := run([]string{"-at", "500,1000", "testdata/otfprofile.json"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"Interval [0, 500 µs)", "Interval [500 µs, 1.000 ms)", "MPI_Barrier"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("output lacks %q:\n%s", s, out.String())
		}
	}
	out.Reset()
	if err := run([]string{"-json", "-at", "500,1000", "testdata/otfprofile.json"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if s, ok := got["samples"].(map[string]any); !ok || s["500"] == nil || s["1000"] == nil {
		t.Errorf("samples = %v", got["samples"])
	}
	if tps := got["ticks_per_second"]; tps != 1e6 {
		t.Errorf("ticks_per_second = %v, want 1e6", tps)
	}
	// Durations convert to the trace's clock (1 µs): the same samples.
	ticks := out.String()
	out.Reset()
	if err := run([]string{"-json", "-at", "0.5ms,1ms", "testdata/otfprofile.json"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if out.String() != ticks {
		t.Error("-at 0.5ms,1ms differs from -at 500,1000 on a microsecond clock")
	}
	for _, every := range []string{"400", "400us", "400µs", "0.4ms"} {
		out.Reset()
		if err := run([]string{"-every", every, "testdata/otfprofile.json"}, &out, &errb); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "Interval [400 µs, 800 µs)") {
			t.Errorf("-every %s output lacks the interval [400 µs, 800 µs):\n%s", every, out.String())
		}
	}
	for _, bad := range []string{"x", "1.5", "3 parsecs"} {
		if err := run([]string{"-at", bad}, &out, &errb); err == nil {
			t.Errorf("-at %s accepted", bad)
		}
	}
}

// TestHelp: -h prints the usage and asks for exit status 0 (flag.ErrHelp).
func TestHelp(t *testing.T) {
	var out, errb bytes.Buffer
	if err := run([]string{"-h"}, &out, &errb); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v; want flag.ErrHelp", err)
	}
	if !strings.Contains(errb.String(), "-top") {
		t.Errorf("usage lacks -top:\n%s", errb.String())
	}
}

func TestVClockFlag(t *testing.T) {
	var out, errb bytes.Buffer
	if err := run([]string{"-vclock", "10", "-json", "../../stats/testdata/seed004_fig12/vclock_input.json"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"sync_delay": 10`) {
		t.Errorf("virtual clock did not give the receiver's delay of 10:\n%s", out.String())
	}
}

func TestSynthetic(t *testing.T) {
	for _, n := range []int64{1, 16, 17, 100, 10000} {
		src := newSynth(n)
		acc := stats.New(src.Defs(), nil)
		var got int64
		for ev, err := range model.All(src) {
			if err != nil {
				t.Fatal(err)
			}
			acc.Add(ev)
			got++
		}
		if got < n || got > n+100 {
			t.Errorf("synthetic %d: %d events", n, got)
		}
		{
			d := acc.Finalize().Final.Diagnostics
			if d.UnmatchedLeave+d.LeaveRegionMismatch+d.NonMonotonic+d.OpenAtEnd+d.UnmatchedSend+d.UnmatchedRecv != 0 || (n > 100 && d.MatchedMessages == 0) {
				t.Errorf("synthetic trace is not clean: %+v", d)
			}
		}
	}
}

// BenchmarkEndToEnd profiles a generated 8-rank trace from an in-memory
// model source through Finalize (BenchmarkOTFEndToEnd reads OTF files). The
// MB/s column is millions of events per second.
func BenchmarkEndToEnd(b *testing.B) {
	const n = 1_000_000
	b.ReportAllocs()
	b.SetBytes(n)
	for b.Loop() {
		src := newSynth(n)
		acc := stats.New(src.Defs(), nil)
		for src.Next() {
			acc.Add(src.Event())
		}
		acc.Finalize()
	}
}

// TestOTFExpected profiles the real OTF trace of the otfprofile expected report
// (written with libotf) and compares every value of the expected report.
func TestOTFExpected(t *testing.T) {
	var out, errb bytes.Buffer
	if err := run([]string{"-json", "-at", "500,1000", "testdata/basic_m/basic_m.otf"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	var got, want map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("testdata/otfprofile_expected.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	opts := []cmp.Option{
		cmpopts.EquateApprox(0, 1e-6),
		cmpopts.SortSlices(func(a, b any) bool { return jsonString(a) < jsonString(b) }),
	}
	got = withoutModelIDs(got).(map[string]any)
	gf, wf := got["final"].(map[string]any), want["final"].(map[string]any)
	n := 0
	for k, w := range wf {
		if diff := cmp.Diff(w, gf[k], opts...); diff != "" {
			t.Errorf("final.%s (-want +got):\n%s", k, diff)
		}
		n++
	}
	if diff := cmp.Diff(want["samples"], got["samples"], opts...); diff != "" {
		t.Errorf("samples (-want +got):\n%s", diff)
	}
	if n != 15 {
		t.Errorf("compared %d sections, want 15", n)
	}
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestTopNamed: a table cut by -top says how many rows it left out and
// that -top shows them.
func TestTopNamed(t *testing.T) {
	var out, errb bytes.Buffer
	if err := run([]string{"-top", "2"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "... 8 more (raise -top to see them)") {
		t.Errorf("-top 2: the flat profile does not say that 8 more rows exist:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "Not a call tree") {
		t.Errorf("the drill-down is not labelled:\n%s", out.String())
	}
}

// TestJSONCallTree: -json gives the call tree beside the report and the
// MPI view inside it.
func TestJSONCallTree(t *testing.T) {
	var out, errb bytes.Buffer
	if err := run([]string{"-json"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	var got struct {
		TicksPerSecond uint64          `json:"ticks_per_second"`
		CallTree       stats.CallNode  `json:"call_tree"`
		Final          json.RawMessage `json:"final"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.TicksPerSecond != 1_000_000 || len(got.CallTree.Children) != 2 || got.CallTree.Children[0].Region != "main" {
		t.Errorf("ticks_per_second %d, call tree roots %+v; want 1000000 and main, partner_main", got.TicksPerSecond, got.CallTree.Children)
	}
	if !bytes.Contains(got.Final, []byte(`"mpi_percent"`)) {
		t.Error("final lacks the MPI view")
	}
}

// modelIDKeys are the keys of the model's location ids in the JSON
// report, which the expected reports (written by other tools, with the
// native ids alone) do not have.
var modelIDKeys = []string{"loc_id", "peer_id", "sender_id", "receiver_id", "argmax_loc_id"}

// withoutModelIDs returns v, decoded JSON, without the keys of
// modelIDKeys, at any depth.
func withoutModelIDs(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range modelIDKeys {
			delete(x, k)
		}
		for k, e := range x {
			x[k] = withoutModelIDs(e)
		}
	case []any:
		for i, e := range x {
			x[i] = withoutModelIDs(e)
		}
	}
	return v
}
