package dumpi

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"slices"
)

// Communicator reconstruction.
//
// DUMPI handles are local to a rank's file, so a message or collective on
// a communicator other than MPI_COMM_WORLD names its peer or root by a rank
// that only the communicator's membership turns into a world rank. That
// membership is in the constructor calls of every rank: a first pass reads
// them (commOps), a simulation replays each rank's constructors in order,
// letting a collective constructor wait until the members it needs have
// reached it (resolveComms), and the model pass binds each new handle to
// the communicator the simulation found for that call.

// A gcomm is one communicator of the run, shared by its members' views.
type gcomm struct {
	members []int32 // world ranks by rank; for an intercommunicator, side 0's group
	remote  []int32 // an intercommunicator's side 1 group; nil for an intracommunicator
	dims    []int32 // Cartesian topology, row-major; nil if none
	index   int     // position in commSet.all; -1 for MPI_COMM_SELF of a rank
	label   Label   // the constructor
	parent  *gcomm
}

// group returns the group a member on the given side sees as its own,
// and the group its ranks in point-to-point calls refer to.
func (g *gcomm) group(side int8) (local, peers []int32) {
	switch {
	case g.remote == nil:
		return g.members, g.members
	case side == 0:
		return g.members, g.remote
	}
	return g.remote, g.members
}

// cview is a rank's handle on a communicator: the communicator, the side
// of an intercommunicator the rank is on, and its rank in its group. A
// nil g is a handle whose membership is unknown; why says why.
type cview struct {
	g    *gcomm
	side int8
	me   int32
	why  string
}

// commOp is one recorded call that creates, frees or derives a
// communicator or group, with the arguments the reconstruction needs.
type commOp struct {
	label  Label
	in     Comm  // oldcomm, localcomm, comm
	peer   Comm  // Intercomm_create's remote (peer) communicator
	g1, g2 Group // input groups
	out    Comm  // the new communicator handle as recorded
	outG   Group // the new group handle
	x, y   int32 // color and key; localleader and remoteleader; high; nodes
	tag    int32
	ints   []int32 // ranks, dims, remain_dims; ranges flattened by 3
}

// makesComm reports whether calls with label l create a communicator.
func makesComm(l Label) bool {
	switch l {
	case LabelCommDup, LabelCommCreate, LabelCommSplit, LabelCartCreate, LabelCartSub,
		LabelGraphCreate, LabelIntercommCreate, LabelIntercommMerge:
		return true
	}
	return false
}

// commLabels are the labels the first pass keeps.
func commLabel(l Label) bool {
	if makesComm(l) {
		return true
	}
	switch l {
	case LabelCommFree, LabelCommGroup, LabelCommRemoteGroup, LabelGroupIncl, LabelGroupExcl,
		LabelGroupRangeIncl, LabelGroupRangeExcl, LabelGroupUnion, LabelGroupIntersection,
		LabelGroupDifference, LabelGroupFree:
		return true
	}
	return false
}

// opOf extracts the commOp of a call, and false for other calls.
func opOf(c *Call) (commOp, bool) {
	op := commOp{label: c.Label}
	switch a := c.Args().(type) {
	case *CommDup:
		op.in, op.out = a.Oldcomm, a.Newcomm
	case *CommCreate:
		op.in, op.g1, op.out = a.Oldcomm, a.Group, a.Newcomm
	case *CommSplit:
		op.in, op.x, op.y, op.out = a.Oldcomm, a.Color, a.Key, a.Newcomm
	case *CartCreate:
		op.in, op.out, op.ints = a.Oldcomm, a.Newcomm, slices.Clone(a.Dims)
	case *CartSub:
		op.in, op.out, op.ints = a.Oldcomm, a.Newcomm, slices.Clone(a.RemainDims)
	case *GraphCreate:
		op.in, op.x, op.out = a.Oldcomm, a.Nodes, a.Newcomm
	case *IntercommCreate:
		op.in, op.x, op.peer, op.y, op.tag, op.out = a.Localcomm, a.Localleader, a.Remotecomm, a.Remoteleader, a.Tag, a.Newcomm
	case *IntercommMerge:
		op.in, op.x, op.out = a.Comm, a.High, a.Newcomm
	case *CommFree:
		op.in = a.Comm
	case *CommGroup:
		op.in, op.outG = a.Comm, a.Group
	case *CommRemoteGroup:
		op.in, op.outG = a.Comm, a.Group
	case *GroupIncl:
		op.g1, op.outG, op.ints = a.Group, a.Newgroup, slices.Clone(a.Ranks)
	case *GroupExcl:
		op.g1, op.outG, op.ints = a.Group, a.Newgroup, slices.Clone(a.Ranks)
	case *GroupRangeIncl:
		op.g1, op.outG, op.ints = a.Group, a.Newgroup, flatRanges(a.Ranges)
	case *GroupRangeExcl:
		op.g1, op.outG, op.ints = a.Group, a.Newgroup, flatRanges(a.Ranges)
	case *GroupUnion:
		op.g1, op.g2, op.outG = a.Group1, a.Group2, a.Newgroup
	case *GroupIntersection:
		op.g1, op.g2, op.outG = a.Group1, a.Group2, a.Newgroup
	case *GroupDifference:
		op.g1, op.g2, op.outG = a.Group1, a.Group2, a.Newgroup
	case *GroupFree:
		op.g1 = a.Group
	default:
		return op, false
	}
	return op, true
}

