package otf2

import "github.com/hpctrace/hpctrace/internal/kmerge"

// NextBatch merges by windows while every location's buffered keys fit
// in winKeys (up to 160 locations with the default buffers; without
// merge4Asm, up to winMaxLocs) and ascend: it takes the smallest of the
// live locations' last buffered keys as the window's bound, and the
// events at or below it, a sorted run per location, are all the events
// of the merge up to that bound. A key is the event's time relative to
// the earliest buffered one, shifted left by the bits of the event's
// place in the buffers (flat), so that ties go to the lower location
// and keys are distinct, and the event is found from its key. The runs
// are merged in pairs, level by level, and each level's merges are cut
// into pieces of equal size at their merge paths, so that four
// independent merges advance in one loop: a merge step is two loads, a
// comparison and conditional moves, and one merge alone waits on each
// step's loads before it can take the next. The batch is then the
// merged keys: each names its event in the buffers, where the caller
// reads it, not a copy.
//
// The loser tree (mergePacked) is kept for what does not fit: its steps
// depend on each other through the tree. The windowed merge yields the
// same order as long as each location's times ascend, which topUp
// checks; a location whose time goes back, or buffered times too far
// apart for a key, move the merge to the loser tree for good.

// winLen is the number of keys of winKeys (a power of two).
const winLen = 1 << 13

// winKeys holds the keys of the windowed merge: each location's
// buffered keys (per+1 slots each, the last for a sentinel), then the
// outputs of two merge levels in turn. Indexes are masked, so that a
// merge step needs no bounds check.
type winKeys [winLen]uint64

// winRun is a sorted run of n keys at pos of winKeys, followed by a
// larger key.
type winRun struct{ pos, n int }

// winMerge is the merge of two runs into n = na+nb keys at d.
type winMerge struct{ a, b, d, na, nb int }

// winPiece is a part of a merge: m steps from the keys at a and b into
// d.
type winPiece struct{ a, b, d, m int }

// winMaxLocs is the most locations the windowed merge takes where its
// merge steps are merge4Go's. Up to 160 locations' default buffers fit
// winKeys, but there the windowed merge gains nothing:
// BenchmarkMergedBatchLocations finds it no faster than the loser tree
// at 128 locations and slower at 160. With merge4Asm it takes as many
// locations as fit, where the same benchmark finds it faster than the
// loser tree.
const winMaxLocs = 64

// winFits reports whether a windowed merge of k locations of per
// buffered events each fits in winKeys (their keys and two levels of
// merge outputs with a sentinel per run) and, without merge4Asm, k is
// at most winMaxLocs.
func winFits(k, per int) bool {
	return k > 0 && (haveMerge4Asm || k <= winMaxLocs) && 3*k*(per+1) <= winLen
}

// winBase is the position of location i's first buffered key.
func (mr *MergedReader) winBase(i int) int { return i * (mr.per + 1) }

