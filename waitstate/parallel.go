package waitstate

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hpctrace/hpctrace/model"
)

// Parallel Finalize (Options.Workers). An Analyzer that kept its logs
// (Options.KeepLogs, as joined shards do) holds the whole trace when
// Finalize is called. Its settling points (settle.go) are then all in the
// logs: the Leave of each blocking synchronising collective over every
// calling location. settleLogs finds them after the fact, cuts the logs
// there into stretches of at least st.min calls, analyses the stretches
// in worker goroutines (each a fin of its own, as cut's) and keeps their
// results in the order of the stretches, one after the other, exactly as
// a settling Analyzer would have kept them had it cut at the same
// points; Finalize then ends as a settling Analyzer's does
// (finalizeSettled). The report does not depend on where the logs were
// cut (TestSettleEqual), nor on the number of workers: each stretch's
// analysis reads only its own logs and the Analyzer's tables, which no
// worker writes, and the results are added in one fixed order.

// workers returns the number of goroutines Finalize may use.
func (o *Options) workers() int { return max(o.Workers, 1) }

// span is one stretch of one location's log: the counts of its entries
// before a settling point (a mark, whose fields count from the start of
// the log rather than from the last cut).
type span = mark

// settleLogs settles the stretches of the ended, unsettled logs of a
// between its settling points, each of at least minCalls calls (settleMin;
// tests lower it), analysing them in up to workers goroutines; it leaves
// a.st set (settled or not) and the logs without the settled stretches.
func (a *Analyzer) settleLogs(workers, minCalls int) {
	a.fill()
	a.st = newSettled(a.opts.SpillDir)
	a.st.min = minCalls
	cuts := a.cutPoints()
	if len(cuts) == 0 {
		return
	}
	// The region facts fins ask for, cached now so that no worker adds
	// to the cache.
	for r := 1; r <= a.defs.NumRegions(); r++ {
		a.region(model.RegionID(r))
	}
	// The first MPI_Init call of each location, for each stretch's
	// initSeen.
	firstInit := make([]int32, len(a.locs))
	for li := range a.locs {
		firstInit[li] = -1
		for i, c := range a.locs[li].calls {
			if c.op == opInit {
				firstInit[li] = int32(i)
				break
			}
		}
	}
	type result struct {
		f     *fin
		elocs []locLog
		blk   []byte
		ok    bool
		done  chan struct{}
	}
	res := make([]result, len(cuts))
	for i := range res {
		res[i].done = make(chan struct{})
	}
	var next atomic.Int64                   // the next stretch to analyse
	var stop atomic.Bool                    // a stretch failed its checks: the rest stay in the logs
	ahead := make(chan struct{}, 2*workers) // bounds the stretches analysed and not yet kept
	var wg sync.WaitGroup
	for range min(workers, len(cuts)) {
		wg.Go(func() {
			for {
				ahead <- struct{}{}
				i := int(next.Add(1) - 1)
				if i >= len(cuts) {
					<-ahead
					return
				}
				r := &res[i]
				if !stop.Load() {
					var prev []span
					if i > 0 {
						prev = cuts[i-1]
					}
					r.f, r.elocs, r.ok = a.analyseStretch(prev, cuts[i], firstInit)
					if r.ok {
						r.blk = r.f.block(nil)
					}
				}
				close(r.done)
			}
		})
	}
	kept := -1
	for i := range res {
		r := &res[i]
		<-r.done
		if !stop.Load() {
			if r.ok && a.keep(r.f, r.elocs, r.blk) {
				kept = i
			} else {
				stop.Store(true)
			}
		}
		*r = result{done: r.done}
		<-ahead
	}
	wg.Wait()
	if kept < 0 {
		return
	}
	for li := range a.locs {
		if l := &a.locs[li]; l.called {
			l.rebase(cuts[kept][li])
		}
	}
}

