// Command bench measures hpctrace side by side with the reference C tools
// on the same machine, the same core and the same files: it builds the
// libotf reader benchmark (bench/c/bench_read.c, against Debian's
// libopen-trace-format-dev through otfconfig) and the libotf2 one
// (bench/c/bench_otf2.c, Debian's libotf2-trace-dev through otf2-config),
// the example programs and itself (its helper subcommands are the hpctrace
// side of the rows that have no example program), generates large traces,
// finds the reference DUMPI programs (undumpi_bench over libundumpi, and
// dumpi2ascii; -dumpi-ref names their directory), and runs each pair of
// programs alternately, A B A B …, after one untimed run of each, pinned
// to one CPU with taskset and with GOMAXPROCS=1 unless a row says
// otherwise. For each row it reports the ratio of CPU time (user+system,
// from the children's rusage) taken pair by pair, the median with the
// minimum and maximum, the wall-time ratio, and the peak RSS of both sides
// as /usr/bin/time reports it. A last section runs tracestat on traces of
// 1/10, 1 and 3 times the size and reports its peak RSS. It begins with
// the conditions: the CPU model, family and stepping from /proc/cpuinfo,
// the kernel, the Go and C compilers and the load average. Rows whose
// outputs are compared (otf2print, dumpi2ascii) first run both sides once
// to files and stop the harness unless the outputs are the same bytes.
//
// Usage, from the repository root:
//
//	go run ./bench [-events n] [-pairs n] [-cpu c] [-cpu2 c,d] [-work dir] [-dumpi-ref dir] [-o file] [-rss=false] [-only rows]
//
// The rows are otf-read (every field of every record, as libotf decodes
// them for its handlers), otf-zlib, otf-tail, otf-model (the model
// adapter: OTF to model.Events, every field summed), otfprint, tracestat,
// tracestat-nowaits, tracestat-2cores, picl, otf2-read, otf2-model, otf2print, dumpi-read,
// dumpi2ascii, and on a generated MPI run of 16 ranks with the calls,
// messages and collectives of a stencil code (bench/mpi.go)
// tracestat-mpi and tracestat-mpi-nowaits (beside otfprofile), waits-rate, tracestat-waits-otf2 and
// tracestat-waits-otf; -only takes a comma-separated list of them (-only
// none runs just the RSS section).
// -events sets the OTF trace's events (default 10 M) and the OTF2
// archive's (8 locations); the DUMPI runs have 4 × 400,000 calls and the
// PICL trace 100 MiB. HPCTRACE_BENCH_SMALL=1 makes every trace small, for
// a quick check of the harness. Traces are kept under -work (default
// $TMPDIR/hpctrace-bench) and reused; remove it to make them anew.
//
// Absolute times on a shared machine drift; the ratios taken in one
// alternating run are the figures to quote.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "helper" {
		os.Exit(helper(os.Args[2:]))
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

type config struct {
	events    int64 // OTF events
	dumpiRank int64 // DUMPI calls per rank
	piclBytes int64
	pairs     int
	cpu       string
	cpu2      string
	work      string
	rss       bool
	only      map[string]bool
	out       io.Writer
	root      string
	bin       string
	self      string
	timeBin   string // /usr/bin/time, if installed
	dumpiRef  string // directory of undumpi_bench and the reference dumpi2ascii
}

