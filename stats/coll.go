package stats

import (
	"cmp"
	"encoding/binary"
	"iter"
	"slices"

	"github.com/hpctrace/hpctrace/model"
)

type collKey struct {
	comm  model.CommID
	loc   model.LocID // the caller, on a communicator of its own (model.Comm.Self); else 0
	match uint64
	seq   bool // match is a per-(location, comm) sequence number
}

// idxCacheBits is the log2 of the number of entries of the cache in
// front of collState.idx.
const idxCacheBits = 6

// slot returns the idx cache entry of k.
func (k collKey) slot() uint32 {
	h := (uint64(k.comm)<<1 | uint64(b2u(k.seq))) * 0x9e3779b97f4a7c15
	h = (h ^ k.match ^ uint64(k.loc)<<40) * 0xbf58476d1ce4e5b9
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
	root       model.LocID // the root its CollBegin names (0: none)
	begin, end model.Time
	sent       int64
	recvd      int64
	class      model.Class // the class its CollBegin gives (0: none)
	ended      bool
}

// heldMember is one member's part in a collective on a communicator
// whose definition lists no members (or on no defined communicator).
// Which locations take part in such an instance is known only when every
// location has been read, so its members are kept until the end of the
// stream (or of the last [Accumulator.Join]), where settleHeld forms the
// instances: deciding earlier would make them depend on the order in
// which the locations' events arrive, and so on how a trace is sharded.
// An open call is a slot of collState.heldOpen; once it ended (or its
// location's stream did) it is packed into collState.heldLog by
// appendHeld, about 20 bytes a call.
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
	heldRef  = -2 // a call held to the end: member indexes collState.heldOpen
)

// appendHeld appends the packed form of h to b.
func appendHeld(b []byte, h *heldMember) []byte {
	b = binary.AppendUvarint(b, uint64(h.comm))
	b = binary.AppendUvarint(b, h.match)
	b = binary.AppendUvarint(b, uint64(h.loc))
	b = binary.AppendUvarint(b, uint64(h.root))
	b = binary.AppendUvarint(b, uint64(h.region))
	b = binary.AppendUvarint(b, uint64(h.site))
	b = append(b, byte(h.class), b2u(h.seq)|b2u(h.ended)<<1)
	b = binary.AppendVarint(b, int64(h.begin))
	b = binary.AppendVarint(b, int64(h.end-h.begin))
	b = binary.AppendVarint(b, h.sent)
	return binary.AppendVarint(b, h.recvd)
}

// readHeld unpacks the call appendHeld wrote at the start of b and
// returns it with its length. b is collState.heldLog, written only by
// appendHeld (a decoded state's calls are checked, then packed).
func readHeld(b []byte) (heldMember, int) {
	var h heldMember
	i := 0
	u := func() uint64 {
		v, n := binary.Uvarint(b[i:])
		i += n
		return v
	}
	s := func() int64 {
		v, n := binary.Varint(b[i:])
		i += n
		return v
	}
	h.comm = model.CommID(u())
	h.match = u()
	h.loc, h.root = model.LocID(u()), model.LocID(u())
	h.region, h.site = model.RegionID(u()), model.SiteID(u())
	h.class, h.seq, h.ended = model.Class(b[i]), b[i+1]&1 != 0, b[i+1]&2 != 0
	i += 2
	h.begin = model.Time(s())
	h.end = h.begin + model.Time(s())
	h.sent, h.recvd = s(), s()
	return h, i
}

// heldCalls iterates over the packed calls of log.
func heldCalls(log []byte) iter.Seq[heldMember] {
	return func(yield func(heldMember) bool) {
		for len(log) > 0 {
			h, n := readHeld(log)
			if !yield(h) {
				return
			}
			log = log[n:]
		}
	}
}

