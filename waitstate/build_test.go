package waitstate

import (
	"cmp"
	"slices"
	"strings"

	"github.com/hpctrace/hpctrace/model"
)

// A traceBuilder writes small MPI traces by hand, one location's timeline
// at a time: ranks 0 … n−1 are locations 1 … n, named "rank N", with
// communicator MPI_COMM_WORLD over all of them. Regions are defined on
// first use: names starting with "MPI_" are MPI regions (paradigm MPI,
// group "MPI", kind collective or communication), others user functions.
// The clock has 1e9 ticks per second.
type traceBuilder struct {
	defs    *model.Defs
	world   model.CommID
	regions map[string]model.RegionID
	ev      []model.Event
}

func newTrace(n int) *traceBuilder {
	b := &traceBuilder{defs: new(model.Defs), regions: map[string]model.RegionID{}}
	b.defs.TimeBase = model.TimeBase{TicksPerSecond: 1e9}
	members := make([]model.LocID, n)
	for r := range n {
		members[r] = b.defs.AddLocation(model.Location{Native: int64(r), Name: "rank " + itoa(r), Process: int32(r)})
	}
	b.world = b.defs.AddComm(model.Comm{Native: 0, Name: "MPI_COMM_WORLD", Members: members})
	return b
}

func itoa(i int) string {
	if i < 0 {
		return "-" + itoa(-i)
	}
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + itoa(i%10)
}

// collectiveNames are the MPI functions whose regions are collective.
var collectiveNames = []string{"MPI_Barrier", "MPI_Allreduce", "MPI_Alltoallv", "MPI_Bcast", "MPI_Reduce", "MPI_Scan",
	"MPI_Init", "MPI_Init_thread", "MPI_Finalize"}

func (b *traceBuilder) region(name string) model.RegionID {
	if id, ok := b.regions[name]; ok {
		return id
	}
	r := model.Region{Native: int64(len(b.regions)), Name: name, Kind: model.RegionFunction, Paradigm: model.ParadigmUser}
	if strings.HasPrefix(name, "MPI_") {
		r.Paradigm, r.Group, r.Kind = model.ParadigmMPI, "MPI", model.RegionComm
		if slices.Contains(collectiveNames, name) {
			r.Kind = model.RegionCollective
		}
	}
	id := b.defs.AddRegion(r)
	b.regions[name] = id
	return id
}

// rank returns the builder of rank r's timeline.
func (b *traceBuilder) rank(r int) *rankBuilder {
	return &rankBuilder{b: b, loc: model.LocID(r + 1)}
}

// events returns the events merged by (time, location), each location's
// in the order written.
func (b *traceBuilder) events() []model.Event {
	out := slices.Clone(b.ev)
	slices.SortStableFunc(out, func(x, y model.Event) int {
		return cmp.Or(cmp.Compare(x.Time, y.Time), cmp.Compare(x.Loc, y.Loc))
	})
	return out
}

// A rankBuilder appends the events of one rank in order.
type rankBuilder struct {
	b   *traceBuilder
	loc model.LocID
}

func (r *rankBuilder) add(e model.Event) *rankBuilder {
	e.Loc = r.loc
	r.b.ev = append(r.b.ev, e)
	return r
}

func (r *rankBuilder) peer(rank int) model.LocID { return model.LocID(rank + 1) }

// enter and leave open and close a region.
func (r *rankBuilder) enter(t model.Time, name string) *rankBuilder {
	return r.add(model.Event{Time: t, Kind: model.KindEnter, Region: r.b.region(name)})
}

func (r *rankBuilder) leave(t model.Time, name string) *rankBuilder {
	return r.add(model.Event{Time: t, Kind: model.KindLeave, Region: r.b.region(name)})
}

// call is a region [from, to] with the given events inside (their Loc is
// set).
func (r *rankBuilder) call(name string, from, to model.Time, inside ...model.Event) *rankBuilder {
	r.enter(from, name)
	for _, e := range inside {
		r.add(e)
	}
	return r.leave(to, name)
}

// compute is a "compute" region [from, to].
func (r *rankBuilder) compute(from, to model.Time) *rankBuilder { return r.call("compute", from, to) }

// send is an MPI_Send [from, to] to rank dst with the tag: the Send at
// the call's start.
func (r *rankBuilder) send(from, to model.Time, dst int, tag int32) *rankBuilder {
	return r.call("MPI_Send", from, to, r.sendEv(from, dst, tag, 0))
}

// recv is an MPI_Recv [from, to] of a message from rank src: the Recv at
// the call's end.
func (r *rankBuilder) recv(from, to model.Time, src int, tag int32) *rankBuilder {
	return r.call("MPI_Recv", from, to, r.recvEv(to, src, tag, 0))
}

func (r *rankBuilder) sendEv(t model.Time, dst int, tag int32, req uint64) model.Event {
	return model.Event{Time: t, Kind: model.KindSend, Peer: r.peer(dst), Tag: tag, Comm: r.b.world, Bytes: 8, Match: req}
}

func (r *rankBuilder) recvEv(t model.Time, src int, tag int32, req uint64) model.Event {
	return model.Event{Time: t, Kind: model.KindRecv, Peer: r.peer(src), Tag: tag, Comm: r.b.world, Bytes: 8, Match: req}
}

func (r *rankBuilder) postEv(t model.Time, src int, tag int32, req uint64) model.Event {
	return model.Event{Time: t, Kind: model.KindRecvPost, Peer: r.peer(src), Tag: tag, Comm: r.b.world, Match: req}
}

func sendDoneEv(t model.Time, req uint64) model.Event {
	return model.Event{Time: t, Kind: model.KindSendDone, Match: req}
}

// coll is a collective call [from, to] on MPI_COMM_WORLD: CollBegin at
// the start (root as a rank, −1 for none), CollEnd at the end.
func (r *rankBuilder) coll(name string, from, to model.Time, root int, sent, recvd int64) *rankBuilder {
	class := map[string]model.Class{"MPI_Barrier": model.ClassBarrier, "MPI_Allreduce": model.ClassAllToAll,
		"MPI_Alltoallv": model.ClassAllToAll, "MPI_Bcast": model.ClassOneToAll, "MPI_Reduce": model.ClassAllToOne,
		"MPI_Scan": model.ClassUnknown}[name]
	var rootLoc model.LocID
	if root >= 0 {
		rootLoc = r.peer(root)
	}
	return r.call(name, from, to,
		model.Event{Time: from, Kind: model.KindCollBegin, Region: r.b.region(name), Comm: r.b.world, Peer: rootLoc,
			Bytes: sent, Recvd: recvd, Class: class},
		model.Event{Time: to, Kind: model.KindCollEnd})
}
