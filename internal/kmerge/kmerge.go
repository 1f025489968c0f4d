// Package kmerge merges k ordered sources with a binary heap of source
// indices. It is the engine behind the time-ordered readers of the dumpi and
// otf packages: each source is a pull cursor, and the merge never copies a
// record, it only decides which cursor's current record comes next.
//
// A Merger allocates only when it is initialised (the heap of indices); Next
// allocates nothing.
package kmerge

// A Merger yields the indices of k sources in the order of their current
// records. The caller supplies two functions:
//
//   - advance(i) moves source i to its next record and reports whether it has
//     one; false means the source is exhausted (the caller keeps any error).
//   - less(i, j) reports whether the current record of source i sorts before
//     that of source j. Ties the caller does not break are broken by the
//     smaller index, so the merge is deterministic.
//
// The zero Merger is empty; call Init before use. A Merger is not safe for
// concurrent use.
type Merger struct {
	heap    []int
	advance func(i int) bool
	less    func(i, j int) bool
	pending int // index whose record was handed out and must be advanced; -1 if none
}

// Init prepares the merge of sources 0..k-1. It calls advance once for each
// source to load its first record. Sources that are empty from the start
// take no part. Init reuses the Merger's heap storage.
func (m *Merger) Init(k int, advance func(i int) bool, less func(i, j int) bool) {
	m.advance = advance
	m.less = less
	m.heap = m.heap[:0]
	m.pending = -1
	for i := range k {
		if advance(i) {
			m.heap = append(m.heap, i)
		}
	}
	for i := len(m.heap)/2 - 1; i >= 0; i-- {
		m.down(i)
	}
}

// Next advances the source returned by the previous call, then returns the
// index of the source whose current record sorts first. It returns false
// when every source is exhausted.
func (m *Merger) Next() (int, bool) {
	if m.pending >= 0 {
		src := m.pending
		m.pending = -1
		if m.advance(src) {
			m.down(0)
		} else {
			last := len(m.heap) - 1
			m.heap[0] = m.heap[last]
			m.heap = m.heap[:last]
			if last > 0 {
				m.down(0)
			}
		}
	}
	if len(m.heap) == 0 {
		return -1, false
	}
	m.pending = m.heap[0]
	return m.pending, true
}

// Len reports how many sources still have records, counting the one
// returned by the last call to Next.
func (m *Merger) Len() int { return len(m.heap) }

func (m *Merger) before(a, b int) bool {
	i, j := m.heap[a], m.heap[b]
	if m.less(i, j) {
		return true
	}
	if m.less(j, i) {
		return false
	}
	return i < j
}

func (m *Merger) down(i int) {
	n := len(m.heap)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && m.before(r, l) {
			c = r
		}
		if !m.before(c, i) {
			return
		}
		m.heap[i], m.heap[c] = m.heap[c], m.heap[i]
		i = c
	}
}
