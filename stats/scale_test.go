package stats

import (
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/hpctrace/hpctrace/internal/cputime"
	"github.com/hpctrace/hpctrace/model"
	"pgregory.net/rapid"
)

// denseImbalance is the direct computation over every seen location, the
// reference for the sparse imbalance.
func denseImbalance(vals []int64, locs []model.LocID, defs *model.Defs) ImbalanceStat {
	var s ImbalanceStat
	n := len(vals)
	if n == 0 {
		return s
	}
	var sum int64
	for i, v := range vals {
		if i == 0 || v > s.Max {
			s.Max, s.ArgMaxID = v, locs[i]
		}
		if i == 0 || v < s.Min {
			s.Min = v
		}
		sum += v
	}
	l, _ := defs.Location(s.ArgMaxID)
	s.ArgMaxLoc = l.Native
	mean := float64(sum) / float64(n)
	s.Mean = F6(mean)
	s.Lost = F6(float64(s.Max) - mean)
	if mean != 0 {
		r := F6(float64(s.Max) / mean)
		p := F6((float64(s.Max)/mean - 1) * 100)
		s.ImbalanceRatio, s.PercentImbalance = &r, &p
		if n >= 2 {
			var ss float64
			for _, v := range vals {
				d := float64(v) - mean
				ss += d * d
			}
			s.COV = F6(math.Sqrt(ss/float64(n-1)) / mean)
		}
	}
	return s
}

// TestImbalanceSparse checks the sparse imbalance against the dense one:
// absent locations count as zero, ties go to the first location. The sum of
// squares is added in another order, so COV may differ in the last bits.
func TestImbalanceSparse(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		defs := new(model.Defs)
		n := rapid.IntRange(0, 8).Draw(t, "n")
		locs := make([]model.LocID, n)
		for i := range locs {
			locs[i] = defs.AddLocation(model.Location{Native: int64(10 + i)})
		}
		dense := make([]int64, n)
		var sparse []locVal
		for i := range n {
			if rapid.Bool().Draw(t, "present") {
				v := rapid.Int64Range(-3, 3).Draw(t, "v")
				dense[i] = v
				sparse = append(sparse, locVal{i, v})
			}
		}
		want, got := denseImbalance(dense, locs, defs), imbalance(sparse, locs, defs)
		if want.Max != got.Max || want.Min != got.Min || want.ArgMaxID != got.ArgMaxID || want.ArgMaxLoc != got.ArgMaxLoc ||
			want.Mean != got.Mean || want.Lost != got.Lost || math.Abs(float64(want.COV-got.COV)) > 1e-12*math.Abs(float64(want.COV)) ||
			(want.ImbalanceRatio == nil) != (got.ImbalanceRatio == nil) ||
			(want.ImbalanceRatio != nil && (*want.ImbalanceRatio != *got.ImbalanceRatio || *want.PercentImbalance != *got.PercentImbalance)) {
			t.Fatalf("dense %v %+v\nsparse %+v\ngot  %+v\nwant %+v", dense, sparse, sparse, got, want)
		}
	})
}

// wideTrace feeds an accumulator a trace of nloc locations whose main
// calls nfun functions each: distinct functions (split among the locations)
// or, if shared, the same nfun functions on every location.
func wideTrace(nloc, nfun int, shared bool) *Accumulator {
	d := new(model.Defs)
	for i := range nloc {
		d.AddLocation(model.Location{Native: int64(i)})
	}
	main := d.AddRegion(model.Region{Native: 0, Name: "main"})
	for i := range nfun {
		d.AddRegion(model.Region{Native: int64(i + 1), Name: "f" + itoa(int64(i))})
	}
	a := New(d, nil)
	for l := 1; l <= nloc; l++ {
		loc := model.LocID(l)
		tm := model.Time(0)
		a.Add(&model.Event{Time: tm, Loc: loc, Kind: model.KindEnter, Region: main})
		first, step := l-1, nloc
		if shared {
			first, step = 0, 1
		}
		for i := first; i < nfun; i += step {
			r := model.RegionID(i + 2)
			tm++
			a.Add(&model.Event{Time: tm, Loc: loc, Kind: model.KindEnter, Region: r})
			tm++
			a.Add(&model.Event{Time: tm, Loc: loc, Kind: model.KindLeave, Region: r})
		}
		a.Add(&model.Event{Time: tm + 1, Loc: loc, Kind: model.KindLeave, Region: main})
	}
	return a
}