func flatRanges(r [][]int32) []int32 {
	s := make([]int32, 0, 3*len(r))
	for _, t := range r {
		if len(t) != 3 {
			return nil
		}
		s = append(s, t...)
	}
	return s
}

// cresult is the outcome of one communicator-creating call of a rank.
type cresult struct {
	v    cview
	null bool // the rank is in no new communicator (MPI_COMM_NULL)
}

// commSet is the reconstruction of a run's communicators.
//
// A rank's results take four bytes a constructor call: an index into
// views, the distinct results, which a run that makes communicators over
// and over (or fails to, for the same reason) repeats.
type commSet struct {
	all     []*gcomm       // derived communicators, in order of creation; nil once defined (ModelSource.reconstruct)
	made    int            // communicators made: len(all) as it was
	views   []cresult      // the distinct results
	refs    []int32        // by view: the results that name it not yet consumed (ModelSource)
	dead    int            // views whose refs are 0
	work    int            // ModelSource: the results to consume before renumbering views (release); 0: not computed yet
	since   int            // ModelSource: results consumed since work was computed
	results [][]uint32     // per rank, one per communicator-creating call: an index into views
	notes   []string       // reconstruction problems, one line each
	repeats map[string]int // by note given: how many more times it was met
}

// result returns result i of rank r.
func (cs *commSet) result(r, i int) cresult { return cs.views[cs.results[r][i]] }

// note adds a reconstruction problem; a note already given is counted
// instead, so that the notes grow with the distinct problems, not with the
// calls that meet them.
func (cs *commSet) note(s string) {
	if cs.repeats == nil {
		cs.repeats = make(map[string]int)
	}
	if _, ok := cs.repeats[s]; ok {
		cs.repeats[s]++
		return
	}
	cs.repeats[s] = 0
	cs.notes = append(cs.notes, s)
}

// noteLines returns the notes, each repeated one with its count.
func (cs *commSet) noteLines() []string {
	out := make([]string, len(cs.notes))
	for i, n := range cs.notes {
		out[i] = n
		if k := cs.repeats[n]; k > 0 {
			out[i] += " (" + itoa(k+1) + " times)"
		}
	}
	return out
}

// instKey identifies one collective constructor call: the parent
// communicator and the rank's count of constructors on it so far (MPI
// requires the members to call collectives on a communicator in the same
// order).
type instKey struct {
	parent *gcomm
	seq    int32
}

// cinst is one collective constructor call across its members.
type cinst struct {
	label   Label
	byFirst map[int32]*gcomm   // results of constructors each member computes itself, by first member
	split   map[int32][2]int32 // Comm_split: color and key by parent rank
	splitTo map[int32]*gcomm   // Comm_split: result by parent rank (nil: MPI_UNDEFINED)
	need    int                // Comm_split: members expected
	splitMe map[int32]int32    // Comm_split: rank in the result by parent rank
	subOf   []*gcomm           // Cart_sub: result by parent rank
	subMe   []int32            // Cart_sub: rank in the result by parent rank
	high    [2]int32           // Intercomm_merge: high per side; -1 until known
	result  *gcomm             // Comm_dup, Intercomm_create, Intercomm_merge
	side    int8               // Intercomm_create: the side of this instance's group
	group   []int32            // Intercomm_create: this instance's group
	done    bool               // the members waiting on it may go on
	why     string             // the reason when done without a result
	arrived int                // members that reached it so far
}

