package picl

// This file holds the event types of picl-events.tsv (spec section 7). The
// table is kept by hand; TestEventTable checks it against the TSV.

// System event types (spec section 7). Their String method returns a short
// name derived from the PICL command ("send0", "recv0-wait"); Info returns
// the whole row of the specification's table.
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

// Predefined event-type subsets (spec section 7.8). They appear mostly as the
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

// eventTable is the specification's event table, sorted by descending
// (less negative first) event type as in the TSV.
var eventTable = [...]EventInfo{
	{EventAll, "all", "all events (wildcard)", "", CategoryWildcard, WritesNone, Layout{0, 0, "", ""}, Layout{0, 0, "", ""}, Layout{0, 0, "", ""}, "entry/exit optional: start/end of traced portion; key for whole-process statistics"},
	{EventCommOpen, "open0", "enable interprocess communication", "open0", CategoryIPC, WritesEntryExit, Layout{0, 0, "", ""}, Layout{0, 0, "", ""}, Layout{0, 0, "", ""}, ""},
	{EventCommClose, "close0", "disable interprocess communication", "close0", CategoryIPC, WritesMark, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, Layout{0, 0, "", ""}, ""},
	{EventWho, "who0", "request interprocess communication parameters", "who0", CategoryIPC, WritesNone, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, "statistics only"},
	{EventRecvInfo, "recvinfo0", "request information on last received or probed message", "recvinfo0", CategoryIPC, WritesNone, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, "statistics only"},
	{EventSend, "send0", "send a message (blocking)", "send0", CategoryIPC, WritesEntryExit, Layout{4, 3, "%d", "length in bytes;type;destination processor id;destination process id"}, Layout{0, 0, "", ""}, Layout{4, 4, "%d", "length in bytes;type;destination processor id;destination process id"}, ""},
	{EventSendBegin, "sendbegin0", "post nonblocking send request", "sendbegin0", CategoryIPC, WritesEntryExit, Layout{4, 3, "%d", "length in bytes;type;destination processor id;destination process id"}, Layout{1, 1, "%d", "send request id"}, Layout{5, 5, "%d", "length in bytes;type;destination processor id;destination process id;send request id"}, ""},
	{EventSendStatus, "sendstatus0", "send request found complete", "sendstatus0", CategoryIPC, WritesEntryExit, Layout{1, 1, "%d", "send request id"}, Layout{0, 0, "", ""}, Layout{1, 1, "%d", "send request id"}, ""},
	{EventSendStatusPending, "sendstatus0-pending", "send request found not complete", "sendstatus0", CategoryIPC, WritesNone, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, Layout{CountNone, CountNone, "", ""}, "statistics only"},
	{EventSendEnd, "sendend0", "send request verified complete", "sendend0", CategoryIPC, WritesEntryExit, Layout{1, 1, "%d", "send request id"}, Layout{0, 0, "", ""}, Layout{1, 1, "%d", "send request id"}, ""},
	{EventSendEndWait, "sendend0-wait", "wait until send request complete", "sendend0", CategoryIPC, WritesEntryExit, Layout{1, 1, "%d", "send request id"}, Layout{0, 0, "", ""}, Layout{1, 1, "%d", "send request id"}, "member of blocked subset -1014"},
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