type collInst struct {
	key     collKey
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
	LocID    model.LocID    `json:"loc_id"`
	Loc      int64          `json:"loc"`
	RegionID model.RegionID `json:"-"`
	Op       string         `json:"op"`
	Class    string         `json:"class"`
	Duration model.Time     `json:"duration"`
	Wait     model.Time     `json:"wait"`
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
	insts []collInst
	free  []int32
	seq   map[seqKey]*uint64 // the last sequence number per (location, comm)
	// Calls on communicators of unknown membership: the open ones in
	// slots (a free slot has loc 0), the others packed (heldMember).
	heldOpen  []heldMember
	heldFree  []int32
	heldLog   []byte
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
		lseq := &ls.cache().lastSeq
		n := lseq.n
		if n == nil || lseq.comm != ev.Comm {
			sk := seqKey{ev.Loc, ev.Comm}
			if n = c.seq[sk]; n == nil {
				n = new(uint64)
				c.seq[sk] = n
			}
			lseq.comm, lseq.n = ev.Comm, n
		}
		*n++
		k.match, k.seq = *n, true
	}
	size := a.definedSize(ev.Comm)
	if size == selfSize {
		k.loc = ev.Loc
	}
	if size == 0 {
		if !k.seq {
			ls.pushMatch(k.match)
		}
		var slot int32
		if n := len(c.heldFree); n > 0 {
			slot = c.heldFree[n-1]
			c.heldFree = c.heldFree[:n-1]
		} else {
			c.heldOpen = append(c.heldOpen, heldMember{})
			slot = int32(len(c.heldOpen) - 1)
		}
		c.heldOpen[slot] = heldMember{loc: ev.Loc, root: ev.Peer, region: region, site: site, comm: ev.Comm, class: ev.Class,
			seq: k.seq, match: k.match, begin: ev.Time, sent: ev.Bytes, recvd: ev.Recvd}
		m := ls.more()
		m.openCol = append(m.openCol, collRef{heldRef, slot})
		return
	}
	cs := &c.idxCache[k.slot()]
	ii, ok := cs.ii-1, cs.ii != 0 && cs.k == k
	if !ok {
		ii, ok = c.idx[k]
	}
	if !ok {
		ii = c.newInst(k, region)
	}
	cs.k, cs.ii = k, ii+1
	in := &c.insts[ii]
	// Filled in place, not copied in from a struct built apart (see
	// Accumulator.endpoint).
	in.members = append(in.members, member{})
	m := &in.members[len(in.members)-1]
	m.loc, m.region, m.site, m.root, m.class = ev.Loc, region, site, ev.Peer, ev.Class
	m.begin, m.sent, m.recvd = ev.Time, ev.Bytes, ev.Recvd
	if !k.seq {
		ls.pushMatch(k.match)
	}
	lm := ls.more()
	lm.openCol = append(lm.openCol, collRef{ii, int32(len(in.members) - 1)})
}

// pushMatch records that the call about to be pushed on openCol has
// match id m.
func (ls *locState) pushMatch(m uint64) {
	lm := ls.more()
	if lm.openMatch == nil {
		lm.openMatch = make(map[uint64][]int32)
	}
	lm.openMatch[m] = append(lm.openMatch[m], int32(len(lm.openCol)))
}

