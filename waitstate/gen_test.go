package waitstate

import (
	"math"
	"slices"
	"testing"

	"github.com/hpctrace/hpctrace/model"
	"pgregory.net/rapid"
)

// A program is a generated MPI program: its definitions and time-merged
// events.
type program struct {
	defs   *model.Defs
	events []model.Event
}

// genProgram draws consistent MPI programs of 2 to 4 ranks: every rank
// starts "main" at 0 and calls MPI_Init; then phases of random compute,
// rings (plain, with Sendrecv, or Irecv + send + Wait with eager or
// rendezvous sends), wrong-order receives, a Waitall over several Irecvs,
// and collectives on MPI_COMM_WORLD (barrier, allreduce, alltoallv with
// ranks receiving nothing, bcast, reduce, scan); at the end MPI_Finalize. Times follow the semantics: a receive
// completes after its send started, a rendezvous send leaves after its
// receive was posted, a collective call leaves after the members it
// waits for entered; every call lasts at least one tick after its wait
// ends.
func genProgram() *rapid.Generator[program] {
	return rapid.Custom(func(t *rapid.T) program {
		n := rapid.IntRange(2, 4).Draw(t, "ranks")
		g := &gen{t: t, b: newTrace(n), n: n, clock: make([]model.Time, n), req: make([]uint64, n)}
		g.ranks = make([]*rankBuilder, n)
		for r := range n {
			g.ranks[r] = g.b.rank(r)
			g.ranks[r].enter(0, "main")
		}
		g.init()
		phases := rapid.IntRange(1, 8).Draw(t, "phases")
		for range phases {
			wrap := rapid.Bool().Draw(t, "solve")
			if wrap {
				for r := range n {
					g.ranks[r].enter(g.clock[r], "solve")
				}
			}
			switch rapid.IntRange(0, 6).Draw(t, "phase") {
			case 0:
				g.compute()
			case 1:
				g.ring()
			case 2:
				g.wrongOrder()
			case 3:
				g.waitall()
			case 4, 5:
				g.collective()
			case 6:
				g.icollective()
			}
			if wrap {
				for r := range n {
					g.ranks[r].leave(g.clock[r], "solve")
				}
			}
		}
		g.compute()
		if rapid.Bool().Draw(t, "finalize") {
			g.finalize()
		}
		end := slices.Max(g.clock)
		for r := range n {
			if rapid.Bool().Draw(t, "alignEnd") {
				g.clock[r] = end
			}
			g.ranks[r].leave(g.clock[r], "main")
		}
		return program{defs: g.b.defs, events: g.b.events()}
	})
}

type gen struct {
	t     *rapid.T
	b     *traceBuilder
	n     int
	ranks []*rankBuilder
	clock []model.Time
	req   []uint64
	tag   int32
	ops   []string // the collectives collective draws from; nil: all six
	// syncColls lets collective draw, per instance, whether every
	// member leaves after the last one entered (as many MPI libraries
	// do for any collective).
	syncColls bool
}

func (g *gen) dur(label string, lo int64) model.Time {
	return model.Time(rapid.Int64Range(lo, 40).Draw(g.t, label))
}

// compute lets each rank compute (or idle in its current region) a while.
func (g *gen) compute() {
	for r := range g.n {
		d := g.dur("compute", 0)
		if d > 0 {
			if rapid.Bool().Draw(g.t, "idle") {
				g.clock[r] += d
			} else {
				g.ranks[r].compute(g.clock[r], g.clock[r]+d)
				g.clock[r] += d
			}
		}
	}
}

func (g *gen) init() {
	enter := make([]model.Time, g.n)
	for r := range g.n {
		enter[r] = g.dur("initEnter", 0)
	}
	latest := slices.Max(enter)
	for r := range g.n {
		name := "MPI_Init"
		if rapid.Bool().Draw(g.t, "initThread") {
			name = "MPI_Init_thread"
		}
		x := latest + g.dur("initLeave", 1)
		g.ranks[r].call(name, enter[r], x)
		g.clock[r] = x
	}
}

