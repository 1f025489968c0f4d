package main

import (
	"math"
	"strconv"

	"github.com/hpctrace/hpctrace/otf"
)

// The printer formats each record by appending to p.out, a large buffer
// that run writes out when it fills: no fmt and no allocation per record.
// The append helpers below take the text before a value ("label") and the
// value, so that a line reads as its format string did.

// u appends label and v in decimal.
func u[T uint8 | uint16 | uint32 | uint64](b []byte, label string, v T) []byte {
	b = append(b, label...)
	return strconv.AppendUint(b, uint64(v), 10)
}

// q appends label and s in double quotes, a missing (nil) s as the C
// library's printf prints a NULL string: (null).
func q(b []byte, label string, s []byte) []byte {
	b = append(b, label...)
	b = append(b, '"')
	if s == nil {
		b = append(b, "(null)"...)
	} else {
		b = append(b, s...)
	}
	return append(b, '"')
}

// qv appends label and s in double quotes, a missing s as empty.
func qv(b []byte, label string, s []byte) []byte {
	b = append(b, label...)
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// head appends the start of the line of record number n.
func head(b []byte, n uint64) []byte {
	b = append(b, "(#"...)
	b = strconv.AppendUint(b, n, 10)
	return append(b, ") \t"...)
}

// evHead appends the start of the line of event number n at time t.
func evHead(b []byte, n, t uint64) []byte {
	b = head(b, n)
	b = strconv.AppendUint(b, t, 10)
	return append(b, ' ')
}

func (p *printer) print(rec *otf.Record) {
	switch rec.Kind {
	case otf.KindSummaryComment, otf.KindFileOpSummary, otf.KindFileGroupOpSummary:
		return // the reference otfprint has no handler for these
	}
	p.num++
	if p.num > p.c.maxNum {
		// The reference stops reading at the first record past --num's
		// upper bound, and prints no further section.
		p.past = true
		return
	}
	if p.num < p.c.minNum {
		p.remember(rec)
		return
	}
	n := p.num
	b := p.out
	switch rec.Kind {
	// The events first: they are most of a trace.
	case otf.KindEnter:
		v, _ := rec.Enter()
		b = evHead(b, n, rec.Time)
		b = u(b, "Enter: function ", v.Function)
		b = u(b, ", process ", rec.Process)
		b = u(b, ", source ", v.Source)
	case otf.KindLeave:
		v, _ := rec.Leave()
		b = evHead(b, n, rec.Time)
		b = u(b, "Leave: function ", v.Function)
		b = u(b, ", process ", rec.Process)
		b = u(b, ", source ", v.Source)
	case otf.KindSend:
		v, _ := rec.Send()
		b = evHead(b, n, rec.Time)
		b = u(b, "SendMessage: sender ", rec.Process)
		b = u(b, ", receiver ", v.Receiver)
		b = u(b, ", group ", v.Communicator)
		b = u(b, ", type ", v.Tag)
		b = u(b, ", length ", v.Length)
		b = u(b, ", source ", v.Source)
	case otf.KindReceive:
		v, _ := rec.Receive()
		b = evHead(b, n, rec.Time)
		b = u(b, "ReceiveMessage: receiver ", rec.Process)
		b = u(b, ", sender ", v.Sender)
		b = u(b, ", group ", v.Communicator)
		b = u(b, ", type ", v.Tag)
		b = u(b, ", length ", v.Length)
		b = u(b, ", source ", v.Source)
	case otf.KindCounter:
		v, _ := rec.Counter()
		b = evHead(b, n, rec.Time)
		b = u(b, "Counter: process ", rec.Process)
		b = u(b, ", counter ", v.Counter)
		b = p.counterValue(append(b, ", value "...), v.Counter, v.Value)
	case otf.KindCollOp:
		v, _ := rec.CollOp()
		b = evHead(b, n, rec.Time)
		b = u(b, "Collective: process ", rec.Process)
		b = u(b, ", collective ", v.CollOp)
		b = u(b, ", group ", v.Communicator)
		b = u(b, ", root ", v.Root)
		b = u(b, ", sent ", v.Sent)
		b = u(b, ", received ", v.Received)
		b = u(b, ", duration ", v.Duration)
		b = u(b, ", source ", v.Source)
	default:
		var kv bool
		if b, kv = p.printOther(b, n, rec); !kv {
			p.out = append(b, '\n')
			return
		}
	}
	p.out = p.keyValues(b, rec)
}

// printOther appends the line of a record of a kind other than the common
// events, and reports whether the record's key-values follow on the line.
func (p *printer) printOther(b []byte, n uint64, rec *otf.Record) ([]byte, bool) {
	switch rec.Kind {
	case otf.KindUnknown:
		line, _ := rec.Unknown()
		t, proc := rec.Time, rec.Process
		if p.sec == otf.FileDef {
			t, proc = math.MaxUint64, rec.Stream
		}
		b = evHead(b, n, t)
		b = u(b, "Unknown: process ", proc)
		b = qv(b, ", record ", line)
		return b, false
	case otf.KindDefVersion:
		v, _ := rec.DefVersion()
		b = head(b, n)
		b = u(b, "DefVersion: stream ", rec.Stream)
		b = u(b, ", version: ", v.Major)
		b = u(b, ".", v.Minor)
		b = u(b, ".", v.Sub)
		b = qv(b, " ", v.Name)
		return b, false
	case otf.KindDefUniqueID:
		v, _ := rec.DefUniqueID()
		b = head(b, n)
		b = u(b, "DefUniqueId: stream ", rec.Stream)
		b = u(b, ", uid: ", v.UID)
		return b, false
	case otf.KindDefComment:
		v, _ := rec.DefComment()
		b = head(b, n)
		b = u(b, "DefComment: stream ", rec.Stream)
		b = qv(b, ", comment ", v.Comment)
	case otf.KindDefTimerResolution:
		v, _ := rec.DefTimerResolution()
		b = head(b, n)
		b = u(b, "DefTimerResolution: stream ", rec.Stream)
		b = u(b, ", TicksPerSecond ", v.TicksPerSecond)
	case otf.KindDefProcess:
		v, _ := rec.DefProcess()
		b = head(b, n)
		b = u(b, "DefProcess: stream ", rec.Stream)
		b = u(b, ", process ", v.Process)
		b = q(b, ", name ", v.Name)
		b = u(b, ", parent ", v.Parent)
	case otf.KindDefProcessGroup:
		v, _ := rec.DefProcessGroup()
		b = head(b, n)
		b = u(b, "DefProcessGroup: stream ", rec.Stream)
		b = u(b, ", group ", v.Group)
		b = q(b, ", name ", v.Name)
		b = list(append(b, ", procs "...), v.Members, nil)
	case otf.KindDefAttributeList:
		v, _ := rec.DefAttributeList()
		b = head(b, n)
		b = u(b, "DefAttributeList: stream ", rec.Stream)
		b = u(b, ", attr_token ", v.AttrList)
		b = list(append(b, ", attributes "...), v.Attributes, attrNames)
	case otf.KindDefProcessOrGroupAttributes:
		v, _ := rec.DefProcessOrGroupAttributes()
		b = head(b, n)
		b = u(b, "DefProcessOrGroupAttributes: stream ", rec.Stream)
		b = u(b, ", process ", v.ProcessOrGroup)
		b = u(b, ", attr_token ", v.AttrList)
	case otf.KindDefFunction:
		v, _ := rec.DefFunction()
		b = head(b, n)
		b = u(b, "DefFunction: stream ", rec.Stream)
		b = u(b, ", function ", v.Function)
		b = q(b, ", name ", v.Name)
		b = u(b, ", group ", v.Group)
		b = u(b, ", source ", v.Source)
	case otf.KindDefFunctionGroup:
		v, _ := rec.DefFunctionGroup()
		b = head(b, n)
		b = u(b, "DefFunctionGroup: stream ", rec.Stream)
		b = u(b, ", group ", v.Group)
		b = q(b, ", name ", v.Name)
	case otf.KindDefCollOp:
		v, _ := rec.DefCollOp()
		b = head(b, n)
		b = u(b, "DefCollective: stream ", rec.Stream)
		b = u(b, ", collective ", v.CollOp)
		b = q(b, ", name ", v.Name)
		b = named(append(b, ", type "...), v.Type, collOpTypes)
	case otf.KindDefCounter:
		v, _ := rec.DefCounter()
		p.props[v.Counter] = v.Properties
		pr := v.Properties
		b = head(b, n)
		b = u(b, "DefCounter: stream ", rec.Stream)
		b = u(b, ", counter ", v.Counter)
		b = q(b, ", name ", v.Name)
		b = named(append(b, ", properties "...), pr&3, counterTypes)
		b = named(append(b, '/'), pr&12, counterScopes)
		b = named(append(b, '/'), pr&480, varTypes)
		b = u(b, ", group ", v.Group)
		b = q(b, ", unit ", v.Unit)
	case otf.KindDefCounterGroup:
		v, _ := rec.DefCounterGroup()
		b = head(b, n)
		b = u(b, "DefCounterGroup: stream ", rec.Stream)
		b = u(b, ", group ", v.Group)
		b = q(b, ", name ", v.Name)
	case otf.KindDefSCL:
		v, _ := rec.DefSCL()
		b = head(b, n)
		b = u(b, "DefScl: stream ", rec.Stream)
		b = u(b, ", source ", v.SCL)
		b = u(b, ", file ", v.SCLFile)
		b = u(b, ", line ", v.Line)
	case otf.KindDefSCLFile:
		v, _ := rec.DefSCLFile()
		b = head(b, n)
		b = u(b, "DefSclFile: stream ", rec.Stream)
		b = u(b, ", file ", v.SCLFile)
		b = q(b, ", name ", v.Name)
	case otf.KindDefCreator:
		v, _ := rec.DefCreator()
		b = head(b, n)
		b = u(b, "DefCreator: stream ", rec.Stream)
		b = q(b, ", creator ", v.Creator)
	case otf.KindDefFile:
		v, _ := rec.DefFile()
		b = head(b, n)
		b = append(b, "DefFile: "...)
		b = cstr(b, v.Name)
		b = u(b, ", stream ", rec.Stream)
		b = u(b, ", token ", v.File)
		b = u(b, ", group ", v.Group)
	case otf.KindDefFileGroup:
		v, _ := rec.DefFileGroup()
		b = head(b, n)
		b = append(b, "DefFileGroup: "...)
		b = cstr(b, v.Name)
		b = u(b, ", token ", v.Group)
		b = u(b, ", stream ", rec.Stream)
	case otf.KindDefKeyValue:
		v, _ := rec.DefKeyValue()
		b = head(b, n)
		b = u(b, "DefKeyValue: stream ", rec.Stream)
		b = u(b, ", token ", v.Key)
		b = append(b, ", type "...)
		b = append(b, otf.ValueType(min(v.Type, 255)).String()...)
		b = q(b, ", name ", v.Name)
		b = q(b, ", desc ", v.Description)
	case otf.KindDefTimeRange:
		v, _ := rec.DefTimeRange()
		b = head(b, n)
		b = u(b, "DefTimeRange: stream ", rec.Stream)
		b = u(b, ", [", v.MinTime)
		b = u(b, ", ", v.MaxTime)
		b = append(b, ']')
	case otf.KindDefCounterAssignments:
		v, _ := rec.DefCounterAssignments()
		b = head(b, n)
		b = u(b, "DefCounterAssignments: stream ", rec.Stream)
		b = u(b, ", counter_token ", v.Counter)
		b = list(append(b, ", assignees "...), v.ProcsOrGroups, nil)
	case otf.KindDefProcessSubstitutes:
		v, _ := rec.DefProcessSubstitutes()
		b = head(b, n)
		b = u(b, "DefProcessSubstitutes: stream ", rec.Stream)
		b = u(b, ", representative process ", v.Representative)
		b = list(append(b, ", procs "...), v.Procs, nil)
	case otf.KindDefAuxSamplePoint:
		v, _ := rec.DefAuxSamplePoint()
		b = head(b, n)
		b = u(b, "DefAuxSamplePoint: stream ", rec.Stream)
		b = u(b, ", time ", v.Time)
		b = named(append(b, ", type "...), v.Type, sampleTypes)

	case otf.KindNoOp:
		b = evHead(b, n, rec.Time)
		b = u(b, "NoOp: process ", rec.Process)
	case otf.KindBeginCollOp:
		v, _ := rec.BeginCollOp()
		b = evHead(b, n, rec.Time)
		b = u(b, "BeginCollective: process ", rec.Process)
		b = u(b, ", collective ", v.CollOp)
		b = u(b, ", group ", v.Communicator)
		b = u(b, ", matchingId ", v.MatchingID)
		b = u(b, ", root ", v.Root)
		b = u(b, ", sent ", v.Sent)
		b = u(b, ", received ", v.Received)
		b = u(b, ", source ", v.Source)
	case otf.KindEndCollOp:
		v, _ := rec.EndCollOp()
		b = evHead(b, n, rec.Time)
		b = u(b, "EndCollective: process ", rec.Process)
		b = u(b, ", matchingId ", v.MatchingID)
	case otf.KindEventComment:
		v, _ := rec.EventComment()
		b = evHead(b, n, rec.Time)
		b = u(b, "EventComment: process ", rec.Process)
		b = q(b, ", comment ", v.Comment)
	case otf.KindBeginProcess:
		b = evHead(b, n, rec.Time)
		b = u(b, "BeginProcess: process ", rec.Process)
	case otf.KindEndProcess:
		b = evHead(b, n, rec.Time)
		b = u(b, "EndProcess: process ", rec.Process)
	case otf.KindFileOp:
		v, _ := rec.FileOp()
		b = evHead(b, n, rec.Time)
		b = u(b, "FileOperation: file ID ", v.File)
		b = u(b, ", process ", rec.Process)
		b = u(b, ", handle ID ", v.Handle)
		b = fileOp(b, v.Operation)
		b = u(b, ", bytes ", v.Bytes)
		b = u(b, ", duration ", v.Duration)
		b = u(b, ", source ", v.Source)
	case otf.KindBeginFileOp:
		v, _ := rec.BeginFileOp()
		b = evHead(b, n, rec.Time)
		b = u(b, "BeginFileOperation: process ", rec.Process)
		b = u(b, ", matching ID ", v.MatchingID)
		b = u(b, ", source ", v.Source)
	case otf.KindBeginFileOpOld:
		v, _ := rec.BeginFileOpOld()
		b = evHead(b, n, rec.Time)
		b = u(b, "BeginFileOperation: process ", rec.Process)
		b = u(b, ", matching ID ", v.MatchingID)
		b = u(b, ", source ", v.Source)
	case otf.KindEndFileOp:
		v, _ := rec.EndFileOp()
		b = evHead(b, n, rec.Time)
		b = u(b, "EndFileOperation: process ", rec.Process)
		b = u(b, ", file ID ", v.File)
		b = u(b, ", matching ID ", v.MatchingID)
		b = u(b, ", handle ID ", v.Handle)
		b = fileOp(b, v.Operation)
		b = u(b, ", bytes ", v.Bytes)
		b = u(b, ", source ", v.Source)
	case otf.KindEndFileOpOld:
		// The reference reader reports the handle as the matching id and 0 as the handle.
		v, _ := rec.EndFileOpOld()
		b = evHead(b, n, rec.Time)
		b = u(b, "EndFileOperation: process ", rec.Process)
		b = u(b, ", file ID ", v.File)
		b = u(b, ", matching ID ", v.Handle)
		b = append(b, ", handle ID 0"...)
		b = fileOp(b, v.Operation)
		b = u(b, ", bytes ", v.Bytes)
		b = u(b, ", source ", v.Source)
	case otf.KindRMAPut:
		v, _ := rec.RMAPut()
		b = rma(b, n, "RMAPut", rec, v.Origin, v.Target, v.Communicator, v.Tag, v.Bytes, v.Source)
	case otf.KindRMAPutRemoteEnd:
		v, _ := rec.RMAPutRemoteEnd()
		b = rma(b, n, "RMAPutRemoteEnd", rec, v.Origin, v.Target, v.Communicator, v.Tag, v.Bytes, v.Source)
	case otf.KindRMAGet:
		v, _ := rec.RMAGet()
		b = rma(b, n, "RMAGet", rec, v.Origin, v.Target, v.Communicator, v.Tag, v.Bytes, v.Source)
	case otf.KindRMAEnd:
		v, _ := rec.RMAEnd()
		b = evHead(b, n, rec.Time)
		if v.Remote != 0 {
			b = u(b, "RMAEnd: initiator ", rec.Process)
			b = u(b, ", remote ", v.Remote)
		} else {
			b = u(b, "RMAEnd: process ", rec.Process)
		}
		b = u(b, ", communicator ", v.Communicator)
		b = u(b, ", tag ", v.Tag)
		b = u(b, ", source ", v.Source)

	case otf.KindSnapshotComment:
		v, _ := rec.SnapshotComment()
		b = evHead(b, n, rec.Time)
		b = u(b, "SnapComment: process ", rec.Process)
		b = q(b, ", comment ", v.Comment)
	case otf.KindEnterSnapshot:
		v, _ := rec.EnterSnapshot()
		b = evHead(b, n, rec.Time)
		b = u(b, "SnapEnter: otime ", v.OriginalTime)
		b = u(b, ", process ", rec.Process)
		b = u(b, ", function ", v.Function)
		b = u(b, ", source ", v.Source)
	case otf.KindSendSnapshot:
		v, _ := rec.SendSnapshot()
		b = evHead(b, n, rec.Time)
		b = u(b, "SnapSend: otime ", v.OriginalTime)
		b = u(b, ", sender ", rec.Process)
		b = u(b, ", receiver ", v.Receiver)
		b = u(b, ", group ", v.Communicator)
		b = u(b, ", tag ", v.Tag)
		b = u(b, ", length ", v.Length)
		b = u(b, ", source ", v.Source)
	case otf.KindOpenFileSnapshot:
		v, _ := rec.OpenFileSnapshot()
		b = evHead(b, n, rec.Time)
		b = u(b, "SnapOpenFile: otime ", v.OriginalTime)
		b = u(b, ", process ", rec.Process)
		b = u(b, ", fileid ", v.File)
		b = u(b, ", handle ID ", v.Handle)
		b = u(b, ", source ", v.Source)
	case otf.KindBeginCollOpSnapshot:
		v, _ := rec.BeginCollOpSnapshot()
		b = evHead(b, n, rec.Time)
		b = u(b, "SnapBeginCollop: otime ", v.OriginalTime)
		b = u(b, ", process ", rec.Process)
		b = u(b, ", collOp ", v.CollOp)
		b = u(b, ", matchingID ", v.MatchingID)
		b = u(b, ", group ", v.Communicator)
		b = u(b, ", root ", v.Root)
		b = u(b, ", sent ", v.Sent)
		b = u(b, ", received ", v.Received)
		b = u(b, ", source ", v.Source)
	case otf.KindBeginFileOpSnapshot:
		v, _ := rec.BeginFileOpSnapshot()
		b = evHead(b, n, rec.Time)
		b = u(b, "SnapBeginFileOp: otime ", v.OriginalTime)
		b = u(b, ", process ", rec.Process)
		b = u(b, ", matchingID ", v.MatchingID)
		b = u(b, ", source ", v.Source)
	case otf.KindCollOpCountSnapshot:
		v, _ := rec.CollOpCountSnapshot()
		b = evHead(b, n, rec.Time)
		b = u(b, "SnapCollopCount: process ", rec.Process)
		b = u(b, ", communicator ", v.Communicator)
		b = u(b, ", count ", v.Count)
	case otf.KindCounterSnapshot:
		// The reference prints the process after "otime" and the original
		// time after "process".
		v, _ := rec.CounterSnapshot()
		b = evHead(b, n, rec.Time)
		b = u(b, "SnapCounter: otime ", rec.Process)
		b = u(b, ", process ", v.OriginalTime)
		b = u(b, ", counter ", v.Counter)
		b = p.counterValue(append(b, ", value "...), v.Counter, v.Value)

	case otf.KindFunctionSummary:
		v, _ := rec.FunctionSummary()
		b = evHead(b, n, rec.Time)
		b = u(b, "StatFunction: process ", rec.Process)
		b = u(b, ", function ", v.Function)
		b = u(b, ", invocations ", v.Count)
		b = u(b, ", excltime ", v.ExclTime)
		b = u(b, ", incltime ", v.InclTime)
	case otf.KindFunctionGroupSummary:
		v, _ := rec.FunctionGroupSummary()
		b = evHead(b, n, rec.Time)
		b = u(b, "StatFunctionGroup: process ", rec.Process)
		b = u(b, ", group ", v.Group)
		b = u(b, ", invocations ", v.Count)
		b = u(b, ", excltime ", v.ExclTime)
		b = u(b, ", incltime ", v.InclTime)
	case otf.KindMessageSummary:
		v, _ := rec.MessageSummary()
		b = evHead(b, n, rec.Time)
		b = u(b, "StatMessage: process ", rec.Process)
		b = u(b, ", peer ", v.Peer)
		b = u(b, ", group ", v.Communicator)
		b = u(b, ", type ", v.Tag)
		b = u(b, ", numsent ", v.SentCount)
		b = u(b, ", numreceived ", v.ReceivedCount)
		b = u(b, ", bytessent ", v.BytesSent)
		b = u(b, ", bytesreceived ", v.BytesReceived)
	case otf.KindCollOpSummary:
		v, _ := rec.CollOpSummary()
		b = evHead(b, n, rec.Time)
		b = u(b, "StatCollOp: process ", rec.Process)
		b = u(b, ", group ", v.Communicator)
		b = u(b, ", col ", v.CollOp)
		b = u(b, ", numsent ", v.SentCount)
		b = u(b, ", numreceived ", v.ReceivedCount)
		b = u(b, ", bytessent ", v.BytesSent)
		b = u(b, ", bytesreceived ", v.BytesReceived)

	case otf.KindDefMarker:
		v, _ := rec.DefMarker()
		b = u(b, "(#", n)
		b = u(b, ") DefMarker: ID ", v.Marker)
		b = q(b, ", name ", v.Name)
		b = named(append(b, ", type "...), v.Type, markerTypes)
	case otf.KindMarkerSpot:
		v, _ := rec.MarkerSpot()
		b = evHead(b, n, rec.Time)
		b = u(b, "Marker: ID ", v.Marker)
		b = u(b, ", process ", v.Process)
		b = q(b, ", text ", v.Text)
	default:
		b = evHead(b, n, rec.Time)
		b = append(b, rec.Kind.String()...)
	}
	return b, true
}

// remember keeps the state print needs (counter properties) for records
// outside the --num range.
func (p *printer) remember(rec *otf.Record) {
	if v, ok := rec.DefCounter(); ok {
		p.props[v.Counter] = v.Properties
	}
}

func rma(b []byte, n uint64, name string, rec *otf.Record, origin, target, comm, tag uint32, bytes uint64, src uint32) []byte {
	b = evHead(b, n, rec.Time)
	b = append(b, name...)
	if origin != 0 {
		b = u(b, ": initiator ", rec.Process)
		b = u(b, ", origin ", origin)
	} else {
		b = u(b, ": origin ", rec.Process)
	}
	b = u(b, ", target ", target)
	b = u(b, ", communicator ", comm)
	b = u(b, ", tag ", tag)
	b = u(b, ", bytes ", bytes)
	return u(b, ", source ", src)
}

var (
	collOpTypes   = []string{1: "BARRIER", 2: "ONE2ALL", 3: "ALL2ONE", 4: "ALL2ALL"}
	counterTypes  = []string{"ACC", "ABS"}
	counterScopes = []string{0: "START", 4: "POINT", 8: "LAST", 12: "NEXT"}
	sampleTypes   = []string{"SNAPSHOT", "SUMMARY", "INLINE_SNAPSHOT"}
	markerTypes   = []string{1: "ERROR", 2: "WARNING", 3: "HINT"}
	attrNames     = []string{1: "IsMPIRank", 2: "IsPThread", 3: "IsOMPThread", 4: "IsCellSPUThread", 5: "hasGroupCounters", 6: "hasEnterLeaveRecords", 7: "IsCommunicator"}
	fileOps       = []string{"OPEN", "CLOSE", "READ", "WRITE", "SEEK", "UNLINK", "RENAME", "DUP", "SYNC", "LOCK", "UNLOCK"}
	ioFlagNames   = []string{"IOFAILED", "ASYNC", "COLL", "DIRECT", "SYNC", "ISREADLOCK"}
)

var varTypes = func() []string {
	s := make([]string, 289)
	s[0], s[32], s[64], s[96] = "UNSIGNED8", "SIGNED8", "UNSIGNED4", "SIGNED4"
	s[128], s[160], s[256], s[288] = "UNSIGNED2", "SIGNED2", "FLOAT", "DOUBLE"
	return s
}()

// named appends names[v], or "UNKNOWN <v>" for a value without a name.
func named(b []byte, v uint32, names []string) []byte {
	if int(v) < len(names) && names[v] != "" {
		return append(b, names[v]...)
	}
	return append(u(b, "UNKNOWN <", v), '>')
}

// list appends v separated by ", ", by name if names is not nil.
func list(b []byte, v []uint32, names []string) []byte {
	for i, x := range v {
		if i > 0 {
			b = append(b, ", "...)
		}
		if names != nil {
			b = named(b, x, names)
		} else {
			b = strconv.AppendUint(b, uint64(x), 10)
		}
	}
	return b
}

// cstr appends s, a missing (NULL) s as the C library's printf prints it.
func cstr(b []byte, s []byte) []byte {
	if s == nil {
		return append(b, "(null)"...)
	}
	return append(b, s...)
}

// fileOp appends the operation and the flags of a file operation.
func fileOp(b []byte, op uint32) []byte {
	b = named(append(b, ", operation "...), op&31, fileOps)
	b = append(b, ", flags "...)
	f := op &^ 31
	if f == 0 {
		return append(b, "EMPTY"...)
	}
	first := true
	for i, name := range ioFlagNames {
		bit := uint32(32) << i
		if f&bit != 0 {
			if !first {
				b = append(b, ", "...)
			}
			b = append(b, name...)
			first = false
			f &^= bit
		}
	}
	if f != 0 {
		if !first {
			b = append(b, ", "...)
		}
		b = append(u(b, "UNKNOWN <", f), '>')
	}
	return b
}

// counterValue appends a counter's value as its type in the counter's
// definition says.
func (p *printer) counterValue(b []byte, counter uint32, v uint64) []byte {
	props := p.props[counter] // 0 for an undefined counter
	switch props & 480 {
	case 0, 64, 128:
		return strconv.AppendUint(b, v, 10)
	case 32, 96, 160:
		return strconv.AppendInt(b, int64(v), 10)
	case 256:
		return strconv.AppendFloat(b, float64(math.Float32frombits(uint32(v))), 'f', 6, 64)
	case 288:
		return strconv.AppendFloat(b, math.Float64frombits(v), 'f', 6, 64)
	}
	// As printf's %08x.
	b = append(b, "INVALID TYPE <"...)
	for i := len(strconv.FormatUint(v, 16)); i < 8; i++ {
		b = append(b, '0')
	}
	b = strconv.AppendUint(b, v, 16)
	return append(b, '>')
}

// keyValues appends the record's key-value list, if printed, and the end
// of the line.
func (p *printer) keyValues(b []byte, rec *otf.Record) []byte {
	kvs := rec.KeyValues()
	if p.c.noKV || len(kvs) == 0 {
		return append(b, '\n')
	}
	b = append(b, ", KeyValue: "...)
	for i, kv := range kvs {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendUint(b, uint64(kv.Key), 10)
		b = append(b, ':')
		switch kv.Type {
		case otf.TypeChar:
			b = append(b, byte(kv.Value))
		case otf.TypeUint8, otf.TypeUint16, otf.TypeUint32, otf.TypeUint64:
			b = strconv.AppendUint(b, kv.Value, 10)
		case otf.TypeInt8, otf.TypeInt16, otf.TypeInt32, otf.TypeInt64:
			b = strconv.AppendInt(b, kv.Int(), 10)
		case otf.TypeFloat, otf.TypeDouble:
			b = strconv.AppendFloat(b, kv.Float(), 'f', 3, 64)
		case otf.TypeByteArray:
			if !p.c.fullKV {
				b = append(b, "byte-array("...)
				b = strconv.AppendUint(b, uint64(len(kv.Bytes)), 10)
				b = append(b, ')')
			} else {
				for _, c := range kv.Bytes {
					b = append(b, "0123456789ABCDEF"[c>>4], "0123456789ABCDEF"[c&15])
				}
			}
		}
	}
	return append(b, '\n')
}
