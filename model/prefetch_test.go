package model_test

import (
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hpctrace/hpctrace/model"
	"pgregory.net/rapid"
)

// scriptSource is a Source that interleaves definitions with events, as a
// reader meeting late definitions does. Each event carries in Match a
// digest of the definitions at the time it is yielded, and in Time its
// index. It fails with err after its steps if err is set.
type scriptSource struct {
	defs  model.Defs
	steps []step
	i     int
	n     int64
	ev    model.Event
	err   error
	calls int // calls to Next, read by tests after the Prefetcher stopped
}

type step struct {
	op   int // 0: event; 1–8: add a definition of some kind; 9: add a Recorded value; 10: rewrite one; 11: describe the relative statistics; 12: set the bounds
	kind model.Kind
}

func (s *scriptSource) Defs() *model.Defs   { return &s.defs }
func (s *scriptSource) Event() *model.Event { return &s.ev }
func (s *scriptSource) Err() error {
	if s.i >= len(s.steps) {
		return s.err
	}
	return nil
}

func (s *scriptSource) Next() bool {
	s.calls++
	d := &s.defs
	for s.i < len(s.steps) {
		st := s.steps[s.i]
		s.i++
		k := int64(s.i)
		switch st.op {
		case 0:
			s.ev = model.Event{Time: model.Time(s.n), Kind: st.kind, Loc: model.LocID(d.NumLocations()), Match: digest(d)}
			s.n++
			return true
		case 1:
			d.AddLocation(model.Location{Native: k, Name: fmt.Sprint("loc", k)})
		case 2:
			d.AddRegion(model.Region{Native: k, Name: fmt.Sprint("reg", k), Kind: model.RegionFunction})
		case 3:
			d.AddSite(model.Site{File: "a.c", Line: int32(k)})
		case 4:
			d.AddComm(model.Comm{Native: k, Members: []model.LocID{1, 2}})
		case 5:
			d.AddCounter(model.Counter{Native: k, Name: "c"})
		case 6:
			d.AddSubset(model.Subset{Native: -k, Members: []int64{k}})
		case 7:
			d.Intern(fmt.Sprint("text", k))
		case 8:
			d.TimeBase.TicksPerSecond = uint64(k)
		case 9:
			d.Recorded = append(d.Recorded, model.Recorded{Kind: model.RecordedCount, Value: k})
		case 10:
			if len(d.Recorded) > 0 {
				d.Recorded[0].Value = -k
			}
		case 11:
			d.Relative = &model.RelativeStats{RelativeTo: []int64{-1, k}}
		case 12:
			d.Bounds = model.Bounds{Start: model.Time(k), End: model.Time(2 * k), Known: true}
		}
	}
	return false
}

// bulkScript is a scriptSource that is also a BulkSource: it copies runs of
// events up to the next definition step, or fewer, as drawn.
type bulkScript struct {
	*scriptSource
	max int // events per ReadEvents at most; 0 means no limit
}

func (b bulkScript) ReadEvents(dst []model.Event) int {
	s := b.scriptSource
	if b.max > 0 && len(dst) > b.max {
		dst = dst[:b.max]
	}
	n := 0
	for n < len(dst) && s.i < len(s.steps) && s.steps[s.i].op == 0 {
		s.Next()
		dst[n] = s.ev
		n++
	}
	return n
}

// digest summarises the sizes of d's tables.
func digest(d *model.Defs) uint64 {
	n := 0
	for d.String(model.StringID(n+1)) != "" {
		n++
	}
	rel := 0
	if d.Relative != nil {
		rel = int(d.Relative.RelativeTo[1])
	}
	var h uint64
	for _, v := range []int{rel, d.NumLocations(), d.NumRegions(), len(d.Sites()), len(d.Comms()), len(d.Counters()), len(d.Subsets()), n, len(d.Recorded), int(d.TimeBase.TicksPerSecond)} {
		h = h*1000003 + uint64(v)
	}
	return h
}

