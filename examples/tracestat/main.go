// Tracestat profiles HPC traces: a top-down report of where the time goes,
// with the flat profile, the drill-down tree and hot path, communication per
// peer split into synchronisation delay and transmission time, collectives,
// load imbalance and diagnostics.
//
// Usage:
//
//	tracestat [flags] [FILE ...]
//
// Without FILE it profiles an embedded sample: the example program of
// Figure 12 of the scalable-monitoring paper, two processes exchanging
// messages. Each FILE is profiled separately; its format is detected from
// its name and first bytes:
//
//	*.json   trace-events JSON (trace-events-json/1)
//	*.trf    PICL new-format ASCII trace (all processors of the file)
//	*.meta   DUMPI run: every rank's file, merged by time
//	*.bin    one DUMPI rank file (rank from the -NNNN suffix of the name)
//	*.otf    OTF 1.x trace (the master file; streams merged by time)
//
// For PICL traces without -picl, the statistics are computed relative to -1
// and to every event type of the trace's own -101/-102/-103 records (found
// in a first pass), and those records are checked against the events.
//
// Flags:
//
//	-json          print the report as JSON, in the layout of the stats oracles
//	-at t1,t2,...  also print interval summaries at these times (ticks):
//	               the statistics of [0,t1), [t1,t2), ...
//	-every p       also print interval summaries every p ticks; a stretch of
//	               periods without events is one interval, so their number
//	               is bounded by the events, not by the time span
//	-vclock o      correct monitoring intrusion with a virtual clock, o ticks per probe
//	-picl E,...    add PICL -101/-102/-103 statistics relative to event types E (-1 = all)
//	-top n         rows per table in the text report (default 15)
//	-scope s       drill-down scope: "all" (default) or "loc<N>"
//	-synthetic n   profile a generated 8-rank trace of n events instead of files
//	-serial        read and profile in one goroutine; by default, with more
//	               than one CPU, the trace is read in a goroutine of its own,
//	               ahead of the statistics (model.Prefetcher)
//
// A file that cannot be read, or an output that cannot be written (a full
// disk, a closed pipe), ends the run with a message and exit status 1;
// the reports of the files before it are printed first.
//
// Traces that take more than a second show progress on stderr when it is a
// terminal.
package main

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hpctrace/hpctrace/dumpi"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf"
	"github.com/hpctrace/hpctrace/picl"
	"github.com/hpctrace/hpctrace/stats"
)

//go:embed fig12.json
var sample []byte

// errUnknownFormat reports a file whose format is not recognised.
var errUnknownFormat = errors.New("unknown trace format (want .json, .trf, .meta, .bin or .otf)")

type config struct {
	json      bool
	at        []model.Time
	vclock    model.Time
	picl      []int64
	top       int
	scope     string
	synthetic int64
	every     int64
	serial    bool
}

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "tracestat:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tracestat", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	var at, picl string
	fs.BoolVar(&cfg.json, "json", false, "print the report as JSON")
	fs.StringVar(&at, "at", "", "interval summaries at these comma-separated times (ticks)")
	fs.Int64Var(&cfg.every, "every", 0, "interval summaries every this many ticks")
	vclock := fs.Int64("vclock", 0, "virtual-clock overhead per probe, in ticks")
	fs.StringVar(&picl, "picl", "", "PICL statistics relative to these comma-separated event types")
	fs.IntVar(&cfg.top, "top", 15, "rows per table")
	fs.StringVar(&cfg.scope, "scope", "all", `drill-down scope: "all" or "loc<N>"`)
	fs.Int64Var(&cfg.synthetic, "synthetic", 0, "profile a generated 8-rank trace of this many events")
	fs.BoolVar(&cfg.serial, "serial", false, "read and profile in one goroutine")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tracestat [-json] [-at t1,t2,...] [-vclock o] [-picl E,...] [-top n] [-scope s] [FILE ...]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg.vclock = model.Time(*vclock)
	var err error
	if cfg.at, err = parseInts[model.Time](at); err != nil {
		return fmt.Errorf("-at: %w", err)
	}
	if cfg.picl, err = parseInts[int64](picl); err != nil {
		return fmt.Errorf("-picl: %w", err)
	}
	out := bufio.NewWriter(stdout)
	err = report(out, stderr, fs.Args(), &cfg)
	// The reports before an error come out before its message.
	if ferr := out.Flush(); ferr != nil && err == nil {
		err = fmt.Errorf("writing the output: %w", ferr)
	}
	return err
}

