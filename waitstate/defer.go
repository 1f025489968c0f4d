package waitstate

import (
	"cmp"
	"slices"

	"github.com/hpctrace/hpctrace/model"
)

// Deferred delay costs (doc/waitstates.md §8). An Analyzer that settles
// stretches of the run computes each wait state's excess, D and W
// (§3.2) when its stretch is analysed, and leaves the latest-first pass
// of §3.3 to Finalize, which runs it over all of them at the end: the
// last fin's records first, then the settled stretches' records read back
// from the spill file, latest first. A wait state whose pair's previous
// common sync point lies in a settled stretch (or that never had one)
// takes the part of its interval before the stretch from running totals
// per location and call path (cum: exclusive time less the wait states'
// time, from the start of the run to the first boundary of the location's
// log) less those kept at the pair's last sync point (sideSnap); its
// candidates there are a range of the delayer's wait states counted from
// the start of the run (ordinals). The backward pass holds, per location,
// the additions to the propagated costs of candidates in stretches it has
// not read yet (rangeAdd), which it applies, in their order, when it
// reads that stretch.

// sideSnap is one location's running totals at a sync point: the point's
// leave time, the number of its wait states before it (ord), their total
// time (wsum) and its exclusive time less wait-state time by call path
// (nonzero ones, by sid): the entries lo … lo+n-1 of the arena that holds
// the snapshot (deferState.ents, or deferOut.ents while it is pending).
// It holds no pointer, so that the garbage collector neither scans the
// kept snapshots nor puts write barriers on their stores.
type sideSnap struct {
	t     model.Time
	wsum  int64
	ord   int32
	lo, n int32
}

// groupKey names the collectives whose instances have the same members:
// those of one communicator, or MPI_Init's.
type groupKey struct {
	comm model.CommID
	init bool
}

// memberKey is a member of a group of collectives.
type memberKey struct {
	g   groupKey
	loc model.LocID
}

// deferState is what the deferred delay costs keep of the settled
// stretches.
type deferState struct {
	cum   [][]int64 // per location, by sid: totals from the start of the run to the log's first boundary
	cumW  []int64   // per location: the time of its settled wait states
	wbase []int32   // per location: the number of its settled wait states
	// The last settled sync points: those of the ordered pairs by message
	// (two snapshots in a row, x's then y's: the largest by the leave on
	// x, then on y) and those of each member of each group of
	// collectives (its last instance), indices into sides. A newer
	// snapshot takes its predecessor's place in sides; its entries are
	// appended to ents, which is compacted into spare when most of it is
	// no longer referenced.
	pairs   map[locPair]int32
	members map[memberKey]int32
	sides   []sideSnap
	ents    []gapEnt
	spare   []gapEnt
	live    int          // the entries of ents that sides reference
	locGrp  [][]groupKey // per location, the groups in which it has a snapshot
	tmp     []int64      // scratch by sid
	back    backState
}

func (d *deferState) grow(n int) {
	for len(d.cum) < n {
		d.cum = append(d.cum, nil)
		d.cumW = append(d.cumW, 0)
		d.wbase = append(d.wbase, 0)
		d.locGrp = append(d.locGrp, nil)
	}
}

// prev returns the last settled common sync point of R and S (nil, nil
// if they have none): the one with the largest leave on R, then on S.
// The snapshots are d's, valid until the next commit.
func (d *deferState) prev(R, S model.LocID) (sr, ss *sideSnap) {
	if d == nil {
		return nil, nil
	}
	if i, ok := d.pairs[locPair{R, S}]; ok {
		sr, ss = &d.sides[i], &d.sides[i+1]
	}
	if int(R) < len(d.locGrp) {
		for _, g := range d.locGrp[R] {
			ia, oka := d.members[memberKey{g, R}]
			ib, okb := d.members[memberKey{g, S}]
			if !oka || !okb {
				continue
			}
			a, b := &d.sides[ia], &d.sides[ib]
			if sr == nil || a.t > sr.t || (a.t == sr.t && b.t > ss.t) {
				sr, ss = a, b
			}
		}
	}
	return sr, ss
}