func (g *gen) finalize() {
	g.compute()
	latest := slices.Max(g.clock)
	for r := range g.n {
		x := latest + g.dur("finLeave", 1)
		g.ranks[r].call("MPI_Finalize", g.clock[r], x)
		g.clock[r] = x
	}
}

// ring sends from every rank to rank r+k and receives from rank r−k.
func (g *gen) ring() {
	g.compute()
	k := rapid.IntRange(1, g.n-1).Draw(g.t, "shift")
	g.tag++
	tag := g.tag
	dst := func(r int) int { return (r + k) % g.n }
	src := func(r int) int { return (r - k + g.n) % g.n }
	switch rapid.IntRange(0, 2).Draw(g.t, "ringKind") {
	case 0: // eager MPI_Send, then MPI_Recv
		es := make([]model.Time, g.n)
		for r := range g.n {
			es[r] = g.clock[r]
			x := es[r] + g.dur("send", 1)
			g.ranks[r].send(es[r], x, dst(r), tag)
			g.clock[r] = x + g.dur("gap", 0)
		}
		for r := range g.n {
			e := g.clock[r]
			x := max(e, es[src(r)]) + g.dur("recv", 1)
			g.ranks[r].recv(e, x, src(r), tag)
			g.clock[r] = x
		}
	case 1: // MPI_Sendrecv
		e := slices.Clone(g.clock)
		for r := range g.n {
			x := max(e[r], e[src(r)]) + g.dur("sendrecv", 1)
			rb := g.ranks[r]
			rb.call("MPI_Sendrecv", e[r], x, rb.sendEv(e[r], dst(r), tag, 0), rb.recvEv(x, src(r), tag, 0))
			g.clock[r] = x
		}
	case 2: // MPI_Irecv, then a send (eager or rendezvous), then MPI_Wait
		post := make([]model.Time, g.n)
		reqs := make([]uint64, g.n)
		for r := range g.n {
			post[r] = g.clock[r]
			g.req[r]++
			reqs[r] = g.req[r]
			x := post[r] + g.dur("irecv", 1)
			rb := g.ranks[r]
			rb.call("MPI_Irecv", post[r], x, rb.postEv(post[r], src(r), tag, reqs[r]))
			g.clock[r] = x + g.dur("gap", 0)
		}
		es := make([]model.Time, g.n)
		for r := range g.n {
			es[r] = g.clock[r]
			rb := g.ranks[r]
			if rapid.Bool().Draw(g.t, "rendezvous") {
				x := max(es[r], post[dst(r)]) + g.dur("ssend", 1)
				rb.call("MPI_Ssend", es[r], x, rb.sendEv(es[r], dst(r), tag, 0))
				g.clock[r] = x
			} else {
				x := es[r] + g.dur("send", 1)
				rb.send(es[r], x, dst(r), tag)
				g.clock[r] = x
			}
		}
		for r := range g.n {
			e := g.clock[r]
			x := max(e, es[src(r)]) + g.dur("wait", 1)
			rb := g.ranks[r]
			rb.call("MPI_Wait", e, x, rb.recvEv(x, src(r), tag, reqs[r]))
			g.clock[r] = x
		}
	}
}