// TestFinalizeNearLinear checks that Finalize grows near-linearly with the
// number of distinct functions and with the number of locations: ten times
// the keys may cost at most 30 times the CPU time, plus slack (a quadratic
// pass costs 100 times: seconds to minutes).
func TestFinalizeNearLinear(t *testing.T) {
	for _, shape := range []struct {
		name       string
		small, big [2]int // locations, functions
		shared     bool
	}{
		{"functions", [2]int{1, 4000}, [2]int{1, 40000}, false},
		{"locations", [2]int{1000, 5}, [2]int{10000, 5}, true},
	} {
		cost := func(size [2]int) time.Duration {
			a := wideTrace(size[0], size[1], shape.shared)
			want := size[0] + size[1]
			if shape.shared {
				want = size[0] * (1 + size[1])
			}
			best := time.Duration(math.MaxInt64)
			for range 5 {
				start := cpuNow(t)
				rep := a.Finalize()
				best = min(best, cpuNow(t)-start)
				if len(rep.Final.Functions) != want {
					t.Fatalf("%d functions in the report, want %d", len(rep.Final.Functions), want)
				}
			}
			return best
		}
		small, big := cost(shape.small), cost(shape.big)
		t.Logf("%s: %v %v, %v %v", shape.name, shape.small, small, shape.big, big)
		if big > 30*small+slack {
			t.Errorf("%s: Finalize of %v took %v, of %v %v: not near-linear", shape.name, shape.big, big, shape.small, small)
		}
	}
}

// TestSamplePeriodSparse checks that periodic samples are bounded by the
// events, not by the time span: a trace from t = 1 to the end of the time
// range with period 1 takes a few samples, and the gap's open time is kept.
func TestSamplePeriodSparse(t *testing.T) {
	d := new(model.Defs)
	loc := d.AddLocation(model.Location{})
	r := d.AddRegion(model.Region{Name: "main"})
	for _, p := range []model.Time{1, 7, 1 << 40} {
		a := New(d, &Options{SamplePeriod: p})
		ts := []model.Time{1, 2, math.MaxInt64/2 + 3, math.MaxInt64}
		a.Add(&model.Event{Time: ts[0], Loc: loc, Kind: model.KindEnter, Region: r})
		a.Add(&model.Event{Time: ts[1], Loc: loc, Kind: model.KindMarker})
		a.Add(&model.Event{Time: ts[2], Loc: loc, Kind: model.KindMarker})
		a.Add(&model.Event{Time: ts[3], Loc: loc, Kind: model.KindLeave, Region: r})
		rep := a.Finalize()
		if n := len(rep.Samples); n == 0 || n > 2*len(ts) {
			t.Fatalf("period %d: %d samples for %d events", p, n, len(ts))
		}
		var prev model.Time
		for i, s := range rep.Samples {
			if i > 0 && s.Time <= prev || s.Time%p != 0 {
				t.Fatalf("period %d: sample times %v", p, rep.Samples)
			}
			prev = s.Time
			if len(s.Functions) != 1 || s.Functions[0].Incl != s.Time-1 {
				t.Errorf("period %d: sample at %d: %+v, want main with Incl %d", p, s.Time, s.Functions, s.Time-1)
			}
		}
	}
}

