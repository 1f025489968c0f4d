// Package otf reads and writes traces in the Open Trace Format 1.x (the
// ASCII format of the ZIH libotf 1.12.5, not OTF2).
//
// A trace is a set of files sharing a name stub S: the master file S.otf
// maps streams to processes; S.0.def holds global definitions,
// S.<id>.def local ones; S.<id>.events, .snaps and .stats hold events,
// snapshots and summaries of the processes of stream <id>; S.0.marker
// holds markers. Any file but the master may be zlib-compressed (S.1.events.z).
// Every record is one line of text, in a short (E1X32) or long
// (ENTER 1 SCL 32) form, with lower-case hexadecimal numbers. Event,
// snapshot and summary files carry time and process in state lines that
// apply to the following records.
//
// The package follows spec/otf.md and the record table records.tsv, from
// which records_gen.go is generated. IOFSL aggregated files and the
// thumbnail S.thumb are not supported.
//
// # Reading
//
// A [Reader] reads one record file with the pull trio Next, Record and Err:
//
//	r, err := otf.NewReader(f, &otf.ReaderOptions{Path: "trace.1.events"})
//	if err != nil {
//		return err
//	}
//	for r.Next() {
//		rec := r.Record()
//		if e, ok := rec.Enter(); ok {
//			fmt.Println(rec.Time, rec.Process, e.Function)
//		}
//	}
//	if err := r.Err(); err != nil {
//		return err
//	}
//
// # Lifetime and concurrency
//
// The Record returned by a reader and the slices it holds are valid until
// the next call to Next, Reset or Close of that reader; use [Record.Clone]
// to keep one. Readers and writers are not safe for concurrent use;
// separate readers (one per stream) may run in parallel goroutines.
package otf
