package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSaveOutputRules checks that -save never replaces a file of the
// trace read, under any name (every file of an OTF2 archive and of a
// DUMPI run), and replaces another file only with -force.
func TestSaveOutputRules(t *testing.T) {
	dir := t.TempDir()
	sample, err := os.ReadFile("../../model/testdata/fig12.json")
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "in.json")
	if err := os.WriteFile(in, sample, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.hps")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	arch := filepath.Join(dir, "otf2")
	if err := os.CopyFS(arch, os.DirFS("testdata/otf2_mpi/trace")); err != nil {
		t.Fatal(err)
	}
	anchor := filepath.Join(arch, "traces.otf2")
	meta := writeDUMPIRun(t, func(int) bool { return false })
	rank := filepath.Join(filepath.Dir(meta), "run-0001.bin")
	files := []string{in, anchor, filepath.Join(arch, "traces", "1.evt"), meta, rank}
	old := map[string][]byte{}
	for _, p := range files {
		if old[p], err = os.ReadFile(p); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"-shard", "0/1", "-save", in, in},
		{"-force", "-save", in, in},
		{"-force", "-save", link, in},
		{"-force", "-save", anchor, anchor},
		{"-force", "-save", filepath.Join(arch, "traces", "1.evt"), anchor},
		{"-force", "-save", filepath.Join(arch, "traces.def"), anchor},
		{"-force", "-save", rank, meta},
	} {
		var out, errb bytes.Buffer
		err := run(args, &out, &errb)
		if err == nil || !strings.Contains(err.Error(), "input") {
			t.Errorf("%v: got error %v, want one naming the input", args, err)
		}
	}
	for p, b := range old {
		if now, _ := os.ReadFile(p); !bytes.Equal(now, b) {
			t.Errorf("%s changed", p)
		}
	}
	state := filepath.Join(dir, "part.hps")
	if err := os.WriteFile(state, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if err := run([]string{"-save", state, in}, &out, &errb); err == nil || !strings.Contains(err.Error(), "-force") {
		t.Errorf("existing output without -force: got error %v, want one naming -force", err)
	}
	if b, _ := os.ReadFile(state); string(b) != "old" {
		t.Errorf("existing output replaced without -force")
	}
	if err := run([]string{"-force", "-save", state, in}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"-merge", state}, &out, &errb); err != nil {
		t.Errorf("-merge of the replaced state: %v", err)
	}
}
