// Package picl reads and writes PICL trace files in the "new" format of
// P. H. Worley, A New PICL Trace File Format (ORNL/TM-12125, 1992), the format
// written by PICL and MPICL and read by ParaGraph.
//
// A trace is ASCII text, one record per line:
//
//	record-type event-type timestamp processor process count [descriptor data...]
//	-3 -52 0.000128 6 0 1 2 0
//	-101 -1 0.001982 6 0 2 "%d%lf" 0 0.000523 1 0.001013
//
// The six fixed fields say what, when and where; when count is positive a
// data descriptor follows, either a quoted scanf-style control string or an
// integer alias for one (0-5 predefined as %c %s %d %ld %f %lf, others
// defined by -6 records), and then count repetitions of the control string's
// conversions. The package follows the format notes in doc/picl.md, which
// restate Worley's report and fill its gaps; their §11 lists the choices
// made where the report is ambiguous, and §7 the event table (the report's
// Tables 5 to 13, in picl/testdata/picl-events.tsv).
//
// # Reading
//
// A [Reader] yields one [Record] per non-blank line, with every data value
// decoded per its conversion: %d-family values as int64, %f-family values as
// float64, %s values as bytes, %c data as the exact characters. Tokens keep
// the text they were written with, so that a [Writer] reproduces a file read
// by a Reader byte for byte (given single blanks and LF line ends):
//
//	r, err := picl.Open(name, nil)
//	if err != nil {
//		return err
//	}
//	defer r.Close()
//	for r.Next() {
//		rec := r.Record()
//		if rec.Type == picl.RecordEntry && rec.Event.IsSend() {
//			sends++
//		}
//	}
//	if err := r.Err(); err != nil {
//		return err
//	}
//
// Reading is lenient by default: records whose data are cut short or carry
// extra text are kept and marked with [Flags]; with ReaderOptions.Strict they
// are errors whose message says what lenient reading would make of them.
// Real producers write such records: MPICL writes a value after a zero
// data count on user-event records ("-3 1 0.000104 0 0 0 2"), which
// lenient reading keeps with FlagTrailing and [Validate] reports with a
// count. Malformed lines give a *[ParseError] with the line, byte offset
// and record index. Lines may be up to ReaderOptions.MaxLine bytes (1 MiB by
// default); a longer line is an error, never an unbounded allocation.
//
// # Opening and closing
//
// A value closes what it opened itself, never what it was given. [Open]
// and [OpenFS] open a file, and the Reader's Close closes it; a Reader made
// by [NewReader] reads an io.Reader that stays the caller's, and its Close
// closes nothing. [NewModelSource] is given a Reader and opens nothing:
// the ModelSource's Close closes nothing, and the Reader is the caller's
// to close. A second Close returns nil; Next after Close returns false,
// with Err returning [ErrClosed].
//
// # Model sources
//
// [NewModelSource] presents a trace as format-neutral events of package
// model. Its [ModelOptions.Selection] chooses locations and a time window
// exactly as [model.Selection] says. A PICL file has no index and its
// records need not be in time order, so a selection costs a read of the
// whole file: the source reads every record (the definitions are the whole
// file's) and drops the events the selection does not keep.
//
// # Not supported
//
// The older PICL 1.x format (integer record keys, seconds and microseconds as
// two integers) is a different grammar and is not read. Control strings with
// field widths, %*, %[ or %n, and %c mixed with other conversions, are not
// decoded: such records are kept with their raw data text and
// FlagUndecoded.
//
// # Helpers
//
// [Sort] and [SortByTimeProcessor] order a trace held in memory by
// timestamp; [HeaderLen] and [Record.IsHeader] find header records; [MergeStats]
// adds up statistics records that share a key;
// [Validate] reports what ParaGraph would object to, what lenient reading
// let through, and event types nobody defines. Event types carry the
// report's event table, extended with the event types MPICL adds
// ([EventType.Info]), and category predicates.
//
// # Lifetime and concurrency
//
// The Record returned by [Reader.Record] and the slices it holds are owned by
// the Reader and valid until the next call to Next, Reset or Close; use
// [Record.Clone] to keep one. The Reader allocates nothing per record in the
// steady state. A Reader or Writer is not safe for concurrent use; separate
// Readers and Writers may run in parallel.
package picl
