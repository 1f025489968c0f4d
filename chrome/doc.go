// Package chrome reads the Chrome Trace Event Format, the JSON that
// chrome://tracing, Perfetto (ui.perfetto.dev, trace_processor) and many
// profilers read and write, as a [model.Source]. It reads back what
// export.ChromeWriter writes (traceconv -to perfetto) and JSON traces of
// other tools.
//
// # Opening and closing
//
// A value closes what it opened itself, never what it was given. [Open]
// and [OpenFS] open a file, and the Reader's Close closes it; a Reader made
// by [NewReader] reads an io.Reader that stays the caller's, and its Close
// closes nothing. A second Close returns nil; Next after Close returns
// false, with Err returning [ErrClosed].
//
//	r, err := chrome.Open(name, nil)
//	if err != nil {
//		return err
//	}
//	defer r.Close()
//	for ev, err := range r.All() {
//		if err != nil {
//			return err
//		}
//		use(ev)
//	}
//
// # The Reader is the model source
//
// The other formats read their own records with a Reader and turn them
// into the model's events with a separate adapter (NewModelSource and its
// ModelOptions). A Trace Event Format document has no records of its own
// worth a record-level API: its events are the model's events, written as
// JSON, and mapping them needs the reader's state (open slices, pending
// flows, the reorder window). So the [Reader] is the model source, and
// [ReaderOptions] carries what ModelOptions carries elsewhere: the clock
// (TicksPerSecond) and the [model.Selection] (Selection), honoured exactly
// as model.Selection says. A document has no index and need not be in
// time order, so a selection costs a read of the whole document: the
// Reader reads every event (the definitions are the whole document's) and
// drops those the selection does not keep.
//
// # Format
//
// A document is either an object whose "traceEvents" key holds the array
// of events ({"traceEvents": [...], "displayTimeUnit": "ns", ...}), or the
// bare array ([...]), which may end unterminated, after an event or a
// comma, as a tracer killed mid-run leaves it. Other keys of the object
// are read past. An event is an object with a phase ("ph"), a time ("ts",
// microseconds, an integer or a decimal fraction), a process ("pid") and a
// thread ("tid"), a name and a category ("cat"), and args. The reader
// maps:
//
//	pid, tid        a location, one per distinct (pid, tid): Process is the
//	                thread_name metadata's args.process (export.ChromeWriter
//	                writes pid = Process + 1), else the pid (or the order
//	                of the pid among non-integer ones),
//	                Name the "thread_name" metadata (else "pid P tid T"),
//	                Thread the args.thread of that metadata, else 0 where
//	                tid = pid, else the order of the thread in its process
//	                (1, 2, …); Native args.native, else the tid
//	"M"             thread_name and thread_sort_index name and order the
//	                locations; other metadata is read past
//	"B", "E"        Enter and Leave: the slice's region is named by the
//	                "B" event's name and category; an "E" closes the
//	                innermost open slice of its thread, whatever its name
//	"B" of category "collective_op", and its "E"
//	                CollBegin and CollEnd (the operation export.ChromeWriter
//	                nests in the call's slice): region by name, comm (a
//	                communicator by name, members unknown), class, root (a
//	                thread by name), bytes and recvd from args
//	"X"             Enter at ts and Leave at ts+dur
//	"i", "I"        a Marker whose Text is the name; with args.region a
//	                marker of that region (a zero-length instance), whose
//	                Text is the name only where it differs from the region's
//	"C"             a Counter sample per args series, in the order of the
//	                series' names: counter "name" for the series "value",
//	                "name series" for others (a " (thread name)" suffix
//	                export.ChromeWriter adds is removed); values that are
//	                not integers are rounded and counted
//	"s", "f"        a Send and a Recv, paired by (cat, name, id or id2):
//	                each end's Peer is the other end's location (or the
//	                thread args.peer names); bytes, tag, comm and flags
//	                from args
//	"B", "X" with bind_id and flow_out or flow_in
//	                a Send (flow_out) or Recv (flow_in) just after the
//	                slice's begin, paired by bind_id (Perfetto's flow
//	                bindings)
//
// A category that is a [model.RegionKind] name ("function", "comm", …) is
// the region's kind; any other is its Group, with kind RegionOther. The
// phases the model has no kind for (async, object, sample, flow steps …)
// are read past and counted ([Diagnostics]).
//
// # Time
//
// Times are ticks of [ReaderOptions.TicksPerSecond]: by default the clock
// export.ChromeWriter states in its "hpctrace" head, so that a trace
// written and read back has its own ticks exactly (the writer writes ts
// with enough decimals for that), else nanoseconds. A ts is converted from
// its decimal text exactly, rounded once to the nearest tick; a "dur" is
// converted alone and added.
//
// # Order and memory
//
// The events of a document need not be sorted; a model source delivers
// each location's events in order and all of them merged by time. The
// reader holds the events it has read in a reorder window of at most
// ReaderOptions.ReorderWindow events (each about 150 bytes) and delivers the
// earliest when the window is full and the rest at the end. An event that
// arrives earlier than one already delivered is an error wrapping
// [ErrOrder]: the document is too far out of order for the window. Within
// a thread, the point events ("B", "E", "i", "C", "s", "f") keep their
// document order even where their times decrease (their order key is the
// greatest time of the thread so far); "X" slices are placed by their
// times, the longer first where two begin together. Events of one time
// are delivered in document order, so a document export.ChromeWriter
// wrote comes back in the order of the source it wrote (with its ties
// between locations, which a model source need not break by location),
// and ties at the window's edge in arrival order.
//
// Besides the window the reader holds the flow ends waiting for their
// other end (at most ReaderOptions.MaxFlows, else [ErrLimit]), the open
// slices of each thread (at most ReaderOptions.MaxOpenRegions, else
// [ErrLimit]), and the definitions (threads, regions, counters,
// communicators); it decodes one event at a time and holds no more than
// ReaderOptions.MaxEvent bytes of one (else [ErrLimit]).
//
// # What is not read
//
// Async and object events, samples and stack frames, flow steps, flow
// bindings by "id" on slices (the older form of "bind_id"), process names, instant events' scope (each is a marker of its thread),
// "displayTimeUnit" (display only) and units of counters. Call sites,
// request ids, collective instance ids and communicators' members are not
// in the format: export.ChromeDropped counts what a written trace loses.
//
// # Concurrency
//
// A Reader is not safe for concurrent use; separate Readers may run in
// parallel.
package chrome