// local returns the communicator of members made by this instance,
// creating it for the first member that asks, or nil when another member
// computed a different one that starts with the same rank.
func (in *cinst) local(st *simState, label Label, parent *gcomm, members []int32) *gcomm {
	if in.byFirst == nil {
		in.byFirst = map[int32]*gcomm{}
	}
	if g, ok := in.byFirst[members[0]]; ok {
		if !slices.Equal(g.members, members) {
			return nil // the members disagree on the arguments
		}
		return g
	}
	g := st.newComm(label, parent, members)
	in.byFirst[members[0]] = g
	return g
}

// resolveSplit builds the communicators of a Comm_split once every member
// of the parent p has given its color and key: one per color, members
// ordered by key, then by rank in p. A negative color is MPI_UNDEFINED.
func (in *cinst) resolveSplit(st *simState, p *gcomm) {
	type mk struct{ color, key, rank int32 }
	var all []mk
	for r, ck := range in.split {
		if ck[0] >= 0 {
			all = append(all, mk{ck[0], ck[1], r})
		}
	}
	slices.SortFunc(all, func(a, b mk) int {
		if a.color != b.color {
			return int(a.color) - int(b.color)
		}
		if a.key != b.key {
			if a.key < b.key {
				return -1
			}
			return 1
		}
		return int(a.rank) - int(b.rank)
	})
	in.splitTo = map[int32]*gcomm{}
	in.splitMe = map[int32]int32{}
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].color == all[i].color {
			j++
		}
		members := make([]int32, 0, j-i)
		for _, m := range all[i:j] {
			members = append(members, p.members[m.rank])
		}
		g := st.newComm(LabelCommSplit, p, members)
		for k, m := range all[i:j] {
			in.splitTo[m.rank] = g
			in.splitMe[m.rank] = int32(k)
		}
		i = j
	}
	in.done = true
}

// cartSub partitions the Cartesian communicator p for a Cart_sub that
// keeps the dimensions flagged in remain: ranks whose coordinates agree in
// the dropped dimensions form one communicator, in p's order (row-major,
// so also the order of the kept coordinates). It sets in.subOf and in.subMe
// by rank in p, in one pass over p.
func (in *cinst) cartSub(st *simState, p *gcomm, remain []int32) {
	var dims []int32
	for i, d := range p.dims {
		if remain[i] != 0 {
			dims = append(dims, d)
		}
	}
	in.subOf = make([]*gcomm, len(p.members))
	in.subMe = make([]int32, len(p.members))
	byKey := map[int64]*gcomm{}
	for r := range int32(len(p.members)) {
		// key: the coordinates in the dropped dimensions, linearized.
		var key int64
		x := r
		stride := int64(1)
		for i := len(p.dims) - 1; i >= 0; i-- {
			d := max(p.dims[i], 1)
			if remain[i] == 0 {
				key += int64(x%d) * stride
				stride *= int64(d)
			}
			x /= d
		}
		g, ok := byKey[key]
		if !ok {
			g = st.newComm(LabelCartSub, p, nil)
			g.dims = dims
			byKey[key] = g
		}
		in.subMe[r] = int32(len(g.members))
		g.members = append(g.members, p.members[r])
		in.subOf[r] = g
	}
}

type pairKey struct {
	peer   *gcomm
	tag    int32
	lo, hi int32 // the two leaders' world ranks
}

// icPair joins the two groups of an Intercomm_create through their leaders.
type icPair struct {
	sides [2]*cinst
}

// rankSim is one rank's state in the simulation.
//
// The rank's calls are pulled one at a time (next), so the simulation
// holds the call each rank is at, not every rank's calls: a run that
// makes and frees communicators and groups over and over is replayed in
// memory that does not grow with its length.
type rankSim struct {
	rank    int
	next    func() (commOp, bool) // the rank's next call in file order; nil after its last
	op      commOp                // the call the rank is at, when has
	has     bool
	comms   map[Comm]cview
	groups  map[Group][]int32
	seq     map[*gcomm]int32
	results []uint32 // indices into commSet.views
	self    *gcomm
	cur     *cinst // the instance the rank waits on
}

// at reports whether the rank has a call left, pulling it if needed; the
// call is s.op.
func (s *rankSim) at() bool {
	if !s.has && s.next != nil {
		if s.op, s.has = s.next(); !s.has {
			s.next = nil
		}
	}
	return s.has
}

