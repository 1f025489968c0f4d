package picl

import (
	"strconv"
	"strings"
)

// An EventType is field 2 of a record: a user event (>= 0), the wildcard -1
// (all events), a system event (-2 … -1000) or an event-type subset (the
// predefined ones below -1000, or ids defined by -203 records). Besides the
// format's own system events, the table [EventType.Info] reads holds those
// MPICL adds (see [CategoryMPI]).
type EventType int32

// A Category groups event types as the report's event table does (doc/picl.md §7).
type Category uint8

// Event categories (the category column of testdata/picl-events.tsv).
const (
	CategoryUnknown  Category = iota // a negative event type the format does not define
	CategoryUser                     // user events (>= 0)
	CategoryWildcard                 // -1
	CategoryIPC                      // interprocess communication (-11 … -200)
	CategoryFileIO                   // file i/o (-201 … -400)
	CategorySync                     // synchronization (-401 … -500)
	CategoryResource                 // resource allocation (-501 … -600)
	CategoryGeneric                  // generic performance (-601 … -700)
	CategoryTracing                  // tracing (-901 … -1000)
	CategorySubset                   // predefined event-type subsets

	// MPICL's MPI-specific point-to-point and collective communication
	// events (-701 … -800), MPI_Bcast (-785) say. The 1992 format leaves
	// the range unassigned; MPICL, the PICL instrumentation library for
	// MPI, writes these event types.
	CategoryMPI
	// MPICL's MPI-specific context (communicator) events (-801 … -900),
	// MPI_Comm_split (-812) say.
	CategoryMPIContext
)

var categoryNames = [...]string{"unknown", "user", "wildcard", "ipc", "file_io", "sync", "resource", "generic", "tracing", "subset", "mpi", "mpi_context"}

// String returns the category's name as the TSV spells it ("ipc",
// "file_io").
func (c Category) String() string {
	if int(c) < len(categoryNames) {
		return categoryNames[c]
	}
	return "Category(" + strconv.Itoa(int(c)) + ")"
}

// Writes says which records PICL (for MPICL's event types, MPICL) itself
// writes for an event.
type Writes uint8

// Values of Writes.
const (
	WritesNone      Writes = iota // no event records: statistics only, or not an event
	WritesEntryExit               // entry (-3) and exit (-4) records
	WritesMark                    // mark (-2) records
)

// String returns "none", "entry/exit" or "mark".
func (w Writes) String() string {
	switch w {
	case WritesEntryExit:
		return "entry/exit"
	case WritesMark:
		return "mark"
	}
	return "none"
}

// Field counts with a special meaning in a [Layout].
const (
	CountVariable = -1 // character data: the count is the number of characters
	CountNone     = -2 // the event has no such records
)

// A Layout describes the data of one kind of event record (entry, exit or
// mark) as Worley's report defines it.
type Layout struct {
	Count      int    // number of data fields defined by the format, CountVariable or CountNone
	PICLCount  int    // number PICL actually writes (trailing fields dropped)
	Descriptor string // control string ("%d", "%c", "mixed", "any"), "" when there are no data
	Fields     string // field names separated by ";"
}

// Field returns the name of data field i (0-based), or "" if the layout
// names no such field. It does not allocate.
func (l Layout) Field(i int) string {
	s := l.Fields
	for ; i > 0; i-- {
		j := strings.IndexByte(s, ';')
		if j < 0 {
			return ""
		}
		s = s[j+1:]
	}
	if j := strings.IndexByte(s, ';'); j >= 0 {
		s = s[:j]
	}
	if i < 0 {
		return ""
	}
	return s
}

// An EventInfo is one row of the event table (testdata/picl-events.tsv): the
// report's rows and those of the event types MPICL adds.
type EventInfo struct {
	Type     EventType
	Short    string // the name String returns
	Name     string // what the event is
	Command  string // PICL routine that produces it, "" if none
	Category Category
	Writes   Writes
	Entry    Layout
	Exit     Layout
	Mark     Layout
	Notes    string
}

var userEvent = EventInfo{
	Type: 0, Short: "user", Name: "user event", Command: "traceblockbegin/traceblockend",
	Category: CategoryUser, Writes: WritesEntryExit,
	Entry: Layout{CountVariable, 2, "any", "user data (PICL: 2 integers)"},
	Exit:  Layout{CountVariable, 2, "any", "user data (PICL: 2 integers)"},
	Mark:  Layout{CountVariable, CountVariable, "mixed", "user data (PICL: 2 integers);user data (PICL: 2 integers)"},
	Notes: "user-defined data; PICL writes 2 %d values per record",
}

