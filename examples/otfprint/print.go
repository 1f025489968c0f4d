package main

import (
	"math"
	"strconv"

	"github.com/hpctrace/hpctrace/internal/termsafe"
	"github.com/hpctrace/hpctrace/otf"
)

// The printer formats each record by appending to p.out, a large buffer
// that run writes out when it fills: no fmt and no allocation per record.
// The append helpers below take the text before a value ("label") and the
// value, so that a line reads as its format string did.

// u appends label and v in decimal. It is inlined, so that label is
// copied as a constant, and the one-digit values that most fields hold
// take no call.
func u(b []byte, label string, v uint32) []byte {
	b = append(b, label...)
	if v < 10 {
		return append(b, byte('0'+v))
	}
	return appendUint(b, uint64(v))
}

// appendUint is strconv.AppendUint in base 10. It is not inlined, which
// keeps u and u64 small enough to be.
//
//go:noinline
func appendUint(b []byte, v uint64) []byte { return strconv.AppendUint(b, v, 10) }

// u64 is u for a 64-bit value.
func u64(b []byte, label string, v uint64) []byte {
	b = append(b, label...)
	if v < 10 {
		return append(b, byte('0'+v))
	}
	return appendUint(b, v)
}

// q appends label and s in double quotes, a missing (nil) s as the C
// library's printf prints a NULL string: (null).
func q(b []byte, label string, s []byte) []byte {
	b = append(b, label...)
	b = append(b, '"')
	if s == nil {
		b = append(b, "(null)"...)
	} else {
		b = termsafe.AppendControls(b, s)
	}
	return append(b, '"')
}

// qv appends label and s in double quotes, a missing s as empty.
func qv(b []byte, label string, s []byte) []byte {
	b = append(b, label...)
	b = append(b, '"')
	b = termsafe.AppendControls(b, s)
	return append(b, '"')
}

// head appends the start of the line of record number n.
func (p *printer) head(b []byte, n uint64) []byte {
	b = append(b, "(#"...)
	b = p.count.append(b, n)
	return append(b, ") \t"...)
}

// evHead appends the start of the line of event number n at time t.
func (p *printer) evHead(b []byte, n, t uint64) []byte {
	b = p.head(b, n)
	b = p.time.append(b, t)
	return append(b, ' ')
}

// A timeText formats times, which most often share all digits but the
// last four with the time before, by keeping those digits.
type timeText struct {
	hi   uint64 // time / 10⁴ of the last time; 0 before the first
	text []byte // hi in decimal
}

const digits2 = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

// append appends t in decimal.
func (c *timeText) append(b []byte, t uint64) []byte {
	hi := t / 1e4
	if hi == 0 {
		return strconv.AppendUint(b, t, 10)
	}
	if hi != c.hi {
		c.hi, c.text = hi, strconv.AppendUint(c.text[:0], hi, 10)
	}
	lo := t - hi*1e4
	x, y := lo/100*2, lo%100*2
	b = append(b, c.text...)
	return append(b, digits2[x], digits2[x+1], digits2[y], digits2[y+1])
}

// A counter formats the record numbers, which most often go up by one,
// by counting up in its decimal digits.
type counter struct {
	n      uint64
	digits []byte // n in decimal
}