func defsTables(d *model.Defs) map[string]any {
	var strs []string
	for i := 1; d.String(model.StringID(i)) != ""; i++ {
		strs = append(strs, d.String(model.StringID(i)))
	}
	return map[string]any{
		"tb": d.TimeBase, "recorded": d.Recorded, "locs": d.Locations(), "regions": d.Regions(), "sites": d.Sites(),
		"comms": d.Comms(), "counters": d.Counters(), "subsets": d.Subsets(), "strings": strs, "relative": d.Relative, "bounds": d.Bounds,
	}
}

func genScript(t *rapid.T) []step {
	return rapid.SliceOfN(rapid.Custom(func(t *rapid.T) step {
		if rapid.IntRange(0, 2).Draw(t, "isEvent") > 0 {
			return step{kind: model.Kind(rapid.IntRange(1, 8).Draw(t, "kind"))}
		}
		return step{op: rapid.IntRange(1, 12).Draw(t, "op")}
	}), 0, 300).Draw(t, "steps")
}

// TestPrefetcher: a Prefetcher yields the source's events and error, each
// with the definitions the source had when it yielded it, for any batch
// size.
func TestPrefetcher(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		steps := genScript(t)
		var err error
		if rapid.Bool().Draw(t, "fails") {
			err = errors.New("broken")
		}
		opts := &model.PrefetchOptions{
			BatchEvents: rapid.IntRange(1, 9).Draw(t, "batch"),
			Batches:     rapid.IntRange(0, 4).Draw(t, "batches"),
		}
		direct := &scriptSource{steps: steps, err: err}
		var want []model.Event
		for direct.Next() {
			want = append(want, *direct.Event())
		}
		src := &scriptSource{steps: steps, err: err}
		var s model.Source = src
		if rapid.Bool().Draw(t, "bulk") {
			s = bulkScript{src, rapid.IntRange(0, 5).Draw(t, "bulkMax")}
		}
		p := model.NewPrefetcher(s, opts)
		if *p.Event() != (model.Event{}) {
			t.Fatalf("Event before Next = %+v, want zero", *p.Event())
		}
		var got []model.Event
		for p.Next() {
			ev := *p.Event()
			if d := digest(p.Defs()); d != ev.Match {
				t.Fatalf("event %d: definitions digest %d, want %d", len(got), d, ev.Match)
			}
			got = append(got, ev)
		}
		if !errors.Is(p.Err(), direct.Err()) || (p.Err() == nil) != (direct.Err() == nil) {
			t.Fatalf("Err() = %v, want %v", p.Err(), direct.Err())
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("events (-direct +prefetched):\n%s", diff)
		}
		// The goroutine has exited: src is ours again (-race checks it).
		if diff := cmp.Diff(defsTables(&src.defs), defsTables(p.Defs()), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("definitions at the end (-source +prefetched):\n%s", diff)
		}
		if p.Next() {
			t.Fatal("Next after the end returned true")
		}
		p.Close()
		p.Close()
	})
}

// endless yields the same event forever.
type endless struct {
	defs  model.Defs
	ev    model.Event
	calls int
}

func (e *endless) Next() bool          { e.calls++; e.ev.Time++; return true }
func (e *endless) Event() *model.Event { return &e.ev }
func (e *endless) Err() error          { return nil }
func (e *endless) Defs() *model.Defs   { return &e.defs }

func TestPrefetcherAllocs(t *testing.T) {
	p := model.NewPrefetcher(&endless{}, &model.PrefetchOptions{BatchEvents: 64})
	defer p.Close()
	for range 1000 {
		p.Next()
	}
	if n := testing.AllocsPerRun(10000, func() { p.Next() }); n != 0 {
		t.Fatalf("Next allocates %.3f times per event; want 0", n)
	}
}

