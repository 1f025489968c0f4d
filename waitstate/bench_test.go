package waitstate

import (
	"math/rand/v2"
	"testing"

	"github.com/hpctrace/hpctrace/model"
)

// workload builds iters iterations of a halo-exchange code on nloc
// locations: per iteration, on each location, nested computation (main/
// solve/compute/kernel), non-blocking sends and receives to both ring
// neighbours completed by one MPI_Waitall, and every fourth iteration an
// MPI_Allreduce; each location's events in order, locations interleaved
// per iteration. Location l is a little slower than l-1, so that waits
// occur. It returns the definitions and the events.
func workload(nloc, iters int) (*model.Defs, []model.Event) {
	b := newTB(nloc)
	for l := 1; l <= nloc; l++ {
		b.enter(model.LocID(l), 0, "main")
	}
	clock := make([]model.Time, nloc+1)
	for it := range iters {
		for l := 1; l <= nloc; l++ {
			loc := model.LocID(l)
			left, right := model.LocID((l+nloc-2)%nloc+1), model.LocID(l%nloc+1)
			t := clock[l]
			b.enter(loc, t, "solve")
			b.enter(loc, t+1, "compute")
			b.call(loc, t+2, t+50+model.Time(l), "kernel")
			b.leave(loc, t+60+model.Time(l), "compute")
			t += 60 + model.Time(l)
			b.call(loc, t, t+2, "MPI_Irecv", post(1))
			b.call(loc, t+2, t+4, "MPI_Irecv", post(2))
			b.call(loc, t+4, t+6, "MPI_Isend", isend(right, 0, 3))
			b.call(loc, t+6, t+8, "MPI_Isend", isend(left, 1, 4))
			b.call(loc, t+8, t+30, "MPI_Waitall", recvReq(left, 0, 1), recvReq(right, 1, 2), done(3), done(4))
			t += 30
			if it%4 == 3 {
				b.call(loc, t, t+20, "MPI_Allreduce", coll(0, 8))
				t += 20
			}
			b.leave(loc, t+1, "solve")
			clock[l] = t + 2
		}
	}
	for l := 1; l <= nloc; l++ {
		b.leave(model.LocID(l), clock[l], "main")
	}
	return b.defs, b.ev
}

// BenchmarkAnalyze reports the rate of the whole analysis (Add of every
// event, then Finalize), in events per second of wall time and per CPU
// second of the process (cpu-events/s, the figure to compare on a busy
// machine; run it with GOMAXPROCS=1).
func BenchmarkAnalyze(b *testing.B) {
	defs, evs := workload(16, 2000)
	b.ReportAllocs()
	c0 := cpuNS()
	for b.Loop() {
		if _, err := Analyze(model.NewSliceSource(defs, evs), nil); err != nil {
			b.Fatal(err)
		}
	}
	reportRate(b, len(evs), cpuNS()-c0)
}

// BenchmarkAdd reports the rate of Add alone, settling included (see
// BenchmarkAnalyze).
func BenchmarkAdd(b *testing.B) {
	defs, evs := workload(16, 2000)
	b.ReportAllocs()
	c0 := cpuNS()
	for b.Loop() {
		a := New(defs, nil)
		for i := range evs {
			a.Add(&evs[i])
		}
	}
	reportRate(b, len(evs), cpuNS()-c0)
}

// reportRate reports the events per wall second and per CPU second of b's
// loop, which processed n events per iteration in cpu ns of CPU time.
func reportRate(b *testing.B, n int, cpu int64) {
	total := float64(n) * float64(b.N)
	b.ReportMetric(total/b.Elapsed().Seconds(), "events/s")
	if cpu > 0 {
		b.ReportMetric(total/(float64(cpu)/1e9), "cpu-events/s")
	}
}

// TestAddAllocs pins that Add allocates nothing per event in the steady
// state: only the growth of the logs allocates, which doubling makes
// rarer than once per iteration of the workload. The logs are kept:
// settling a stretch (at a horizon, every some ten thousand calls of
// this workload) allocates the analysis of the stretch, which is
// Finalize's cost spread over the run, not Add's.
func TestAddAllocs(t *testing.T) {
	defs, evs := workload(4, 3000)
	a := New(defs, &Options{KeepLogs: true})
	per := len(evs) / 3000
	i := 0
	for ; i < 1000*per; i++ {
		a.Add(&evs[i])
	}
	n := testing.AllocsPerRun(1000, func() {
		for range per {
			a.Add(&evs[i])
			i++
		}
	})
	if n != 0 {
		t.Fatalf("Add allocates %.1f times per iteration of %d events; want 0", n, per)
	}
}

