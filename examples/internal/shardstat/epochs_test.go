package shardstat

import (
	"bytes"
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
)

// world is a job of ranks in one process, goroutines that talk through
// channels.
type world struct {
	size   int
	links  [][]chan []byte // links[src][dest]
	reduce []chan []int64  // to rank 0
	result []chan []int64  // from rank 0
}

func newWorld(size int) *world {
	w := &world{size: size, links: make([][]chan []byte, size)}
	for i := range size {
		w.links[i] = make([]chan []byte, size)
		for j := range size {
			w.links[i][j] = make(chan []byte, 4)
		}
		w.reduce = append(w.reduce, make(chan []int64, 1))
		w.result = append(w.result, make(chan []int64, 1))
	}
	return w
}

type rankComm struct {
	w    *world
	rank int
}

func (c rankComm) Rank() int { return c.rank }
func (c rankComm) Size() int { return c.w.size }
func (c rankComm) Send(b []byte, dest int) error {
	c.w.links[c.rank][dest] <- b
	return nil
}
func (c rankComm) Recv(src int) ([]byte, error) { return <-c.w.links[src][c.rank], nil }

func (c rankComm) AllreduceMin(v []int64) error {
	c.w.reduce[c.rank] <- v
	if c.rank == 0 {
		r := slices.Clone(<-c.w.reduce[0])
		for i := 1; i < c.w.size; i++ {
			for k, x := range <-c.w.reduce[i] {
				r[k] = min(r[k], x)
			}
		}
		for i := range c.w.size {
			c.w.result[i] <- r
		}
	}
	copy(v, <-c.w.result[c.rank])
	return nil
}

// TestReduceEqualsWhole: Reduce on 1 to 4 ranks, in epochs of a few
// events (so that much waits for other ranks after each), prints the
// report of the whole trace.
func TestReduceEqualsWhole(t *testing.T) {
	empty := stats.New(nil, nil).DetachPending(func(model.LocID) bool { return true })
	carried := false // some epoch carried items up the tree
	for _, name := range []string{
		"../../../eventjson/testdata/fig12.json",
		"../../../picl/testdata/ring4.trf",
		"../../../dumpi/testdata/collectives/dumpi-2026.11.22.01.33.17.meta",
		"../../../otf/testdata/minimal_ring_short/mini.otf",
	} {
		whole, err := Profile(name, Shard{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := whole.WriteReport(&want, &ReportOptions{JSON: true}); err != nil {
			t.Fatal(err)
		}
		for size := 1; size <= 4; size++ {
			for _, per := range []int64{1, 7, math.MaxInt32} {
				w := newWorld(size)
				states := make([]*State, size)
				figs := make([]*Figures, size)
				errs := make([]error, size)
				var wg sync.WaitGroup
				for r := range size {
					wg.Go(func() { states[r], figs[r], errs[r] = Reduce(name, rankComm{w, r}, per, nil) })
				}
				wg.Wait()
				for r, err := range errs {
					if err != nil {
						t.Fatalf("%s, rank %d/%d: %v", name, r, size, err)
					}
				}
				var got bytes.Buffer
				if err := states[0].WriteReport(&got, &ReportOptions{JSON: true}); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(want.Bytes(), got.Bytes()) {
					t.Errorf("%s on %d ranks, epochs of %d events: differs from the whole trace", name, size, per)
				}
				var events int64
				for _, f := range figs {
					events += f.Events
					if f.MaxEpoch > len(empty) {
						carried = true
					}
				}
				if events != whole.Events {
					t.Errorf("%s on %d ranks: %d events, want %d", name, size, events, whole.Events)
				}
				if per == 1 && figs[0].Epochs < 2 {
					t.Errorf("%s on %d ranks: %d epochs of 1 event", name, size, figs[0].Epochs)
				}
			}
		}
	}
	if !carried {
		t.Error("no epoch carried anything up the tree: the test shows nothing")
	}
}
