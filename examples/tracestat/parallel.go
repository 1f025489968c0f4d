package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hpctrace/hpctrace"
	"github.com/hpctrace/hpctrace/examples/internal/progress"
	"github.com/hpctrace/hpctrace/examples/internal/shardstat"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/picl"
	"github.com/hpctrace/hpctrace/stats"
	"github.com/hpctrace/hpctrace/waitstate"
)

// Parallel runs (see "Parallel runs" in the package documentation): with
// -j n, profileParallel reads the definitions, shares the locations out
// to n shards in blocks (partition), profiles each shard in a goroutine
// of its own (shardRun.run) and joins their states in a binary tree
// (shardstat.State.Join, as -merge does) into the state whose report it
// prints.

// shardsFor returns the number of shards -j asks for trace name: 1 for a
// format that keeps its locations in one stream, for the options that
// need one pass over every location, and without -j above 1.
func (cfg *config) shardsFor(name string) int {
	if cfg.jobs <= 1 || cfg.serial || cfg.save != "" || cfg.synthetic > 0 || len(cfg.at) > 0 ||
		cfg.every != (timeArg{}) || cfg.vclock != (timeArg{}) {
		return 1
	}
	f, err := hpctrace.Detect(name)
	if err != nil {
		return 1 // the serial path reports it
	}
	switch f {
	case hpctrace.FormatOTF, hpctrace.FormatOTF2, hpctrace.FormatDUMPIRun:
		return cfg.jobs
	}
	return 1
}

// apart reports whether location l is read apart: it is not kept in
// another's stream (model.Location.Stream is 0 or its own id, as a DUMPI
// rank's).
func apart(l *model.Location) bool { return l.Stream == 0 || l.Stream == l.ID }

// streams returns the number of locations of defs that are read apart.
func streams(defs *model.Defs) int {
	n := 0
	for _, l := range defs.Locations() {
		if apart(&l) {
			n++
		}
	}
	return n
}

// A partition shares the locations of a trace out to shards in blocks of
// neighbouring ids: the k locations read apart (model.Location.Stream is
// 0 or their own id), in the order of their ids, the first k/n to shard 0 and so on, and
// a location kept in another's stream with that one. Neighbours (in a
// ring, a stencil, a node's ranks) are then mostly in one shard, so that
// fewer messages and collectives wait for another shard's locations until
// the states are joined. Events of no location go to shard 0.
type partition struct {
	n     int
	owner []int32 // shard of each location id of the definitions read first
}

// newPartition returns the partition of the locations of defs into at
// most n shards (fewer when fewer locations are read apart).
func newPartition(defs *model.Defs, n int) *partition {
	locs := defs.Locations()
	k := streams(defs)
	n = max(min(n, k), 1)
	p := &partition{n: n, owner: make([]int32, len(locs)+1)}
	j := 0
	for i, l := range locs {
		if apart(&l) {
			p.owner[i+1] = int32(j * n / k)
			j++
		}
	}
	for i, l := range locs {
		if !apart(&l) {
			p.owner[i+1] = p.shardOf(l.Stream)
		}
	}
	return p
}

// shardOf returns the shard of the location id l of the definitions read
// first (shard 0 for any other).
func (p *partition) shardOf(l model.LocID) int32 {
	if int(l) < len(p.owner) && l > 0 {
		return p.owner[l]
	}
	return 0
}

// of returns the shard of location l of defs: of its stream's, when it is
// kept in another's (a location defined as the events reveal it, as a
// DUMPI rank's thread, is such a one).
func (p *partition) of(defs *model.Defs, l model.LocID) int {
	if defs != nil {
		if loc, ok := defs.Location(l); ok && loc.Stream != 0 {
			l = loc.Stream
		}
	}
	return int(p.shardOf(l))
}

// open opens the trace name selecting the locations of shard i, as
// shardstat.Shard.Open does for its own share.
func (p *partition) open(name string, i int) (*hpctrace.Trace, error) {
	var defs *model.Defs // the trace's, once open
	t, err := hpctrace.Open(name, &hpctrace.Options{Locations: func(l model.LocID) bool { return p.of(defs, l) == i }})
	if err != nil {
		return nil, err
	}
	defs = t.Defs()
	return t, nil
}

// source returns src restricted to the events of shard i, as
// shardstat.Shard.Source does.
func (p *partition) source(src model.Source, i int) model.Source {
	return &partSource{Source: src, p: p, i: i}
}

