package picl

import (
	"cmp"
	"fmt"
	"slices"
)

// A Check names one of ParaGraph's expectations of a trace (doc/picl.md §10).
type Check uint8

// The checks Validate makes.
const (
	CheckSorted       Check = iota + 1 // timestamps non-decreasing in file order
	CheckTracingEntry                  // each processor's first event record is a -901 entry
	CheckTracingExit                   // each processor's last event record is a -901 exit
	CheckProcessors                    // processors are numbered 0 … P-1, besides the host 32767
	CheckOneProcess                    // one process per processor (process id -1, "all or unknown", matches any)
	CheckMessageData                   // sends and receives carry the processor ParaGraph needs to draw messages
	CheckWellFormed                    // records are well formed: none was kept by lenient reading with Flags
	CheckEventTypes                    // event records have event types the event table defines
)

var checkNames = [...]string{"", "sorted", "tracing-entry", "tracing-exit", "processors", "one-process", "message-data", "well-formed", "event-types"}

// String returns the check's short name ("sorted", "tracing-entry").
func (c Check) String() string {
	if int(c) < len(checkNames) && c != 0 {
		return checkNames[c]
	}
	return fmt.Sprintf("Check(%d)", uint8(c))
}

// A Finding is one way a trace departs from what ParaGraph expects.
type Finding struct {
	Check     Check
	Record    int64 // 0-based index of the record at fault, -1 when the finding is about the whole trace
	Processor int32 // the processor concerned, -1 when none
	Msg       string
}

// String returns "record n: check: message" (without "record n: " when the
// finding is about the whole trace).
func (f Finding) String() string {
	if f.Record < 0 {
		return fmt.Sprintf("%v: %s", f.Check, f.Msg)
	}
	return fmt.Sprintf("record %d: %v: %s", f.Record, f.Check, f.Msg)
}

// A Validator checks a stream of records against ParaGraph's expectations
// (doc/picl.md §10) without keeping the records: its memory is a few words
// per processor. Feed it every record in file order with Add, then call
// Findings. The zero Validator is ready to use.
//
// It also reports, one finding per kind with a count and the first record,
// what lenient reading let through (CheckWellFormed: records kept with
// Flags, MPICL's value after a zero data count among them) and event
// records whose event type the event table does not define
// (CheckEventTypes), whose data are read but whose meaning is unknown.
//
// Only event records (mark, entry, exit) and user-defined records count as
// "event records"; labels, descriptors, messages, statistics and subset
// definitions are ignored as ParaGraph ignores them, and so is the host
// processor 32767.
type Validator struct {
	n        int64
	lastTime float64
	unsorted Finding
	procs    map[int32]*procState
	findings []Finding
	kinds    [numKinds]kindCount
}

// Kinds of records CheckWellFormed and CheckEventTypes count.
const (
	kindZeroCount = iota // text after a data count of 0
	kindTrailing         // other text after the data
	kindTruncated        // data cut short
	kindUndecoded        // data not decoded
	kindEventType        // event type not in the table
	numKinds
)

// kindCount counts the records of one kind and keeps the first.
type kindCount struct {
	n     int64
	first int64
	proc  int32
	what  string // the first record's text or event type
}

func (k *kindCount) add(i int64, proc int32, what func() string) {
	if k.n == 0 {
		k.first, k.proc, k.what = i, proc, what()
	}
	k.n++
}

type procState struct {
	first, last        int64 // record indices of the first and last event records
	firstOK, lastOK    bool  // whether they are the -901 entry / exit
	process            int32
	manyProcesses      bool
	manyProcessesFound int64
}