// Info returns the event table's row for e: the report's, or for
// an event type MPICL adds, the row built from MPICL's documentation. For
// a user event (e >= 0) it returns the shared user-event row with Type set
// to e. The second result is false for event types the table does not
// hold.
func (e EventType) Info() (EventInfo, bool) {
	if e >= 0 {
		info := userEvent
		info.Type = e
		return info, true
	}
	// The table is sorted by descending event type.
	lo, hi := 0, len(eventTable)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if eventTable[m].Type > e {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(eventTable) && eventTable[lo].Type == e {
		return eventTable[lo], true
	}
	return EventInfo{Type: e}, false
}

// String returns the event type's short name ("send0", "recv0-wait",
// "tracing", "subset-send"), "user(n)" for a user event, or
// "EventType(n)" for an event type the format does not define.
func (e EventType) String() string {
	if e >= 0 {
		return "user(" + strconv.Itoa(int(e)) + ")"
	}
	if info, ok := e.Info(); ok {
		return info.Short
	}
	return "EventType(" + strconv.Itoa(int(e)) + ")"
}

// Category returns the event type's category. Event types the table does
// not define inside a category's range (-17, say, or an MPICL -781) get
// that category; others get CategoryUnknown.
func (e EventType) Category() Category {
	switch {
	case e >= 0:
		return CategoryUser
	case e == EventAll:
		return CategoryWildcard
	case e.IsComm():
		return CategoryIPC
	case e.IsFileIO():
		return CategoryFileIO
	case e.IsSync():
		return CategorySync
	case e.IsResource():
		return CategoryResource
	case e.IsGeneric():
		return CategoryGeneric
	case e.IsTracing():
		return CategoryTracing
	case e.IsMPI():
		return CategoryMPI
	case e.IsMPIContext():
		return CategoryMPIContext
	case e.IsPredefinedSubset():
		return CategorySubset
	}
	return CategoryUnknown
}

// FieldName returns the report's name for data field i of a record
// of type rt for this event ("length in bytes"), or "" when it names none.
// Mark records list the entry fields, then the exit fields.
func (e EventType) FieldName(rt RecordType, i int) string {
	info, ok := e.Info()
	if !ok {
		return ""
	}
	switch rt {
	case RecordEntry:
		return info.Entry.Field(i)
	case RecordExit:
		return info.Exit.Field(i)
	case RecordMark:
		return info.Mark.Field(i)
	}
	return ""
}

// IsUser reports whether e is a user event type (e >= 0).
func (e EventType) IsUser() bool { return e >= 0 }

// IsSystem reports whether e is a system event type (-2 … -1000), the
// members of [SubsetSystem].
func (e EventType) IsSystem() bool { return e <= -2 && e >= -1000 }

// IsComm reports whether e is an interprocess communication event
// (-11 … -200), the members of [SubsetComm].
func (e EventType) IsComm() bool { return e <= -11 && e >= -200 }

// IsSend reports whether e is a send event (-21 … -50), the members of
// [SubsetSend].
func (e EventType) IsSend() bool { return e <= -21 && e >= -50 }

// IsReceive reports whether e is a receive event (-51 … -80), the members of
// [SubsetRecv].
func (e EventType) IsReceive() bool { return e <= -51 && e >= -80 }

// IsBlocked reports whether e is a blocked send or receive (-31, -52, -56,
// -61), the members of [SubsetBlocked].
func (e EventType) IsBlocked() bool {
	return e == EventSendEndWait || e == EventRecvWait || e == EventMsgWaitBlocked || e == EventRecvEndWait
}

// IsFileIO reports whether e is a file i/o event (-201 … -400), the members
// of [SubsetFileIO].
func (e EventType) IsFileIO() bool { return e <= -201 && e >= -400 }

// IsSync reports whether e is a synchronization event (-401 … -500), the
// members of [SubsetSync].
func (e EventType) IsSync() bool { return e <= -401 && e >= -500 }

// IsResource reports whether e is a resource allocation event (-501 … -600),
// the members of [SubsetResource].
func (e EventType) IsResource() bool { return e <= -501 && e >= -600 }

// IsGeneric reports whether e is a generic performance event (-601 … -700),
// the members of [SubsetGeneric].
func (e EventType) IsGeneric() bool { return e <= -601 && e >= -700 }

// IsMPI reports whether e is in MPICL's range of MPI-specific
// point-to-point and collective communication events (-701 … -800).
func (e EventType) IsMPI() bool { return e <= -701 && e >= -800 }

// IsMPIContext reports whether e is in MPICL's range of MPI-specific
// context (communicator) events (-801 … -900).
func (e EventType) IsMPIContext() bool { return e <= -801 && e >= -900 }

// IsTracing reports whether e is a tracing event (-901 … -1000), the members
// of [SubsetTracing].
func (e EventType) IsTracing() bool { return e <= -901 && e >= -1000 }

// IsTraceFlush reports whether e is a trace flushing event (-911, -912), the
// members of [SubsetTraceFlush].
func (e EventType) IsTraceFlush() bool { return e == EventTraceMsg || e == EventTraceFlush }

// IsPredefinedSubset reports whether e is one of the predefined event-type
// subsets (-1001 … -1902).
func (e EventType) IsPredefinedSubset() bool {
	switch e {
	case SubsetUser, SubsetSystem, SubsetComm, SubsetSend, SubsetRecv, SubsetBlocked,
		SubsetFileIO, SubsetSync, SubsetResource, SubsetGeneric, SubsetTracing, SubsetTraceFlush:
		return true
	}
	return false
}

// Contains reports whether x is a member of the predefined event-type subset
// e. It is false when e is not a predefined subset (subsets defined by -203
// records are resolved by the Reader) and when x is itself a subset or the
// wildcard.
func (e EventType) Contains(x EventType) bool {
	switch e {
	case SubsetUser:
		return x.IsUser()
	case SubsetSystem:
		return x.IsSystem()
	case SubsetComm:
		return x.IsComm()
	case SubsetSend:
		return x.IsSend()
	case SubsetRecv:
		return x.IsReceive()
	case SubsetBlocked:
		return x.IsBlocked()
	case SubsetFileIO:
		return x.IsFileIO()
	case SubsetSync:
		return x.IsSync()
	case SubsetResource:
		return x.IsResource()
	case SubsetGeneric:
		return x.IsGeneric()
	case SubsetTracing:
		return x.IsTracing()
	case SubsetTraceFlush:
		return x.IsTraceFlush()
	}
	return false
}