// topUp refills location i's buffer once at most half of it is left:
// the events left move to its front and the location's next events
// follow. While the merge is windowed it puts the keys of the buffer
// into wk, and leaves the windowed merge when a key goes back (a time
// before the location's previous one) or does not fit (the caller then
// moves to the loser tree, or to two-word keys). false if the merge
// must stop (mr.berr).
func (mr *MergedReader) topUp(i int) bool {
	s, h := &mr.bs[i], &mr.hot[i]
	wk := mr.wk
	base := mr.winBase(i)
	if head, n := int(h.head), int(h.n); !s.end && n-head <= mr.per/2 {
		rem := n - head
		if head > 0 {
			copy(s.buf[:rem], s.buf[head:n])
			for j := head; j < s.keyed; j++ {
				// the event's place in flat moves by head
				wk[(base+j-head)&(winLen-1)] = wk[(base+j)&(winLen-1)] - uint64(head)
			}
			s.keyed = max(s.keyed-head, 0)
			// the pool of whole events: those of the events left move
			// to its front (they are its last in use, in buffer order)
			nf := 0
			for j := range s.buf[:rem] {
				if e := &s.buf[j]; e.full != 0 {
					x := int(e.full-1) % mr.per
					s.full[nf], s.full[x] = s.full[x], s.full[nf]
					nf++
					e.full = uint32(i*mr.per + nf)
				}
			}
			s.buf, s.nf = s.buf[:rem], nf
		}
		mr.decode(i)
		*h = hotLoc{n: int32(len(s.buf))}
		if len(s.buf) == 0 && s.err != nil {
			mr.berr = s.err
			return false
		}
	}
	if !mr.windowed {
		return true
	}
	n := len(s.buf)
	if s.keyed >= n {
		wk[(base+n)&(winLen-1)] = kmerge.PackedDone // after a move
		return true
	}
	// times ascend (checked below), so the first and last bound them
	if first, last := s.buf[s.keyed].Time, s.buf[n-1].Time; (first < mr.wbase || last-mr.wbase > mr.wmax) && !mr.rebase(first, last) {
		return true
	}
	if keyRun(wk[base+s.keyed:base+n], s.buf[s.keyed:n], mr.wbase, mr.wsh, uint64(i*mr.per+s.keyed), s.last) {
		mr.windowed = false
		return true
	}
	wk[(base+n)&(winLen-1)] = kmerge.PackedDone
	s.keyed, s.last = n, s.buf[n-1].Time
	return true
}

// rebase makes the keys relative to a time no later than first and no
// later than any event to come of any location, so that the times from
// first to last fit keys as well as those of the buffered events;
// false if they do not, which leaves the windowed merge.
func (mr *MergedReader) rebase(first, last uint64) bool {
	b, top := first, last
	for i := range mr.bs {
		s, h := &mr.bs[i], &mr.hot[i]
		switch {
		case int(h.head) < s.keyed:
			b = min(b, s.buf[h.head].Time)
			top = max(top, s.last)
		case !s.end:
			b = min(b, s.last) // its next events come no earlier
		}
	}
	if last < first || top-b > mr.wmax {
		mr.windowed = false
		return false
	}
	mr.wbase = b
	for i := range mr.bs {
		s, h := &mr.bs[i], &mr.hot[i]
		base := mr.winBase(i)
		for j := int(h.head); j < s.keyed; j++ {
			mr.wk[(base+j)&(winLen-1)] = (s.buf[j].Time-b)<<mr.wsh | uint64(i*mr.per+j)
		}
	}
	return true
}

// mergeWindow moves the events up to the window's bound to b, in global
// order.
func (mr *MergedReader) mergeWindow(b *Batch) {
	wk := mr.wk
	bound := kmerge.PackedDone
	for i := range mr.bs {
		s, h := &mr.bs[i], &mr.hot[i]
		if h.head < h.n && (!s.end || s.err != nil) {
			bound = min(bound, wk[(mr.winBase(i)+int(h.n)-1)&(winLen-1)])
		}
	}
	runs := mr.runs[:0]
	tot := 0
	for i := range mr.bs {
		h := &mr.hot[i]
		pos := mr.winBase(i) + int(h.head)
		// the keys at or below bound: a binary search
		lo, hi := 0, int(h.n-h.head)
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if wk[(pos+m)&(winLen-1)] <= bound {
				lo = m + 1
			} else {
				hi = m
			}
		}
		if lo > 0 {
			runs = append(runs, winRun{pos, lo})
			tot += lo
		}
		h.head += int32(lo)
	}
	// merge the runs in pairs, into the two output areas in turn
	area := len(mr.bs) * (mr.per + 1)
	size := len(mr.bs) * (mr.per + 1)
	next := mr.runs2[:0]
	for len(runs) > 1 {
		d := area
		ms := mr.merges[:0]
		next = next[:0]
		for q := 0; q+1 < len(runs); q += 2 {
			a, c := runs[q], runs[q+1]
			ms = append(ms, winMerge{a.pos, c.pos, d, a.n, c.n})
			next = append(next, winRun{d, a.n + c.n})
			d += a.n + c.n + 1
		}
		if len(runs)%2 == 1 {
			r := runs[len(runs)-1]
			for j := range r.n {
				wk[(d+j)&(winLen-1)] = wk[(r.pos+j)&(winLen-1)]
			}
			wk[(d+r.n)&(winLen-1)] = kmerge.PackedDone
			next = append(next, winRun{d, r.n})
		}
		mr.merges = ms
		mr.mergeLevel(ms, tot)
		runs, next = next, runs
		if area == size {
			area = 2 * size
		} else {
			area = size
		}
	}
	mr.runs, mr.runs2 = runs[:0], next[:0]
	if tot > 0 {
		// the batch's events are those of the merged keys, where they
		// are
		r := runs[0]
		b.keys, b.flat, b.mask = wk[r.pos:r.pos+tot], mr.flat, mr.wmask
	}
	for i := range mr.bs {
		if s, h := &mr.bs[i], &mr.hot[i]; h.head == h.n && s.err != nil {
			mr.berr = s.err
		}
	}
}