// settledPart adds to x the totals of X from s (the start of the run if
// nil) to the first boundary of X's log, and returns the number and the
// time of X's wait states in that part.
func (d *deferState) settledPart(X model.LocID, s *sideSnap, x *acc) (ord int32, w int64) {
	if d == nil || int(X) >= len(d.cum) {
		return 0, 0
	}
	cum := d.cum[X]
	if len(d.tmp) < len(cum) {
		d.tmp = make([]int64, len(cum))
	}
	w = d.cumW[X]
	var ents []gapEnt
	if s != nil {
		ents = d.ents[s.lo : s.lo+s.n]
		for _, e := range ents {
			d.tmp[e.cp] = e.dt
		}
		ord, w = s.ord, w-s.wsum
	}
	for sid, v := range cum {
		if dv := v - d.tmp[sid]; dv != 0 {
			x.add(int32(sid), dv)
		}
	}
	for _, e := range ents {
		d.tmp[e.cp] = 0
	}
	return ord, w
}

// drec is a wait state's record for the deferred pass: one with delay
// costs (late_sender, late_receiver, wait_barrier, wait_nxn,
// late_broadcast), with its excess and candidates if ok. It holds no
// pointer: its excess and its candidates are ranges of its stretch's
// arrays.
type drec struct {
	w, d, wS   int64
	loc, dloc  model.LocID
	ord        int32 // its ordinal among its location's wait states in the stretch
	sid        int32 // its call's
	cLo, cHi   int32 // candidates in settled stretches: ordinals on dloc from the start of the run
	exLo, exHi int32 // its excess (sid, excess): dstretch.ex[exLo:exHi]
	caLo, caHi int32 // candidates in the stretch: ordinals on dloc in the stretch, dstretch.cands[caLo:caHi]
	pat        Pattern
	ok         bool
}

// dstretch is a stretch's records, latest first, with the number of
// each location's wait states in it and the ordinal of its first (base,
// which the spill file does not hold: the backward pass counts it down
// from the totals), and the arrays of the records' excesses and
// candidates. Its storage is reused from stretch to stretch.
type dstretch struct {
	recs  []drec
	base  []int32 // per location
	count []int32
	ex    []gapEnt
	cands []int32
}

// reset empties s for a stretch of n locations, keeping its storage.
func (s *dstretch) reset(n int) {
	s.recs, s.ex, s.cands = s.recs[:0], s.ex[:0], s.cands[:0]
	s.base, s.count = resize(s.base, n), resize(s.count, n)
}

// rangeAdd is an addition of w·f to the propagated cost of each wait
// state of a location with an ordinal in [lo, hi).
type rangeAdd struct {
	lo, hi int32
	f      float64
}

// backState is the state of the backward pass between stretches.
type backState struct {
	pend [][]rangeAdd // per location, in the order made
	top  []int32      // per location: the base of the stretch read last
	cost []float64    // scratch, by a stretch's flat index
	prop []bool
	has  []bool
	w    []int64
	off  []int32   // scratch: a location's first flat index
	ind  []float64 // scratch, by record: its indirect part
	dc   []struct {
		k rowKey
		v *[2]float64
	}
	rd dstretch // the storage of the stretches read back
}

