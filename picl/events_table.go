package picl

// This file holds the event types of testdata/picl-events.tsv (doc/picl.md §7). The
// table is kept by hand; TestEventTable checks it against the TSV.
//
// The rows whose notes begin "MPICL" are not in the 1992 format. MPICL,
// the PICL instrumentation library for MPI (P. H. Worley, Oak Ridge
// National Laboratory; https://www.netlib.org/mpicl/ and
// https://www.csm.ornl.gov/picl/), writes the PICL 2.0 format with further
// system event types for MPI events that have no PICL equivalent. Their
// numbers and meanings are those of MPICL's note "MPICL instrumentation
// data format", which lists them from MPICL's include file
// trace/tracedefs.h (a copy of the note:
// https://corpora.tika.apache.org/base/docs/govdocs1/126/126034.txt):
//
//   - -15, -16: set message buffering, communication status request;
//   - -22 … -24: buffered, synchronous and ready send (MPI_Bsend, MPI_Ssend,
//     MPI_Rsend); -32: a canceled send begin; -33 … -50: for each of the
//     three send modes the begin, "done" and "not done" status request,
//     "not blocked" and "blocked" end, and canceled begin events, in the
//     order of the format's -27 … -32; -62: a canceled receive begin;
//   - -7xx: MPI-specific point-to-point and collective communication
//     (MPI_Pack -756, MPI_Unpack -773, MPI_Allgather -780, MPI_Allreduce
//     -782, MPI_Alltoall -783, MPI_Bcast -785, MPI_Gather -786, MPI_Reduce
//     -790, MPI_Reduce_scatter -791, MPI_Scan -792, MPI_Scatter -793);
//   - -8xx: MPI-specific context events (MPI_Comm_create -804, MPI_Comm_dup
//     -805, MPI_Comm_free -806, MPI_Comm_split -812, MPI_Intercomm_create
//     -826, MPI_Intercomm_merge -827, MPI_Cart_create -841, MPI_Cart_sub
//     -846, MPI_Graph_create -849).
//
// The note names the events but not their data. The table gives the send
// and send-request events the data of the format's events they parallel:
// that a -22 entry carries the length, type and destination of a -21 entry
// is seen in MPICL traces; for the nonblocking modes' events it is assumed
// from the parallel numbering. For the other events the table gives no
// field names, and their data are read by their descriptors like any
// record's. The command column names the MPI routine an event stands for
// where that is one routine. The note lists only part of
// tracedefs.h; event types it does not list (an MPICL -781, say) have no
// row, and [EventType.Category] still gives them the category of their
// range.

// System event types (doc/picl.md §7). Their String method returns a short
// name derived from the PICL command ("send0", "recv0-wait"); Info returns
// the whole row of the report's event table (doc/picl.md §7).
const (
	EventAll               EventType = -1   // all events (wildcard)
	EventCommOpen          EventType = -11  // enable interprocess communication
	EventCommClose         EventType = -12  // disable interprocess communication
	EventWho               EventType = -13  // request interprocess communication parameters
	EventRecvInfo          EventType = -14  // request information on last received or probed message
	EventSend              EventType = -21  // send a message (blocking)
	EventSendBegin         EventType = -27  // post nonblocking send request
	EventSendStatus        EventType = -28  // send request found complete
	EventSendStatusPending EventType = -29  // send request found not complete
	EventSendEnd           EventType = -30  // send request verified complete
	EventSendEndWait       EventType = -31  // wait until send request complete
	EventRecv              EventType = -51  // receive a message (blocking, no wait)
	EventRecvWait          EventType = -52  // wait to receive a message (blocking)
	EventProbe             EventType = -53  // probe found a message
	EventProbeNone         EventType = -54  // probe found no message
	EventMsgWait           EventType = -55  // message verified available
	EventMsgWaitBlocked    EventType = -56  // wait until a message is available
	EventRecvBegin         EventType = -57  // post nonblocking receive request
	EventRecvStatus        EventType = -58  // receive request found complete
	EventRecvStatusPending EventType = -59  // receive request found not complete
	EventRecvEnd           EventType = -60  // receive request verified complete
	EventRecvEndWait       EventType = -61  // wait until receive request complete
	EventFileOpen          EventType = -201 // open i/o channel or initialize file descriptor
	EventFileClose         EventType = -202 // close i/o channel or free file descriptor
	EventFileWrite         EventType = -221 // write to channel or file
	EventFileRead          EventType = -251 // read from channel or file
	EventClockSync         EventType = -401 // synchronize process clocks
	EventBarrier           EventType = -402 // synchronize processes (barrier)
	EventAllocate          EventType = -501 // allocate computing resources
	EventRelease           EventType = -502 // release computing resources
	EventLoad              EventType = -503 // spawn process(es)
	EventIdle              EventType = -601 // idle (generic)
	EventSystemOverhead    EventType = -602 // system overhead (generic)
	EventUserOverhead      EventType = -603 // user or parallel overhead (generic)
	EventTracing           EventType = -901 // tracing
	EventTraceEvents       EventType = -902 // number of user event types to collect statistics for
	EventTraceFiles        EventType = -903 // specify trace file
	EventTraceLevel        EventType = -904 // specify what trace data to generate
	EventTraceInfo         EventType = -905 // request current tracing parameters
	EventTraceMsg          EventType = -911 // place a message in the trace file
	EventTraceFlush        EventType = -912 // write trace data to the trace file
	EventTraceFullStop     EventType = -913 // trace buffer full, detailed tracing disabled
	EventTraceFullWrap     EventType = -914 // trace buffer full, records being overwritten
)