// resolveComms replays the ranks' constructor calls. world is the number
// of ranks; ops[r] are rank r's calls in file order.
func resolveComms(world int, ops [][]commOp) *commSet {
	next := make([]func() (commOp, bool), world)
	for r := range next {
		rest := ops[r]
		next[r] = func() (commOp, bool) {
			if len(rest) == 0 {
				return commOp{}, false
			}
			op := rest[0]
			rest = rest[1:]
			return op, true
		}
	}
	return resolveCommsFrom(world, next)
}

// resolveCommsFrom is resolveComms over the ranks' calls as they are
// pulled: next[r] yields rank r's calls in file order, and false after
// the last; a nil next[r] has none.
func resolveCommsFrom(world int, next []func() (commOp, bool)) *commSet {
	cs := &commSet{results: make([][]uint32, world)}
	wg := &gcomm{members: make([]int32, world), index: -1}
	for i := range wg.members {
		wg.members[i] = int32(i)
	}
	sims := make([]*rankSim, world)
	for r := range sims {
		s := &rankSim{rank: r, next: next[r], comms: map[Comm]cview{}, groups: map[Group][]int32{},
			seq: map[*gcomm]int32{}, self: &gcomm{members: []int32{int32(r)}, index: -1}}
		s.comms[MPI_COMM_WORLD] = cview{g: wg, me: int32(r)}
		s.comms[MPI_COMM_SELF] = cview{g: s.self}
		s.groups[MPI_GROUP_EMPTY] = []int32{}
		sims[r] = s
	}
	st := &simState{cs: cs, insts: map[instKey]*cinst{}, pairs: map[pairKey][]*icPair{},
		pos: map[*int32]posIndex{}, groups: map[uint64][][]int32{}, memo: map[groupKey]groupMemo{}, views: map[cresult]uint32{}}
	for {
		progress, blocked := false, false
		for _, s := range sims {
			if st.run(s) {
				progress = true
			}
			if s.at() {
				blocked = true
			}
		}
		if !blocked {
			break
		}
		if !progress {
			st.fail(sims)
		}
	}
	for r, s := range sims {
		cs.results[r] = s.results
	}
	return cs
}

type simState struct {
	cs     *commSet
	insts  map[instKey]*cinst
	pairs  map[pairKey][]*icPair
	pos    map[*int32]posIndex // rankIn's indexes, by the group's first element
	groups map[uint64][][]int32
	memo   map[groupKey]groupMemo
	views  map[cresult]uint32 // commSet.views by value
}

// result appends r to rank s's results.
func (st *simState) result(s *rankSim, r cresult) {
	i, ok := st.views[r]
	if !ok {
		i = uint32(len(st.cs.views))
		st.cs.views = append(st.cs.views, r)
		st.cs.refs = append(st.cs.refs, 0)
		st.views[r] = i
	}
	st.cs.refs[i]++
	s.results = append(s.results, i)
}

// intern returns a group equal to g that the ranks share: every rank of
// a run typically builds the same groups, which would otherwise cost
// memory proportional to ranks × group size.
func (st *simState) intern(g []int32) []int32 {
	k := hash32(g)
	for _, o := range st.groups[k] {
		if slices.Equal(o, g) {
			return o
		}
	}
	st.groups[k] = append(st.groups[k], g)
	return g
}

// fail ends the first instance a rank waits on without a result: its
// members never all reached it. Others may complete once its members go
// on, so they are left waiting.
func (st *simState) fail(sims []*rankSim) {
	for _, s := range sims {
		in := s.cur
		if in == nil || in.done {
			continue
		}
		in.done = true
		switch in.label {
		case LabelCommSplit:
			in.why = fmt.Sprintf("%s: %d of %d members of the parent communicator recorded the call", in.label, len(in.split), in.need)
		case LabelIntercommCreate:
			in.why = fmt.Sprintf("%s: the other group's call was not found (leaders, tag or peer communicator do not match)", in.label)
		case LabelIntercommMerge:
			in.why = fmt.Sprintf("%s: only one group recorded the call", in.label)
		default:
			in.why = fmt.Sprintf("%s: members missing", in.label)
		}
		st.cs.note("rank " + itoa(s.rank) + ": " + in.why)
		return
	}
}

