package stats

import "github.com/hpctrace/hpctrace/model"

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
	seq       map[seqKey]*uint64   // the last sequence number per (location, comm)
	size      map[model.CommID]int // largest membership seen per communicator
	stats     map[collStatKey]*collStat
	instances []CollectiveInstance
}

func (c *collState) init() {
	c.idx = make(map[collKey]int32)
	c.seq = make(map[seqKey]*uint64)
	c.size = make(map[model.CommID]int)
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
		if ls.openMatch == nil {
			ls.openMatch = make(map[uint64][]int32)
		}
		ls.openMatch[k.match] = append(ls.openMatch[k.match], int32(len(ls.openCol)))
	}
	ls.openCol = append(ls.openCol, collRef{ii, int32(len(in.members) - 1)})
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
		if k := c.insts[ls.openCol[j].inst].key; !k.seq {
			ls.popMatch(k.match)
		}
	}
	if j < 0 {
		a.diag.UnmatchedCollEnd++
		return
	}
	ref := ls.openCol[j]
	ls.openCol[j].inst = -1
	for n := len(ls.openCol); n > 0 && ls.openCol[n-1].inst < 0; n-- {
		ls.openCol = ls.openCol[:n-1]
	}
	in := &c.insts[ref.inst]
	m := &in.members[ref.member]
	m.end, m.ended = ev.Time, true
	in.ended++
	if in.ended == len(in.members) && len(in.members) >= a.commSize(in.key.comm) {
		a.finishColl(ref.inst, false)
	}
}

// commSize is the number of members an instance on comm must have to be
// complete: the communicator's definition if it lists members (for an
// intercommunicator the members of both groups, since a collective on it
// involves both), else the largest membership seen on it so far.
func (a *Accumulator) commSize(comm model.CommID) int {
	if cm, ok := a.defs.Comm(comm); ok && len(cm.Members) > 0 {
		return len(cm.Members) + len(cm.Remote)
	}
	return a.coll.size[comm]
}

// finishColl computes the members' waits (doc/stats.md §5.6) and frees the instance.
func (a *Accumulator) finishColl(ii int32, incomplete bool) {
	c := &a.coll
	in := &c.insts[ii]
	if incomplete {
		a.diag.OpenCollectives++
	}
	if len(in.members) > c.size[in.key.comm] {
		c.size[in.key.comm] = len(in.members)
	}
	var maxBegin, rootBegin model.Time
	minOther := model.Time(0)
	haveRoot, haveOther := false, false
	for i, m := range in.members {
		if i == 0 || m.begin > maxBegin {
			maxBegin = m.begin
		}
		if in.root != 0 && m.loc == in.root {
			rootBegin, haveRoot = m.begin, true
		}
	}
	for _, m := range in.members {
		if in.root != 0 && m.loc == in.root {
			continue
		}
		if !haveOther || m.begin < minOther {
			minOther, haveOther = m.begin, true
		}
	}
	for _, m := range in.members {
		dur := max(int64(m.end-m.begin), 0)
		var wait int64
		switch in.class {
		case model.ClassBarrier, model.ClassAllToAll:
			wait = int64(maxBegin - m.begin)
		case model.ClassOneToAll:
			if haveRoot && m.loc != in.root {
				wait = int64(rootBegin - m.begin)
			}
		case model.ClassAllToOne:
			if haveRoot && haveOther && m.loc == in.root {
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
				CommID: in.key.comm, Instance: in.key.match, LocID: m.loc, RegionID: m.region,
				Class: in.class.String(), Duration: dur, Wait: wait, Sent: m.sent, Recvd: m.recvd, bySeq: in.key.seq,
			})
		}
	}
	delete(c.idx, in.key)
	if cs := &c.idxCache[in.key.slot()]; cs.k == in.key {
		cs.ii = 0
	}
	in.members = in.members[:0]
	c.free = append(c.free, ii)
}
