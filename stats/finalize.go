package stats

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/hpctrace/hpctrace/model"
)

// Finalize derives the report from the statistics accumulated so far: open
// regions are closed at their location's last timestamp, open collectives and
// unmatched messages are settled, and recursion groups, PROC records,
// imbalance and drill-down are computed from the raw tables (doc/stats.md §3.1). All
// of this happens on a copy, so Add may continue afterwards. The cost is
// proportional to the number of keys, not to the trace length.
func (a *Accumulator) Finalize() *Report { return buildReport(a.settledCopy(), nil) }

// FinalReport is Finalize for an accumulator that is done: it settles the
// statistics in place rather than on a copy, which saves the copy's
// memory, as much as the statistics' own (a run of many locations holds
// per-location tables). The report is the same as Finalize's. After it,
// a must not be used again: its statistics are settled, and Add, Merge,
// Finalize or a saved state would count the open regions twice.
func (a *Accumulator) FinalReport() *Report { return buildReport(a.settleInPlace(), nil) }

// FinalTextReport is FinalReport cut to what [Report.WriteText] prints
// with the drill-down scope scope ("" means "all"), and the communication
// matrices and size histogram, which grow with the pairs that
// communicate: the tables it does not print, which hold rows per location,
// are left out, so that a trace of many locations costs a fraction of
// FinalReport's memory and time. The report's Locations, Callsites,
// GprofAverageEstimate, Loops, TransferTime, SiteImbalance, Collectives,
// Proc, Groups and Imbalance are empty (the load imbalance of exclusive
// time that WriteText prints is kept in a compact form of its own, as is
// the flat profile summed over locations), so is MPI.Locations when the
// trace has no MPI calls; Functions holds only the rows of the
// locations and regions whose call counts the trace records
// ([Report.CheckRecorded] reads them); and
// DrillDown and HotPath hold the scope "all" and scope only. Its
// WriteText with that scope writes what FinalReport's does;
// its JSON form is not the full report's. Like FinalReport, it uses a up.
func (a *Accumulator) FinalTextReport(scope string) *Report {
	if scope == "" {
		scope = "all"
	}
	return buildReport(a.settleInPlace(), &scope)
}

// FinalTextReportFunc is [Accumulator.FinalTextReport] that also passes
// to fn, as it builds them, the rows of the flat profile per location
// and region that FinalReport's Functions holds, in their order, without
// keeping them: a caller that shows them summed (over groups of
// locations, say) needs no table of every location's. The row is valid
// only during the call; fn must copy what it keeps.
func (a *Accumulator) FinalTextReportFunc(scope string, fn func(*Function)) *Report {
	if scope == "" {
		scope = "all"
	}
	return buildReportFunc(a.settleInPlace(), &scope, fn)
}

// settleInPlace settles a, absorbing what Merge left to merge, and
// returns it.
func (a *Accumulator) settleInPlace() *Accumulator {
	m := a.merged
	a.merged = nil
	a.settle()
	if m != nil {
		a.absorb(m)
	}
	return a
}

// buildReport builds the report of the settled accumulator c: all of it,
// or, with a text scope, what WriteText prints with that scope
// (FinalTextReport).
func buildReport(c *Accumulator, text *string) *Report { return buildReportFunc(c, text, nil) }

// buildReportFunc is buildReport that passes the text's rows of Functions
// to each (FinalTextReportFunc).
func buildReportFunc(c *Accumulator, text *string, each func(*Function)) *Report {
	rep := &Report{TicksPerSecond: c.defs.TimeBase.TicksPerSecond, Locations: []LocationInfo{}}
	b := &finalizer{c: c, nm: namer{c.defs}, rep: rep, f: &rep.Final, text: text, each: each}
	if text == nil {
		rep.Locations = locationTable(c.defs)
	}
	f := b.f
	f.Diagnostics = c.diag
	// Empty tables marshal as [], like the expected reports in stats/testdata.
	f.Functions, f.Callsites, f.Loops, f.Com, f.TransferTime = []Function{}, []Callsite{}, []Loop{}, []Com{}, []Transfer{}
	f.MatrixSend, f.MatrixRecv, f.SizeHistogram, f.CollectiveSums = []MatrixEntry{}, []MatrixEntry{}, []SizeBin{}, []CollectiveSum{}
	rep.GprofAverageEstimate = []GprofEstimate{}

	for li := range c.locs {
		if c.locs[li].seen {
			b.seen = append(b.seen, model.LocID(li))
		}
	}
	b.callsites()
	f.MPI = c.mpiProfile(b.seen, f.Callsites, b.nm, text != nil)
	f.nseen = len(b.seen)
	b.imbalances()
	b.idle()
	if c.opts.Relative != nil {
		f.Relative = c.relativeReport(b.seen)
	}
	// The last reader of the locations' states, which it lets go.
	b.functions()
	b.scopes()
	full := text == nil // the sections below that the text does not print
	if full {
		b.loops()
	} else {
		// The call edges' last use was the drill-down's graph.
		c.edges, b.keys, b.kidx = nil, nil, nil
	}
	b.com()
	if full {
		b.transfers()
	}
	f.MatrixSend = append(f.MatrixSend, b.matrix(c.comm.matSend)...)
	f.MatrixRecv = append(f.MatrixRecv, b.matrix(c.comm.matRecv)...)
	b.sizeHistogram()
	// The site imbalance reads the collective sums: they come first.
	b.collectiveSums()
	if full {
		f.SiteImbalance = c.siteImbalance(b.seen, b.keys, b.kidx, f)
	} else {
		// The MPI profile above was the text's only use of the call
		// sites kept.
		f.Callsites, f.SiteImbalance = []Callsite{}, []SiteImbalance{}
	}
	if full {
		b.collectives()
	}
	f.Counters = b.counters()
	rep.Samples = Samples(c.samples)
	return rep
}

