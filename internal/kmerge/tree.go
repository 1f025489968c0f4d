package kmerge

// Int is the constraint of a key's major part: a 64-bit integer, such as a
// time in ticks or nanoseconds.
type Int interface{ ~int64 | ~uint64 }

// A Key orders the current records of the sources of a Tree: by Major,
// then by Tie. The low 32 bits of Tie hold the index of the key's source
// and the high 32 bits a caller's tie-break that sorts before it (for
// example a process number), so that keys of different sources never
// compare equal and the order of ties is the caller's, not the tree's.
type Key[T Int] struct {
	Major T
	Tie   uint64
}

// MakeKey returns the key of a record of source src at major with the tie
// break tie.
func MakeKey[T Int](major T, tie uint32, src int) Key[T] {
	return Key[T]{major, uint64(tie)<<32 | uint64(uint32(src))}
}

// Done returns the key of an exhausted source, which sorts after the key
// of every record (a source index is below 2³²-1).
func Done[T Int]() Key[T] {
	m := ^T(0)
	if m < 0 { // signed: the largest value is ^(1<<63)
		m = ^(T(1) << 63)
	}
	return Key[T]{m, ^uint64(0)}
}

// Done reports whether k is the key of an exhausted source.
func (k Key[T]) Done() bool { return k == Done[T]() }

// Source returns the index of k's source; meaningless when k is Done.
func (k Key[T]) Source() int { return int(uint32(k.Tie)) }

// Less reports whether k sorts before o.
func (k Key[T]) Less(o Key[T]) bool {
	return k.Major < o.Major || k.Major == o.Major && k.Tie < o.Tie
}

// A Tree is a loser tree over k sources. Each internal node holds the key
// that lost the match played there, and node 0 the overall winner, so that
// after the winning source moves to its next record, restoring the order
// costs ⌈log₂ k⌉ comparisons of keys held in the nodes, with no
// indirection through the sources and no calls through function values.
//
// Use: Reset(k) returns the slice of the sources' current keys; fill it
// (Done for a source without records), call Init (or do all three with
// Start), then repeatedly read Winner, move that source on and call Push
// with its new key (or Done). The merge is over when Winner is Done.
//
// The zero Tree is empty. A Tree allocates only when k grows. It is not
// safe for concurrent use.
type Tree[T Int] struct {
	keys []Key[T] // the current key of each source, for Init and Replay
	node []Key[T] // node[0]: the winner; node[1:k]: the loser of each match
	win  []Key[T] // scratch of Init: the winner of each match
	k    int
}

// Reset prepares the tree for k sources and returns their keys, all Done,
// to be set before Init. It reuses the memory of a previous tree of the
// same or a larger k.
func (t *Tree[T]) Reset(k int) []Key[T] {
	t.k = k
	n := max(k, 1)
	if cap(t.node) < n {
		t.node = make([]Key[T], n)
		t.win = make([]Key[T], 2*k)
		t.keys = make([]Key[T], k)
	}
	t.node, t.win, t.keys = t.node[:n], t.win[:2*k], t.keys[:k]
	done := Done[T]()
	for i := range t.keys {
		t.keys[i] = done
	}
	t.node[0] = done
	return t.keys
}

// Keys returns the sources' current keys as Reset returned them.
func (t *Tree[T]) Keys() []Key[T] { return t.keys }

// K returns the number of sources.
func (t *Tree[T]) K() int { return t.k }

// Init plays every match from the current keys.
func (t *Tree[T]) Init() {
	k := t.k
	if k == 0 {
		t.node[0] = Done[T]()
		return
	}
	win := t.win
	copy(win[k:], t.keys)
	for n := k - 1; n >= 1; n-- {
		a, b := win[2*n], win[2*n+1]
		if b.Less(a) {
			a, b = b, a
		}
		win[n], t.node[n] = a, b
	}
	if k > 1 {
		t.node[0] = win[1]
	} else {
		t.node[0] = t.keys[0]
	}
}

// Start is Reset, then key(i) as the key of each source i in order (key
// loads the source's first record), then Init; it returns the winner.
func (t *Tree[T]) Start(k int, key func(i int) Key[T]) Key[T] {
	keys := t.Reset(k)
	for i := range keys {
		keys[i] = key(i)
	}
	t.Init()
	return t.Winner()
}

// Winner returns the smallest current key: Done when every source is
// exhausted, else the key of the source whose record comes next.
func (t *Tree[T]) Winner() Key[T] { return t.node[0] }

// Push replays the matches of source s, the winner, which took key (also
// stored as its current key), and returns the new winner.
func (t *Tree[T]) Push(s int, key Key[T]) Key[T] {
	t.keys[s] = key
	node := t.node
	for n := uint(s+t.k) >> 1; n > 0; n >>= 1 {
		// The loser, the larger key, stays at the node. Without
		// branches (the outcome is data-dependent and mispredicts):
		// the mask is all ones when x < key, and then swaps them.
		x := node[n]
		lt := bit(x.Major < key.Major) | bit(x.Major == key.Major)&bit(x.Tie < key.Tie)
		mask := -lt
		dm, dt := (x.Major^key.Major)&T(mask), (x.Tie^key.Tie)&mask
		node[n] = Key[T]{x.Major ^ dm, x.Tie ^ dt}
		key.Major ^= dm
		key.Tie ^= dt
	}
	node[0] = key
	return key
}

// Replay is Push of source s's current key, after the caller changed it in
// Keys.
func (t *Tree[T]) Replay(s int) Key[T] { return t.Push(s, t.keys[s]) }

// Nodes returns the tree's nodes, node 0 being the winner and node n the
// loser of the match at n, whose children are 2n and 2n+1 (leaf k+s being
// source s). It is for layers that run the same matches on a compact form
// of the keys and write them back.
func (t *Tree[T]) Nodes() []Key[T] { return t.node }

// bit is 1 for true and 0 for false, compiled to a flag set, not a branch.
func bit(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
