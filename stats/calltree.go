package stats

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/hpctrace/hpctrace/internal/termsafe"
	"github.com/hpctrace/hpctrace/model"
)

// CallTreeOptions configures a CallTree. A nil or zero value means
// defaults.
type CallTreeOptions struct {
	// MaxNodes bounds the call paths kept; 0 means 1<<16. A call that
	// would start a path beyond it is left in its caller's exclusive time
	// and counted by CallTree.Dropped.
	MaxNodes int
	// MaxCallDepth bounds the depth of a path (deep recursion); 0 means 256.
	// Calls deeper than that are treated as MaxNodes treats them.
	MaxCallDepth int
}

// A CallTree accumulates the calling-context tree of a trace: one node per
// call path from the root (the regions entered and the call sites they
// were entered from), with the calls' count and inclusive, exclusive,
// minimum and maximum time, summed over all locations. Unlike the
// drill-down of a [Report], which follows the call graph and sums a
// function's callees over all its callers, a node's children are the calls
// made on exactly its path, so a child never exceeds its parent.
//
// Memory is proportional to the number of distinct call paths (bounded by
// CallTreeOptions.MaxNodes) and the stack depth, not to the trace length.
// A CallTree is not safe for concurrent use.
type CallTree struct {
	defs    *model.Defs
	opts    CallTreeOptions
	nodes   []ctNode // [0] is the root
	index   map[ctKey]int32
	locs    []ctLoc     // by LocID
	nlocs   model.LocID // len(locs), as a LocID (0 if it does not fit)
	dropped int64
	cache   [256]ctSlot // recent children, by a hash of their parent and call
}

// A ctSlot of CallTree.cache holds a node (never the root) and its key;
// the zero slot holds none.
type ctSlot struct {
	call   uint64 // ctCall
	parent int32
	node   int32
}

// A ctLoc is a location's open calls and its latest event time.
type ctLoc struct {
	stack []ctFrame
	last  model.Time
}

type ctKey struct {
	parent int32
	region model.RegionID
	site   model.SiteID
}

type ctNode struct {
	key                         ctKey
	count, incl, excl, min, max int64
	kids                        []ctKid // the first children, searched before the index
}

// A ctKid is a child of a node, found by its region and site (ctCall).
type ctKid struct {
	call uint64
	node int32
}

// ctCall packs a call's region and site into one word, compared at once.
func ctCall(region model.RegionID, site model.SiteID) uint64 {
	return uint64(region)<<32 | uint64(site)
}

// ctKids is how many children of a node are found by a linear search of
// ctNode.kids; further ones only through CallTree.index.
const ctKids = 8

// A ctFrame is an open call; node is -1 for a call beyond the limits,
// whose time stays in its caller's exclusive time.
type ctFrame struct {
	node   int32
	region model.RegionID
	enter  model.Time
	child  int64
}

// NewCallTree returns an empty CallTree of a trace with the definitions
// defs (used for names when the tree is read).
func NewCallTree(defs *model.Defs, opts *CallTreeOptions) *CallTree {
	t := &CallTree{defs: defs, nodes: make([]ctNode, 1), index: make(map[ctKey]int32)}
	if opts != nil {
		t.opts = *opts
	}
	if t.opts.MaxNodes <= 0 {
		t.opts.MaxNodes = 1 << 16
	}
	if t.opts.MaxCallDepth <= 0 {
		t.opts.MaxCallDepth = 256
	}
	return t
}

// Add adds one event. Enter and Leave events build the tree, and every
// event's time is its location's latest (see Root). A Leave closes
// the innermost open call, whatever region it names (model.ClassifyLeave;
// the Accumulator counts those naming another region), and a Leave with
// no call open is ignored.
func (t *CallTree) Add(ev *model.Event) {
	// Small enough to inline at the caller: most events only move their
	// location's time.
	if ev.Kind > model.KindLeave && ev.Loc < t.nlocs {
		t.locs[ev.Loc].last = ev.Time
	} else {
		t.add(ev)
	}
}

