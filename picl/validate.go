package picl

import (
	"cmp"
	"fmt"
	"slices"
)

// A Check names one of ParaGraph's expectations of a trace (spec section
// 10).
type Check uint8

// The checks Validate makes.
const (
	CheckSorted       Check = iota + 1 // timestamps non-decreasing in file order
	CheckTracingEntry                  // each processor's first event record is a -901 entry
	CheckTracingExit                   // each processor's last event record is a -901 exit
	CheckProcessors                    // processors are numbered 0 … P-1, besides the host 32767
	CheckOneProcess                    // one process per processor (process id -1, "all or unknown", matches any)
	CheckMessageData                   // sends and receives carry the processor ParaGraph needs to draw messages
)

var checkNames = [...]string{"", "sorted", "tracing-entry", "tracing-exit", "processors", "one-process", "message-data"}

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
// (spec section 10) without keeping the records: its memory is a few words
// per processor. Feed it every record in file order with Add, then call
// Findings. The zero Validator is ready to use.
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
// trace. Only the first unsorted record is reported.
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
