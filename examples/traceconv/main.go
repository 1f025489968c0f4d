// Command traceconv copies and converts traces through the SDK's readers
// and writers. The input format is detected from the file's name and first
// bytes.
//
// Usage:
//
//	traceconv [-to otf|otf2|picl|json|perfetto|csv] [-waitstates] [-force] [-strict] -in IN -out OUT [OTF options]
//
// A conversion to OTF, OTF2, PICL or Perfetto that drops events (a kind
// the format has no form for, an Enter of no region, a message without a
// peer) says on standard error how many, by kind or reason; with -strict
// it fails instead (exit status 1) and writes nothing. JSON keeps every
// event; CSV tables list every event.
//
// # Output
//
// The output is written to a temporary file beside OUT (for an OTF trace,
// a temporary directory beside its master file, for an OTF2 archive one
// beside its anchor file) and moved into place only
// when it is complete, flushed and synced, so a failed conversion leaves
// OUT as it was: absent, or the user's old file. traceconv refuses an
// output that is one of the input's files, under any name (a hard or
// symbolic link too; for an OTF input every file of the trace, for a
// DUMPI run its .meta and every rank file), and replaces an existing
// output only with -force; for an OTF output, the existing files named
// like the new trace's (OUT's stub followed by .otf, .thumb or
// .ID.def, .ID.events, ...) are its old version: -force replaces them and
// removes those the new trace does not have. An OUT that exists and is
// not a regular file (/dev/stdout, /dev/null, a pipe) is written directly
// and never removed, and a write error there is an error. With -to csv,
// OUT is a directory (created if need be) of the tables export.CSVFiles:
// tables already there are replaced only with -force. Interrupted
// (Ctrl-C, SIGTERM), traceconv removes its temporary files and exits with
// status 130 (143).
//
// When standard error is a terminal, traceconv shows its progress there:
// for a copy, the bytes read of the input's size; for a conversion, the
// events of each pass over the input (of the first pass's count from the
// second on); with the rate and the time left. Elsewhere it shows none.
//
// Supported inputs and what a copy (no -to, or -to the input's format) does:
//
//	dumpi   one DUMPI rank file (.bin): copied call by call; the copy is
//	        byte-identical to a file of the reference tracer. Converted,
//	        its rank is the -NNNN suffix of its name. A DUMPI run (.meta,
//	        every rank's file beside it) can only be converted: its ranks
//	        merged by time.
//	otf     an OTF 1.x trace, named by its master file (.otf, with the
//	        record files beside it): each record file copied record by
//	        record to the file of the same stream and type, keeping every
//	        key-value list, unknown line and state line as it is (a file
//	        without the reference writer's closing time and process lines
//	        stays without them), in the input's record syntax and
//	        compression unless -form or -zlib are given; the thumbnail
//	        (S.thumb) copied byte for byte. With -streams the trace is
//	        re-streamed through otf.TraceWriter instead.
//	otf2    an OTF2 archive, named by its anchor file (.otf2, with the
//	        definitions and the directory of event files beside it):
//	        copied record by record with the stored ids and times, local
//	        definitions, attribute lists, chunk sizes and the anchor's
//	        texts and trace id, through otf2.ArchiveWriter; byte-identical
//	        for an archive of libotf2 3.0. Records of kinds the reader
//	        does not know, snapshots, markers and thumbnails are left out.
//	        Replacing an archive (-force) replaces its directory of event
//	        files, which must hold nothing but the archive's files. An
//	        OUT that is a directory, or ends in "/" (the directory is then
//	        created), receives the archive traces.otf2 inside it, as
//	        libotf2 names it.
//	picl    a PICL trace (.trf): copied record by record, byte-identical
//	        for a file with single blanks and LF line ends
//	json    a document of hpctrace's event JSON (package eventjson,
//	        "format" trace-events-json/1, .json; not Chrome's format):
//	        read whole through eventjson.Reader, which checks every
//	        event, then copied byte for byte (written back through
//	        eventjson.Writer its layout would change, and its content:
//	        the writer lists every defined location and leaves out fields
//	        at their zero value, such as the root of a barrier)
//	perfetto a Chrome Trace Event Format document (what -to perfetto
//	        writes, and other tools' JSON traces) can only be converted:
//	        read through package chrome, which gives a document written
//	        by -to perfetto back its regions, visits, times and messages
//
// After a copy, traceconv compares it with the input. Where it is not
// byte-identical, it says so on standard error: for each file that
// differs, the first differing line with both versions (for DUMPI, the
// first differing byte), or that the text is the same but compressed
// differently (Go's deflate does not reproduce zlib's bytes), or that a
// file is only on one side. Files that differ the same way share a line.

