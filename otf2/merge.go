package otf2

import (
	"iter"

	"github.com/hpctrace/hpctrace/internal/kmerge"
)

// A MergedReader yields the events of several locations in global time
// order, as otf2-print and libotf2's global event reader do: by
// (clock-corrected time, location id) ascending, events of one location
// in file order.
//
// A MergedReader is not safe for concurrent use.
type MergedReader struct {
	rs  []*EventReader
	m   kmerge.Merger
	cur *Event
	err error
}

// NewMergedReader merges the given per-location readers; it takes them
// over (Close closes them).
func NewMergedReader(rs []*EventReader) *MergedReader {
	mr := &MergedReader{rs: rs}
	mr.m.Init(len(rs), mr.advance, mr.less)
	return mr
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

func (mr *MergedReader) less(i, j int) bool {
	a, b := &mr.rs[i].ev, &mr.rs[j].ev
	if a.Time != b.Time {
		return a.Time < b.Time
	}
	return a.Location < b.Location
}

// Next advances to the next event in global order; false at the end or
// on the first error of any location.
func (mr *MergedReader) Next() bool {
	if mr.err != nil {
		return false
	}
	i, ok := mr.m.Next()
	if !ok || mr.err != nil {
		mr.cur = nil
		return false
	}
	mr.cur = &mr.rs[i].ev
	return true
}

// Event returns the current event, valid until the next Next. Use
// [Event.Clone] to keep it.
func (mr *MergedReader) Event() *Event {
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
