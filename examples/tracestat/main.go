// Tracestat profiles HPC traces: a top-down report of where the time goes,
// with the flat profile, the MPI time per location and per call site as
// mpiP prints it (application time, MPI time and MPI %; count, total,
// mean, min and max per call site), the call tree (calling context: one
// row per call path, summed over locations), the drill-down over the call
// graph and its hot path, communication per peer split into synchronisation
// delay and transmission time, collectives, load imbalance, the counters
// per location (PAPI counters, metric plugins: samples, min, max, mean and
// rate, as stats.CounterSummary defines them; "counters" in the JSON
// report) and diagnostics; for an MPI run, the wait-state analysis (see
// "Wait states" below).
//
// The drill-down is a call-graph view, as the scalable-monitoring paper
// defines it, not a call tree: below a function, its callees are summed
// over all of that function's callers, so a row can exceed the row it is
// indented under. The report says so above the section; the call tree
// before it is the one to read as a call tree. With -json the call tree is
// "call_tree" beside the report's fields.
//
// Names come from the trace: in the text report and in error messages
// their control characters (escape sequences, carriage returns, bells, C1
// controls) and bytes that are not UTF-8 are written escaped, as \x1b, so
// that they cannot recolour or overwrite the terminal; the JSON report
// keeps them, escaped by JSON itself.
//
// Usage:
//
//	tracestat [flags] [FILE ...]
//
// Without FILE it profiles an embedded sample: the example program of
// Figure 12 of the scalable-monitoring paper, two processes exchanging
// messages. Each FILE is profiled separately; hpctrace.Open detects its
// format from its content, or its name where the content says nothing:
//
//	*.json   hpctrace event JSON (package eventjson), or Chrome Trace Event Format JSON
//	*.trf    PICL new-format ASCII trace (all processors of the file)
//	*.meta   DUMPI run: every rank's file, merged by time
//	*.bin    one DUMPI rank file (rank from the -NNNN suffix of the name)
//	*.otf    OTF 1.x trace (the master file; streams merged by time)
//	*.otf2   OTF2 archive (the anchor file; locations merged by time)
//
// The report's first line counts the events the format's adapter yields
// (see hpctrace.Open): for OTF2, every record otf2-print lists except
// those otf2.ModelSource.Ignored counts (OpenMP, thread, RMA, I/O,
// calling-context and unknown records), with ProgramBegin, ProgramEnd and
// Parameter records, receive posts and send completions included and a
// Metric record counting one event per value; for DUMPI, each call's Enter
// and Leave and its messages, receive posts, send completions, collective
// begins and ends and counter samples, not the calls themselves.
//
// The statistics a trace records relative to regions, as PICL's
// -101/-102/-103 records, are recomputed from its events, relative to what
// its adapter says they are relative to (model.Defs.Relative: for PICL, -1
// and every event type of the trace's own statistics records), and the
// recorded values are checked against them; -picl replaces that choice.
//
// Flags:
//
//	-json          print the report as JSON, in the layout of the expected reports in stats/testdata,
//	               with every location's name and kind ("locations": "rank"
//	               for a trace recorded rank by rank, as DUMPI is
//	               (model.Defs.ByRank), "process" or "thread" for OTF,
//	               "process" or "host" for PICL); names that are not UTF-8 are \x-escaped
//	               (see stats.Report and stats.RawName)
//	-at t1,t2,...  also print interval summaries at these times:
//	               the statistics of [0,t1), [t1,t2), ...
//	-every p       also print interval summaries every p; a stretch of
//	               periods without events is one interval, so their number
//	               is bounded by the events, not by the time span
//	-vclock o      correct monitoring intrusion with a virtual clock, o per probe
//	-picl E,...    add PICL -101/-102/-103 statistics relative to event types E (-1 = all)
//	-top n         rows per table in the text report (default 15); a table
//	               that has more says how many
//	-scope s       drill-down scope: "all" (default) or "loc<N>"
//	-synthetic n   profile a generated 8-rank trace of n events instead of files
//	-waits         the wait-state analysis of the MPI calls (default true);
//	               -waits=false prints the statistics alone and saves -save
//	               states without it
//	-j n           profile an OTF trace, an OTF2 archive or a DUMPI run in n
//	               shards of its locations at once (default 1: one pass; see
//	               "Parallel runs" below)
//	-serial        read and profile in one goroutine; by default, with more
//	               than one CPU, a trace that -j does not shard is read in a
//	               goroutine of its own, ahead of the statistics (model.Prefetcher)
//	-phases        print on stderr the wall and CPU time of each phase of the
//	               run: reading the definitions, the events (with each shard's
//	               CPU time), joining the shards, finalizing the wait states and
//	               the statistics, writing the report
//	-shard i/n     with -save: profile only the locations l with l mod n == i
//	-save file     save the statistics' state to file instead of printing a report;
//	               an existing file is replaced only with -force, and a file of the
//	               trace read never (package examples/internal/outfile's rules)
//	-merge         the FILEs are the states of the n shards of one trace, saved by
//	               -shard i/n -save: print the report of the whole trace, the same
//	               as one run over it (see "Sharded runs" below)
//
// # Wait states
//
// In the same pass over the events as the statistics (the trace is read
// once), tracestat runs the wait-state analysis of package waitstate
// (doc/waitstates.md): why time is lost in MPI calls, as Scalasca's trace
// analyzer tells it. When the trace has MPI calls (instances of MPI_*
// regions, and of communication regions of formats that do not say
// which paradigm they are, such as PICL's message events), the text
// report ends with a "Wait states" section: the metric tree of the
// patterns (late_sender, late_receiver, wait_barrier, wait_nxn, …) with
// each one's time and percentage of the time of all locations, then per
// pattern its top call paths, locations and instances, the delay costs
// (which excess work on which location caused the waiting, short-term
// and long-term), the critical path with its time per region and the
// critical-path imbalance, and the analysis' diagnostics. -json adds to
// "final" the keys "wait_states", "delay_costs" and "critical_path"
// (doc/waitstates.md §5), whose "loc_id" and "loc" are the location's
// model id and native id, as in the report's other tables. A trace without MPI calls has the report it had
// without the analysis, byte for byte, as has every trace with
// -waits=false.
//
// The wait states are those of the whole run: with -at or -every the
// interval summaries are of the statistics only, and the text report
// says so above the section (in JSON, the analysis is in "final", the
// whole run's, not in "samples").
//
// The analysis keeps a log of the MPI calls and message ends since the
// last collective over all locations that call MPI (see package
// waitstate), so its memory grows with the MPI calls between such
// collectives, not with the trace's length (with -save, -shard and
// tracestat-mpi it keeps every log until the end, about a hundred bytes
// per call), where the statistics' grows with the locations and
// regions; a location that makes
// no MPI call costs it a few hundred bytes (its stack of open regions and
// the time of each of its call paths), and a trace without MPI calls is
// not finalized at all. -waits=false leaves it out.
//
// # Parallel runs
//
// A trace whose format stores its locations apart (an OTF trace's
// streams, an OTF2 archive's event files, a DUMPI run's rank files) is
// profiled in -j shards at once, in one process, each shard's reading in
// a goroutine of its own ahead of its statistics when there are two CPUs
// (GOMAXPROCS) for each shard: the locations read apart are shared out in blocks of neighbouring ids
// (the first n/j to the first shard, and so on; a location kept in
// another's stream, as a DUMPI rank's thread, goes with it), each shard
// opens the trace selecting its locations (hpctrace.Options.Locations),
// so that it reads the definitions and only its locations' files, and
// accumulates the statistics, the call tree and the wait-state analysis
// of their events; then the shards' states are joined, as -merge joins
// saved states (shardstat.State.Join: messages between shards match and
// collectives complete there), and the report of the joined state is
// printed. It is the report of -j 1 byte for byte (the tests hold every
// fixture of every format to it, in text and JSON, with and without the
// wait states, for -j 1, 2, 3, 4 and 7), with the exceptions of the sharded
// runs below. There are never more shards than locations read apart.
//
// What does not divide by -j: the definitions, which every shard reads;
// the messages and collectives between the locations of different shards,
// which wait in their shard's state until the join matches them (blocks
// of neighbours keep a ring's or a stencil's messages mostly within a
// shard; a collective over every location waits in every shard); and the
// parts of the wait-state analysis' finalization that run in order: it
// cuts the joined logs at the collectives over every location and
// analyses the stretches on every CPU, but keeps their results one after
// the other and runs its backward passes (delay costs, critical path) in
// one goroutine; on an OTF trace or an OTF2 archive that goroutine runs
// beside the joins of the statistics and their finalization. -phases
// shows each part's time, and for the phases after the shards' the CPU
// time of their serial part (for the joins, of the tree's longest path
// of joins; for the wait states, of the finalization's own goroutine).
// The first two
// grow with the messages and collectives that cross shards, so -j
// pays most on a trace whose locations talk mostly to their neighbours,
// and least on one whose every step is a collective over every location,
// where the shards' extra work can outweigh what they share: -j is
// therefore not the default; -phases tells whether it pays on a trace.
//
// The other formats (PICL, event JSON, Chrome JSON, one DUMPI rank's
// file) keep every location in one stream, which every shard would read
// whole: they are read once, the reading in a goroutine of its own ahead
// of the statistics, as are runs with -at, -every, -vclock, -synthetic,
// -save, -serial or -j 1 (the default), and the embedded sample.
//
// # Sharded runs
//
// A trace too large for one process is profiled in shards, by any
// scheduler (a Slurm job array, a shell loop):
//
//	tracestat -shard 0/4 -save part0.hps TRACE   # ... up to -shard 3/4
//	tracestat [-json] -merge part*.hps
//
// Each shard reads the definitions of the whole trace, and of the events
// reads only its share where the format stores locations apart (an OTF
// trace's streams with a location of the shard, a DUMPI run's rank files
// of its ranks, whose threads go with them, an OTF2 archive's event files
// of its locations; other formats are read whole), and accounts the
// events of its locations; its state holds the statistics, the
// wait-state analysis' log of its locations (unless -waits=false), the
// definitions, and the messages and collectives that wait for partners in
// other shards, which match when the states are merged (collectives on
// communicators whose membership the trace does not define are held to
// the end of the run: held_collectives in the diagnostics). The merged
// report equals the one-run report byte for byte, except when message
// ends were evicted (pending_evicted) or there are more collective
// instance records than the report keeps. -at and -every cannot be
// sharded. The shards of one run are all saved with the wait-state
// analysis or all without it (-merge refuses a mix); -merge -waits=false
// leaves the analysis out of the report, and states saved without it
// give the report of -waits=false, which stderr notes.
//
// A saved state carries the trace's identity, by content, not by name
// (shardstat.Identity: a hash of the definitions and of every file's size,
// start and end), so -merge refuses shards of different traces, even saved
// from one path, and merges shards of one trace saved under different
// paths; it ends with a checksum, so a damaged file is refused. Two saves
// of the same shard are byte-identical.
//
// # Memory
//
// The memory of a run grows with the definitions and with what the
// events reach, not with the number of events: the locations and regions
// defined (their names and ids), per location the statistics' state and
// an entry per region it calls and per call site, per call path a node
// of the call tree, the wait-state analysis (above), and messages in
// flight (a message never matched stays until the end). The report is
// built at the end: the text report builds only what it prints and the
// tables it ranks (a row per region and location for the flat profile, a
// row per region for the load imbalance); the JSON report builds every
// table of every location (functions, call sites, drill-down, imbalance,
// MPI time) and writes it row by row, so its text, gigabytes for a run of
// a million ranks, is never held whole. So a trace of many locations (a
// run of 10^5 or 10^6 ranks) takes memory in proportion, the JSON report
// two to three times the text's. Before reading the events, tracestat
// estimates it from the number of locations in the definitions and, when
// it exceeds the memory available (the system's, the cgroup's limit or
// GOMEMLIMIT), warns on stderr, naming the options that bound it: -shard
// with -save, whose state holds its locations only, and -merge where
// there is more memory.
// The run goes on: the estimate is for locations that call few regions.
// While it runs, from the opening of the trace on, tracestat watches its
// memory; when nine tenths of a limit are used (the address-space limit
// of ulimit -v, the container's limit, GOMEMLIMIT), it ends with a
// message that says so, names the cause (the definitions, while they are
// read, then the locations) and the same options, and exit status 1,
// rather than the runtime's "fatal error: out of memory" and its dump of
// goroutines. Unless GOMEMLIMIT is set, it keeps, once the definitions are
// read, a soft Go memory limit of half as much again as the live heap
// (and 64 MiB), so that the garbage collector collects before the heap
// doubles and gives back what it frees: a run takes about what it holds,
// not twice that, for some more time spent collecting.
//
// A file that cannot be read, or an output that cannot be written (a full
// disk, a closed pipe), ends the run with a message and exit status 1;
// the reports of the files before it are printed first.
//
// Times given to -at, -every and -vclock are durations with a unit, as
// Go writes them ("1.5ms", "250us" or "250µs", "2s", "1m30s"), converted
// to the trace's clock (rounded to the nearest tick), or plain integers,
// taken as ticks of the trace's clock.
//
// The text report prints times auto-scaled to ns, µs, ms or s (with no
// more decimals than the trace's clock resolves) and bytes in B, KiB, MiB
// and GiB; its header names the clock. The JSON report keeps every time in
// ticks and gives the clock as "ticks_per_second".
//
// Traces that take more than a second show progress on stderr when it is a
// terminal. -h prints the flags and exits with status 0.
package main