// wrongOrder has rank a send two messages to rank b, which receives them
// in the other order.
func (g *gen) wrongOrder() {
	g.compute()
	a := rapid.IntRange(0, g.n-1).Draw(g.t, "a")
	b := (a + rapid.IntRange(1, g.n-1).Draw(g.t, "b")) % g.n
	g.tag += 2
	t1, t2 := g.tag-1, g.tag
	ra, rb := g.ranks[a], g.ranks[b]
	e1 := g.clock[a]
	x1 := e1 + g.dur("send1", 1)
	ra.send(e1, x1, b, t1)
	e2 := x1 + g.dur("between", 0)
	if rapid.Bool().Draw(g.t, "computeBetween") && e2 > x1 {
		ra.compute(x1, e2)
	}
	x2 := e2 + g.dur("send2", 1)
	ra.send(e2, x2, b, t2)
	g.clock[a] = x2
	e := g.clock[b]
	x := max(e, e2) + g.dur("recv2", 1)
	rb.recv(e, x, a, t2)
	e = x
	x = max(e, e1) + g.dur("recv1", 1)
	rb.recv(e, x, a, t1)
	g.clock[b] = x
}

// waitall has one rank receive from every other through Irecvs and one
// MPI_Waitall, completing the requests in a random order.
func (g *gen) waitall() {
	g.compute()
	root := rapid.IntRange(0, g.n-1).Draw(g.t, "root")
	g.tag++
	tag := g.tag
	rr := g.ranks[root]
	post := map[int]model.Time{}
	reqs := map[int]uint64{}
	var others []int
	for r := range g.n {
		if r == root {
			continue
		}
		others = append(others, r)
		e := g.clock[root]
		g.req[root]++
		reqs[r] = g.req[root]
		post[r] = e
		x := e + g.dur("irecv", 1)
		rr.call("MPI_Irecv", e, x, rr.postEv(e, r, tag, reqs[r]))
		g.clock[root] = x
	}
	es := map[int]model.Time{}
	for _, r := range others {
		g.clock[r] += g.dur("before", 0)
		es[r] = g.clock[r]
		rb := g.ranks[r]
		if rapid.Bool().Draw(g.t, "rendezvous") {
			x := max(es[r], post[r]) + g.dur("ssend", 1)
			rb.call("MPI_Ssend", es[r], x, rb.sendEv(es[r], root, tag, 0))
			g.clock[r] = x
		} else {
			x := es[r] + g.dur("send", 1)
			rb.send(es[r], x, root, tag)
			g.clock[r] = x
		}
	}
	e := g.clock[root]
	last := e
	for _, r := range others {
		last = max(last, es[r])
	}
	x := last + g.dur("waitall", 1)
	order := rapid.Permutation(others).Draw(g.t, "order")
	var inside []model.Event
	for _, r := range order {
		inside = append(inside, rr.recvEv(x, r, tag, reqs[r]))
	}
	rr.call("MPI_Waitall", e, x, inside...)
	g.clock[root] = x
}

// collective has every rank call one collective on MPI_COMM_WORLD.
func (g *gen) collective() {
	g.compute()
	ops := g.ops
	if ops == nil {
		ops = []string{"MPI_Barrier", "MPI_Allreduce", "MPI_Alltoallv", "MPI_Bcast", "MPI_Reduce", "MPI_Scan"}
	}
	op := rapid.SampledFrom(ops).Draw(g.t, "op")
	root := rapid.IntRange(0, g.n-1).Draw(g.t, "root")
	e := slices.Clone(g.clock)
	latest := slices.Max(e)
	sync := g.syncColls && rapid.Bool().Draw(g.t, "syncColl")
	for r := range g.n {
		var x model.Time
		var sent, recvd int64 = 8, 8
		rt := -1
		switch op {
		case "MPI_Barrier":
			x = latest
			sent, recvd = 0, 0
		case "MPI_Allreduce", "MPI_Alltoallv":
			x = latest
			if op == "MPI_Alltoallv" && rapid.Bool().Draw(g.t, "zeroBytes") {
				recvd = 0
			}
		case "MPI_Bcast":
			rt = root
			x = max(e[r], e[root])
			if r == root {
				recvd = 0
			} else {
				sent = 0
			}
		case "MPI_Reduce":
			rt = root
			x = e[r]
			if r == root {
				x = latest
				recvd = 8 * int64(g.n)
			} else {
				recvd = 0
			}
		case "MPI_Scan":
			x = slices.Max(e[:r+1])
		}
		if sync {
			x = max(x, latest)
		}
		x += g.dur("coll", 1)
		g.ranks[r].coll(op, e[r], x, rt, sent, recvd)
		g.clock[r] = x
	}
}