type partSource struct {
	model.Source
	p *partition
	i int
}

func (s *partSource) Next() bool {
	d := s.Source.Defs()
	for s.Source.Next() {
		if s.p.of(d, s.Source.Event().Loc) == s.i {
			return true
		}
	}
	return false
}

// A shardRun is one shard of a parallel run.
type shardRun struct {
	shard   shardstat.Shard
	trace   *hpctrace.Trace
	st      *shardstat.State
	comm    *model.CommReport // the source's, if it has one
	cpu     float64           // CPU seconds of the shard's thread (-phases)
	evicted bool              // the statistics evicted message ends
	err     error
}

// profileParallel profiles the trace name in up to n shards at once and
// prints the report of their joined states. With one location read
// apart, it returns again at once: the trace is read in one pass. When a
// shard evicted message
// ends (stats.Options.MaxPending: those waiting for another shard's
// locations count too), the joined report could differ from one pass's:
// it prints nothing and returns again, and the trace is to be read in one
// pass.
func profileParallel(out, stderr io.Writer, name string, n int, cfg *config) (again bool, err error) {
	ph := newPhases(cfg.phases, stderr, name)
	// The guard watches the memory from the start, as profileFile's
	// does: the definitions of a trace of many locations take memory in
	// proportion.
	g := startGuard(name, memoryLimits(), exitWith(stderr))
	defer g.stop()
	// The definitions, read first, tell the locations to share out.
	probe, err := hpctrace.Open(name, &hpctrace.Options{Locations: func(model.LocID) bool { return false }})
	if err != nil {
		return false, err
	}
	defs := probe.Defs()
	part := newPartition(defs, n)
	probe.Close()
	if n = part.n; n == 1 {
		return true, nil // one location read apart: one pass
	}
	ph.mark("definitions", "")
	var opts stats.Options
	if cfg.picl != nil {
		opts.Relative = picl.RelativeStats(cfg.picl...)
	}
	locs := defs.NumLocations()
	if w := memoryWarning(name, locs, availableMemory()); w != "" {
		fmt.Fprint(stderr, w)
	}
	g.setLocations(locs)
	g.soften()

	// With two CPUs or more for each shard, each reads in a pipeline.
	pipelined := runtime.GOMAXPROCS(0) >= 2*n
	runs := make([]shardRun, n)
	var events atomic.Int64 // read by all shards so far, for the progress
	var failed atomic.Bool  // a shard failed: the others stop
	var wg sync.WaitGroup
	for i := range runs {
		r := &runs[i]
		r.shard = shardstat.Shard{I: i, N: n}
		wg.Go(func() {
			r.run(name, part, pipelined, cfg, &opts, &events, &failed)
		})
	}
	// The progress, from this goroutine, of the events of every shard.
	prog := progress.New(stderr, name, "events")
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	tick := time.NewTicker(250 * time.Millisecond)
	for waiting := true; waiting; {
		select {
		case <-done:
			waiting = false
		case <-tick.C:
			prog.Update(events.Load())
		}
	}
	tick.Stop()
	prog.Done(events.Load())
	if ph != nil {
		var cpu []string
		for i := range runs {
			cpu = append(cpu, strconv.FormatFloat(runs[i].cpu, 'f', 3, 64))
		}
		what := "thread"
		if pipelined {
			what = "statistics' thread (its reading runs in another)"
		}
		ph.mark("events", fmt.Sprintf("%d shards, CPU s of each shard's %s: %s", n, what, strings.Join(cpu, " ")))
		// From here on, the serial part of each phase: this goroutine's.
		ph.lockThread()
	}

	// The first error, in the order of the shards.
	var errs error
	for i := range runs {
		if err := runs[i].err; err != nil && (errs == nil || errs == errStopped) {
			errs = err
		}
	}
	for i := range runs {
		if errs == nil && runs[i].evicted {
			ph.mark("events", fmt.Sprintf("shard %d/%d evicted message ends: the trace is read again in one pass", i, n))
			ph.done()
			return true, nil
		}
	}
	var reports []model.CommReport
	for i := range runs {
		if runs[i].comm != nil {
			reports = append(reports, *runs[i].comm)
		}
	}
	if len(reports) > 0 {
		commNotes(stderr, name, joinCommReports(reports))
	}
	if errs != nil {
		return false, errs
	}
	ropts := cfg.reportOptions(ph)
	if w := runs[0].st.Waits; w != nil && sameDefs(name) {
		// The wait-state analyses are joined first (each join moves one
		// shard's logs) and finalized in a goroutine of their own while
		// the statistics are joined and finalized: their serial parts
		// overlap. The analysis reads the definitions of shard 0, which
		// nothing writes: those of an OTF or OTF2 trace are read whole
		// by every shard, and the statistics' joins extend none.
		for i := 1; i < n; i++ {
			if err := w.Join(runs[i].st.Waits); err != nil {
				return false, fmt.Errorf("%s: joining shard %d/%d: %w", name, i, n, err)
			}
		}
		for i := range runs {
			runs[i].st.Waits = nil
		}
		done := make(chan struct{})
		var rep *waitstate.Report
		var werr error
		var wcpu float64 // CPU s of the finalization's own thread (-phases)
		go func() {
			defer close(done)
			if ph != nil {
				cpu := shardCPU()
				defer func() { wcpu = cpu() }()
			}
			rep, werr = shardstat.FinalizeWaits(w)
		}()
		// Whatever ends the run, the finalization has ended first.
		defer func() { <-done }()
		ropts.Waits = func() (*waitstate.Report, error) {
			<-done
			return rep, werr
		}
		if ph != nil {
			ropts.Phase = func(what string) {
				extra := ""
				if what == "finalize wait states" {
					// Its phase is the wait for it; its work ran since the join.
					extra = fmt.Sprintf("run since the join: %.3f s CPU on its own goroutine's thread", wcpu)
				}
				ph.mark(what, extra)
			}
		}
	}
	// The states are joined in a binary tree, the joins of one level at
	// once: shard i+s into shard i for i a multiple of 2s, s = 1, 2, 4, …
	// (the joined state does not depend on the order: see
	// stats.Accumulator.Join). Each join uses up shard i+s's state
	// (shardstat.State.Join), moving it rather than copying it.
	var joinCPU float64 // CPU s of the tree's longest path of joins (-phases)
	for step := 1; step < n; step *= 2 {
		var wg sync.WaitGroup
		cpu := make([]float64, n)
		for i := 0; i+step < n; i += 2 * step {
			wg.Go(func() {
				if ph != nil {
					c := shardCPU()
					defer func() { cpu[i] = c() }()
				}
				if err := runs[i].st.Join(runs[i+step].st); err != nil {
					runs[i].err = fmt.Errorf("%s: joining shard %d/%d: %w", name, i+step, n, err)
				}
				runs[i+step].st = nil // joined: its memory can go
			})
		}
		wg.Wait()
		joinCPU += slices.Max(cpu)
		for i := range runs {
			if runs[i].err != nil {
				return false, runs[i].err
			}
		}
	}
	st := runs[0].st
	ph.mark("join", fmt.Sprintf("%.3f s CPU on the threads of the tree's longest path of joins", joinCPU))
	if err := st.WriteReport(out, ropts); err != nil {
		return false, err
	}
	ph.done()
	return false, nil
}