// # Conversions
//
// With -to, the input is read through its format's model adapter (see
// package model) and written in the target format; the input is read
// twice, once for the definitions and the time range, once for the events.
// Everything the model does not hold is lost first: see each format
// package's ModelSource for its mapping (key-value lists, OTF file and RMA
// records and snapshots, DUMPI arguments that are not message fields, PICL
// record data other than message fields, descriptors, subsets of
// processors and processes). Then each target loses:
//
// -to otf (PICL → OTF, DUMPI run → OTF as the reference's dumpi2otf does,
// JSON → OTF). The time base becomes DEFTIMERRESOLUTION; locations become
// processes (token = model location id; a thread's parent is its process's
// main thread); regions become functions (token = region id) in function
// groups named by Region.Group, else "MPI" for communication and
// collective regions, "I/O" for I/O regions and "Application" for the
// rest; sites become DEFSCL and DEFSCLFILE records; communicators become
// process groups; collectives become DEFCOLLOPs, one per (region, class)
// (a collective without a root gets root 0xffffffff, as VampirTrace writes);
// counters become DEFCOUNTERs in one counter group. Events map one to one
// (Enter, Leave, Send, Receive, BeginCollOp, EndCollOp, Counter;
// ProgramBegin and ProgramEnd as BeginProcess and EndProcess). A marker
// becomes a zero-length Enter/Leave of its region and an EVTCOMMENT with
// its text, so it reads back as a visit and a text marker. Lost: native
// ids (PICL event types and processors, ranks, tokens: they become model
// ids); the time origin when the trace starts before 0 (OTF times are
// unsigned, so every time is shifted by the same amount); event Flags
// (waited or not, synchronous mode, unknown size); message sizes of 4 GiB
// and more (clamped); location hosts; region kinds beyond the group name;
// the statistics the trace recorded; PICL event-type subsets; double
// quotes in names and texts (OTF strings have no escaping: they become
// blanks). Enters of no region (0) are dropped, and every Leave closes the
// innermost open region, whatever region it names (model.ClassifyLeave):
// a Leave of no region, or naming another one (as APEX writes), becomes
// the Leave of that region. A message without a known peer (on a
// DUMPI communicator whose members the run does not record) is dropped,
// since an OTF message names its partner, and traceconv says on standard
// error how many it dropped. OTF has no record for the posting of a
// non-blocking receive, the completion of a non-blocking send or a
// parameter: those events are dropped and counted on standard error too.
//
// -to otf2 (any input → OTF2, read by the reference otf2-print), through
// otf2.ModelWriter, whose documentation has the mapping: a location group
// per process, locations as CPU threads, regions with a role and
// paradigm from their kind and group, MPI communicators over the
// locations ("world" for messages without one), MpiSend/MpiRecv,
// MpiCollectiveBegin/End (the operation from the region's MPI name or the
// class), MpiIsend/MpiIrecv/MpiIrecvRequest/MpiIsendComplete for
// non-blocking messages, ProgramBegin/End, Parameter records, metrics of
// one INT64 member per counter. Lost: native ids, the
// time origin when the trace starts before 0, event Flags, sites, hosts,
// region kinds beyond the role, intercommunicators' remote groups,
// counter value types, recorded statistics, subsets and marker texts (a
// marker becomes a zero-length visit of its region). Events OTF2 cannot
// hold (Enters of no region, unmatched Leaves and collective ends,
// collectives of unknown class) are left out and counted on stderr.
//
// -to picl (OTF → PICL as input for ParaGraph, and any input → PICL). The
// output is what ParaGraph reads (picl.Validate finds nothing in it): each
// location is a processor, 0 … P-1 in location order (hosts stay 32767),
// with process 0; labels (-5) name the processors and the regions first;
// a -901 entry comes before each processor's first event and a -901 exit
// after its last (both at the start for a processor without events).
// Regions become user events (event type = region id - 1) with -3/-4
// entry and exit records; a Send becomes a -21 entry (length, type = tag,
// destination processor) and exit; a Recv a -52 (waited) or -51 (not
// waited) entry (type) and exit (length, type, source processor); a marker
// a -2 mark of its region and a -7 message with its text. Timestamps are
// seconds with enough decimals for one tick (at least 6). Lost: the
// process/thread structure (every thread is a processor), communicators,
// call sites, collective operations (the region around them stays),
// counters, recorded statistics, synchronous mode, groups, region kinds
// and files, and messages without a known peer (ParaGraph cannot draw
// them; traceconv says on standard error how many it dropped), and the
// receive posts, send completions, program begins and ends and parameters,
// which PICL has no record for (counted on standard error too).
//
// -to json (any input → hpctrace event JSON). Lost, as documented by
// eventjson.Writer: site file names (a site is its line), communicator
// names and members, recorded statistics, event-type subsets, and native
// location ids when two locations share one (the processes of one PICL
// processor: the ids become indices). Enters of no region are dropped and a
// Leave names the innermost open region it closes, as for OTF. A message
// without a known peer is kept, without a "peer" field.
//
// -to perfetto (any input → the Chrome Trace Event Format, JSON, for
// Perfetto and chrome://tracing), in one streamed pass: locations become
// threads, regions and collectives slices, messages flow arrows, counters
// counter tracks, markers instant events, as documented by
// export.ChromeWriter.
//
// -to csv (any input → CSV tables for pandas, polars, DuckDB, Spark): OUT
// is a directory that receives events.csv, messages.csv (sends and
// receives paired, both times), regions.csv, locations.csv and
// profile.csv, in one streamed pass, with the schema of export.Tables.
// With -waitstates it adds waitstates.csv, one row per wait-state instance
// of package waitstate (export.WaitStateRow), from the same pass; the
// analysis keeps a log that grows with the trace's MPI calls and messages.
// A waitstates.csv already in OUT belongs to the tables: it is replaced
// only with -force, and removed by a -force export without -waitstates, so
// that no table of an older export is taken for part of the new one.
//
// For OTF output the options are:
//
//	-form short|long   record syntax of the output (default short; a copy
//	                   keeps the input's unless -form is given)
//	-zlib              compress every record file (full-flush zlib blocks;
//	                   a copy keeps the input's compression unless -zlib
//	                   or -zlib=false is given)
//	-zlib-block n      text per zlib block in bytes (default 1 MiB)
//	-streams m         re-stream the processes onto m streams, as otfmerge
//	                   does (0 keeps the input's mapping; a conversion then
//	                   writes one stream per location with events)
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hpctrace/hpctrace"
	"github.com/hpctrace/hpctrace/dumpi"
	"github.com/hpctrace/hpctrace/examples/internal/outfile"
	"github.com/hpctrace/hpctrace/export"
	"github.com/hpctrace/hpctrace/internal/termsafe"
)

