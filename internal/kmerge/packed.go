package kmerge

// PackedDone is the key of an exhausted source in a Packed tree; it sorts
// after every other key, and no record may have it.
const PackedDone = ^uint64(0)

// A Packed is a loser tree like Tree whose keys are single words compared
// as integers. A caller packs its major key and tie break into one word
// when they fit (for example a time shifted left by a few bits that hold
// the source's rank), so that each match is a comparison of two integers
// and two conditional moves instead of the two-word comparison of Tree. Keys of different sources
// must differ (the packed tie break sees to that), and a caller recovers
// the source from the winning key. A caller whose keys stop fitting moves
// to a Tree, which Keys lets it build from the current keys.
//
// The zero Packed is empty. It allocates only when k grows. It is not
// safe for concurrent use.
type Packed struct {
	keys []uint64 // the current key of each source
	node []uint64 // node[0]: the winner; node[1:k]: the loser of each match
	win  []uint64 // scratch of Init
	k    int
}

// Reset prepares the tree for k sources and returns their keys, all
// PackedDone, to be set before Init.
func (t *Packed) Reset(k int) []uint64 {
	t.k = k
	n := max(k, 1)
	if cap(t.node) < n {
		t.node = make([]uint64, n)
		t.win = make([]uint64, 2*k)
		t.keys = make([]uint64, k)
	}
	t.node, t.win, t.keys = t.node[:n], t.win[:2*k], t.keys[:k]
	for i := range t.keys {
		t.keys[i] = PackedDone
	}
	t.node[0] = PackedDone
	return t.keys
}

// Keys returns the sources' current keys.
func (t *Packed) Keys() []uint64 { return t.keys }

// Init plays every match from the current keys and returns the winner.
func (t *Packed) Init() uint64 {
	k := t.k
	switch k {
	case 0:
		t.node[0] = PackedDone
		return PackedDone
	case 1:
		t.node[0] = t.keys[0]
		return t.node[0]
	}
	win := t.win
	copy(win[k:], t.keys)
	for n := k - 1; n >= 1; n-- {
		a, b := win[2*n], win[2*n+1]
		win[n], t.node[n] = min(a, b), max(a, b)
	}
	t.node[0] = win[1]
	return win[1]
}

// Winner returns the smallest current key, PackedDone when every source
// is exhausted.
func (t *Packed) Winner() uint64 { return t.node[0] }

// Push replays the matches of source s, the winner, which took key (also
// stored as its current key), and returns the new winner.
//
// Its matches are conditional moves, not branches: on sources whose
// records interleave irregularly, as a trace's locations do, a branch
// per match mispredicts about every other time (an 8-location archive
// with random gaps merges in about two thirds of the time of the
// branching form; one whose locations take turns, which a predictor
// learns, in about 7% more). The compiler emits the moves for the swap
// below in a function of its own, and branches once it is inlined into
// a caller's loop, hence noinline.
//
//go:noinline
func (t *Packed) Push(s int, key uint64) uint64 {
	t.keys[s] = key
	node := t.node
	for n := uint(s+t.k) >> 1; n > 0; n >>= 1 {
		// The loser, the larger key, stays at the node. (min and max
		// of the loop-carried key compile to branches.)
		x := node[n]
		lo, hi := key, x
		if x < key {
			lo, hi = x, key
		}
		node[n] = hi
		key = lo
	}
	node[0] = key
	return key
}
