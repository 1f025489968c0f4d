package stats

import (
	"iter"
	"maps"
	"slices"

	"github.com/hpctrace/hpctrace/model"
)

// A table holds one value per region of a location. Region ids are dense
// over the whole trace, not over one location, so a slice indexed by id
// would cost every location as much as the highest id it meets (locations
// × regions in all). A table is a slice indexed by id (the fast path) for
// the ids up to about eight times the number of entries in use, and a map
// for the ids beyond: its memory is proportional to its entries.
//
// Pointers returned by get and find are valid until the next get of an id
// not yet in the table.
type table[T any, PT interface {
	*T
	inUse() bool
}] struct {
	dense  []T
	sparse map[model.RegionID]*T // ids ≥ len(dense) only
	check  int                   // len(sparse) at which compact runs
}

// denseMin is the length up to which the slice grows without a check.
const denseMin = 64

// get returns the entry of r, adding a zero one if there is none.
func (t *table[T, PT]) get(r model.RegionID) *T {
	if int(r) < len(t.dense) {
		return &t.dense[r]
	}
	return t.slow(r)
}

func (t *table[T, PT]) slow(r model.RegionID) *T {
	if int(r) < denseMin {
		t.grow(min(max(int(r)+1, 2*len(t.dense), 8), denseMin))
		return &t.dense[r]
	}
	if p := t.sparse[r]; p != nil {
		return p
	}
	if t.sparse == nil {
		t.sparse = make(map[model.RegionID]*T)
	}
	p := new(T)
	t.sparse[r] = p
	if len(t.sparse) >= t.check {
		t.compact()
		return t.find(r)
	}
	return p
}

// grow extends the slice to n entries, moving in the map's entries below n.
func (t *table[T, PT]) grow(n int) {
	if n <= len(t.dense) {
		return
	}
	t.dense = append(t.dense, make([]T, n-len(t.dense))...)
	for r, p := range t.sparse {
		if int(r) < n {
			t.dense[r] = *p
			delete(t.sparse, r)
		}
	}
}

// compact grows the slice as far as the entries in use allow, and sets
// the next check so that its cost, proportional to the table's size, is
// spread over as many new entries.
func (t *table[T, PT]) compact() {
	used := len(t.sparse)
	for i := range t.dense {
		if PT(&t.dense[i]).inUse() {
			used++
		}
	}
	limit := denseMin + 8*used
	top := 0
	for r := range t.sparse {
		top = max(top, int(r)+1)
	}
	if top <= limit {
		t.grow(max(top, min(2*len(t.dense), limit)))
	} else {
		t.grow(min(limit, max(2*len(t.dense), denseMin)))
	}
	t.check = max(2*len(t.sparse), len(t.dense)/4) + 16
}

// find returns the entry of r, or nil.
func (t *table[T, PT]) find(r model.RegionID) *T {
	if int(r) < len(t.dense) {
		return &t.dense[r]
	}
	return t.sparse[r]
}

// all yields the entries in the order of their ids.
func (t *table[T, PT]) all() iter.Seq2[model.RegionID, *T] {
	return func(yield func(model.RegionID, *T) bool) {
		for i := range t.dense {
			if !yield(model.RegionID(i), &t.dense[i]) {
				return
			}
		}
		for _, r := range slices.Sorted(maps.Keys(t.sparse)) {
			if !yield(r, t.sparse[r]) {
				return
			}
		}
	}
}

// clone returns a deep copy of t.
func (t *table[T, PT]) clone() table[T, PT] {
	c := table[T, PT]{dense: slices.Clone(t.dense), check: t.check}
	if t.sparse != nil {
		c.sparse = make(map[model.RegionID]*T, len(t.sparse))
		for r, p := range t.sparse {
			v := *p
			c.sparse[r] = &v
		}
	}
	return c
}