// TestMismatchedLeaveLinear: leaves naming a region that is not open cost
// O(1) each, however deep the stack, and close the innermost frame.
func TestMismatchedLeaveLinear(t *testing.T) {
	cost := func(n int) time.Duration {
		d := new(model.Defs)
		loc := d.AddLocation(model.Location{})
		f := d.AddRegion(model.Region{Name: "f"})
		g := d.AddRegion(model.Region{Name: "g"})
		a := New(d, nil)
		start := cpuNow(t)
		for i := range n {
			a.Add(&model.Event{Time: model.Time(i), Loc: loc, Kind: model.KindEnter, Region: f})
		}
		for i := range n {
			a.Add(&model.Event{Time: model.Time(n + i), Loc: loc, Kind: model.KindLeave, Region: g})
		}
		el := cpuNow(t) - start
		d2 := a.Finalize().Final.Diagnostics
		if d2.LeaveRegionMismatch != int64(n) || d2.OpenAtEnd != 0 {
			t.Fatalf("%d mismatched leaves and %d open at end, want %d and 0", d2.LeaveRegionMismatch, d2.OpenAtEnd, n)
		}
		return el
	}
	linear(t, "mismatched leaves", cost, 20_000, 200_000)
}

// TestTable checks a table against a map: entries, their order, and a
// size proportional to the entries in use whatever their ids.
func TestTable(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var tb table[funcStat, *funcStat]
		want := make(map[model.RegionID]int64)
		ids := rapid.SliceOf(rapid.OneOf(rapid.Uint32Range(0, 100), rapid.Uint32Range(0, 5000), rapid.Uint32Range(0, 1<<31))).Draw(t, "ids")
		for _, id := range ids {
			r := model.RegionID(id)
			tb.get(r).visits++
			want[r]++
		}
		for r, n := range want {
			if fs := tb.find(r); fs == nil || fs.visits != n {
				t.Fatalf("find(%d) = %+v, want %d visits", r, fs, n)
			}
		}
		var prev model.RegionID
		n := 0
		for r, fs := range tb.all() {
			if n > 0 && r <= prev {
				t.Fatalf("all: %d after %d", r, prev)
			}
			prev = r
			if fs.visits != want[r] {
				t.Fatalf("all: %d has %d visits, want %d", r, fs.visits, want[r])
			}
			if fs.visits > 0 {
				n++
			}
		}
		if n != len(want) {
			t.Fatalf("all yields %d entries in use, want %d", n, len(want))
		}
		if size := tb.slots(); size > denseMin+16*len(want)+16 {
			t.Fatalf("%d slots for %d entries", size, len(want))
		}
		c := tb.clone()
		c.get(7).visits += 100
		if fs := tb.find(7); fs != nil && fs.visits != want[7] {
			t.Fatal("clone shares entries")
		}
	})
}

// TestTablesProportional: each of n locations entering its own region
// (ids 1 … n) costs O(n) slots in all, not n².
func TestTablesProportional(t *testing.T) {
	const n = 5000
	a := wideTrace(n, n, false)
	slots := 0
	for i := range a.locs {
		slots += a.locs[i].funcs.slots()
	}
	if slots > (denseMin+16)*(n+1) {
		t.Errorf("%d slots for %d locations of 2 regions each", slots, n)
	}
	if got := len(a.Finalize().Final.Functions); got != 2*n {
		t.Errorf("%d functions, want %d", got, 2*n)
	}
}

// TestCallTreeMismatchedLeaveLinear: the call tree too closes the
// innermost call at a leave naming a region that is not open, in O(1)
// however deep the stack, and ignores a leave with nothing open.
func TestCallTreeMismatchedLeaveLinear(t *testing.T) {
	cost := func(n int) time.Duration {
		d := new(model.Defs)
		loc := d.AddLocation(model.Location{})
		f := d.AddRegion(model.Region{Name: "f"})
		g := d.AddRegion(model.Region{Name: "g"})
		ct := NewCallTree(d, nil)
		start := cpuNow(t)
		for i := range n {
			ct.Add(&model.Event{Time: model.Time(i), Loc: loc, Kind: model.KindEnter, Region: f})
		}
		for i := range n {
			ct.Add(&model.Event{Time: model.Time(n + i), Loc: loc, Kind: model.KindLeave, Region: g})
		}
		// Nothing is open any more: this one is ignored.
		ct.Add(&model.Event{Time: model.Time(2 * n), Loc: loc, Kind: model.KindLeave, Region: f})
		el := cpuNow(t) - start
		if root := ct.Root(); len(root.Children) != 1 || root.Children[0].Count != 1 || root.Children[0].Incl != model.Time(2*n-1) {
			t.Fatalf("root %+v, want one call of f of %d ticks", root, 2*n-1)
		}
		return el
	}
	linear(t, "mismatched leaves", cost, 20_000, 200_000)
}

