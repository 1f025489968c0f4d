package waitstate

import (
	"testing"

	"github.com/hpctrace/hpctrace/model"
)

// tb builds a small trace as model events: locations 1 … n, regions by
// name (MPI_ names are MPI calls), communicator 1 over every location.
type tb struct {
	defs *model.Defs
	ev   []model.Event
	regs map[string]model.RegionID
}

func newTB(n int) *tb {
	b := &tb{defs: &model.Defs{}, regs: map[string]model.RegionID{}}
	b.defs.TimeBase = model.TimeBase{TicksPerSecond: 1000}
	var members []model.LocID
	for i := range n {
		members = append(members, b.defs.AddLocation(model.Location{Native: int64(i), Process: int32(i)}))
	}
	b.defs.AddComm(model.Comm{Native: 0, Name: "world", Members: members})
	return b
}

func (b *tb) reg(name string) model.RegionID {
	if r, ok := b.regs[name]; ok {
		return r
	}
	reg := model.Region{Native: int64(len(b.regs)), Name: name}
	if name == "sync0" {
		reg.Kind = model.RegionCollective
	}
	r := b.defs.AddRegion(reg)
	b.regs[name] = r
	return r
}

func (b *tb) add(e model.Event) *tb { b.ev = append(b.ev, e); return b }

func (b *tb) enter(loc model.LocID, t model.Time, name string) *tb {
	return b.add(model.Event{Kind: model.KindEnter, Loc: loc, Time: t, Region: b.reg(name)})
}

func (b *tb) leave(loc model.LocID, t model.Time, name string) *tb {
	return b.add(model.Event{Kind: model.KindLeave, Loc: loc, Time: t, Region: b.reg(name)})
}

// call adds a region instance [e, x] with the events of inner inside.
func (b *tb) call(loc model.LocID, e, x model.Time, name string, inner ...model.Event) *tb {
	b.enter(loc, e, name)
	for _, ev := range inner {
		ev.Loc = loc
		if ev.Time == 0 {
			ev.Time = e
		}
		b.add(ev)
	}
	return b.leave(loc, x, name)
}

func send(peer model.LocID, tag int32) model.Event {
	return model.Event{Kind: model.KindSend, Peer: peer, Tag: tag, Comm: 1, Bytes: 8}
}

func isend(peer model.LocID, tag int32, req uint64) model.Event {
	e := send(peer, tag)
	e.Match = req
	return e
}

func recv(peer model.LocID, tag int32) model.Event {
	return model.Event{Kind: model.KindRecv, Peer: peer, Tag: tag, Comm: 1, Bytes: 8}
}

func recvReq(peer model.LocID, tag int32, req uint64) model.Event {
	e := recv(peer, tag)
	e.Match = req
	return e
}

func post(req uint64) model.Event {
	return model.Event{Kind: model.KindRecvPost, Comm: 1, Match: req}
}

func done(req uint64) model.Event { return model.Event{Kind: model.KindSendDone, Match: req} }

func coll(root model.LocID, recvd int64) model.Event {
	return model.Event{Kind: model.KindCollBegin, Comm: 1, Peer: root, Bytes: 8, Recvd: recvd}
}

func (b *tb) analyze(t testing.TB, opts *Options) *Report {
	t.Helper()
	r, err := Analyze(model.NewSliceSource(b.defs, b.ev), opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
