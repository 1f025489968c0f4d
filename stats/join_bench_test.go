package stats_test

import (
	"syscall"
	"testing"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
)

// joinShards returns the two halves (locations 1-4 and 5-8) of rounds of
// the synthetic workload, each fed to an accumulator of its own, and the
// items that wait for the other half until Join: the messages between
// them (two a round, 4→5 and 8→1) and the barriers (every 16th round).
func joinShards(tb testing.TB, rounds int64) (a, b *stats.Accumulator, items int) {
	a, b = stats.New(synthDefs(), nil), stats.New(synthDefs(), nil)
	var buf []model.Event
	for r := range rounds {
		buf = synthRound(buf, r)
		for i := range buf {
			if buf[i].Loc <= synthLocs/2 {
				a.Add(&buf[i])
			} else {
				b.Add(&buf[i])
			}
		}
	}
	return a, b, int(2*rounds + rounds/16)
}

// BenchmarkJoinShards measures Join of two shards of the synthetic
// workload whose ring crosses between them: the cost of each message and
// collective instance held for the other shard (ns/item).
func BenchmarkJoinShards(b *testing.B) {
	x, y, items := joinShards(b, 1<<15)
	state, err := x.MarshalBinary()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var cpu int64 // process CPU ns in Join, less noisy than the wall time on a shared machine
	for b.Loop() {
		b.StopTimer()
		a := new(stats.Accumulator)
		if err := a.UnmarshalBinary(state); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		c0 := processCPU()
		if err := a.Join(y); err != nil {
			b.Fatal(err)
		}
		cpu += processCPU() - c0
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(items), "ns/item")
	b.ReportMetric(float64(cpu)/float64(b.N)/float64(items), "cpu-ns/item")
}

// processCPU returns the user and system CPU time of the process in ns.
func processCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