// A finalizer builds the sections of a Report from a settled copy of an
// Accumulator, one method per section.
type finalizer struct {
	c    *Accumulator
	nm   namer
	rep  *Report
	f    *Final
	seen []model.LocID   // the locations with events, in id order
	keys []edgeKey       // the call edges with calls, sorted by location first
	kidx []int32         // the edge of each of keys in the accumulator's edges
	text *string         // FinalTextReport's scope; nil for the whole report
	each func(*Function) // FinalTextReportFunc's, or nil
}

// functions fills Functions, per location, or, for the text, textFlat,
// the flat profile summed over locations, which is all the text prints
// of it: a trace of many locations has a row of Functions per location
// and region. It is the last reader of the locations' states, which it
// lets go: c is a settled copy or used up, and for a trace of many
// locations they are a good part of its memory.
func (b *finalizer) functions() {
	c, f := b.c, b.f
	if b.text != nil {
		b.textFunctions()
		return
	}
	// Counted first, so that the table of every location's regions is
	// allocated once, not doubled with its old copies left behind.
	nf := 0
	for _, l := range b.seen {
		c.locs[l].funcs.each(func(_ model.RegionID, fs *funcStat) {
			if fs.visits > 0 || fs.closed > 0 {
				nf++
			}
		})
	}
	f.Functions = make([]Function, 0, nf)
	for _, l := range b.seen {
		ls := &c.locs[l]
		ls.funcs.each(func(r model.RegionID, fs *funcStat) {
			if fs.visits > 0 || fs.closed > 0 {
				f.Functions = append(f.Functions, c.function(l, r, fs))
			}
		})
	}
	c.locs = nil
}

// textFunctions fills textFlat with the rows of Functions summed per
// region, in the order of Functions, without Functions; of these, it
// keeps the rows that the trace's recorded call counts name, which
// [Report.CheckRecorded] compares with the visits. It lets the locations'
// states go before it sums the regions by name.
func (b *finalizer) textFunctions() {
	c, f := b.c, b.f
	type lr struct {
		loc model.LocID
		r   model.RegionID
	}
	var recorded map[lr]bool
	for _, rec := range c.defs.Recorded {
		if rec.Kind == model.RecordedCount && !rec.Unknown {
			if recorded == nil {
				recorded = make(map[lr]bool)
			}
			recorded[lr{rec.Loc, rec.Region}] = true
		}
	}
	ids := make([]flatID, c.defs.NumRegions()+1)
	row := 0
	var fn Function // each's
	for _, l := range b.seen {
		c.locs[l].funcs.each(func(r model.RegionID, fs *funcStat) {
			if fs.visits == 0 && fs.closed == 0 {
				return
			}
			row++
			for int(r) >= len(ids) {
				ids = append(ids, flatID{})
			}
			ids[r].add(row, fs.visits, model.Time(fs.incl), model.Time(fs.excl), model.Time(fs.actSum))
			if recorded[lr{l, r}] {
				f.Functions = append(f.Functions, c.function(l, r, fs))
			}
			if b.each != nil {
				fn = c.function(l, r, fs)
				b.each(&fn)
			}
		})
	}
	c.locs = nil
	f.textFlat = mergeFlat(ids, func(i int) string { return b.nm.region(model.RegionID(i)) })
}