// run advances rank s until it waits or ends; it reports progress.
func (st *simState) run(s *rankSim) bool {
	progress := false
	for s.at() {
		op := &s.op
		if s.cur != nil {
			if !s.cur.done {
				return progress
			}
			st.finish(s, op)
			s.cur = nil
			s.has = false
			progress = true
			continue
		}
		if st.start(s, op) {
			return progress
		}
		s.has = false
		progress = true
	}
	return progress
}

// bind records the result of a communicator-creating call.
func (st *simState) bind(s *rankSim, op *commOp, v cview, null bool) {
	if null && op.out != MPI_COMM_NULL {
		v = cview{why: op.label.String() + " returned a communicator where the reconstruction has MPI_COMM_NULL"}
		st.cs.note("rank " + itoa(s.rank) + ": " + v.why)
		st.result(s, cresult{v: v})
		s.comms[op.out] = v
		return
	}
	if null || op.out == MPI_COMM_NULL {
		if !null && v.g != nil {
			v = cview{why: op.label.String() + " returned MPI_COMM_NULL where the reconstruction has a communicator"}
			st.cs.note("rank " + itoa(s.rank) + ": " + v.why)
			st.result(s, cresult{v: v})
			return
		}
		st.result(s, cresult{null: true})
		delete(s.comms, op.out)
		return
	}
	if v.g == nil && v.why == "" {
		v.why = op.label.String() + ": the reconstruction has no communicator for this rank"
	}
	st.result(s, cresult{v: v})
	s.comms[op.out] = v
}

func (st *simState) newComm(label Label, parent *gcomm, members []int32) *gcomm {
	g := &gcomm{members: members, index: len(st.cs.all), label: label, parent: parent}
	st.cs.all = append(st.cs.all, g)
	st.cs.made++
	return g
}

// disagree binds op's result as unknown for a reason that contradicts
// MPI's rules for collective constructors, with a note.
func (st *simState) disagree(s *rankSim, op *commOp, why string) {
	v := unknown("%s on communicator handle %d: %s", op.label, op.in, why)
	st.cs.note("rank " + itoa(s.rank) + ": " + v.why)
	st.bind(s, op, v, false)
}

func unknown(format string, args ...any) cview { return cview{why: fmt.Sprintf(format, args...)} }

// inst returns the collective instance of op on parent for rank s, or
// nil when another member made a different constructor call there.
func (st *simState) inst(s *rankSim, label Label, parent *gcomm) *cinst {
	k := instKey{parent, s.seq[parent]}
	s.seq[parent]++
	in, ok := st.insts[k]
	if !ok {
		in = &cinst{label: label, high: [2]int32{-1, -1}}
		st.insts[k] = in
	}
	// Once every member has reached it, no call finds it again (the
	// members waiting on it hold it), so the instances held are those
	// some member has yet to reach, not every one of the run.
	if in.arrived++; in.arrived == len(parent.members)+len(parent.remote) {
		delete(st.insts, k)
	}
	if in.label != label {
		return nil // the members call different constructors here
	}
	return in
}

// rankIn returns the position of world rank w in group g, or -1. Large
// groups get an index, built once per distinct group.
func (st *simState) rankIn(g []int32, w int32) int32 {
	if len(g) < 64 {
		return int32(slices.Index(g, w))
	}
	k := &g[0]
	pos, ok := st.pos[k]
	if !ok || len(pos.g) != len(g) {
		pos = posIndex{g: g, at: make(map[int32]int32, len(g))}
		for i, x := range g {
			pos.at[x] = int32(i)
		}
		st.pos[k] = pos
	}
	if i, ok := pos.at[w]; ok {
		return i
	}
	return -1
}

// posIndex maps the world ranks of a group to their positions.
type posIndex struct {
	g  []int32
	at map[int32]int32
}

