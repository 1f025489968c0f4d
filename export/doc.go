// Package export writes a trace read as a [model.Source] in the forms other
// tools read: the Chrome Trace Event Format (JSON), which Perfetto and
// chrome://tracing open, and CSV tables for pandas, polars, DuckDB and
// Spark.
//
// Both writers stream: they take one event at a time, in the source's
// order, and write it out at once. What they keep grows with the
// definitions (locations, regions, communicators) and with the state the
// trace has open at one moment (regions open on a location, messages sent
// and not yet received), never with the number of events.
//
// # Chrome Trace Event Format
//
// [ChromeWriter] writes one JSON object {"traceEvents":[…], …}; see its
// documentation for how each event kind maps. [WriteChrome] copies a whole
// source.
//
//	src, _ := hpctrace.Open("run.otf", nil)
//	defer src.Close()
//	err := export.WriteChrome(w, src)
//
// # CSV tables
//
// [CSVWriter] writes five tables into a directory: events.csv,
// messages.csv, regions.csv, locations.csv and profile.csv. The columns of
// each are listed in [CSVTables]; [WriteCSV] copies a whole source.
//
// # Concurrency
//
// A writer is not safe for concurrent use. It reads the source's
// definitions while it writes, so they must not change concurrently.
package export