// Event types MPICL adds to the format (see the comment at the top of
// this file): its further send, receive and communication-status events,
// MPI collective and packing operations, and MPI communicator operations.
const (
	EventBuffer             EventType = -15  // set message buffering
	EventCommCheck          EventType = -16  // generic communication status request
	EventBsend              EventType = -22  // buffered send (blocking)
	EventSsend              EventType = -23  // synchronous send (blocking)
	EventRsend              EventType = -24  // ready send (blocking)
	EventSendCancel         EventType = -32  // generic send request canceled
	EventBsendBegin         EventType = -33  // post nonblocking buffered send request
	EventBsendStatus        EventType = -34  // buffered send request found complete
	EventBsendStatusPending EventType = -35  // buffered send request found not complete
	EventBsendEnd           EventType = -36  // buffered send request verified complete
	EventBsendEndWait       EventType = -37  // wait until buffered send request complete
	EventBsendCancel        EventType = -38  // buffered send request canceled
	EventSsendBegin         EventType = -39  // post nonblocking synchronous send request
	EventSsendStatus        EventType = -40  // synchronous send request found complete
	EventSsendStatusPending EventType = -41  // synchronous send request found not complete
	EventSsendEnd           EventType = -42  // synchronous send request verified complete
	EventSsendEndWait       EventType = -43  // wait until synchronous send request complete
	EventSsendCancel        EventType = -44  // synchronous send request canceled
	EventRsendBegin         EventType = -45  // post nonblocking ready send request
	EventRsendStatus        EventType = -46  // ready send request found complete
	EventRsendStatusPending EventType = -47  // ready send request found not complete
	EventRsendEnd           EventType = -48  // ready send request verified complete
	EventRsendEndWait       EventType = -49  // wait until ready send request complete
	EventRsendCancel        EventType = -50  // ready send request canceled
	EventRecvCancel         EventType = -62  // receive request canceled
	EventMPIPack            EventType = -756 // MPI_Pack
	EventMPIUnpack          EventType = -773 // MPI_Unpack
	EventMPIAllgather       EventType = -780 // MPI_Allgather
	EventMPIAllreduce       EventType = -782 // MPI_Allreduce
	EventMPIAlltoall        EventType = -783 // MPI_Alltoall
	EventMPIBcast           EventType = -785 // MPI_Bcast
	EventMPIGather          EventType = -786 // MPI_Gather
	EventMPIReduce          EventType = -790 // MPI_Reduce
	EventMPIReduceScatter   EventType = -791 // MPI_Reduce_scatter
	EventMPIScan            EventType = -792 // MPI_Scan
	EventMPIScatter         EventType = -793 // MPI_Scatter
	EventMPICommCreate      EventType = -804 // MPI_Comm_create
	EventMPICommDup         EventType = -805 // MPI_Comm_dup
	EventMPICommFree        EventType = -806 // MPI_Comm_free
	EventMPICommSplit       EventType = -812 // MPI_Comm_split
	EventMPIIntercommCreate EventType = -826 // MPI_Intercomm_create
	EventMPIIntercommMerge  EventType = -827 // MPI_Intercomm_merge
	EventMPICartCreate      EventType = -841 // MPI_Cart_create
	EventMPICartSub         EventType = -846 // MPI_Cart_sub
	EventMPIGraphCreate     EventType = -849 // MPI_Graph_create
)