// mergeLevel runs the merges of one level, tot keys in all, cut into
// pieces of about a quarter of tot, four pieces at a time.
func (mr *MergedReader) mergeLevel(ms []winMerge, tot int) {
	wk := mr.wk
	ps := mr.pieces[:0]
	sz := max((tot+3)/4, 1)
	for _, t := range ms {
		n := t.na + t.nb
		i0, j0 := 0, 0
		for p := 0; p < n; p += sz {
			e := min(p+sz, n)
			i1 := t.na
			if e < n {
				i1 = mergePath(wk, t.a, t.b, t.na, t.nb, e)
			}
			ps = append(ps, winPiece{t.a + i0, t.b + j0, t.d + p, e - p})
			i0, j0 = i1, e-i1
		}
		wk[(t.d+n)&(winLen-1)] = kmerge.PackedDone
	}
	mr.pieces = ps
	live := ps
	for len(live) >= 4 {
		g := live[len(live)-4:]
		m := min(g[0].m, g[1].m, g[2].m, g[3].m)
		end := merge4(wk, g, m)
		// what is left of g goes where g was: piece q is read before
		// anything is written past the first q places
		live = live[:len(live)-4]
		for q, p := range g {
			if p.m > m {
				live = append(live, winPiece{end[2*q], end[2*q+1], p.d + m, p.m - m})
			}
		}
	}
	for _, p := range live {
		merge1(wk, p)
	}
}

// mergePath returns how many of the p smallest keys of the runs of na
// keys at a and nb keys at b are a's.
func mergePath(wk *winKeys, a, b, na, nb, p int) int {
	lo, hi := max(0, p-nb), min(p, na)
	for lo < hi {
		i := int(uint(lo+hi) >> 1)
		if wk[(a+i)&(winLen-1)] < wk[(b+p-i-1)&(winLen-1)] {
			lo = i + 1
		} else {
			hi = i
		}
	}
	return lo
}

// merge1 runs the m steps of p.
func merge1(wk *winKeys, p winPiece) {
	a, b, d := p.a, p.b, p.d
	for n := range p.m {
		x, y := wk[a&(winLen-1)], wk[b&(winLen-1)]
		l := 0
		if x < y {
			l = 1
		}
		wk[(d+n)&(winLen-1)] = min(x, y)
		a += l
		b += 1 - l
	}
}

// winB is where a piece's position at b starts in its merge4 state
// word; the position at a is the low bits.
const winB = 32

