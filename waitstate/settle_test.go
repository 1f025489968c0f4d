package waitstate

import (
	"cmp"
	"os"
	"reflect"
	"runtime"
	"slices"
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
		a.st.min, a.st.horizonAt = min, int64(min)
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

// genSyncProgram draws programs of 2 to 4 ranks that synchronise without
// a barrier or N×N collective over every rank: rings (MPI_Send/MPI_Recv,
// MPI_Sendrecv, MPI_Irecv/send/MPI_Wait), wrong-order receives and
// Waitalls between pairs, messages of one pair, rooted collectives
// (MPI_Bcast, MPI_Reduce, MPI_Scan on MPI_COMM_WORLD, whose members leave
// after the last entered or not), barriers and reductions on
// sub-communicators, and barriers recorded as collective events outside
// any MPI call (as OTF 1.x's CollOp records of a code whose MPI calls
// were not traced). The last rank may call no MPI at first, while the
// others exchange messages and synchronise on communicators without it.
func genSyncProgram() *rapid.Generator[program] {
	return rapid.Custom(func(t *rapid.T) program {
		n := rapid.IntRange(2, 4).Draw(t, "ranks")
		g := &gen{t: t, b: newTrace(n), n: n, clock: make([]model.Time, n), req: make([]uint64, n),
			ops: []string{"MPI_Bcast", "MPI_Reduce", "MPI_Scan"}, syncColls: true}
		g.ranks = make([]*rankBuilder, n)
		for r := range n {
			g.ranks[r] = g.b.rank(r)
			g.ranks[r].enter(0, "main")
		}
		// The last rank may call no MPI for the first phases, while the
		// others synchronise on a communicator without it.
		quiet := 0
		if rapid.Bool().Draw(t, "late") {
			quiet = rapid.IntRange(1, 4).Draw(t, "quiet")
			rest := make([]int, n-1)
			for r := range rest {
				rest[r] = r
			}
			for range quiet {
				if rapid.Bool().Draw(t, "quietColl") {
					g.subColl(rest)
				} else {
					g.pair(rest)
				}
			}
		} else if rapid.Bool().Draw(t, "init") {
			g.init()
		}
		all := make([]int, n)
		for r := range all {
			all[r] = r
		}
		phases := rapid.IntRange(1, 10).Draw(t, "phases")
		for range phases {
			switch rapid.IntRange(0, 7).Draw(t, "phase") {
			case 0:
				g.compute()
			case 1:
				g.ring()
			case 2:
				g.wrongOrder()
			case 3:
				g.waitall()
			case 4:
				g.collective()
			case 5:
				g.outsideBarrier()
			case 6:
				g.pair(all)
			case 7:
				g.subColl(all)
			}
		}
		g.compute()
		if rapid.Bool().Draw(t, "finalize") {
			g.finalize()
		}
		for r := range n {
			g.ranks[r].leave(g.clock[r], "main")
		}
		return program{defs: g.b.defs, events: g.b.events()}
	})
}

// pair has one rank of ranks send a message to another (MPI_Send,
// MPI_Recv), which synchronises only that pair.
func (g *gen) pair(ranks []int) {
	g.compute()
	if len(ranks) < 2 {
		return
	}
	i := rapid.IntRange(0, len(ranks)-1).Draw(g.t, "from")
	j := (i + rapid.IntRange(1, len(ranks)-1).Draw(g.t, "to")) % len(ranks)
	a, b := ranks[i], ranks[j]
	g.tag++
	es := g.clock[a]
	xs := es + g.dur("send", 1)
	g.ranks[a].send(es, xs, b, g.tag)
	g.clock[a] = xs
	er := g.clock[b]
	xr := max(er, es) + g.dur("recv", 1)
	g.ranks[b].recv(er, xr, a, g.tag)
	g.clock[b] = xr
}

// subColl has a subset of ranks (at least 2; all of them may be drawn)
// call MPI_Barrier or MPI_Allreduce on a communicator of just those
// ranks, every member leaving after the last one entered.
func (g *gen) subColl(ranks []int) {
	g.compute()
	if len(ranks) < 2 {
		return
	}
	var sub []int
	for _, r := range ranks {
		if rapid.Bool().Draw(g.t, "member") {
			sub = append(sub, r)
		}
	}
	if len(sub) < 2 {
		sub = ranks[:2]
	}
	members := make([]model.LocID, len(sub))
	for i, r := range sub {
		members[i] = model.LocID(r + 1)
	}
	comm := g.b.defs.AddComm(model.Comm{Native: int64(len(g.b.defs.Comms()) + 100), Members: members})
	name := rapid.SampledFrom([]string{"MPI_Barrier", "MPI_Allreduce"}).Draw(g.t, "subOp")
	class := map[string]model.Class{"MPI_Barrier": model.ClassBarrier, "MPI_Allreduce": model.ClassAllToAll}[name]
	latest := model.Time(0)
	for _, r := range sub {
		latest = max(latest, g.clock[r])
	}
	for _, r := range sub {
		x := latest + g.dur("subColl", 1)
		g.ranks[r].call(name, g.clock[r], x,
			model.Event{Time: g.clock[r], Kind: model.KindCollBegin, Region: g.b.region(name), Comm: comm, Bytes: 8, Recvd: 8, Class: class},
			model.Event{Time: x, Kind: model.KindCollEnd})
		g.clock[r] = x
	}
}

// outsideBarrier has every rank take part in a barrier on
// MPI_COMM_WORLD recorded as collective events outside any MPI call.
func (g *gen) outsideBarrier() {
	g.compute()
	latest := slices.Max(g.clock)
	for r := range g.n {
		x := latest + g.dur("outsideBarrier", 1)
		g.ranks[r].add(model.Event{Time: g.clock[r], Kind: model.KindCollBegin, Region: g.b.region("MPI_Barrier"),
			Comm: g.b.world, Class: model.ClassBarrier})
		g.ranks[r].add(model.Event{Time: x, Kind: model.KindCollEnd})
		g.clock[r] = x
	}
}

// TestSettleEqualBeyondBarriers: programs without a barrier or N×N
// collective over every location (rings, pairwise exchanges, rooted
// collectives, sub-communicators, barriers outside MPI calls, a rank that
// calls no MPI at first, and perhaps a thread outside every communicator
// that never calls MPI) settle at horizons and at the rooted collectives
// over every location whose members all enter before any leaves; the
// report is the one of the logs kept whole.
func TestSettleEqualBeyondBarriers(t *testing.T) {
	settledAny := 0
	rapid.Check(t, func(rt *rapid.T) {
		p := genSyncProgram().Draw(rt, "program")
		if rapid.Bool().Draw(rt, "thread") {
			p = withThread(p)
		}
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
}

// ringRun returns a run of 8 ranks that synchronise only through a ring
// of MPI_Sendrecv and barriers recorded outside any MPI call (as the
// harness's generic OTF trace): iters steps. No collective is a sync
// point of the analysis.
func ringRun(iters int) (*model.Defs, []model.Event) {
	const n = 8
	b := newTrace(n)
	ranks := make([]*rankBuilder, n)
	clock := make([]model.Time, n)
	for r := range n {
		ranks[r] = b.rank(r)
		ranks[r].enter(0, "main")
	}
	for it := range iters {
		tag := int32(it)
		for r := range n {
			d := model.Time(100 + (r*7+it*13)%50)
			ranks[r].compute(clock[r], clock[r]+d)
			clock[r] += d
		}
		e := slices.Clone(clock)
		for r := range n {
			src, dst := (r+n-1)%n, (r+1)%n
			x := max(e[r], e[src]) + 5
			rb := ranks[r]
			rb.call("MPI_Sendrecv", e[r], x, rb.sendEv(e[r], dst, tag, 0), rb.recvEv(x, src, tag, 0))
			clock[r] = x
		}
		if it%4 == 3 {
			latest := slices.Max(clock)
			for r := range n {
				ranks[r].add(model.Event{Time: clock[r], Kind: model.KindCollBegin, Region: b.region("MPI_Barrier"),
					Comm: b.world, Class: model.ClassBarrier})
				ranks[r].add(model.Event{Time: latest + 2, Kind: model.KindCollEnd})
				clock[r] = latest + 2
			}
		}
	}
	for r := range n {
		ranks[r].leave(clock[r], "main")
	}
	return b.defs, b.events()
}

// TestHeldFlatRing: a run synchronised only pairwise (a ring of
// MPI_Sendrecv, barriers outside MPI calls) settles at horizons, so the
// bytes the Analyzer holds after its last event (its own accounting of
// the logs, heldBytes) do not grow from 2,000 to 6,000 steps; the report
// is that of the logs kept whole and of the reference. (Keeping every
// log, they grew threefold.)
func TestHeldFlatRing(t *testing.T) {
	dir := t.TempDir()
	held := func(iters int) (int64, int32) {
		defs, evs := ringRun(iters)
		a := New(defs, &Options{SpillDir: dir})
		a.st.min, a.st.horizonAt = 1000, 1000
		for i := range evs {
			a.Add(&evs[i])
		}
		h, epochs := a.heldBytes(), a.st.epochs
		if _, err := a.Finalize(); err != nil {
			t.Fatal(err)
		}
		return h, epochs
	}
	small, se := held(2000)
	big, be := held(6000)
	t.Logf("held after adding: %d bytes at 2000 steps (%d intervals settled), %d at 6000 (%d)", small, se, big, be)
	if big > small+small/2 {
		t.Errorf("held %d bytes at 6000 steps, %d at 2000: grows with the trace's length", big, small)
	}
	defs, evs := ringRun(300)
	want, _ := analyzeSettling(t, defs, evs, Options{KeepLogs: true, TopN: 5, Instances: true}, 0)
	for _, min := range []int{1, 50, 1000} {
		got, n := analyzeSettling(t, defs, evs, Options{TopN: 5, Instances: true}, min)
		if n == 0 {
			t.Errorf("min %d: no interval settled", min)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("min %d, %d intervals settled: the report differs from the one kept whole", min, n)
		}
	}
	ref := refAnalyze(defs, evs).report
	if !reflect.DeepEqual(want.DelayCosts, ref.DelayCosts) || !reflect.DeepEqual(want.WaitStates, ref.WaitStates) {
		t.Error("the report kept whole differs from the reference")
	}
}

// withThread adds to p a location outside every communicator that calls
// no MPI function (a thread of a hybrid run), in a region from the start
// of the run to its end.
func withThread(p program) program {
	var main model.RegionID
	for i, r := range p.defs.Regions() {
		if r.Name == "main" {
			main = model.RegionID(i + 1)
		}
	}
	loc := p.defs.AddLocation(model.Location{Native: 1 << 20, Name: "thread", Process: 0, Thread: 1})
	var end model.Time
	for _, ev := range p.events {
		end = max(end, ev.Time)
	}
	evs := make([]model.Event, 0, len(p.events)+2)
	evs = append(evs, model.Event{Time: 0, Loc: loc, Kind: model.KindEnter, Region: main})
	evs = append(evs, p.events...)
	evs = append(evs, model.Event{Time: end, Loc: loc, Kind: model.KindLeave, Region: main})
	return program{defs: p.defs, events: evs}
}

// rootedRun returns a run of 8 ranks that synchronise only through a
// ring of MPI_Sendrecv and an MPI_Bcast from rank 0 per step, which
// every rank enters before the root leaves, and a barrier recorded
// outside any MPI call: iters steps.
func rootedRun(iters int) (*model.Defs, []model.Event) {
	const n = 8
	b := newTrace(n)
	ranks := make([]*rankBuilder, n)
	clock := make([]model.Time, n)
	for r := range n {
		ranks[r] = b.rank(r)
		ranks[r].enter(0, "main")
	}
	for it := range iters {
		tag := int32(it)
		for r := range n {
			d := model.Time(100 + (r*7+it*13)%50)
			ranks[r].compute(clock[r], clock[r]+d)
			clock[r] += d
		}
		e := slices.Clone(clock)
		for r := range n {
			src, dst := (r+n-1)%n, (r+1)%n
			x := max(e[r], e[src]) + 5
			rb := ranks[r]
			rb.call("MPI_Sendrecv", e[r], x, rb.sendEv(e[r], dst, tag, 0), rb.recvEv(x, src, tag, 0))
			clock[r] = x
		}
		latest := slices.Max(clock)
		for r := range n {
			x := latest + 3
			ranks[r].coll("MPI_Bcast", clock[r], x, 0, 8, 8)
			clock[r] = x
		}
		latest = slices.Max(clock)
		for r := range n {
			ranks[r].add(model.Event{Time: clock[r], Kind: model.KindCollBegin, Region: b.region("MPI_Barrier"),
				Comm: b.world, Class: model.ClassBarrier})
			ranks[r].add(model.Event{Time: latest + 2, Kind: model.KindCollEnd})
			clock[r] = latest + 2
		}
	}
	for r := range n {
		ranks[r].leave(clock[r], "main")
	}
	return b.defs, b.events()
}

// TestHeldFlatRooted: a run whose only collective calls are MPI_Bcast
// (and whose barriers are outside MPI calls) holds as little after its
// last event at five times the length: it settles at the broadcasts.
func TestHeldFlatRooted(t *testing.T) {
	dir := t.TempDir()
	held := func(iters int) (uint64, int32) {
		defs, evs := rootedRun(iters)
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
		epochs := a.st.epochs
		if _, err := a.Finalize(); err != nil {
			t.Fatal(err)
		}
		runtime.KeepAlive(a)
		return max(m1.HeapAlloc, m0.HeapAlloc) - m0.HeapAlloc, epochs
	}
	small, se := held(2000)
	big, be := held(10000)
	t.Logf("held after adding: %d bytes at 2000 steps (%d intervals settled), %d at 10000 (%d)", small, se, big, be)
	if big > small+small/2+(256<<10) {
		t.Errorf("held %d bytes at 10000 steps, %d at 2000: grows with the trace's length", big, small)
	}
	defs, evs := rootedRun(300)
	want, _ := analyzeSettling(t, defs, evs, Options{KeepLogs: true, TopN: 5, Instances: true}, 0)
	got, n := analyzeSettling(t, defs, evs, Options{TopN: 5, Instances: true}, 1)
	if n == 0 {
		t.Error("no interval settled")
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%d intervals settled: the report differs from the one kept whole", n)
	}
}

// TestSettleDrift: a stream in which the locations drift apart (the
// last one some hundred collectives behind the first, as a source that
// interleaves locations coarsely, or merges ranks whose clocks
// disagree, delivers them; the events' times are as they were) still
// settles about as often as the stream in time order, at the collectives
// every location keeps a mark for, and gives the report of the
// time-ordered stream. (Marks dropped oldest first settled a tenth as
// often: the first location's last 64 collectives were past the last
// one's.)
func TestSettleDrift(t *testing.T) {
	defs, evs := mpiRun(300_000)
	want, _ := analyzeSettling(t, defs, evs, Options{KeepLogs: true, TopN: 5}, 0)
	span := evs[len(evs)-1].Time - evs[0].Time
	nlocs := model.Time(defs.NumLocations())
	skew := func(ev *model.Event) model.Time { return ev.Time + span/5*model.Time(ev.Loc-1)/(nlocs-1) }
	drift := slices.Clone(evs)
	slices.SortStableFunc(drift, func(x, y model.Event) int { return cmp.Compare(skew(&x), skew(&y)) })
	got, n := analyzeSettling(t, defs, drift, Options{TopN: 5}, 1000)
	_, n0 := analyzeSettling(t, defs, evs, Options{TopN: 5}, 1000)
	t.Logf("%d intervals settled, %d in time order", n, n0)
	if n < n0/2 {
		t.Errorf("%d intervals settled, want at least half of the %d of the stream in time order", n, n0)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%d intervals settled: the report differs from the one kept whole", n)
	}
}