import (
	"bufio"
	"bytes"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/hpctrace/hpctrace/eventjson"
	"github.com/hpctrace/hpctrace/examples/internal/outfile"
	"github.com/hpctrace/hpctrace/examples/internal/progress"
	"github.com/hpctrace/hpctrace/examples/internal/shardstat"
	"github.com/hpctrace/hpctrace/internal/termsafe"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/picl"
	"github.com/hpctrace/hpctrace/stats"
	"github.com/hpctrace/hpctrace/waitstate"
)

//go:embed fig12.json
var sample []byte

type config struct {
	json      bool
	at        []timeArg
	vclock    timeArg
	picl      []int64
	top       int
	scope     string
	synthetic int64
	every     timeArg
	serial    bool
	shard     shardstat.Shard // -shard: profile only this share of the locations
	save      string          // -save: write the shard's state here instead of a report
	merge     bool            // -merge: the files are saved states to merge
	force     bool            // -force: -save may replace an existing file
	waits     bool            // -waits: the wait-state analysis beside the statistics
	jobs      int             // -j: shards profiled at once (see parallel.go)
	phases    bool            // -phases: the time of each phase of a run, on stderr
}

func main() {
	outfile.CleanUpOnSignal()
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0) // -h: the usage is printed
	default:
		fmt.Fprintln(os.Stderr, "tracestat:", termsafe.String(err.Error()))
		os.Exit(1)
	}
}