func run() error {
	small := os.Getenv("HPCTRACE_BENCH_SMALL") == "1"
	c := config{events: 10_000_000, dumpiRank: 400_000, piclBytes: 100 << 20}
	if small {
		c.events, c.dumpiRank, c.piclBytes = 200_000, 20_000, 4<<20
	}
	flag.Int64Var(&c.events, "events", c.events, "events in the OTF trace")
	flag.IntVar(&c.pairs, "pairs", 5, "alternating pairs per row")
	flag.StringVar(&c.cpu, "cpu", "1", "CPU list for taskset (one CPU)")
	flag.StringVar(&c.cpu2, "cpu2", "0,1", "CPU list for the two-core row")
	flag.StringVar(&c.work, "work", filepath.Join(os.TempDir(), "hpctrace-bench"), "directory for binaries and traces (kept)")
	flag.BoolVar(&c.rss, "rss", true, "measure tracestat's peak RSS at 1/10, 1 and 3 times the trace sizes")
	flag.StringVar(&c.dumpiRef, "dumpi-ref", "", "directory of the reference undumpi_bench and dumpi2ascii (default: PATH, then ../shared/bench/dumpi beside the repository)")
	only := flag.String("only", "", "comma-separated row names to run (default all)")
	outName := flag.String("o", "", "also write the report to this file")
	flag.Parse()
	if *only != "" {
		c.only = map[string]bool{}
		for _, s := range strings.Split(*only, ",") {
			c.only[s] = true
		}
	}
	var buf bytes.Buffer
	c.out = io.MultiWriter(os.Stdout, &buf)
	defer func() {
		if *outName != "" {
			os.WriteFile(*outName, buf.Bytes(), 0o644)
		}
	}()
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return fmt.Errorf("go env GOMOD: %w", err)
	}
	c.root = filepath.Dir(strings.TrimSpace(string(gomod)))
	c.bin = filepath.Join(c.work, "bin")
	if err := os.MkdirAll(c.bin, 0o755); err != nil {
		return err
	}
	if _, err := os.Stat("/usr/bin/time"); err == nil {
		c.timeBin = "/usr/bin/time"
	}
	if err := build(&c); err != nil {
		return err
	}
	c.dumpiRef = findDUMPIRef(c.dumpiRef, c.root)
	conditions(&c)
	traces, err := prepare(&c)
	if err != nil {
		return err
	}
	rows := pairsOf(&c, traces)
	var results []result
	for _, p := range rows {
		if c.only != nil && !c.only[p.name] {
			continue
		}
		if p.skip != "" {
			fmt.Fprintf(c.out, "\n## %s: left out: %s\n", p.name, p.skip)
			continue
		}
		r, err := runPair(&c, p)
		if err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
		results = append(results, r)
	}
	summary(&c, results)
	if c.rss {
		if err := rssSection(&c); err != nil {
			return err
		}
	}
	return nil
}

// build compiles the example programs, this program (whose helper
// subcommands are the hpctrace side of some pairs) and bench_read.
func build(c *config) error {
	c.self = filepath.Join(c.bin, "hpcbench")
	for _, p := range []string{"examples/otfprint", "examples/tracestat", "examples/dumpi2ascii", "bench"} {
		out := filepath.Join(c.bin, filepath.Base(p))
		if p == "bench" {
			out = c.self
		}
		cmd := exec.Command("go", "build", "-o", out, "./"+p)
		cmd.Dir, cmd.Stderr = c.root, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("go build ./%s: %w", p, err)
		}
	}
	if err := buildOTF2(c); err != nil {
		return err
	}
	flags, err := exec.Command("otfconfig", "--includes", "--libs").Output()
	if err != nil {
		return fmt.Errorf("otfconfig (package libopen-trace-format-dev): %w", err)
	}
	args := append([]string{"-O2", "-o", filepath.Join(c.bin, "bench_read"), filepath.Join(c.root, "bench", "c", "bench_read.c")}, strings.Fields(string(flags))...)
	cmd := exec.Command("cc", args...)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("cc bench_read.c: %w", err)
	}
	return nil
}

func runQuiet(name string, args ...string) error {
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %w\n%s", name, err, out)
	}
	return nil
}

func firstLine(name string, args ...string) string {
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		return "?"
	}
	s, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return s
}

// conditions prints what the figures depend on.
func conditions(c *config) {
	cpu := cpuInfo()
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(c.out, "# hpctrace side by side with the reference tools\n\n")
	fmt.Fprintf(c.out, "date: %s\n", time.Now().UTC().Format(time.RFC3339))
	fmt.Fprintf(c.out, "host: %s, %d CPUs\ncpu: %s\n", firstLine("uname", "-srm"), runtime.NumCPU(), cpu)
	fmt.Fprintf(c.out, "load average at start: %s\n", strings.TrimSpace(string(load)))
	fmt.Fprintf(c.out, "go: %s; cc: %s\n", runtime.Version(), firstLine("cc", "--version"))
	fmt.Fprintf(c.out, "pinned: taskset -c %s, GOMAXPROCS=1 unless a row says otherwise; %d alternating pairs per row (A = hpctrace first)\n", c.cpu, c.pairs)
	fmt.Fprintf(c.out, "CPU = user+system seconds of the child (rusage); RSS = its peak resident set as /usr/bin/time reports it (0: not installed)\n")
	ref := c.dumpiRef
	if ref == "" {
		ref = "none found (the DUMPI rows are left out)"
	}
	fmt.Fprintf(c.out, "DUMPI reference programs: %s\n", ref)
}