// analyseStretch analyses the stretch of the logs between the settling
// points prev (nil: the start of the logs) and at, as cut does, and
// reports whether it passes cut's checks.
func (a *Analyzer) analyseStretch(prev, at []span, firstInit []int32) (*fin, []locLog, bool) {
	elocs := make([]locLog, len(a.locs))
	initSeen := make([]bool, len(a.locs))
	empty := new(logExt)
	for li := range a.locs {
		l := &a.locs[li]
		if !l.called {
			elocs[li].logExt = empty
			continue
		}
		var p span
		if prev != nil {
			p = prev[li]
		}
		m := at[li]
		initSeen[li] = firstInit[li] >= 0 && firstInit[li] < p.calls
		x := &logExt{bounds: l.bounds[p.b0 : m.b0+1], ents: l.ents[p.ents:m.ents]}
		x.gapEnd = make([]int32, m.b0-p.b0)
		for i := range x.gapEnd {
			x.gapEnd[i] = l.gapEnd[p.b0+int32(i)] - p.ents
		}
		x.calls = slices.Clone(l.calls[p.calls:m.calls])
		for i := range x.calls {
			c := &x.calls[i]
			if c.op == opFinalize {
				return nil, nil, false
			}
			c.enterB -= p.b0
			if c.leaveB >= p.b0 {
				c.leaveB -= p.b0
			} else {
				c.leaveB = 0
			}
		}
		x.p2p = slices.Clone(l.p2p[p.p2p:m.p2p])
		for i := range x.p2p {
			if x.p2p[i].call >= 0 {
				x.p2p[i].call -= p.calls
			}
		}
		x.colls = slices.Clone(l.colls[p.colls:m.colls])
		for i := range x.colls {
			if x.colls[i].call >= 0 {
				x.colls[i].call -= p.calls
			}
		}
		elocs[li] = locLog{first: x.bounds[0], last: m.leave, seen: true, closed: true, logExt: x}
	}
	f := a.newFinOn(elocs, Diagnostics{})
	f.epoch, f.initSeen, f.local = true, initSeen, true
	f.run()
	if d := f.diag; d.UnmatchedSends != 0 || d.UnmatchedRecvs != 0 || d.IncompleteColls != 0 || d.UnknownComm != 0 || f.openReqs != 0 {
		return nil, nil, false
	}
	return f, elocs, true
}

// cutPoints returns the settling points at which settleLogs cuts the
// logs, in order: per point, the span of each calling location's log
// before it (zero for the others). A point is the Leave of a blocking
// barrier or N×N collective, the outermost MPI call of its location, on
// the first communicator of such a call that every calling location is a
// member of, in an instance every calling location took part in and
// entered before any left, as mark and tryCut find them as the stream
// passes; the points are as far apart as the settling Analyzer's (at
// least st.min calls). There are none when a location has a
// non-blocking collective or a point-to-point event outside every MPI
// call next to a point (which mark would place but the logs do not).
func (a *Analyzer) cutPoints() [][]span {
	ncall := 0
	for li := range a.locs {
		l := &a.locs[li]
		if !l.called {
			continue
		}
		ncall++
		if len(l.icolls) > 0 {
			return nil
		}
	}
	if ncall == 0 {
		return nil
	}
	// The communicator: that of the first candidate of the first calling
	// location.
	var world model.CommID
	for li := range a.locs {
		l := &a.locs[li]
		if !l.called {
			continue
		}
		for _, c := range l.colls {
			if c.call < 0 || !a.candidate(l, &c) {
				continue
			}
			cm, ok := a.defs.Comm(c.comm)
			if ok && !cm.Self && len(cm.Remote) == 0 && len(cm.Members) >= ncall {
				world = c.comm
				break
			}
		}
		break
	}
	if world == 0 {
		return nil
	}
	// Each calling location's points, in the order of their keys.
	var curs []pointCursor
	for li := range a.locs {
		if l := &a.locs[li]; l.called {
			curs = append(curs, pointCursor{a: a, l: l, li: li, world: world})
		}
	}
	// The keys every calling location has, in order, each past the last
	// cut by st.min calls or more.
	var cuts [][]span
	at := make([]span, len(a.locs))
	last := make([]span, len(a.locs))
	for curs[0].next() {
		k := curs[0].cur.key
		found := true
		total := 0
		var latestE, earliestX model.Time
		for i := range curs {
			c := &curs[i]
			for i > 0 && (!c.started || c.cur.key < k) {
				if !c.next() {
					return cuts
				}
			}
			m := c.cur
			if m.key != k {
				found = false
				continue
			}
			at[c.li] = m
			total += int(m.calls - last[c.li].calls)
			if i == 0 || m.enter > latestE {
				latestE = m.enter
			}
			if i == 0 || m.leave < earliestX {
				earliestX = m.leave
			}
		}
		if !found || latestE > earliestX || total < a.st.min {
			continue
		}
		cuts = append(cuts, slices.Clone(at))
		copy(last, at)
	}
	return cuts
}

