package otf2

import (
	"iter"
)

// A MergedReader yields the events of several locations in global time
// order, as otf2-print and libotf2's global event reader do: by
// (clock-corrected time, location id) ascending, events of one location
// in file order.
//
// A MergedReader is not safe for concurrent use.
type MergedReader struct {
	rs      []*EventReader
	keys    []mergeKey // each reader's current event's order
	tree    []int      // a tournament (loser) tree over keys: [0] the winner, [1:] the loser of each match
	pending int        // reader whose event was handed out, to advance; -1 if none
	cur     *Event
	err     error
}

// A mergeKey is the order of a reader's current event, kept beside the
// tree so that a match touches neither the readers nor their events. An
// exhausted reader's key is done and loses every match.
type mergeKey struct {
	time, loc uint64
	done      bool
}

// before reports whether reader a's event comes before reader b's: by
// time, then location, then reader order.
func (mr *MergedReader) before(a, b int) bool {
	x, y := &mr.keys[a], &mr.keys[b]
	switch {
	case x.done || y.done:
		return !x.done || y.done && a < b
	case x.time != y.time:
		return x.time < y.time
	case x.loc != y.loc:
		return x.loc < y.loc
	}
	return a < b
}

// NewMergedReader merges the given per-location readers; it takes them
// over (Close closes them).
func NewMergedReader(rs []*EventReader) *MergedReader {
	k := len(rs)
	mr := &MergedReader{rs: rs, pending: -1, keys: make([]mergeKey, k), tree: make([]int, max(k, 1))}
	for i := range rs {
		mr.load(i)
	}
	if k > 0 {
		mr.tree[0] = mr.build(1)
	}
	return mr
}

// load advances reader i and records the order of its event.
func (mr *MergedReader) load(i int) {
	if !mr.advance(i) {
		mr.keys[i] = mergeKey{done: true}
		return
	}
	ev := &mr.rs[i].ev
	mr.keys[i] = mergeKey{time: ev.Time, loc: ev.Location}
}

// build plays the matches below node (leaves are the nodes k … 2k-1)
// and returns their winner.
func (mr *MergedReader) build(node int) int {
	k := len(mr.rs)
	if node >= k {
		return node - k
	}
	a, b := mr.build(2*node), mr.build(2*node+1)
	if mr.before(b, a) {
		a, b = b, a
	}
	mr.tree[node] = b
	return a
}

// replay plays the matches from reader i's leaf to the root.
func (mr *MergedReader) replay(i int) {
	w := i
	for node := (i + len(mr.rs)) / 2; node >= 1; node /= 2 {
		if l := mr.tree[node]; mr.before(l, w) {
			mr.tree[node], w = w, l
		}
	}
	mr.tree[0] = w
}

// MergedReader opens the event readers of the given locations (all
// locations if locs is nil) and merges them.
func (a *Archive) MergedReader(locs []uint64) (*MergedReader, error) {
	if locs == nil {
		locs = a.Locations()
	}
	var rs []*EventReader
	for _, l := range locs {
		r, err := a.EventReader(l)
		if err != nil {
			for _, r := range rs {
				r.Close()
			}
			return nil, err
		}
		rs = append(rs, r)
	}
	return NewMergedReader(rs), nil
}

func (mr *MergedReader) advance(i int) bool {
	if mr.err != nil {
		return false
	}
	if mr.rs[i].Next() {
		return true
	}
	if err := mr.rs[i].Err(); err != nil && mr.err == nil {
		mr.err = err
	}
	return false
}

// Next advances to the next event in global order; false at the end or
// on the first error of any location.
func (mr *MergedReader) Next() bool {
	if mr.err != nil {
		return false
	}
	if src := mr.pending; src >= 0 {
		mr.pending = -1
		mr.load(src)
		mr.replay(src)
	}
	if len(mr.rs) == 0 || mr.keys[mr.tree[0]].done || mr.err != nil {
		mr.cur = nil
		return false
	}
	mr.pending = mr.tree[0]
	mr.cur = &mr.rs[mr.pending].ev
	return true
}

// Record returns the current event, valid until the next Next. Use
// [Event.Clone] to keep it.
func (mr *MergedReader) Record() *Event {
	if mr.cur == nil {
		return &Event{}
	}
	return mr.cur
}

// Err returns the first error of any location; nil after a clean end.
func (mr *MergedReader) Err() error { return mr.err }

// All returns a single-use iterator over the remaining events.
func (mr *MergedReader) All() iter.Seq2[*Event, error] {
	return func(yield func(*Event, error) bool) {
		for mr.Next() {
			if !yield(mr.cur, nil) {
				return
			}
		}
		if mr.err != nil {
			yield(nil, mr.err)
		}
	}
}

// Close closes every location's reader.
func (mr *MergedReader) Close() error {
	var first error
	for _, r := range mr.rs {
		if err := r.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
