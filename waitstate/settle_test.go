package waitstate

import (
	"os"
	"reflect"
	"runtime"
	"testing"

	"github.com/hpctrace/hpctrace/model"
	"pgregory.net/rapid"
)

// analyzeSettling runs the analysis of evs settling every stretch of at
// least min MPI calls (KeepLogs: none), and reports the intervals
// settled.
func analyzeSettling(t testing.TB, defs *model.Defs, evs []model.Event, opts Options, min int) (*Report, int32) {
	t.Helper()
	a := New(defs, &opts)
	if a.st != nil {
		a.st.min = min
	}
	for i := range evs {
		a.Add(&evs[i])
	}
	n := int32(0)
	if a.st != nil {
		n = a.st.epochs
	}
	r, err := a.Finalize()
	if err != nil {
		t.Fatal(err)
	}
	return r, n
}

// TestSettleEqual: settling the analysis at every collective over all
// locations gives the report of the analysis that keeps every log, on
// generated programs (every pattern, wrong-order receives, Waitall,
// rendezvous sends, non-blocking collectives) and on bench's MPI run.
func TestSettleEqual(t *testing.T) {
	settledAny := 0
	rapid.Check(t, func(rt *rapid.T) {
		p := genProgram().Draw(rt, "program")
		opts := Options{Instances: true, TopN: rapid.IntRange(-1, 4).Draw(rt, "top")}
		keep := opts
		keep.KeepLogs = true
		want, _ := analyzeSettling(t, p.defs, p.events, keep, 0)
		got, n := analyzeSettling(t, p.defs, p.events, opts, 1)
		if n > 0 {
			settledAny++
		}
		if !reflect.DeepEqual(got, want) {
			rt.Fatalf("%d intervals settled: report differs\ngot  %+v\nwant %+v", n, got, want)
		}
	})
	if settledAny == 0 {
		t.Fatal("no generated program settled an interval")
	}
	defs, evs := mpiRun(300_000)
	want, _ := analyzeSettling(t, defs, evs, Options{KeepLogs: true, TopN: 5}, 0)
	for _, min := range []int{1, 1000, settleMin} {
		got, n := analyzeSettling(t, defs, evs, Options{TopN: 5}, min)
		if n == 0 {
			t.Errorf("min %d: no interval settled", min)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("min %d, %d intervals settled: the report differs from the one kept whole", min, n)
		}
	}
}

// TestHeldFlat: the bytes an Analyzer holds once every event of bench's
// MPI run is added do not grow with the run's length (they are those of
// one settled stretch and of the call paths, locations and settled rows);
// and its spill file is gone after Finalize. With every log kept, they
// grow in proportion to the MPI calls (TestBytesPerCall).
func TestHeldFlat(t *testing.T) {
	dir := t.TempDir()
	held := func(n int64) (uint64, int32) {
		defs, evs := mpiRun(n)
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		a := New(defs, &Options{SpillDir: dir})
		for i := range evs {
			a.Add(&evs[i])
		}
		runtime.GC()
		runtime.ReadMemStats(&m1)
		runtime.KeepAlive(evs)
		var epochs int32
		if a.st != nil {
			epochs = a.st.epochs
		}
		if _, err := a.Finalize(); err != nil {
			t.Fatal(err)
		}
		runtime.KeepAlive(a)
		return max(m1.HeapAlloc, m0.HeapAlloc) - m0.HeapAlloc, epochs
	}
	small, se := held(300_000)
	big, be := held(1_500_000)
	t.Logf("held after adding: %d bytes at 3·10^5 events (%d intervals settled), %d at 1.5·10^6 (%d)", small, se, big, be)
	if big > small+small/2+(256<<10) {
		t.Errorf("held %d bytes at 1.5·10^6 events, %d at 3·10^5: grows with the trace's length", big, small)
	}
	if ents, err := os.ReadDir(dir); err != nil || len(ents) > 0 {
		t.Errorf("spill directory after Finalize: %v entries, %v", len(ents), err)
	}
}