// options holds the target format and the format-specific flags.
type options struct {
	to     string    // "" (copy), "otf", "picl" or "json"
	force  bool      // replace an existing output
	strict bool      // a conversion that drops events fails
	notes  io.Writer // where traceconv says what a copy or conversion did not keep; nil: nowhere
	otf    otfFlags
	// waitStates adds the waitstates table to -to csv.
	waitStates bool
}

// copiers copies a file in its own format, by format; a DUMPI run can
// only be converted.
var copiers = map[hpctrace.Format]func(in, out string, o *options) error{
	hpctrace.FormatDUMPI: func(in, out string, _ *options) error { return copyDUMPI(in, out) },
	hpctrace.FormatJSON:  func(in, out string, _ *options) error { return copyJSON(in, out) },
	hpctrace.FormatOTF:   func(in, out string, o *options) error { return convertOTF(in, out, &o.otf) },
	hpctrace.FormatOTF2:  func(in, out string, _ *options) error { return copyOTF2(in, out) },
	hpctrace.FormatPICL:  func(in, out string, _ *options) error { return copyPICL(in, out) },
}

// formatName is the -to name of a format.
func formatName(f hpctrace.Format) string {
	switch f {
	case hpctrace.FormatDUMPI, hpctrace.FormatDUMPIRun:
		return "dumpi"
	case hpctrace.FormatOTF:
		return "otf"
	case hpctrace.FormatOTF2:
		return "otf2"
	case hpctrace.FormatPICL:
		return "picl"
	case hpctrace.FormatJSON:
		return "json"
	}
	return f.String()
}

