// Package dumpi reads and writes SST DUMPI binary MPI traces.
//
// A trace is one file per rank plus a text .meta file. A rank's file holds
// a magic number, the stream of call records (one per intercepted MPI
// call, with its arguments, CPU and wall-clock times), a header, a footer
// of per-function call counts, small label sections and an index footer
// that locates every section without scanning the stream. The package
// follows the format of DUMPI 13.0.0 (the format of the 0.6.x series and
// later) and reads the older index and record layouts too.
//
// All 294 function labels are supported: each call's arguments are a
// generated struct ([Send], [Waitall], [TypeCreateStruct], ...) with typed
// fields: handles ([Comm], [Datatype], ...) and enumerations ([Op],
// [FileMode], ...) with predefined names such as [MPI_COMM_WORLD] and
// [MPI_INT], arrays as slices, status lists as []Status, strings as
// []byte.
//
// # Reading
//
// [Open] or [NewFile] read the index; the sections come on demand
// ([File.Header], [File.Footer], [File.DatatypeSizes], ...), each reading
// only its own bytes. [File.Calls] streams the calls:
//
//	f, err := dumpi.Open("dumpi-2026.11.22.01.38.03-0000.bin", nil)
//	if err != nil {
//		return err
//	}
//	defer f.Close()
//	for call, err := range f.Calls().All() {
//		if err != nil {
//			return err
//		}
//		if s, ok := call.Args().(*dumpi.Send); ok {
//			sent += int64(s.Count)
//		}
//	}
//
// [OpenRun] opens every rank of a run from its .meta file; [Run.Calls]
// merges the ranks in time order, [Run.Readers] hands out one Reader per
// rank for parallel reading. A .meta file whose fileprefix leaves its own
// directory (an absolute path, or one climbing out with "..") is refused
// unless [RunOptions].AllowOutside is set.
//
// [File.WriteASCII] and [Call.AppendASCII] render a file the way the
// reference dumpi2ascii -a prints it.
//
// [NewModelSource] maps the calls of a Run onto the format-neutral events
// of package model (enter/leave, sends and receives matched to their
// requests, collectives, counters), with the footer's counts as recorded
// statistics; see [ModelSource]. For a run it reconstructs the members of
// every communicator the run builds, so that messages and collectives on
// them resolve their peers; [ModelSource.CommReport] says what could not
// be mapped and why. [NewRun] makes a Run of one rank's File, to map that
// file alone. [ModelOptions].Selection chooses locations and a time
// window, exactly; a window is read from the start and filtered.
//
// # Opening and closing
//
// A value closes what it opened itself, never what it was given. [Open]
// and [OpenFS] open a rank file, and the File's Close closes it; a File
// from [NewFile] closes nothing (the io.ReaderAt is the caller's).
// [OpenRun] and [OpenRunFS] open the rank files, and the Run's Close
// closes them; a Run from [NewRun] closes nothing. A ModelSource opens
// nothing and closes nothing: its Close only ends it. Every Close may be
// called again and then returns nil; a File's sections, and the Readers
// made after its Close, fail with [ErrClosed], and a ModelSource's Next
// returns false.
//
// # Writing
//
// [NewWriter] writes a rank's file; [File.CopyOptions] gives the options
// that reproduce an existing file byte for byte.
//
// # Lifetime
//
// A Reader owns the Call it returns and the argument structs behind
// [Call.Args]; they are reused, so Next allocates nothing in the steady
// state. The Call and the slices it holds are valid until the next call
// to Next or Reset. Use [Call.Clone] to keep one.
//
// # Old files
//
// Files from DUMPI before 0.6.9 use a few different record layouts and
// shorter indexes; the header's version selects them. In files older than
// 0.6.0 a label 0 record right after MPI_Finalize ends the stream, as in
// the reference reader; in newer files it is an MPI_Send.
//
// # Not supported
//
// Perf-counter blocks are read with the count stored in each record (the
// reference reader uses the count of the perf-label section instead).
// A File does not seek by time or record number: the format has no
// record index.
//
// # Concurrency
//
// A Reader or Writer is not safe for concurrent use; separate Readers,
// including several from one File, may run in parallel.
package dumpi
