package shardstat

import (
	"fmt"
	"math"
	"time"

	"github.com/hpctrace/hpctrace/model"
)

// Comm is what a reduction needs of a job of ranks (MPI_COMM_WORLD):
// each rank calls the methods in the same order.
type Comm interface {
	Rank() int
	Size() int
	// Send sends b to rank dest; Recv receives what rank src sent, in
	// the order sent.
	Send(b []byte, dest int) error
	Recv(src int) ([]byte, error)
	// AllreduceMin replaces each element of v (of the same length on
	// every rank) with its minimum over the ranks.
	AllreduceMin(v []int64) error
}

// Figures are what one rank did in a Reduce.
type Figures struct {
	Events     int64         // events the rank profiled
	Epochs     int           // epochs read
	EpochBytes int64         // bytes sent to the parent after the epochs
	MaxEpoch   int           // bytes of the largest of them
	FinalBytes int64         // bytes of the state sent in the final reduction
	Read       time.Duration // reading and the epochs' exchanges
	Reduce     time.Duration // the final reduction
}

// EpochEvents is the number of events on the busiest rank an epoch of
// Reduce aims at by default. A rank's memory grows with it (about 70 to 110 MiB at
// this value on a trace whose every message crosses ranks); the number
// of epochs, each a synchronisation of all ranks, shrinks with it.
const EpochEvents = 1 << 18

// tree returns the parent of rank in the binary reduction tree of size
// ranks (-1 for rank 0) and the end of its subtree, whose ranks are
// [rank, end): at step s = 1, 2, 4, … the ranks r with r mod 2s == s
// send to r - s.
func tree(rank, size int) (parent, end int) {
	if rank == 0 {
		return -1, size
	}
	low := rank & -rank
	return rank - low, min(rank+low, size)
}

// Reduce profiles the trace name on the ranks of c, rank r the shard
// r/P in blocks of neighbouring locations (TraceBlocks: a message
// between neighbours then stays on one rank, or crosses to the next, and
// meets its partner low in the tree), and returns on rank 0 the state of the whole trace (on the other
// ranks, the state they sent). The ranks read in epochs of time, the same
// for all and adapted to hold about epochEvents events on the busiest
// rank (a gap without events is skipped); after each, what waits for other ranks
// goes up the binary reduction tree (Profiler.Detach, Adopt), so that a
// rank keeps what is in flight between ranks, not what accumulates over
// the trace. At the end the ranks' states are joined up the same tree,
// each sent whole with MarshalBinary, the wait-state analysis (unless
// opts.NoWaits) with them: it has no epochs, a rank keeps its log to the
// end. The result is the same whatever the epochs.
func Reduce(name string, c Comm, epochEvents int64, opts *Options) (*State, *Figures, error) {
	return reduce(name, c, epochEvents, opts, true)
}

// reduce is Reduce, in blocks or (for a test's comparison) by l mod P.
func reduce(name string, c Comm, epochEvents int64, opts *Options, inBlocks bool) (*State, *Figures, error) {
	rank, size := c.Rank(), c.Size()
	parent, end := tree(rank, size)
	fig := &Figures{}
	t0 := time.Now()
	shard := Shard{I: rank, N: size}
	if inBlocks {
		var err error
		if shard.Blocks, err = TraceBlocks(name, size); err != nil {
			return nil, nil, err
		}
	}
	p, err := NewProfiler(name, shard, opts)
	if err != nil {
		return nil, nil, err
	}
	defs := p.src.Defs()
	inside := func(l model.LocID) bool {
		r := shard.Of(defs, l)
		return r >= rank && r < end
	}
	if err := epochs(p, c, inside, parent, epochEvents, fig); err != nil {
		p.Close()
		return nil, nil, err
	}
	st, err := p.State()
	if err != nil {
		return nil, nil, err
	}
	fig.Events = st.Events
	t1 := time.Now()
	fig.Read = t1.Sub(t0)
	for step := 1; step < size; step *= 2 {
		if rank%(2*step) != 0 {
			data, err := st.MarshalBinary()
			if err != nil {
				return nil, nil, err
			}
			fig.FinalBytes = int64(len(data))
			if err := c.Send(data, parent); err != nil {
				return nil, nil, err
			}
			break
		}
		from := rank + step
		if from >= size {
			continue
		}
		data, err := c.Recv(from)
		if err != nil {
			return nil, nil, err
		}
		o, err := Decode(fmt.Sprintf("the state of rank %d", from), data)
		if err != nil {
			return nil, nil, err
		}
		if err := st.Join(o); err != nil {
			return nil, nil, fmt.Errorf("joining the state of rank %d: %w", from, err)
		}
	}
	fig.Reduce = time.Since(t1)
	return st, fig, nil
}

// epochs reads p in epochs, handing what waits outside the subtree of
// the rank (inside) to its parent after each. The next epoch is agreed
// on before the exchange, so that a rank that has sent goes on reading
// while its parent adopts.
func epochs(p *Profiler, c Comm, inside func(model.LocID) bool, parent int, epochEvents int64, fig *Figures) error {
	rank, size := c.Rank(), c.Size()
	// One reduction per epoch agrees on the next one: the minimum of the
	// ranks' next event times, and (negated) the maximum of the events
	// the ranks read in the last.
	agree := func(n int64) (first, most int64, err error) {
		t, ok, err := p.Next()
		if err != nil {
			return 0, 0, err
		}
		if !ok {
			t = math.MaxInt64
		}
		v := []int64{int64(t), -n}
		if err := c.AllreduceMin(v); err != nil {
			return 0, 0, err
		}
		return v[0], -v[1], nil
	}
	first, _, err := agree(0)
	if err != nil {
		return err
	}
	for w := int64(1); first != math.MaxInt64; {
		last := int64(math.MaxInt64)
		if first <= math.MaxInt64-w {
			last = first + w - 1
		}
		n, err := p.Feed(model.Time(last))
		if err != nil {
			return err
		}
		var most int64
		if first, most, err = agree(n); err != nil {
			return err
		}
		fig.Epochs++
		w = nextWindow(w, most, epochEvents)
		if first == math.MaxInt64 {
			break // the final reduction carries the rest
		}
		for step := 1; step < size; step *= 2 {
			if rank%(2*step) != 0 {
				data := p.Detach(inside)
				fig.EpochBytes += int64(len(data))
				fig.MaxEpoch = max(fig.MaxEpoch, len(data))
				if err := c.Send(data, parent); err != nil {
					return err
				}
				break
			}
			if rank+step >= size {
				continue
			}
			data, err := c.Recv(rank + step)
			if err != nil {
				return err
			}
			if err := p.Adopt(data); err != nil {
				return fmt.Errorf("adopting what rank %d detached: %w", rank+step, err)
			}
		}
	}
	return nil
}

// nextWindow returns the width of the next epoch from that of the last,
// w ticks, in which the busiest rank read n events of the target: in
// proportion, but at most 8 times wider or 4 times narrower.
func nextWindow(w, n, target int64) int64 {
	f := float64(target) / float64(max(n, 1))
	f = min(max(f, 0.25), 8)
	nw := float64(w) * f
	if nw >= math.MaxInt64/2 {
		return math.MaxInt64 / 2
	}
	return max(int64(nw), 1)
}
