package waitstate

// The reference implementation: a slow, literal reading of
// doc/waitstates.md over a whole trace held in memory. It favours clarity
// over speed (the loops are quadratic and worse) and exists only to check
// the streaming analysis, the hand cases and the formats against. Every
// formula carries the number of the section that defines it.

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/hpctrace/hpctrace/model"
)

// refKeep is the number of late-sender instances per location that the
// wrong-order check keeps (§2.1).
const refKeep = 100

// refCall is one MPI call instance (§1).
type refCall struct {
	loc          model.LocID
	region       model.RegionID
	name         string // region name
	path         string // call path: outermost open region … this call, "/"-joined
	enter, leave model.Time
	seq          int  // position on its location (order of the Enters)
	nested       bool // entered inside another open MPI call

	recvs []refEnd // messages this call completes as a receive, in event order
	sends []refEnd // messages this call completes as a send, in event order
}

// refEnd is one message end held by a call: the message and the
// position of the event in its location's stream.
type refEnd struct {
	msg int
	seq int
}

// refMsg is one matched message (§1, stats.md §5.2). Call fields are
// indexes into refTrace.calls, -1 where no MPI call holds the event.
type refMsg struct {
	sender, receiver model.LocID
	send, sendDone   int // send call, send-completion call
	post, recv       int // posting call, receive-completion call
}

// refColl is one collective instance (§1, stats.md §5.6) or the
// Init/Finalize instance.
type refColl struct {
	op      refOp
	comm    model.CommID
	members []refMember // in order of location id
}

type refMember struct {
	loc   model.LocID
	call  int
	root  model.LocID // CollBegin.Peer (0 = none)
	recvd int64
}

// refOp is the operation of a collective instance (§2.2).
type refOp uint8

const (
	refOpNone     refOp = iota // not analysed
	refOpBarrier               // MPI_Barrier, PICL sync0
	refOpNxN                   // Allreduce, Allgather(v), Alltoall(v,w), Reduce_scatter(_block)
	refOpBcast                 // Bcast, Scatter(v)
	refOpReduce                // Reduce, Gather(v)
	refOpScan                  // Scan, Exscan
	refOpInit                  // MPI_Init(_thread)
	refOpFinalize              // MPI_Finalize
)

// refOpByName is the table of §2.2 by lower-case MPI function name.
var refOpByName = map[string]refOp{
	"mpi_barrier":   refOpBarrier,
	"mpi_allreduce": refOpNxN, "mpi_allgather": refOpNxN, "mpi_allgatherv": refOpNxN,
	"mpi_alltoall": refOpNxN, "mpi_alltoallv": refOpNxN, "mpi_alltoallw": refOpNxN,
	"mpi_reduce_scatter": refOpNxN, "mpi_reduce_scatter_block": refOpNxN,
	"mpi_bcast": refOpBcast, "mpi_scatter": refOpBcast, "mpi_scatterv": refOpBcast,
	"mpi_reduce": refOpReduce, "mpi_gather": refOpReduce, "mpi_gatherv": refOpReduce,
	"mpi_scan": refOpScan, "mpi_exscan": refOpScan,
	"mpi_init": refOpInit, "mpi_init_thread": refOpInit, "mpi_finalize": refOpFinalize,
}

// refPiece is a stretch of a location's time during which one region
// instance is the innermost open one (exclusive time).
type refPiece struct {
	from, to model.Time
	path     string // call path of the innermost open region
	name     string // its region name
}

// refLoc is what the reference knows of one location.
type refLoc struct {
	id          model.LocID
	first, last model.Time
	pieces      []refPiece
	calls       []int // its calls in order
}

// refWait is one wait state (§3): an instance with w > 0 of a pattern of
// §3's table.
type refWait struct {
	pattern Pattern
	w       model.Time
	call    int         // the waiting call
	delayer model.LocID // 0: none (early_reduce)
	sync    int         // the delayer's sync call, -1 for none

	// §3 delay costs
	cand      []int // propagating candidates (indexes into refTrace.waits)
	excess    map[string]float64
	d, wSum   float64 // D and W
	c         float64 // propagated cost C
	processed bool
	late      bool // received cost after it was processed (order violated)
	sw        float64
	costed    bool // D + W > 0 and processed as a wait with delay costs
	propagate bool // candidate of a costed wait (§3.4)
}

