package waitstate

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hpctrace/hpctrace/model"
)

// The generator below is bench/mpi.go's (the side-by-side harness's
// realistic MPI run), writing to memory, so that the benchmarks here
// measure the analysis on the mix of calls, messages and collectives the
// harness measures.

// mpiRanks is the number of ranks of the generated MPI runs.
const mpiRanks = 16

// mpiWriter is what genMPI writes to.
type mpiWriter interface {
	Write(ev *model.Event) error
	Close() error
}

// evSlice collects the events written to it.
type evSlice struct{ ev []model.Event }

func (s *evSlice) Write(ev *model.Event) error { s.ev = append(s.ev, *ev); return nil }
func (s *evSlice) Close() error                { return nil }

// mpiRun returns the definitions and the events of bench's generated MPI
// run of about n events, each location's events in order.
func mpiRun(n int64) (*model.Defs, []model.Event) {
	d := &model.Defs{TimeBase: model.TimeBase{TicksPerSecond: 1e9}}
	w := &evSlice{}
	if err := genMPI(w, d, n); err != nil {
		panic(err)
	}
	return d, w.ev
}

// genMPI writes a run of an iterative MPI program on mpiRanks ranks with
// about n events in all, in the mix of point-to-point calls, messages and
// collectives that a stencil code's trace has, and the waits such a run
// has: MPI_Init, then iterations of a compute phase whose length varies
// by rank (one rank, drawn anew each iteration, is half as slow again),
// a halo exchange with both neighbours on a ring (MPI_Irecv twice,
// MPI_Isend twice, MPI_Waitall), a short local phase and an MPI_Allreduce,
// with an MPI_Barrier every tenth iteration and a blocking MPI_Send/MPI_Recv
// pair from every even rank to the next every fifth; then MPI_Finalize.
// The calls are nested in main and solve. Times are nanoseconds; the
// sequence is the same for every n and seed.
func genMPI(w mpiWriter, d *model.Defs, n int64) error {
	var locs [mpiRanks]model.LocID
	for i := range locs {
		locs[i] = d.AddLocation(model.Location{Name: fmt.Sprintf("rank %d", i), Native: int64(i), Process: int32(i)})
	}
	fn := func(name string, line int32) model.RegionID {
		return d.AddRegion(model.Region{Name: name, Kind: model.RegionFunction, Paradigm: model.ParadigmUser, File: "stencil.c", Line: line})
	}
	mpi := func(name string, k model.RegionKind) model.RegionID {
		return d.AddRegion(model.Region{Name: name, Kind: k, Paradigm: model.ParadigmMPI, Group: "MPI"})
	}
	mainR, solve, compute, pack := fn("main", 10), fn("solve", 40), fn("compute", 60), fn("pack", 80)
	initR, finalize := mpi("MPI_Init", model.RegionOther), mpi("MPI_Finalize", model.RegionOther)
	irecv, isend, waitall := mpi("MPI_Irecv", model.RegionComm), mpi("MPI_Isend", model.RegionComm), mpi("MPI_Waitall", model.RegionComm)
	send, recv := mpi("MPI_Send", model.RegionComm), mpi("MPI_Recv", model.RegionComm)
	allreduce, barrier := mpi("MPI_Allreduce", model.RegionCollective), mpi("MPI_Barrier", model.RegionCollective)
	world := d.AddComm(model.Comm{Native: 0, Name: "MPI_COMM_WORLD", Members: locs[:]})

	const perIter = 27 // events per rank and iteration, on average
	iters := max(n/(mpiRanks*perIter), 1)
	rng := rand.New(rand.NewPCG(1, 2))
	var evs [mpiRanks][]model.Event
	put := func(r int, e model.Event) { e.Loc = locs[r]; evs[r] = append(evs[r], e) }
	flush := func() error {
		for r := range evs {
			for i := range evs[r] {
				if err := w.Write(&evs[r][i]); err != nil {
					return err
				}
			}
			evs[r] = evs[r][:0]
		}
		return nil
	}
	enter := func(r int, t model.Time, reg model.RegionID) {
		put(r, model.Event{Time: t, Kind: model.KindEnter, Region: reg})
	}
	leave := func(r int, t model.Time, reg model.RegionID) {
		put(r, model.Event{Time: t, Kind: model.KindLeave, Region: reg})
	}

	// MPI_Init: the ranks start apart and leave together.
	var start [mpiRanks]model.Time
	var latest model.Time
	for r := range mpiRanks {
		start[r] = model.Time(1000 + rng.IntN(5000))
		enter(r, start[r], mainR)
		enter(r, start[r]+100, initR)
		latest = max(latest, start[r]+100)
	}
	t0 := latest + 20_000
	for r := range mpiRanks {
		leave(r, t0, initR)
		enter(r, t0+50, solve)
	}
	t0 += 100
	if err := flush(); err != nil {
		return err
	}
	var sendAt, waitEnd [mpiRanks]model.Time
	var sendLeft, sendRight [mpiRanks]model.Time
	for it := range iters {
		slow := rng.IntN(mpiRanks)
		tag := int32(it % 1000)
		// Compute, post the receives, start the sends.
		var waitEnter [mpiRanks]model.Time
		for r := range mpiRanks {
			t := t0 + model.Time(rng.IntN(200))
			work := model.Time(50_000 + rng.IntN(10_000))
			if r == slow {
				work += work / 2
			}
			enter(r, t, compute)
			t += work
			leave(r, t, compute)
			left, right := (r+mpiRanks-1)%mpiRanks, (r+1)%mpiRanks
			for i, peer := range [2]int{left, right} {
				enter(r, t+10, irecv)
				put(r, model.Event{Time: t + 20, Kind: model.KindRecvPost, Peer: locs[peer], Comm: world, Tag: tag, Match: uint64(i + 1)})
				leave(r, t+40, irecv)
				t += 40
			}
			for i, peer := range [2]int{right, left} {
				enter(r, t+10, isend)
				put(r, model.Event{Time: t + 20, Kind: model.KindSend, Peer: locs[peer], Comm: world, Tag: tag, Bytes: 65536, Match: uint64(i + 3)})
				leave(r, t+50, isend)
				if i == 0 {
					sendRight[r] = t + 10
				} else {
					sendLeft[r] = t + 10
				}
				t += 50
			}
			waitEnter[r] = t + 10
			sendAt[r] = t
		}
		// Waitall completes when both neighbours' messages have arrived.
		for r := range mpiRanks {
			left, right := (r+mpiRanks-1)%mpiRanks, (r+1)%mpiRanks
			e := waitEnter[r]
			fromLeft, fromRight := sendRight[left]+3000, sendLeft[right]+3000
			x := max(e+200, fromLeft+100, fromRight+100)
			enter(r, e, waitall)
			put(r, model.Event{Time: x - 60, Kind: model.KindRecv, Peer: locs[left], Comm: world, Tag: tag, Bytes: 65536, Match: 1})
			put(r, model.Event{Time: x - 50, Kind: model.KindRecv, Peer: locs[right], Comm: world, Tag: tag, Bytes: 65536, Match: 2})
			put(r, model.Event{Time: x - 40, Kind: model.KindSendDone, Match: 3})
			put(r, model.Event{Time: x - 30, Kind: model.KindSendDone, Match: 4})
			leave(r, x, waitall)
			waitEnd[r] = x
		}
		// Every fifth iteration, a blocking send from each even rank to
		// the next odd one, which receives it.
		if it%5 == 4 {
			for r := 0; r < mpiRanks; r += 2 {
				s, q := waitEnd[r]+100, waitEnd[r+1]+100
				enter(r, s, send)
				put(r, model.Event{Time: s + 10, Kind: model.KindSend, Peer: locs[r+1], Comm: world, Tag: 5000, Bytes: 1024})
				arrive := s + 2000
				xs := max(s+500, q+500)
				leave(r, xs, send)
				enter(r+1, q, recv)
				xr := max(q+100, arrive+100)
				put(r+1, model.Event{Time: xr - 10, Kind: model.KindRecv, Peer: locs[r], Comm: world, Tag: 5000, Bytes: 1024})
				leave(r+1, xr, recv)
				waitEnd[r], waitEnd[r+1] = xs, xr
			}
		}
		// A short local phase, then the Allreduce (and every tenth
		// iteration a barrier), which all leave together.
		latest = 0
		var collE [mpiRanks]model.Time
		for r := range mpiRanks {
			t := waitEnd[r] + 10
			enter(r, t, pack)
			t += model.Time(2000 + rng.IntN(1000))
			leave(r, t, pack)
			collE[r] = t + 10
			latest = max(latest, collE[r])
		}
		x := latest + 5000
		for r := range mpiRanks {
			enter(r, collE[r], allreduce)
			put(r, model.Event{Time: collE[r] + 5, Kind: model.KindCollBegin, Region: allreduce, Comm: world, Class: model.ClassAllToAll, Bytes: 8, Recvd: 8})
			put(r, model.Event{Time: x - 5, Kind: model.KindCollEnd})
			leave(r, x, allreduce)
		}
		t0 = x + 10
		if it%10 == 9 {
			x := t0 + 3000 + model.Time(mpiRanks)*10
			for r := range mpiRanks {
				e := t0 + model.Time(r*10)
				enter(r, e, barrier)
				put(r, model.Event{Time: e + 5, Kind: model.KindCollBegin, Region: barrier, Comm: world, Class: model.ClassBarrier})
				put(r, model.Event{Time: x - 5, Kind: model.KindCollEnd})
				leave(r, x, barrier)
			}
			t0 = x + 10
		}
		if err := flush(); err != nil {
			return err
		}
	}
	// MPI_Finalize: the ranks enter apart and leave together.
	latest = 0
	for r := range mpiRanks {
		leave(r, t0+model.Time(r), solve)
		enter(r, t0+model.Time(r)+10+model.Time(rng.IntN(3000)), finalize)
		latest = max(latest, evs[r][len(evs[r])-1].Time)
	}
	for r := range mpiRanks {
		leave(r, latest+1000, finalize)
		leave(r, latest+1100, mainR)
	}
	if err := flush(); err != nil {
		return err
	}
	return w.Close()
}

// BenchmarkMPIRun is the analysis over bench's generated MPI run, its
// events in memory.
func BenchmarkMPIRun(b *testing.B) {
	defs, evs := mpiRun(2_000_000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Analyze(model.NewSliceSource(defs, evs), nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(evs))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
