package dumpi

import (
	"path/filepath"
	"testing"
)

// TestModelReleasesResults pins the communicator results the model pass
// holds at the end of a run that dups MPI_COMM_WORLD and frees the copy
// over and over, after a communicator of unknown membership (whose
// definition makes the reveal pass run at once): the results of the calls
// read are let go of, so fewer than 2 × releaseAfter a rank stay, at n
// rounds as at 3n, and so are the distinct results (one per rank and
// communicator made) and the communicators' records they name, once no
// result left names them. They used to stay to the end, one per call and
// one per communicator and rank.
func TestModelReleasesResults(t *testing.T) {
	const ranks = 2
	dir := t.TempDir()
	heldAt := func(n int) int {
		var calls [][]Args
		for range ranks {
			c := []Args{&Init{}, &CommCreate{Oldcomm: MPI_COMM_WORLD, Group: 9, Newcomm: 5}}
			for range n {
				c = append(c, &CommDup{Oldcomm: MPI_COMM_WORLD, Newcomm: 4}, &CommFree{Comm: 4})
			}
			calls = append(calls, append(c, &Finalize{}))
		}
		prefix := "dup" + itoa(n)
		writeRun(t, dir, prefix, calls, nil)
		run, err := OpenRun(filepath.Join(dir, prefix+".meta"), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer run.Close()
		src, err := NewModelSource(run, nil)
		if err != nil {
			t.Fatal(err)
		}
		if rep := src.CommReport(); rep.Reconstructed != n {
			t.Fatalf("%d communicators reconstructed, want %d", rep.Reconstructed, n)
		}
		for src.Next() {
		}
		if err := src.Err(); err != nil {
			t.Fatal(err)
		}
		if !src.revealed {
			t.Fatal("the reveal pass did not run")
		}
		if v := len(src.cset.views); v >= 2*releaseAfter {
			t.Errorf("%d rounds: %d distinct results (and their communicators' records) held at the end, want fewer than %d", n, v, 2*releaseAfter)
		}
		held := 0
		for _, rm := range src.ranks {
			if rm.ci != len(rm.results) {
				t.Fatalf("rank %d: %d of %d results consumed", rm.rank, rm.ci, len(rm.results))
			}
			held += cap(rm.results)
		}
		return held
	}
	for _, n := range []int{5000, 15000} {
		if held := heldAt(n); held >= ranks*2*releaseAfter {
			t.Errorf("%d rounds: %d results held at the end, want fewer than %d", n, held, ranks*2*releaseAfter)
		}
	}
}
