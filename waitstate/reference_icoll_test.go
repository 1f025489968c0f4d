package waitstate

// The reference's reading of doc/waitstates.md §2.6: the completion waits
// of non-blocking collectives.

import (
	"math"
	"strings"

	"github.com/hpctrace/hpctrace/model"
)

// refIEv is a CollPost or CollDone inside an MPI call.
type refIEv struct {
	ev   model.Event
	call int // the outermost open MPI call
	seq  int // position in the location's stream
}

type refICollKey struct {
	comm model.CommID
	self model.LocID // the location, on a Self communicator
	n    int         // the location's count of started collectives on comm
}

// refIColl is one non-blocking collective instance (§2.6).
type refIColl struct {
	comm    model.CommID
	members []refIMember // in order of location id (locations are built in id order)
}

type refIMember struct {
	loc         model.LocID
	start, done int // start call, completion call
	root        model.LocID
	recvd       int64
	op          refOp
	doneSeq     int // the CollDone's position in its location's stream
}

// refIOpByName classifies a name of a non-blocking collective: MPI_I…
// as the blocking function of the rest of the name (§2.6).
func refIOpByName(name string) refOp {
	n := strings.ToLower(name)
	if !strings.HasPrefix(n, "mpi_i") {
		return refOpNone
	}
	switch op := refOpByName["mpi_"+n[len("mpi_i"):]]; op {
	case refOpBarrier, refOpNxN, refOpBcast, refOpReduce, refOpScan:
		return op
	}
	return refOpNone
}

// addICollectives pairs the CollPosts and CollDones of location loc and
// adds its members to the instances (§2.6).
func (t *refTrace) addICollectives(loc model.LocID, evs []refIEv) {
	type started struct {
		post, done *refIEv
	}
	var order []*started
	for i := range evs {
		e := &evs[i]
		if e.ev.Kind == model.KindCollPost {
			order = append(order, &started{post: e})
			continue
		}
		// the most recent CollPost of the request not yet taken
		var taken *started
		for j := len(order) - 1; j >= 0; j-- {
			if s := order[j]; s.post != nil && s.done == nil && s.post.ev.Match == e.ev.Match {
				taken = s
				break
			}
		}
		if taken == nil {
			order = append(order, &started{done: e}) // started by its completion call
			continue
		}
		taken.done = e
	}
	n := map[model.CommID]int{}
	for _, s := range order {
		if s.done == nil {
			continue // never completed: not a member
		}
		d := s.done.ev
		start := s.done.call
		comm, root, class, recvd := d.Comm, d.Peer, d.Class, d.Recvd
		regions := []model.RegionID{d.Region}
		if s.post != nil {
			p := s.post.ev
			start = s.post.call
			regions = append(regions, p.Region)
			if comm == 0 {
				comm = p.Comm
			}
			if root == 0 {
				root = p.Peer
			}
			if class == model.ClassUnknown {
				class = p.Class
			}
		}
		k := refICollKey{comm: comm, n: n[comm]}
		n[comm]++
		op := refIOpByName(t.calls[start].name)
		for _, r := range regions {
			if op == refOpNone && r != 0 {
				op = refIOpByName(t.regionName(r))
			}
		}
		if op == refOpNone {
			switch class {
			case model.ClassBarrier:
				op = refOpBarrier
			case model.ClassOneToAll:
				op = refOpBcast
			case model.ClassAllToOne:
				op = refOpReduce
			case model.ClassAllToAll:
				op = refOpNxN
			}
		}
		if op == refOpNone {
			continue
		}
		if c, ok := t.defs.Comm(comm); ok && c.Self {
			k.self = loc
		}
		i, ok := t.icollIdx[k]
		if !ok {
			i = len(t.icolls)
			t.icollIdx[k] = i
			t.icolls = append(t.icolls, refIColl{comm: comm})
		}
		t.icolls[i].members = append(t.icolls[i].members, refIMember{loc: loc, start: start, done: s.done.call,
			root: root, recvd: recvd, op: op, doneSeq: s.done.seq})
	}
}

// icollPatterns finds the wait states of §2.6: per member, its value;
// per completion call, the largest (ties: the first CollDone in event
// order), none on an MPI_Test* or a call with a late_sender instance.
func (t *refTrace) icollPatterns() {
	type cand struct {
		p       Pattern
		w       model.Time
		delayer model.LocID
		sync    int
		seq     int
	}
	best := map[int]cand{}
	var order []int
	offer := func(p Pattern, m refIMember, until model.Time, d *refIMember) {
		c := &t.calls[m.done]
		if isTest(c.name) {
			return
		}
		w := t.clampTo(min(until, c.leave)-c.enter, m.done)
		if w <= 0 {
			return
		}
		x := cand{p: p, w: w, sync: -1, seq: m.doneSeq}
		if d != nil {
			x.delayer, x.sync = d.loc, d.start
		}
		b, ok := best[m.done]
		if !ok {
			order = append(order, m.done)
		}
		if !ok || x.w > b.w || (x.w == b.w && x.seq < b.seq) {
			best[m.done] = x
		}
	}
	for _, co := range t.icolls {
		analysed := true
		for _, m := range co.members {
			if t.calls[m.start].leave < 0 || t.calls[m.done].leave < 0 {
				analysed = false // a call never left
			}
		}
		if !analysed {
			continue
		}
		S := func(m refIMember) model.Time { return t.calls[m.start].enter }
		late := co.members[0]
		for _, m := range co.members {
			if S(m) > S(late) { // ties: the lowest location id
				late = m
			}
		}
		var root *refIMember
		for _, m := range co.members { // the first member naming a root names it
			if m.root != 0 {
				for j := range co.members {
					if co.members[j].loc == m.root {
						root = &co.members[j]
					}
				}
				break
			}
		}
		switch co.members[0].op {
		case refOpBarrier:
			for _, m := range co.members {
				offer(WaitIBarrier, m, S(late), &late)
			}
		case refOpNxN:
			for _, m := range co.members {
				if m.recvd != 0 {
					offer(WaitINxN, m, S(late), &late)
				}
			}
		case refOpBcast:
			if root == nil {
				break
			}
			for _, m := range co.members {
				if m.loc != root.loc && m.recvd != 0 {
					offer(LateIBroadcast, m, S(*root), root)
				}
			}
		case refOpReduce:
			if root == nil || root.recvd == 0 || len(co.members) < 2 {
				break
			}
			first := model.Time(math.MaxInt64)
			for _, o := range co.members {
				if o.loc != root.loc {
					first = min(first, S(o))
				}
			}
			offer(EarlyIReduce, *root, first, nil)
		case refOpScan:
			for _, m := range co.members {
				n, ok := t.rank(co.comm, m.loc)
				if !ok || n == 0 {
					continue
				}
				var lateBefore *refIMember
				for j := range co.members {
					o := &co.members[j]
					if r, ok := t.rank(co.comm, o.loc); ok && r < n && (lateBefore == nil || S(*o) > S(*lateBefore)) {
						lateBefore = o
					}
				}
				if lateBefore != nil {
					offer(EarlyIScan, m, S(*lateBefore), lateBefore)
				}
			}
		}
	}
	for _, c := range order {
		if t.lsCalls[c] {
			continue
		}
		x := best[c]
		t.charge(x.p, c, x.w)
		t.wait(x.p, c, x.w, x.delayer, x.sync)
	}
}