// refTrace is a whole trace as the reference sees it.
type refTrace struct {
	defs  *model.Defs
	locs  map[model.LocID]*refLoc
	ids   []model.LocID // locations with events, in id order
	calls []refCall
	msgs  []refMsg
	colls []refColl
	waits []refWait

	icolls   []refIColl          // non-blocking collective instances (§2.6)
	icollIdx map[refICollKey]int // their index by key
	lsCalls  map[int]bool        // calls with a late_sender instance

	rows  map[refRowKey]*WaitState
	costs map[refRowKey]*DelayCost
}

type refRowKey struct {
	p    Pattern
	loc  model.LocID
	path string
}

// refResult is the reference's report and what the invariant tests look
// at besides it.
type refResult struct {
	report *Report
	trace  *refTrace
}

// refAnalyze computes the report of the trace with definitions defs and
// the time-merged events.
func refAnalyze(defs *model.Defs, events []model.Event) *refResult {
	t := &refTrace{defs: defs, locs: map[model.LocID]*refLoc{},
		rows: map[refRowKey]*WaitState{}, costs: map[refRowKey]*DelayCost{},
		icollIdx: map[refICollKey]int{}, lsCalls: map[int]bool{}}
	t.build(events)
	t.patterns()
	t.delays()
	r := &Report{TimeBase: defs.TimeBase}
	for _, id := range t.ids {
		l := t.locs[id]
		r.Total += l.last - l.first // §5 Total: first to last event per location
	}
	for _, c := range t.calls { // MPI: outermost MPI calls left
		if !c.nested && c.leave >= 0 {
			r.MPI += c.leave - c.enter
		}
	}
	r.WaitStates = t.waitRows()
	r.DelayCosts = t.costRows()
	r.CriticalPath, r.CriticalSegments = t.criticalPath()
	return &refResult{report: r, trace: t}
}

// regionName returns the name of region id.
func (t *refTrace) regionName(id model.RegionID) string {
	r, _ := t.defs.Region(id)
	return r.Name
}

// isMPI applies the one rule that tells MPI calls (§1, model.Region.MPI).
func (t *refTrace) isMPI(id model.RegionID) bool {
	r, ok := t.defs.Region(id)
	return ok && r.MPI()
}

// isTest reports whether a call is an MPI_Test* call, whose completions
// §2.1 does not analyse.
func isTest(name string) bool { return strings.HasPrefix(strings.ToLower(name), "mpi_test") }