// cpuInfo returns the first CPU's model name, family, model and stepping
// from /proc/cpuinfo (the family and model tell the core generation when
// a VM reports only a vendor's name), or "?".
func cpuInfo() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "?"
	}
	f := map[string]string{}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == "" && len(f) > 0 {
			break // the first processor's block ends
		}
		if k, v, ok := strings.Cut(l, ":"); ok {
			f[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	if f["model name"] == "" {
		return "?"
	}
	return fmt.Sprintf("%s (family %s, model %s, stepping %s, %s MHz, cache %s)",
		f["model name"], f["cpu family"], f["model"], f["stepping"], f["cpu MHz"], f["cache size"])
}

type traces struct {
	otf, otfZ, picl, otfDir string
	mpiOTF2, mpiOTF         string // the generated MPI runs of as many events
	otf2                    string // the anchor of an OTF2 archive of as many events
	dumpiMPI                string // the .meta of the 4-rank DUMPI run of an iterative MPI program
	events                  int64
	sizes                   map[string]int64
}

func dirSize(dir string) int64 {
	var n int64
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
	}
	return n
}

// cached runs gen unless dir/.done exists, then marks dir done.
func cached(dir string, what string, gen func() error) error {
	done := filepath.Join(dir, ".done")
	if _, err := os.Stat(done); err == nil {
		return nil
	}
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "bench: generating %s in %s\n", what, dir)
	if err := gen(); err != nil {
		return fmt.Errorf("generating %s: %w", what, err)
	}
	return os.WriteFile(done, nil, 0o644)
}

func otfTrace(c *config, n int64) (string, error) {
	dir := filepath.Join(c.work, fmt.Sprintf("otf-%d", n))
	err := cached(dir, fmt.Sprintf("an OTF trace of %d events", n), func() error { return genOTF(dir, n) })
	return filepath.Join(dir, "bench.otf"), err
}

// dumpiRun returns the .meta file of a 4-rank DUMPI run of perRank calls
// per rank: kind "mix" has the fixtures' call mix, "mpi" the calls of an
// iterative MPI program with every argument set (genDUMPIMPI), "tag32" and
// "tagdistinct" are rings of sends and receives with 32 tags or a tag
// per message.
func dumpiRun(c *config, perRank int64, kind string) (string, error) {
	dir := filepath.Join(c.work, fmt.Sprintf("dumpi-%s-%d", kind, perRank))
	err := cached(dir, fmt.Sprintf("a 4-rank DUMPI run of %d calls per rank (%s)", perRank, kind), func() error {
		switch kind {
		case "mix":
			return genDUMPIMix(dir, c.root, perRank)
		case "mpi":
			return genDUMPIMPI(dir, perRank)
		}
		return genDUMPI(dir, perRank, kind == "tagdistinct")
	})
	return filepath.Join(dir, "bench.meta"), err
}

