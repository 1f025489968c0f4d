package otf2

import (
	"cmp"
	"iter"
	"math/bits"
	"slices"

	"github.com/hpctrace/hpctrace/internal/kmerge"
)

// A MergedReader yields the events of several locations in global time
// order, as otf2-print and libotf2's global event reader do: by
// (clock-corrected time, location id) ascending, events of one location
// in file order.
//
// Memory: 64 KiB of each location's file (see [EventReader]), and with
// NextBatch its buffers (see there).
//
// A MergedReader is not safe for concurrent use.
type MergedReader struct {
	rs    []*EventReader
	owned bool // the readers were opened by Archive.MergedReader: Close closes them
	// The merge's sources are the readers in the order of their
	// locations (ranked), so that the tie break of a key is its source.
	// While every time fits, the keys are packed into one word,
	// time<<sh | rank, and merged by pt; after a time too large to
	// pack (above maxTime), by t with two-word keys.
	ranked  []*EventReader
	pt      kmerge.Packed
	t       kmerge.Tree[uint64] // keys: time, then rank
	wide    bool                // t is in use
	sh      uint                // bits of a rank in a packed key
	maxTime uint64              // the largest time a packed key holds
	win     int                 // rank of the reader of cur, to advance on Next; -1 if none
	cur     *Event
	err     error

	// NextBatch's state: the merge moved to it (batch), each location's
	// buffered events (bs), the location whose buffer ran out and is
	// refilled first (refill, -1 if none), the first error met (berr).
	batch  bool
	bs     []locBatch
	hot    []hotLoc
	refill int
	berr   error
	per    int          // the events buffered per location
	perLoc int          // per if not 0 (tests set it)
	flat   []BatchEvent // the buffers of all locations, per events each
	ident  []uint64     // 0, 1, 2, …: the keys of a batch of copies (Batch.evs)

	// the windowed merge (window.go): in use, its keys, which are
	// (time-wbase)<<wsh | the event's place in flat (wmask), the
	// largest time-wbase a key holds, and scratch
	windowed bool
	wk       *winKeys
	wbase    uint64
	wsh      uint
	wmask    uint64
	wmax     uint64
	runs     []winRun
	runs2    []winRun
	merges   []winMerge
	pieces   []winPiece
}

// NewMergedReader merges the given per-location readers. Its Close does
// not close them: the caller closes the readers it gave.
func NewMergedReader(rs []*EventReader) *MergedReader {
	mr := &MergedReader{rs: rs, win: -1}
	rank := locationRanks(len(rs), func(i int) uint64 { return rs[i].opts.Location })
	mr.ranked = make([]*EventReader, len(rs))
	for i, r := range rank {
		mr.ranked[r] = rs[i]
	}
	if len(rs) > 1 {
		mr.sh = uint(bits.Len(uint(len(rs) - 1)))
	}
	mr.maxTime = ^uint64(0)>>mr.sh - 1 // so that no packed key is PackedDone
	keys := mr.pt.Reset(len(rs))
	fits := true
	for i, r := range rs { // in the callers' order, which picks the error kept
		if !mr.advance(r) {
			continue
		}
		t := r.ev.Time
		fits = fits && t <= mr.maxTime
		keys[rank[i]] = t<<mr.sh | uint64(rank[i])
	}
	mr.pt.Init()
	if !fits {
		mr.widen()
	}
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
	mr := NewMergedReader(rs)
	mr.owned = true
	return mr, nil
}

// advance moves r to its next event; false at its end or on an error,
// which it keeps.
func (mr *MergedReader) advance(r *EventReader) bool {
	if r.Next() {
		return true
	}
	if err := r.Err(); err != nil && mr.err == nil {
		mr.err = err
	}
	return false
}

// widen moves the merge to two-word keys, built from the current event of
// every reader that has one.
func (mr *MergedReader) widen() {
	keys := mr.t.Reset(len(mr.ranked))
	for i, k := range mr.pt.Keys() {
		if k != kmerge.PackedDone {
			keys[i] = kmerge.MakeKey(mr.ranked[i].ev.Time, 0, i)
		}
	}
	mr.t.Init()
	mr.wide = true
}

// Next advances to the next event in global order; false at the end or
// on the first error of any location.
// It returns false once [MergedReader.NextBatch] has been called.
func (mr *MergedReader) Next() bool {
	if mr.err != nil || mr.batch {
		return false
	}
	if mr.wide {
		return mr.nextWide()
	}
	w := mr.pt.Winner()
	if i := mr.win; i >= 0 {
		r := mr.ranked[i]
		// the hot kinds without the calls through Next
		if !(r.fast && !r.hold && !r.done && r.fastNext()) && !mr.advance(r) {
			w = mr.pt.Push(i, kmerge.PackedDone)
		} else if t := r.ev.Time; t <= mr.maxTime {
			w = mr.pt.Push(i, t<<(mr.sh&63)|uint64(i))
		} else {
			// the key of reader i in pt is its previous one, which
			// still marks it as live
			mr.widen()
			mr.win = -1
			return mr.nextWide()
		}
	}
	if w == kmerge.PackedDone || mr.err != nil {
		mr.cur, mr.win = nil, -1
		return false
	}
	mr.win = int(w & (1<<(mr.sh&63) - 1)) // (&63: no test of a shift past 63)
	mr.cur = &mr.ranked[mr.win].ev
	return true
}

// nextWide is Next with two-word keys.
func (mr *MergedReader) nextWide() bool {
	w := mr.t.Winner()
	if i := mr.win; i >= 0 {
		k := kmerge.Done[uint64]()
		if mr.advance(mr.ranked[i]) {
			k = kmerge.MakeKey(mr.ranked[i].ev.Time, 0, i)
		}
		w = mr.t.Push(i, k)
	}
	if w.Done() || mr.err != nil {
		mr.cur, mr.win = nil, -1
		return false
	}
	mr.win = w.Source()
	mr.cur = &mr.ranked[mr.win].ev
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
func (mr *MergedReader) Err() error {
	if mr.batch {
		return mr.berr
	}
	return mr.err
}

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

// Close closes every location's reader if the MergedReader was opened by
// Archive.MergedReader; it does nothing for one made by NewMergedReader.
// A second Close returns nil.
func (mr *MergedReader) Close() error {
	if !mr.owned {
		return nil
	}
	mr.owned = false
	var first error
	for _, r := range mr.rs {
		if err := r.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