// TestPrefetcherClose: Close stops the goroutine of a consumer that stops
// early, and of one that never started; afterwards the source is the
// caller's again and no goroutine is left.
func TestPrefetcherClose(t *testing.T) {
	before := runtime.NumGoroutine()
	src := &endless{}
	p := model.NewPrefetcher(src, &model.PrefetchOptions{BatchEvents: 16, Batches: 3})
	for range 100 {
		if !p.Next() {
			t.Fatal("Next returned false")
		}
	}
	if got := p.Event().Time; got != 100 {
		t.Fatalf("event time %d, want 100", got)
	}
	p.Close()
	if p.Next() {
		t.Fatal("Next after Close returned true")
	}
	if p.Err() != nil {
		t.Fatalf("Err after Close = %v", p.Err())
	}
	// The source read at most the ring ahead of the consumer.
	if src.calls > 100+16*3+1 {
		t.Errorf("source read %d events for 100 consumed", src.calls)
	}
	src.Next() // the goroutine is gone, so this does not race

	q := model.NewPrefetcher(&endless{}, nil)
	q.Close()
	if q.Next() {
		t.Fatal("Next after Close returned true")
	}
	waitGoroutines(t, before)
}

// TestPrefetcherError: a source failing midway ends the stream with its
// error after the events before it, and its goroutine exits.
func TestPrefetcherError(t *testing.T) {
	before := runtime.NumGoroutine()
	broken := errors.New("broken")
	var steps []step
	for range 5000 {
		steps = append(steps, step{kind: model.KindEnter})
	}
	src := &scriptSource{steps: steps, err: broken}
	p := model.NewPrefetcher(src, &model.PrefetchOptions{BatchEvents: 100})
	n := 0
	for ev, err := range p.All() {
		if err != nil {
			if !errors.Is(err, broken) {
				t.Fatalf("error %v, want %v", err, broken)
			}
			break
		}
		if ev.Time != model.Time(n) {
			t.Fatalf("event %d has time %d", n, ev.Time)
		}
		n++
	}
	if n != 5000 {
		t.Fatalf("%d events before the error, want 5000", n)
	}
	if src.calls != 5001 {
		t.Fatalf("source Next called %d times, want 5001", src.calls)
	}
	waitGoroutines(t, before)
}

// waitGoroutines waits a little for the number of goroutines to come back
// to n.
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	for range 100 {
		if runtime.NumGoroutine() <= n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%d goroutines, want %d", runtime.NumGoroutine(), n)
}

// TestPrefetcherBreak: range loops over All that break at random points
// lose and repeat nothing, keep the definitions in step, and leave no
// goroutine behind while the consumer does something else.
func TestPrefetcherBreak(t *testing.T) {
	before := runtime.NumGoroutine()
	rapid.Check(t, func(t *rapid.T) {
		steps := genScript(t)
		var err error
		if rapid.Bool().Draw(t, "fails") {
			err = errors.New("broken")
		}
		opts := &model.PrefetchOptions{
			BatchEvents: rapid.IntRange(1, 9).Draw(t, "batch"),
			Batches:     rapid.IntRange(0, 4).Draw(t, "batches"),
		}
		direct := &scriptSource{steps: steps, err: err}
		var want []model.Event
		for direct.Next() {
			want = append(want, *direct.Event())
		}
		src := &scriptSource{steps: steps, err: err}
		var s model.Source = src
		if rapid.Bool().Draw(t, "bulk") {
			s = bulkScript{src, rapid.IntRange(0, 5).Draw(t, "bulkMax")}
		}
		p := model.NewPrefetcher(s, opts)
		var got []model.Event
		var gotErr error
		for loops := 0; ; loops++ {
			if loops > len(want)+2 {
				t.Fatalf("%d loops for %d events", loops, len(want))
			}
			k := rapid.IntRange(1, 12).Draw(t, "loopEvents")
			n, ended := 0, true
			for ev, err := range p.All() {
				if err != nil {
					gotErr = err
					break
				}
				if d := digest(p.Defs()); d != ev.Match {
					t.Fatalf("event %d: definitions digest %d, want %d", len(got), d, ev.Match)
				}
				got = append(got, *ev)
				if n++; n == k {
					ended = false
					break
				}
			}
			if ended {
				break
			}
			// Paused: the source is not being read (-race checks it).
			_ = src.calls
		}
		if (gotErr == nil) != (direct.Err() == nil) {
			t.Fatalf("error %v, want %v", gotErr, direct.Err())
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("events (-direct +prefetched):\n%s", diff)
		}
		if diff := cmp.Diff(defsTables(&src.defs), defsTables(p.Defs()), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("definitions at the end (-source +prefetched):\n%s", diff)
		}
	})
	waitGoroutines(t, before)
}