// build walks every location's events (§1): region nesting, MPI calls,
// message ends, collective participations.
func (t *refTrace) build(events []model.Event) {
	byLoc := map[model.LocID][]model.Event{}
	for _, e := range events {
		if _, ok := byLoc[e.Loc]; !ok {
			t.ids = append(t.ids, e.Loc)
		}
		byLoc[e.Loc] = append(byLoc[e.Loc], e)
	}
	slices.Sort(t.ids)

	type sendEnd struct {
		loc     model.LocID
		peer    model.LocID
		tag     int32
		comm    model.CommID
		call    int
		done    int
		seq     int // of the event completing the send
		hasDone bool
	}
	type recvEnd struct {
		call, post, seq int
	}
	type channel struct {
		sender, receiver model.LocID
		tag              int32
		comm             model.CommID
	}
	sends := map[channel][]*sendEnd{}
	recvs := map[channel][]recvEnd{}
	var chanOrder []channel
	addChan := func(c channel) {
		if _, ok := sends[c]; ok {
			return
		}
		if _, ok := recvs[c]; ok {
			return
		}
		chanOrder = append(chanOrder, c)
	}

	type collKey struct {
		comm  model.CommID
		match uint64
		seq   int // per-(location, comm) sequence when match is 0
	}
	collIdx := map[collKey]int{}
	var initColl, finColl = -1, -1

	for _, id := range t.ids {
		evs := byLoc[id]
		l := &refLoc{id: id, first: evs[0].Time, last: evs[0].Time}
		t.locs[id] = l
		type frame struct {
			region model.RegionID
			path   string
			enter  model.Time
			call   int // index into t.calls, -1 for a region that is no MPI call
		}
		var stack []frame
		var pending []int // calls of this location, in Enter order
		cur := evs[0].Time
		sendReq := map[uint64]*sendEnd{} // Isends waiting for their SendDone
		posted := map[uint64]int{}       // posting call of each request posted
		collSeq := map[model.CommID]int{}
		var icEvs []refIEv   // CollPost and CollDone events (§2.6)
		call := func() int { // the outermost open MPI call, -1 if none
			for i := range stack {
				if stack[i].call >= 0 {
					return stack[i].call
				}
			}
			return -1
		}
		for seq, e := range evs {
			l.first = min(l.first, e.Time)
			l.last = max(l.last, e.Time)
			// exclusive time of the innermost open region up to this event
			if len(stack) > 0 && e.Time > cur {
				f := stack[len(stack)-1]
				l.pieces = append(l.pieces, refPiece{from: cur, to: e.Time, path: f.path, name: t.regionName(f.region)})
			}
			cur = max(cur, e.Time)
			switch e.Kind {
			case model.KindEnter:
				name := t.regionName(e.Region)
				path := name
				if len(stack) > 0 {
					path = stack[len(stack)-1].path + "/" + name
				}
				f := frame{region: e.Region, path: path, enter: e.Time, call: -1}
				if t.isMPI(e.Region) {
					f.call = len(t.calls)
					t.calls = append(t.calls, refCall{loc: id, region: e.Region, name: name, path: path,
						enter: e.Time, leave: -1, seq: len(pending), nested: call() >= 0})
					pending = append(pending, f.call)
				}
				stack = append(stack, f)
			case model.KindLeave:
				// the innermost open instance of the region ends (a Leave
				// of another region closes the innermost one: the traces
				// the tests use are well nested)
				if len(stack) == 0 {
					break
				}
				f := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if f.call >= 0 {
					t.calls[f.call].leave = e.Time
				}
			case model.KindSend:
				if e.Peer == 0 {
					break
				}
				c := call()
				s := &sendEnd{loc: id, peer: e.Peer, tag: e.Tag, comm: e.Comm, call: c, done: c, seq: seq}
				ch := channel{id, e.Peer, e.Tag, e.Comm}
				addChan(ch)
				sends[ch] = append(sends[ch], s)
				if e.Match != 0 {
					sendReq[e.Match] = s
				}
			case model.KindSendDone:
				if s, ok := sendReq[e.Match]; ok && !s.hasDone {
					s.done, s.seq, s.hasDone = call(), seq, true
					delete(sendReq, e.Match)
				}
			case model.KindRecvPost:
				posted[e.Match] = call()
			case model.KindRecv:
				if e.Peer == 0 {
					break
				}
				c := call()
				post := c // a receive never posted was posted by its own call
				if p, ok := posted[e.Match]; ok && e.Match != 0 {
					post = p
					delete(posted, e.Match)
				}
				ch := channel{e.Peer, id, e.Tag, e.Comm}
				addChan(ch)
				recvs[ch] = append(recvs[ch], recvEnd{call: c, post: post, seq: seq})
			case model.KindCollPost, model.KindCollDone:
				if c := call(); c >= 0 && e.Match != 0 {
					icEvs = append(icEvs, refIEv{ev: e, call: c, seq: seq})
				}
			case model.KindCollBegin:
				c := call()
				if c < 0 {
					break
				}
				k := collKey{comm: e.Comm, match: e.Match}
				if e.Match == 0 {
					k.seq = collSeq[e.Comm]
					collSeq[e.Comm]++
				}
				op := refOpOf(t.calls[c].name, e.Class)
				if op == refOpInit || op == refOpFinalize {
					break // the call itself is the Init/Finalize instance
				}
				i, ok := collIdx[k]
				if !ok {
					i = len(t.colls)
					collIdx[k] = i
					t.colls = append(t.colls, refColl{op: op, comm: e.Comm})
				}
				t.colls[i].members = append(t.colls[i].members, refMember{loc: id, call: c, root: e.Peer, recvd: e.Recvd})
			}
		}
		t.addICollectives(id, icEvs)
		// calls never left are not analysed
		for _, c := range pending {
			if t.calls[c].leave < 0 {
				continue
			}
			l.calls = append(l.calls, c)
			switch refOpOf(t.calls[c].name, model.ClassUnknown) {
			case refOpInit:
				initColl = t.addSpecial(initColl, refOpInit, id, c)
			case refOpFinalize:
				finColl = t.addSpecial(finColl, refOpFinalize, id, c)
			}
		}
	}
	for i := range t.colls {
		slices.SortStableFunc(t.colls[i].members, func(a, b refMember) int { return cmp.Compare(a.loc, b.loc) })
		for _, m := range t.colls[i].members {
			if t.calls[m.call].leave < 0 {
				t.colls[i].op = refOpNone // a member never left: not analysed
			}
		}
	}

	// stats.md §5.2: FIFO per channel
	valid := func(c int) int {
		if c >= 0 && t.calls[c].leave < 0 {
			return -1
		}
		return c
	}
	for _, ch := range chanOrder {
		ss, rs := sends[ch], recvs[ch]
		for i := 0; i < len(ss) && i < len(rs); i++ {
			s, r := ss[i], rs[i]
			m := len(t.msgs)
			t.msgs = append(t.msgs, refMsg{sender: ch.sender, receiver: ch.receiver,
				send: valid(s.call), sendDone: valid(s.done), post: valid(r.post), recv: valid(r.call)})
			if c := valid(s.done); c >= 0 {
				t.calls[c].sends = append(t.calls[c].sends, refEnd{msg: m, seq: s.seq})
			}
			if c := valid(r.call); c >= 0 {
				t.calls[c].recvs = append(t.calls[c].recvs, refEnd{msg: m, seq: r.seq})
			}
		}
	}
	for i := range t.calls {
		byseq := func(a, b refEnd) int { return cmp.Compare(a.seq, b.seq) }
		slices.SortFunc(t.calls[i].sends, byseq)
		slices.SortFunc(t.calls[i].recvs, byseq)
	}
}