// backward runs the latest-first pass of doc/waitstates.md §3.3 over the
// records of one stretch: it adds to f's delay rows and to the rows of
// the direct, indirect, propagating and terminal split, and leaves in
// b.pend the additions to candidates of earlier stretches.
//
// Its cost is linear in the stretch's records, excesses and candidates
// plus, per location, its pending additions times its wait states in the
// stretch that they reach.
func (b *backState) backward(f *fin, s *dstretch) {
	for len(b.pend) < len(s.base) {
		b.pend = append(b.pend, nil)
	}
	b.off = grow(b.off, len(s.base)+1)
	off := b.off
	off[0] = 0
	for li, n := range s.count {
		off[li+1] = off[li] + n
	}
	n := int(off[len(s.base)])
	b.cost = resize(b.cost, n)
	b.prop = resize(b.prop, n)
	b.has = resize(b.has, n)
	b.w = resize(b.w, n)
	for i := range s.recs {
		r := &s.recs[i]
		x := off[r.loc] + r.ord
		b.has[x], b.w[x] = true, r.w
	}
	// The additions of later stretches to this one's, in their order.
	for li, base := range s.base {
		cnt := s.count[li]
		if cnt == 0 || li >= len(b.pend) {
			continue
		}
		o0 := off[li] - base
		for _, ra := range b.pend[li] {
			lo, hi := max(ra.lo, base), min(ra.hi, base+cnt)
			for o := lo; o < hi; o++ {
				if x := o0 + o; b.has[x] {
					b.cost[x] += float64(b.w[x]) * ra.f
					b.prop[x] = true
				}
			}
		}
	}
	if len(b.dc) < len(f.sidUp) {
		b.dc = make([]struct {
			k rowKey
			v *[2]float64
		}, len(f.sidUp))
	}
	b.ind = resize(b.ind, len(s.recs))
	indirect := b.ind
	for i := range s.recs {
		r := &s.recs[i]
		if !r.ok || r.d+r.wS == 0 {
			continue
		}
		dw := float64(r.d + r.wS)
		sw := min(1, float64(r.w)/dw)
		sc := b.cost[off[r.loc]+r.ord] / dw
		for _, e := range s.ex[r.exLo:r.exHi] {
			k := rowKey{r.pat, r.dloc, int32(e.cp)}
			c := &b.dc[e.cp]
			v := c.v
			if v == nil || c.k != k {
				if v = f.delay[k]; v == nil {
					v = new([2]float64)
					f.delay[k] = v
				}
				c.k, c.v = k, v
			}
			v[0] += float64(e.dt) * sw
			v[1] += float64(e.dt) * sc
		}
		o0 := off[r.dloc]
		for _, o := range s.cands[r.caLo:r.caHi] {
			if x := o0 + o; b.has[x] {
				b.cost[x] += float64(b.w[x]) * (sw + sc)
				b.prop[x] = true
			}
		}
		if r.cLo < r.cHi {
			b.pend[r.dloc] = append(b.pend[r.dloc], rangeAdd{r.cLo, r.cHi, sw + sc})
		}
		indirect[i] = sw * float64(r.wS)
	}
	for i := range s.recs {
		r := &s.recs[i]
		parts, ok := waitParts(r.pat, model.Time(r.w), indirect[i], b.prop[off[r.loc]+r.ord])
		if !ok {
			continue
		}
		for _, x := range parts {
			f.addRowSID(x.pat, r.loc, r.sid, x.t)
		}
	}
	// Additions that reach no earlier stretch are done.
	for li, base := range s.base {
		if li >= len(b.pend) {
			continue
		}
		q := b.pend[li][:0]
		for _, ra := range b.pend[li] {
			if ra.lo < base {
				ra.hi = min(ra.hi, base)
				q = append(q, ra)
			}
		}
		b.pend[li] = q
	}
}

// addRowSID is addRow for a call path given by its sid.
func (f *fin) addRowSID(p Pattern, loc model.LocID, sid int32, v model.Time) {
	if v <= 0 {
		return
	}
	k := rowKey{p, loc, sid}
	r := f.rows[k]
	if r == nil {
		r = &rowVal{}
		f.rows[k] = r
	}
	r.time += v
	r.count++
}

// deferOut is what the fin of a stretch to be settled leaves for the
// deferred pass and for the running totals, applied if the stretch is
// settled (commit). Its storage is the fin's scratch (deferScratch),
// reused by the next stretch's fin once commit has run.
type deferOut struct {
	st    dstretch
	snaps []pendSnap
	ents  []gapEnt // the snapshots' and the totals' entries
	// per location: the totals of the stretch's gaps less its wait
	// states' time, by sid (sparse: ents[tot[li].lo:][:tot[li].n]), and
	// the wait states' number and time
	tot  []entRange
	nW   []int32
	sumW []int64
}

// entRange is a range of an array of entries.
type entRange struct{ lo, n int32 }

// pendSnap is a snapshot to keep: of a pair by message (group unset)
// or of a member of a group.
type pendSnap struct {
	sx, sy sideSnap
	x, y   model.LocID // the ordered pair, or the member x
	bx, by int32       // their leave boundaries
	g      groupKey
	byMsg  bool
}

// deferScratch is the working storage of a fin's deferred delay costs:
// its output and the maps and requests of stretchSnaps, and the arrays of
// delayCosts. A settling Analyzer's fins share one (finScratch), used by
// one fin at a time.
type deferScratch struct {
	out    deferOut
	pairIx pairIndex
	best   []pairSync
	last   map[memberKey]part
	reqs   []snapReq
	// firstColl is, by call, the index of its first collective record.
	firstColl []int32
	acc       acc
	// delayCosts
	byLoc              [][]wpos
	wFlat, wBuf        []wpos
	ebs                [][]int32
	ebFlat             []int32
	nw, posOf, npts    []int32
	pairs              pairIndex
	pts                [][]syncPt
	ptFlat, ptBuf      []syncPt
	recs               []dcRec
	ex                 []gapEnt
	cands              []int32
	xr, xs             acc
	ptHints, partHints []int32
	order              []int32
	keys, keyBuf       []okey
}

