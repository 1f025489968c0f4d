package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestToPerfetto converts a trace of each format and checks that the
// output is a Trace Event Format document with events; package export
// checks the events themselves.
func TestToPerfetto(t *testing.T) {
	for _, in := range []string{
		"../../model/testdata/fig12.json",
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