// addSpecial adds the call c of location loc to the Init or Finalize
// instance i (creating it when i < 0; a location's first such call only)
// and returns the instance.
func (t *refTrace) addSpecial(i int, op refOp, loc model.LocID, c int) int {
	if i < 0 {
		i = len(t.colls)
		t.colls = append(t.colls, refColl{op: op})
	}
	for _, m := range t.colls[i].members {
		if m.loc == loc {
			return i
		}
	}
	t.colls[i].members = append(t.colls[i].members, refMember{loc: loc, call: c, recvd: -1})
	return i
}

// refOpOf classifies an operation (§1 Rule, §2.2): by the call's name
// when it is in the table; a call of another MPI_ name is not analysed
// (non-blocking and neighbourhood collectives, communicator constructors);
// a call of any other name by the collective's class.
func refOpOf(name string, class model.Class) refOp {
	n := strings.ToLower(name)
	if op, ok := refOpByName[n]; ok {
		return op
	}
	if strings.HasPrefix(n, "mpi_") {
		return refOpNone
	}
	switch class {
	case model.ClassBarrier:
		return refOpBarrier
	case model.ClassOneToAll:
		return refOpBcast
	case model.ClassAllToOne:
		return refOpReduce
	case model.ClassAllToAll:
		return refOpNxN
	}
	return refOpNone
}

// clampTo returns v clamped to [0, the call's duration] (§2: a value is
// counted only where > 0 and never exceeds its call).
func (t *refTrace) clampTo(v model.Time, c int) model.Time {
	return max(0, min(v, t.calls[c].leave-t.calls[c].enter))
}

// charge adds an instance of pattern p with value v on call c to the rows.
func (t *refTrace) charge(p Pattern, c int, v model.Time) {
	if v <= 0 {
		return
	}
	k := refRowKey{p, t.calls[c].loc, t.calls[c].path}
	r := t.rows[k]
	if r == nil {
		r = &WaitState{Pattern: p, Loc: k.loc, CallPath: k.path}
		t.rows[k] = r
	}
	r.Time += v
	r.Count++
}

// wait records a wait state (§3) with its delayer and sync call.
func (t *refTrace) wait(p Pattern, c int, w model.Time, delayer model.LocID, sync int) {
	if w > 0 {
		t.waits = append(t.waits, refWait{pattern: p, w: w, call: c, delayer: delayer, sync: sync})
	}
}