// A timeArg is a time given on the command line: a duration with a unit,
// or a number of ticks of the trace's clock.
type timeArg struct {
	ticks int64
	dur   time.Duration
	isDur bool
}

// parseTimeArg parses "1.5ms", "250us", "2s" (time.ParseDuration) or a
// plain integer of ticks.
func parseTimeArg(s string) (timeArg, error) {
	s = strings.TrimSpace(s)
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return timeArg{ticks: v}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return timeArg{}, fmt.Errorf("%q: want a duration such as 1.5ms or an integer number of ticks", s)
	}
	return timeArg{dur: d, isDur: true}, nil
}

// ticks converts a to ticks of the clock tb.
func (a timeArg) in(tb model.TimeBase) model.Time {
	if a.isDur {
		return tb.FromDuration(a.dur)
	}
	return model.Time(a.ticks)
}

// timeArgs parses a comma-separated list of times.
func timeArgs(s string) ([]timeArg, error) {
	if s == "" {
		return nil, nil
	}
	var out []timeArg
	for f := range strings.SplitSeq(s, ",") {
		a, err := parseTimeArg(f)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tracestat", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	var at, every, vclock, picl string
	fs.BoolVar(&cfg.json, "json", false, "print the report as JSON")
	fs.StringVar(&at, "at", "", "interval summaries at these comma-separated times (1.5ms, 2s, … or ticks)")
	fs.StringVar(&every, "every", "", "interval summaries every this long (1.5ms, 2s, … or ticks)")
	fs.StringVar(&vclock, "vclock", "", "virtual-clock overhead per probe (1us, … or ticks)")
	fs.StringVar(&picl, "picl", "", "PICL statistics relative to these comma-separated event types")
	fs.IntVar(&cfg.top, "top", 15, "rows per table in the text report")
	fs.StringVar(&cfg.scope, "scope", "all", `drill-down scope: "all" or "loc<N>"`)
	fs.Int64Var(&cfg.synthetic, "synthetic", 0, "profile a generated 8-rank trace of this many events")
	fs.BoolVar(&cfg.serial, "serial", false, "read and profile in one goroutine")
	fs.IntVar(&cfg.jobs, "j", 1, "profile a trace whose format stores locations apart in this many shards at once")
	fs.BoolVar(&cfg.phases, "phases", false, "print the wall and CPU time of each phase of a run on stderr")
	fs.BoolVar(&cfg.waits, "waits", true, "the wait-state analysis of MPI calls (-waits=false: the statistics only)")
	shardFlags(fs, &cfg)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tracestat [-json] [-at t1,t2,...] [-every p] [-vclock o] [-picl E,...] [-top n] [-scope s] [-waits=false] [FILE ...]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	var err error
	if cfg.at, err = timeArgs(at); err != nil {
		return fmt.Errorf("-at: %w", err)
	}
	if every != "" {
		if cfg.every, err = parseTimeArg(every); err != nil {
			return fmt.Errorf("-every: %w", err)
		}
	}
	if vclock != "" {
		if cfg.vclock, err = parseTimeArg(vclock); err != nil {
			return fmt.Errorf("-vclock: %w", err)
		}
	}
	if cfg.picl, err = parseInts[int64](picl); err != nil {
		return fmt.Errorf("-picl: %w", err)
	}
	if cfg.jobs < 1 {
		return fmt.Errorf("-j %d: want at least 1", cfg.jobs)
	}
	if err := checkShardFlags(&cfg, fs.Args()); err != nil {
		return err
	}
	var esc *termsafe.Writer
	if !cfg.json {
		// Names come from the trace: their control characters must not
		// act on the terminal.
		esc = termsafe.NewWriter(stdout)
		stdout = esc
	}
	out := bufio.NewWriter(stdout)
	if cfg.merge {
		err = mergeStates(out, stderr, fs.Args(), &cfg)
	} else {
		err = report(out, stderr, fs.Args(), &cfg)
	}
	// The reports before an error come out before its message.
	ferr := out.Flush()
	if ferr == nil && esc != nil {
		ferr = esc.Flush()
	}
	if ferr != nil && err == nil {
		err = fmt.Errorf("writing the output: %w", ferr)
	}
	return err
}

// report writes the report of each file (or of the sample) to out; it
// stops at the first error, of reading or of writing.
func report(out *bufio.Writer, stderr io.Writer, files []string, cfg *config) error {
	switch {
	case cfg.synthetic > 0:
		return profile(out, stderr, "synthetic", newSynth(cfg.synthetic), cfg, nil, nil)
	case len(files) == 0:
		src, err := eventjson.NewReader(bytes.NewReader(sample), &eventjson.ReaderOptions{Path: "fig12.json"})
		if err != nil {
			return err
		}
		if !cfg.json {
			fmt.Fprintln(out, "# embedded sample: Figure 12 of the scalable-monitoring paper (2 processes)")
		}
		return profile(out, stderr, "fig12.json", src, cfg, nil, nil)
	}
	for i, name := range files {
		if i > 0 && !cfg.json {
			fmt.Fprintln(out)
		}
		if err := profileFile(out, stderr, name, cfg); err != nil {
			return err
		}
		if err := out.Flush(); err != nil {
			return fmt.Errorf("writing the output: %w", err)
		}
	}
	return nil
}

func parseInts[T ~int64](s string) ([]T, error) {
	if s == "" {
		return nil, nil
	}
	var out []T
	for f := range strings.SplitSeq(s, ",") {
		v, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return nil, err
		}
		out = append(out, T(v))
	}
	return out, nil
}