// callsites fills Callsites, per location, and the gprof estimates, and
// keeps the sorted edge keys for the later sections.
func (b *finalizer) callsites() {
	c, nm, f, rep := b.c, b.nm, b.f, b.rep
	// Each key with its edge, for the sections that follow; the index of
	// edges by key is not needed after it. c is a settled copy (Finalize)
	// or an accumulator used up (FinalReport, FinalTextReport): its index
	// goes, which for a run of many locations is a map of millions of
	// keys.
	type keyed struct {
		k edgeKey
		i int32
	}
	nsole := 0
	c.soleEdges(func(edgeKey, edgeStat) { nsole++ })
	all := make([]keyed, 0, len(c.eidx.keys)+nsole)
	for i, k := range c.eidx.keys {
		if c.edges[i].count > 0 {
			all = append(all, keyed{k, int32(i)})
		}
	}
	c.eidx = edgeIndex{}
	// The sole edges get their entries in edges, which the sections
	// below read.
	c.edges = slices.Grow(c.edges, nsole)
	c.soleEdges(func(k edgeKey, e edgeStat) {
		all = append(all, keyed{k, int32(len(c.edges))})
		c.edges = append(c.edges, e)
	})
	if b.text == nil {
		// The text's sections do not depend on the keys' order: its
		// drill-down sorts them for its graph, and its MPI profile sums
		// and sorts the calls.
		slices.SortFunc(all, func(x, y keyed) int { return cmpKey(x.k, y.k) })
	}
	keys := make([]edgeKey, len(all))
	b.kidx = make([]int32, len(all))
	for n := range all {
		keys[n], b.kidx[n] = all[n].k, all[n].i
	}
	b.keys = keys
	if b.text == nil {
		// A row of each per key: sized, not grown by copies.
		f.Callsites = slices.Grow(f.Callsites, len(keys))
		rep.GprofAverageEstimate = slices.Grow(rep.GprofAverageEstimate, len(keys))
	}
	for n, k := range keys {
		e := c.edges[b.kidx[n]]
		if b.text != nil && (!isMPI(c.defs, k.callee) || isMPI(c.defs, k.caller)) {
			continue // the text's MPI profile uses the calls of MPI regions only
		}
		f.Callsites = append(f.Callsites, Callsite{
			LocID: k.loc, Loc: nm.loc(k.loc), CallerID: k.caller, Caller: nm.region(k.caller),
			SiteID: k.site, Site: nm.site(k.site), CalleeID: k.callee, Callee: nm.region(k.callee),
			Count: e.count, Incl: model.Time(e.incl), Excl: model.Time(e.excl), Min: model.Time(e.min), Max: model.Time(e.max),
		})
		if b.text != nil {
			continue
		}
		// gprof's rule: the callee's total time shared in proportion to calls.
		ls := &c.locs[k.loc]
		var est F6
		if fs := ls.fn(k.callee); fs.visits > 0 {
			est = F6(float64(fs.actSum) * float64(e.count) / float64(fs.visits))
		}
		rep.GprofAverageEstimate = append(rep.GprofAverageEstimate, GprofEstimate{
			LocID: k.loc, Loc: nm.loc(k.loc), Caller: nm.region(k.caller), Site: nm.site(k.site), Callee: nm.region(k.callee),
			MeasuredIncl: model.Time(e.incl), GprofEstimate: est,
		})
	}
}

// scopes fills Proc, Groups, DrillDown and HotPath: each location, then
// all merged.
func (b *finalizer) scopes() {
	c, nm, f, keys, seen := b.c, b.nm, b.f, b.keys, b.seen
	type scopeDef struct {
		name string
		loc  model.LocID // 0 = all
	}
	var scopes []scopeDef
	if b.text == nil {
		for _, l := range seen {
			scopes = append(scopes, scopeDef{"loc" + itoa(nm.loc(l)), l})
		}
	} else if want, ok := strings.CutPrefix(*b.text, "loc"); ok {
		// The text's scope only, its name not made for every location.
		var buf [20]byte
		for _, l := range seen {
			if string(strconv.AppendInt(buf[:0], nm.loc(l), 10)) == want {
				scopes = append(scopes, scopeDef{*b.text, l})
			}
		}
	}
	scopes = append(scopes, scopeDef{"all", 0})
	type comSum struct {
		e          gEdge
		sync, tran int64
	}
	comByLoc := make(map[model.LocID][]comSum)
	var comAll []comSum
	for k, cs := range c.comm.com {
		v := comSum{gEdge{k.caller, k.site, k.op}, cs.sync, cs.trans}
		comByLoc[k.loc] = append(comByLoc[k.loc], v)
		comAll = append(comAll, v)
	}
	// keys are sorted by location first: each location's edges are a run,
	// found in the order of the scopes (seen's, by id), without an index
	// of every location's. The text's are not sorted, and its scope of a
	// location takes that location's edges from all.
	next := 0
	for _, s := range scopes {
		sk, si, sc := keys, b.kidx, comAll
		if s.loc != 0 && b.text != nil {
			sk, si = nil, nil
			for n, k := range keys {
				if k.loc == s.loc {
					sk, si = append(sk, k), append(si, b.kidx[n])
				}
			}
			sc = comByLoc[s.loc]
		} else if s.loc != 0 {
			for next < len(keys) && keys[next].loc < s.loc {
				next++
			}
			j := next
			for j < len(keys) && keys[j].loc == s.loc {
				j++
			}
			sk, si, sc = keys[next:j], b.kidx[next:j], comByLoc[s.loc]
			next = j
		}
		var done func()
		if b.text != nil && s.loc == 0 {
			// The text's last scope: the call edges' last use, which
			// goes before the graph's analysis and its drill-down.
			done = func() { c.edges, b.keys, b.kidx, keys = nil, nil, nil, nil }
		}
		g := c.buildGraph(sk, si, done)
		g.com = make(map[gEdge][2]int64)
		for _, v := range sc {
			x := g.com[v.e]
			g.com[v.e] = [2]int64{x[0] + v.sync, x[1] + v.tran}
		}
		if b.text == nil {
			f.Proc = append(f.Proc, ScopeValue[[]Proc]{s.name, g.procs(nm)})
			f.Groups = append(f.Groups, ScopeValue[[]Group]{s.name, g.groupRecords(nm)})
		}
		tree := g.drill(nm, c.opts.MaxDrillDepth)
		f.DrillDown = append(f.DrillDown, ScopeValue[DrillTree]{s.name, tree})
		f.HotPath = append(f.HotPath, ScopeValue[[]HotStep]{s.name, hotPath(tree)})
	}
}