// TestReferenceInvariants checks what must hold of the reference's report
// on every generated program.
func TestReferenceInvariants(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genProgram().Draw(t, "program")
		res := refAnalyze(p.defs, p.events)
		checkInvariants(t, res)
	})
}

func checkInvariants(t *rapid.T, res *refResult) {
	rep, tr := res.report, res.trace
	rows := map[refRowKey]WaitState{}
	for _, w := range rep.WaitStates {
		k := refRowKey{w.Pattern, w.Loc, w.CallPath}
		if _, dup := rows[k]; dup {
			t.Fatalf("row %v twice", k)
		}
		if w.Time <= 0 || w.Count <= 0 {
			t.Fatalf("row %+v: time and count must be positive", w)
		}
		rows[k] = w
	}
	// calls per (loc, path): their number and total duration
	type callSum struct {
		n   int64
		dur model.Time
	}
	calls := map[[2]any]callSum{}
	for _, c := range tr.calls {
		if c.leave < 0 {
			continue
		}
		k := [2]any{c.loc, c.path}
		s := calls[k]
		s.n++
		s.dur += c.leave - c.enter
		calls[k] = s
	}
	for k, w := range rows {
		s := calls[[2]any{k.loc, k.path}]
		if w.Count > s.n || w.Time > s.dur {
			t.Fatalf("row %+v exceeds its calls: %d calls of %d ticks", w, s.n, s.dur)
		}
	}
	for _, w := range tr.waits {
		c := tr.calls[w.call]
		if w.w > c.leave-c.enter {
			t.Fatalf("wait %v of %d ticks in a call of %d", w.pattern, w.w, c.leave-c.enter)
		}
		if w.late {
			t.Fatalf("wait %v on %d at %d received cost after it was processed", w.pattern, c.loc, c.enter)
		}
	}
	// late_sender_wrong_order is a subset of late_sender
	for k, w := range rows {
		if k.p != LateSenderWrongOrder {
			continue
		}
		ls := rows[refRowKey{LateSender, k.loc, k.path}]
		if w.Time > ls.Time || w.Count > ls.Count {
			t.Fatalf("wrong order %+v exceeds late sender %+v", w, ls)
		}
	}
	// the derived views partition their pattern's time
	for _, v := range []struct{ of, a, b Pattern }{
		{LateSender, LateSenderDirect, LateSenderIndirect},
		{LateSender, LateSenderPropagating, LateSenderTerminal},
		{LateReceiver, LateReceiverDirect, LateReceiverIndirect},
		{LateReceiver, LateReceiverPropagating, LateReceiverTerminal},
	} {
		for k, w := range rows {
			if k.p != v.of {
				continue
			}
			a, b := rows[refRowKey{v.a, k.loc, k.path}], rows[refRowKey{v.b, k.loc, k.path}]
			if a.Time+b.Time != w.Time {
				t.Fatalf("%v %d + %v %d != %v %d at %d %s", v.a, a.Time, v.b, b.Time, v.of, w.Time, k.loc, k.path)
			}
		}
		for k := range rows {
			if (k.p == v.a || k.p == v.b) && rows[refRowKey{v.of, k.loc, k.path}].Time == 0 {
				t.Fatalf("%v row without a %v row at %d %s", k.p, v.of, k.loc, k.path)
			}
		}
	}
	// short-term costs never exceed the waiting time they explain
	waited := map[Pattern]model.Time{}
	for _, w := range tr.waits {
		waited[w.pattern] += w.w
	}
	short := map[Pattern]float64{}
	for _, d := range rep.DelayCosts {
		if d.ShortTerm < 0 || d.LongTerm < 0 || math.IsNaN(d.ShortTerm+d.LongTerm) {
			t.Fatalf("delay cost %+v", d)
		}
		if !costed(d.Pattern) {
			t.Fatalf("delay cost of %v, which has none", d.Pattern)
		}
		short[d.Pattern] += d.ShortTerm
	}
	for p, s := range short {
		if s > float64(waited[p])*(1+1e-9) {
			t.Fatalf("short-term cost of %v %g exceeds its waiting time %d", p, s, waited[p])
		}
	}
	// every location starts at 0: the critical path spans the run
	var first, last model.Time = math.MaxInt64, math.MinInt64
	var total model.Time
	for _, id := range tr.ids {
		l := tr.locs[id]
		first, last = min(first, l.first), max(last, l.last)
		total += l.last - l.first
	}
	cp := rep.CriticalPath
	if cp.Length != last-first {
		t.Fatalf("critical path %d, want the run's %d", cp.Length, last-first)
	}
	if rep.Total != total {
		t.Fatalf("Total %d, want %d", rep.Total, total)
	}
	var sumLoc, sumProf model.Time
	for _, l := range cp.Locations {
		sumLoc += l.Time
	}
	for _, r := range cp.Profile {
		sumProf += r.Time
		if r.Imbalance < 0 || r.Imbalance > float64(r.Time)+1e-9 {
			t.Fatalf("imbalance %+v", r)
		}
	}
	if sumLoc != cp.Length || sumProf != cp.Length {
		t.Fatalf("critical path %d: locations sum to %d, profile to %d", cp.Length, sumLoc, sumProf)
	}
}

