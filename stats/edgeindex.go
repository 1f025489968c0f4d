package stats

import (
	"slices"

	"github.com/hpctrace/hpctrace/model"
)

// An edgeIndex finds a call edge's position in Accumulator.edges by its
// key. It is a hash table of positions with linear probing, and keeps
// each key once, in keys, in the order of the edges: a map from keys to
// positions holds the keys a second time, with its own overhead, and a
// trace of many locations has millions of edges. Edges are only added.
type edgeIndex struct {
	keys  []edgeKey // by position
	slots []int32   // position + 1, 0 when empty; a power of two long, or empty
}

// hashEdge mixes the fields of k.
func hashEdge(k edgeKey) uint64 {
	h := uint64(k.loc)<<32 | uint64(k.callee)
	h ^= (uint64(k.caller)<<32 | uint64(k.site)) * 0x9e3779b97f4a7c15
	h ^= h >> 31
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 29
	return h
}

// find returns the position of k, false if it has none.
func (x *edgeIndex) find(k edgeKey) (int32, bool) {
	if len(x.slots) == 0 {
		return 0, false
	}
	mask := uint64(len(x.slots) - 1)
	for i := hashEdge(k) & mask; ; i = (i + 1) & mask {
		s := x.slots[i]
		if s == 0 {
			return 0, false
		}
		if x.keys[s-1] == k {
			return s - 1, true
		}
	}
}

// add gives k, which x does not hold, the next position, which it
// returns: the caller appends the edge at it.
func (x *edgeIndex) add(k edgeKey) int32 {
	if 4*(len(x.keys)+1) > 3*len(x.slots) { // at most three quarters full
		x.rehash(max(16, 2*len(x.slots)))
	}
	p := int32(len(x.keys))
	x.keys = append(x.keys, k)
	x.place(k, p)
	return p
}

// place puts position p of key k in the first free slot from k's.
func (x *edgeIndex) place(k edgeKey, p int32) {
	mask := uint64(len(x.slots) - 1)
	i := hashEdge(k) & mask
	for x.slots[i] != 0 {
		i = (i + 1) & mask
	}
	x.slots[i] = p + 1
}

// rehash rebuilds the slots, n of them.
func (x *edgeIndex) rehash(n int) {
	x.slots = make([]int32, n)
	for p, k := range x.keys {
		x.place(k, int32(p))
	}
}

// clone returns a copy of x.
func (x *edgeIndex) clone() edgeIndex {
	return edgeIndex{keys: slices.Clone(x.keys), slots: slices.Clone(x.slots)}
}

// soleEdges calls f with the key and statistics of each sole edge with
// calls (funcStat.soleStat), by location.
func (a *Accumulator) soleEdges(f func(edgeKey, edgeStat)) {
	for li := range a.locs {
		a.locs[li].funcs.each(func(r model.RegionID, fs *funcStat) {
			if fs.eidx == soleEdge && fs.closed > 0 {
				f(edgeKey{model.LocID(li), fs.ecaller, fs.esite, r}, fs.soleStat())
			}
		})
	}
}