// targets lists the conversions of -to.
var targets = map[string]func(in modelInput, out string, o *options) error{
	"otf":      func(in modelInput, out string, o *options) error { return toOTF(in, out, &o.otf, o.notes, o.strict) },
	"otf2":     func(in modelInput, out string, o *options) error { return toOTF2(in, out, o.notes, o.strict) },
	"picl":     func(in modelInput, out string, o *options) error { return toPICL(in, out, o.notes, o.strict) },
	"json":     func(in modelInput, out string, _ *options) error { return toJSON(in, out) },
	"perfetto": func(in modelInput, out string, o *options) error { return toPerfetto(in, out, o.notes, o.strict) },
	"csv":      func(in modelInput, out string, o *options) error { return toCSV(in, out, o.waitStates) },
}

func main() {
	outfile.CleanUpOnSignal()
	os.Exit(run(os.Args[1:], os.Stderr))
}

// run converts as args say and returns the exit status: 0, 1 for a
// conversion that failed (with a message on stderr), 2 for a usage error.
// The notes of a copy that is not byte-identical go to stderr too.
func run(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("traceconv", flag.ContinueOnError)
	fs.SetOutput(stderr)
	in := fs.String("in", "", "input trace")
	out := fs.String("out", "", "output trace")
	o := options{notes: stderr}
	fs.StringVar(&o.to, "to", "", "convert to this format: otf, otf2, picl, json, perfetto or csv (default: copy)")
	fs.BoolVar(&o.force, "force", false, "replace an existing output")
	fs.BoolVar(&o.strict, "strict", false, "fail, writing nothing, when the conversion would drop events")
	fs.BoolVar(&o.waitStates, "waitstates", false, "with -to csv: add waitstates.csv, the wait-state instances")
	o.otf.register(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: traceconv [-to otf|otf2|picl|json|perfetto|csv] [-waitstates] [-force] [-strict] -in IN -out OUT [OTF options]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "form":
			o.otf.formSet = true
		case "zlib":
			o.otf.zlibSet = true
		}
	})
	if *in == "" || *out == "" || fs.NArg() != 0 {
		fs.Usage()
		return 2
	}
	if err := convert(*in, *out, &o); err != nil {
		fmt.Fprintln(stderr, "traceconv:", termsafe.String(err.Error()))
		return 1
	}
	return 0
}

