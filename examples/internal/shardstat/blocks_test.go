package shardstat

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/hpctrace/hpctrace/model"
)

// TestBlocks: the locations that own a stream are cut into runs of
// consecutive ids, one per shard, whose lengths differ by at most one; a
// thread goes with its rank; a location defined later goes by l mod n.
func TestBlocks(t *testing.T) {
	var d model.Defs
	for p := range 5 {
		d.AddLocation(model.Location{Native: int64(p), Name: fmt.Sprintf("rank %d", p)})
	}
	for _, rank := range []model.LocID{2, 5} {
		d.AddLocation(model.Location{Name: "thread", Stream: rank}) // ids 6, 7
	}
	d.AddLocation(model.Location{Name: "rank 5", Stream: 8}) // id 8: owns its stream
	b := NewBlocks(&d, 3)
	var got []int
	for l := model.LocID(1); l <= 10; l++ {
		got = append(got, b.shard(l, 3))
	}
	// Owners 1-5 and 8: blocks {1,2}, {3,4}, {5,8}; threads 6 and 7
	// with ranks 2 and 5; 9 and 10, unknown, by l mod 3.
	if want := []int{0, 0, 1, 1, 2, 0, 2, 2, 0, 1}; !slices.Equal(got, want) {
		t.Errorf("shards of locations 1-10: %v, want %v", got, want)
	}
	s := Shard{I: 0, N: 3, Blocks: b}
	if !s.Has(6) || s.Of(&d, 7) != 2 || s.Has(3) {
		t.Errorf("shard 0/3 in blocks: Has(6) %v, Of(7) %d, Has(3) %v", s.Has(6), s.Of(&d, 7), s.Has(3))
	}
	// More shards than locations: each location a shard of its own, in
	// order, the others empty.
	b = NewBlocks(&d, 12)
	for l, want := range map[model.LocID]int{1: 0, 2: 2, 5: 8, 8: 10, 6: 2} {
		if got := b.shard(l, 12); got != want {
			t.Errorf("12 shards: location %d in %d, want %d", l, got, want)
		}
	}
}

// writeRing writes an event JSON trace of n locations in a ring: in each
// of rounds rounds, every location sends to the next and receives from
// the previous one, each in an operation of its own (MPI_Send, MPI_Recv).
func writeRing(t *testing.T, n, rounds int) string {
	var b bytes.Buffer
	b.WriteString(`{"format":"trace-events-json/1","ticks_per_second":1000000,"locations":[`)
	for l := range n {
		if l > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"rank %d","process":%d,"thread":0}`, l, l, l)
	}
	b.WriteString(`],"regions":[{"id":1,"name":"MPI_Send","kind":"comm","line":0},{"id":2,"name":"MPI_Recv","kind":"comm","line":0}],"events":[`)
	first := true
	ev := func(format string, a ...any) {
		if !first {
			b.WriteByte(',')
		}
		first = false
		fmt.Fprintf(&b, format, a...)
	}
	for r := range rounds {
		for k := range 6 {
			for l := range n {
				tm := r*100 + k*10 + l
				switch k {
				case 0, 3:
					ev(`{"t":%d,"loc":%d,"kind":"enter","region":%d,"site":0}`, tm, l, 1+k/3)
				case 1:
					ev(`{"t":%d,"loc":%d,"kind":"send","peer":%d,"tag":1,"comm":0,"bytes":64,"sync":false}`, tm, l, (l+1)%n)
				case 4:
					ev(`{"t":%d,"loc":%d,"kind":"recv","peer":%d,"tag":1,"comm":0,"bytes":64,"waited":"unknown"}`, tm, l, (l+n-1)%n)
				case 2, 5:
					ev(`{"t":%d,"loc":%d,"kind":"leave","region":%d}`, tm, l, 1+k/3)
				}
			}
		}
	}
	b.WriteString("]}\n")
	name := filepath.Join(t.TempDir(), "ring.json")
	if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// TestReduceBlocksRing: on a ring of 8 locations on 2 ranks, Reduce
// hands over the ends of the 2 links between its blocks, not those of
// all 8 links that l mod 2 cuts: a quarter of the ends, and rank 1 sends
// after its epochs under a third of the bytes it sends under l mod 2
// (each epoch's handover has some bytes besides the ends). The report is
// the whole trace's either way.
func TestReduceBlocksRing(t *testing.T) {
	name := writeRing(t, 8, 400)
	whole, err := Profile(name, Shard{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := whole.WriteReport(&want, &ReportOptions{JSON: true}); err != nil {
		t.Fatal(err)
	}
	run := func(inBlocks bool) *Figures {
		const size = 2
		w := newWorld(size)
		states := make([]*State, size)
		figs := make([]*Figures, size)
		errs := make([]error, size)
		var wg sync.WaitGroup
		for r := range size {
			wg.Go(func() { states[r], figs[r], errs[r] = reduce(name, rankComm{w, r}, 200, nil, inBlocks) })
		}
		wg.Wait()
		for r, err := range errs {
			if err != nil {
				t.Fatalf("rank %d: %v", r, err)
			}
		}
		var got bytes.Buffer
		if err := states[0].WriteReport(&got, &ReportOptions{JSON: true}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(want.Bytes(), got.Bytes()) {
			t.Errorf("on 2 ranks (blocks %v) the report differs from the whole trace", inBlocks)
		}
		if figs[1].Epochs < 10 || figs[1].EpochBytes == 0 {
			t.Fatalf("rank 1 (blocks %v): %d epochs, %d bytes: the test shows nothing", inBlocks, figs[1].Epochs, figs[1].EpochBytes)
		}
		return figs[1]
	}
	blocks, mod := run(true), run(false)
	if blocks.EpochBytes*3 > mod.EpochBytes {
		t.Errorf("rank 1 sent %d bytes after its %d epochs in blocks, %d after %d under l mod 2: want under a third", blocks.EpochBytes, blocks.Epochs, mod.EpochBytes, mod.Epochs)
	}
	t.Logf("rank 1 sent %d bytes after its %d epochs in blocks, %d after %d under l mod 2", blocks.EpochBytes, blocks.Epochs, mod.EpochBytes, mod.Epochs)
}
