package main

import (
	"bytes"
	"os"
	"testing"
)

// TestGeneratedFresh fails when otf/records_gen.go is not what the
// generator makes from otf/records.tsv: run go generate ./otf.
func TestGeneratedFresh(t *testing.T) {
	data, err := os.ReadFile("../../../otf/records.tsv")
	if err != nil {
		t.Fatal(err)
	}
	kinds, err := parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(kinds) != 65 {
		t.Errorf("got %d record kinds, want 65", len(kinds))
	}
	src, err := generate(kinds)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := generate(kinds)
	if !bytes.Equal(src, again) {
		t.Error("generator output is not deterministic")
	}
	have, err := os.ReadFile("../../../otf/records_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, src) {
		t.Error("otf/records_gen.go is stale: run go generate ./otf")
	}
	if _, err := parse([]byte("def\tx\tdef\tD\tDX\tf:zz:-\tno\t\n")); err == nil {
		t.Error("unknown field type accepted")
	}
}