func (t *CallTree) add(ev *model.Event) {
	if int(ev.Loc) >= len(t.locs) {
		t.grow(ev.Loc)
	}
	lc := &t.locs[ev.Loc]
	lc.last = ev.Time
	st := &lc.stack
	switch ev.Kind {
	case model.KindEnter:
		if ev.Region == 0 {
			return
		}
		parent := int32(0)
		if n := len(*st); n > 0 {
			parent = (*st)[n-1].node
		}
		node := int32(-1)
		if parent >= 0 && len(*st) < t.opts.MaxCallDepth {
			node = t.child(parent, ev.Region, ev.Site)
		}
		if node < 0 {
			t.dropped++
		}
		*st = append(*st, ctFrame{node: node, region: ev.Region, enter: ev.Time})
	case model.KindLeave:
		n := len(*st)
		var top model.RegionID
		if n > 0 {
			top = (*st)[n-1].region
		}
		if model.ClassifyLeave(n, top, ev.Region) != model.LeaveUnmatched {
			closeFrame(t.nodes, st, ev.Time)
		}
	}
}

// child returns the node of the call of region from site below node
// parent, adding it if it is new; -1 when MaxNodes is reached. A loop's
// calls are found in the cache, the others among the first children or
// in the index.
func (t *CallTree) child(parent int32, region model.RegionID, site model.SiteID) int32 {
	call := ctCall(region, site)
	c := &t.cache[uint8((call^uint64(parent)<<40)*0x9e3779b97f4a7c15>>56)]
	if c.call == call && c.parent == parent && c.node > 0 {
		return c.node
	}
	node := t.lookup(parent, region, site, call)
	if node > 0 {
		*c = ctSlot{call: call, parent: parent, node: node}
	}
	return node
}

// lookup is child without the cache.
func (t *CallTree) lookup(parent int32, region model.RegionID, site model.SiteID, call uint64) int32 {
	p := &t.nodes[parent]
	for _, k := range p.kids {
		if k.call == call {
			return k.node
		}
	}
	key := ctKey{parent, region, site}
	if len(p.kids) == ctKids {
		if node, ok := t.index[key]; ok {
			return node
		}
	}
	if len(t.nodes) >= t.opts.MaxNodes {
		return -1
	}
	node := int32(len(t.nodes))
	if len(p.kids) < ctKids {
		p.kids = append(p.kids, ctKid{call, node})
	} else {
		t.index[key] = node
	}
	t.nodes = append(t.nodes, ctNode{key: key})
	return node
}

// grow makes room for location l and, at once, as many as the
// definitions have: growing a location at a time would leave copies
// behind for a trace of many locations.
func (t *CallTree) grow(l model.LocID) {
	n := max(int(l)+1, 2*len(t.locs))
	if t.defs != nil {
		n = max(n, t.defs.NumLocations()+1)
	}
	t.locs = append(t.locs, make([]ctLoc, n-len(t.locs))...)
	if uint64(n) <= math.MaxUint32 {
		t.nlocs = model.LocID(n)
	}
}

// closeFrame closes the innermost frame of st at time at, adding its
// time to its node in nodes and to its caller's children.
func closeFrame(nodes []ctNode, st *[]ctFrame, at model.Time) {
	n := len(*st) - 1
	f := (*st)[n]
	*st = (*st)[:n]
	d := max(int64(at-f.enter), 0)
	if f.node < 0 {
		return // beyond the limits: the time stays in the caller's exclusive time
	}
	if n > 0 {
		(*st)[n-1].child += d
	}
	x := &nodes[f.node]
	if x.count == 0 || d < x.min {
		x.min = d
	}
	if x.count == 0 || d > x.max {
		x.max = d
	}
	x.count++
	x.incl += d
	x.excl += max(d-f.child, 0)
}

// Dropped returns the number of calls left out because of MaxNodes or
// MaxCallDepth.
func (t *CallTree) Dropped() int64 { return t.dropped }