// append appends n in decimal.
func (c *counter) append(b []byte, n uint64) []byte {
	d := c.digits
	if n == c.n+1 && n != 0 && len(d) > 0 {
		i := len(d) - 1
		for i >= 0 && d[i] == '9' {
			d[i] = '0'
			i--
		}
		if i >= 0 {
			d[i]++
		} else {
			d = append(d, '0')
			d[0] = '1'
		}
	} else {
		d = strconv.AppendUint(d[:0], n, 10)
	}
	c.n, c.digits = n, d
	return append(b, d...)
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
		b = p.evHead(b, n, rec.Time)
		b = u(b, "Enter: function ", v.Function)
		b = u(b, ", process ", rec.Process)
		b = u(b, ", source ", v.Source)
	case otf.KindLeave:
		v, _ := rec.Leave()
		b = p.evHead(b, n, rec.Time)
		b = u(b, "Leave: function ", v.Function)
		b = u(b, ", process ", rec.Process)
		b = u(b, ", source ", v.Source)
	case otf.KindSend:
		v, _ := rec.Send()
		b = p.evHead(b, n, rec.Time)
		b = u(b, "SendMessage: sender ", rec.Process)
		b = u(b, ", receiver ", v.Receiver)
		b = u(b, ", group ", v.Communicator)
		b = u(b, ", type ", v.Tag)
		b = u(b, ", length ", v.Length)
		b = u(b, ", source ", v.Source)
	case otf.KindReceive:
		v, _ := rec.Receive()
		b = p.evHead(b, n, rec.Time)
		b = u(b, "ReceiveMessage: receiver ", rec.Process)
		b = u(b, ", sender ", v.Sender)
		b = u(b, ", group ", v.Communicator)
		b = u(b, ", type ", v.Tag)
		b = u(b, ", length ", v.Length)
		b = u(b, ", source ", v.Source)
	case otf.KindCounter:
		v, _ := rec.Counter()
		b = p.evHead(b, n, rec.Time)
		b = u(b, "Counter: process ", rec.Process)
		b = u(b, ", counter ", v.Counter)
		b = p.counterValue(append(b, ", value "...), v.Counter, v.Value)
	case otf.KindCollOp:
		v, _ := rec.CollOp()
		b = p.evHead(b, n, rec.Time)
		b = u(b, "Collective: process ", rec.Process)
		b = u(b, ", collective ", v.CollOp)
		b = u(b, ", group ", v.Communicator)
		b = u(b, ", root ", v.Root)
		b = u(b, ", sent ", v.Sent)
		b = u(b, ", received ", v.Received)
		b = u64(b, ", duration ", v.Duration)
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
		b = p.evHead(b, n, t)
		b = u(b, "Unknown: process ", proc)
		b = qv(b, ", record ", line)
		return b, false
	case otf.KindDefVersion:
		v, _ := rec.DefVersion()
		b = p.head(b, n)
		b = u(b, "DefVersion: stream ", rec.Stream)
		b = u(b, ", version: ", uint32(v.Major))
		b = u(b, ".", uint32(v.Minor))
		b = u(b, ".", uint32(v.Sub))
		b = qv(b, " ", v.Name)
		return b, false
	case otf.KindDefUniqueID:
		v, _ := rec.DefUniqueID()
		b = p.head(b, n)
		b = u(b, "DefUniqueId: stream ", rec.Stream)
		b = u64(b, ", uid: ", v.UID)
		return b, false
	case otf.KindDefComment:
		v, _ := rec.DefComment()
		b = p.head(b, n)
		b = u(b, "DefComment: stream ", rec.Stream)
		b = qv(b, ", comment ", v.Comment)
	case otf.KindDefTimerResolution:
		v, _ := rec.DefTimerResolution()
		b = p.head(b, n)
		b = u(b, "DefTimerResolution: stream ", rec.Stream)
		b = u64(b, ", TicksPerSecond ", v.TicksPerSecond)
	case otf.KindDefProcess:
		v, _ := rec.DefProcess()
		b = p.head(b, n)
		b = u(b, "DefProcess: stream ", rec.Stream)
		b = u(b, ", process ", v.Process)
		b = q(b, ", name ", v.Name)
		b = u(b, ", parent ", v.Parent)
	case otf.KindDefProcessGroup:
		v, _ := rec.DefProcessGroup()
		b = p.head(b, n)
		b = u(b, "DefProcessGroup: stream ", rec.Stream)
		b = u(b, ", group ", v.Group)
		b = q(b, ", name ", v.Name)
		b = list(append(b, ", procs "...), v.Members, nil)
	case otf.KindDefAttributeList:
		v, _ := rec.DefAttributeList()
		b = p.head(b, n)
		b = u(b, "DefAttributeList: stream ", rec.Stream)
		b = u(b, ", attr_token ", v.AttrList)
		b = list(append(b, ", attributes "...), v.Attributes, attrNames)
	case otf.KindDefProcessOrGroupAttributes:
		v, _ := rec.DefProcessOrGroupAttributes()
		b = p.head(b, n)
		b = u(b, "DefProcessOrGroupAttributes: stream ", rec.Stream)
		b = u(b, ", process ", v.ProcessOrGroup)
		b = u(b, ", attr_token ", v.AttrList)
	case otf.KindDefFunction:
		v, _ := rec.DefFunction()
		b = p.head(b, n)
		b = u(b, "DefFunction: stream ", rec.Stream)
		b = u(b, ", function ", v.Function)
		b = q(b, ", name ", v.Name)
		b = u(b, ", group ", v.Group)
		b = u(b, ", source ", v.Source)
	case otf.KindDefFunctionGroup:
		v, _ := rec.DefFunctionGroup()
		b = p.head(b, n)
		b = u(b, "DefFunctionGroup: stream ", rec.Stream)
		b = u(b, ", group ", v.Group)
		b = q(b, ", name ", v.Name)
	case otf.KindDefCollOp:
		v, _ := rec.DefCollOp()
		b = p.head(b, n)
		b = u(b, "DefCollective: stream ", rec.Stream)
		b = u(b, ", collective ", v.CollOp)
		b = q(b, ", name ", v.Name)
		b = named(append(b, ", type "...), v.Type, collOpTypes)
	case otf.KindDefCounter:
		v, _ := rec.DefCounter()
		p.props[v.Counter] = v.Properties
		pr := v.Properties
		b = p.head(b, n)
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
		b = p.head(b, n)
		b = u(b, "DefCounterGroup: stream ", rec.Stream)
		b = u(b, ", group ", v.Group)
		b = q(b, ", name ", v.Name)
	case otf.KindDefSCL:
		v, _ := rec.DefSCL()
		b = p.head(b, n)
		b = u(b, "DefScl: stream ", rec.Stream)
		b = u(b, ", source ", v.SCL)
		b = u(b, ", file ", v.SCLFile)
		b = u(b, ", line ", v.Line)
	case otf.KindDefSCLFile:
		v, _ := rec.DefSCLFile()
		b = p.head(b, n)
		b = u(b, "DefSclFile: stream ", rec.Stream)
		b = u(b, ", file ", v.SCLFile)
		b = q(b, ", name ", v.Name)
	case otf.KindDefCreator:
		v, _ := rec.DefCreator()
		b = p.head(b, n)
		b = u(b, "DefCreator: stream ", rec.Stream)
		b = q(b, ", creator ", v.Creator)
	case otf.KindDefFile:
		v, _ := rec.DefFile()
		b = p.head(b, n)
		b = append(b, "DefFile: "...)
		b = cstr(b, v.Name)
		b = u(b, ", stream ", rec.Stream)
		b = u(b, ", token ", v.File)
		b = u(b, ", group ", v.Group)
	case otf.KindDefFileGroup:
		v, _ := rec.DefFileGroup()
		b = p.head(b, n)
		b = append(b, "DefFileGroup: "...)
		b = cstr(b, v.Name)
		b = u(b, ", token ", v.Group)
		b = u(b, ", stream ", rec.Stream)
	case otf.KindDefKeyValue:
		v, _ := rec.DefKeyValue()
		b = p.head(b, n)
		b = u(b, "DefKeyValue: stream ", rec.Stream)
		b = u(b, ", token ", v.Key)
		b = append(b, ", type "...)
		b = append(b, otf.ValueType(min(v.Type, 255)).String()...)
		b = q(b, ", name ", v.Name)
		b = q(b, ", desc ", v.Description)
	case otf.KindDefTimeRange:
		v, _ := rec.DefTimeRange()
		b = p.head(b, n)
		b = u(b, "DefTimeRange: stream ", rec.Stream)
		b = u64(b, ", [", v.MinTime)
		b = u64(b, ", ", v.MaxTime)
		b = append(b, ']')
	case otf.KindDefCounterAssignments:
		v, _ := rec.DefCounterAssignments()
		b = p.head(b, n)
		b = u(b, "DefCounterAssignments: stream ", rec.Stream)
		b = u(b, ", counter_token ", v.Counter)
		b = list(append(b, ", assignees "...), v.ProcsOrGroups, nil)
	case otf.KindDefProcessSubstitutes:
		v, _ := rec.DefProcessSubstitutes()
		b = p.head(b, n)
		b = u(b, "DefProcessSubstitutes: stream ", rec.Stream)
		b = u(b, ", representative process ", v.Representative)
		b = list(append(b, ", procs "...), v.Procs, nil)
	case otf.KindDefAuxSamplePoint:
		v, _ := rec.DefAuxSamplePoint()
		b = p.head(b, n)
		b = u(b, "DefAuxSamplePoint: stream ", rec.Stream)
		b = u64(b, ", time ", v.Time)
		b = named(append(b, ", type "...), v.Type, sampleTypes)

	case otf.KindNoOp:
		b = p.evHead(b, n, rec.Time)
		b = u(b, "NoOp: process ", rec.Process)
	case otf.KindBeginCollOp:
		v, _ := rec.BeginCollOp()
		b = p.evHead(b, n, rec.Time)
		b = u(b, "BeginCollective: process ", rec.Process)
		b = u(b, ", collective ", v.CollOp)
		b = u(b, ", group ", v.Communicator)
		b = u64(b, ", matchingId ", v.MatchingID)
		b = u(b, ", root ", v.Root)
		b = u64(b, ", sent ", v.Sent)
		b = u64(b, ", received ", v.Received)
		b = u(b, ", source ", v.Source)
	case otf.KindEndCollOp:
		v, _ := rec.EndCollOp()
		b = p.evHead(b, n, rec.Time)
		b = u(b, "EndCollective: process ", rec.Process)
		b = u64(b, ", matchingId ", v.MatchingID)
	case otf.KindEventComment:
		v, _ := rec.EventComment()
		b = p.evHead(b, n, rec.Time)
		b = u(b, "EventComment: process ", rec.Process)
		b = q(b, ", comment ", v.Comment)
	case otf.KindBeginProcess:
		b = p.evHead(b, n, rec.Time)
		b = u(b, "BeginProcess: process ", rec.Process)
	case otf.KindEndProcess:
		b = p.evHead(b, n, rec.Time)
		b = u(b, "EndProcess: process ", rec.Process)
	case otf.KindFileOp:
		v, _ := rec.FileOp()
		b = p.evHead(b, n, rec.Time)
		b = u(b, "FileOperation: file ID ", v.File)
		b = u(b, ", process ", rec.Process)
		b = u64(b, ", handle ID ", v.Handle)
		b = fileOp(b, v.Operation)
		b = u64(b, ", bytes ", v.Bytes)
		b = u64(b, ", duration ", v.Duration)
		b = u(b, ", source ", v.Source)
	case otf.KindBeginFileOp:
		v, _ := rec.BeginFileOp()
		b = p.evHead(b, n, rec.Time)
		b = u(b, "BeginFileOperation: process ", rec.Process)
		b = u64(b, ", matching ID ", v.MatchingID)
		b = u(b, ", source ", v.Source)
	case otf.KindBeginFileOpOld:
		v, _ := rec.BeginFileOpOld()
		b = p.evHead(b, n, rec.Time)
		b = u(b, "BeginFileOperation: process ", rec.Process)
		b = u64(b, ", matching ID ", v.MatchingID)
		b = u(b, ", source ", v.Source)
	case otf.KindEndFileOp:
		v, _ := rec.EndFileOp()
		b = p.evHead(b, n, rec.Time)
		b = u(b, "EndFileOperation: process ", rec.Process)
		b = u(b, ", file ID ", v.File)
		b = u64(b, ", matching ID ", v.MatchingID)
		b = u64(b, ", handle ID ", v.Handle)
		b = fileOp(b, v.Operation)
		b = u64(b, ", bytes ", v.Bytes)
		b = u(b, ", source ", v.Source)
	case otf.KindEndFileOpOld:
		// The reference reader reports the handle as the matching id and 0 as the handle.
		v, _ := rec.EndFileOpOld()
		b = p.evHead(b, n, rec.Time)
		b = u(b, "EndFileOperation: process ", rec.Process)
		b = u(b, ", file ID ", v.File)
		b = u64(b, ", matching ID ", v.Handle)
		b = append(b, ", handle ID 0"...)
		b = fileOp(b, v.Operation)
		b = u64(b, ", bytes ", v.Bytes)
		b = u(b, ", source ", v.Source)
	case otf.KindRMAPut:
		v, _ := rec.RMAPut()
		b = p.rma(b, n, "RMAPut", rec, v.Origin, v.Target, v.Communicator, v.Tag, v.Bytes, v.Source)
	case otf.KindRMAPutRemoteEnd:
		v, _ := rec.RMAPutRemoteEnd()
		b = p.rma(b, n, "RMAPutRemoteEnd", rec, v.Origin, v.Target, v.Communicator, v.Tag, v.Bytes, v.Source)
	case otf.KindRMAGet:
		v, _ := rec.RMAGet()
		b = p.rma(b, n, "RMAGet", rec, v.Origin, v.Target, v.Communicator, v.Tag, v.Bytes, v.Source)
	case otf.KindRMAEnd:
		v, _ := rec.RMAEnd()
		b = p.evHead(b, n, rec.Time)
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
		b = p.evHead(b, n, rec.Time)
		b = u(b, "SnapComment: process ", rec.Process)
		b = q(b, ", comment ", v.Comment)
	case otf.KindEnterSnapshot:
		v, _ := rec.EnterSnapshot()
		b = p.evHead(b, n, rec.Time)
		b = u64(b, "SnapEnter: otime ", v.OriginalTime)
		b = u(b, ", process ", rec.Process)
		b = u(b, ", function ", v.Function)
		b = u(b, ", source ", v.Source)
	case otf.KindSendSnapshot:
		v, _ := rec.SendSnapshot()
		b = p.evHead(b, n, rec.Time)
		b = u64(b, "SnapSend: otime ", v.OriginalTime)
		b = u(b, ", sender ", rec.Process)
		b = u(b, ", receiver ", v.Receiver)
		b = u(b, ", group ", v.Communicator)
		b = u(b, ", tag ", v.Tag)
		b = u(b, ", length ", v.Length)
		b = u(b, ", source ", v.Source)
	case otf.KindOpenFileSnapshot:
		v, _ := rec.OpenFileSnapshot()
		b = p.evHead(b, n, rec.Time)
		b = u64(b, "SnapOpenFile: otime ", v.OriginalTime)
		b = u(b, ", process ", rec.Process)
		b = u(b, ", fileid ", v.File)
		b = u64(b, ", handle ID ", v.Handle)
		b = u(b, ", source ", v.Source)
	case otf.KindBeginCollOpSnapshot:
		v, _ := rec.BeginCollOpSnapshot()
		b = p.evHead(b, n, rec.Time)
		b = u64(b, "SnapBeginCollop: otime ", v.OriginalTime)
		b = u(b, ", process ", rec.Process)
		b = u(b, ", collOp ", v.CollOp)
		b = u64(b, ", matchingID ", v.MatchingID)
		b = u(b, ", group ", v.Communicator)
		b = u(b, ", root ", v.Root)
		b = u64(b, ", sent ", v.Sent)
		b = u64(b, ", received ", v.Received)
		b = u(b, ", source ", v.Source)
	case otf.KindBeginFileOpSnapshot:
		v, _ := rec.BeginFileOpSnapshot()
		b = p.evHead(b, n, rec.Time)
		b = u64(b, "SnapBeginFileOp: otime ", v.OriginalTime)
		b = u(b, ", process ", rec.Process)
		b = u64(b, ", matchingID ", v.MatchingID)
		b = u(b, ", source ", v.Source)
	case otf.KindCollOpCountSnapshot:
		v, _ := rec.CollOpCountSnapshot()
		b = p.evHead(b, n, rec.Time)
		b = u(b, "SnapCollopCount: process ", rec.Process)
		b = u(b, ", communicator ", v.Communicator)
		b = u64(b, ", count ", v.Count)
	case otf.KindCounterSnapshot:
		// The reference prints the process after "otime" and the original
		// time after "process".
		v, _ := rec.CounterSnapshot()
		b = p.evHead(b, n, rec.Time)
		b = u(b, "SnapCounter: otime ", rec.Process)
		b = u64(b, ", process ", v.OriginalTime)
		b = u(b, ", counter ", v.Counter)
		b = p.counterValue(append(b, ", value "...), v.Counter, v.Value)

	case otf.KindFunctionSummary:
		v, _ := rec.FunctionSummary()
		b = p.evHead(b, n, rec.Time)
		b = u(b, "StatFunction: process ", rec.Process)
		b = u(b, ", function ", v.Function)
		b = u64(b, ", invocations ", v.Count)
		b = u64(b, ", excltime ", v.ExclTime)
		b = u64(b, ", incltime ", v.InclTime)
	case otf.KindFunctionGroupSummary:
		v, _ := rec.FunctionGroupSummary()
		b = p.evHead(b, n, rec.Time)
		b = u(b, "StatFunctionGroup: process ", rec.Process)
		b = u(b, ", group ", v.Group)
		b = u64(b, ", invocations ", v.Count)
		b = u64(b, ", excltime ", v.ExclTime)
		b = u64(b, ", incltime ", v.InclTime)
	case otf.KindMessageSummary:
		v, _ := rec.MessageSummary()
		b = p.evHead(b, n, rec.Time)
		b = u(b, "StatMessage: process ", rec.Process)
		b = u(b, ", peer ", v.Peer)
		b = u(b, ", group ", v.Communicator)
		b = u(b, ", type ", v.Tag)
		b = u64(b, ", numsent ", v.SentCount)
		b = u64(b, ", numreceived ", v.ReceivedCount)
		b = u64(b, ", bytessent ", v.BytesSent)
		b = u64(b, ", bytesreceived ", v.BytesReceived)
	case otf.KindCollOpSummary:
		v, _ := rec.CollOpSummary()
		b = p.evHead(b, n, rec.Time)
		b = u(b, "StatCollOp: process ", rec.Process)
		b = u(b, ", group ", v.Communicator)
		b = u(b, ", col ", v.CollOp)
		b = u64(b, ", numsent ", v.SentCount)
		b = u64(b, ", numreceived ", v.ReceivedCount)
		b = u64(b, ", bytessent ", v.BytesSent)
		b = u64(b, ", bytesreceived ", v.BytesReceived)

	case otf.KindDefMarker:
		v, _ := rec.DefMarker()
		b = u64(b, "(#", n)
		b = u(b, ") DefMarker: ID ", v.Marker)
		b = q(b, ", name ", v.Name)
		b = named(append(b, ", type "...), v.Type, markerTypes)
	case otf.KindMarkerSpot:
		v, _ := rec.MarkerSpot()
		b = p.evHead(b, n, rec.Time)
		b = u(b, "Marker: ID ", v.Marker)
		b = u(b, ", process ", v.Process)
		b = q(b, ", text ", v.Text)
	default:
		b = p.evHead(b, n, rec.Time)
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

func (p *printer) rma(b []byte, n uint64, name string, rec *otf.Record, origin, target, comm, tag uint32, bytes uint64, src uint32) []byte {
	b = p.evHead(b, n, rec.Time)
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
	b = u64(b, ", bytes ", bytes)
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
	return termsafe.AppendControls(b, s)
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