// TestPrefetcherEarlyBreakLeak: 100 loops abandoned after a break, without
// Close, leave no goroutine running; neither do 100 breaks on one
// Prefetcher, whose events continue in order.
func TestPrefetcherEarlyBreakLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	for range 100 {
		p := model.NewPrefetcher(&endless{}, &model.PrefetchOptions{BatchEvents: 64})
		for ev := range p.All() {
			if ev.Time == 10 {
				break
			}
		}
	}
	waitGoroutines(t, before) // after 100 abandoned loops
	src := &endless{}
	p := model.NewPrefetcher(src, &model.PrefetchOptions{BatchEvents: 64})
	next := model.Time(1)
	for range 100 {
		for ev := range p.All() {
			if ev.Time != next {
				t.Fatalf("event time %d, want %d", ev.Time, next)
			}
			next++
			if next%7 == 0 {
				break
			}
		}
		waitGoroutines(t, before)
	}
	src.Next() // paused: the source is ours (-race checks it)
	p.Close()
}

// TestPrefetcherSharesDefs: a Prefetcher over a source of many locations
// and regions does not copy them (a location or region costs only its
// entry in a native-id index, tens of bytes with the index's growth; a
// copy of them allocated about 700), and its definitions stay its own:
// the source's later definitions show in it only with the events they
// come before, and the ones it had are unchanged.
func TestPrefetcherSharesDefs(t *testing.T) {
	const n = 20000
	defs := &model.Defs{}
	for i := range n {
		defs.AddLocation(model.Location{Native: int64(i), Name: "rank"})
		defs.AddRegion(model.Region{Native: int64(i), Name: "f", Kind: model.RegionFunction})
	}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	p := model.NewPrefetcher(model.NewSliceSource(defs, nil), nil)
	runtime.ReadMemStats(&m1)
	defer p.Close()
	if got := (m1.TotalAlloc - m0.TotalAlloc) / n; got > 64 {
		t.Errorf("NewPrefetcher allocates %d bytes per location and region, want at most 64 (no copy of them)", got)
	}
	if got := p.Defs().NumLocations(); got != n {
		t.Fatalf("%d locations, want %d", got, n)
	}
	if id, ok := p.Defs().LocationByNative(n - 1); !ok || id != n {
		t.Errorf("LocationByNative(%d) = %d, %v, want %d", n-1, id, ok, n)
	}
	if id, ok := p.Defs().RegionByNative(7); !ok || id != 8 {
		t.Errorf("RegionByNative(7) = %d, %v, want 8", id, ok)
	}
	// The source's next location does not appear in the Prefetcher's
	// definitions, nor replace one of them.
	defs.AddLocation(model.Location{Native: n, Name: "late"})
	if got := p.Defs().NumLocations(); got != n {
		t.Errorf("after the source added one: %d locations, want %d", got, n)
	}
	p.Defs().AddLocation(model.Location{Native: n + 1, Name: "mine"})
	if l, _ := defs.Location(n + 1); l.Name != "late" {
		t.Errorf("the source's location %d is %q after the Prefetcher's copy added one, want %q", n+1, l.Name, "late")
	}
}