// dcRec is delayCosts' record of a wait state with a delay cost: D, W
// and its excess and candidates as ranges of deferScratch.ex and cands.
type dcRec struct {
	d, wS          int64
	exLo, exHi     int32
	candLo, candHi int32
	setLo, setHi   int32 // deferred: candidates in settled stretches (ordinals)
	ok             bool
}

// okey orders wait states latest first (delayCosts).
type okey struct {
	end, e model.Time
	loc    model.LocID
	call   int32
	pat    Pattern
	i      int32
}

// syncPair is a sync point by message of an ordered pair: its leave
// times and boundaries on x and y.
type syncPair struct {
	lx, ly model.Time
	bx, by int32
}

// pairSync is the last sync point by message of an ordered pair.
type pairSync struct {
	k locPair
	p syncPair
}

// snapReq asks for location loc's running totals at its leave boundary
// b, for snapshot snap's x side (or y side).
type snapReq struct {
	loc  model.LocID
	b    int32
	snap int32
	y    bool
}

// stretchSnaps computes, for the fin of a stretch to be settled, the last
// sync point of each pair by message and of each member of each group of
// collectives, with the running totals there, and each location's totals
// over the stretch. byLoc are the locations' wait states in call order.
//
// The totals count from the start of the stretch: commit adds those of
// the settled stretches before it, so that the fins of stretches may run
// before the stretches before them are settled (settleLogs).
func (f *fin) stretchSnaps(byLoc [][]wpos, ds *deferScratch) *deferOut {
	out := &ds.out
	n := len(f.locs)
	out.snaps, out.ents = out.snaps[:0], out.ents[:0]
	out.tot, out.nW, out.sumW = resize(out.tot, n), resize(out.nW, n), resize(out.sumW, n)
	// Messages: per pair, the largest (leave on x, leave on y), in
	// best (pairIx gives a pair's index + 1).
	if ds.last == nil {
		ds.last = map[memberKey]part{}
	}
	pix := ds.pairIx.reset(n)
	best := ds.best[:0]
	for li := range f.locs {
		calls := f.locs[li].calls
		for _, m := range f.msgs[li] {
			r, s := model.LocID(li), m.s
			if r == s {
				continue
			}
			// Both orders: the previous common sync point is the largest
			// by the leave on the waiting location, then on the other.
			p := syncPair{calls[m.rcall].leave, m.ls, calls[m.rcall].leaveB, f.locs[s].calls[m.scall].leaveB}
			for range 2 {
				if i := pix.get(r, s); i == 0 {
					best = append(best, pairSync{locPair{r, s}, p})
					pix.set(r, s, int32(len(best)))
				} else if q := &best[i-1].p; p.lx > q.lx || (p.lx == q.lx && p.ly > q.ly) {
					*q = p
				}
				r, s, p = s, r, syncPair{p.ly, p.lx, p.by, p.bx}
			}
		}
	}
	ds.best = best
	for _, b := range best {
		k, p := b.k, b.p
		out.snaps = append(out.snaps, pendSnap{byMsg: true, x: k.x, y: k.y, bx: p.bx, by: p.by, sx: sideSnap{t: p.lx}, sy: sideSnap{t: p.ly}})
	}
	// Collectives: per group and member, the last instance.
	last := ds.last
	clear(last)
	for li := range f.locs {
		if li >= len(f.parts) || len(f.parts[li]) == 0 {
			continue
		}
		l := &f.locs[li]
		// The first collective record of each call, found once rather
		// than by a search of the records per instance.
		ds.firstColl = grow(ds.firstColl, len(l.calls))
		first := ds.firstColl
		for i := range first {
			first[i] = -1
		}
		for i := range l.colls {
			if c := l.colls[i].call; c >= 0 && int(c) < len(first) && first[c] < 0 {
				first[c] = int32(i)
			}
		}
		for _, p := range f.parts[li] {
			if len(f.collMembers[p.inst]) < 2 {
				continue
			}
			var g groupKey
			if l.calls[p.call].op == opInit {
				g.init = true
			} else {
				i := first[p.call]
				if i < 0 {
					continue
				}
				g.comm = l.colls[i].comm
			}
			k := memberKey{g, model.LocID(li)}
			if q, ok := last[k]; !ok || p.leave >= q.leave {
				last[k] = p
			}
		}
	}
	for k, p := range last {
		out.snaps = append(out.snaps, pendSnap{x: k.loc, g: k.g, bx: f.locs[k.loc].calls[p.call].leaveB, sx: sideSnap{t: p.leave}})
	}
	// The requests, by location and boundary.
	reqs := ds.reqs[:0]
	for i := range out.snaps {
		ps := &out.snaps[i]
		reqs = append(reqs, snapReq{ps.x, ps.bx, int32(i), false})
		if ps.byMsg {
			reqs = append(reqs, snapReq{ps.y, ps.by, int32(i), true})
		}
	}
	slices.SortFunc(reqs, func(p, q snapReq) int {
		if p.loc != q.loc {
			return cmp.Compare(p.loc, q.loc)
		}
		return cmp.Compare(p.b, q.b)
	})
	ds.reqs = reqs
	x := &ds.acc
	x.reset()
	x.v = resize(x.v, len(f.sidUp))
	for li := range f.locs {
		rs := reqs
		for len(rs) > 0 && int(rs[0].loc) < li {
			rs = rs[1:]
		}
		m := 0
		for m < len(rs) && int(rs[m].loc) == li {
			m++
		}
		rs, reqs = rs[:m], rs[m:]
		l := &f.locs[li]
		if !l.seen || len(l.calls) == 0 {
			continue
		}
		x.reset()
		ws := byLoc[li]
		k, nw, sw := int32(0), int32(0), int64(0)
		emit := func(b int32) sideSnap {
			if k < b {
				f.gaps(l, k, b, x)
				k = b
			}
			for int(nw) < len(ws) && ws[nw].lb <= b {
				x.add(ws[nw].sid, -ws[nw].w)
				sw += ws[nw].w
				nw++
			}
			lo := len(out.ents)
			for _, sid := range x.touched {
				if v := x.v[sid]; v != 0 {
					out.ents = append(out.ents, gapEnt{uint32(sid), v})
				}
			}
			seg := out.ents[lo:]
			slices.SortFunc(seg, func(p, q gapEnt) int { return cmp.Compare(p.cp, q.cp) })
			seg = slices.CompactFunc(seg, func(p, q gapEnt) bool { return p.cp == q.cp })
			out.ents = out.ents[:lo+len(seg)]
			return sideSnap{ord: nw, wsum: sw, lo: int32(lo), n: int32(len(seg))}
		}
		for _, r := range rs {
			s := emit(r.b)
			dst := &out.snaps[r.snap].sx
			if r.y {
				dst = &out.snaps[r.snap].sy
			}
			s.t = dst.t
			*dst = s
		}
		// The whole stretch: every gap and every wait state.
		s := emit(int32(len(l.bounds) - 1))
		out.tot[li] = entRange{s.lo, s.n}
		out.nW[li] = int32(len(ws))
		out.sumW[li] = sw
	}
	return out
}