func prepare(c *config) (*traces, error) {
	t := &traces{events: c.events, sizes: map[string]int64{}}
	var err error
	if t.otf, err = otfTrace(c, c.events); err != nil {
		return nil, err
	}
	t.otfDir = filepath.Dir(t.otf)
	zdir := filepath.Join(c.work, fmt.Sprintf("otf-%d-zlib", c.events))
	if err := cached(zdir, "a zlib copy (otfcompress)", func() error { return zlibCopy(t.otfDir, zdir) }); err != nil {
		return nil, err
	}
	t.otfZ = filepath.Join(zdir, "bench.otf")
	pdir := filepath.Join(c.work, fmt.Sprintf("picl-%d", c.piclBytes))
	t.picl = filepath.Join(pdir, "bench.trf")
	if err := cached(pdir, "a PICL trace", func() error { return genPICL(t.picl, c.piclBytes) }); err != nil {
		return nil, err
	}
	if t.otf2, err = otf2Trace(c, c.events); err != nil {
		return nil, err
	}
	if t.mpiOTF2, err = mpiOTF2Trace(c, c.events); err != nil {
		return nil, err
	}
	if t.mpiOTF, err = mpiOTFTrace(c, c.events); err != nil {
		return nil, err
	}
	if t.dumpiMPI, err = dumpiRun(c, c.dumpiRank, "mpi"); err != nil {
		return nil, err
	}
	fmt.Fprintf(c.out, "\ntraces: OTF %d events in 8 streams, %.1f MB (zlib copy by otfcompress %.1f MB); PICL %.1f MB\n",
		c.events, float64(dirSize(t.otfDir))/1e6, float64(dirSize(zdir))/1e6, float64(dirSize(pdir))/1e6)
	fmt.Fprintf(c.out, "MPI runs: %d events in %d ranks, as OTF2 (%.1f MB) and OTF (%.1f MB)\n", c.events, mpiRanks,
		float64(dirSize(filepath.Dir(t.mpiOTF2))+dirSize(strings.TrimSuffix(t.mpiOTF2, ".otf2")))/1e6, float64(dirSize(filepath.Dir(t.mpiOTF)))/1e6)
	fmt.Fprintf(c.out, "OTF2: %d events in %d locations, %.1f MB (otf2.ModelWriter, 1 MiB chunks)\n", c.events, otf2Locs, float64(dirSize(filepath.Dir(t.otf2))+dirSize(strings.TrimSuffix(t.otf2, ".otf2")))/1e6)
	fmt.Fprintf(c.out, "DUMPI: %d ranks of %d calls of an iterative MPI program (point-to-point, wait, probe, collective calls; every argument set), %.1f MB\n", dumpiRanks, c.dumpiRank, float64(dirSize(filepath.Dir(t.dumpiMPI)))/1e6)
	return t, nil
}

// A side is one program run of a pair.
type side struct {
	label string
	argv  []string
	env   []string // added to the environment
	cpus  string
	show  bool // print the output of the warm-up run (else discarded)
}

type pair struct {
	name   string
	title  string
	a, b   side    // a: hpctrace, b: the reference (or the floor)
	invert bool    // the row's ratio is b/a (a floor over a reader)
	target float64 // 0: the row has no target
	atMost bool    // the target is met when the ratio is ≤ target (else ≥)
	same   bool    // the outputs of a and b must be the same bytes
	skip   string
	// note, if set, reads the outputs of the timed runs (those of a side
	// that shows its output) and returns a line for the row, printed after
	// each pair (i is its index, from 0) and, with i == -1, at the end.
	note func(a, b []measure, i int) string
}

func have(name string) bool {
	_, err := exec.LookPath(name)
	return err == nil
}

