package waitstate

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/hpctrace/hpctrace/model"
)

// This file holds the completion waits of MPI-3 non-blocking collectives
// (doc/waitstates.md §2.6), which Scalasca does not analyse: the log
// entries of CollPost and CollDone events and the patterns wait_ibarrier,
// wait_inxn, late_ibroadcast, early_ireduce and early_iscan.

// icollRec is one CollPost or CollDone of a location's log, in stream
// order.
type icollRec struct {
	call   int32 // the outermost open MPI call
	done   bool  // a CollDone; else a CollPost
	match  uint64
	comm   model.CommID
	root   model.LocID
	region model.RegionID
	class  model.Class
	recvd  int64
}

// icoll logs a CollPost or CollDone. One outside every MPI call is
// counted in Diagnostics.OutsideCall and takes no part.
func (a *Analyzer) icoll(l *locLog, ev *model.Event) {
	call := l.innerCall()
	if call < 0 {
		a.diag.OutsideCall++
		return
	}
	if ev.Match == 0 {
		return // no request: nothing ties the two
	}
	m := l.mpi()
	m.icolls = push(m.icolls, icollRec{call: call, done: ev.Kind == model.KindCollDone, match: ev.Match, comm: ev.Comm,
		root: ev.Peer, region: ev.Region, class: ev.Class, recvd: ev.Recvd})
}

// icollOp returns the operation of a non-blocking collective's name
// (MPI_Iallreduce is N×N as MPI_Allreduce is), opNone for a name of no
// non-blocking collective the patterns cover.
func icollOp(name string) uint8 {
	rest, ok := strings.CutPrefix(strings.ToLower(name), "mpi_i")
	if !ok {
		return opNone
	}
	switch op := mpiOps["mpi_"+rest]; op {
	case opBarrier, opNxN, opBcast, opReduce, opScan:
		return op
	}
	return opNone
}

// icollMember is one location's part in a non-blocking collective
// instance: the call that started it and the call that completed it.
type icollMember struct {
	loc         model.LocID
	start, done int32
	root        model.LocID
	recvd       int64
	op          uint8
	ord         int32 // the CollDone's index in the location's log (event order within a call)
}

type icollKey struct {
	comm model.CommID
	self model.LocID // the location, on a Self communicator
	n    uint64      // the location's sequence number on comm
}

// icollOpOf returns the operation of a started non-blocking collective:
// by its starting call's name, else the region of its CollDone or
// CollPost, else its class; opNone when none says.
func (f *fin) icollOpOf(l *locLog, start int32, regions []model.RegionID, class model.Class) uint8 {
	if r, ok := f.defs.Region(f.a.nodes[l.calls[start].cp].region); ok {
		if op := icollOp(r.Name); op != opNone {
			return op
		}
	}
	for _, id := range regions {
		if r, ok := f.defs.Region(id); ok && id != 0 {
			if op := icollOp(r.Name); op != opNone {
				return op
			}
		}
	}
	switch class {
	case model.ClassBarrier:
		return opBarrier
	case model.ClassAllToAll:
		return opNxN
	case model.ClassOneToAll:
		return opBcast
	case model.ClassAllToOne:
		return opReduce
	}
	return opNone
}

// icollectives forms the non-blocking collective instances (doc/waitstates.md
// §2.6) and adds their wait states: one per completion call, the
// largest over the collectives it completes, none for a call that has a
// late_sender instance or is an MPI_Test*.
func (f *fin) icollectives() {
	insts := map[icollKey][]icollMember{}
	for li := range f.locs {
		l := &f.locs[li]
		if len(l.icolls) == 0 {
			continue
		}
		loc := model.LocID(li)
		type started struct {
			post int32 // log index of the CollPost, -1 for a CollDone never posted
			done int32 // log index of the CollDone, -1 while none
		}
		var order []started
		open := map[uint64]int{} // request → its latest start not yet completed
		for i := range l.icolls {
			r := &l.icolls[i]
			if !r.done {
				open[r.match] = len(order)
				order = append(order, started{post: int32(i), done: -1})
				continue
			}
			if k, ok := open[r.match]; ok {
				order[k].done = int32(i)
				delete(open, r.match)
				continue
			}
			order = append(order, started{post: -1, done: int32(i)})
		}
		seq := map[model.CommID]uint64{}
		for _, s := range order {
			if s.done < 0 {
				f.diag.IncompleteColls++ // started, never completed in the trace
				continue
			}
			d := &l.icolls[s.done]
			start, comm, root, class, recvd := d.call, d.comm, d.root, d.class, d.recvd
			regions := []model.RegionID{d.region}
			if s.post >= 0 {
				p := &l.icolls[s.post]
				start = p.call
				regions = append(regions, p.region)
				if comm == 0 {
					comm = p.comm
				}
				if root == 0 {
					root = p.root
				}
				if class == model.ClassUnknown {
					class = p.class
				}
			}
			seq[comm]++
			op := f.icollOpOf(l, start, regions, class)
			if op == opNone {
				continue
			}
			k := icollKey{comm: comm, n: seq[comm]}
			if cm, ok := f.defs.Comm(comm); ok && cm.Self {
				k.self = loc
			}
			insts[k] = append(insts[k], icollMember{loc: loc, start: start, done: d.call, root: root, recvd: recvd, op: op, ord: s.done})
		}
	}
	if len(insts) == 0 {
		return
	}
	keys := make([]icollKey, 0, len(insts))
	for k := range insts {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y icollKey) int {
		return cmp.Or(cmp.Compare(x.comm, y.comm), cmp.Compare(x.self, y.self), cmp.Compare(x.n, y.n))
	})
	// the candidates of each completion call: (loc, call) → best so far
	type callKey struct {
		loc  model.LocID
		call int32
	}
	type cand struct {
		in  inst
		ord int32
	}
	best := map[callKey]cand{}
	var calls []callKey
	for _, k := range keys {
		f.icollective(k, insts[k], func(in inst, ord int32) {
			ck := callKey{in.loc, in.call}
			b, ok := best[ck]
			if !ok {
				calls = append(calls, ck)
			}
			if !ok || in.w > b.in.w || (in.w == b.in.w && ord < b.ord) {
				best[ck] = cand{in, ord}
			}
		})
	}
	hasLS := map[callKey]bool{}
	for i := range f.insts {
		if in := &f.insts[i]; in.pat == LateSender {
			hasLS[callKey{in.loc, in.call}] = true
		}
	}
	slices.SortFunc(calls, func(x, y callKey) int { return cmp.Or(cmp.Compare(x.loc, y.loc), cmp.Compare(x.call, y.call)) })
	for _, ck := range calls {
		if !hasLS[ck] {
			f.insts = append(f.insts, best[ck].in)
		}
	}
}

