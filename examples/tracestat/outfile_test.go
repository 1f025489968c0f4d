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
	sample, err := os.ReadFile("../../eventjson/testdata/fig12.json")
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

// TestMergeOtherTrace: shards saved from two traces at the same path are
// refused by -merge; shards of one trace saved under two paths merge; two
// saves of one shard are byte-identical.
func TestMergeOtherTrace(t *testing.T) {
	b, err := os.ReadFile("../../eventjson/testdata/fig12.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "trace.json")
	save := func(trace []byte, path, shard, state string) {
		t.Helper()
		if err := os.WriteFile(path, trace, 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		if err := run([]string{"-force", "-shard", shard, "-save", state, path}, &out, &errb); err != nil {
			t.Fatal(err)
		}
	}
	p0, p1, q1 := filepath.Join(dir, "p0.hps"), filepath.Join(dir, "p1.hps"), filepath.Join(dir, "q1.hps")
	moved := filepath.Join(t.TempDir(), "moved.json")
	save(b, in, "0/2", p0)
	save(b, moved, "1/2", p1)
	var out, errb bytes.Buffer
	if err := run([]string{"-merge", p0, p1}, &out, &errb); err != nil {
		t.Errorf("shards of one trace under two paths: %v", err)
	}
	first, _ := os.ReadFile(p1)
	save(b, moved, "1/2", p1)
	if again, _ := os.ReadFile(p1); !bytes.Equal(first, again) {
		t.Errorf("two saves of one shard differ")
	}
	// Another run at the same path: the same definitions, the last event a
	// tick later.
	last := []byte(`{"t":1915,"loc":1,"kind":"leave","region":10}`)
	if !bytes.Contains(b, last) {
		t.Fatal("the sample's last event is not where the test expects it")
	}
	save(bytes.Replace(b, last, []byte(`{"t":1916,"loc":1,"kind":"leave","region":10}`), 1), in, "1/2", q1)
	out.Reset()
	err = run([]string{"-merge", p0, q1}, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "another trace") {
		t.Errorf("shards of two traces at one path: got error %v, want one saying another trace", err)
	}
	if out.Len() > 0 {
		t.Errorf("a report was printed:\n%s", out.String())
	}
}