func pairsOf(c *config, t *traces) []pair {
	one := []string{"GOMAXPROCS=1"}
	bin := func(p string) string { return filepath.Join(c.bin, p) }
	prof := filepath.Join(c.work, "otfprofile-out", "result")
	os.MkdirAll(filepath.Dir(prof), 0o755)
	ps := []pair{
		{name: "otf-read", title: "OTF full read, merged by time, every field of every record (body, key-values, time, process) touched ÷ libotf OTF_Reader, which decodes every field for its handlers (bench_read full)",
			a: side{"hpctrace otfread", []string{c.self, "helper", "otfread", t.otf}, one, c.cpu, true},
			b: side{"bench_read full", []string{bin("bench_read"), t.otf, "full"}, nil, c.cpu, true}, target: 0.25, atMost: true},
		{name: "otf-zlib", title: "the same on the otfcompress zlib copy ÷ the reference's plain read (bench_read cannot read the zlib copy to the end)",
			a: side{"hpctrace otfread (zlib)", []string{c.self, "helper", "otfread", t.otfZ}, one, c.cpu, true},
			b: side{"bench_read full (plain)", []string{bin("bench_read"), t.otf, "full"}, nil, c.cpu, true}, target: 0.4, atMost: true},
		{name: "otf-tail", title: "the last 1 % of the time range (TraceReaderOptions.From) ÷ bench_read tail 0.01 (OTF_Reader_setTimeInterval); the issue sets no target here, ≤ 1 means no slower than the reference",
			a: side{"hpctrace otfread -tail 0.01", []string{c.self, "helper", "otfread", "-tail", "0.01", t.otf}, one, c.cpu, true},
			b: side{"bench_read tail 0.01", []string{bin("bench_read"), t.otf, "tail", "0.01"}, nil, c.cpu, true}, target: 1, atMost: true},
		{name: "otf-model", title: "the OTF model adapter alone (otf.NewModelSource: OTF → model.Events, every field of each event summed), what every tool on the SDK pays ÷ bench_read full; no target",
			a: side{"hpctrace otfmodel", []string{c.self, "helper", "otfmodel", t.otf}, one, c.cpu, true},
			b: side{"bench_read full", []string{bin("bench_read"), t.otf, "full"}, nil, c.cpu, true}},
		{name: "otfprint", title: "examples/otfprint ÷ otfprint, whole trace to /dev/null",
			a: side{"examples/otfprint", []string{bin("otfprint"), t.otf}, one, c.cpu, false},
			b: side{"otfprint", []string{"otfprint", t.otf}, nil, c.cpu, false}, target: 0.25, atMost: true},
		{name: "tracestat", title: "examples/tracestat ÷ otfprofile --csv, one core",
			a: side{"examples/tracestat", []string{bin("tracestat"), t.otf}, one, c.cpu, false},
			b: side{"otfprofile --csv", []string{"otfprofile", "-i", t.otf, "--csv", "-o", prof}, nil, c.cpu, false}, target: 0.5, atMost: true},
		{name: "tracestat-nowaits", title: "examples/tracestat -waits=false (the statistics without the wait-state analysis, which otfprofile has no counterpart of) ÷ otfprofile --csv, one core",
			a: side{"examples/tracestat -waits=false", []string{bin("tracestat"), "-waits=false", t.otf}, one, c.cpu, false},
			b: side{"otfprofile --csv", []string{"otfprofile", "-i", t.otf, "--csv", "-o", prof}, nil, c.cpu, false}, target: 0.5, atMost: true},
		{name: "tracestat-2cores", title: "examples/tracestat on two cores (GOMAXPROCS=2, reading and statistics overlap) ÷ otfprofile --csv on one; CPU of both cores, see the wall-time ratio; no target",
			a: side{"examples/tracestat (2 cores)", []string{bin("tracestat"), t.otf}, []string{"GOMAXPROCS=2"}, c.cpu2, false},
			b: side{"otfprofile --csv", []string{"otfprofile", "-i", t.otf, "--csv", "-o", prof}, nil, c.cpu, false}},
		{name: "tracestat-mpi", title: "examples/tracestat ÷ otfprofile --csv, one core, on the OTF MPI run (16 ranks, a stencil code's messages and collectives)",
			a: side{"examples/tracestat", []string{bin("tracestat"), t.mpiOTF}, one, c.cpu, false},
			b: side{"otfprofile --csv", []string{"otfprofile", "-i", t.mpiOTF, "--csv", "-o", prof}, nil, c.cpu, false}, target: 0.5, atMost: true},
		{name: "tracestat-mpi-nowaits", title: "examples/tracestat -waits=false ÷ otfprofile --csv, one core, on the OTF MPI run: the statistics alone, as otfprofile computes no wait states",
			a: side{"examples/tracestat -waits=false", []string{bin("tracestat"), "-waits=false", t.mpiOTF}, one, c.cpu, false},
			b: side{"otfprofile --csv", []string{"otfprofile", "-i", t.mpiOTF, "--csv", "-o", prof}, nil, c.cpu, false}, target: 0.5, atMost: true},
		{name: "picl", title: "PICL newline-scan floor ÷ PICL reader (no reference reader exists; the ratio is the reader's speed as a fraction of the floor's)",
			a: side{"picl reader", []string{c.self, "helper", "piclread", t.picl}, one, c.cpu, true},
			b: side{"newline scan", []string{c.self, "helper", "nlscan", t.picl}, one, c.cpu, true}, invert: true, target: 1.0 / 3},
	}
	ps = append(ps, otf2Pairs(c, t.otf2)...)
	ps = append(ps, dumpiPairs(c, t.dumpiMPI)...)
	ps = append(ps, mpiPairs(c, t.mpiOTF2, t.mpiOTF)...)
	for i := range ps {
		for _, s := range []side{ps[i].a, ps[i].b} {
			if ps[i].skip == "" && !have(s.argv[0]) {
				ps[i].skip = s.argv[0] + " is not installed"
			}
		}
	}
	return ps
}

type measure struct {
	cpu, wall float64 // seconds
	rss       int64   // KiB
	out       string  // standard output, if side.show
}

