package waitstate

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/hpctrace/hpctrace/model"
)

// analyzeParallel analyses evs keeping every log, then finalizes as
// Options.Workers does with the given workers, cutting stretches of at
// least min calls; it reports the stretches settled.
func analyzeParallel(t testing.TB, defs *model.Defs, evs []model.Event, opts Options, workers, min int) (*Report, int32) {
	t.Helper()
	opts.KeepLogs = true
	a := New(defs, &opts)
	for i := range evs {
		a.Add(&evs[i])
	}
	a.end()
	a.settleLogs(workers, min)
	r, err := a.Finalize()
	if err != nil {
		t.Fatal(err)
	}
	return r, a.st.epochs
}

// TestParallelFinalizeEqual: Finalize of kept logs cut at their settling
// points and analysed by several goroutines gives the report of the
// logs analysed whole, on generated programs (every pattern, wrong-order
// receives, Waitall, rendezvous sends, non-blocking collectives) and on
// bench's MPI run, whatever the number of workers and the size of the
// stretches.
func TestParallelFinalizeEqual(t *testing.T) {
	cutAny := 0
	rapid.Check(t, func(rt *rapid.T) {
		p := genProgram().Draw(rt, "program")
		opts := Options{Instances: true, TopN: rapid.IntRange(-1, 4).Draw(rt, "top"), KeepLogs: true}
		want, err := New(p.defs, &opts).analyzeAll(p.events)
		if err != nil {
			rt.Fatal(err)
		}
		workers := rapid.IntRange(1, 4).Draw(rt, "workers")
		min := rapid.IntRange(1, 20).Draw(rt, "min")
		got, n := analyzeParallel(t, p.defs, p.events, opts, workers, min)
		if n > 0 {
			cutAny++
		}
		if diff := cmp.Diff(want, got); diff != "" {
			rt.Fatalf("%d stretches cut, %d workers (-whole +parallel):\n%s", n, workers, diff)
		}
		if !bytes.Equal(textOf(rt, want), textOf(rt, got)) {
			rt.Fatal("text and JSON differ")
		}
	})
	if cutAny == 0 {
		t.Fatal("no generated program was cut")
	}
	defs, evs := mpiRun(300_000)
	want, err := New(defs, &Options{KeepLogs: true, TopN: 5}).analyzeAll(evs)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ workers, min int }{{1, 1}, {3, 1}, {4, 1000}, {2, settleMin}} {
		got, n := analyzeParallel(t, defs, evs, Options{TopN: 5}, c.workers, c.min)
		if n < 2 {
			t.Errorf("%d workers, min %d: %d stretches cut, want 2 or more", c.workers, c.min, n)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%d workers, min %d, %d stretches cut: the report differs from the one of the whole logs", c.workers, c.min, n)
		}
	}
}

// TestParallelFinalizeShards: shards that keep their logs, joined and
// finalized with Options.Workers, give the report of one pass; a second
// Finalize returns it again, and MarshalBinary then fails.
func TestParallelFinalizeShards(t *testing.T) {
	defs, evs := mpiRun(200_000)
	want, err := Analyze(model.NewSliceSource(defs, evs), &Options{TopN: 4})
	if err != nil {
		t.Fatal(err)
	}
	opts := &Options{TopN: 4, KeepLogs: true, Workers: 3}
	as := []*Analyzer{New(defs, opts), New(defs, opts)}
	for i := range evs {
		as[int(evs[i].Loc)%2].Add(&evs[i])
	}
	if err := as[0].Join(as[1]); err != nil {
		t.Fatal(err)
	}
	got, err := as[0].Finalize()
	if err != nil {
		t.Fatal(err)
	}
	if as[0].st == nil || as[0].st.epochs == 0 {
		t.Fatal("the joined logs were not cut")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("joined shards (-one pass +parallel finalize):\n%s", diff)
	}
	again, err := as[0].Finalize()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got, again); diff != "" {
		t.Fatalf("second Finalize (-first +second):\n%s", diff)
	}
	if _, err := as[0].MarshalBinary(); err == nil {
		t.Fatal("MarshalBinary after a parallel Finalize: no error")
	}
}

// analyzeAll adds evs and finalizes with one goroutine.
func (a *Analyzer) analyzeAll(evs []model.Event) (*Report, error) {
	for i := range evs {
		a.Add(&evs[i])
	}
	return a.Finalize()
}