// mpiWorkload builds iters iterations of the MPI run of the benchmark
// harness (bench/mpi.go genMPI) on nloc locations: per iteration a
// compute phase of which one location, drawn anew, is half as slow
// again; a halo exchange with both ring neighbours (two MPI_Irecv, two
// MPI_Isend, MPI_Waitall) under a tag of the iteration; every fifth a
// blocking MPI_Send from each odd location to the next; a short local
// phase and an MPI_Allreduce, and every tenth an MPI_Barrier. Its
// collectives over every location let the Analyzer settle as it goes.
func mpiWorkload(nloc, iters int) (*model.Defs, []model.Event) {
	b := newTB(nloc)
	rng := rand.New(rand.NewPCG(1, 2))
	clock := make([]model.Time, nloc+1)
	for l := 1; l <= nloc; l++ {
		b.enter(model.LocID(l), 0, "main")
		b.call(model.LocID(l), 10, 1000, "MPI_Init")
		b.enter(model.LocID(l), 1010, "solve")
		clock[l] = 1020
	}
	ring := func(l, d int) model.LocID { return model.LocID((l-1+d+nloc)%nloc + 1) }
	for it := range iters {
		slow := 1 + rng.IntN(nloc)
		tag := int32(it % 1000)
		var latest model.Time
		for l := 1; l <= nloc; l++ {
			loc, t := model.LocID(l), clock[l]
			work := model.Time(50_000 + rng.IntN(10_000))
			if l == slow {
				work += work / 2
			}
			b.call(loc, t, t+work, "compute")
			t += work
			b.call(loc, t+10, t+40, "MPI_Irecv", post(1))
			b.call(loc, t+50, t+80, "MPI_Irecv", post(2))
			b.call(loc, t+90, t+140, "MPI_Isend", isend(ring(l, 1), tag, 3))
			b.call(loc, t+150, t+200, "MPI_Isend", isend(ring(l, -1), tag, 4))
			clock[l] = t + 210
		}
		for l := 1; l <= nloc; l++ {
			loc, t := model.LocID(l), clock[l]
			x := max(clock[ring(l, -1)], clock[ring(l, 1)], t) + 3000
			b.call(loc, t, x, "MPI_Waitall", recvReq(ring(l, -1), tag, 1), recvReq(ring(l, 1), tag, 2), done(3), done(4))
			clock[l] = x + 10
		}
		if it%5 == 4 {
			for l := 1; l+1 <= nloc; l += 2 {
				s, r := clock[l], clock[l+1]
				x := max(s, r) + 2000
				b.call(model.LocID(l), s, x, "MPI_Send", send(model.LocID(l+1), 5000))
				b.call(model.LocID(l+1), r, x+100, "MPI_Recv", recv(model.LocID(l), 5000))
				clock[l], clock[l+1] = x+10, x+110
			}
		}
		for l := 1; l <= nloc; l++ {
			t := clock[l] + model.Time(2000+rng.IntN(1000))
			b.call(model.LocID(l), clock[l], t, "pack")
			clock[l] = t + 10
			latest = max(latest, clock[l])
		}
		colls := []string{"MPI_Allreduce"}
		if it%10 == 9 {
			colls = append(colls, "MPI_Barrier")
		}
		for _, name := range colls {
			for l := 1; l <= nloc; l++ {
				b.call(model.LocID(l), clock[l], latest+5000, name, coll(0, 8))
				clock[l] = latest + 5010
			}
			latest += 5010
		}
	}
	for l := 1; l <= nloc; l++ {
		loc, t := model.LocID(l), clock[l]
		b.leave(loc, t, "solve")
		b.call(loc, t+10, t+2000, "MPI_Finalize")
		b.leave(loc, t+2100, "main")
	}
	return b.defs, b.ev
}

// BenchmarkAnalyzeMPI is BenchmarkAnalyze on the mix of the harness's
// MPI run (mpiWorkload), which settles an interval every few thousand
// iterations of its 16 locations.
func BenchmarkAnalyzeMPI(b *testing.B) {
	defs, evs := mpiWorkload(16, 2000)
	b.ReportAllocs()
	c0 := cpuNS()
	for b.Loop() {
		if _, err := Analyze(model.NewSliceSource(defs, evs), nil); err != nil {
			b.Fatal(err)
		}
	}
	reportRate(b, len(evs), cpuNS()-c0)
}
