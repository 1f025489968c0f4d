package dumpi

import (
	"runtime"
	"testing"
)

// TestHeldBytesPerConstructor pins what the communicator reconstruction
// keeps per recorded constructor call of a run that makes communicators
// over and over, here Comm_create calls whose results repeat (a group
// no recorded call made, the communicator freed after use):
// a rank's result is an index into the distinct results, 4 bytes (up to
// twice that while its slice grows). Each result used to be held in full,
// with the text of why a membership is unknown formatted anew for every
// call, about 100 bytes a call, so the reconstruction's memory grew with
// the calls, not with the distinct communicators and results.
func TestHeldBytesPerConstructor(t *testing.T) {
	const ranks = 4
	calls := func(n int) [][]commOp {
		ops := make([][]commOp, ranks)
		for r := range ops {
			for range n {
				ops[r] = append(ops[r],
					commOp{label: LabelCommCreate, in: MPI_COMM_WORLD, g1: 99, out: 5},
					commOp{label: LabelCommFree, in: 5})
			}
		}
		return ops
	}
	held := func(n int) int64 {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		cs := resolveComms(ranks, calls(n)) // the calls are garbage after it
		runtime.GC()
		runtime.ReadMemStats(&m1)
		if len(cs.results[0]) != n {
			t.Fatalf("%d results, want %d", len(cs.results[0]), n)
		}
		if r := cs.result(0, n-1); r.v.g != nil || r.v.why == "" {
			t.Fatalf("result %+v, want an unknown membership", r)
		}
		runtime.KeepAlive(cs)
		return int64(m1.HeapAlloc) - int64(m0.HeapAlloc)
	}
	const n = 20000
	h1, h3 := held(n), held(3*n)
	per := (h3 - h1) / (2 * n * ranks)
	const maxPer = 10 // bytes per call; 4 to 8
	t.Logf("held %d bytes at %d calls a rank, %d at %d: %d bytes per call", h1, n, h3, 3*n, per)
	if per > maxPer {
		t.Errorf("%d bytes held per constructor call, want at most %d", per, maxPer)
	}
}
