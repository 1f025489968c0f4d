package main

import (
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf"
	"github.com/hpctrace/hpctrace/stats"
)

// TestCallgrind profiles a generated 8-stream OTF trace of 200,000 events
// in profileOTF, so that instruction counts can be taken on the whole
// pipeline (reader, model adapter, accumulator, Finalize) with a stable
// metric on a noisy machine. It runs only with TRACESTAT_CALLGRIND=1:
//
//	go test -c -o tracestat.test ./examples/tracestat
//	TRACESTAT_CALLGRIND=1 GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 valgrind --tool=callgrind \
//		--toggle-collect='*profileOTF*' ./tracestat.test -test.run '^TestCallgrind$' -test.v
//
// and divide the collected instructions by the events it logs;
// callgrind_annotate --inclusive=yes splits them by stage.
func TestCallgrind(t *testing.T) {
	if os.Getenv("TRACESTAT_CALLGRIND") == "" {
		t.Skip("set TRACESTAT_CALLGRIND=1 to run")
	}
	dir := t.TempDir()
	writeSynthOTF(t, dir, 200_000)
	// The trace is read from memory: a file read may move the goroutine to
	// another thread, where callgrind's toggle does not follow it.
	fsys := fstest.MapFS{}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		fsys[e.Name()] = &fstest.MapFile{Data: data}
	}
	tr, err := otf.Open(fsys, "synth.otf")
	if err != nil {
		t.Fatal(err)
	}
	n, err := profileOTF(tr)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d events", n)
}

// profileOTF profiles tr as tracestat does and returns the number of events.
//
//go:noinline
func profileOTF(tr *otf.Trace) (int64, error) {
	src, err := otf.NewModelSource(tr, nil)
	if err != nil {
		return 0, err
	}
	defer src.Close()
	acc := stats.New(src.Defs(), nil)
	var n int64
	for src.Next() {
		acc.Add(src.Event())
		n++
	}
	if err := src.Err(); err != nil {
		return n, err
	}
	acc.Finalize()
	return n, nil
}

var _ model.Source = (*otf.ModelSource)(nil)