// TestCollEndLinear: coll_ends matching the oldest of many open
// collectives, and coll_ends matching none, cost O(1) each (they used to
// search and shift the open calls).
func TestCollEndLinear(t *testing.T) {
	cost := func(n int) time.Duration {
		d := new(model.Defs)
		loc := d.AddLocation(model.Location{})
		r := d.AddRegion(model.Region{Name: "MPI_Ibarrier", Kind: model.RegionCollective})
		a := New(d, nil)
		start := cpuNow(t)
		tm := model.Time(0)
		for i := range n {
			tm++
			a.Add(&model.Event{Time: tm, Loc: loc, Kind: model.KindCollBegin, Region: r, Match: uint64(i + 1)})
		}
		for i := range n {
			tm++
			a.Add(&model.Event{Time: tm, Loc: loc, Kind: model.KindCollEnd, Match: uint64(i + 1)})
			tm++
			a.Add(&model.Event{Time: tm, Loc: loc, Kind: model.KindCollEnd, Match: uint64(n + 1 + i)})
		}
		el := cpuNow(t) - start
		rep := a.Finalize()
		if u := rep.Final.Diagnostics.UnmatchedCollEnd; u != int64(n) {
			t.Fatalf("%d unmatched coll_ends, want %d", u, n)
		}
		if s := rep.Final.CollectiveSums; len(s) != 1 || s[0].Count != int64(n) {
			t.Fatalf("collective sums %+v, want %d calls", s, n)
		}
		return el
	}
	linear(t, "coll_ends", cost, 10_000, 100_000)
}

// slack is CPU time a run of a linear-cost test may take beyond the
// ratio, for the noise of small runs (a garbage collection); the
// quadratic costs these tests catch are several times larger.
const slack = time.Second

// cpuNow returns the CPU time of the test process, which a busy machine
// does not inflate as it does wall-clock time; it skips the test where
// the system has no CPU clock.
func cpuNow(t *testing.T) time.Duration {
	t.Helper()
	d, ok := cputime.Process()
	if !ok {
		t.Skip("no CPU clock on this system")
	}
	return d
}

// linear fails if cost(big), ten times the work of cost(small), takes more
// than 30 times as much CPU time plus slack. Each is the best of three
// runs, which absorbs the noise of a garbage collection.
func linear(t *testing.T, what string, cost func(n int) time.Duration, small, big int) {
	t.Helper()
	best := func(n int) time.Duration {
		d := time.Duration(math.MaxInt64)
		for range 3 {
			d = min(d, cost(n))
		}
		return d
	}
	s, b := best(small), best(big)
	t.Logf("%s: %d: %v, %d: %v", what, small, s, big, b)
	if b > 30*s+slack {
		t.Errorf("%s: %d took %v, %d took %v: not linear", what, big, b, small, s)
	}
}

func TestSatInt(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want int64
	}{{9.223372036854775807e18, math.MaxInt64}, {-1e19, math.MinInt64}, {-3.7, -3}, {42, 42}} {
		if got := satInt(c.f); got != c.want {
			t.Errorf("satInt(%g) = %d, want %d", c.f, got, c.want)
		}
	}
}

