package otf

import (
	"os"
	"testing"
)

// TestZlibCallgrind reads a small generated zlib trace globally (merged by
// time) in readZlibGlobal, so that instruction counts per record can be
// taken on it with a stable metric on a noisy machine. It runs only with
// OTF_CALLGRIND=1:
//
//	go test -c -o otf.test ./otf
//	OTF_CALLGRIND=1 GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 valgrind --tool=callgrind \
//		--toggle-collect='*readZlibGlobal*' ./otf.test -test.run '^TestZlibCallgrind$' -test.v
//
// and divide the collected instructions by the records it logs.
func TestZlibCallgrind(t *testing.T) {
	if os.Getenv("OTF_CALLGRIND") == "" {
		t.Skip("set OTF_CALLGRIND=1 to run")
	}
	fsys, _ := genTrace(t, 8, 8, 500_000, true)
	tr, err := Open(fsys, "bench.otf")
	if err != nil {
		t.Fatal(err)
	}
	r, err := tr.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	n := readZlibGlobal(r)
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d records", n)
}

// readZlibGlobal reads r to the end and returns the number of records.
//
//go:noinline
func readZlibGlobal(r *TraceReader) int {
	n := 0
	for r.Next() {
		n++
	}
	return n
}