// patterns finds the instances of §2.
func (t *refTrace) patterns() {
	// §2.1 late_sender and late_sender_wrong_order, per location in
	// completion-call order
	lsOf := map[int]model.Time{} // late_sender value of each call
	for _, id := range t.ids {
		type kept struct {
			call    int
			ls      model.Time
			senderE model.Time // E of the latest sender's send call
			wrong   bool
		}
		var keep []*kept
		for _, c := range t.locs[id].calls {
			rc := &t.calls[c]
			if len(rc.recvs) == 0 {
				continue
			}
			// wrong order: this later call completes a message sent before
			// a kept instance's latest sender
			for _, end := range rc.recvs {
				m := t.msgs[end.msg]
				if m.send < 0 {
					continue
				}
				for _, k := range keep {
					if t.calls[m.send].enter < k.senderE {
						k.wrong = true
					}
				}
			}
			if isTest(rc.name) {
				continue
			}
			// ls = min(Es, X) − E, maximum over the messages; the first
			// message with the maximum is the latest sender
			best, sender := model.Time(0), -1
			for _, end := range rc.recvs {
				m := t.msgs[end.msg]
				if m.send < 0 {
					continue
				}
				ls := t.clampTo(min(t.calls[m.send].enter, rc.leave)-rc.enter, c)
				if sender < 0 || ls > best {
					best, sender = ls, end.msg
				}
			}
			if sender < 0 || best <= 0 {
				continue
			}
			lsOf[c] = best
			t.lsCalls[c] = true
			m := t.msgs[sender]
			t.charge(LateSender, c, best)
			t.wait(LateSender, c, best, m.sender, m.send)
			keep = append(keep, &kept{call: c, ls: best, senderE: t.calls[m.send].enter})
			if len(keep) > refKeep {
				t.flushWrong(keep[0].wrong, keep[0].call, keep[0].ls)
				keep = keep[1:]
			}
		}
		for _, k := range keep {
			t.flushWrong(k.wrong, k.call, k.ls)
		}
	}

	// §2.1 late_receiver: blocking sends waiting for the receive to be posted
	for c := range t.calls {
		rc := &t.calls[c]
		if rc.leave < 0 || len(rc.sends) == 0 || isTest(rc.name) || lsOf[c] > 0 {
			continue
		}
		best, recv := model.Time(0), -1
		for _, end := range rc.sends {
			m := t.msgs[end.msg]
			if m.post < 0 {
				continue
			}
			ep := t.calls[m.post].enter
			lr := model.Time(0)
			if rc.leave > ep { // lr = Ep − E if X > Ep
				lr = t.clampTo(ep-rc.enter, c)
			}
			if recv < 0 || lr > best {
				best, recv = lr, end.msg
			}
		}
		if recv >= 0 && best > 0 {
			m := t.msgs[recv]
			t.charge(LateReceiver, c, best)
			t.wait(LateReceiver, c, best, m.receiver, m.post)
		}
	}

	// §2.2 collectives
	for _, co := range t.colls {
		if co.op == refOpNone || len(co.members) == 0 {
			continue
		}
		latestE, earliestX := t.calls[co.members[0].call].enter, t.calls[co.members[0].call].leave
		late := co.members[0]
		for _, m := range co.members {
			c := &t.calls[m.call]
			if c.enter > latestE { // ties: lowest location id (members are in id order)
				latestE, late = c.enter, m
			}
			earliestX = min(earliestX, c.leave)
		}
		for _, m := range co.members {
			c := &t.calls[m.call]
			E, X := c.enter, c.leave
			switch co.op {
			case refOpBarrier:
				w := t.clampTo(min(latestE, X)-E, m.call)
				t.charge(WaitBarrier, m.call, w)
				t.wait(WaitBarrier, m.call, w, late.loc, late.call)
				t.charge(BarrierCompletion, m.call, t.clampTo(X-max(earliestX, latestE), m.call))
			case refOpNxN:
				if m.recvd != 0 {
					w := t.clampTo(min(latestE, X)-E, m.call)
					t.charge(WaitNxN, m.call, w)
					t.wait(WaitNxN, m.call, w, late.loc, late.call)
				}
				t.charge(NxNCompletion, m.call, t.clampTo(X-max(earliestX, latestE), m.call))
			case refOpBcast:
				root, ok := co.member(m.root)
				if m.root == 0 || !ok || m.loc == m.root || m.recvd == 0 {
					break
				}
				w := t.clampTo(min(t.calls[root.call].enter, X)-E, m.call)
				t.charge(LateBroadcast, m.call, w)
				t.wait(LateBroadcast, m.call, w, root.loc, root.call)
			case refOpReduce:
				if m.root == 0 || m.loc != m.root || m.recvd == 0 || len(co.members) < 2 {
					break
				}
				first := model.Time(math.MaxInt64)
				for _, o := range co.members {
					if o.loc != m.loc {
						first = min(first, t.calls[o.call].enter)
					}
				}
				w := t.clampTo(min(first, X)-E, m.call)
				t.charge(EarlyReduce, m.call, w)
				t.wait(EarlyReduce, m.call, w, 0, -1)
			case refOpScan:
				n, ok := t.rank(co.comm, m.loc)
				if !ok || n == 0 {
					break
				}
				// the latecomer among ranks 0 … n−1
				var lateBefore refMember
				lateE, found := model.Time(0), false
				for _, o := range co.members {
					if r, ok := t.rank(co.comm, o.loc); ok && r < n {
						if e := t.calls[o.call].enter; !found || e > lateE {
							lateE, lateBefore, found = e, o, true
						}
					}
				}
				if !found {
					break
				}
				w := t.clampTo(min(lateE, X)-E, m.call)
				t.charge(EarlyScan, m.call, w)
				t.wait(EarlyScan, m.call, w, lateBefore.loc, lateBefore.call)
			case refOpFinalize:
				w := t.clampTo(min(latestE, X)-E, m.call)
				t.charge(WaitFinalize, m.call, w)
				t.wait(WaitFinalize, m.call, w, late.loc, late.call)
			case refOpInit:
				t.charge(InitCompletion, m.call, t.clampTo(X-max(earliestX, latestE), m.call))
			}
		}
	}

	// §2.6 non-blocking collectives
	t.icollPatterns()
}