func profileFile(out io.Writer, stderr io.Writer, name string, cfg *config) error {
	if n := cfg.shardsFor(name); n > 1 {
		again, err := profileParallel(out, stderr, name, n, cfg)
		if !again {
			return err
		}
	}
	// Formats that store locations apart (OTF streams, DUMPI ranks) read
	// only the shard's.
	ph := newPhases(cfg.phases, stderr, name)
	// The guard watches the memory from the start: the definitions of a
	// trace of many locations, read by Open, take memory in proportion.
	g := startGuard(name, memoryLimits(), exitWith(stderr))
	defer g.stop()
	t, err := cfg.shard.Open(name)
	if err != nil {
		return err
	}
	defer t.Close()
	ph.mark("definitions", "")
	// The format's own adapter: profile reads it directly, saving a call
	// per event.
	src := t.Source()
	err = profile(out, stderr, name, src, cfg, ph, g)
	if cr, ok := src.(model.CommReporter); ok {
		commNotes(stderr, name, cr.CommReport())
	}
	if err == nil {
		ph.done()
	}
	return err
}

// exitWith is the memory guard's end of tracestat: its message on
// stderr, and exit status 1.
func exitWith(stderr io.Writer) func(msg string) {
	return func(msg string) { fmt.Fprint(stderr, msg); os.Exit(1) }
}

