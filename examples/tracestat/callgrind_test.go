package main

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"testing/fstest"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf"
	"github.com/hpctrace/hpctrace/stats"
)

// TestCallgrind profiles a generated 8-stream OTF trace of 200,000 events
// in profileOTF, so that instruction counts can be taken on the whole
// pipeline (reader, model adapter, accumulator, Finalize) with a stable
// metric on a noisy machine. It runs only with TRACESTAT_CALLGRIND set,
// to "serial" or to "pipelined" (reading through a model.Prefetcher):
//
//	go test -c -o tracestat.test ./examples/tracestat
//	TRACESTAT_CALLGRIND=serial GODEBUG=asyncpreemptoff=1,gcshrinkstackoff=1 GOMAXPROCS=1 \
//		valgrind --tool=callgrind \
//		--toggle-collect='*profileOTF*' --toggle-collect='*Prefetcher*run*' \
//		./tracestat.test -test.run '^TestCallgrind$' -test.v
//
// and divide the collected instructions by the events it logs. Pipelined,
// the inclusive cost of Prefetcher.run (callgrind_annotate --inclusive=yes)
// is the reading stage, the rest the statistics stage.
func TestCallgrind(t *testing.T) {
	mode := os.Getenv("TRACESTAT_CALLGRIND")
	if mode == "" {
		t.Skip("set TRACESTAT_CALLGRIND=serial or pipelined to run")
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
	tr, err := otf.OpenFS(fsys, "synth.otf", nil)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()  // so that writing the trace does not leave a cycle running
	growStack(64) // a stack copy inside profileOTF would stop the collection
	n, err := profileOTF(tr, mode == "pipelined")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d events", n)
}

// profileOTF profiles tr as tracestat does and returns the number of events.
//
//go:noinline
func profileOTF(tr *otf.Trace, pipelined bool) (int64, error) {
	ms, err := otf.NewModelSource(tr, nil)
	if err != nil {
		return 0, err
	}
	defer ms.Close()
	var src model.Source = ms
	if pipelined {
		p := model.NewPrefetcher(ms, nil)
		defer p.Close()
		src = p
	}
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

// growStack grows the goroutine's stack by at least depth KiB.
//
//go:noinline
func growStack(depth int) byte {
	var buf [1024]byte
	buf[depth%len(buf)] = byte(depth)
	if depth > 0 {
		buf[0] += growStack(depth - 1)
	}
	return buf[0]
}
