package stats

import (
	"cmp"
	"slices"

	"github.com/hpctrace/hpctrace/model"
)

type collKey struct {
	comm  model.CommID
	match uint64
	seq   bool // match is a per-(location, comm) sequence number
}

// idxCacheBits is the log2 of the number of entries of the cache in
// front of collState.idx.
const idxCacheBits = 6

// slot returns the idx cache entry of k.
func (k collKey) slot() uint32 {
	h := (uint64(k.comm)<<1 | uint64(b2u(k.seq))) * 0x9e3779b97f4a7c15
	h = (h ^ k.match) * 0xbf58476d1ce4e5b9
	return uint32(h >> (64 - idxCacheBits))
}

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

type member struct {
	loc        model.LocID
	region     model.RegionID
	site       model.SiteID
	begin, end model.Time
	sent       int64
	recvd      int64
	ended      bool
}

// heldMember is one member's part in a collective on a communicator
// whose definition lists no members (or on no defined communicator).
// Which locations take part in such an instance is known only when every
// location has been read, so its members are kept, one flat record each,
// until the end of the stream (or of the last [Accumulator.Join]), where
// settleHeld forms the instances: deciding earlier would make them depend
// on the order in which the locations' events arrive, and so on how a
// trace is sharded.
type heldMember struct {
	loc, root   model.LocID
	region      model.RegionID
	site        model.SiteID
	comm        model.CommID
	class       model.Class
	seq, ended  bool
	match       uint64
	begin, end  model.Time
	sent, recvd int64
}

func (h *heldMember) key() collKey { return collKey{comm: h.comm, match: h.match, seq: h.seq} }

// Values of collRef.inst other than instance indexes.
const (
	endedRef = -1 // a call that ended below the top of openCol
	heldRef  = -2 // a call held to the end: member indexes collState.held
)

type collInst struct {
	key     collKey
	class   model.Class
	root    model.LocID
	region  model.RegionID
	members []member
	ended   int
}

type collStatKey struct {
	loc    model.LocID
	region model.RegionID
	site   model.SiteID
}

type collStat struct {
	count, duration, wait, sent, recvd int64
}

type seqKey struct {
	loc  model.LocID
	comm model.CommID
}

// CollectiveInstance is one member's part in one collective instance.
type CollectiveInstance struct {
	CommID   model.CommID   `json:"-"`
	Comm     int64          `json:"comm"`     // communicator native id
	Instance uint64         `json:"instance"` // Match, or the 1-based per-communicator sequence number
	LocID    model.LocID    `json:"-"`
	Loc      int64          `json:"loc"`
	RegionID model.RegionID `json:"-"`
	Op       string         `json:"op"`
	Class    string         `json:"class"`
	Duration int64          `json:"duration"`
	Wait     int64          `json:"wait"`
	Sent     int64          `json:"sent"`
	Recvd    int64          `json:"recvd"`
	bySeq    bool
}

type collState struct {
	idx map[collKey]int32
	// idxCache is a direct-mapped cache in front of idx, indexed by
	// collKey.slot: a key of an open instance and its index + 1 (0:
	// empty). finishColl empties the entry of the instance it frees.
	idxCache [1 << idxCacheBits]struct {
		k  collKey
		ii int32
	}
	insts     []collInst
	free      []int32
	seq       map[seqKey]*uint64 // the last sequence number per (location, comm)
	held      []heldMember       // calls on communicators of unknown membership
	stats     map[collStatKey]*collStat
	instances []CollectiveInstance
}

func (c *collState) init() {
	c.idx = make(map[collKey]int32)
	c.seq = make(map[seqKey]*uint64)
	c.stats = make(map[collStatKey]*collStat)
}