// TestPerLocationBytes pins what a location costs: n locations that each
// call a region of their own (the shape of a large MPI run's trace, and
// the worst case of the per-location tables) must allocate, while the
// events are added and in Finalize, a bounded number of bytes per
// location, the same at 10^3 and 10^4 locations. Allocated bytes, unlike
// time, do not depend on how busy the machine is. A location used to
// cost a 64-slot table of function statistics (about 6 KB) for its one
// region, in the accumulator and again in Finalize's settled copy.
func TestPerLocationBytes(t *testing.T) {
	perLoc := func(n int) (add, fin uint64) {
		var m0, m1, m2 runtime.MemStats
		runtime.ReadMemStats(&m0)
		a := wideTrace(n, n, false)
		runtime.ReadMemStats(&m1)
		rep := a.Finalize()
		runtime.ReadMemStats(&m2)
		if got := len(rep.Final.Functions); got != 2*n {
			t.Fatalf("%d functions, want %d", got, 2*n)
		}
		return (m1.TotalAlloc - m0.TotalAlloc) / uint64(n), (m2.TotalAlloc - m1.TotalAlloc) / uint64(n)
	}
	const maxAdd, maxFinalize = 2 << 10, 16 << 10 // bytes per location
	sAdd, sFin := perLoc(1000)
	bAdd, bFin := perLoc(10000)
	t.Logf("bytes per location: 1000 locations: %d adding, %d in Finalize; 10000: %d, %d", sAdd, sFin, bAdd, bFin)
	for _, c := range []struct {
		what       string
		small, big uint64
		bound      uint64
	}{{"adding the events", sAdd, bAdd, maxAdd}, {"Finalize", sFin, bFin, maxFinalize}} {
		if c.big > c.bound || c.small > c.bound {
			t.Errorf("%s: %d and %d bytes per location at 10^3 and 10^4 locations, want at most %d", c.what, c.small, c.big, c.bound)
		}
		// Linear: the cost per location does not grow with the locations
		// (slices that double may add up to half again).
		if c.big > 2*c.small {
			t.Errorf("%s: %d bytes per location at 10^4 locations, %d at 10^3: grows with the locations", c.what, c.big, c.small)
		}
	}
}

// TestPerLocationBytesText pins what a location costs in the report a
// text needs (FinalTextReport), the path of tracestat's text report on a
// trace of many locations: n locations that each call a region of their
// own allocate at most a bounded number of bytes per location in it, the
// same at 10^3 and 10^4 locations, and less than half of what
// FinalReport allocates for them (every location's drill-down, call
// sites, gprof estimates and site imbalance).
func TestPerLocationBytesText(t *testing.T) {
	perLoc := func(n int, text bool) uint64 {
		a := wideTrace(n, n, false)
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		var rep *Report
		if text {
			rep = a.FinalTextReport("")
		} else {
			rep = a.FinalReport()
		}
		runtime.ReadMemStats(&m1)
		if got := rep.Final.LocationsWithEvents(); got != n {
			t.Fatalf("%d locations with events, want %d", got, n)
		}
		return (m1.TotalAlloc - m0.TotalAlloc) / uint64(n)
	}
	// About 1.3 KB: a Function row per (location, region), the region's
	// load imbalance, the drill-down of all locations and their MPI time;
	// it was 2.3 KB with the imbalance's table of every (location,
	// region) value and an Imbalance row per region.
	const maxText = 1536 // bytes per location
	small, big := perLoc(1000, true), perLoc(10000, true)
	full := perLoc(10000, false)
	t.Logf("bytes per location in FinalTextReport: %d at 10^3 locations, %d at 10^4; FinalReport: %d", small, big, full)
	if small > maxText || big > maxText {
		t.Errorf("FinalTextReport: %d and %d bytes per location at 10^3 and 10^4 locations, want at most %d", small, big, maxText)
	}
	if big > 2*small {
		t.Errorf("FinalTextReport: %d bytes per location at 10^4 locations, %d at 10^3: grows with the locations", big, small)
	}
	if 2*big > full {
		t.Errorf("FinalTextReport: %d bytes per location, FinalReport %d: want less than half", big, full)
	}
}
