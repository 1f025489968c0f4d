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

type mergeKey struct {
	time uint64
	proc uint32
	done bool // the source is exhausted: sorts after everything
}

func (m *merger) less(a, b int) bool {
	x, y := &m.keys[a], &m.keys[b]
	if x.done != y.done {
		return y.done
	}
	if x.time != y.time {
		return x.time < y.time
	}
	if x.proc != y.proc {
		return x.proc < y.proc
	}
	return a < b
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
	for n := (s + m.k) / 2; n > 0; n /= 2 {
		if m.less(m.tree[n], w) {
			m.tree[n], w = w, m.tree[n]
		}
	}
	m.tree[0] = w
}
