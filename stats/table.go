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
// × regions in all). A table keeps its first few entries in a short list
// sorted by id (a location of a large run often calls only a few
// regions, and then costs no more than those entries); past that, it is
// a slice indexed by id (the fast path) for the ids up to about eight
// times the number of entries in use, and a map for the ids beyond: its
// memory is proportional to its entries.
//
// Pointers returned by get and find are valid until the next get of an id
// not yet in the table.
//
// The slice and the map are behind a pointer, nil while the short list
// suffices: a table is part of every location's state, of which a trace
// of many locations has millions.
type table[T any, PT interface {
	*T
	inUse() bool
}] struct {
	few []entry[T]   // while the table has at most fewMax entries, and big is nil
	big *tableBig[T] // past that
}

// tableBig is the slice and the map of a table past its short list.
type tableBig[T any] struct {
	dense  []T
	sparse map[model.RegionID]*T // ids ≥ len(dense) only
	check  int                   // len(sparse) at which compact runs
}

// An entry is a value of a table's short list, with its id.
type entry[T any] struct {
	id model.RegionID
	v  T
}

// fewMax is the number of entries a table keeps in its short list.
const fewMax = 8

// denseMin is the length up to which the slice grows without a check.
const denseMin = 64

// get returns the entry of r, adding a zero one if there is none.
func (t *table[T, PT]) get(r model.RegionID) *T {
	if b := t.big; b != nil && int(r) < len(b.dense) {
		return &b.dense[r]
	}
	return t.slow(r)
}

func (t *table[T, PT]) slow(r model.RegionID) *T {
	if t.big == nil {
		i := t.search(r)
		if i < len(t.few) && t.few[i].id == r {
			return &t.few[i].v
		}
		if len(t.few) < fewMax {
			if t.few == nil {
				t.few = make([]entry[T], 0, 2)
			}
			t.few = slices.Insert(t.few, i, entry[T]{id: r})
			return &t.few[i].v
		}
		t.spill()
	}
	return t.bigGet(r)
}

// search returns the position of the first entry of the short list whose
// id is r or more.
func (t *table[T, PT]) search(r model.RegionID) int {
	for i := range t.few {
		if t.few[i].id >= r {
			return i
		}
	}
	return len(t.few)
}

// bigGet returns the entry of r in the slice or the map, adding it there.
func (t *table[T, PT]) bigGet(r model.RegionID) *T {
	if t.big == nil {
		t.big = new(tableBig[T])
	}
	b := t.big
	if int(r) < len(b.dense) {
		return &b.dense[r]
	}
	if int(r) < denseMin {
		t.grow(min(max(int(r)+1, 2*len(b.dense), 8), denseMin))
		return &b.dense[r]
	}
	if p := b.sparse[r]; p != nil {
		return p
	}
	if b.sparse == nil {
		b.sparse = make(map[model.RegionID]*T)
	}
	p := new(T)
	b.sparse[r] = p
	if len(b.sparse) >= b.check {
		t.compact()
		return t.find(r)
	}
	return p
}

// spill moves the short list's entries to the slice and the map, as if
// they had been added there.
func (t *table[T, PT]) spill() {
	few := t.few
	t.few = nil
	t.big = new(tableBig[T])
	for _, e := range few {
		*t.bigGet(e.id) = e.v
	}
}

// grow extends the slice to n entries, moving in the map's entries below n.
func (t *table[T, PT]) grow(n int) {
	b := t.big
	if n <= len(b.dense) {
		return
	}
	b.dense = append(b.dense, make([]T, n-len(b.dense))...)
	for r, p := range b.sparse {
		if int(r) < n {
			b.dense[r] = *p
			delete(b.sparse, r)
		}
	}
}

// compact grows the slice as far as the entries in use allow, and sets
// the next check so that its cost, proportional to the table's size, is
// spread over as many new entries.
func (t *table[T, PT]) compact() {
	b := t.big
	used := len(b.sparse)
	for i := range b.dense {
		if PT(&b.dense[i]).inUse() {
			used++
		}
	}
	limit := denseMin + 8*used
	top := 0
	for r := range b.sparse {
		top = max(top, int(r)+1)
	}
	if top <= limit {
		t.grow(max(top, min(2*len(b.dense), limit)))
	} else {
		t.grow(min(limit, max(2*len(b.dense), denseMin)))
	}
	b.check = max(2*len(b.sparse), len(b.dense)/4) + 16
}

// find returns the entry of r, or nil.
func (t *table[T, PT]) find(r model.RegionID) *T {
	b := t.big
	if b == nil {
		if i := t.search(r); i < len(t.few) && t.few[i].id == r {
			return &t.few[i].v
		}
		return nil
	}
	if int(r) < len(b.dense) {
		return &b.dense[r]
	}
	return b.sparse[r]
}

// slots returns the number of entries the slice and the map hold.
func (t *table[T, PT]) slots() int {
	if t.big == nil {
		return 0
	}
	return len(t.big.dense) + len(t.big.sparse)
}

// all yields the entries in the order of their ids.
func (t *table[T, PT]) all() iter.Seq2[model.RegionID, *T] {
	return func(yield func(model.RegionID, *T) bool) {
		for i := range t.few {
			if !yield(t.few[i].id, &t.few[i].v) {
				return
			}
		}
		b := t.big
		if b == nil {
			return
		}
		for i := range b.dense {
			if !yield(model.RegionID(i), &b.dense[i]) {
				return
			}
		}
		if len(b.sparse) == 0 {
			return
		}
		for _, r := range slices.Sorted(maps.Keys(b.sparse)) {
			if !yield(r, b.sparse[r]) {
				return
			}
		}
	}
}

// each calls f with the entries in the order of their ids, as all yields
// them, without all's allocations: it is the loop of the report's
// sections that visit every location's table.
func (t *table[T, PT]) each(f func(model.RegionID, *T)) {
	for i := range t.few {
		f(t.few[i].id, &t.few[i].v)
	}
	b := t.big
	if b == nil {
		return
	}
	for i := range b.dense {
		f(model.RegionID(i), &b.dense[i])
	}
	if len(b.sparse) == 0 {
		return
	}
	for _, r := range slices.Sorted(maps.Keys(b.sparse)) {
		f(r, b.sparse[r])
	}
}

// clone returns a deep copy of t.
func (t *table[T, PT]) clone() table[T, PT] {
	c := table[T, PT]{few: slices.Clone(t.few)}
	if b := t.big; b != nil {
		c.big = &tableBig[T]{dense: slices.Clone(b.dense), check: b.check}
		if b.sparse != nil {
			c.big.sparse = make(map[model.RegionID]*T, len(b.sparse))
			for r, p := range b.sparse {
				v := *p
				c.big.sparse[r] = &v
			}
		}
	}
	return c
}
