package main

import (
	"bytes"
	"os"
	"testing"
)

// TestUpToDate regenerates the otf2 record code in memory and compares it
// with the committed file: run go generate ./otf2 after editing the tables.
func TestUpToDate(t *testing.T) {
	got, err := Generate(os.DirFS("../../../otf2"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../../../otf2/records_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("otf2/records_gen.go is stale: run go generate ./otf2")
	}
}

func TestEnumPrefix(t *testing.T) {
	e := &enum{name: "MetricMode", entries: []enumEntry{{"OTF2_METRIC_ACCUMULATED_START", 0}, {"OTF2_METRIC_ABSOLUTE_POINT", 17}}}
	if got := enumPrefix(e); got != "OTF2_METRIC_" {
		t.Fatalf("got %q, want OTF2_METRIC_", got)
	}
}
