package otf2

import (
	"cmp"
	"iter"
	"slices"

	"github.com/hpctrace/hpctrace/internal/kmerge"
)

// A MergedReader yields the events of several locations in global time
// order, as otf2-print and libotf2's global event reader do: by
// (clock-corrected time, location id) ascending, events of one location
// in file order.
//
// A MergedReader is not safe for concurrent use.
type MergedReader struct {
	rs   []*EventReader
	t    kmerge.Tree[uint64] // keys: time, then location rank and reader
	rank []uint32            // rank of each reader's location
	win  int                 // reader of cur, to advance on Next; -1 if none
	cur  *Event
	err  error
}

// NewMergedReader merges the given per-location readers; it takes them
// over (Close closes them).
func NewMergedReader(rs []*EventReader) *MergedReader {
	mr := &MergedReader{rs: rs, rank: locationRanks(len(rs), func(i int) uint64 { return rs[i].opts.Location }), win: -1}
	mr.t.Start(len(rs), mr.key)
	return mr
}

// locationRanks returns the rank of each of n sources in the order of
// their locations (then of their index), the tie break of a merge key.
func locationRanks(n int, loc func(i int) uint64) []uint32 {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(loc(a), loc(b)) })
	rank := make([]uint32, n)
	for r, i := range order {
		rank[i] = uint32(r)
	}
	return rank
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

// key moves reader i to its next event and returns its merge key, Done at
// the end or on an error (which it keeps).
func (mr *MergedReader) key(i int) kmerge.Key[uint64] {
	if mr.err == nil && mr.rs[i].Next() {
		return kmerge.MakeKey(mr.rs[i].ev.Time, mr.rank[i], i)
	}
	if err := mr.rs[i].Err(); err != nil && mr.err == nil {
		mr.err = err
	}
	return kmerge.Done[uint64]()
}

// Next advances to the next event in global order; false at the end or
// on the first error of any location.
func (mr *MergedReader) Next() bool {
	if mr.err != nil {
		return false
	}
	w := mr.t.Winner()
	if mr.win >= 0 {
		w = mr.t.Push(mr.win, mr.key(mr.win))
	}
	if w.Done() || mr.err != nil {
		mr.cur, mr.win = nil, -1
		return false
	}
	mr.win = w.Source()
	mr.cur = &mr.rs[mr.win].ev
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