// exec1 runs s once, its output to /dev/null, and returns its CPU time
// from the rusage of the child and its peak RSS as /usr/bin/time reports
// it: the ru_maxrss of a child the harness starts itself includes the
// harness's own peak (Go starts children with vfork, whose exec records
// the parent's high-water mark), while /usr/bin/time forks its child from
// a small process. Without /usr/bin/time the RSS is reported as 0.
func exec1(c *config, s side) (measure, error) {
	args := []string{"-c", s.cpus}
	tf := filepath.Join(c.work, "time.out")
	if c.timeBin != "" {
		args = append(args, c.timeBin, "-o", tf, "-f", "%M")
	}
	args = append(args, s.argv...)
	cmd := exec.Command("taskset", args...)
	cmd.Env = append(os.Environ(), s.env...)
	var stdout, stderr bytes.Buffer
	cmd.Stderr = &stderr
	if s.show {
		cmd.Stdout = &stdout
	}
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start).Seconds()
	if err != nil {
		return measure{}, fmt.Errorf("%s: %w\n%s", strings.Join(s.argv, " "), err, stderr.String())
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return measure{}, errors.New("no rusage")
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	m := measure{cpu: tv(ru.Utime) + tv(ru.Stime), wall: wall, out: strings.TrimSpace(stdout.String())}
	if c.timeBin != "" {
		out, err := os.ReadFile(tf)
		if err != nil {
			return m, err
		}
		f := strings.Fields(string(out))
		if len(f) == 0 {
			return m, fmt.Errorf("/usr/bin/time wrote %q", out)
		}
		if m.rss, err = strconv.ParseInt(f[len(f)-1], 10, 64); err != nil {
			return m, fmt.Errorf("/usr/bin/time wrote %q", out)
		}
	}
	return m, nil
}