// icollective has every rank start one non-blocking collective on
// MPI_COMM_WORLD, compute a while and complete it in MPI_Wait (or, once
// it is complete everywhere, in MPI_Test), leaving after the members it
// waits for started it (doc/waitstates.md §2.6).
func (g *gen) icollective() {
	g.compute()
	op := rapid.SampledFrom([]string{"MPI_Ibarrier", "MPI_Iallreduce", "MPI_Ibcast", "MPI_Ireduce", "MPI_Iscan"}).Draw(g.t, "iop")
	root := rapid.IntRange(0, g.n-1).Draw(g.t, "iroot")
	s := make([]model.Time, g.n) // each rank's start
	req := make([]uint64, g.n)
	for r := range g.n {
		s[r] = g.clock[r]
		g.req[r]++
		req[r] = g.req[r]
		x := s[r] + g.dur("istart", 1)
		g.ranks[r].istart(op, s[r], x, req[r])
		g.clock[r] = x
		if rapid.Bool().Draw(g.t, "overlap") {
			c := g.clock[r] + g.dur("overlap", 1)
			g.ranks[r].compute(g.clock[r], c)
			g.clock[r] = c
		}
	}
	latest := slices.Max(s)
	for r := range g.n {
		var sent, recvd int64 = 8, 8
		rt := -1
		need := latest // the latest start this rank's completion waits for
		switch op {
		case "MPI_Ibarrier":
			sent, recvd = 0, 0
		case "MPI_Ibcast":
			rt, need = root, s[root]
			if r == root {
				recvd = 0
			} else {
				sent = 0
			}
		case "MPI_Ireduce":
			rt, need = root, s[r]
			if r == root {
				need, recvd = latest, 8*int64(g.n)
			} else {
				recvd = 0
			}
		case "MPI_Iscan":
			need = slices.Max(s[:r+1])
		}
		e := g.clock[r]
		name := "MPI_Wait"
		if e > latest && rapid.Bool().Draw(g.t, "test") {
			name = "MPI_Test"
		}
		x := max(e, need) + g.dur("icomplete", 1)
		rr := g.ranks[r]
		rr.call(name, e, x, rr.idoneEv(x, op, req[r], rt, sent, recvd))
		g.clock[r] = x
	}
}
