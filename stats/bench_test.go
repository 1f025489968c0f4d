package stats_test

import (
	"cmp"
	"slices"
	"testing"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
)

const synthLocs = 8

// synthDefs defines the synthetic workload: 8 ranks running main, compute,
// a ring of MPI_Send/MPI_Recv and a periodic barrier.
func synthDefs() *model.Defs {
	d := new(model.Defs)
	d.TimeBase.TicksPerSecond = 1_000_000_000
	for i := range synthLocs {
		d.AddLocation(model.Location{Native: int64(i), Process: int32(i)})
	}
	d.AddRegion(model.Region{Native: 1, Name: "main", Kind: model.RegionFunction})
	d.AddRegion(model.Region{Native: 2, Name: "compute", Kind: model.RegionFunction})
	d.AddRegion(model.Region{Native: 3, Name: "MPI_Send", Kind: model.RegionComm})
	d.AddRegion(model.Region{Native: 4, Name: "MPI_Recv", Kind: model.RegionComm})
	d.AddRegion(model.Region{Native: 5, Name: "MPI_Barrier", Kind: model.RegionCollective})
	// The members are defined, as MPI traces define MPI_COMM_WORLD's:
	// calls on a communicator of unknown membership are held to the end
	// of the stream, and Add would allocate as they accumulate.
	world := make([]model.LocID, synthLocs)
	for i := range world {
		world[i] = model.LocID(i + 1)
	}
	d.AddComm(model.Comm{Native: 0, Name: "world", Members: world})
	return d
}

// synthRound appends the events of round r to buf[:0], merged by time.
func synthRound(buf []model.Event, r int64) []model.Event {
	buf = buf[:0]
	T := model.Time(r * 1000)
	for l := range int64(synthLocs) {
		loc := model.LocID(l + 1)
		at := func(dt int64) model.Time { return T + model.Time(dt) }
		next := model.LocID((l+1)%synthLocs + 1)
		prev := model.LocID((l+synthLocs-1)%synthLocs + 1)
		bytes := int64(1024) << (r % 4)
		buf = append(buf,
			model.Event{Time: at(l), Loc: loc, Kind: model.KindEnter, Region: 2},
			model.Event{Time: at(400 + l*10), Loc: loc, Kind: model.KindLeave, Region: 2},
			model.Event{Time: at(500 + l), Loc: loc, Kind: model.KindEnter, Region: 3},
			model.Event{Time: at(501 + l), Loc: loc, Kind: model.KindSend, Peer: next, Comm: 1, Bytes: bytes},
			model.Event{Time: at(510 + l), Loc: loc, Kind: model.KindLeave, Region: 3},
			model.Event{Time: at(520 + l), Loc: loc, Kind: model.KindEnter, Region: 4},
			model.Event{Time: at(560 + l), Loc: loc, Kind: model.KindRecv, Peer: prev, Comm: 1, Bytes: bytes},
			model.Event{Time: at(570 + l), Loc: loc, Kind: model.KindLeave, Region: 4},
		)
		if r%16 == 15 {
			buf = append(buf,
				model.Event{Time: at(600 + 3*l), Loc: loc, Kind: model.KindEnter, Region: 5},
				model.Event{Time: at(600 + 3*l), Loc: loc, Kind: model.KindCollBegin, Region: 5, Comm: 1, Class: model.ClassBarrier},
				model.Event{Time: at(650 + l), Loc: loc, Kind: model.KindCollEnd},
				model.Event{Time: at(651 + l), Loc: loc, Kind: model.KindLeave, Region: 5},
			)
		}
	}
	slices.SortStableFunc(buf, func(a, b model.Event) int { return cmp.Compare(a.Time, b.Time) })
	return buf
}

func newSynthAcc(tb testing.TB) (*stats.Accumulator, []model.Event) {
	acc := stats.New(synthDefs(), nil)
	for l := range synthLocs {
		acc.Add(&model.Event{Time: -1, Loc: model.LocID(l + 1), Kind: model.KindEnter, Region: 1})
	}
	var buf []model.Event
	for r := range int64(64) { // warm up: every key exists afterwards
		buf = synthRound(buf, r)
		for i := range buf {
			acc.Add(&buf[i])
		}
	}
	return acc, buf
}

func TestAddAllocs(t *testing.T) {
	acc, buf := newSynthAcc(t)
	r := int64(64)
	events := 0
	n := testing.AllocsPerRun(200, func() {
		buf = synthRound(buf, r)
		r++
		for i := range buf {
			acc.Add(&buf[i])
		}
		events += len(buf)
	})
	if n != 0 {
		t.Fatalf("Add allocates %.2f times per round of %d events; want 0", n, len(buf))
	}
	rep := acc.Finalize()
	if d := rep.Final.Diagnostics; d.UnmatchedSend+d.UnmatchedRecv+d.OpenCollectives != 0 || d.MatchedMessages == 0 {
		t.Fatalf("synthetic workload is not clean: %+v", d)
	}
}

// BenchmarkAdd measures the accumulator alone over a steady stream of
// nested regions, matched ring messages and barriers on 8 locations.
func BenchmarkAdd(b *testing.B) {
	acc, buf := newSynthAcc(b)
	r := int64(64)
	// Pre-generate rounds so that generation is not measured.
	const rounds = 1024
	var all []model.Event
	for i := range int64(rounds) {
		buf = synthRound(buf, r+i)
		all = append(all, buf...)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(all)))
	var off model.Time
	for b.Loop() {
		for i := range all {
			ev := all[i]
			ev.Time += off
			acc.Add(&ev)
		}
		off += rounds * 1000
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(all)), "ns/event")
}

func BenchmarkFinalize(b *testing.B) {
	acc, _ := newSynthAcc(b)
	b.ReportAllocs()
	for b.Loop() {
		acc.Finalize()
	}
}