// sameDefs reports whether every shard of the trace name reads the same
// definitions, whole, before its events: those of an OTF trace or an
// OTF2 archive (a DUMPI run's shards define threads as their events
// reveal them).
func sameDefs(name string) bool {
	f, err := hpctrace.Detect(name)
	return err == nil && (f == hpctrace.FormatOTF || f == hpctrace.FormatOTF2)
}

// run opens the shard (unless it is open) and profiles its events into
// r.st; it sets r.err on failure.
func (r *shardRun) run(name string, part *partition, pipelined bool, cfg *config, opts *stats.Options, events *atomic.Int64, failed *atomic.Bool) {
	if cfg.phases {
		cpu := shardCPU()
		defer func() { r.cpu = cpu() }()
	}
	if r.trace, r.err = part.open(name, r.shard.I); r.err != nil {
		failed.Store(true)
		return
	}
	defer r.trace.Close()
	src := part.source(r.trace.Source(), r.shard.I)
	if pipelined {
		// A CPU to spare for each shard: its reading runs in a goroutine
		// of its own, ahead of its statistics, as -j 1's does.
		p := model.NewPrefetcher(src, nil)
		defer p.Close()
		src = p
	}
	defs := src.Defs()
	// Each shard has its own copy of the definitions, which its source
	// may extend (a DUMPI run's threads): Join unites them.
	st := &shardstat.State{Name: name, MPI: defs.ByRank(), Shard: r.shard,
		Acc: stats.New(defs, opts), Tree: stats.NewCallTree(defs, nil)}
	if cfg.waits {
		// Joined states need every log: a shard does not settle. The
		// joined state's Finalize analyses the stretches between
		// collectives over every location on every CPU.
		st.Waits = waitstate.New(defs, &waitstate.Options{KeepLogs: true, Workers: runtime.GOMAXPROCS(0)})
	}
	var n, reported int64
	for src.Next() {
		ev := src.Event()
		st.Acc.Add(ev)
		st.Tree.Add(ev)
		if st.Waits != nil {
			st.Waits.Add(ev)
		}
		n++
		if n&0xffff == 0 {
			events.Add(n - reported)
			reported = n
			if failed.Load() {
				r.err = errStopped
				return
			}
		}
	}
	events.Add(n - reported)
	if cr, ok := r.trace.Source().(model.CommReporter); ok {
		c := cr.CommReport()
		r.comm = &c
	}
	if r.err = src.Err(); r.err != nil {
		failed.Store(true)
		return
	}
	st.Events = n
	r.st = st
	r.evicted = st.Acc.Sample(0).Diagnostics.PendingEvicted > 0
}