// report writes the report of each file (or of the sample) to out; it
// stops at the first error, of reading or of writing.
func report(out *bufio.Writer, stderr io.Writer, files []string, cfg *config) error {
	switch {
	case cfg.synthetic > 0:
		return profile(out, stderr, "synthetic", newSynth(cfg.synthetic), cfg)
	case len(files) == 0:
		src, err := model.NewJSONReader(bytes.NewReader(sample), &model.JSONReaderOptions{Path: "fig12.json"})
		if err != nil {
			return err
		}
		if !cfg.json {
			fmt.Fprintln(out, "# embedded sample: Figure 12 of the scalable-monitoring paper (2 processes)")
		}
		return profile(out, stderr, "fig12.json", src, cfg)
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

// detect names the format of a file from its name and first bytes.
func detect(name string, head []byte) string {
	head = bytes.TrimLeft(head, " \t\r\n")
	switch ext := strings.ToLower(filepath.Ext(name)); {
	case bytes.HasPrefix(head, []byte("{")) && bytes.Contains(head, []byte(model.JSONFormat)):
		return "trace-events JSON"
	case ext == ".trf":
		return "PICL"
	case ext == ".meta" || ext == ".bin":
		return "DUMPI"
	case ext == ".otf":
		return "OTF"
	case ext == ".json":
		return "trace-events JSON"
	}
	return ""
}

func profileFile(out io.Writer, stderr io.Writer, name string, cfg *config) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	head, _ := br.Peek(512)
	switch format := detect(name, head); format {
	case "trace-events JSON":
		src, err := model.NewJSONReader(br, &model.JSONReaderOptions{Path: name})
		if err != nil {
			return err
		}
		return profile(out, stderr, name, src, cfg)
	case "PICL":
		if cfg.picl == nil {
			// A first pass finds the event types PICL's own statistics are
			// relative to, so that all of them can be checked.
			rel, err := piclRelativeTo(br, name)
			if err != nil {
				return err
			}
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return err
			}
			br.Reset(f)
			c := *cfg
			c.picl = rel
			cfg = &c
		}
		r, err := picl.NewReader(br, &picl.ReaderOptions{Path: name})
		if err != nil {
			return err
		}
		src, err := picl.NewModelSource(r, nil)
		if err != nil {
			return err
		}
		return profile(out, stderr, name, src, cfg)
	case "DUMPI":
		if strings.EqualFold(filepath.Ext(name), ".meta") {
			run, err := dumpi.OpenRun(name)
			if err != nil {
				return err
			}
			defer run.Close()
			src, err := run.Model(nil)
			if err != nil {
				return err
			}
			return profile(out, stderr, name, src, cfg)
		}
		df, err := dumpi.Open(name)
		if err != nil {
			return err
		}
		defer df.Close()
		rank, _ := dumpi.RankOf(name) // 0 when the name has none
		src, err := df.Model(rank, nil)
		if err != nil {
			return err
		}
		return profile(out, stderr, name, src, cfg)
	case "OTF":
		t, err := otf.Open(os.DirFS(filepath.Dir(name)), filepath.Base(name))
		if err != nil {
			return err
		}
		src, err := otf.NewModelSource(t, nil)
		if err != nil {
			return err
		}
		defer src.Close()
		return profile(out, stderr, name, src, cfg)
	default:
		return fmt.Errorf("%s: %w", name, errUnknownFormat)
	}
}

// piclRelativeTo reads a PICL trace and returns -1 and the event types its
// statistics records are relative to, ascending.
func piclRelativeTo(r io.Reader, name string) ([]int64, error) {
	pr, err := picl.NewReader(r, &picl.ReaderOptions{Path: name})
	if err != nil {
		return nil, err
	}
	src, err := picl.NewModelSource(pr, nil)
	if err != nil {
		return nil, err
	}
	for src.Next() {
	}
	if err := src.Err(); err != nil {
		return nil, err
	}
	rel := []int64{-1}
	for _, rec := range src.Defs().Recorded {
		if !slices.Contains(rel, rec.RelativeTo) {
			rel = append(rel, rec.RelativeTo)
		}
	}
	slices.Sort(rel)
	return rel, nil
}