type result struct {
	p                pair
	a, b             []measure
	ratios, wratios  []float64 // per pair: a/b (or b/a if invert)
	med, lo, hi, wmd float64
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func runPair(c *config, p pair) (result, error) {
	r := result{p: p}
	fmt.Fprintf(c.out, "\n## %s: %s\n", p.name, p.title)
	fmt.Fprintf(c.out, "A: %s%s (taskset -c %s)\nB: %s%s (taskset -c %s)\n",
		envPrefix(p.a.env), strings.Join(p.a.argv, " "), p.a.cpus, envPrefix(p.b.env), strings.Join(p.b.argv, " "), p.b.cpus)
	if p.same {
		if err := sameOutput(c, p); err != nil {
			return r, err
		}
		fmt.Fprintln(c.out, "outputs: the same bytes")
	}
	// One untimed run of each warms the page cache.
	for _, s := range []side{p.a, p.b} {
		m, err := exec1(c, s)
		if err != nil {
			return r, err
		}
		if m.out != "" {
			fmt.Fprintf(c.out, "%s says: %s\n", s.label, m.out)
		}
	}
	for i := range c.pairs {
		ma, err := exec1(c, p.a)
		if err != nil {
			return r, err
		}
		mb, err := exec1(c, p.b)
		if err != nil {
			return r, err
		}
		r.a, r.b = append(r.a, ma), append(r.b, mb)
		q, w := ma.cpu/mb.cpu, ma.wall/mb.wall
		if p.invert {
			q, w = mb.cpu/ma.cpu, mb.wall/ma.wall
		}
		r.ratios, r.wratios = append(r.ratios, q), append(r.wratios, w)
		fmt.Fprintf(c.out, "pair %d: A cpu %.3f s wall %.3f s rss %.1f MiB | B cpu %.3f s wall %.3f s rss %.1f MiB | ratio cpu %.3f wall %.3f\n",
			i+1, ma.cpu, ma.wall, float64(ma.rss)/1024, mb.cpu, mb.wall, float64(mb.rss)/1024, q, w)
		if p.note != nil {
			fmt.Fprintf(c.out, "pair %d: %s\n", i+1, p.note(r.a, r.b, i))
		}
	}
	r.med, r.lo, r.hi, r.wmd = median(r.ratios), slices.Min(r.ratios), slices.Max(r.ratios), median(r.wratios)
	fmt.Fprintf(c.out, "ratio (CPU): median %.3f, min %.3f, max %.3f; wall-time ratio median %.3f\n", r.med, r.lo, r.hi, r.wmd)
	if p.note != nil {
		fmt.Fprintln(c.out, p.note(r.a, r.b, -1))
	}
	return r, nil
}

func envPrefix(env []string) string {
	if len(env) == 0 {
		return ""
	}
	return strings.Join(env, " ") + " "
}

func summary(c *config, rs []result) {
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(c.out, "\nload average at the end of the pairs: %s\n", strings.TrimSpace(string(load)))
	fmt.Fprintf(c.out, "\n## summary\n\n")
	fmt.Fprintln(c.out, "| row | hpctrace CPU s (median) | reference CPU s (median) | ratio: median [min–max] | wall ratio (median) | peak RSS hpctrace / reference | target | met |")
	fmt.Fprintln(c.out, "| --- | --- | --- | --- | --- | --- | --- | --- |")
	for _, r := range rs {
		cpus := func(ms []measure) float64 {
			var xs []float64
			for _, m := range ms {
				xs = append(xs, m.cpu)
			}
			return median(xs)
		}
		rss := func(ms []measure) float64 {
			var x int64
			for _, m := range ms {
				x = max(x, m.rss)
			}
			return float64(x) / 1024
		}
		target, met := "none", "–"
		if r.p.target != 0 {
			cmp, ok := "≥", r.med >= r.p.target
			if r.p.atMost {
				cmp, ok = "≤", r.med <= r.p.target
			}
			target, met = cmp+" "+strconv.FormatFloat(r.p.target, 'g', 3, 64), "no"
			if ok {
				met = "yes"
			}
		}
		fmt.Fprintf(c.out, "| %s | %.3f | %.3f | %.3f [%.3f–%.3f] | %.3f | %.1f / %.1f MiB | %s | %s |\n",
			r.p.name, cpus(r.a), cpus(r.b), r.med, r.lo, r.hi, r.wmd, rss(r.a), rss(r.b), target, met)
	}
}

// rssSection runs tracestat once on each trace at 1/10, 1 and 3 times
// the size and reports its peak RSS.
func rssSection(c *config) error {
	fmt.Fprintf(c.out, "\n## tracestat peak RSS at 1/10, 1 and 3 times the trace (GOMAXPROCS=1, taskset -c %s, one run each)\n\n", c.cpu)
	fmt.Fprintln(c.out, "| trace | 1/10: RSS, CPU | 1×: RSS, CPU | 3×: RSS, CPU | largest ÷ smallest RSS |")
	fmt.Fprintln(c.out, "| --- | --- | --- | --- | --- |")
	type kind struct {
		name string
		base int64
		path func(int64) (string, error)
	}
	kinds := []kind{
		{fmt.Sprintf("OTF, 8 streams, %d events at 1×", c.events), c.events, func(n int64) (string, error) { return otfTrace(c, n) }},
		{fmt.Sprintf("OTF2, %d locations, %d events at 1×", otf2Locs, c.events), c.events, func(n int64) (string, error) { return otf2Trace(c, n) }},
		{fmt.Sprintf("DUMPI, 4 ranks, %d calls at 1×, the fixtures' call mix", 4*c.dumpiRank), c.dumpiRank, func(n int64) (string, error) { return dumpiRun(c, n, "mix") }},
		{fmt.Sprintf("DUMPI, 4 ranks, %d calls at 1×, a ring with 32 tags", 4*c.dumpiRank), c.dumpiRank, func(n int64) (string, error) { return dumpiRun(c, n, "tag32") }},
		{fmt.Sprintf("DUMPI, 4 ranks, %d calls at 1×, a ring with a tag per message", 4*c.dumpiRank), c.dumpiRank, func(n int64) (string, error) { return dumpiRun(c, n, "tagdistinct") }},
	}
	for _, k := range kinds {
		var cells []string
		var rss []int64
		for _, n := range []int64{k.base / 10, k.base, 3 * k.base} {
			p, err := k.path(n)
			if err != nil {
				return err
			}
			m, err := exec1(c, side{argv: []string{filepath.Join(c.bin, "tracestat"), p}, env: []string{"GOMAXPROCS=1"}, cpus: c.cpu})
			if err != nil {
				return err
			}
			rss = append(rss, m.rss)
			cells = append(cells, fmt.Sprintf("%.1f MiB, %.2f s", float64(m.rss)/1024, m.cpu))
		}
		fmt.Fprintf(c.out, "| %s | %s | %.2f |\n", k.name, strings.Join(cells, " | "), float64(slices.Max(rss))/float64(slices.Min(rss)))
	}
	return nil
}
