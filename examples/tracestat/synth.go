package main

import (
	"cmp"
	"slices"

	"github.com/hpctrace/hpctrace/model"
)

const synthLocs = 8

// synthSource generates, on the fly, an 8-rank trace of about n events
// (whole rounds, so up to one round more): main,
// compute, a ring of MPI_Send/MPI_Recv and a barrier every 16 rounds. It
// is a model.Source in O(1) memory, for measuring throughput and memory.
type synthSource struct {
	defs  model.Defs
	n     int64 // events still to deliver
	round int64
	buf   []model.Event
	i     int
	ev    model.Event
	state int // 0: main enters, 1: rounds, 2: main leaves, 3: done
}

func newSynth(n int64) *synthSource {
	s := &synthSource{n: n}
	d := &s.defs
	d.TimeBase.TicksPerSecond = 1_000_000_000
	for i := range synthLocs {
		d.AddLocation(model.Location{Native: int64(i + 1), Name: "rank " + string(rune('0'+i)), Process: int32(i)})
	}
	d.AddRegion(model.Region{Native: 1, Name: "main", Kind: model.RegionFunction})
	d.AddRegion(model.Region{Native: 2, Name: "compute", Kind: model.RegionFunction})
	d.AddRegion(model.Region{Native: 3, Name: "MPI_Send", Kind: model.RegionComm})
	d.AddRegion(model.Region{Native: 4, Name: "MPI_Recv", Kind: model.RegionComm})
	d.AddRegion(model.Region{Native: 5, Name: "MPI_Barrier", Kind: model.RegionCollective})
	d.AddComm(model.Comm{Native: 100, Name: "world", Members: []model.LocID{1, 2, 3, 4, 5, 6, 7, 8}})
	s.buf = make([]model.Event, 0, 128)
	for l := range synthLocs {
		s.buf = append(s.buf, model.Event{Time: 0, Loc: model.LocID(l + 1), Kind: model.KindEnter, Region: 1})
	}
	return s
}

func (s *synthSource) Defs() *model.Defs   { return &s.defs }
func (s *synthSource) Event() *model.Event { return &s.ev }
func (s *synthSource) Err() error          { return nil }

func (s *synthSource) Next() bool {
	for s.i >= len(s.buf) {
		switch {
		case s.state == 3:
			return false
		case s.state == 2:
			s.buf = s.buf[:0]
			end := model.Time((s.round + 1) * 1000)
			for l := range synthLocs {
				s.buf = append(s.buf, model.Event{Time: end, Loc: model.LocID(l + 1), Kind: model.KindLeave, Region: 1})
			}
			s.state = 3
		case s.n <= 2*synthLocs:
			s.state = 2
			continue
		default:
			s.buf = synthRound(s.buf, s.round)
			s.round++
		}
		s.n -= int64(len(s.buf))
		s.i = 0
	}
	s.ev = s.buf[s.i]
	s.i++
	return true
}

// roundTemplates[b] holds one round's events at time 0, merged by time;
// b = 1 for rounds with a barrier. Rounds differ only by a time shift and
// the message size, so generating a round is a copy.
var roundTemplates = func() [2][]model.Event {
	var t [2][]model.Event
	for b := range 2 {
		var ev []model.Event
		for l := range int64(synthLocs) {
			loc := model.LocID(l + 1)
			at := func(dt int64) model.Time { return model.Time(dt) }
			next := model.LocID((l+1)%synthLocs + 1)
			prev := model.LocID((l+synthLocs-1)%synthLocs + 1)
			ev = append(ev,
				model.Event{Time: at(l), Loc: loc, Kind: model.KindEnter, Region: 2},
				model.Event{Time: at(400 + l*10), Loc: loc, Kind: model.KindLeave, Region: 2},
				model.Event{Time: at(500 + l), Loc: loc, Kind: model.KindEnter, Region: 3},
				model.Event{Time: at(501 + l), Loc: loc, Kind: model.KindSend, Peer: next, Comm: 1},
				model.Event{Time: at(510 + l), Loc: loc, Kind: model.KindLeave, Region: 3},
				model.Event{Time: at(520 + l), Loc: loc, Kind: model.KindEnter, Region: 4},
				model.Event{Time: at(560 + l), Loc: loc, Kind: model.KindRecv, Peer: prev, Comm: 1},
				model.Event{Time: at(570 + l), Loc: loc, Kind: model.KindLeave, Region: 4},
			)
			if b == 1 {
				ev = append(ev,
					model.Event{Time: at(600 + 3*l), Loc: loc, Kind: model.KindEnter, Region: 5},
					model.Event{Time: at(600 + 3*l), Loc: loc, Kind: model.KindCollBegin, Region: 5, Comm: 1, Class: model.ClassBarrier},
					model.Event{Time: at(650 + l), Loc: loc, Kind: model.KindCollEnd},
					model.Event{Time: at(651 + l), Loc: loc, Kind: model.KindLeave, Region: 5},
				)
			}
		}
		// Merge by time, keeping each location's order.
		slices.SortStableFunc(ev, func(a, b model.Event) int { return cmp.Compare(a.Time, b.Time) })
		t[b] = ev
	}
	return t
}()

// synthRound appends the events of round r to buf[:0], merged by time.
func synthRound(buf []model.Event, r int64) []model.Event {
	tmpl := roundTemplates[0]
	if r%16 == 15 {
		tmpl = roundTemplates[1]
	}
	buf = append(buf[:0], tmpl...)
	T := model.Time(r*1000 + 10)
	bytes := int64(1024) << (r % 4)
	for i := range buf {
		buf[i].Time += T
		switch buf[i].Kind {
		case model.KindSend, model.KindRecv:
			buf[i].Bytes = bytes
		case model.KindCollBegin, model.KindCollEnd:
			buf[i].Match = uint64(r + 1)
		}
	}
	return buf
}
