package otf

// merger is a loser tree over k sources keyed by (time, process), with
// ties broken by the source index. A replay after the winning source
// advances costs ⌈log2 k⌉ key comparisons and no calls through function
// values, about a third of a binary heap's work (internal/kmerge) at the
// rates the TraceReader needs.
type merger struct {
	keys []mergeKey
	tree []int // tree[0]: winner; tree[1:k]: the loser of each internal node
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

var doneKey = mergeKey{^uint64(0), ^uint64(0)}

func makeKey(time uint64, proc uint32, src int) mergeKey {
	return mergeKey{time, uint64(proc)<<32 | uint64(uint32(src))}
}

func (k mergeKey) done() bool { return k == doneKey }

func (m *merger) less(a, b int) bool {
	x, y := m.keys[a], m.keys[b]
	return x.time < y.time || x.time == y.time && x.lo < y.lo
}

// init builds the tree once every key is loaded.
func (m *merger) init(k int) {
	m.k = k
	m.tree = make([]int, max(k, 1))
	win := make([]int, 2*k)
	for i := range k {
		win[k+i] = i
	}
	for n := k - 1; n >= 1; n-- {
		a, b := win[2*n], win[2*n+1]
		if m.less(b, a) {
			a, b = b, a
		}
		win[n], m.tree[n] = a, b
	}
	if k > 1 {
		m.tree[0] = win[1]
	}
}

// replay restores the tree after source s's key changed (s was the winner).
func (m *merger) replay(s int) {
	w := s
	wk := m.keys[s]
	tree, keys := m.tree, m.keys
	for n := (s + m.k) >> 1; n > 0; n >>= 1 {
		t := tree[n]
		tk := keys[t]
		if tk.time < wk.time || tk.time == wk.time && tk.lo < wk.lo {
			tree[n], w, wk = w, t, tk
		}
	}
	tree[0] = w
}