// errStopped is the error of a shard stopped because another failed; the
// other's error is the one reported.
var errStopped = errors.New("stopped: another shard failed")

// joinCommReports returns the report of one source over every location
// from the reports of the shards' sources (DUMPI's, model.CommReporter):
// the communicators reconstructed as each shard reconstructed them all,
// the notes that every shard has (of the reconstruction) once, followed
// by those of each rank ("rank N: …") in the order of the ranks, each
// once (a shard's source may read, and note, another shard's rank too, as
// a DUMPI run's does when it learns the ranks' threads), and the counts
// those per-rank notes give; where a note does not give its counts, they
// are the sums of the shards'.
func joinCommReports(rs []model.CommReport) model.CommReport {
	j := model.CommReport{Reconstructed: rs[0].Reconstructed}
	common := len(rs[0].Notes)
	for _, r := range rs {
		j.Unknown += r.Unknown
		j.UnknownMessages += r.UnknownMessages
		j.UnknownCollectives += r.UnknownCollectives
		j.Mismatches += r.Mismatches
		k := 0
		for k < min(common, len(r.Notes)) && r.Notes[k] == rs[0].Notes[k] {
			k++
		}
		common = k
	}
	// The shared notes end where the per-rank ones begin.
	for common > 0 && rankOf(rs[0].Notes[common-1]) >= 0 {
		common--
	}
	j.Notes = append(j.Notes, rs[0].Notes[:common]...)
	var own []string
	seen := map[string]bool{}
	for _, r := range rs {
		for _, n := range r.Notes[common:] {
			if !seen[n] {
				seen[n] = true
				own = append(own, n)
			}
		}
	}
	slices.SortStableFunc(own, func(a, b string) int { return cmp.Compare(rankOf(a), rankOf(b)) })
	j.Notes = append(j.Notes, own...)
	// The counts, from the notes of the ranks when they all give them.
	var c model.CommReport
	for _, n := range own {
		var rank, handle int
		var msgs, colls, bad int64
		switch {
		case strings.HasSuffix(n, ")") && strings.Contains(n, "of unknown membership ("):
			if _, err := fmt.Sscanf(n, "rank %d: communicator handle %d: %d messages and %d collectives", &rank, &handle, &msgs, &colls); err != nil {
				return j
			}
			c.Unknown++
			c.UnknownMessages += msgs
			c.UnknownCollectives += colls
		case strings.HasSuffix(n, "contradict its reconstructed membership"):
			if _, err := fmt.Sscanf(n, "rank %d: communicator handle %d: %d MPI_Comm_rank", &rank, &handle, &bad); err != nil {
				return j
			}
			c.Mismatches += bad
		default:
			return j
		}
	}
	j.Unknown, j.UnknownMessages, j.UnknownCollectives, j.Mismatches = c.Unknown, c.UnknownMessages, c.UnknownCollectives, c.Mismatches
	return j
}

// rankOf returns the rank N of a note "rank N: …", or -1.
func rankOf(note string) int {
	s, ok := strings.CutPrefix(note, "rank ")
	if !ok {
		return -1
	}
	num, _, ok := strings.Cut(s, ":")
	if !ok {
		return -1
	}
	v, err := strconv.Atoi(num)
	if err != nil {
		return -1
	}
	return v
}