// CallNode is one call path of a [CallTree]: the calls of Region from Site
// made on the path of its ancestors. Times are ticks.
type CallNode struct {
	RegionID model.RegionID `json:"-"`
	Region   string         `json:"region"` // "<root>" for the root
	SiteID   model.SiteID   `json:"-"`
	Site     int32          `json:"site"` // source line of the call, 0 if unknown
	Count    int64          `json:"count"`
	Incl     model.Time     `json:"incl"` // summed over the calls
	Excl     model.Time     `json:"excl"`
	Min      model.Time     `json:"min"`
	Max      model.Time     `json:"max"`
	Children []*CallNode    `json:"children,omitempty"` // by Incl, largest first
}

// Root returns the tree built so far. Calls still open are closed at the
// last event time of their location, on a copy: Add may continue
// afterwards. The root's Incl is the sum of its children's. The cost is
// proportional to the number of nodes.
func (t *CallTree) Root() *CallNode {
	nodes := slices.Clone(t.nodes)
	for _, lc := range t.locs {
		st := slices.Clone(lc.stack)
		for len(st) > 0 {
			closeFrame(nodes, &st, lc.last)
		}
	}
	nm := namer{t.defs}
	out := make([]*CallNode, len(nodes))
	out[0] = &CallNode{Region: "<root>"}
	for i := 1; i < len(nodes); i++ {
		x := nodes[i]
		out[i] = &CallNode{RegionID: x.key.region, Region: nm.region(x.key.region), SiteID: x.key.site,
			Site: nm.site(x.key.site), Count: x.count, Incl: model.Time(x.incl), Excl: model.Time(x.excl), Min: model.Time(x.min), Max: model.Time(x.max)}
	}
	for i := 1; i < len(nodes); i++ {
		p := out[nodes[i].key.parent]
		p.Children = append(p.Children, out[i])
	}
	for _, n := range out {
		slices.SortStableFunc(n.Children, func(a, b *CallNode) int {
			return cmp.Or(cmp.Compare(b.Incl, a.Incl), cmp.Compare(a.RegionID, b.RegionID), cmp.Compare(a.SiteID, b.SiteID))
		})
	}
	for _, c := range out[0].Children {
		out[0].Incl += c.Incl
	}
	return out[0]
}

// WriteText writes the tree below root as an indented table (call site
// line, region, inclusive time, % of the root, exclusive time, calls),
// times formatted with tb, at most 4 × opts.Top rows; control characters
// in region names are escaped (\x1b), as [Report.WriteText] does.
func (root *CallNode) WriteText(w io.Writer, tb model.TimeBase, opts *TextOptions) error {
	var o TextOptions
	if opts != nil {
		o = *opts
	}
	if o.Top <= 0 {
		o.Top = 15
	}
	if o.TopName == "" {
		o.TopName = "TextOptions.Top"
	}
	bw := bufio.NewWriter(w)
	tm := tb.Format
	fmt.Fprintf(bw, "Call tree (calling context, all locations; call site line, region, incl, %% of root, excl, calls)\n")
	lines, hidden := 0, 0
	var count func(n *CallNode) int
	count = func(n *CallNode) int {
		c := 1
		for _, k := range n.Children {
			c += count(k)
		}
		return c
	}
	var walk func(n *CallNode, depth int)
	walk = func(n *CallNode, depth int) {
		for _, c := range n.Children {
			if lines >= 4*o.Top {
				hidden += count(c)
				continue
			}
			lines++
			pct := 0.0
			if root.Incl > 0 {
				pct = 100 * float64(c.Incl) / float64(root.Incl)
			}
			fmt.Fprintf(bw, "  %s%4d %-24s %12s %6.1f%% %12s %8d\n", strings.Repeat("  ", depth), c.Site, termsafe.String(c.Region), tm(c.Incl), pct, tm(c.Excl), c.Count)
			walk(c, depth+1)
		}
	}
	walk(root, 0)
	if hidden > 0 {
		fmt.Fprintf(bw, "  ... %d more (raise %s to see them)\n", hidden, o.TopName)
	}
	return bw.Flush()
}
