package waitstate

import (
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

func BenchmarkAnalyze(b *testing.B) {
	defs, evs := workload(16, 2000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Analyze(model.NewSliceSource(defs, evs), nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(evs))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

func BenchmarkAdd(b *testing.B) {
	defs, evs := workload(16, 2000)
	b.ReportAllocs()
	for b.Loop() {
		a := New(defs, nil)
		for i := range evs {
			a.Add(&evs[i])
		}
	}
	b.ReportMetric(float64(len(evs))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// TestAddAllocs pins that Add allocates nothing per event in the steady
// state: only the growth of the logs allocates, which doubling makes
// rarer than once per iteration of the workload.
func TestAddAllocs(t *testing.T) {
	defs, evs := workload(4, 3000)
	a := New(defs, nil)
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