// start begins op on rank s; it reports whether the rank must wait.
func (st *simState) start(s *rankSim, op *commOp) bool {
	switch op.label {
	case LabelCommFree:
		delete(s.comms, op.in)
		return false
	case LabelGroupFree:
		delete(s.groups, op.g1)
		return false
	case LabelCommGroup, LabelCommRemoteGroup:
		v, ok := s.comms[op.in]
		if !ok || v.g == nil {
			delete(s.groups, op.outG)
			return false
		}
		local, peers := v.g.group(v.side)
		if op.label == LabelCommRemoteGroup {
			local = peers
		}
		s.groups[op.outG] = local
		return false
	case LabelGroupIncl, LabelGroupExcl, LabelGroupRangeIncl, LabelGroupRangeExcl,
		LabelGroupUnion, LabelGroupIntersection, LabelGroupDifference:
		if g, ok := st.groupOp(s, op); ok {
			s.groups[op.outG] = g
		} else {
			delete(s.groups, op.outG)
		}
		return false
	}
	// Communicator constructors.
	v, ok := s.comms[op.in]
	if !ok || v.g == nil {
		why := "the parent communicator's membership is unknown"
		if ok && v.why != "" {
			why = v.why
		} else if !ok {
			why = "the parent communicator " + op.in.String() + " (handle " + itoa(int(op.in)) + ") was created by no recorded call"
		}
		st.bind(s, op, unknown("%s of an unknown communicator: %s", op.label, why), false)
		return false
	}
	p := v.g
	if p.remote != nil && op.label != LabelCommDup && op.label != LabelIntercommMerge {
		st.bind(s, op, unknown("%s of an intercommunicator is not reconstructed", op.label), false)
		return false
	}
	switch op.label {
	case LabelCommDup:
		in := st.inst(s, op.label, p)
		if in == nil {
			st.disagree(s, op, "the members call different constructors in this place of the parent's order")
			return false
		}
		if in.result == nil {
			in.result = st.newComm(op.label, p, p.members)
			in.result.remote, in.result.dims = p.remote, p.dims
		}
		st.bind(s, op, cview{g: in.result, side: v.side, me: v.me}, false)
	case LabelCommCreate:
		in := st.inst(s, op.label, p)
		if in == nil {
			st.disagree(s, op, "the members call different constructors in this place of the parent's order")
			return false
		}
		grp, ok := s.groups[op.g1]
		if !ok {
			st.bind(s, op, unknown("%s: group handle %d was made by no recorded call", op.label, op.g1), false)
			return false
		}
		me := st.rankIn(grp, int32(s.rank))
		if me < 0 {
			st.bind(s, op, cview{}, true)
			return false
		}
		g := in.local(st, op.label, p, grp)
		if g == nil {
			st.disagree(s, op, "the members pass different groups")
			return false
		}
		st.bind(s, op, cview{g: g, me: me}, false)
	case LabelCartCreate:
		in := st.inst(s, op.label, p)
		if in == nil {
			st.disagree(s, op, "the members call different constructors in this place of the parent's order")
			return false
		}
		n := int64(1)
		for _, d := range op.ints {
			n *= int64(max(d, 0))
			n = min(n, 1<<31)
		}
		if n > int64(len(p.members)) || len(op.ints) == 0 {
			st.bind(s, op, unknown("%s: the grid of %d processes is larger than its parent's %d", op.label, n, len(p.members)), false)
			return false
		}
		if int64(v.me) >= n {
			st.bind(s, op, cview{}, true)
			return false
		}
		g := in.local(st, op.label, p, p.members[:n])
		if g == nil || g.dims != nil && !slices.Equal(g.dims, op.ints) {
			st.disagree(s, op, "the members pass different dimensions")
			return false
		}
		g.dims = op.ints
		st.bind(s, op, cview{g: g, me: v.me}, false)
	case LabelGraphCreate:
		in := st.inst(s, op.label, p)
		if in == nil {
			st.disagree(s, op, "the members call different constructors in this place of the parent's order")
			return false
		}
		if op.x < 0 || int(op.x) > len(p.members) {
			st.bind(s, op, unknown("%s: %d nodes, parent has %d", op.label, op.x, len(p.members)), false)
			return false
		}
		if v.me >= op.x {
			st.bind(s, op, cview{}, true)
			return false
		}
		g := in.local(st, op.label, p, p.members[:op.x])
		if g == nil {
			st.disagree(s, op, "the members pass different node counts")
			return false
		}
		st.bind(s, op, cview{g: g, me: v.me}, false)
	case LabelCartSub:
		in := st.inst(s, op.label, p)
		if in == nil {
			st.disagree(s, op, "the members call different constructors in this place of the parent's order")
			return false
		}
		if p.dims == nil || len(op.ints) != len(p.dims) {
			st.bind(s, op, unknown("%s of a communicator without a Cartesian topology of %d dimensions", op.label, len(op.ints)), false)
			return false
		}
		if in.subOf == nil {
			in.cartSub(st, p, op.ints)
		}
		if int(v.me) >= len(in.subOf) {
			st.bind(s, op, unknown("%s: rank %d outside its parent", op.label, v.me), false)
			return false
		}
		st.bind(s, op, cview{g: in.subOf[v.me], me: in.subMe[v.me]}, false)
	case LabelCommSplit:
		in := st.inst(s, op.label, p)
		if in == nil {
			st.disagree(s, op, "the members call different constructors in this place of the parent's order")
			return false
		}
		if in.split == nil {
			in.split = map[int32][2]int32{}
			in.need = len(p.members)
		}
		in.split[v.me] = [2]int32{op.x, op.y}
		if len(in.split) == in.need {
			in.resolveSplit(st, p)
		}
		s.cur = in
		return true
	case LabelIntercommCreate:
		in := st.inst(s, op.label, p)
		if in == nil {
			st.disagree(s, op, "the members call different constructors in this place of the parent's order")
			return false
		}
		if v.me == op.x { // the local leader
			pv, ok := s.comms[op.peer]
			if !ok || pv.g == nil || op.y < 0 || int(op.y) >= len(pv.g.members) || pv.g.remote != nil ||
				op.x < 0 || int(op.x) >= len(p.members) {
				in.done, in.why = true, op.label.String()+": the leader's peer communicator or remote leader is unknown"
			} else {
				in.group = p.members
				lw, rw := p.members[op.x], pv.g.members[op.y]
				in.side = 0
				if lw > rw {
					in.side = 1
				}
				k := pairKey{pv.g, op.tag, min(lw, rw), max(lw, rw)}
				var pr *icPair
				for _, q := range st.pairs[k] {
					if q.sides[in.side] == nil {
						pr = q
						break
					}
				}
				if pr == nil {
					pr = &icPair{}
					st.pairs[k] = append(st.pairs[k], pr)
				}
				pr.sides[in.side] = in
				if pr.sides[0] != nil && pr.sides[1] != nil {
					a, b := pr.sides[0], pr.sides[1]
					g := st.newComm(op.label, nil, a.group)
					g.remote = b.group
					a.result, b.result, a.done, b.done = g, g, true, true
					q := st.pairs[k]
					if i := slices.Index(q, pr); i >= 0 {
						st.pairs[k] = slices.Delete(q, i, i+1)
					}
					if len(st.pairs[k]) == 0 {
						delete(st.pairs, k)
					}
				}
			}
		}
		s.cur = in
		return true
	case LabelIntercommMerge:
		in := st.inst(s, op.label, p)
		if in == nil {
			st.disagree(s, op, "the members call different constructors in this place of the parent's order")
			return false
		}
		if p.remote == nil {
			st.bind(s, op, unknown("%s of an intracommunicator", op.label), false)
			return false
		}
		h := int32(0)
		if op.x != 0 {
			h = 1
		}
		if in.high[v.side] < 0 {
			in.high[v.side] = h
		}
		if in.high[0] >= 0 && in.high[1] >= 0 && in.result == nil {
			first, second := p.members, p.remote
			if in.high[0] == 1 && in.high[1] == 0 {
				first, second = second, first
			}
			in.result = st.newComm(op.label, p, slices.Concat(first, second))
			in.done = true
		}
		s.cur = in
		return true
	}
	return false
}

