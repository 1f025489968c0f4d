// Package hpctrace is the root of a Go SDK for reading, writing, seeking and
// summarising HPC performance traces. It opens a trace of any supported
// format as format-neutral model events:
//
//	t, err := hpctrace.Open(path, nil) // PICL, DUMPI rank or run, OTF, OTF2, hpctrace event JSON, Chrome JSON
//	if err != nil {
//		return err
//	}
//	defer t.Close()
//	for ev, err := range model.All(t) {
//		if err != nil {
//			return err
//		}
//		fmt.Println(t.Duration(ev.Time), t.LocationName(ev.Loc), ev.Kind)
//	}
//
// [Open] detects the format with [Detect]: by content where the content
// says it (DUMPI's magic number, an OTF2 anchor's header, the "format"
// string of hpctrace's event JSON, a Chrome Trace Event Format document's
// array or keys, a DUMPI .meta file's keys, PICL's record syntax, an OTF
// master file's stream lines),
// by name where only the name does. [OpenFS] and [DetectFS] do the same
// for a file of an fs.FS (os.DirFS, embed.FS, memory). Options.Window
// reads only a time interval of the trace, seeking to it in the formats
// that allow it (OTF, OTF2; see [model.Window] and [Options.Window]), and
// Options.Interval gives that interval as durations from the trace's
// start or end ("the last 10 ms": [Interval], converted with
// [Trace.Bounds] and the trace's clock). The work is done by the
// sub-packages:
//
//	picl    PICL new-format ASCII traces (Worley 1992), reader and writer
//	dumpi   SST DUMPI binary MPI traces, index-footer random access, writer
//	otf     Open Trace Format 1.x: streams, zlib, merged reading, seeking, writer
//	otf2    OTF2 archives (Score-P): every record, merged reading, seeking, writer
//	model   a small format-neutral event model that every format maps onto
//	eventjson  hpctrace's event JSON: the model's events and definitions as a
//	        JSON document (readable interchange and tests; not Chrome's format)
//	stats   profiles, communication and interval statistics from model events
//	export  model events as Chrome Trace Event JSON, CSV tables and a timeline
//	chrome  the Chrome Trace Event Format (Perfetto's JSON) read as model events
//
// Every reader has the same pull shape, modelled on bufio.Scanner: Next
// advances, Record returns the current record (owned by the reader and valid
// until the next call to Next), Err reports the first error, and All adapts
// the trio to a range loop:
//
//	r, err := picl.NewReader(f, nil)
//	if err != nil {
//		return err
//	}
//	for rec, err := range r.All() {
//		if err != nil {
//			return err
//		}
//		fmt.Println(rec.Time, rec.Event)
//	}
//
// # One surface
//
// Every format package opens, adapts, writes and closes in the same shape:
//
//	Open(name, *Options) / OpenFS(fsys, name, *Options)
//	        open what the format is (a picl or chrome Reader, a dumpi File
//	        or Run, an otf Trace, an otf2 Archive, an eventjson Reader)
//	        with one optional options argument (nil means defaults)
//	NewReader(r, *Options)
//	        the same over an io.Reader the caller owns
//	NewModelSource(x, *ModelOptions)
//	        the format's records as model events; ModelOptions.Selection
//	        (a [model.Selection]: locations by [model.LocID] and a
//	        [model.Window] in ticks) is honoured exactly
//	NewModelWriter(dst, defs, *ModelWriterOptions)
//	        model events written in the format, to an io.Writer or, for
//	        a format of several files, a [model.Creator]
//
// Times that cross the model's API are [model.Time] ticks of the trace's
// clock ([model.TimeBase] converts to and from time.Duration, and a
// trace's [model.Bounds] are its first and last times); a format's
// own record types keep its native times and ids, and say so. Locations
// are [model.LocID]s, with the format's own id in [model.Location].Native.
//
// # Opening and closing
//
// One rule holds in every package: a value closes what it opened itself,
// never what it was given. What Open or OpenFS returns owns the files it
// opened, and its Close closes them; a reader built by NewReader or
// NewFile over something the caller opened closes nothing of it; a model
// source closes the files it opened itself (the event files of an OTF
// stream or an OTF2 location) but never the Trace, Archive, Run or Reader
// it was built from; a writer closes the files it created through its
// Creator, never an io.Writer it was given. Every Close may be called
// twice (the second returns nil), and a value read after Close returns an
// error or false, never panics. A [Trace] from [Open] owns everything it
// opened: its Close closes the source, then the files.
//
// Readers allocate nothing per record in the steady state, writers reproduce
// the files they read byte for byte, and malformed input yields a typed
// ParseError naming the file, the position and the record index, never a
// panic.
//
// The programs under examples/ (picldump, dumpi2ascii, otfprint, otf2print,
// otfaux, traceconv, tracestat, tracestat-mpi, traceview, parquet) read and
// write traces through the exported API alone (their program plumbing, such
// as atomic output files, progress on a terminal and the merging of
// tracestat-mpi's shards, comes from packages under examples/internal/) and double as
// its tour.
package hpctrace