// commit applies o, the output of a settled stretch's fin, to d: the
// running totals move to the end of the stretch and its last sync points
// replace the pairs' and groups' earlier ones.
func (d *deferState) commit(o *deferOut, nsid int) {
	d.grow(len(o.tot))
	if d.pairs == nil {
		d.pairs = map[locPair]int32{}
		d.members = map[memberKey]int32{}
	}
	// Make the snapshots absolute: add the totals before the stretch.
	for i := range o.snaps {
		ps := &o.snaps[i]
		d.absolute(ps.x, &ps.sx, o.ents)
		if ps.byMsg {
			d.absolute(ps.y, &ps.sy, o.ents)
		}
	}
	for li, t := range o.tot {
		if t.n == 0 && o.nW[li] == 0 {
			continue
		}
		c := d.cum[li]
		if len(c) < nsid {
			c = append(c, make([]int64, nsid-len(c))...)
		}
		for _, e := range o.ents[t.lo : t.lo+t.n] {
			c[e.cp] += e.dt
		}
		d.cum[li] = c
		d.wbase[li] += o.nW[li]
		d.cumW[li] += o.sumW[li]
	}
	for i := range o.snaps {
		ps := &o.snaps[i]
		if ps.byMsg {
			d.live += int(ps.sx.n + ps.sy.n)
			if j, ok := d.pairs[locPair{ps.x, ps.y}]; ok {
				d.live -= int(d.sides[j].n + d.sides[j+1].n)
				d.sides[j], d.sides[j+1] = ps.sx, ps.sy
				continue
			}
			d.pairs[locPair{ps.x, ps.y}] = int32(len(d.sides))
			d.sides = append(d.sides, ps.sx, ps.sy)
			continue
		}
		d.live += int(ps.sx.n)
		k := memberKey{ps.g, ps.x}
		if j, ok := d.members[k]; ok {
			d.live -= int(d.sides[j].n)
			d.sides[j] = ps.sx
			continue
		}
		d.members[k] = int32(len(d.sides))
		d.sides = append(d.sides, ps.sx)
		d.locGrp[ps.x] = append(d.locGrp[ps.x], ps.g)
	}
	if len(d.ents) > 2*d.live+1024 {
		d.compact()
	}
}

