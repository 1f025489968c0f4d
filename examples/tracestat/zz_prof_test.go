package main

import (
	"io"
	"os"
	"strings"
	"testing"
)

func TestZZProf(t *testing.T) {
	tr := os.Getenv("ZZTRACE")
	if tr == "" {
		t.Skip()
	}
	args := strings.Fields(os.Getenv("ZZARGS"))
	if err := run(append(args, tr), io.Discard, os.Stderr); err != nil {
		t.Fatal(err)
	}
}
