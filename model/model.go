package model

import (
	"math"
	"strconv"
)

// Time is a timestamp or a duration in ticks of the trace's own clock. The
// number of ticks per second is in [Defs.TimeBase]. Times may be negative
// (PICL writes negative timestamps before clocksync0).
type Time int64

// TimeBase gives the length of a tick. The zero value means "unknown"; its
// conversions treat a tick as one second.
type TimeBase struct {
	TicksPerSecond uint64
}

// Seconds converts t to seconds. It loses precision for times beyond 2^53
// ticks, as any float64 does.
func (b TimeBase) Seconds(t Time) float64 {
	if b.TicksPerSecond == 0 {
		return float64(t)
	}
	return float64(t) / float64(b.TicksPerSecond)
}

// FromSeconds converts seconds to ticks, rounding to the nearest tick and
// saturating at the int64 range.
func (b TimeBase) FromSeconds(s float64) Time {
	tps := float64(b.TicksPerSecond)
	if tps == 0 {
		tps = 1
	}
	v := math.Round(s * tps)
	switch {
	case v != v: // NaN
		return 0
	case v >= math.MaxInt64:
		return math.MaxInt64
	case v <= math.MinInt64:
		return math.MinInt64
	}
	return Time(v)
}

// Identifiers of definitions. They are small dense integers assigned by
// [Defs] in the order definitions are added, starting at 1. The value 0 is
// never assigned: it means "none" or "unknown" (for a RegionID used as a
// caller, it is the root of the call graph). The format's own identifier is
// kept in the definition's Native field where the format has one.
type (
	LocID     uint32 // a Location: one stream of one thread of execution
	RegionID  uint32 // a Region: function, loop, MPI operation, PICL event type …
	SiteID    uint32 // a Site: a call or communication statement
	CommID    uint32 // a Comm: communicator or process group (0: default/unknown)
	CounterID uint32 // a Counter
	SubsetID  uint32 // a Subset of PICL event types
	StringID  uint32 // an interned string; 0 is the empty string
)

// Kind is the kind of an [Event].
type Kind uint8

// The event kinds. See [Event] for the fields each one uses.
const (
	KindUnknown      Kind = iota
	KindEnter             // a region instance begins
	KindLeave             // the innermost open instance ends (see Event: Leave)
	KindSend              // a point-to-point message leaves
	KindRecv              // a point-to-point message is delivered
	KindCollBegin         // this location joins a collective instance
	KindCollEnd           // this location leaves a collective instance
	KindCounter           // a counter sample
	KindMarker            // a zero-length event
	KindRecvPost          // a non-blocking receive is posted (MPI_Irecv)
	KindSendDone          // a non-blocking send completes (in MPI_Wait*, MPI_Test*)
	KindProgramBegin      // the program starts on this location
	KindProgramEnd        // the program ends on this location
	KindParameter         // a named value attached to the innermost open region instance
	KindCollPost          // a non-blocking collective starts (MPI_Ibarrier, MPI_Iallreduce …)
	KindCollDone          // a non-blocking collective completes (in MPI_Wait*, MPI_Test*)
)

var kindNames = [...]string{"unknown", "enter", "leave", "send", "recv", "coll_begin", "coll_end", "counter", "marker",
	"recv_post", "send_done", "program_begin", "program_end", "parameter", "coll_post", "coll_done"}

// String returns the lower-case name hpctrace's event JSON uses (package
// eventjson): "enter", "coll_begin", …, or "Kind(n)" for an undefined
// value.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Flags qualify Send and Recv events.
type Flags uint8

// The event flags.
const (
	SyncMode     Flags = 1 << iota // Send: synchronous mode (the sender may wait for the receiver)
	Waited                         // Recv: the receive blocked waiting for the message (PICL -52)
	NotWaited                      // Recv: the receive did not wait (PICL -51)
	BytesUnknown                   // Send/Recv: the payload size is not known; Bytes is 0
	StringValue                    // Parameter: Value is the StringID of a string value
)

