// Package otf reads and writes traces in the Open Trace Format 1.x (the
// ASCII format of the ZIH libotf 1.12.5, not OTF2).
//
// A trace is a set of files sharing a name stub S: the master file S.otf
// maps streams to processes; S.0.def holds global definitions,
// S.<id>.def local ones; S.<id>.events, .snaps and .stats hold events,
// snapshots and summaries of the processes of stream <id> (the id in
// lower-case hex); S.0.marker holds markers. Any file but the master may
// be zlib-compressed (S.1.events.z). Every record is one line of text, in
// a short (E1X32) or a long (ENTER 1 SCL 32) form, with lower-case
// hexadecimal numbers. Event, snapshot and summary files carry time and
// process in state lines that apply to the records after them; key-value
// lines (K1Y6V7) attach to the next record.
//
// The package follows the format notes in doc/otf.md, which restate A.
// Knüpfer, H. Brunst and R. Brendel, "Open Trace Format Specification" (TU
// Dresden, 2007) and the behaviour of libotf 1.12.5 and its tools, and the
// record table otf/records.tsv (all 65 kinds), from which records_gen.go is
// generated: one
// Kind constant and one body struct per kind, read with the accessor of
// the same name on [Record] (rec.Enter(), rec.DefProcess()) and set with
// the Set method (rec.SetEnter). IOFSL aggregated files and the thumbnail
// S.thumb are not supported.
//
// # Reading
//
// A [Reader] reads one record file with the pull trio Next, Record and Err
// (and All for range loops). [Open] reads a trace's master file from the
// operating system, [OpenFS] from an fs.FS; [Trace.OpenReader] opens one
// stream's file (plain or .z), and [Trace.NewReader] returns a
// [TraceReader] over a whole trace: definitions stream by stream,
// markers, or events, snapshots and summaries merged by time with the
// deterministic tie order (time, process, position in the file), with a
// process selection, a time interval [From, To) of native (unsigned,
// uint64) times and a record limit. [NewModelSource] adapts a trace to
// the SDK's format-neutral model, reading the locations and the time
// window of a model.Selection: it opens the event files of only the
// streams holding a selected location, and seeks to the window's From
// (O(log size) small reads per stream) and stops at its To, so that a
// window costs about its own records (plus, once, the records before it
// when a Leave of function 0 needs them; see [NewModelSource]).
//
//	t, err := otf.Open(filepath.Join(dir, "trace.otf"), nil)
//	if err != nil {
//		return err
//	}
//	defer t.Close()
//	r, err := t.NewReader(&otf.TraceReaderOptions{Processes: []uint32{1, 2}})
//	if err != nil {
//		return err
//	}
//	defer r.Close()
//	for rec, err := range r.All() {
//		if err != nil {
//			return err
//		}
//		if e, ok := rec.Enter(); ok {
//			fmt.Println(rec.Time, rec.Process, e.Function)
//		}
//	}
//
// The reader accepts every line the reference reader accepts (blank
// lines, leading blanks, mixed short and long keywords, the deprecated
// field keywords, the old FB/FE file records). Unknown keywords come back
// as KindUnknown records, or fail with ErrUnknownRecord in strict mode.
// Lines the reference rejects (trailing blanks, CR LF, missing fields)
// and upper-case hex digits (which the reference misreads) fail with a
// [ParseError] naming the file, line, byte offset and record index. An
// unterminated last line is reported as io.ErrUnexpectedEOF after every
// complete record. Compressed files are read to their end although the
// reference writer never terminates its zlib streams.
//
// # Opening and closing
//
// A value closes what it opened itself, never what it was given. [Open]
// and [OpenFS] read the master file and close it; the Trace's Close marks
// it closed, after which it opens no file. A Reader from
// [Trace.OpenReader] and a TraceReader close the files they opened; a
// Reader made by [NewReader] closes nothing. A [ModelSource] closes the
// event files it opened, never the Trace given to [NewModelSource]. A
// [TraceWriter] or [ModelWriter] closes every file it created through its
// model.Creator.
//
// # Seeking, snapshots and summaries
//
// OTF has no index. Event, snapshot and summary files are sorted by time
// and every time stamp is a line of its own, so a [Reader] over a source
// with random access (an *os.File, a file of os.DirFS or fstest.MapFS)
// seeks by bisection: [Reader.SeekTime] jumps to the middle of a byte
// interval, skips to the next line and reads the first time line there,
// and halves the interval until it is narrow, then reads on (doc/otf.md
// §10). A compressed file is bisected over its compressed offsets, each
// jump restarting at the next full-flush block. A seek reads O(log size)
// small pieces (O(log blocks) blocks when compressed), not the file; a
// source without random access, or a definition or marker file, gives
// an error wrapping [ErrNotSeekable]. [TraceReader.SeekTime] seeks every
// stream and merges again, and a [TraceReaderOptions] window with From > 0
// seeks by itself, so that reading the last 1 % of a trace reads about
// 1 % of its bytes.
//
// A snapshot (a .snaps file, doc/otf.md §7) records the state of every
// process at one time: the functions on its stack, messages sent and not
// yet received, open files, pending collective and file operations and
// counter values. [TraceReader.SeekState] answers "what was going on at
// time t": it starts from the latest snapshot at or before t (listed by
// [Trace.SnapshotTimes]) and replays the events from there to t into a
// [State]; without a snapshot it replays from the start. [State.Apply]
// builds the same state from any sequence of records.
//
// A summary (a .stats file, doc/otf.md §9) holds cumulative counts per
// process at sample times: calls, inclusive and exclusive time per
// function, messages, collectives and file operations. Because they are
// cumulative, the statistics of an interval [a, b) are p(b) − p(a), read
// without touching an event: [Trace.ReadSummaries] loads them into
// [Summaries], whose [Summaries.Interval] answers the difference. A
// [Summarizer] computes the same records from events, and [Trace.Aux]
// computes the snapshots and summaries of a trace that has none, as the
// reference otfaux does.
//
// # Writing
//
// A [Writer] writes one record file and reproduces the reference writer's
// state lines, so a reference file read and written back in the same form
// is byte-identical (a compressed one gives identical text). A
// [TraceWriter] writes a whole trace through a model.Creator, routing records
// to their files and writing the master file on Close. Compressed output
// consists of full-flush blocks of a configurable size, the layout the
// reference reader seeks in.
//
// # Lifetime and concurrency
//
// The Record returned by a reader and the slices it holds are valid until
// the next call to Next, Reset or Close of that reader; use [Record.Clone]
// to keep one. Readers and writers are not safe for concurrent use;
// separate readers (one per stream, [Trace.OpenReader]) may run in
// parallel goroutines.
package otf