// compact moves the entries the snapshots reference to the spare arena,
// which becomes d.ents.
func (d *deferState) compact() {
	e := d.spare[:0]
	for i := range d.sides {
		s := &d.sides[i]
		lo := int32(len(e))
		e = append(e, d.ents[s.lo:s.lo+s.n]...)
		s.lo = lo
	}
	d.ents, d.spare = e, d.ents[:0]
}

// absolute makes s, a snapshot of X counted from the start of a stretch
// with its entries in src, absolute: it adds the totals of X's settled
// stretches before it, and puts its entries at the end of d.ents.
func (d *deferState) absolute(X model.LocID, s *sideSnap, src []gapEnt) {
	s.ord += d.wbase[X]
	s.wsum += d.cumW[X]
	c := d.cum[X]
	if len(d.tmp) < len(c) {
		d.tmp = make([]int64, len(c))
	}
	n := len(c)
	for _, e := range src[s.lo : s.lo+s.n] {
		if int(e.cp) >= len(d.tmp) {
			d.tmp = append(d.tmp, make([]int64, int(e.cp)+1-len(d.tmp))...)
		}
		d.tmp[e.cp] = e.dt
		n = max(n, int(e.cp)+1)
	}
	lo := len(d.ents)
	for sid := range n {
		var v int64
		if sid < len(c) {
			v = c[sid]
		}
		v += d.tmp[sid]
		d.tmp[sid] = 0
		if v != 0 {
			d.ents = append(d.ents, gapEnt{uint32(sid), v})
		}
	}
	s.lo, s.n = int32(lo), int32(len(d.ents)-lo)
}

// encode appends the stretch's records to e.
func (s *dstretch) encode(e *enc) {
	e.u(uint64(len(s.count)))
	for _, n := range s.count {
		e.u(uint64(n))
	}
	e.u(uint64(len(s.recs)))
	for i := range s.recs {
		r := &s.recs[i]
		e.u(uint64(r.pat))
		e.u(uint64(r.loc))
		e.u(uint64(r.dloc))
		e.bool(r.ok)
		e.u(uint64(r.ord))
		e.u(uint64(r.sid))
		e.i(r.w)
		e.i(r.d)
		e.i(r.wS)
		e.u(uint64(r.cLo))
		e.u(uint64(r.cHi))
		e.u(uint64(r.exHi - r.exLo))
		for _, x := range s.ex[r.exLo:r.exHi] {
			e.u(uint64(x.cp))
			e.i(x.dt)
		}
		e.u(uint64(r.caHi - r.caLo))
		for _, o := range s.cands[r.caLo:r.caHi] {
			e.u(uint64(o))
		}
	}
}