// candidate reports whether the collective c is in a call that may be a
// settling point: a barrier or N×N call left in the trace (c.call, an
// event's call, is the outermost open MPI call).
func (a *Analyzer) candidate(l *locLog, c *collRec) bool {
	cr := &l.calls[c.call]
	return (cr.op == opBarrier || cr.op == opNxN) && !cr.open
}

// A pointCursor yields the settling points of one location's log on the
// communicator world, in the order of the log, as mark records them when
// the stream passes them. It stops early, at a point whose place in the
// log of point-to-point events cannot be told (an event outside every
// MPI call next to it) or whose key is not above the previous one's
// (tryCut would not find it).
type pointCursor struct {
	a       *Analyzer
	l       *locLog
	li      int
	world   model.CommID
	j       int // the next CollBegin to look at
	pi      int // the point-to-point entries before cur
	started bool
	seq     bool
	cur     span
}

// next moves to the next point; it reports false at the end.
func (pc *pointCursor) next() bool {
	l := pc.l
	for ; pc.j < len(l.colls); pc.j++ {
		j := pc.j
		c := &l.colls[j]
		if c.comm != pc.world || c.call < 0 || !pc.a.candidate(l, c) {
			continue
		}
		if j+1 < len(l.colls) && l.colls[j+1].call == c.call {
			continue // not the last CollBegin of its call
		}
		pc.j++
		ci := c.call
		cr := &l.calls[ci]
		m := span{key: c.key, calls: ci + 1, colls: int32(j + 1), b0: cr.leaveB, enter: cr.enter, leave: cr.leave}
		// The MPI calls inside this one come before its Leave too.
		for int(m.calls) < len(l.calls) && l.calls[m.calls].enterB < cr.leaveB {
			m.calls++
		}
		// Point-to-point entries: those of calls up to ci are before
		// the Leave, those of later calls after it; a run outside every
		// call is before it if a call up to ci follows, after it if one
		// of ci precedes, else unknown.
		pi := pc.pi
		for pi < len(l.p2p) {
			k := l.p2p[pi].call
			if k >= 0 {
				if k > ci {
					break
				}
				pi++
				continue
			}
			e := pi
			for e < len(l.p2p) && l.p2p[e].call < 0 {
				e++
			}
			switch {
			case e < len(l.p2p) && l.p2p[e].call <= ci:
				pi = e
				continue
			case pi > 0 && l.p2p[pi-1].call == ci:
			default:
				pc.j = len(l.colls)
				return false
			}
			break
		}
		pc.pi = pi
		m.p2p = int32(pi)
		if m.b0 <= 0 || int(m.b0) > len(l.gapEnd) || (pc.started && (pc.cur.key >= m.key || pc.seq != c.seq)) {
			pc.j = len(l.colls)
			return false
		}
		m.ents = l.gapEnd[m.b0-1]
		pc.started, pc.seq, pc.cur = true, c.seq, m
		return true
	}
	return false
}