// flushWrong reports a late-sender instance again as wrong order when it
// was found so (§2.1).
func (t *refTrace) flushWrong(wrong bool, c int, ls model.Time) {
	if wrong {
		t.charge(LateSenderWrongOrder, c, ls)
	}
}

// member returns the member of co on location loc.
func (co *refColl) member(loc model.LocID) (refMember, bool) {
	for _, m := range co.members {
		if m.loc == loc {
			return m, true
		}
	}
	return refMember{}, false
}

// complete reports whether every member of co left its call.
func (co *refColl) complete(t *refTrace) bool {
	for _, m := range co.members {
		if t.calls[m.call].leave < 0 {
			return false
		}
	}
	return true
}

// rank returns the rank of loc in comm: its index in the members.
func (t *refTrace) rank(comm model.CommID, loc model.LocID) (int, bool) {
	c, ok := t.defs.Comm(comm)
	if !ok {
		return 0, false
	}
	if c.Self {
		return 0, true
	}
	i := slices.Index(c.Members, loc)
	return i, i >= 0
}

// costed reports whether pattern p has delay costs (§3).
func costed(p Pattern) bool {
	switch p {
	case LateSender, LateReceiver, WaitBarrier, WaitNxN, LateBroadcast:
		return true
	}
	return false
}

// syncPoints returns the (leave on r, leave on s) of every sync point of
// locations r and s (§3.1): matched messages between them either way and
// collective instances (Init and Finalize too) with both as members.
func (t *refTrace) syncPoints(r, s model.LocID) [][2]model.Time {
	var out [][2]model.Time
	for _, m := range t.msgs {
		if m.send < 0 || m.recv < 0 {
			continue
		}
		switch {
		case m.sender == r && m.receiver == s:
			out = append(out, [2]model.Time{t.calls[m.send].leave, t.calls[m.recv].leave})
		case m.sender == s && m.receiver == r:
			out = append(out, [2]model.Time{t.calls[m.recv].leave, t.calls[m.send].leave})
		}
	}
	for i := range t.colls {
		a, okA := t.colls[i].member(r)
		b, okB := t.colls[i].member(s)
		if okA && okB && t.colls[i].complete(t) {
			out = append(out, [2]model.Time{t.calls[a.call].leave, t.calls[b.call].leave})
		}
	}
	return out
}

// exclusive returns the exclusive time per call path on location loc
// inside [a, b] (§3.2).
func (t *refTrace) exclusive(loc model.LocID, a, b model.Time) map[string]float64 {
	out := map[string]float64{}
	for _, p := range t.locs[loc].pieces {
		if lo, hi := max(p.from, a), min(p.to, b); hi > lo {
			out[p.path] += float64(hi - lo)
		}
	}
	return out
}

// inside returns the wait states on loc whose calls lie inside [a, b].
func (t *refTrace) inside(loc model.LocID, a, b model.Time) []int {
	var out []int
	for i, w := range t.waits {
		c := &t.calls[w.call]
		if c.loc == loc && c.enter >= a && c.leave <= b {
			out = append(out, i)
		}
	}
	return out
}