// finish completes a waiting constructor op of rank s.
func (st *simState) finish(s *rankSim, op *commOp) {
	in := s.cur
	v := s.comms[op.in]
	switch op.label {
	case LabelCommSplit:
		if in.splitTo == nil {
			st.bind(s, op, cview{why: in.why}, false)
			return
		}
		g := in.splitTo[v.me]
		if g == nil {
			st.bind(s, op, cview{}, true)
			return
		}
		st.bind(s, op, cview{g: g, me: in.splitMe[v.me]}, false)
	case LabelIntercommCreate:
		if in.result == nil {
			// A member other than the leader finds the leader's instance
			// done: the same instance.
			st.bind(s, op, cview{why: in.why}, false)
			return
		}
		// The rank's group is its local communicator, in its order.
		st.bind(s, op, cview{g: in.result, side: in.side, me: v.me}, false)
	case LabelIntercommMerge:
		if in.result == nil {
			st.bind(s, op, cview{why: in.why}, false)
			return
		}
		// The merged order is one group, then the other.
		me := v.me
		if (in.result.members[0] == v.g.members[0]) != (v.side == 0) {
			other, _ := v.g.group(1 - v.side)
			me += int32(len(other))
		}
		st.bind(s, op, cview{g: in.result, me: me}, false)
	}
}

