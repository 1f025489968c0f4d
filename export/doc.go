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
// [Tables] turns a source into the rows of five tables, one schema for
// every writer: the CSV writer here and the Parquet program of the
// repository's examples write the same columns. Times (time, send_time,
// recv_time) are the raw ticks of the trace's clock, clock offsets
// included, as the source gives them; the seconds beside them (seconds,
// send_seconds, recv_seconds) count from the trace's start, the time of
// its first event (the first of a time-ordered source), so a trace whose
// clock counts from boot starts at 0 s, not at millions of seconds;
// durations (incl_seconds, excl_seconds) are ticks over the clock's rate.
// Locations are the model's ids (from 1; 0 means none) in the columns
// named *_id, as in tracestat's JSON report, and the native id (MPI rank,
// OTF process) is loc in the locations and profile tables; regions,
// communicators and counters are their names:
//
//	events     time, seconds, loc_id, kind, region, peer_id, bytes, recvd, tag,
//	           comm, counter, value, text ([EventRow]: one row per event)
//	messages   sender_id, receiver_id, tag, comm, bytes, send_time, recv_time,
//	           send_seconds, recv_seconds, status ([MessageRow]: a send and
//	           its receive; status matched, unmatched_send or unmatched_recv)
//	regions    id, native, name, kind, group, file, line ([RegionRow])
//	locations  loc_id, loc, name, process, thread, host ([LocationRow])
//	profile    loc_id, loc, region, visits, incl, excl, incl_seconds, excl_seconds,
//	           min, max ([ProfileRow]: the flat profile of package stats)
//
// [CSVWriter] writes them as events.csv, messages.csv, regions.csv,
// locations.csv and profile.csv in a directory; [WriteCSV] copies a whole
// source. In pandas:
//
//	ev = pd.read_csv("out/events.csv", keep_default_na=False)
//	msgs = pd.read_csv("out/messages.csv")
//
// A sixth table, asked for with [TablesOptions.WaitStates] or
// [CSVOptions.WaitStates] (waitstates.csv), lists the wait states of
// package waitstate, one row per instance ([WaitStateRow], [WaitStates]):
//
//	waitstates pattern, waiter_id, waiter_region, waiter_call_path, wait,
//	           wait_seconds, waiter_enter, waiter_leave,
//	           waiter_enter_seconds, waiter_leave_seconds, delayer_id,
//	           delayer_region, delayer_call_path, delayer_enter,
//	           delayer_leave, delayer_enter_seconds, delayer_leave_seconds
//
// Its locations, ticks and seconds are those of the other tables, so an
// instance joins the events of its calls on (location, time, region), its
// profile row on (location, region) and a late sender's message on its
// two locations and the calls' intervals. In DuckDB:
//
//	SELECT w.pattern, w.wait_seconds, m.tag, m.bytes
//	FROM 'out/waitstates.csv' w JOIN 'out/messages.csv' m
//	  ON m.receiver_id = w.waiter_id AND m.sender_id = w.delayer_id
//	 AND m.recv_time BETWEEN w.waiter_enter AND w.waiter_leave
//	 AND m.send_time BETWEEN w.delayer_enter AND w.delayer_leave
//	WHERE w.pattern = 'late_sender';
//
// The analysis needs the whole trace before its first row and keeps a log
// that grows with the trace's MPI calls and messages (see package
// waitstate), so this table is not written unless asked for.
//
// # Messages and timelines
//
// [Pairer] pairs sends and receives into messages as the stats package
// does; [Timeline] aggregates a stream into a space-time diagram at a
// screen's resolution (per location and column the dominant region and the
// messages sent), with full detail up to a bound or for a chosen window.
// The traceview program draws it.
//
// # Concurrency
//
// A writer is not safe for concurrent use. It reads the source's
// definitions while it writes, so they must not change concurrently.
package export