// delays computes §3: intervals, excess, short- and long-term costs,
// direct/indirect and propagating/terminal.
func (t *refTrace) delays() {
	for j := range t.waits {
		wj := &t.waits[j]
		if !costed(wj.pattern) || wj.delayer == t.calls[wj.call].loc {
			continue
		}
		R, S := t.calls[wj.call].loc, wj.delayer
		bR, bS := t.calls[wj.call].enter, t.calls[wj.sync].enter
		// §3.1 the previous common sync point: the largest (leave on R,
		// leave on S) among those leaving by b_R and b_S
		aR, aS := t.locs[R].first, t.locs[S].first
		found := false
		var best [2]model.Time
		for _, p := range t.syncPoints(R, S) {
			if p[0] <= bR && p[1] <= bS {
				if !found || p[0] > best[0] || (p[0] == best[0] && p[1] > best[1]) {
					best, found = p, true
				}
			}
		}
		if found {
			aR, aS = best[0], best[1]
		}
		// §3.2 T_X(c) = exclusive time minus the wait states' time
		T := func(loc model.LocID, a, b model.Time) map[string]float64 {
			x := t.exclusive(loc, a, b)
			for _, i := range t.inside(loc, a, b) {
				x[t.calls[t.waits[i].call].path] -= float64(t.waits[i].w)
			}
			return x
		}
		TR, TS := T(R, aR, bR), T(S, aS, bS)
		wj.excess = map[string]float64{}
		for c, ts := range TS {
			if e := ts - TR[c]; e > 0 { // excess(c) = max(0, T_S(c) − T_R(c))
				wj.excess[c] = e
				wj.d += e
			}
		}
		wj.cand = t.inside(S, aS, bS)
		for _, i := range wj.cand {
			wj.wSum += float64(t.waits[i].w) // W_S
		}
	}

	// §3.3 latest first: by the time the wait ended (E + w), then the
	// later-entered call, then the higher location id
	order := make([]int, len(t.waits))
	for i := range order {
		order[i] = i
	}
	end := func(i int) model.Time { return t.calls[t.waits[i].call].enter + t.waits[i].w }
	slices.SortStableFunc(order, func(a, b int) int {
		ca, cb := &t.calls[t.waits[a].call], &t.calls[t.waits[b].call]
		return cmp.Or(cmp.Compare(end(b), end(a)), cmp.Compare(cb.enter, ca.enter), cmp.Compare(cb.loc, ca.loc))
	})
	for _, j := range order {
		wj := &t.waits[j]
		wj.processed = true
		if wj.excess == nil || wj.d+wj.wSum == 0 {
			continue
		}
		wj.costed = true
		sw := math.Min(1, float64(wj.w)/(wj.d+wj.wSum))
		sc := wj.c / (wj.d + wj.wSum)
		wj.sw = sw
		for c, e := range wj.excess {
			k := refRowKey{wj.pattern, wj.delayer, c}
			dc := t.costs[k]
			if dc == nil {
				dc = &DelayCost{Pattern: wj.pattern, Loc: wj.delayer, CallPath: c}
				t.costs[k] = dc
			}
			dc.ShortTerm += e * sw
			dc.LongTerm += e * sc
		}
		for _, i := range wj.cand {
			wi := &t.waits[i]
			if wi.processed {
				wi.late = true
			}
			wi.c += float64(wi.w) * (sw + sc)
			wi.propagate = true
		}
	}

	// §3.4 direct/indirect and propagating/terminal
	for _, w := range t.waits {
		var direct, indirect, prop, term Pattern
		switch w.pattern {
		case LateSender:
			direct, indirect, prop, term = LateSenderDirect, LateSenderIndirect, LateSenderPropagating, LateSenderTerminal
		case LateReceiver:
			direct, indirect, prop, term = LateReceiverDirect, LateReceiverIndirect, LateReceiverPropagating, LateReceiverTerminal
		default:
			continue
		}
		ind := model.Time(0)
		if w.costed {
			ind = model.Time(math.Round(w.sw * w.wSum)) // indirect = sw · W, to the nearest tick
		}
		t.charge(indirect, w.call, ind)
		t.charge(direct, w.call, w.w-ind)
		if w.propagate {
			t.charge(prop, w.call, w.w)
		} else {
			t.charge(term, w.call, w.w)
		}
	}
}

// waitRows returns the wait-state rows sorted by (pattern, loc, callpath).
func (t *refTrace) waitRows() []WaitState {
	var out []WaitState
	for _, r := range t.rows {
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b WaitState) int {
		return cmp.Or(cmp.Compare(a.Pattern, b.Pattern), cmp.Compare(a.Loc, b.Loc), cmp.Compare(a.CallPath, b.CallPath))
	})
	return out
}

// costRows returns the delay-cost rows sorted by (pattern, loc, callpath).
func (t *refTrace) costRows() []DelayCost {
	var out []DelayCost
	for _, r := range t.costs {
		if r.ShortTerm != 0 || r.LongTerm != 0 {
			out = append(out, *r)
		}
	}
	slices.SortFunc(out, func(a, b DelayCost) int {
		return cmp.Or(cmp.Compare(a.Pattern, b.Pattern), cmp.Compare(a.Loc, b.Loc), cmp.Compare(a.CallPath, b.CallPath))
	})
	return out
}