// refKey returns the instance key of an open call.
func (c *collState) refKey(r collRef) collKey {
	if r.inst == heldRef {
		return c.heldOpen[r.member].key()
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
	if ls.locMore == nil {
		// No collective call was ever opened here.
		a.diag.UnmatchedCollEnd++
		return
	}
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
		h := &c.heldOpen[ref.member]
		h.end, h.ended = ev.Time, true
		c.heldLog = appendHeld(c.heldLog, h)
		*h = heldMember{}
		c.heldFree = append(c.heldFree, ref.member)
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
// of both groups (a collective on it involves both); 1 for a communicator
// every location forms alone; 0 if the definition lists no members or
// comm is not defined. An instance on a communicator
// of defined size is complete, and freed, once that many members have
// ended it; the others are held to the end (heldMember).
func (a *Accumulator) definedSize(comm model.CommID) int {
	// The definition in place: Defs.Comm copies it, and collBegin and
	// collEnd ask for it at every call.
	cs := a.defs.Comms()
	if comm == 0 || int(comm) > len(cs) {
		return 0
	}
	switch cm := &cs[comm-1]; {
	case cm.Self:
		return selfSize
	case len(cm.Members) > 0:
		return len(cm.Members) + len(cm.Remote)
	}
	return 0
}

// selfSize is the defined size of a communicator every location forms
// alone (model.Comm.Self), whose instances are keyed by their caller too;
// a communicator of one member has it as well, and keying its instances
// by their one caller changes nothing.
const selfSize = 1

// cmpCollKey orders instance keys by communicator, match, sequence flag and
// caller.
func cmpCollKey(x, y collKey) int {
	return cmp.Or(cmp.Compare(x.comm, y.comm), cmp.Compare(x.match, y.match), cmpBool(x.seq, y.seq), cmp.Compare(x.loc, y.loc))
}

// finishColl computes the members' waits (doc/stats.md §5.6) and frees the instance.
func (a *Accumulator) finishColl(ii int32, incomplete bool) {
	c := &a.coll
	in := &c.insts[ii]
	if incomplete {
		a.diag.OpenCollectives++
	}
	a.account(in.key, in.members)
	delete(c.idx, in.key)
	if cs := &c.idxCache[in.key.slot()]; cs.k == in.key {
		cs.ii = 0
	}
	in.members = in.members[:0]
	c.free = append(c.free, ii)
}

// account adds the members of a finished instance to the statistics. Its
// class and root are those the member of the lowest location id that
// gives one names (members of a correct trace agree), so that they do
// not depend on the order the members came in.
func (a *Accumulator) account(key collKey, members []member) {
	c := &a.coll
	var class model.Class
	var root, classLoc, rootLoc model.LocID
	for _, m := range members {
		if m.class != 0 && (class == 0 || m.loc < classLoc || (m.loc == classLoc && m.class < class)) {
			class, classLoc = m.class, m.loc
		}
		if m.root != 0 && (root == 0 || m.loc < rootLoc || (m.loc == rootLoc && m.root < root)) {
			root, rootLoc = m.root, m.loc
		}
	}
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
		lc := &a.locs[m.loc].cache().lastColl
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
				Class: class.String(), Duration: model.Time(dur), Wait: model.Time(wait), Sent: m.sent, Recvd: m.recvd, bySeq: key.seq,
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

// packOpen packs the open held calls, not ended: their locations'
// streams are over (the end of the stream, a saved or joined state).
func (c *collState) packOpen() {
	for i := range c.heldOpen {
		if h := &c.heldOpen[i]; h.loc != 0 {
			c.heldLog = appendHeld(c.heldLog, h)
		}
	}
	c.heldOpen, c.heldFree = c.heldOpen[:0], c.heldFree[:0]
}

// heldPos is a held call's place in collState.heldLog, with the fields
// settleHeld orders by first.
type heldPos struct {
	comm  model.CommID
	loc   model.LocID
	match uint64
	off   int
	seq   bool
}

// settleHeld forms and accounts the instances of the held calls, at the
// end of the stream: an instance is every call with its key (comm, match
// id or per-(location, comm) sequence number), complete if every member
// ended it and it has as many members as the largest instance on its
// communicator (the membership is not defined, so the largest instance
// stands for it). A member that never ended ends at its location's last
// time. Each instance counts in Diagnostics.HeldCollectives, the
// incomplete ones in OpenCollectives too. The calls are ordered by key,
// location and content, so that neither the instances nor the order they
// are accounted in depend on the order the calls came in.
func (a *Accumulator) settleHeld() {
	c := &a.coll
	c.packOpen()
	log := c.heldLog
	if len(log) == 0 {
		return
	}
	n := 0
	for range heldCalls(log) {
		n++
	}
	pos := make([]heldPos, 0, n)
	for off := 0; off < len(log); {
		h, n := readHeld(log[off:])
		pos = append(pos, heldPos{comm: h.comm, loc: h.loc, match: h.match, off: off, seq: h.seq})
		off += n
	}
	slices.SortFunc(pos, func(x, y heldPos) int {
		if r := cmp.Or(cmp.Compare(x.comm, y.comm), cmpBool(x.seq, y.seq), cmp.Compare(x.match, y.match), cmp.Compare(x.loc, y.loc)); r != 0 {
			return r
		}
		hx, _ := readHeld(log[x.off:])
		hy, _ := readHeld(log[y.off:])
		return cmpHeld(hx, hy)
	})
	key := func(p heldPos) collKey { return collKey{comm: p.comm, match: p.match, seq: p.seq} }
	size := make(map[model.CommID]int)
	for i := 0; i < len(pos); {
		j := i + 1
		for j < len(pos) && key(pos[j]) == key(pos[i]) {
			j++
		}
		size[pos[i].comm] = max(size[pos[i].comm], j-i)
		i = j
	}
	var ms []member
	for i := 0; i < len(pos); {
		k := key(pos[i])
		complete := true
		ms = ms[:0]
		j := i
		for ; j < len(pos) && key(pos[j]) == k; j++ {
			h, _ := readHeld(log[pos[j].off:])
			if !h.ended {
				h.end, complete = max(a.locs[h.loc].last, h.begin), false
			}
			ms = append(ms, member{loc: h.loc, region: h.region, site: h.site, root: h.root, begin: h.begin, end: h.end,
				sent: h.sent, recvd: h.recvd, class: h.class, ended: true})
		}
		a.diag.HeldCollectives++
		if !complete || j-i < size[k.comm] {
			a.diag.OpenCollectives++
		}
		a.account(k, ms)
		i = j
	}
	c.heldLog = nil
}