func profile(out io.Writer, stderr io.Writer, name string, src model.Source, cfg *config) error {
	var vc *stats.VClock
	if cfg.vclock != 0 {
		vc = stats.NewVClock(src, &stats.VClockOptions{Overhead: cfg.vclock})
		src = vc
	}
	if !cfg.serial && runtime.GOMAXPROCS(0) > 1 {
		// Reading (and the virtual clock) run in a goroutine of their own,
		// in parallel with the accumulator.
		p := model.NewPrefetcher(src, nil)
		defer p.Close()
		src = p
	}
	opts := &stats.Options{SampleTimes: cfg.at, SamplePeriod: model.Time(cfg.every)}
	if cfg.picl != nil {
		opts.PICL = &stats.PICLOptions{RelativeTo: cfg.picl}
	}
	acc := stats.New(src.Defs(), opts)
	prog := newProgress(stderr, name)
	var n int64
	for src.Next() {
		acc.Add(src.Event())
		n++
		if n&0xffff == 0 {
			prog.update(n)
		}
	}
	prog.done(n)
	if err := src.Err(); err != nil {
		return err
	}
	rep := acc.Finalize()
	if vc != nil {
		rep.Final.Diagnostics.VClockClamped = vc.Clamped()
	}
	if cfg.json {
		enc := json.NewEncoder(out)
		enc.SetIndent("", " ")
		return enc.Encode(rep)
	}
	fmt.Fprintf(out, "# %s: %d events, %d locations\n\n", name, n, len(rep.Final.HotPath)-1)
	if err := rep.WriteText(out, &stats.TextOptions{Top: cfg.top, Scope: cfg.scope}); err != nil {
		return err
	}
	if len(rep.Samples) > 0 {
		writeIntervals(out, rep, cfg.top)
	}
	if len(src.Defs().Recorded) > 0 {
		writeChecks(out, rep.CheckRecorded(src.Defs()))
	}
	return nil
}

// writeChecks summarises the comparison of the statistics stored in the
// trace with those recomputed from its events.
func writeChecks(out io.Writer, checks []stats.RecordedCheck) {
	var agree, differ, unknown int
	var worst stats.RecordedCheck
	for _, c := range checks {
		switch {
		case !c.Known:
			unknown++
		case c.Diff() == 0:
			agree++
		default:
			differ++
			if d := c.Diff(); d*d > worst.Diff()*worst.Diff() || differ == 1 {
				worst = c
			}
		}
	}
	fmt.Fprintf(out, "\nStatistics stored in the trace: %d agree with the events, %d differ, %d not derivable", agree, differ, unknown)
	if differ > 0 {
		fmt.Fprintf(out, " (largest difference %d for %s of region %d)", worst.Diff(), worst.Recorded.Kind, worst.Recorded.Region)
	}
	fmt.Fprintln(out)
}

// writeIntervals prints the flat profile of each interval between samples.
func writeIntervals(out io.Writer, rep *stats.Report, top int) {
	prev := stats.Sample{}
	for _, s := range rep.Samples {
		d := s.Sub(prev)
		fmt.Fprintf(out, "\nInterval [%d, %d): matched messages %d\n", prev.Time, s.Time, d.Diagnostics.MatchedMessages)
		fmt.Fprintf(out, "  %6s %-24s %8s %12s %12s\n", "loc", "region", "visits", "excl", "incl")
		for i, f := range d.Functions {
			if i == 4*top {
				fmt.Fprintf(out, "  ... %d more\n", len(d.Functions)-i)
				break
			}
			fmt.Fprintf(out, "  %6d %-24s %8d %12d %12d\n", f.Loc, f.Region, f.Visits, f.Excl, f.InclActivationSum)
		}
		prev = s
	}
}

// progress reports the event count on a terminal once a second.
type progress struct {
	w     io.Writer
	name  string
	start time.Time
	last  time.Time
	tty   bool
	shown bool
}

func newProgress(w io.Writer, name string) *progress {
	p := &progress{w: w, name: name, start: time.Now()}
	p.last = p.start
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	return p
}

func (p *progress) update(n int64) {
	if !p.tty {
		return
	}
	now := time.Now()
	if now.Sub(p.last) < time.Second {
		return
	}
	p.last = now
	p.shown = true
	el := now.Sub(p.start).Seconds()
	fmt.Fprintf(p.w, "\r%s: %d events, %.1f M events/s", p.name, n, float64(n)/el/1e6)
}

func (p *progress) done(n int64) {
	if p.shown {
		el := time.Since(p.start).Seconds()
		fmt.Fprintf(p.w, "\r%s: %d events in %.1f s, %.1f M events/s\n", p.name, n, el, float64(n)/el/1e6)
	}
}