// groupKey identifies a group constructor's inputs: groups are interned,
// so the same inputs are the same slices on every rank.
type groupKey struct {
	label  Label
	g1, g2 *int32
	n1, n2 int
	ints   uint64 // hash of the rank or range arguments
}

func firstOf(g []int32) *int32 {
	if len(g) == 0 {
		return nil
	}
	return &g[0]
}

func hash32(s []int32) uint64 {
	h := fnv.New64a()
	var b [4]byte
	for _, x := range s {
		binary.LittleEndian.PutUint32(b[:], uint32(x))
		h.Write(b[:])
	}
	return h.Sum64()
}

// groupOp returns the interned group a Group_* constructor of rank s
// makes, computing it once for all the ranks that make it from the same
// inputs, and false when an input group is unknown or an argument is
// invalid.
func (st *simState) groupOp(s *rankSim, op *commOp) ([]int32, bool) {
	g1, ok1 := s.groups[op.g1]
	g2, ok2 := s.groups[op.g2]
	if !ok1 {
		return nil, false
	}
	k := groupKey{label: op.label, g1: firstOf(g1), n1: len(g1), ints: hash32(op.ints)}
	switch op.label {
	case LabelGroupUnion, LabelGroupIntersection, LabelGroupDifference:
		if !ok2 {
			return nil, false
		}
		k.g2, k.n2 = firstOf(g2), len(g2)
	}
	if r, ok := st.memo[k]; ok && slices.Equal(r.ints, op.ints) {
		return r.g, r.ok
	}
	g, ok := st.groupCompute(op, g1, g2)
	if ok {
		g = st.intern(g)
	}
	st.memo[k] = groupMemo{op.ints, g, ok}
	return g, ok
}

type groupMemo struct {
	ints []int32
	g    []int32
	ok   bool
}

func (st *simState) groupCompute(op *commOp, g, g2 []int32) ([]int32, bool) {
	// in reports whether v is in x: a group (indexed once per distinct
	// group), or a short list of positions.
	in := func(x []int32, v int32) bool {
		if len(x) < 64 {
			return slices.Contains(x, v)
		}
		return st.rankIn(x, v) >= 0
	}
	switch op.label {
	case LabelGroupIncl:
		out := make([]int32, 0, len(op.ints))
		for _, r := range op.ints {
			if r < 0 || int(r) >= len(g) {
				return nil, false
			}
			out = append(out, g[r])
		}
		return out, true
	case LabelGroupExcl, LabelGroupRangeExcl:
		pos := op.ints
		if op.label == LabelGroupRangeExcl {
			var ok bool
			if pos, ok = expandRanges(op.ints, len(g)); !ok {
				return nil, false
			}
		}
		out := make([]int32, 0, len(g))
		for i, w := range g {
			if !in(pos, int32(i)) {
				out = append(out, w)
			}
		}
		return out, true
	case LabelGroupRangeIncl:
		pos, ok := expandRanges(op.ints, len(g))
		if !ok {
			return nil, false
		}
		out := make([]int32, 0, len(pos))
		for _, r := range pos {
			out = append(out, g[r])
		}
		return out, true
	}
	var out []int32
	switch op.label {
	case LabelGroupUnion:
		out = slices.Clone(g)
		for _, w := range g2 {
			if !in(g, w) {
				out = append(out, w)
			}
		}
	case LabelGroupIntersection:
		for _, w := range g {
			if in(g2, w) {
				out = append(out, w)
			}
		}
	case LabelGroupDifference:
		for _, w := range g {
			if !in(g2, w) {
				out = append(out, w)
			}
		}
	}
	if out == nil {
		out = []int32{}
	}
	return out, true
}

// expandRanges lists the ranks of (first, last, stride) triples over a
// group of n, and false when a triple is invalid.
func expandRanges(t []int32, n int) ([]int32, bool) {
	if len(t)%3 != 0 {
		return nil, false
	}
	var out []int32
	for i := 0; i < len(t); i += 3 {
		first, last, stride := t[i], t[i+1], t[i+2]
		if stride == 0 || first < 0 || last < 0 || int(first) >= n || int(last) >= n {
			return nil, false
		}
		for r := int64(first); (stride > 0 && r <= int64(last)) || (stride < 0 && r >= int64(last)); r += int64(stride) {
			if len(out) >= n {
				return nil, false
			}
			out = append(out, int32(r))
		}
	}
	return out, true
}