// Predefined event-type subsets (doc/picl.md §7.8). They appear mostly as the
// event types of statistics pairs; [EventType.Contains] tells membership.
const (
	SubsetUser       EventType = -1001 // all user events
	SubsetSystem     EventType = -1002 // all system events
	SubsetComm       EventType = -1011 // all interprocessor communication events (-11..-200)
	SubsetSend       EventType = -1012 // all send events (-21..-50)
	SubsetRecv       EventType = -1013 // all receive events (-51..-80)
	SubsetBlocked    EventType = -1014 // all blocked send/receive events (-31,-52,-56,-61)
	SubsetFileIO     EventType = -1201 // all file i/o events (-201..-400)
	SubsetSync       EventType = -1401 // all synchronization events (-401..-500)
	SubsetResource   EventType = -1501 // all resource allocation events (-501..-600)
	SubsetGeneric    EventType = -1601 // all generic performance events (-601..-700)
	SubsetTracing    EventType = -1901 // all tracing events (-901..-1000)
	SubsetTraceFlush EventType = -1902 // all trace flushing events (-911,-912)
)

// eventTable is the report's event table (doc/picl.md §7) with MPICL's event types,
// sorted by descending (less negative first) event type as in the TSV.
var eventTable = [...]EventInfo{
	{EventAll, "all", "all events (wildcard)", "", CategoryWildcard, WritesNone, Layout{0, 0, "", ""}, Layout{0, 0, "", ""}, Layout{0, 0, "", ""}, "entry/exit optional: start/end of traced portion; key for whole-process statistics"},
	{EventCommOpen, "open0", "enable interprocess communication", "open0", CategoryIPC, WritesEntryExit, Layout{0, 0, "", ""}, Layout{0, 0, "", ""}, Layout{0, 0, "", ""}, ""},
	{EventCommClose, "close0", "disable interprocess communication", "close0", CategoryIPC, WritesMark, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, Layout{0, 0, "", ""}, ""},
	{EventWho, "who0", "request interprocess communication parameters", "who0", CategoryIPC, WritesNone, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, "statistics only"},
	{EventRecvInfo, "recvinfo0", "request information on last received or probed message", "recvinfo0", CategoryIPC, WritesNone, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, "statistics only"},
	{EventBuffer, "buffer", "set message buffering", "", CategoryIPC, WritesEntryExit, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, "MPICL; data layout not documented, read by descriptor"},
	{EventCommCheck, "commcheck", "generic communication status request", "", CategoryIPC, WritesEntryExit, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, "MPICL; data layout not documented, read by descriptor"},
	{EventSend, "send0", "send a message (blocking)", "send0", CategoryIPC, WritesEntryExit, Layout{4, 3, "%d", "length in bytes;type;destination processor id;destination process id"}, Layout{0, 0, "", ""}, Layout{4, 4, "%d", "length in bytes;type;destination processor id;destination process id"}, ""},
	{EventBsend, "bsend", "buffered send (blocking)", "MPI_Bsend", CategoryIPC, WritesEntryExit, Layout{4, 3, "%d", "length in bytes;type;destination processor id;destination process id"}, Layout{0, 0, "", ""}, Layout{4, 4, "%d", "length in bytes;type;destination processor id;destination process id"}, "MPICL; data as for -21"},
	{EventSsend, "ssend", "synchronous send (blocking)", "MPI_Ssend", CategoryIPC, WritesEntryExit, Layout{4, 3, "%d", "length in bytes;type;destination processor id;destination process id"}, Layout{0, 0, "", ""}, Layout{4, 4, "%d", "length in bytes;type;destination processor id;destination process id"}, "MPICL; data as for -21"},
	{EventRsend, "rsend", "ready send (blocking)", "MPI_Rsend", CategoryIPC, WritesEntryExit, Layout{4, 3, "%d", "length in bytes;type;destination processor id;destination process id"}, Layout{0, 0, "", ""}, Layout{4, 4, "%d", "length in bytes;type;destination processor id;destination process id"}, "MPICL; data as for -21"},
	{EventSendBegin, "sendbegin0", "post nonblocking send request", "sendbegin0", CategoryIPC, WritesEntryExit, Layout{4, 3, "%d", "length in bytes;type;destination processor id;destination process id"}, Layout{1, 1, "%d", "send request id"}, Layout{5, 5, "%d", "length in bytes;type;destination processor id;destination process id;send request id"}, ""},
	{EventSendStatus, "sendstatus0", "send request found complete", "sendstatus0", CategoryIPC, WritesEntryExit, Layout{1, 1, "%d", "send request id"}, Layout{0, 0, "", ""}, Layout{1, 1, "%d", "send request id"}, ""},
	{EventSendStatusPending, "sendstatus0-pending", "send request found not complete", "sendstatus0", CategoryIPC, WritesNone, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, "statistics only"},
	{EventSendEnd, "sendend0", "send request verified complete", "sendend0", CategoryIPC, WritesEntryExit, Layout{1, 1, "%d", "send request id"}, Layout{0, 0, "", ""}, Layout{1, 1, "%d", "send request id"}, ""},
	{EventSendEndWait, "sendend0-wait", "wait until send request complete", "sendend0", CategoryIPC, WritesEntryExit, Layout{1, 1, "%d", "send request id"}, Layout{0, 0, "", ""}, Layout{1, 1, "%d", "send request id"}, "member of blocked subset -1014"},
	{EventSendCancel, "send-cancel", "generic send request canceled", "", CategoryIPC, WritesEntryExit, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, "MPICL; data layout not documented, read by descriptor"},
	{EventBsendBegin, "bsendbegin", "post nonblocking buffered send request", "MPI_Ibsend", CategoryIPC, WritesEntryExit, Layout{4, 3, "%d", "length in bytes;type;destination processor id;destination process id"}, Layout{1, 1, "%d", "send request id"}, Layout{5, 5, "%d", "length in bytes;type;destination processor id;destination process id;send request id"}, "MPICL; data as for -27"},
	{EventBsendStatus, "bsendstatus", "buffered send request found complete", "", CategoryIPC, WritesEntryExit, Layout{1, 1, "%d", "send request id"}, Layout{0, 0, "", ""}, Layout{1, 1, "%d", "send request id"}, "MPICL; data as for -28"},
	{EventBsendStatusPending, "bsendstatus-pending", "buffered send request found not complete", "", CategoryIPC, WritesNone, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, "MPICL; statistics only, as -29"},
	{EventBsendEnd, "bsendend", "buffered send request verified complete", "", CategoryIPC, WritesEntryExit, Layout{1, 1, "%d", "send request id"}, Layout{0, 0, "", ""}, Layout{1, 1, "%d", "send request id"}, "MPICL; data as for -30"},
	{EventBsendEndWait, "bsendend-wait", "wait until buffered send request complete", "", CategoryIPC, WritesEntryExit, Layout{1, 1, "%d", "send request id"}, Layout{0, 0, "", ""}, Layout{1, 1, "%d", "send request id"}, "MPICL; data as for -31"},
	{EventBsendCancel, "bsend-cancel", "buffered send request canceled", "", CategoryIPC, WritesEntryExit, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, "MPICL; data layout not documented, read by descriptor"},
	{EventSsendBegin, "ssendbegin", "post nonblocking synchronous send request", "MPI_Issend", CategoryIPC, WritesEntryExit, Layout{4, 3, "%d", "length in bytes;type;destination processor id;destination process id"}, Layout{1, 1, "%d", "send request id"}, Layout{5, 5, "%d", "length in bytes;type;destination processor id;destination process id;send request id"}, "MPICL; data as for -27"},
	{EventSsendStatus, "ssendstatus", "synchronous send request found complete", "", CategoryIPC, WritesEntryExit, Layout{1, 1, "%d", "send request id"}, Layout{0, 0, "", ""}, Layout{1, 1, "%d", "send request id"}, "MPICL; data as for -28"},
	{EventSsendStatusPending, "ssendstatus-pending", "synchronous send request found not complete", "", CategoryIPC, WritesNone, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, "MPICL; statistics only, as -29"},
	{EventSsendEnd, "ssendend", "synchronous send request verified complete", "", CategoryIPC, WritesEntryExit, Layout{1, 1, "%d", "send request id"}, Layout{0, 0, "", ""}, Layout{1, 1, "%d", "send request id"}, "MPICL; data as for -30"},
	{EventSsendEndWait, "ssendend-wait", "wait until synchronous send request complete", "", CategoryIPC, WritesEntryExit, Layout{1, 1, "%d", "send request id"}, Layout{0, 0, "", ""}, Layout{1, 1, "%d", "send request id"}, "MPICL; data as for -31"},
	{EventSsendCancel, "ssend-cancel", "synchronous send request canceled", "", CategoryIPC, WritesEntryExit, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, "MPICL; data layout not documented, read by descriptor"},
	{EventRsendBegin, "rsendbegin", "post nonblocking ready send request", "MPI_Irsend", CategoryIPC, WritesEntryExit, Layout{4, 3, "%d", "length in bytes;type;destination processor id;destination process id"}, Layout{1, 1, "%d", "send request id"}, Layout{5, 5, "%d", "length in bytes;type;destination processor id;destination process id;send request id"}, "MPICL; data as for -27"},
	{EventRsendStatus, "rsendstatus", "ready send request found complete", "", CategoryIPC, WritesEntryExit, Layout{1, 1, "%d", "send request id"}, Layout{0, 0, "", ""}, Layout{1, 1, "%d", "send request id"}, "MPICL; data as for -28"},
	{EventRsendStatusPending, "rsendstatus-pending", "ready send request found not complete", "", CategoryIPC, WritesNone, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, "MPICL; statistics only, as -29"},
	{EventRsendEnd, "rsendend", "ready send request verified complete", "", CategoryIPC, WritesEntryExit, Layout{1, 1, "%d", "send request id"}, Layout{0, 0, "", ""}, Layout{1, 1, "%d", "send request id"}, "MPICL; data as for -30"},
	{EventRsendEndWait, "rsendend-wait", "wait until ready send request complete", "", CategoryIPC, WritesEntryExit, Layout{1, 1, "%d", "send request id"}, Layout{0, 0, "", ""}, Layout{1, 1, "%d", "send request id"}, "MPICL; data as for -31"},
	{EventRsendCancel, "rsend-cancel", "ready send request canceled", "", CategoryIPC, WritesEntryExit, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, "MPICL; data layout not documented, read by descriptor"},
	{EventRecv, "recv0", "receive a message (blocking, no wait)", "recv0", CategoryIPC, WritesEntryExit, Layout{3, 1, "%d", "requested type;requested processor id;requested process id"}, Layout{4, 3, "%d", "length in bytes;received type;source processor id;source process id"}, Layout{7, 7, "%d", "requested type;requested processor id;requested process id;length in bytes;received type;source processor id;source process id"}, ""},
	{EventRecvWait, "recv0-wait", "wait to receive a message (blocking)", "recv0", CategoryIPC, WritesEntryExit, Layout{3, 1, "%d", "requested type;requested processor id;requested process id"}, Layout{4, 3, "%d", "length in bytes;received type;source processor id;source process id"}, Layout{7, 7, "%d", "requested type;requested processor id;requested process id;length in bytes;received type;source processor id;source process id"}, "member of blocked subset -1014"},
	{EventProbe, "probe0", "probe found a message", "probe0", CategoryIPC, WritesNone, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, "statistics only"},
	{EventProbeNone, "probe0-none", "probe found no message", "probe0", CategoryIPC, WritesNone, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, "statistics only"},
	{EventMsgWait, "wait0", "message verified available", "wait0", CategoryIPC, WritesNone, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, "statistics only"},
	{EventMsgWaitBlocked, "wait0-wait", "wait until a message is available", "wait0", CategoryIPC, WritesEntryExit, Layout{3, 1, "%d", "requested type;requested processor id;requested process id"}, Layout{4, 3, "%d", "length in bytes;found type;source processor id;source process id"}, Layout{7, 7, "%d", "requested type;requested processor id;requested process id;length in bytes;found type;source processor id;source process id"}, "member of blocked subset -1014"},
	{EventRecvBegin, "recvbegin0", "post nonblocking receive request", "recvbegin0", CategoryIPC, WritesEntryExit, Layout{3, 1, "%d", "requested type;requested processor id;requested process id"}, Layout{1, 1, "%d", "receive request id"}, Layout{4, 4, "%d", "requested type;requested processor id;requested process id;receive request id"}, ""},
	{EventRecvStatus, "recvstatus0", "receive request found complete", "recvstatus0", CategoryIPC, WritesEntryExit, Layout{1, 1, "%d", "receive request id"}, Layout{4, 3, "%d", "length in bytes;received type;source processor id;source process id"}, Layout{5, 5, "%d", "receive request id;length in bytes;received type;source processor id;source process id"}, ""},
	{EventRecvStatusPending, "recvstatus0-pending", "receive request found not complete", "recvstatus0", CategoryIPC, WritesNone, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, "statistics only"},
	{EventRecvEnd, "recvend0", "receive request verified complete", "recvend0", CategoryIPC, WritesEntryExit, Layout{1, 1, "%d", "receive request id"}, Layout{4, 3, "%d", "length in bytes;received type;source processor id;source process id"}, Layout{5, 5, "%d", "receive request id;length in bytes;received type;source processor id;source process id"}, ""},
	{EventRecvEndWait, "recvend0-wait", "wait until receive request complete", "recvend0", CategoryIPC, WritesEntryExit, Layout{1, 1, "%d", "receive request id"}, Layout{4, 3, "%d", "length in bytes;received type;source processor id;source process id"}, Layout{5, 5, "%d", "receive request id;length in bytes;received type;source processor id;source process id"}, "member of blocked subset -1014"},
	{EventRecvCancel, "recv-cancel", "receive request canceled", "", CategoryIPC, WritesEntryExit, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, "MPICL; data layout not documented, read by descriptor"},
	{EventFileOpen, "file-open", "open i/o channel or initialize file descriptor", "", CategoryFileIO, WritesEntryExit, Layout{CountVariable, CountVariable, "%c", "file or channel name (characters)"}, Layout{1, 1, "%d", "file descriptor/unit number"}, Layout{CountVariable, CountVariable, "mixed", "file or channel name (characters);file descriptor/unit number"}, "hand instrumentation; unrelated to record type -201"},
	{EventFileClose, "file-close", "close i/o channel or free file descriptor", "", CategoryFileIO, WritesEntryExit, Layout{1, 1, "%d", "file descriptor/unit number"}, Layout{0, 0, "", ""}, Layout{1, 1, "%d", "file descriptor/unit number"}, "unrelated to record type -202"},
	{EventFileWrite, "file-write", "write to channel or file", "", CategoryFileIO, WritesEntryExit, Layout{2, 2, "%d", "length in bytes;file descriptor/unit number"}, Layout{0, 0, "", ""}, Layout{2, 2, "%d", "length in bytes;file descriptor/unit number"}, ""},
	{EventFileRead, "file-read", "read from channel or file", "", CategoryFileIO, WritesEntryExit, Layout{0, 0, "", ""}, Layout{2, 2, "%d", "length in bytes;file descriptor/unit number"}, Layout{2, 2, "%d", "length in bytes;file descriptor/unit number"}, ""},
	{EventClockSync, "clocksync0", "synchronize process clocks", "clocksync0", CategorySync, WritesEntryExit, Layout{2, 0, "%d", "processor subset synchronized;process subset synchronized"}, Layout{0, 0, "", ""}, Layout{2, 2, "%d", "processor subset synchronized;process subset synchronized"}, ""},
	{EventBarrier, "sync0", "synchronize processes (barrier)", "sync0", CategorySync, WritesEntryExit, Layout{2, 0, "%d", "processor subset synchronized;process subset synchronized"}, Layout{0, 0, "", ""}, Layout{2, 2, "%d", "processor subset synchronized;process subset synchronized"}, ""},
	{EventAllocate, "open0-host", "allocate computing resources", "open0", CategoryResource, WritesEntryExit, Layout{1, 1, "%d", "requested number of processors"}, Layout{1, 1, "%d", "allocated number of processors"}, Layout{2, 2, "%d", "requested number of processors;allocated number of processors"}, "host open0"},
	{EventRelease, "close0-host", "release computing resources", "close0", CategoryResource, WritesEntryExit, Layout{0, 0, "", ""}, Layout{0, 0, "", ""}, Layout{0, 0, "", ""}, "host close0"},
	{EventLoad, "load0", "spawn process(es)", "load0", CategoryResource, WritesEntryExit, Layout{CountVariable, CountVariable, "%c", "name of executable (characters)"}, Layout{2, 2, "%d", "processor on which process was spawned;process id of spawned process"}, Layout{CountVariable, CountVariable, "mixed", "name of executable (characters);processor on which process was spawned;process id of spawned process"}, ""},
	{EventIdle, "idle", "idle (generic)", "", CategoryGeneric, WritesEntryExit, Layout{0, 0, "", ""}, Layout{0, 0, "", ""}, Layout{0, 0, "", ""}, ""},
	{EventSystemOverhead, "system-overhead", "system overhead (generic)", "", CategoryGeneric, WritesEntryExit, Layout{0, 0, "", ""}, Layout{0, 0, "", ""}, Layout{0, 0, "", ""}, ""},
	{EventUserOverhead, "user-overhead", "user or parallel overhead (generic)", "", CategoryGeneric, WritesEntryExit, Layout{0, 0, "", ""}, Layout{0, 0, "", ""}, Layout{0, 0, "", ""}, ""},
	{EventMPIPack, "MPI_Pack", "MPI_Pack", "MPI_Pack", CategoryMPI, WritesEntryExit, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, "MPICL; data layout not documented, read by descriptor"},
	{EventMPIUnpack, "MPI_Unpack", "MPI_Unpack", "MPI_Unpack", CategoryMPI, WritesEntryExit, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, "MPICL; data layout not documented, read by descriptor"},
	{EventMPIAllgather, "MPI_Allgather", "MPI_Allgather", "MPI_Allgather", CategoryMPI, WritesEntryExit, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, "MPICL; data layout not documented, read by descriptor"},
	{EventMPIAllreduce, "MPI_Allreduce", "MPI_Allreduce", "MPI_Allreduce", CategoryMPI, WritesEntryExit, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, "MPICL; data layout not documented, read by descriptor"},
	{EventMPIAlltoall, "MPI_Alltoall", "MPI_Alltoall", "MPI_Alltoall", CategoryMPI, WritesEntryExit, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, "MPICL; data layout not documented, read by descriptor"},
	{EventMPIBcast, "MPI_Bcast", "MPI_Bcast", "MPI_Bcast", CategoryMPI, WritesEntryExit, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, "MPICL; data layout not documented, read by descriptor"},
	{EventMPIGather, "MPI_Gather", "MPI_Gather", "MPI_Gather", CategoryMPI, WritesEntryExit, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, "MPICL; data layout not documented, read by descriptor"},
	{EventMPIReduce, "MPI_Reduce", "MPI_Reduce", "MPI_Reduce", CategoryMPI, WritesEntryExit, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, "MPICL; data layout not documented, read by descriptor"},
	{EventMPIReduceScatter, "MPI_Reduce_scatter", "MPI_Reduce_scatter", "MPI_Reduce_scatter", CategoryMPI, WritesEntryExit, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, "MPICL; data layout not documented, read by descriptor"},
	{EventMPIScan, "MPI_Scan", "MPI_Scan", "MPI_Scan", CategoryMPI, WritesEntryExit, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, "MPICL; data layout not documented, read by descriptor"},
	{EventMPIScatter, "MPI_Scatter", "MPI_Scatter", "MPI_Scatter", CategoryMPI, WritesEntryExit, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, "MPICL; data layout not documented, read by descriptor"},
	{EventMPICommCreate, "MPI_Comm_create", "MPI_Comm_create", "MPI_Comm_create", CategoryMPIContext, WritesEntryExit, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, "MPICL; data layout not documented, read by descriptor"},
	{EventMPICommDup, "MPI_Comm_dup", "MPI_Comm_dup", "MPI_Comm_dup", CategoryMPIContext, WritesEntryExit, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, "MPICL; data layout not documented, read by descriptor"},
	{EventMPICommFree, "MPI_Comm_free", "MPI_Comm_free", "MPI_Comm_free", CategoryMPIContext, WritesEntryExit, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, "MPICL; data layout not documented, read by descriptor"},
	{EventMPICommSplit, "MPI_Comm_split", "MPI_Comm_split", "MPI_Comm_split", CategoryMPIContext, WritesEntryExit, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, "MPICL; data layout not documented, read by descriptor"},
	{EventMPIIntercommCreate, "MPI_Intercomm_create", "MPI_Intercomm_create", "MPI_Intercomm_create", CategoryMPIContext, WritesEntryExit, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, "MPICL; data layout not documented, read by descriptor"},
	{EventMPIIntercommMerge, "MPI_Intercomm_merge", "MPI_Intercomm_merge", "MPI_Intercomm_merge", CategoryMPIContext, WritesEntryExit, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, "MPICL; data layout not documented, read by descriptor"},
	{EventMPICartCreate, "MPI_Cart_create", "MPI_Cart_create", "MPI_Cart_create", CategoryMPIContext, WritesEntryExit, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, "MPICL; data layout not documented, read by descriptor"},
	{EventMPICartSub, "MPI_Cart_sub", "MPI_Cart_sub", "MPI_Cart_sub", CategoryMPIContext, WritesEntryExit, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, "MPICL; data layout not documented, read by descriptor"},
	{EventMPIGraphCreate, "MPI_Graph_create", "MPI_Graph_create", "MPI_Graph_create", CategoryMPIContext, WritesEntryExit, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, Layout{CountVariable, CountVariable, "any", ""}, "MPICL; data layout not documented, read by descriptor"},
	{EventTracing, "tracing", "tracing", "tracenode/tracehost..traceexit", CategoryTracing, WritesEntryExit, Layout{0, 0, "", ""}, Layout{0, 0, "", ""}, Layout{0, 0, "", ""}, "first and last event record of a process; ParaGraph requires it"},
	{EventTraceEvents, "traceevents", "number of user event types to collect statistics for", "traceevents", CategoryTracing, WritesEntryExit, Layout{1, 1, "%d", "number of user events being profiled"}, Layout{0, 0, "", ""}, Layout{1, 1, "%d", "number of user events being profiled"}, ""},
	{EventTraceFiles, "tracefiles", "specify trace file", "tracefiles", CategoryTracing, WritesEntryExit, Layout{0, 0, "", ""}, Layout{0, 0, "", ""}, Layout{0, 0, "", ""}, ""},
	{EventTraceLevel, "tracelevel", "specify what trace data to generate", "tracelevel", CategoryTracing, WritesMark, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, Layout{3, 3, "%d", "PICL event tracing level;user event tracing level;trace event tracing level"}, ""},
	{EventTraceInfo, "traceinfo", "request current tracing parameters", "traceinfo", CategoryTracing, WritesNone, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, "statistics only; OCR prints -904 twice in Table 5"},
	{EventTraceMsg, "tracemsg", "place a message in the trace file", "tracemsg", CategoryTracing, WritesEntryExit, Layout{1, 1, "%d", "length in bytes"}, Layout{0, 0, "", ""}, Layout{1, 1, "%d", "length in bytes"}, ""},
	{EventTraceFlush, "traceflush", "write trace data to the trace file", "traceflush", CategoryTracing, WritesEntryExit, Layout{0, 0, "", ""}, Layout{1, 1, "%d", "length in bytes"}, Layout{1, 1, "%d", "length in bytes"}, ""},
	{EventTraceFullStop, "trace-full-stop", "trace buffer full, detailed tracing disabled", "", CategoryTracing, WritesMark, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, Layout{0, 0, "", ""}, ""},
	{EventTraceFullWrap, "trace-full-wrap", "trace buffer full, records being overwritten", "", CategoryTracing, WritesMark, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, Layout{0, 0, "", ""}, ""},
	{SubsetUser, "subset-user", "all user events", "", CategorySubset, WritesNone, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, "predefined event-type subset; used in statistics records"},
	{SubsetSystem, "subset-system", "all system events", "", CategorySubset, WritesNone, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, "predefined event-type subset; used in statistics records"},
	{SubsetComm, "subset-comm", "all interprocessor communication events (-11..-200)", "", CategorySubset, WritesNone, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, "predefined event-type subset; used in statistics records"},
	{SubsetSend, "subset-send", "all send events (-21..-50)", "", CategorySubset, WritesNone, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, "predefined event-type subset; used in statistics records"},
	{SubsetRecv, "subset-recv", "all receive events (-51..-80)", "", CategorySubset, WritesNone, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, "predefined event-type subset; used in statistics records"},
	{SubsetBlocked, "subset-blocked", "all blocked send/receive events (-31,-52,-56,-61)", "", CategorySubset, WritesNone, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, "predefined event-type subset; used in statistics records"},
	{SubsetFileIO, "subset-file-io", "all file i/o events (-201..-400)", "", CategorySubset, WritesNone, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, "predefined event-type subset; used in statistics records"},
	{SubsetSync, "subset-sync", "all synchronization events (-401..-500)", "", CategorySubset, WritesNone, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, "predefined event-type subset; used in statistics records"},
	{SubsetResource, "subset-resource", "all resource allocation events (-501..-600)", "", CategorySubset, WritesNone, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, "predefined event-type subset; used in statistics records"},
	{SubsetGeneric, "subset-generic", "all generic performance events (-601..-700)", "", CategorySubset, WritesNone, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, "predefined event-type subset; used in statistics records"},
	{SubsetTracing, "subset-tracing", "all tracing events (-901..-1000)", "", CategorySubset, WritesNone, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, "predefined event-type subset; used in statistics records"},
	{SubsetTraceFlush, "subset-trace-flush", "all trace flushing events (-911,-912)", "", CategorySubset, WritesNone, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, "predefined event-type subset; used in statistics records"},
}
