package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace"
	"github.com/hpctrace/hpctrace/examples/internal/outfile"
	"github.com/hpctrace/hpctrace/model"
)

// TestToPerfetto converts a trace of each format and checks that the
// output is a Trace Event Format document with events; package export
// checks the events themselves.
func TestToPerfetto(t *testing.T) {
	for _, in := range []string{
		"../../eventjson/testdata/fig12.json",
		"../../picl/testdata/appendix_a.trf",
		"../../dumpi/testdata/collectives/dumpi-2026.11.22.01.33.17.meta",
		"../../otf/testdata/minimal_ring_short/mini.otf",
	} {
		out := filepath.Join(t.TempDir(), "trace.json")
		if err := convert(in, out, &options{to: "perfetto"}); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			TraceEvents []map[string]any `json:"traceEvents"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		phases := map[any]int{}
		for _, ev := range doc.TraceEvents {
			phases[ev["ph"]]++
		}
		if phases["M"] == 0 || phases["B"] == 0 || phases["B"] != phases["E"] {
			t.Errorf("%s: phases %v", in, phases)
		}
	}
}

// TestToCSV converts a trace into a directory of tables.
func TestToCSV(t *testing.T) {
	out := filepath.Join(t.TempDir(), "tables")
	if err := convert("../../otf/testdata/minimal_ring_short/mini.otf", out, &options{to: "csv"}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"events.csv", "messages.csv", "regions.csv", "locations.csv", "profile.csv"} {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(b, []byte("\n")); n < 2 {
			t.Errorf("%s: %d lines", f, n)
		}
	}
}

// TestFromPerfetto converts traces to the Chrome format and back to the
// interchange JSON: traceconv reads its own -to perfetto output (package
// chrome compares the statistics of such round trips), with as many
// region entries, markers and messages as the trace has.
func TestFromPerfetto(t *testing.T) {
	for _, in := range []string{
		"../../picl/testdata/appendix_a.trf",
		"../../dumpi/testdata/collectives/dumpi-2026.11.22.01.33.17.meta",
		"../../otf/testdata/minimal_ring_short/mini.otf",
		"../../otf2/testdata/minimal/trace/traces.otf2",
	} {
		dir := t.TempDir()
		chromeDoc := filepath.Join(dir, "trace.json")
		back := filepath.Join(dir, "back.json")
		if err := convert(in, chromeDoc, &options{to: "perfetto"}); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if err := convert(chromeDoc, back, &options{to: "json"}); err != nil {
			t.Fatalf("%s: reading the Chrome document back: %v", in, err)
		}
		if got, want := kindCounts(t, back), kindCounts(t, in); got != want {
			t.Errorf("%s: got %+v after the round trip, want %+v", in, got, want)
		}
	}
}

// kindCounts counts a trace's region entries, markers, and messages
// with a known partner.
func kindCounts(t *testing.T, name string) [4]int {
	t.Helper()
	tr, err := hpctrace.Open(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	var c [4]int
	for tr.Next() {
		switch ev := tr.Event(); {
		case ev.Kind == model.KindEnter:
			c[0]++
		case ev.Kind == model.KindMarker:
			c[1]++
		case ev.Kind == model.KindSend && ev.Peer != 0:
			c[2]++
		case ev.Kind == model.KindRecv && ev.Peer != 0:
			c[3]++
		}
	}
	if err := tr.Err(); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestToCSVWaitStates: -waitstates adds waitstates.csv to the tables; it
// belongs to them, so an export without it needs -force when one is
// there and then removes it, and it is refused with another -to.
func TestToCSVWaitStates(t *testing.T) {
	in := "../../dumpi/testdata/p2p_blocking/dumpi-2026.11.22.01.32.56.meta"
	out := filepath.Join(t.TempDir(), "tables")
	if err := convert(in, out, &options{to: "csv", waitStates: true}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, "waitstates.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("pattern,waiter_id,")) || !bytes.Contains(b, []byte("\nlate_sender,")) {
		t.Errorf("waitstates.csv:\n%s", b)
	}
	if ents, _ := os.ReadDir(out); len(ents) != 6 {
		t.Errorf("%d files, want the 6 tables", len(ents))
	}
	if err := convert(in, out, &options{to: "csv"}); !errors.Is(err, outfile.ErrExists) {
		t.Errorf("export over the tables without -force: got %v, want ErrExists", err)
	}
	if err := convert(in, out, &options{to: "csv", force: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "waitstates.csv")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the older waitstates.csv is still there after an export without it: %v", err)
	}
	var stderr strings.Builder
	if got := run([]string{"-to", "json", "-waitstates", "-in", in, "-out", filepath.Join(t.TempDir(), "x.json")}, &stderr); got != 1 || !strings.Contains(stderr.String(), "only with -to csv") {
		t.Errorf("-waitstates with -to json: exit status %d, stderr %q", got, stderr.String())
	}
}