// icollective evaluates one non-blocking collective instance (members by
// location) and passes each member's wait, if > 0, to add with the
// CollDone's log index.
func (f *fin) icollective(k icollKey, ms []icollMember, add func(in inst, ord int32)) {
	for _, m := range ms {
		if f.call(m.loc, m.start).open || f.call(m.loc, m.done).open {
			f.diag.IncompleteColls++ // a call never left: not analysed
			return
		}
	}
	cm, ok := f.defs.Comm(k.comm)
	known := ok && (cm.Self || len(cm.Members) > 0)
	if !known {
		f.diag.UnknownComm += int64(len(ms))
	} else if !cm.Self && len(ms) < len(cm.Members)+len(cm.Remote) {
		f.diag.IncompleteColls++
	}
	S := func(m icollMember) model.Time { return f.call(m.loc, m.start).enter }
	wait := func(p Pattern, m icollMember, until model.Time, d icollMember, hasD bool) {
		c := f.call(m.loc, m.done)
		if c.op == opTest {
			return
		}
		v := min(until, c.leave) - c.enter
		if v <= 0 {
			return
		}
		if until > c.leave {
			f.diag.ClockViolations++
		}
		in := inst{pat: p, loc: m.loc, call: m.done, w: v, dcall: -1}
		if hasD {
			in.dloc, in.dcall = d.loc, d.start
		}
		add(in, m.ord)
	}
	late := 0
	for i, m := range ms {
		if S(m) > S(ms[late]) {
			late = i
		}
	}
	latestS := S(ms[late])
	var root model.LocID
	for _, m := range ms {
		if m.root != 0 {
			root = m.root
			break
		}
	}
	ri := -1
	for i, m := range ms {
		if root != 0 && m.loc == root {
			ri = i
		}
	}
	switch op := ms[0].op; op {
	case opBarrier, opNxN:
		p := WaitIBarrier
		if op == opNxN {
			p = WaitINxN
		}
		for _, m := range ms {
			if op == opNxN && m.recvd == 0 {
				continue
			}
			wait(p, m, latestS, ms[late], true)
		}
	case opBcast:
		if ri < 0 {
			return
		}
		for i, m := range ms {
			if i != ri && m.recvd != 0 {
				wait(LateIBroadcast, m, S(ms[ri]), ms[ri], true)
			}
		}
	case opReduce:
		if ri < 0 || ms[ri].recvd == 0 || len(ms) < 2 {
			return
		}
		first := model.Time(math.MaxInt64)
		for i, m := range ms {
			if i != ri {
				first = min(first, S(m))
			}
		}
		wait(EarlyIReduce, ms[ri], first, icollMember{}, false)
	case opScan:
		if !known || cm.Self || len(cm.Remote) > 0 {
			return
		}
		rank := map[model.LocID]int{}
		for r, l := range cm.Members {
			if _, dup := rank[l]; !dup {
				rank[l] = r
			}
		}
		type rm struct{ rank, i int }
		var byRank []rm
		for i, m := range ms {
			if r, ok := rank[m.loc]; ok {
				byRank = append(byRank, rm{r, i})
			}
		}
		slices.SortFunc(byRank, func(x, y rm) int { return cmp.Compare(x.rank, y.rank) })
		bi := -1
		for _, x := range byRank {
			m := ms[x.i]
			if x.rank > 0 && bi >= 0 {
				wait(EarlyIScan, m, S(ms[bi]), ms[bi], true)
			}
			if bi < 0 || S(m) > S(ms[bi]) || (S(m) == S(ms[bi]) && m.loc < ms[bi].loc) {
				bi = x.i
			}
		}
	}
}
