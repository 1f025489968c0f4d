package otf

import (
	"os"
	"runtime"
	"testing"
)

// TestCallgrind reads a generated 8-stream trace of 500 000 events merged
// by time in readMerged, plain and zlib, so that instruction counts can be
// taken on it with a stable metric on a noisy machine. It runs only with
// OTF_CALLGRIND=1:
//
//	go test -c -o otf.test ./otf
//	OTF_CALLGRIND=1 GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 valgrind --tool=callgrind \
//		--toggle-collect='*readMerged*' ./otf.test -test.run '^TestCallgrind/plain$' -test.v
//
// (or /zlib) and divide the collected instructions by the records it logs.
// Where valgrind stops on an unhandled instruction (0F 01 F9, the RDTSCP
// that the Go runtime uses when the CPU has it), add cpu.rdtscp=off to
// GODEBUG.
func TestCallgrind(t *testing.T) {
	if os.Getenv("OTF_CALLGRIND") == "" {
		t.Skip("set OTF_CALLGRIND=1 to run")
	}
	for _, zlib := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "zlib"}[zlib], func(t *testing.T) {
			g := openMerged(t, genTrace(t, 8, 8, 500_000, zlib))
			runtime.GC() // no write barriers on during the count
			n := readMerged(g)
			if err := g.Err(); err != nil {
				t.Fatal(err)
			}
			t.Logf("%d records", n)
		})
	}
}

// readMerged reads tr to the end and returns the number of records.
//
//go:noinline
func readMerged(tr *TraceReader) int {
	n := 0
	for tr.Next() {
		n++
	}
	return n
}