func (a *Accumulator) collBegin(ev *model.Event, ls *locState) {
	c := &a.coll
	region := ev.Region
	var site model.SiteID
	if n := len(ls.stack); n > 0 {
		top := &ls.stack[n-1]
		if region == 0 {
			region = top.region
		}
		if top.region == region {
			site = top.site
		}
	}
	k := collKey{comm: ev.Comm, match: ev.Match}
	if ev.Match == 0 {
		n := ls.lastSeq.n
		if n == nil || ls.lastSeq.comm != ev.Comm {
			sk := seqKey{ev.Loc, ev.Comm}
			if n = c.seq[sk]; n == nil {
				n = new(uint64)
				c.seq[sk] = n
			}
			ls.lastSeq.comm, ls.lastSeq.n = ev.Comm, n
		}
		*n++
		k.match, k.seq = *n, true
	}
	if a.definedSize(ev.Comm) == 0 {
		if !k.seq {
			ls.pushMatch(k.match)
		}
		ls.openCol = append(ls.openCol, collRef{heldRef, int32(len(c.held))})
		c.held = append(c.held, heldMember{loc: ev.Loc, root: ev.Peer, region: region, site: site, comm: ev.Comm, class: ev.Class,
			seq: k.seq, match: k.match, begin: ev.Time, sent: ev.Bytes, recvd: ev.Recvd})
		return
	}
	cs := &c.idxCache[k.slot()]
	ii, ok := cs.ii-1, cs.ii != 0 && cs.k == k
	if !ok {
		ii, ok = c.idx[k]
	}
	if !ok {
		if n := len(c.free); n > 0 {
			ii = c.free[n-1]
			c.free = c.free[:n-1]
		} else {
			c.insts = append(c.insts, collInst{})
			ii = int32(len(c.insts) - 1)
		}
		in := &c.insts[ii]
		*in = collInst{key: k, members: in.members[:0], region: region}
		c.idx[k] = ii
	}
	cs.k, cs.ii = k, ii+1
	in := &c.insts[ii]
	if ev.Class != 0 {
		in.class = ev.Class
	}
	if ev.Peer != 0 {
		in.root = ev.Peer
	}
	in.members = append(in.members, member{loc: ev.Loc, region: region, site: site, begin: ev.Time, sent: ev.Bytes, recvd: ev.Recvd})
	if !k.seq {
		ls.pushMatch(k.match)
	}
	ls.openCol = append(ls.openCol, collRef{ii, int32(len(in.members) - 1)})
}

// pushMatch records that the call about to be pushed on openCol has
// match id m.
func (ls *locState) pushMatch(m uint64) {
	if ls.openMatch == nil {
		ls.openMatch = make(map[uint64][]int32)
	}
	ls.openMatch[m] = append(ls.openMatch[m], int32(len(ls.openCol)))
}

// refKey returns the instance key of an open call.
func (c *collState) refKey(r collRef) collKey {
	if r.inst == heldRef {
		return c.held[r.member].key()
	}
	return c.insts[r.inst].key
}

// popMatch removes the last position of the open calls with match id m.
func (ls *locState) popMatch(m uint64) {
	ps := ls.openMatch[m]
	if len(ps) <= 1 {
		delete(ls.openMatch, m)
		return
	}
	ls.openMatch[m] = ps[:len(ps)-1]
}

func (a *Accumulator) collEnd(ev *model.Event, ls *locState) {
	c := &a.coll
	// The innermost open call (with this match id if given). Ended calls
	// below the top stay as tombstones until they reach it, so that
	// neither the search nor the removal costs more than O(1) amortized.
	j := len(ls.openCol) - 1
	if ev.Match != 0 {
		j = -1
		if ps := ls.openMatch[ev.Match]; len(ps) > 0 {
			j = int(ps[len(ps)-1])
			ls.popMatch(ev.Match)
		}
	} else if j >= 0 {
		if k := c.refKey(ls.openCol[j]); !k.seq {
			ls.popMatch(k.match)
		}
	}
	if j < 0 {
		a.diag.UnmatchedCollEnd++
		return
	}
	ref := ls.openCol[j]
	ls.openCol[j].inst = endedRef
	for n := len(ls.openCol); n > 0 && ls.openCol[n-1].inst == endedRef; n-- {
		ls.openCol = ls.openCol[:n-1]
	}
	if ref.inst == heldRef {
		h := &c.held[ref.member]
		h.end, h.ended = ev.Time, true
		return
	}
	in := &c.insts[ref.inst]
	m := &in.members[ref.member]
	m.end, m.ended = ev.Time, true
	in.ended++
	if in.ended == len(in.members) && len(in.members) >= a.definedSize(in.key.comm) {
		a.finishColl(ref.inst, false)
	}
}

// definedSize is the number of locations a collective on comm involves by
// its definition: its members, and for an intercommunicator the members
// of both groups (a collective on it involves both); 0 if the definition
// lists no members or comm is not defined. An instance on a communicator
// of defined size is complete, and freed, once that many members have
// ended it; the others are held to the end (heldMember).
func (a *Accumulator) definedSize(comm model.CommID) int {
	if cm, ok := a.defs.Comm(comm); ok && len(cm.Members) > 0 {
		return len(cm.Members) + len(cm.Remote)
	}
	return 0
}

// finishColl computes the members' waits (doc/stats.md §5.6) and frees the instance.
func (a *Accumulator) finishColl(ii int32, incomplete bool) {
	c := &a.coll
	in := &c.insts[ii]
	if incomplete {
		a.diag.OpenCollectives++
	}
	a.account(in.key, in.class, in.root, in.members)
	delete(c.idx, in.key)
	if cs := &c.idxCache[in.key.slot()]; cs.k == in.key {
		cs.ii = 0
	}
	in.members = in.members[:0]
	c.free = append(c.free, ii)
}