var flagNames = [...]string{"sync", "waited", "not_waited", "bytes_unknown", "string_value"}

// String lists the set flags separated by "|", or returns "0".
func (f Flags) String() string {
	if f == 0 {
		return "0"
	}
	var b []byte
	for i, n := range flagNames {
		if f&(1<<i) != 0 {
			if len(b) > 0 {
				b = append(b, '|')
			}
			b = append(b, n...)
			f &^= 1 << i
		}
	}
	if f != 0 {
		if len(b) > 0 {
			b = append(b, '|')
		}
		b = append(b, "0x"...)
		b = strconv.AppendUint(b, uint64(f), 16)
	}
	return string(b)
}

// Class is the communication pattern of a collective operation.
type Class uint8

// The collective classes.
const (
	ClassUnknown  Class = iota
	ClassBarrier        // barrier: everybody waits for the last to arrive
	ClassOneToAll       // broadcast, scatter: the root sends
	ClassAllToOne       // reduce, gather: the root receives
	ClassAllToAll       // allreduce, alltoall, allgather
)

var classNames = [...]string{"unknown", "barrier", "one2all", "all2one", "all2all"}

// String returns the name hpctrace's event JSON uses (package eventjson):
// "barrier", "one2all", …, or "Class(n)" for an undefined value.
func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return "Class(" + strconv.Itoa(int(c)) + ")"
}

// RegionKind says what a [Region] stands for.
type RegionKind uint8

// The region kinds.
const (
	RegionOther      RegionKind = iota
	RegionFunction              // a procedure
	RegionLoop                  // a loop statement (Li and Zhang's LOOP records, doc/stats.md §4.5)
	RegionComm                  // a point-to-point communication operation
	RegionCollective            // a collective operation
	RegionSync                  // clock or process synchronisation
	RegionIO                    // file input/output
	RegionTracing               // the tracing system itself
	RegionUser                  // a user-defined event type
)

var regionKindNames = [...]string{"other", "function", "loop", "comm", "collective", "sync", "io", "tracing", "user"}

// String returns the name hpctrace's event JSON uses (package eventjson):
// "function", "loop", …, or "RegionKind(n)" for an undefined value.
func (k RegionKind) String() string {
	if int(k) < len(regionKindNames) {
		return regionKindNames[k]
	}
	return "RegionKind(" + strconv.Itoa(int(k)) + ")"
}