// Add checks one record. It does not retain rec.
func (v *Validator) Add(rec *Record) {
	i := v.n
	v.n++
	if i > 0 && rec.Time < v.lastTime && v.unsorted.Check == 0 {
		v.unsorted = Finding{CheckSorted, i, rec.Processor,
			fmt.Sprintf("timestamp %v is before the previous record's %v", rec.Time, v.lastTime)}
	}
	v.lastTime = rec.Time
	if rec.Flags != 0 {
		raw := func() string { return fmt.Sprintf("%.40q", rec.Raw) }
		switch {
		case rec.Flags&FlagUndecoded != 0:
			v.kinds[kindUndecoded].add(i, rec.Processor, raw)
		case rec.Flags&FlagTruncated != 0:
			v.kinds[kindTruncated].add(i, rec.Processor, func() string { return fmt.Sprint(rec.Count) })
		case rec.Count == 0:
			v.kinds[kindZeroCount].add(i, rec.Processor, raw)
		default:
			v.kinds[kindTrailing].add(i, rec.Processor, raw)
		}
	}
	if rec.Event < -1 && (rec.Type == RecordMark || rec.Type == RecordEntry || rec.Type == RecordExit) {
		if _, ok := rec.Event.Info(); !ok {
			v.kinds[kindEventType].add(i, rec.Processor, func() string { return fmt.Sprint(int32(rec.Event)) })
		}
	}
	isEvent := rec.Type == RecordMark || rec.Type == RecordEntry || rec.Type == RecordExit || rec.Type.IsUser()
	if !isEvent || rec.Processor == Host {
		return
	}
	if v.procs == nil {
		v.procs = make(map[int32]*procState)
	}
	p := v.procs[rec.Processor]
	if p == nil {
		p = &procState{first: i, process: rec.Process, firstOK: rec.Type == RecordEntry && rec.Event == EventTracing}
		v.procs[rec.Processor] = p
	}
	p.last = i
	p.lastOK = rec.Type == RecordExit && rec.Event == EventTracing
	if p.process == -1 {
		p.process = rec.Process
	}
	if rec.Process != p.process && rec.Process != -1 && !p.manyProcesses {
		p.manyProcesses = true
		p.manyProcessesFound = i
	}
	if rec.Type == RecordEntry && isSendEntry(rec.Event) && rec.Count < 3 {
		v.findings = append(v.findings, Finding{CheckMessageData, i, rec.Processor,
			fmt.Sprintf("%v entry has %d data fields; ParaGraph needs 3 (length, type, destination)", rec.Event, rec.Count)})
	}
	if rec.Type == RecordExit && rec.Count < 3 {
		switch rec.Event {
		case EventRecv, EventRecvWait, EventMsgWaitBlocked, EventRecvStatus, EventRecvEnd, EventRecvEndWait:
			v.findings = append(v.findings, Finding{CheckMessageData, i, rec.Processor,
				fmt.Sprintf("%v exit has %d data fields; ParaGraph needs 3 (length, type, source)", rec.Event, rec.Count)})
		}
	}
}

// Findings returns what the records added so far depart from, ordered by
// check, then by record. An empty result means ParaGraph should accept the
// trace. Only the first unsorted record is reported, and for
// CheckWellFormed and CheckEventTypes one finding per kind.
func (v *Validator) Findings() []Finding {
	var out []Finding
	if v.unsorted.Check != 0 {
		out = append(out, v.unsorted)
	}
	ids := make([]int32, 0, len(v.procs))
	for id := range v.procs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		p := v.procs[id]
		if !p.firstOK {
			out = append(out, Finding{CheckTracingEntry, p.first, id,
				fmt.Sprintf("processor %d's first event record is not a -901 entry", id)})
		}
		if !p.lastOK {
			out = append(out, Finding{CheckTracingExit, p.last, id,
				fmt.Sprintf("processor %d's last event record is not a -901 exit", id)})
		}
	}
	for i, id := range ids {
		if id != int32(i) {
			out = append(out, Finding{CheckProcessors, -1, id,
				fmt.Sprintf("processors are not numbered 0..%d: found %d", len(ids)-1, id)})
			break
		}
	}
	for _, id := range ids {
		if p := v.procs[id]; p.manyProcesses {
			out = append(out, Finding{CheckOneProcess, p.manyProcessesFound, id,
				fmt.Sprintf("processor %d has records of more than one process", id)})
		}
	}
	out = append(out, v.findings...)
	for kind, k := range v.kinds {
		if k.n == 0 {
			continue
		}
		var check Check = CheckWellFormed
		var msg string
		switch kind {
		case kindZeroCount:
			msg = fmt.Sprintf("%d records have text after a data count of 0 (first: %s), as MPICL writes on user-event records; lenient reading ignores it, strict reading rejects it", k.n, k.what)
		case kindTrailing:
			msg = fmt.Sprintf("%d records have text after their data (first: %s); lenient reading ignores it, strict reading rejects it", k.n, k.what)
		case kindTruncated:
			msg = fmt.Sprintf("%d records have fewer data than their count (first: count %s); lenient reading keeps what is there, strict reading rejects them", k.n, k.what)
		case kindUndecoded:
			msg = fmt.Sprintf("%d records have data that could not be decoded (first: %s): an undefined alias, an unsupported control string or a bad value; they are kept as raw text", k.n, k.what)
		case kindEventType:
			check = CheckEventTypes
			msg = fmt.Sprintf("%d event records have event types the event table does not define (first: %s); their data are read by descriptor, their meaning is unknown", k.n, k.what)
		}
		out = append(out, Finding{check, k.first, k.proc, msg})
	}
	slices.SortStableFunc(out, func(a, b Finding) int {
		if a.Check != b.Check {
			return int(a.Check) - int(b.Check)
		}
		return cmp.Compare(a.Record, b.Record)
	})
	return out
}

// Validate reads r to the end and returns what the trace departs from in
// ParaGraph's expectations (see [Validator]). Findings are not errors: the
// error is only a read error.
func Validate(r *Reader) ([]Finding, error) {
	var v Validator
	for r.Next() {
		v.Add(r.Record())
	}
	return v.Findings(), r.Err()
}