// merge4 runs m steps of each of the four pieces g in one loop and
// returns where each piece's inputs are then: merge4Asm where there is
// one and every position it reads and writes lies in wk (as it does in
// a windowed merge, whose runs end in a larger key), merge4Go
// otherwise.
func merge4(wk *winKeys, g []winPiece, m int) [8]int {
	g4 := [4]winPiece(g[:4])
	if haveMerge4Asm && m > 0 {
		ok := true
		for _, p := range g4 {
			ok = ok && p.a >= 0 && p.b >= 0 && p.d >= 0 && p.a+m <= winLen && p.b+m <= winLen && p.d+m <= winLen
		}
		if ok {
			merge4Asm(wk, &g4, m)
			return [8]int{g4[0].a, g4[0].b, g4[1].a, g4[1].b, g4[2].a, g4[2].b, g4[3].a, g4[3].b}
		}
	}
	return merge4Go(wk, g, m)
}

// merge4Go is merge4 in Go. Each piece's two positions are packed into
// one word, so that the four pieces' positions fit in registers beside
// their outputs.
func merge4Go(wk *winKeys, g []winPiece, m int) [8]int {
	const k = winLen - 1
	s0 := uint64(g[0].a) | uint64(g[0].b)<<winB
	s1 := uint64(g[1].a) | uint64(g[1].b)<<winB
	s2 := uint64(g[2].a) | uint64(g[2].b)<<winB
	s3 := uint64(g[3].a) | uint64(g[3].b)<<winB
	o0 := wk[g[0].d : g[0].d+m]
	o1, o2, o3 := wk[g[1].d:g[1].d+m], wk[g[2].d:g[2].d+m], wk[g[3].d:g[3].d+m]
	o1, o2, o3 = o1[:len(o0)], o2[:len(o0)], o3[:len(o0)]
	for n := range o0 {
		x0, y0 := wk[s0&k], wk[(s0>>winB)&k]
		x1, y1 := wk[s1&k], wk[(s1>>winB)&k]
		x2, y2 := wk[s2&k], wk[(s2>>winB)&k]
		x3, y3 := wk[s3&k], wk[(s3>>winB)&k]
		// l is 1 if the step takes the key at a: a flag, not a branch,
		// which would mispredict on locations that interleave
		// irregularly
		var l0, l1, l2, l3 uint64
		if x0 < y0 {
			l0 = 1
		}
		if x1 < y1 {
			l1 = 1
		}
		if x2 < y2 {
			l2 = 1
		}
		if x3 < y3 {
			l3 = 1
		}
		o0[n] = min(x0, y0)
		o1[n] = min(x1, y1)
		o2[n] = min(x2, y2)
		o3[n] = min(x3, y3)
		// one step at b, less the difference if at a
		s0 += 1<<winB - l0*(1<<winB-1)
		s1 += 1<<winB - l1*(1<<winB-1)
		s2 += 1<<winB - l2*(1<<winB-1)
		s3 += 1<<winB - l3*(1<<winB-1)
	}
	const f = 1<<winB - 1
	return [8]int{int(s0 & f), int(s0 >> winB), int(s1 & f), int(s1 >> winB), int(s2 & f), int(s2 >> winB), int(s3 & f), int(s3 >> winB)}
}

// keyRun puts the keys of evs into ks: their times relative to b,
// shifted left by sh, each or-ed with its place in flat, x for evs[0];
// true if a time is earlier than the one before it (prev for evs[0]),
// and then the keys from that event on are not set (the caller leaves
// the windowed merge). The test of the time is a branch, not a flag
// or-ed per event: it is never taken while times ascend, and the loop
// is shorter by the flag's instructions. It is not inlined: inlined in
// topUp, whose other variables live across the loop, the loop spilled
// its own to the stack, which the harness's OTF2 read showed in its CPU
// time.
//
//go:noinline
func keyRun(ks []uint64, evs []BatchEvent, b uint64, sh uint, x, prev uint64) bool {
	evs = evs[:len(ks)]
	// (t-b)<<sh | x is t·m + (x - b·m) modulo 2^64, as x < m: a
	// multiplication, which takes any register, where a shift by a
	// variable count takes CX and moves around it
	m := uint64(1) << (sh & 63)
	c := x - b*m
	for j := range ks {
		t := evs[j].Time
		if t < prev {
			return true
		}
		prev = t
		ks[j] = t*m + c
		c++
	}
	return false
}