// loops fills Loops: the calls of loop regions, per location.
func (b *finalizer) loops() {
	c, nm, f, keys := b.c, b.nm, b.f, b.keys
	type lk struct {
		loc model.LocID
		r   model.RegionID
	}
	loops := make(map[lk]*Loop)
	for n, k := range keys {
		if nm.kind(k.callee) != model.RegionLoop {
			continue
		}
		e := c.edges[b.kidx[n]]
		l := loops[lk{k.loc, k.callee}]
		if l == nil {
			reg, _ := c.defs.Region(k.callee)
			l = &Loop{LocID: k.loc, Loc: nm.loc(k.loc), RegionID: k.callee, Loop: nm.region(k.callee), Line: reg.Line}
			loops[lk{k.loc, k.callee}] = l
		}
		l.LoopTime += model.Time(e.incl)
		l.LoopNum += e.count
	}
	for _, k := range slices.SortedFunc(maps.Keys(loops), func(x, y lk) int {
		return cmp.Or(cmp.Compare(x.loc, y.loc), cmp.Compare(x.r, y.r))
	}) {
		f.Loops = append(f.Loops, *loops[k])
	}
}

// com fills Com: the messages per location, call site, operation, peer
// and direction.
func (b *finalizer) com() {
	c, nm, f := b.c, b.nm, b.f
	for _, k := range slices.SortedFunc(maps.Keys(c.comm.com), func(x, y comKey) int {
		return cmp.Or(cmp.Compare(x.loc, y.loc), cmp.Compare(x.caller, y.caller), cmp.Compare(x.site, y.site),
			cmp.Compare(x.op, y.op), cmp.Compare(x.peer, y.peer), cmp.Compare(x.dir, y.dir))
	}) {
		s := c.comm.com[k]
		f.Com = append(f.Com, Com{
			LocID: k.loc, Loc: nm.loc(k.loc), CallerID: k.caller, Caller: nm.region(k.caller), SiteID: k.site, Site: nm.site(k.site),
			OpID: k.op, Op: nm.region(k.op), PeerID: k.peer, Peer: nm.loc(k.peer), Dir: k.dir.String(),
			Count: s.count, Bytes: s.bytes, SyncDelay: model.Time(s.sync), TransTime: model.Time(s.trans), Matched: s.matched,
		})
	}
}

func cmpPair(x, y pairKey) int {
	return cmp.Or(cmp.Compare(x.sender, y.sender), cmp.Compare(x.receiver, y.receiver))
}

// transfers fills TransferTime, per (sender, receiver).
func (b *finalizer) transfers() {
	c, nm, f := b.c, b.nm, b.f
	for _, k := range slices.SortedFunc(maps.Keys(c.comm.transfer), cmpPair) {
		s := c.comm.transfer[k]
		if s.n == 0 && s.backward == 0 {
			continue
		}
		f.TransferTime = append(f.TransferTime, Transfer{SenderID: k.sender, Sender: nm.loc(k.sender), ReceiverID: k.receiver, Receiver: nm.loc(k.receiver), Sum: model.Time(s.sum), N: s.n, Backward: s.backward})
	}
}

// matrix is a communication matrix (MatrixSend, MatrixRecv) from its
// (sender, receiver) statistics.
func (b *finalizer) matrix(m map[pairKey]*pairStat) []MatrixEntry {
	nm := b.nm
	var out []MatrixEntry
	for _, k := range slices.SortedFunc(maps.Keys(m), cmpPair) {
		s := m[k]
		if s.count == 0 {
			continue
		}
		out = append(out, MatrixEntry{SenderID: k.sender, Sender: nm.loc(k.sender), ReceiverID: k.receiver, Receiver: nm.loc(k.receiver), Count: s.count, Bytes: s.bytes})
	}
	return out
}

// sizeHistogram fills SizeHistogram: messages by power-of-two size bin.
func (b *finalizer) sizeHistogram() {
	c, f := b.c, b.f
	for i, h := range c.comm.hist {
		if h.count == 0 {
			continue
		}
		b := SizeBin{Bin: i, Count: h.count, Bytes: h.bytes}
		if i > 0 {
			b.Lo, b.Hi = int64(1)<<(i-1), int64(1)<<(i-1)+(int64(1)<<(i-1)-1)
		}
		f.SizeHistogram = append(f.SizeHistogram, b)
	}
}