// profile profiles src, the trace name, and writes its report to out (or
// saves its state, with -save). g is the memory guard started before the
// trace was opened, or nil to start one.
func profile(out io.Writer, stderr io.Writer, name string, src model.Source, cfg *config, ph *phases, g *memGuard) error {
	tb := src.Defs().TimeBase
	mpi := src.Defs().ByRank() // its locations are MPI ranks
	var id shardstat.ID
	if cfg.save != "" {
		// The trace's identity, from the definitions read before any event.
		path := name
		if cfg.synthetic > 0 {
			path = ""
		}
		var err error
		if id, err = shardstat.Identity(path, src.Defs()); err != nil {
			return err
		}
	}
	if cfg.shard.N > 0 {
		src = cfg.shard.Source(src)
	}
	var vc *stats.VClock
	if o := cfg.vclock.in(tb); o != 0 {
		vc = stats.NewVClock(src, &stats.VClockOptions{Overhead: o})
		src = vc
	}
	if !cfg.serial && runtime.GOMAXPROCS(0) > 1 {
		// Reading (and the virtual clock) run in a goroutine of their own,
		// in parallel with the accumulator.
		p := model.NewPrefetcher(src, nil)
		defer p.Close()
		src = p
	}
	opts := &stats.Options{SamplePeriod: cfg.every.in(tb)}
	for _, a := range cfg.at {
		opts.SampleTimes = append(opts.SampleTimes, a.in(tb))
	}
	if cfg.picl != nil {
		// PICL's statistics relative to the given event types, in place
		// of those the trace records (src.Defs().Relative).
		opts.Relative = picl.RelativeStats(cfg.picl...)
	}
	// A trace of many locations may need more memory than there is: say
	// so before the run, naming the option that bounds it, rather than
	// leaving the runtime's "out of memory" as the only message.
	locs := src.Defs().NumLocations()
	if cfg.shard.N > 0 {
		locs = (locs + cfg.shard.N - 1) / cfg.shard.N
	}
	if w := memoryWarning(name, locs, availableMemory()); w != "" {
		fmt.Fprint(stderr, w)
	}
	if g == nil {
		g = startGuard(name, memoryLimits(), exitWith(stderr))
		defer g.stop()
	}
	g.setLocations(locs)
	g.soften()
	stop := g.stop
	acc := stats.New(src.Defs(), opts)
	ct := stats.NewCallTree(src.Defs(), nil)
	// The wait-state analysis takes the same events in the same pass.
	var ws *waitstate.Analyzer
	if cfg.waits {
		ws = waitstate.New(src.Defs(), &waitstate.Options{KeepLogs: cfg.save != ""}) // a saved state holds the logs
	}
	prog := progress.New(stderr, name, "events")
	var n int64
	for src.Next() {
		ev := src.Event()
		acc.Add(ev)
		ct.Add(ev)
		if ws != nil {
			ws.Add(ev)
		}
		n++
		if n&0xffff == 0 {
			prog.Update(n)
		}
	}
	prog.Done(n)
	if err := src.Err(); err != nil {
		return err
	}
	ph.mark("events", "")
	var clamped int64
	if vc != nil {
		clamped = vc.Clamped()
	}
	st := &shardstat.State{Name: name, Trace: id, Events: n, MPI: mpi, Clamped: clamped, Shard: cfg.shard, Acc: acc, Tree: ct, Waits: ws}
	if cfg.save != "" {
		stop() // an exit would leave the file half written
		return saveState(cfg.save, st, cfg.saveOptions([]string{name}))
	}
	return st.WriteReport(out, cfg.reportOptions(ph))
}