// decodeStretch reads a stretch's records as encode wrote them into s
// (a new one if nil), reusing its storage; the caller sets their bases.
func decodeStretch(d *dec, nlocs, nsid int, s *dstretch) *dstretch {
	if s == nil {
		s = &dstretch{}
	}
	s.reset(0)
	n := d.count(2)
	if n > uint64(nlocs) {
		d.fail("bad stretch")
		return s
	}
	s.reset(int(n))
	for li := range s.count {
		s.count[li] = int32(d.u32())
	}
	nr := d.count(12)
	s.recs = slices.Grow(s.recs, int(nr))
	for range nr {
		if d.err != nil {
			break
		}
		var r drec
		r.pat = Pattern(d.u())
		r.loc = model.LocID(d.u32())
		r.dloc = model.LocID(d.u32())
		r.ok = d.bool()
		r.ord = int32(d.u32())
		r.sid = int32(d.u32())
		r.w, r.d, r.wS = d.i(), d.i(), d.i()
		r.cLo, r.cHi = int32(d.u32()), int32(d.u32())
		ne := d.count(2)
		r.exLo = int32(len(s.ex))
		for range ne {
			e := gapEnt{d.u32(), d.i()}
			if int(e.cp) >= nsid {
				d.fail("bad call path")
			}
			s.ex = append(s.ex, e)
		}
		r.exHi = int32(len(s.ex))
		nc := d.count(1)
		r.caLo = int32(len(s.cands))
		for range nc {
			s.cands = append(s.cands, int32(d.u32()))
		}
		r.caHi = int32(len(s.cands))
		if int(r.loc) >= len(s.base) || int(r.dloc) >= len(s.base) || r.ord < 0 || r.ord >= s.count[r.loc] {
			d.fail("bad record")
			break
		}
		for _, o := range s.cands[r.caLo:r.caHi] {
			if o < 0 || o >= s.count[r.dloc] {
				d.fail("bad candidate")
				break
			}
		}
		s.recs = append(s.recs, r)
	}
	return s
}

// deferState returns the running totals of the settled stretches if f's
// delay costs are deferred: f is the fin of a stretch to be settled or
// the last fin of a run that settled; nil otherwise.
func (f *fin) deferState() *deferState {
	if st := f.a.st; st != nil && (f.epoch || f.st != nil) {
		return &st.dfr
	}
	return nil
}

// base returns the number of X's wait states in the settled stretches.
func (d *deferState) base(X model.LocID) int32 {
	if int(X) < len(d.wbase) {
		return d.wbase[X]
	}
	return 0
}

// deferDone takes the records of f's stretch: the fin of a stretch to be
// settled keeps them with its running totals for keep; the last fin
// starts the backward pass with them, which replay continues over the
// settled stretches.
func (f *fin) deferDone(sc *deferScratch, byLoc [][]wpos) {
	if f.epoch {
		f.dout = f.stretchSnaps(byLoc, sc)
		return
	}
	ds := &sc.out.st
	d := &f.a.st.dfr
	for li := range ds.base {
		ds.base[li] = d.base(model.LocID(li))
	}
	d.back.top = append(d.back.top[:0], ds.base...)
	d.back.backward(f, ds)
}

// replayStretch continues the backward pass with a settled stretch read
// back from the spill file, the latest not read yet.
func (b *backState) replayStretch(f *fin, ds *dstretch) {
	for len(b.top) < len(ds.count) {
		b.top = append(b.top, 0)
	}
	for li, n := range ds.count {
		b.top[li] -= n
		ds.base[li] = b.top[li]
	}
	b.backward(f, ds)
}

// heldBytes is the Analyzer's account of the bytes its logs and the
// deferred delay costs' running totals hold (their slices' capacities),
// for the tests of flat memory: what grows with a trace's length shows
// here whatever the garbage collector has not freed yet.
func (a *Analyzer) heldBytes() int64 {
	var n int64
	for li := range a.locs {
		l := &a.locs[li]
		n += int64(cap(l.stack))*32 + int64(cap(l.cur))*16
		if x := l.logExt; x != nil {
			n += int64(cap(x.bounds))*8 + int64(cap(x.gapEnd))*4 + int64(cap(x.ents))*16
			n += int64(cap(x.calls))*40 + int64(cap(x.p2p))*40 + int64(cap(x.colls))*56 + int64(cap(x.icolls))*48
		}
	}
	if st := a.st; st != nil {
		d := &st.dfr
		for li := range d.cum {
			n += int64(cap(d.cum[li]))*8 + 16
		}
		n += int64(cap(d.sides))*32 + int64(cap(d.ents)+cap(d.spare))*16
		n += int64(len(d.pairs))*16 + int64(len(d.members))*20
		for _, q := range st.marks {
			n += int64(cap(q)) * 48
		}
	}
	return n
}
