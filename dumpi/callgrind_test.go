package dumpi

import (
	"bytes"
	"os"
	"testing"
)

// TestCallgrind reads a generated one-rank trace of 100 000 calls (the
// benchmark's call mix, about 4 MB) in readCallsCG, after a warm-up pass
// that sizes every argument struct, so that instruction counts per call can
// be taken with a stable metric on a noisy machine. It runs only with
// DUMPI_CALLGRIND=1:
//
//	go test -c -o dumpi.test ./dumpi
//	DUMPI_CALLGRIND=1 GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 valgrind --tool=callgrind \
//		--toggle-collect='*readCallsCG*' ./dumpi.test -test.run '^TestCallgrind$' -test.v
//
// and divide the collected instructions by the calls it logs.
func TestCallgrind(t *testing.T) {
	if os.Getenv("DUMPI_CALLGRIND") == "" {
		t.Skip("set DUMPI_CALLGRIND=1 to run")
	}
	files, err := makeBenchTrace(1, 100_000)
	if err != nil {
		t.Fatal(err)
	}
	data := files[0]
	br := bytes.NewReader(data)
	r, err := NewReader(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() { // warm up
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	br.Reset(data)
	if err := r.Reset(br); err != nil {
		t.Fatal(err)
	}
	n, sink := readCallsCG(r)
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d calls, %d bytes (sink %d)", n, len(data), sink)
}

// readCallsCG reads r to the end as BenchmarkReadCalls does and returns
// the number of calls.
//
//go:noinline
func readCallsCG(r *Reader) (n, sink int64) {
	for r.Next() {
		c := r.Record()
		sink += int64(c.Label) + c.WallStart()
		n++
	}
	return n, sink
}