func convert(in, out string, o *options) error {
	conv, ok := targets[o.to]
	if !ok && o.to != "" {
		return fmt.Errorf("-to %q: want otf, otf2, picl, json, perfetto or csv", o.to)
	}
	if o.waitStates && o.to != "csv" {
		return errors.New("-waitstates: only with -to csv")
	}
	f, err := hpctrace.Detect(in)
	if err != nil {
		return err
	}
	name := formatName(f)
	copying := o.to == "" || o.to == name
	cp := copiers[f]
	if copying && cp == nil {
		return fmt.Errorf("%s: this %v input can only be converted (-to otf, picl or json)", in, f)
	}
	to := o.to
	if copying {
		to = name
	}
	if to == "otf2" {
		if out, err = otf2Anchor(out); err != nil {
			return err
		}
	}
	if err := checkOutput(out, to, inputFiles(f, in), o.force); err != nil {
		return err
	}
	if !copying {
		return conv(openModel(in, o.notes), out, o)
	}
	if err := cp(in, out, o); err != nil {
		return err
	}
	// A JSON copy is the input's bytes: nothing to compare.
	if o.notes != nil && to != "json" && (to == "otf" || to == "otf2" || isRegular(out)) {
		notes := copyNotes(name, in, out)
		if len(notes) > 0 {
			fmt.Fprintf(o.notes, "traceconv: the copy %s is not byte-identical to %s:\n", out, in)
		}
		for _, n := range notes {
			fmt.Fprintln(o.notes, "  "+n)
		}
	}
	return nil
}

// otf2Anchor returns the anchor file of the OTF2 output out: out itself,
// or traces.otf2 inside out when out is a directory or ends in a
// separator (the directory is created if need be).
func otf2Anchor(out string) (string, error) {
	fi, err := os.Stat(out)
	isDir := err == nil && fi.IsDir()
	if !isDir && !strings.HasSuffix(out, "/") && !strings.HasSuffix(out, string(filepath.Separator)) {
		if !strings.HasSuffix(out, ".otf2") {
			return "", fmt.Errorf("-out %s: an OTF2 output is an anchor file NAME.otf2 or a directory to hold traces.otf2", out)
		}
		return out, nil
	}
	if !isDir {
		if err := os.MkdirAll(out, 0o777); err != nil {
			return "", err
		}
	}
	return filepath.Join(out, "traces.otf2"), nil
}

// isRegular reports whether path is a regular file (after links).
func isRegular(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// checkOutput refuses an output that is one of the input files or exists
// without -force (see package outfile), before any work is done; the
// writers then replace the output when they are done (createFile,
// withOTFOutput).
func checkOutput(out, format string, inputs []string, force bool) error {
	opts := &outfile.Options{Force: force, Inputs: inputs}
	switch format {
	case "otf":
		dir, stub := otfOutput(out)
		return outfile.CheckSet(dir, otfOwned(stub), opts)
	case "otf2":
		dir, name := otf2Output(out)
		return outfile.CheckSet(dir, otf2Owned(name), opts)
	case "csv":
		// A directory of tables (export.CSVFiles), created if need be.
		fi, err := os.Stat(out)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s: not a directory (-to csv writes a directory of tables)", out)
		}
		csvFiles := export.CSVFiles()
		tables := append(csvFiles[:], export.WaitStatesCSV)
		return outfile.CheckSet(out, func(name string) bool {
			return slices.Contains(tables, strings.TrimSuffix(name, ".partial"))
		}, opts)
	}
	return outfile.Check(out, opts)
}

// inputFiles lists the files read to convert in: every file of an OTF
// trace, the .meta and rank files of a DUMPI run, or in itself.
func inputFiles(f hpctrace.Format, in string) []string {
	files := []string{in}
	switch {
	case f == hpctrace.FormatOTF:
		dir := filepath.Dir(in)
		owned := otfOwned(strings.TrimSuffix(filepath.Base(in), ".otf"))
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if owned(e.Name()) {
				files = append(files, filepath.Join(dir, e.Name()))
			}
		}
	case f == hpctrace.FormatOTF2:
		for _, p := range otf2Files(in) {
			files = append(files, p)
		}
	case f == hpctrace.FormatDUMPIRun:
		mf, err := os.Open(in)
		if err != nil {
			return files
		}
		m, err := dumpi.ParseMeta(mf)
		mf.Close()
		if err != nil {
			return files
		}
		for rank := range min(m.NumProcs, 1<<20) {
			files = append(files, filepath.Join(filepath.Dir(in), m.RankFile(rank)))
		}
	}
	return files
}