// imbalances fills Imbalance: per region, over all seen locations (absent
// = 0).
func (b *finalizer) imbalances() {
	c, nm, f, seen := b.c, b.nm, b.f, b.seen
	// A statistic per region, accumulated over the seen locations in
	// their order, one metric at a time: a table by region id rather than
	// the values of every (location, region), of which a trace of many
	// locations has millions.
	acc := make([]imbAcc, c.defs.NumRegions()+1)
	each := func(do func(r model.RegionID, pos int, fs *funcStat)) {
		for i, l := range seen {
			c.locs[l].funcs.each(func(r model.RegionID, fs *funcStat) {
				if fs.visits > 0 || fs.closed > 0 {
					do(r, i, fs)
				}
			})
		}
	}
	metric := func(v func(fs *funcStat) int64, set func(im *Imbalance, s ImbalanceStat)) {
		for r := range acc {
			acc[r] = newImbAcc()
		}
		each(func(r model.RegionID, pos int, fs *funcStat) {
			for int(r) >= len(acc) {
				acc = append(acc, newImbAcc())
			}
			acc[r].add(pos, v(fs))
		})
		n := len(seen)
		each(func(r model.RegionID, pos int, fs *funcStat) {
			acc[r].square(v(fs), acc[r].mean(n))
		})
		rows := 0
		for r := range acc {
			if acc[r].n > 0 {
				rows++
			}
		}
		if b.text != nil {
			// What the text prints, without the rows of Imbalance.
			f.Imbalance = Imbalances{}
			f.textImb = make([]textImb, 0, rows)
			for r := range acc {
				if acc[r].n == 0 {
					continue
				}
				s, ratio, _, ok := acc[r].values(seen, c.defs)
				f.textImb = append(f.textImb, textImb{region: nm.region(model.RegionID(r)), max: s.Max, mean: s.Mean, cov: s.COV, lost: s.Lost,
					ratio: ratio, hasRatio: ok, argMax: s.ArgMaxLoc})
			}
			return
		}
		if f.Imbalance == nil {
			f.Imbalance = make(Imbalances, 0, rows)
			for r := range acc {
				if acc[r].n > 0 {
					f.Imbalance = append(f.Imbalance, Imbalance{RegionID: model.RegionID(r), Region: nm.region(model.RegionID(r))})
				}
			}
		}
		for i := range f.Imbalance {
			im := &f.Imbalance[i]
			set(im, acc[im.RegionID].stat(seen, c.defs))
		}
	}
	metric(func(fs *funcStat) int64 { return fs.excl }, func(im *Imbalance, s ImbalanceStat) { im.Excl = s })
	if b.text == nil { // the text prints the exclusive time's only
		metric(func(fs *funcStat) int64 { return fs.incl }, func(im *Imbalance, s ImbalanceStat) { im.Incl = s })
		metric(func(fs *funcStat) int64 { return fs.visits }, func(im *Imbalance, s ImbalanceStat) { im.Visits = s })
	}
}

// idle fills Idle: the time in the idle regions, per location.
func (b *finalizer) idle() {
	c, nm, f := b.c, b.nm, b.f
	if len(c.opts.IdleRegions) == 0 {
		return
	}
	for _, l := range b.seen {
		var idle int64
		for _, r := range c.opts.IdleRegions {
			if fs := c.locs[l].funcs.find(r); fs != nil {
				idle += fs.incl
			}
		}
		f.Idle = append(f.Idle, Idle{LocID: l, Loc: nm.loc(l), Idle: model.Time(idle)})
	}
}

// collectives fills Collectives: the instances, in a fixed order, at most
// MaxCollectiveInstances of them.
func (b *finalizer) collectives() {
	c, nm, f := b.c, b.nm, b.f
	inst := slices.Clone(c.coll.instances)
	slices.SortFunc(inst, func(x, y CollectiveInstance) int {
		bx, by := 0, 0
		if x.bySeq {
			bx = 1
		}
		if y.bySeq {
			by = 1
		}
		return cmp.Or(cmp.Compare(x.CommID, y.CommID), cmp.Compare(bx, by), cmp.Compare(x.Instance, y.Instance), cmp.Compare(x.LocID, y.LocID),
			cmp.Compare(x.RegionID, y.RegionID), cmp.Compare(x.Duration, y.Duration), cmp.Compare(x.Wait, y.Wait), cmp.Compare(x.Sent, y.Sent), cmp.Compare(x.Recvd, y.Recvd))
	})
	if c.opts.MaxCollectiveInstances >= 0 && len(inst) > c.opts.MaxCollectiveInstances {
		inst = inst[:c.opts.MaxCollectiveInstances]
	}
	for i := range inst {
		inst[i].Comm = nm.comm(inst[i].CommID)
		inst[i].Loc = nm.loc(inst[i].LocID)
		inst[i].Op = nm.region(inst[i].RegionID)
	}
	f.Collectives = append([]CollectiveInstance{}, inst...)
}

