package shardstat

import (
	"github.com/hpctrace/hpctrace"
	"github.com/hpctrace/hpctrace/model"
)

// Blocks assigns the locations of a trace to n shards in blocks of
// neighbours, as Reduce does: the locations that own a stream (whose
// Stream is 0 or themselves: an OTF process, a DUMPI rank), in the order
// of their ids, are cut into n runs of consecutive locations whose
// lengths differ by at most one, shard i taking the i-th; a location of
// another's stream (a DUMPI rank's thread) goes with that stream. Ranks
// of an MPI run, processes of a trace, are mostly numbered so that
// neighbours exchange the most messages, and these then stay within a
// shard: under l mod n every neighbour is in another shard.
//
// A location the definitions did not have when Blocks was made (defined
// while the events are read) goes to shard l mod n, as without blocks.
type Blocks struct {
	of []int32 // shard by location id; [0] unused
}

// NewBlocks returns the blocks of the n shards of a trace with the
// definitions d (which every shard must have alike: the trace's whole
// definitions, as hpctrace.Open gives them whatever locations it
// selects).
func NewBlocks(d *model.Defs, n int) *Blocks {
	locs := d.Locations()
	var owners []model.LocID
	for i := range locs {
		if s := locs[i].Stream; s == 0 || s == locs[i].ID {
			owners = append(owners, locs[i].ID)
		}
	}
	b := &Blocks{of: make([]int32, len(locs)+1)}
	for i := range b.of {
		b.of[i] = -1
	}
	for k, l := range owners {
		b.of[l] = int32(int64(k) * int64(n) / int64(len(owners)))
	}
	for i := range locs {
		if s := locs[i].Stream; s != 0 && s != locs[i].ID && int(s) < len(b.of) {
			b.of[locs[i].ID] = b.of[s]
		}
	}
	return b
}

// TraceBlocks opens the trace name, reading its definitions only (no
// location's events are selected), and returns its blocks for n shards.
func TraceBlocks(name string, n int) (*Blocks, error) {
	t, err := hpctrace.Open(name, &hpctrace.Options{Locations: func(model.LocID) bool { return false }})
	if err != nil {
		return nil, err
	}
	b := NewBlocks(t.Defs(), n)
	return b, t.Close()
}

// shard returns the shard of location l among n.
func (b *Blocks) shard(l model.LocID, n int) int {
	if int(l) < len(b.of) && b.of[l] >= 0 {
		return int(b.of[l])
	}
	return int(uint64(l) % uint64(n))
}