// account adds the members of a finished instance to the statistics.
func (a *Accumulator) account(key collKey, class model.Class, root model.LocID, members []member) {
	c := &a.coll
	var maxBegin, rootBegin model.Time
	minOther := model.Time(0)
	haveRoot, haveOther := false, false
	for i, m := range members {
		if i == 0 || m.begin > maxBegin {
			maxBegin = m.begin
		}
		if root != 0 && m.loc == root {
			rootBegin, haveRoot = m.begin, true
		}
	}
	for _, m := range members {
		if root != 0 && m.loc == root {
			continue
		}
		if !haveOther || m.begin < minOther {
			minOther, haveOther = m.begin, true
		}
	}
	for _, m := range members {
		dur := max(int64(m.end-m.begin), 0)
		var wait int64
		switch class {
		case model.ClassBarrier, model.ClassAllToAll:
			wait = int64(maxBegin - m.begin)
		case model.ClassOneToAll:
			if haveRoot && m.loc != root {
				wait = int64(rootBegin - m.begin)
			}
		case model.ClassAllToOne:
			if haveRoot && haveOther && m.loc == root {
				wait = int64(minOther - m.begin)
			}
		}
		wait = clamp(wait, 0, dur)
		k := collStatKey{m.loc, m.region, m.site}
		lc := &a.locs[m.loc].lastColl
		s := lc.s
		if s == nil || lc.k != k {
			if s = c.stats[k]; s == nil {
				s = new(collStat)
				c.stats[k] = s
			}
			lc.k, lc.s = k, s
		}
		s.count++
		a.addSat(&s.duration, dur)
		a.addSat(&s.wait, wait)
		a.addSat(&s.sent, m.sent)
		a.addSat(&s.recvd, m.recvd)
		if len(c.instances) < a.opts.MaxCollectiveInstances {
			c.instances = append(c.instances, CollectiveInstance{
				CommID: key.comm, Instance: key.match, LocID: m.loc, RegionID: m.region,
				Class: class.String(), Duration: dur, Wait: wait, Sent: m.sent, Recvd: m.recvd, bySeq: key.seq,
			})
		}
	}
}

// cmpHeld orders held members by instance key, then by location and the
// rest of their fields, so that the instances settleHeld forms, and the
// order it accounts them in, do not depend on the order the calls came in.
func cmpHeld(x, y heldMember) int {
	return cmp.Or(cmp.Compare(x.comm, y.comm), cmpBool(x.seq, y.seq), cmp.Compare(x.match, y.match),
		cmp.Compare(x.loc, y.loc), cmp.Compare(x.begin, y.begin), cmp.Compare(x.end, y.end), cmpBool(x.ended, y.ended),
		cmp.Compare(x.region, y.region), cmp.Compare(x.site, y.site), cmp.Compare(x.root, y.root), cmp.Compare(x.class, y.class),
		cmp.Compare(x.sent, y.sent), cmp.Compare(x.recvd, y.recvd))
}

// settleHeld forms and accounts the instances of the held calls, at the
// end of the stream: an instance is every call with its key (comm, match
// id or per-(location, comm) sequence number), complete if every member
// ended it and it has as many members as the largest instance on its
// communicator (the membership is not defined, so the largest instance
// stands for it). A member that never ended ends at its location's last
// time. Each instance counts in Diagnostics.HeldCollectives, the
// incomplete ones in OpenCollectives too.
func (a *Accumulator) settleHeld() {
	c := &a.coll
	held := c.held
	if len(held) == 0 {
		return
	}
	slices.SortFunc(held, cmpHeld)
	size := make(map[model.CommID]int)
	for i := 0; i < len(held); {
		j := i + 1
		for j < len(held) && held[j].key() == held[i].key() {
			j++
		}
		size[held[i].comm] = max(size[held[i].comm], j-i)
		i = j
	}
	var ms []member
	for i := 0; i < len(held); {
		k := held[i].key()
		var class model.Class
		var root model.LocID
		complete := true
		ms = ms[:0]
		j := i
		for ; j < len(held) && held[j].key() == k; j++ {
			h := &held[j]
			if class == 0 {
				class = h.class
			}
			if root == 0 {
				root = h.root
			}
			if !h.ended {
				h.end, h.ended, complete = max(a.locs[h.loc].last, h.begin), true, false
			}
			ms = append(ms, member{loc: h.loc, region: h.region, site: h.site, begin: h.begin, end: h.end, sent: h.sent, recvd: h.recvd, ended: true})
		}
		a.diag.HeldCollectives++
		if !complete || j-i < size[k.comm] {
			a.diag.OpenCollectives++
		}
		a.account(k, class, root, ms)
		i = j
	}
	c.held = nil
}
