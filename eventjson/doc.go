// Package eventjson reads and writes hpctrace's event JSON: the events and
// definitions of package model as one JSON document, a readable
// interchange and test form. Package model's types are its native form,
// so a [Reader] is a [model.Source] and a [Writer] takes model events;
// what the form leaves out of the definitions (site file names, recorded
// statistics, event-type subsets, …) is listed under [Writer].
//
// This is not the Chrome Trace Event Format (chrome://tracing, Perfetto),
// which package export writes and package chrome reads. The identifier a
// document carries in its "format" key, "trace-events-json/1" ([Format]),
// is a historical name ("trace events": the model's events): documents
// written under it exist, so the Reader requires it and the Writer still
// writes it.
//
// # Format
//
// A document is one JSON object:
//
//	{"format": "trace-events-json/1", "ticks_per_second": 1000000,
//	 "locations": [{"id": 0, "name": "node0", "process": 0, "thread": 0}],
//	 "regions": [{"id": 1, "name": "main", "kind": "function", "line": 1}],
//	 "events": [{"t": 0, "loc": 0, "kind": "enter", "region": 1, "site": 0}, …]}
//
// The "id" of a location or region is its Native value; the reader assigns
// dense ids in order of appearance. Event keys: t, loc, kind (enter, leave,
// send, recv, coll_begin, coll_end, counter, marker, recv_post, send_done,
// program_begin, program_end, parameter, coll_post, coll_done), region and site (source line)
// for enter and leave, peer, tag, comm, bytes, sync (bool) and waited
// ("yes", "no", "unknown") for send and recv, and match (the request of a
// non-blocking operation; absent or 0 for a blocking one); peer, tag, comm
// and match for recv_post; match for send_done; op (region name or id),
// class, comm, root, sent, recvd and match for coll_begin, and the same
// for coll_post and coll_done, whose match (the request) is required; match for
// coll_end; counter and value; text and an optional region for marker;
// text (the name) and either value (an integer) or string (a string
// value, Flags model.StringValue) for parameter; none for program_begin and
// program_end. A region may have a "paradigm" ("user", "mpi", "openmp",
// … as [model.Paradigm.String] names them; absent for model.ParadigmUnknown).
// Optional extensions written by [Writer]: "counters" definitions,
// "comms" definitions ({"id": 10, "name": "world", "members": [0, 1],
// "remote": [2]}: the id is the communicator's Native, as an event's
// "comm"; members and remote list location ids, the ranks in order, for
// an intercommunicator remote the other group; without "members" the
// membership is unknown; "self": true marks each location's own
// communicator, as MPI_COMM_SELF, which lists no members; after "locations", as a location it names first
// is defined without a name), "host", "mpi", "stream" (a location's
// model.Location.MPI and Stream, the latter as the id of a location
// defined before it or its own), "group" and "file" fields,
// "bytes_unknown", and the exact bytes of a name that is not valid UTF-8
// in standard base64 beside it
// ("name_bytes", "group_bytes", "file_bytes", "unit_bytes"), which then
// give the definition's string instead of the field without "_bytes". A
// send or recv without a peer has no known partner (Peer 0). Sizes
// (bytes, sent, recvd) are not negative: a negative one is an [ErrSyntax]
// error for the reader and an [ErrRange] one for [Writer].
//
// Locations, regions, counters and communicators that events use without a
// definition are defined on first use with an empty name, except a
// coll_begin root that names no defined location, which means "no root".
// Definitions must precede "events" to carry names. The [Writer] writes
// the definitions first and then one event per line.
//
// # Reading
//
// [Open] and [OpenFS] open a file, [NewReader] reads an io.Reader; the
// Reader has the pull shape of every model source:
//
//	r, err := eventjson.Open("trace.json", nil)
//	if err != nil {
//		return err
//	}
//	defer r.Close()
//	for ev, err := range r.All() {
//		if err != nil {
//			return err
//		}
//		if ev.Kind == model.KindSend {
//			sent += ev.Bytes
//		}
//	}
//
// A Reader owns what Open or OpenFS opened, and Close closes it; a
// Reader from NewReader closes nothing (the io.Reader is the caller's).
// A Writer never closes the io.Writer it was given.
//
// # Concurrency
//
// A Reader or Writer is not safe for concurrent use; separate Readers may
// run in parallel.
package eventjson
