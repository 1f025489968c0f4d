package stats

import (
	"errors"
	"math"
	"slices"

	"github.com/hpctrace/hpctrace/model"
)

// closedNodes returns the nodes of t with the calls still open closed at
// their location's last event time, as Root does.
func (t *CallTree) closedNodes() []ctNode {
	nodes := slices.Clone(t.nodes)
	for _, lc := range t.locs {
		st := slices.Clone(lc.stack)
		for len(st) > 0 {
			closeFrame(nodes, &st, lc.last)
		}
	}
	return nodes
}

// MarshalBinary saves the tree of a shard (a CallTree fed with the events
// of some locations), to be combined with the others by [CallTree.Join]
// after UnmarshalBinary: the call paths with their statistics, the calls
// still open closed at their location's last event time. The layout and
// its compatibility rule are those of [StateVersion]. t is not modified.
func (t *CallTree) MarshalBinary() ([]byte, error) {
	nodes := t.closedNodes()
	e := &enc{}
	header(e, treeMagic)
	e.u(uint64(t.opts.MaxNodes))
	e.u(uint64(t.opts.MaxCallDepth))
	e.i(t.dropped)
	e.u(uint64(len(nodes) - 1))
	for _, x := range nodes[1:] {
		e.u(uint64(x.key.parent))
		e.u(uint64(x.key.region))
		e.u(uint64(x.key.site))
		for _, v := range []int64{x.count, x.incl, x.excl, x.min, x.max} {
			e.i(v)
		}
	}
	return seal(e.b), nil
}

// UnmarshalBinary replaces the tree of t with the state data holds, as
// written by MarshalBinary; t keeps the definitions it was made with
// (NewCallTree), which name the regions and sites. The result takes no
// more events; it can be joined and read with Root. Bad input yields an
// error wrapping [ErrState], never a panic.
func (t *CallTree) UnmarshalBinary(data []byte) error {
	d := openSealed(data, treeMagic)
	var opts CallTreeOptions
	opts.MaxNodes = int(d.id(1, math.MaxInt32))
	opts.MaxCallDepth = int(d.id(1, math.MaxInt32))
	dropped := d.i()
	d.check(dropped >= 0, "negative dropped calls")
	n := d.count(8)
	if d.err != nil {
		return d.err
	}
	nreg, nsite := maxID, maxID
	if t.defs != nil {
		nreg, nsite = t.defs.NumRegions(), len(t.defs.Sites())
	}
	u := NewCallTree(t.defs, &opts)
	u.dropped = dropped
	for i := range n {
		k := ctKey{parent: int32(d.id(0, i)), region: model.RegionID(d.id(1, nreg)), site: model.SiteID(d.id(0, nsite))}
		x := ctNode{count: d.i(), incl: d.i(), excl: d.i(), min: d.i(), max: d.i()}
		d.check(x.count >= 0 && x.excl >= 0 && x.min >= 0 && x.excl <= x.incl && x.min <= x.max,
			"inconsistent call path statistics (negative, exclusive above inclusive time, or minimum above maximum)")
		if d.err != nil {
			return d.err
		}
		if _, dup := u.find(k); dup {
			d.fail("duplicate call path")
			return d.err
		}
		node := u.child(k.parent, k.region, k.site)
		if node < 0 {
			d.fail("more call paths than MaxNodes")
			return d.err
		}
		x.key, x.kids = k, u.nodes[node].kids
		u.nodes[node] = x
	}
	if len(d.b) > 0 {
		d.fail("trailing bytes")
		return d.err
	}
	*t = *u
	return nil
}

// find returns the node of key k, if there is one.
func (t *CallTree) find(k ctKey) (int32, bool) {
	call := ctCall(k.region, k.site)
	for _, c := range t.nodes[k.parent].kids {
		if c.call == call {
			return c.node, true
		}
	}
	n, ok := t.index[k]
	return n, ok
}

// Join adds the tree of u to t: the statistics of each call path are
// summed, and paths new to t are added (up to MaxNodes; calls on paths
// beyond it are counted by Dropped). Calls still open are closed at their
// location's last event time, in t and (on a copy) in u, so t takes no
// more events afterwards. The result does not depend on the order in
// which shards are joined as long as MaxNodes is not reached. Both trees
// must be of the same trace; u is not modified.
func (t *CallTree) Join(u *CallTree) error {
	if t.opts != u.opts {
		return errors.New("stats: joined call trees have different options")
	}
	t.nodes = t.closedNodes()
	for l := range t.locs {
		t.locs[l].stack = t.locs[l].stack[:0]
	}
	nodes := u.closedNodes()
	at := make([]int32, len(nodes)) // u's node → t's, -1 beyond the limits
	for i := 1; i < len(nodes); i++ {
		x := &nodes[i]
		p := at[x.key.parent]
		n := int32(-1)
		if p >= 0 {
			n = t.child(p, x.key.region, x.key.site)
		}
		at[i] = n
		if n < 0 {
			t.dropped += x.count
			continue
		}
		y := &t.nodes[n]
		if x.count > 0 {
			if y.count == 0 || x.min < y.min {
				y.min = x.min
			}
			if y.count == 0 || x.max > y.max {
				y.max = x.max
			}
		}
		y.count += x.count
		y.incl += x.incl
		y.excl += x.excl
	}
	t.dropped += u.dropped
	return nil
}