// collectiveSums fills CollectiveSums, per location, region and site.
func (b *finalizer) collectiveSums() {
	c, nm, f := b.c, b.nm, b.f
	for _, k := range slices.SortedFunc(maps.Keys(c.coll.stats), func(x, y collStatKey) int {
		return cmp.Or(cmp.Compare(x.loc, y.loc), cmp.Compare(x.region, y.region), cmp.Compare(x.site, y.site))
	}) {
		s := c.coll.stats[k]
		f.CollectiveSums = append(f.CollectiveSums, CollectiveSum{LocID: k.loc, Loc: nm.loc(k.loc), RegionID: k.region, Op: nm.region(k.region),
			SiteID: k.site, Site: nm.site(k.site), Count: s.count, Duration: model.Time(s.duration), Wait: model.Time(s.wait), Sent: s.sent, Recvd: s.recvd})
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// graph is the call graph of one scope with its recursion groups. Every
// table is built in one pass over the edges, so a graph costs time and
// memory proportional to its edges and nodes; its tables are slices
// indexed by edge or node position, not maps, as a scope of many
// locations has about as many regions.
type graph struct {
	keys    []gEdge            // sorted
	stats   []gStat            // per key: (caller, site, callee) summed over the scope
	nodes   []model.RegionID   // sorted
	group   []int32            // per node: its group
	groups  [][]model.RegionID // members sorted by id; groups sorted by first member
	names   map[int]string     // groupName cache
	selfArc []bool             // per group
	totals  [][4]int64         // per group: external calls, recursive calls, Incl, Excl
	out     map[int][]int      // per caller group (-1: the root): indexes into keys of its external edges
	com     map[gEdge][2]int64 // COM sync and trans per (caller, site, op)
	kids    map[int][]DrillCall
}

// A gStat is what the graph sums of an edge's statistics over locations.
type gStat struct{ count, incl, excl int64 }

type gEdge struct {
	caller model.RegionID
	site   model.SiteID
	callee model.RegionID
}

func cmpGEdge(x, y gEdge) int {
	return cmp.Or(cmp.Compare(x.caller, y.caller), cmp.Compare(x.site, y.site), cmp.Compare(x.callee, y.callee))
}

// buildGraph sums the edges of keys (one scope) over locations; idx
// holds each key's edge. Once they are summed, before the graph's
// analysis, it calls done, if not nil: the caller may let the keys and
// the edges go.
func (a *Accumulator) buildGraph(keys []edgeKey, idx []int32, done func()) *graph {
	g := &graph{}
	// Sorted by (caller, site, callee), the keys of one edge summed over
	// locations are a run: no index of the edges by key, which for the
	// scope of all locations of a large run has millions.
	type keyed struct {
		e gEdge
		i int32
	}
	all := make([]keyed, len(keys))
	runs := 0
	for n, k := range keys {
		all[n] = keyed{gEdge{k.caller, k.site, k.callee}, idx[n]}
	}
	slices.SortFunc(all, func(x, y keyed) int { return cmpGEdge(x.e, y.e) })
	for n := range all {
		if n == 0 || all[n].e != all[n-1].e {
			runs++
		}
	}
	g.keys, g.stats = make([]gEdge, 0, runs), make([]gStat, 0, runs)
	for n := range all {
		k := all[n].e
		if n == 0 || k != all[n-1].e {
			g.keys = append(g.keys, k)
			g.stats = append(g.stats, gStat{})
			if k.caller != 0 {
				g.nodes = append(g.nodes, k.caller)
			}
			g.nodes = append(g.nodes, k.callee)
		}
		e := &a.edges[all[n].i]
		s := &g.stats[len(g.stats)-1]
		s.count += e.count
		s.incl += e.incl
		s.excl += e.excl
	}
	all = nil
	if done != nil {
		done()
	}
	slices.Sort(g.nodes)
	g.nodes = slices.Clip(slices.Compact(g.nodes))
	g.tarjan()
	g.tally()
	return g
}

// node returns the position of region r in g.nodes.
func (g *graph) node(r model.RegionID) int {
	i, _ := slices.BinarySearch(g.nodes, r)
	return i
}

// tally computes every group's totals and external out-edges in one pass.
func (g *graph) tally() {
	g.names = make(map[int]string)
	g.totals = make([][4]int64, len(g.groups))
	g.out = make(map[int][]int)
	outIncl := make([]int64, len(g.groups))
	for i, e := range g.keys {
		cg, eg := g.groupOf(e.caller), g.groupOf(e.callee)
		s := &g.stats[i]
		t := &g.totals[eg]
		if cg == eg {
			t[1] += s.count
			continue
		}
		t[0] += s.count
		t[2] += s.incl
		if cg >= 0 {
			outIncl[cg] += s.incl
		}
		g.out[cg] = append(g.out[cg], i)
	}
	for i := range g.totals {
		g.totals[i][3] = g.totals[i][2] - outIncl[i]
	}
}

// tarjan finds the strongly connected components (iteratively, so deep call
// graphs cannot overflow the stack), over node positions.
func (g *graph) tarjan() {
	n := len(g.nodes)
	// The callees of each node: keys are sorted by caller, so node v's
	// edges are keys[first[v]:first[v+1]] (the root's, caller 0, come
	// before every node's and are not edges of the graph).
	first := make([]int32, n+1)
	adj := make([]int32, 0, len(g.keys))
	k := 0
	for k < len(g.keys) && g.keys[k].caller == 0 {
		k++
	}
	for v := range n {
		first[v] = int32(len(adj))
		for ; k < len(g.keys) && g.keys[k].caller == g.nodes[v]; k++ {
			adj = append(adj, int32(g.node(g.keys[k].callee)))
		}
	}
	first[n] = int32(len(adj))
	const unvisited = -1
	index := make([]int32, n)
	low := make([]int32, n)
	onStack := make([]bool, n)
	for v := range index {
		index[v] = unvisited
	}
	var stack []int32
	var next int32
	// Every node is in one group: the groups' members are runs of one
	// array, and there are at most as many groups as nodes.
	members := make([]model.RegionID, 0, n)
	g.groups = make([][]model.RegionID, 0, n)
	type item struct {
		v int32
		i int32
	}
	var work []item
	for root := range int32(n) {
		if index[root] != unvisited {
			continue
		}
		work = append(work[:0], item{root, first[root]})
		index[root], low[root] = next, next
		next++
		stack = append(stack, root)
		onStack[root] = true
		for len(work) > 0 {
			top := &work[len(work)-1]
			v := top.v
			if top.i < first[v+1] {
				w := adj[top.i]
				top.i++
				if index[w] == unvisited {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					work = append(work, item{w, first[w]})
				} else if onStack[w] {
					low[v] = min(low[v], index[w])
				}
				continue
			}
			work = work[:len(work)-1]
			if len(work) > 0 {
				u := work[len(work)-1].v
				low[u] = min(low[u], low[v])
			}
			if low[v] == index[v] {
				start := len(members)
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					members = append(members, g.nodes[w])
					if w == v {
						break
					}
				}
				comp := members[start:len(members):len(members)]
				slices.Sort(comp)
				g.groups = append(g.groups, comp)
			}
		}
	}
	slices.SortFunc(g.groups, func(x, y []model.RegionID) int { return cmp.Compare(x[0], y[0]) })
	g.group = make([]int32, n)
	for i, comp := range g.groups {
		for _, r := range comp {
			g.group[g.node(r)] = int32(i)
		}
	}
	g.selfArc = make([]bool, len(g.groups))
	for _, e := range g.keys {
		if e.caller != 0 && e.caller == e.callee {
			g.selfArc[g.groupOf(e.caller)] = true
		}
	}
}

func (g *graph) groupOf(r model.RegionID) int {
	if r == 0 {
		return -1
	}
	return int(g.group[g.node(r)])
}

func (g *graph) groupName(i int, nm namer) string {
	if n, ok := g.names[i]; ok {
		return n
	}
	names := make([]string, len(g.groups[i]))
	for j, r := range g.groups[i] {
		names[j] = nm.region(r)
	}
	g.names[i] = strings.Join(names, "+")
	return g.names[i]
}

func (g *graph) procs(nm namer) []Proc {
	out := make([]Proc, 0, len(g.keys)) // at most a row per edge; sized, not grown by copies
	for i, e := range g.keys {
		gi := g.groupOf(e.callee)
		if g.groupOf(e.caller) == gi {
			continue
		}
		s := &g.stats[i]
		out = append(out, Proc{Procedure: g.groupName(gi, nm), CallerID: e.caller, Caller: nm.region(e.caller), SiteID: e.site,
			Site: nm.site(e.site), CalleeID: e.callee, Callee: nm.region(e.callee), ProcTime: model.Time(s.incl), ProcNum: s.count})
	}
	slices.SortStableFunc(out, func(x, y Proc) int {
		return cmp.Compare(g.groups[g.groupOf(x.CalleeID)][0], g.groups[g.groupOf(y.CalleeID)][0])
	})
	return out
}

// groupTotals returns a group's external calls, recursive calls, Incl and Excl.
func (g *graph) groupTotals(gi int) (ext, rec, incl, excl int64) {
	t := g.totals[gi]
	return t[0], t[1], t[2], t[3]
}

func (g *graph) groupRecords(nm namer) []Group {
	out := make([]Group, 0, len(g.groups))
	for i, comp := range g.groups {
		ext, rec, incl, excl := g.groupTotals(i)
		names := make([]string, len(comp))
		for j, r := range comp {
			names[j] = nm.region(r)
		}
		out = append(out, Group{MemberIDs: comp, Members: names, Recursive: len(comp) > 1 || g.selfArc[i],
			ExternalCalls: ext, RecursiveCalls: rec, Incl: model.Time(incl), Excl: model.Time(excl)})
	}
	return out
}

// children returns the outgoing external edges of group gi (-1: the root),
// aggregated by (site, callee) and ranked by Incl. The root's, asked
// once per tree, are not kept; a group's are, as the drill-down may
// expand a group on several paths.
func (g *graph) children(gi int, nm namer) []DrillCall {
	if k, ok := g.kids[gi]; ok {
		return slices.Clone(k)
	}
	type sc struct {
		site   model.SiteID
		callee model.RegionID
	}
	// The edges of one caller have distinct (site, callee): only a group
	// of several callers (recursion) needs an index to sum its edges, not
	// the root, whose calls a trace of many locations has millions of.
	var at map[sc]int
	if gi >= 0 && len(g.groups[gi]) > 1 {
		at = make(map[sc]int, len(g.out[gi]))
	}
	out := make([]DrillCall, 0, len(g.out[gi])) // at most a call per edge; sized, not grown by copies
	for _, i := range g.out[gi] {
		e := g.keys[i]
		k := sc{e.site, e.callee}
		j, ok := len(out), false
		if at != nil {
			j, ok = at[k]
		}
		if !ok {
			j = len(out)
			if at != nil {
				at[k] = j
			}
			out = append(out, DrillCall{SiteID: e.site, Site: nm.site(e.site), CalleeID: e.callee, Callee: nm.region(e.callee), Kind: nm.kind(e.callee).String()})
		}
		d, s := &out[j], &g.stats[i]
		d.Incl += model.Time(s.incl)
		d.Count += s.count
		if v, ok := g.com[e]; ok {
			d.SyncDelay += model.Time(v[0])
			d.TransTime += model.Time(v[1])
			d.hasCom = true
		}
	}
	out = slices.Clip(out)
	slices.SortFunc(out, func(x, y DrillCall) int {
		return cmp.Or(cmp.Compare(y.Incl, x.Incl), cmp.Compare(x.SiteID, y.SiteID), cmp.Compare(x.CalleeID, y.CalleeID))
	})
	if gi < 0 {
		return out
	}
	if g.kids == nil {
		g.kids = make(map[int][]DrillCall)
	}
	g.kids[gi] = out
	return slices.Clone(out)
}

func (g *graph) drill(nm namer, maxDepth int) DrillTree {
	onPath := make(map[int]bool)
	budget := maxDrillNodes
	var expand func(calls []DrillCall, depth int)
	expand = func(calls []DrillCall, depth int) {
		for i := range calls {
			gi := g.groupOf(calls[i].CalleeID)
			if onPath[gi] || depth >= maxDepth || budget <= 0 {
				continue
			}
			_, _, incl, excl := g.groupTotals(gi)
			body := &DrillBody{Calls: g.children(gi, nm), Group: g.groupName(gi, nm), Incl: model.Time(incl), Excl: model.Time(excl)}
			budget -= 1 + len(body.Calls)
			calls[i].Body = body
			onPath[gi] = true
			expand(body.Calls, depth+1)
			onPath[gi] = false
		}
	}
	roots := g.children(-1, nm)
	expand(roots, 0)
	return DrillTree{Calls: roots}
}

// maxDrillNodes bounds the size of a drill-down tree, which grows with the
// number of call paths: no node is expanded once the expanded nodes and the
// calls listed in their bodies number this many.
const maxDrillNodes = 20000

// hotPath follows the first child from the first root while the node's own
// Excl is below that child's Incl (doc/stats.md §8).
func hotPath(t DrillTree) []HotStep {
	out := []HotStep{}
	if len(t.Calls) == 0 {
		return out
	}
	c := &t.Calls[0]
	for {
		out = append(out, HotStep{Site: c.Site, CalleeID: c.CalleeID, Callee: c.Callee, Incl: c.Incl})
		b := c.Body
		if b == nil || len(b.Calls) == 0 {
			return out
		}
		next := &b.Calls[0]
		if b.Excl >= next.Incl || next.Body == nil {
			return out
		}
		c = next
	}
}

// siteImbalance computes the imbalance of call-site edges (Incl), COM
// statements (SyncDelay summed over peers and directions) and collective
// calls (Wait) over the seen locations.
func (a *Accumulator) siteImbalance(seen []model.LocID, keys []edgeKey, kidx []int32, f *Final) []SiteImbalance {
	nm := namer{a.defs}
	pos := make(map[model.LocID]int, len(seen))
	for i, l := range seen {
		pos[l] = i
	}
	type sk struct {
		kind   int
		caller model.RegionID
		site   model.SiteID
		callee model.RegionID
	}
	// Each table is sorted by location first, so a key's values come in
	// the order of seen.
	vals := make(map[sk][]locVal)
	var order []sk
	add := func(k sk, l model.LocID, v int64) {
		x, ok := vals[k]
		if !ok {
			order = append(order, k)
		}
		if p := pos[l]; len(x) > 0 && x[len(x)-1].pos == p {
			x[len(x)-1].v += v
		} else {
			x = append(x, locVal{p, v})
		}
		vals[k] = x
	}
	for n, k := range keys {
		add(sk{0, k.caller, k.site, k.callee}, k.loc, a.edges[kidx[n]].incl)
	}
	for _, c := range f.Com {
		add(sk{1, c.CallerID, c.SiteID, c.OpID}, c.LocID, int64(c.SyncDelay))
	}
	for _, c := range f.CollectiveSums {
		add(sk{2, 0, c.SiteID, c.RegionID}, c.LocID, int64(c.Wait))
	}
	slices.SortFunc(order, func(x, y sk) int {
		return cmp.Or(cmp.Compare(x.kind, y.kind), cmp.Compare(x.caller, y.caller), cmp.Compare(x.site, y.site), cmp.Compare(x.callee, y.callee))
	})
	kinds := [...]string{"call", "com", "collective"}
	metrics := [...]string{"incl", "sync_delay", "wait"}
	out := make([]SiteImbalance, 0, len(order)) // sized: a row per key of a run of many locations
	for _, k := range order {
		s := SiteImbalance{Kind: kinds[k.kind], CallerID: k.caller, Caller: nm.region(k.caller), SiteID: k.site, Site: nm.site(k.site),
			CalleeID: k.callee, Callee: nm.region(k.callee), Metric: metrics[k.kind], Stat: imbalance(vals[k], seen, a.defs)}
		if k.kind == 2 {
			s.Caller = ""
		}
		out = append(out, s)
	}
	return out
}