// refHandOver is a point where the critical path leaves a location (§4).
type refHandOver struct {
	s, enter model.Time
	partner  model.LocID
	at       model.Time
}

// handOvers returns the hand-over points of location loc (§4 step 2).
func (t *refTrace) handOvers(loc model.LocID) []refHandOver {
	var out []refHandOver
	for _, w := range t.waits {
		c := &t.calls[w.call]
		if c.loc != loc || w.pattern == EarlyReduce || w.sync < 0 {
			continue
		}
		s := c.enter + w.w // the moment the wait ended
		out = append(out, refHandOver{s: s, enter: c.enter, partner: w.delayer, at: min(t.calls[w.sync].enter, s)})
	}
	// the root of an N-to-1 operation hands over to the last to enter
	for _, co := range t.colls {
		if co.op != refOpReduce {
			continue
		}
		var root refMember
		latestE, late, found := model.Time(0), refMember{}, false
		for _, m := range co.members {
			if m.root != 0 && m.loc == m.root {
				root = m
			}
			if e := t.calls[m.call].enter; !found || e > latestE {
				latestE, late, found = e, m, true
			}
		}
		if root.loc != loc || root.loc == 0 {
			continue
		}
		rc := &t.calls[root.call]
		if latestE > rc.enter {
			s := min(latestE, rc.leave)
			out = append(out, refHandOver{s: s, enter: rc.enter, partner: late.loc, at: min(latestE, s)})
		}
	}
	return out
}

// criticalPath walks backwards from the end of the run (§4), and returns
// the path's segments in time order.
func (t *refTrace) criticalPath() (CriticalPath, []CriticalSegment) {
	var cp CriticalPath
	var segs []CriticalSegment
	if len(t.ids) == 0 {
		return cp, nil
	}
	// step 1: the location with the last event (ties: lowest id)
	L := t.ids[0]
	for _, id := range t.ids {
		if t.locs[id].last > t.locs[L].last {
			L = id
		}
	}
	tt := t.locs[L].last
	profile := map[string]model.Time{}
	perLoc := map[model.LocID]model.Time{}
	segment := func(loc model.LocID, a, b model.Time) {
		if b <= a {
			return
		}
		cp.Length += b - a
		perLoc[loc] += b - a
		segs = append(segs, CriticalSegment{Loc: loc, Start: a, End: b})
		for _, p := range t.locs[loc].pieces { // step 5: the innermost region
			if lo, hi := max(p.from, a), min(p.to, b); hi > lo {
				profile[p.name] += hi - lo
			}
		}
	}
	used := map[refHandOver]bool{}
	for {
		// step 3: the largest s ≤ t whose call entered before t (ties:
		// latest E); each hand-over point is taken once
		var best refHandOver
		found := false
		for _, h := range t.handOvers(L) {
			if h.s > tt || h.enter >= tt || used[h] {
				continue
			}
			if !found || h.s > best.s || (h.s == best.s && h.enter > best.enter) {
				best, found = h, true
			}
		}
		if !found {
			segment(L, t.locs[L].first, tt)
			break
		}
		used[best] = true
		segment(L, best.s, tt)
		L, tt = best.partner, best.at
	}
	// §4 imbalance: cp(r) − mean over locations of (exclusive time of r −
	// wait-state time charged to r)
	excl := map[string]float64{}
	for _, id := range t.ids {
		for _, p := range t.locs[id].pieces {
			excl[p.name] += float64(p.to - p.from)
		}
	}
	for _, w := range t.waits {
		excl[t.calls[w.call].name] -= float64(w.w)
	}
	for name, v := range profile {
		if v <= 0 {
			continue
		}
		mean := excl[name] / float64(len(t.ids))
		cp.Profile = append(cp.Profile, CriticalRegion{Region: name, Time: v, Imbalance: math.Max(0, float64(v)-mean)})
	}
	slices.SortFunc(cp.Profile, func(a, b CriticalRegion) int { return cmp.Compare(a.Region, b.Region) })
	for _, id := range t.ids {
		if perLoc[id] > 0 {
			cp.Locations = append(cp.Locations, CriticalLocation{Loc: id, Time: perLoc[id]})
		}
	}
	slices.Reverse(segs)
	return cp, segs
}
