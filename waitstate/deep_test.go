package waitstate

import (
	"runtime"
	"syscall"
	"testing"

	"github.com/hpctrace/hpctrace/model"
)

// deepRun analyses n nested enters of f, each at its own time (so a gap
// between MPI calls holds n call paths), one MPI call inside the
// innermost, then n Leaves of g, which is not open, and returns the CPU
// time (user and system, in ns) and the bytes it allocated.
func deepRun(t *testing.T, n int) (cpu, bytes int64) {
	b := newTB(1)
	f, g := b.reg("f"), b.reg("g")
	for i := range n {
		b.add(model.Event{Kind: model.KindEnter, Loc: 1, Time: model.Time(i), Region: f})
	}
	b.call(1, model.Time(n), model.Time(n+1), "MPI_Barrier")
	for i := range n {
		b.add(model.Event{Kind: model.KindLeave, Loc: 1, Time: model.Time(n + 2 + i), Region: g})
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	c0 := cpuNS()
	rep := b.analyze(t, nil)
	cpu = cpuNS() - c0
	runtime.ReadMemStats(&ms)
	if got := rep.Diagnostics.LeaveMismatch; got != int64(n) {
		t.Fatalf("%d mismatched leaves, want %d", got, n)
	}
	return cpu, int64(ms.TotalAlloc - before)
}

func cpuNS() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// TestDeepNesting: a trace nested n deep, with Leaves of a region that is
// not open, costs time and memory in proportion to n, not n²: a gap's
// call paths are indexed, a Leave of a region not open is found so in
// O(1), and call path strings are made only for the report's rows (a
// string per node would take the square of the depth). The cost of 4n
// is compared with that of n in the same process: linear is 4 times,
// quadratic 16.
func TestDeepNesting(t *testing.T) {
	const n = 20_000
	deepRun(t, n/4) // warm up
	c1, b1 := deepRun(t, n)
	c4, b4 := deepRun(t, 4*n)
	if b4 > 8*b1 {
		t.Errorf("allocated %d bytes for depth %d, %d for %d: want about 4 times, not 16", b4, 4*n, b1, n)
	}
	if c4 > 10*c1 {
		t.Errorf("CPU %d ns for depth %d, %d for %d: want about 4 times, not 16", c4, 4*n, c1, n)
	}
}