// Event is one trace event. It is a fixed-size value without pointers, so
// sources can reuse one Event for the whole stream and consumers can copy it
// freely. Fields a kind does not use are zero:
//
//	Kind          fields used
//	Enter         Region, Site (0 = unknown call statement)
//	Leave         Region
//	Send          Peer (destination), Tag, Comm, Bytes, Flags (SyncMode, BytesUnknown), Match (request)
//	Recv          Peer (source), Tag, Comm, Bytes, Flags (Waited, NotWaited, BytesUnknown), Match (request)
//	RecvPost      Peer (source, 0 = any or unknown), Tag, Comm, Match (request)
//	SendDone      Match (request)
//	CollBegin     Region (the operation), Comm, Peer (root), Bytes (sent), Recvd, Class, Match
//	CollEnd       Match
//	Counter       Counter, Value
//	Marker        Text, Region (optional: a zero-length instance of that region)
//	ProgramBegin  (none: the time is where the program starts on the location)
//	ProgramEnd    (none)
//	Parameter     Text (the parameter's name), Value, Flags (StringValue)
//	CollPost      Match (request); Region, Comm, Peer, Bytes, Recvd, Class as CollBegin where known at the start
//	CollDone      Match (request), Region (the operation), Comm, Peer (root), Bytes (sent), Recvd, Class
//
// A Send occurs inside the send operation's region; a Recv occurs inside the
// receive (or wait) operation's region. A Send or Recv whose Peer is 0 has
// no known partner (a DUMPI message on a communicator whose members the
// trace does not record): no location has id 0, so it names none, and
// consumers must not read it as the first location or rank 0. Writers
// whose formats must name a partner drop such messages and count them.
//
// # Leave
//
// A Leave closes the innermost region instance open on its location,
// whatever region it names, and only that one ([ClassifyLeave] is the
// rule, [OpenRegions] a tracker of it). Region should name that instance's
// region, and does in what most producers write; 0 names none. A Leave
// naming another region is a mismatch, closed all the same and counted by
// consumers that keep diagnostics: APEX (the HPX tracer) renames a task
// after it starts, so its OTF2 Leaves often name the task's new name, not
// the region of their Enter. A Leave with nothing open on its location
// changes nothing (an unmatched Leave). Each adapter's documentation says
// what its format's producers write.
//
// # Requests
//
// For point-to-point events Match is the request of a non-blocking
// operation, an id unique among the location's requests in flight (0 for
// a blocking operation). A non-blocking send is a Send with Match ≠ 0 in
// the call that starts it (MPI_Isend) and a SendDone with the same Match in
// the call that completes it (MPI_Wait, MPI_Test, …); a send without a
// SendDone completes in its own call. A non-blocking receive is a RecvPost
// in the call that posts it (MPI_Irecv) and a Recv with the same Match in
// the call that completes it; a Recv with Match 0, or whose request was
// never posted in the trace, was posted by the call that holds it. Formats
// that record no posting (OTF 1.x, PICL) yield no RecvPost and no SendDone,
// and every Recv has Match 0.
//
// # Non-blocking collectives
//
// An MPI-3 non-blocking collective (MPI_Ibarrier, MPI_Iallreduce, …) is a
// CollPost in the call that starts it and a CollDone with the same Match,
// a request id as for point-to-point requests (never 0), in the call that
// completes it (MPI_Wait, MPI_Test, …). The CollDone carries the
// collective's fields as a CollBegin does: Region (the operation's
// region, the call that started it where the format names no other),
// Comm, Peer (the root, 0 for none), Bytes (sent), Recvd and Class. The
// CollPost carries Match and those of the fields the format records at
// the start, the others zero: OTF2 records the operation's fields at the
// completion only, so its CollPost has Match and Region alone. A
// location's non-blocking collectives on a communicator form one
// sequence in the order of their CollPosts, separate from that of its
// blocking collectives (MPI matches a non-blocking collective only with
// non-blocking ones, in the order they were started). Formats without
// non-blocking collectives (DUMPI, OTF 1.x, PICL) yield neither kind.
type Event struct {
	Time    Time      // ticks
	Loc     LocID     // the location the event happened on
	Kind    Kind      //
	Flags   Flags     // SyncMode, Waited, NotWaited, BytesUnknown, StringValue
	Class   Class     // CollBegin, CollPost, CollDone: the collective's class
	Region  RegionID  // Enter, Leave, CollBegin, CollPost, CollDone, Marker
	Site    SiteID    // Enter: the call statement
	Peer    LocID     // Send: destination; Recv, RecvPost: source; CollBegin, CollPost, CollDone: root (0 = none)
	Comm    CommID    // Send, Recv, RecvPost, CollBegin, CollPost, CollDone
	Tag     int32     // Send, Recv, RecvPost
	Counter CounterID // Counter
	Bytes   int64     // Send/Recv payload; CollBegin, CollPost, CollDone: bytes sent
	Recvd   int64     // CollBegin, CollPost, CollDone: bytes received
	Match   uint64    // CollBegin/CollEnd instance id (0 = use the per-communicator sequence); Send, Recv, RecvPost, SendDone: request (0 = blocking); CollPost, CollDone: request
	Value   int64     // Counter value (raw bits for float counters); Parameter value
	Text    StringID  // Marker text; Parameter name
}
