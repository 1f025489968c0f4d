package main

import (
	"bytes"
	"os"
	"testing"
)

// TestUpToDate fails when bench/touch_gen.go is not what gentouch writes
// for the current otf and dumpi types (run go generate ./bench).
func TestUpToDate(t *testing.T) {
	want, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../touch_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("bench/touch_gen.go is stale: run go generate ./bench")
	}
}
