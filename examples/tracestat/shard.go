package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/hpctrace/hpctrace/examples/internal/outfile"
	"github.com/hpctrace/hpctrace/examples/internal/shardstat"
)

// Sharded runs: "tracestat -shard i/n -save part.hps TRACE" profiles the
// locations l of TRACE with l mod n == i (location ids, 1-based; events
// of no location go to shard 0) and saves the statistics (stats
// Accumulator and CallTree states, with the definitions) and the
// wait-state analysis (waitstate.Analyzer's state) instead of
// printing a report; "tracestat -merge part*.hps" joins the n shards'
// states and prints the report of the whole trace, as one run over it
// would, in text or -json. Messages between locations of different
// shards match, and collectives complete, when the states are joined.

func shardFlags(fs *flag.FlagSet, cfg *config) {
	fs.Var(&cfg.shard, "shard", "profile only the locations l with l mod n == i (with -save)")
	fs.StringVar(&cfg.save, "save", "", "save the shard's state to this file instead of printing a report")
	fs.BoolVar(&cfg.force, "force", false, "with -save: replace an existing file")
	fs.BoolVar(&cfg.merge, "merge", false, "the files are states saved by -save: print the report of their union")
}

func checkShardFlags(cfg *config, files []string) error {
	switch {
	case cfg.merge && (cfg.save != "" || cfg.shard.N > 0):
		return errors.New("-merge takes neither -save nor -shard")
	case cfg.merge && len(files) == 0:
		return errors.New("-merge needs the saved states")
	case cfg.save != "" && len(files) != 1 && cfg.synthetic == 0:
		return errors.New("-save takes one trace")
	case cfg.shard.N > 0 && cfg.save == "":
		return errors.New("-shard needs -save")
	case (cfg.save != "" || cfg.merge) && (len(cfg.at) > 0 || cfg.every != timeArg{}):
		return errors.New("-at and -every need every location at once: they cannot be sharded")
	case cfg.force && cfg.save == "":
		return errors.New("-force needs -save")
	case cfg.save != "" && cfg.shard.N == 0:
		cfg.shard = shardstat.Shard{I: 0, N: 1} // the whole trace is shard 0/1
	}
	if cfg.save != "" {
		// Refuse the output before reading the trace, not after.
		return outfile.Check(cfg.save, cfg.saveOptions(files))
	}
	return nil
}

// saveOptions returns the output rules of -save: never a file of the
// traces read (any file of an OTF or OTF2 trace or DUMPI run, under any
// name), an existing file only with -force.
func (cfg *config) saveOptions(files []string) *outfile.Options {
	o := &outfile.Options{Force: cfg.force}
	for _, f := range files {
		o.Inputs = append(o.Inputs, outfile.TraceFiles(f)...)
	}
	return o
}

// reportOptions returns the options of the report; its phases are
// measured by ph (nil: not measured).
func (cfg *config) reportOptions(ph *phases) *shardstat.ReportOptions {
	o := &shardstat.ReportOptions{JSON: cfg.json, Top: cfg.top, Scope: cfg.scope}
	if ph != nil {
		o.Phase = func(what string) { ph.mark(what, "") }
	}
	return o
}

// saveState writes the state of a shard to path by the rules of package
// examples/internal/outfile: through a temporary file renamed into place, so that
// a failed write leaves no file that looks whole.
func saveState(path string, st *shardstat.State, opts *outfile.Options) error {
	data, err := st.MarshalBinary()
	if err != nil {
		return err
	}
	err = outfile.Write(path, opts, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
	if err != nil {
		return fmt.Errorf("saving the state: %w", err)
	}
	return nil
}

// mergeStates prints the report of the saved states in files, with their
// wait-state analysis unless -waits=false; states saved without it are
// merged without it, and stderr says so.
func mergeStates(out, stderr io.Writer, files []string, cfg *config) error {
	var set shardstat.Set
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		st, err := shardstat.Decode(path, data)
		if err != nil {
			return err
		}
		if err := set.Add(path, st); err != nil {
			return err
		}
	}
	st, err := set.State()
	if err != nil {
		return err
	}
	switch {
	case !cfg.waits:
		st.Waits = nil
	case st.Waits == nil:
		fmt.Fprintln(stderr, "tracestat: the states were saved with -waits=false: the report has no wait states")
	}
	return st.WriteReport(out, cfg.reportOptions(nil))
}
