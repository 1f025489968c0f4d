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
	heap    []mergeKey // the readers with a current event, least first
	pending int        // reader whose event was handed out, to advance; -1 if none
	cur     *Event
	err     error
}

// A mergeKey is the order of a reader's current event, kept in the heap
// so that comparisons touch neither the readers nor their events.
type mergeKey struct {
	time, loc uint64
	i         int // the reader: events of equal time and location in reader order
}

func (a *mergeKey) before(b *mergeKey) bool {
	if a.time != b.time {
		return a.time < b.time
	}
	if a.loc != b.loc {
		return a.loc < b.loc
	}
	return a.i < b.i
}

// NewMergedReader merges the given per-location readers; it takes them
// over (Close closes them).
func NewMergedReader(rs []*EventReader) *MergedReader {
	mr := &MergedReader{rs: rs, pending: -1}
	for i := range rs {
		if mr.advance(i) {
			mr.heap = append(mr.heap, mr.key(i))
		}
	}
	for i := len(mr.heap)/2 - 1; i >= 0; i-- {
		mr.down(i)
	}
	return mr
}

func (mr *MergedReader) key(i int) mergeKey {
	ev := &mr.rs[i].ev
	return mergeKey{time: ev.Time, loc: ev.Location, i: i}
}

// down moves heap entry i down to its place.
func (mr *MergedReader) down(i int) {
	h := mr.heap
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && h[r].before(&h[l]) {
			c = r
		}
		if !h[c].before(&h[i]) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
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
		if mr.advance(src) {
			ev := &mr.rs[src].ev
			mr.heap[0].time, mr.heap[0].loc = ev.Time, ev.Location
			mr.down(0)
		} else {
			last := len(mr.heap) - 1
			mr.heap[0] = mr.heap[last]
			mr.heap = mr.heap[:last]
			if last > 0 {
				mr.down(0)
			}
		}
	}
	if len(mr.heap) == 0 || mr.err != nil {
		mr.cur = nil
		return false
	}
	mr.pending = mr.heap[0].i
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
