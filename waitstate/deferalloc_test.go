package waitstate

import "testing"

// TestDeferAllocs pins the allocations of an analysis that settles
// stretches (BenchmarkAnalyzeMPI's mix), per settled stretch: the
// deferred delay costs keep their records and snapshots in flat arrays
// reused from stretch to stretch (and delayCosts its arrays), so what a
// stretch allocates is mostly the other passes' storage. With a slice
// per snapshot and per record, and the snapshots' maps of pointers, it
// was more than twice as much. Allocations, unlike time, do not depend
// on how busy the machine is.
func TestDeferAllocs(t *testing.T) {
	defs, evs := mpiWorkload(16, 2000)
	var epochs int32
	allocs := testing.AllocsPerRun(1, func() {
		a := New(defs, nil)
		for i := range evs {
			a.Add(&evs[i])
		}
		if _, err := a.Finalize(); err != nil {
			t.Fatal(err)
		}
		epochs = a.st.epochs
	})
	if epochs < 10 {
		t.Fatalf("%d settled stretches; the test needs many", epochs)
	}
	perStretch := allocs / float64(epochs)
	t.Logf("%.0f allocations, %d settled stretches: %.1f a stretch", allocs, epochs, perStretch)
	if perStretch > 1500 {
		t.Errorf("%.1f allocations a settled stretch, want at most 1500", perStretch)
	}
}
