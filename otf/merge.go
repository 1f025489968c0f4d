package otf

import "math/bits"

// merger is a loser tree over k sources keyed by (time, process), with
// ties broken by the source index. The nodes hold the losers' keys, which
// carry their source index, so a replay after the winning source advances
// costs ⌈log2 k⌉ two-word comparisons with no indirection and no calls
// through function values, about a third of a binary heap's work
// (internal/kmerge) at the rates the TraceReader needs.
type merger struct {
	keys []mergeKey // the current key of each source
	tree []mergeKey // tree[0]: the winner; tree[1:k]: the loser of each internal node
	win  []mergeKey // scratch of init: the winner of each node
	k    int
}

// A mergeKey orders the current records of the sources: time, then
// process<<32 | source index, so that one two-word comparison settles
// every tie. An exhausted source holds doneKey, which sorts after every
// record (a record's low word is below all ones since k < 2³²-1).
type mergeKey struct {
	time uint64
	lo   uint64
}

var doneKey = mergeKey{doneWord, doneWord}

// doneWord is both words of doneKey, for code that builds or tests the
// key without loading the variable.
const doneWord = ^uint64(0)

func makeKey(time uint64, proc uint32, src int) mergeKey {
	return mergeKey{time, uint64(proc)<<32 | uint64(uint32(src))}
}

func (k mergeKey) done() bool { return k.time == doneWord && k.lo == doneWord }

func (k mergeKey) less(o mergeKey) bool {
	return k.time < o.time || k.time == o.time && k.lo < o.lo
}

// winner returns the source of the smallest key; meaningless when that
// key is done.
func (m *merger) winner() int { return int(uint32(m.tree[0].lo)) }

// init builds the tree once every key is loaded, reusing the memory of a
// previous tree for the same k.
func (m *merger) init(k int) {
	m.k = k
	if len(m.tree) != max(k, 1) {
		m.tree = make([]mergeKey, max(k, 1))
		m.win = make([]mergeKey, 2*k)
	}
	win := m.win
	copy(win[k:], m.keys)
	for n := k - 1; n >= 1; n-- {
		a, b := win[2*n], win[2*n+1]
		if b.less(a) {
			a, b = b, a
		}
		win[n], m.tree[n] = a, b
	}
	switch {
	case k > 1:
		m.tree[0] = win[1]
	case k == 1:
		m.tree[0] = m.keys[0]
	}
}

// replay restores the tree after source s's key changed (s was the winner).
func (m *merger) replay(s int) { m.push(s, m.keys[s]) }

// push restores the tree after source s, the winner, took key w (which
// need not be stored in keys) and returns the new winner's key.
func (m *merger) push(s int, w mergeKey) mergeKey {
	tree := m.tree
	for n := uint(s+m.k) >> 1; n > 0; n >>= 1 {
		// Without branches (the outcome is data-dependent and
		// mispredicts): t < w is the borrow of the 128-bit t - w, and
		// the mask swaps t and w when it is set.
		t := &tree[n]
		tt, tl := t.time, t.lo
		_, b := bits.Sub64(tl, w.lo, 0)
		_, b = bits.Sub64(tt, w.time, b)
		mask := -b
		dt, dl := (tt^w.time)&mask, (tl^w.lo)&mask
		t.time, t.lo = tt^dt, tl^dl
		w.time, w.lo = w.time^dt, w.lo^dl
	}
	tree[0] = w
	return w
}
