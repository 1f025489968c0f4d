// Command traceconv copies and converts traces through the SDK's readers
// and writers. The input is opened with hpctrace.Open, which detects its
// format from its content, or its name where the content says nothing.
//
// Usage:
//
//	traceconv [-to otf|picl|json|perfetto|csv] -in IN -out OUT [OTF options]
//
// Supported inputs and what a copy (no -to, or -to the input's format) does:
//
//	dumpi   one DUMPI rank file (.bin): copied call by call; the copy is
//	        byte-identical to the input. Converted, its rank is the -NNNN
//	        suffix of its name. A DUMPI run (.meta, every rank's file
//	        beside it) can only be converted: its ranks merged by time.
//	otf     an OTF 1.x trace, named by its master file (.otf, with the
//	        record files beside it): copied record by record, keeping every
//	        key-value list and unknown line; a trace written by the
//	        reference library and copied in its own form is byte-identical
//	picl    a PICL trace (.trf): copied record by record, byte-identical
//	        for a file with single blanks and LF line ends
//	json    a trace-events JSON document (trace-events-json/1, .json):
//	        rewritten through the model's JSON reader and writer
//
// # Conversions
//
// With -to, the input is read through its format's model adapter (see
// package model) and written in the target format; for OTF and JSON the
// input is read twice, once for the definitions and the time range, once
// for the events.
// Everything the model does not hold is lost first: see each format
// package's ModelSource for its mapping (key-value lists, OTF file and RMA
// records and snapshots, DUMPI arguments that are not message fields, PICL
// record data other than message fields, descriptors, subsets of
// processors and processes). Then each target loses what its model
// writer documents:
//
// -to otf writes through otf.ModelWriter (PICL → OTF, DUMPI run → OTF as
// the reference's dumpi2otf does, JSON → OTF). A first pass finds the
// definitions and the earliest time: a trace that starts before 0 is
// shifted so that it starts at 0 (OTF times are unsigned).
//
// -to picl writes through picl.ModelWriter, in one pass: OTF → PICL as
// input for ParaGraph, and any input → PICL.
//
// -to json (any input → trace-events JSON). Lost, as documented by
// model.JSONWriter: site file names (a site is its line), communicator
// names and members, recorded statistics, event-type subsets, and native
// location ids when two locations share one (the processes of one PICL
// processor: the ids become indices). Enters of no region are dropped and a
// Leave of no region closes the innermost open one, as for OTF.
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
//
// For OTF output the options are:
//
//	-form short|long   record syntax of the output (default short)
//	-zlib              compress every record file (full-flush zlib blocks)
//	-zlib-block n      text per zlib block in bytes (default 1 MiB)
//	-streams m         re-stream the processes onto m streams, as otfmerge
//	                   does (0 keeps the input's mapping; a conversion then
//	                   writes one stream per location with events)
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/hpctrace/hpctrace"
)

// options holds the target format and the format-specific flags.
type options struct {
	to  string // "" (copy), "otf", "picl" or "json"
	otf otfFlags
}

// copiers copies a file in its own format, by format; a DUMPI run can
// only be converted.
var copiers = map[hpctrace.Format]func(in, out string, o *options) error{
	hpctrace.FormatDUMPI: func(in, out string, _ *options) error { return copyDUMPI(in, out) },
	hpctrace.FormatJSON:  func(in, out string, _ *options) error { return toJSON(openModel(in), out) },
	hpctrace.FormatOTF:   func(in, out string, o *options) error { return convertOTF(in, out, &o.otf) },
	hpctrace.FormatPICL:  func(in, out string, _ *options) error { return copyPICL(in, out) },
}

// formatName is the -to name of a format.
func formatName(f hpctrace.Format) string {
	switch f {
	case hpctrace.FormatDUMPI, hpctrace.FormatDUMPIRun:
		return "dumpi"
	case hpctrace.FormatOTF:
		return "otf"
	case hpctrace.FormatPICL:
		return "picl"
	case hpctrace.FormatJSON:
		return "json"
	}
	return f.String()
}

// targets lists the conversions of -to.
var targets = map[string]func(in modelInput, out string, o *options) error{
	"otf":      func(in modelInput, out string, o *options) error { return toOTF(in, out, &o.otf) },
	"picl":     func(in modelInput, out string, _ *options) error { return toPICL(in, out) },
	"json":     func(in modelInput, out string, _ *options) error { return toJSON(in, out) },
	"perfetto": func(in modelInput, out string, _ *options) error { return toPerfetto(in, out) },
	"csv":      func(in modelInput, out string, _ *options) error { return toCSV(in, out) },
}

func main() {
	in := flag.String("in", "", "input trace")
	out := flag.String("out", "", "output trace")
	var o options
	flag.StringVar(&o.to, "to", "", "convert to this format: otf, picl, json, perfetto or csv (default: copy)")
	o.otf.register(flag.CommandLine)
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: traceconv [-to otf|picl|json|perfetto|csv] -in IN -out OUT [OTF options]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *in == "" || *out == "" || flag.NArg() != 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := convert(*in, *out, &o); err != nil {
		fmt.Fprintln(os.Stderr, "traceconv:", err)
		os.Exit(1)
	}
}

func convert(in, out string, o *options) error {
	conv, ok := targets[o.to]
	if !ok && o.to != "" {
		return fmt.Errorf("-to %q: want otf, picl, json, perfetto or csv", o.to)
	}
	f, err := hpctrace.Detect(in)
	if err != nil {
		return err
	}
	if o.to == "" || o.to == formatName(f) {
		cp := copiers[f]
		if cp == nil {
			return fmt.Errorf("%s: this %v input can only be converted (-to otf, picl or json)", in, f)
		}
		return cp(in, out, o)
	}
	return conv(openModel(in), out, o)
}
