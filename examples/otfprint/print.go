package main

import (
	"fmt"
	"math"
	"strconv"

	"github.com/hpctrace/hpctrace/otf"
)

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
	w := p.w
	n := p.num
	ev := func(format string, args ...any) {
		fmt.Fprintf(w, "(#%d) \t%d ", n, rec.Time)
		fmt.Fprintf(w, format, args...)
	}
	def := func(format string, args ...any) {
		fmt.Fprintf(w, "(#%d) \t", n)
		fmt.Fprintf(w, format, args...)
	}
	switch rec.Kind {
	case otf.KindUnknown:
		line, _ := rec.Unknown()
		t, proc := rec.Time, rec.Process
		if p.sec == otf.FileDef {
			t, proc = math.MaxUint64, rec.Stream
		}
		fmt.Fprintf(w, "(#%d) \t%d Unknown: process %d, record \"%s\"\n", n, t, proc, line)
		return
	case otf.KindDefVersion:
		v, _ := rec.DefVersion()
		def("DefVersion: stream %d, version: %d.%d.%d \"%s\"\n", rec.Stream, v.Major, v.Minor, v.Sub, v.Name)
		return
	case otf.KindDefUniqueID:
		v, _ := rec.DefUniqueID()
		def("DefUniqueId: stream %d, uid: %d\n", rec.Stream, v.UID)
		return
	case otf.KindDefComment:
		v, _ := rec.DefComment()
		def("DefComment: stream %d, comment \"%s\"", rec.Stream, v.Comment)
	case otf.KindDefTimerResolution:
		v, _ := rec.DefTimerResolution()
		def("DefTimerResolution: stream %d, TicksPerSecond %d", rec.Stream, v.TicksPerSecond)
	case otf.KindDefProcess:
		v, _ := rec.DefProcess()
		def("DefProcess: stream %d, process %d, name \"%s\", parent %d", rec.Stream, v.Process, cstr(v.Name), v.Parent)
	case otf.KindDefProcessGroup:
		v, _ := rec.DefProcessGroup()
		def("DefProcessGroup: stream %d, group %d, name \"%s\", procs %s", rec.Stream, v.Group, cstr(v.Name), list(v.Members, nil))
	case otf.KindDefAttributeList:
		v, _ := rec.DefAttributeList()
		def("DefAttributeList: stream %d, attr_token %d, attributes %s", rec.Stream, v.AttrList, list(v.Attributes, attrName))
	case otf.KindDefProcessOrGroupAttributes:
		v, _ := rec.DefProcessOrGroupAttributes()
		def("DefProcessOrGroupAttributes: stream %d, process %d, attr_token %d", rec.Stream, v.ProcessOrGroup, v.AttrList)
	case otf.KindDefFunction:
		v, _ := rec.DefFunction()
		def("DefFunction: stream %d, function %d, name \"%s\", group %d, source %d", rec.Stream, v.Function, cstr(v.Name), v.Group, v.Source)
	case otf.KindDefFunctionGroup:
		v, _ := rec.DefFunctionGroup()
		def("DefFunctionGroup: stream %d, group %d, name \"%s\"", rec.Stream, v.Group, cstr(v.Name))
	case otf.KindDefCollOp:
		v, _ := rec.DefCollOp()
		def("DefCollective: stream %d, collective %d, name \"%s\", type %s", rec.Stream, v.CollOp, cstr(v.Name),
			named(v.Type, []string{1: "BARRIER", 2: "ONE2ALL", 3: "ALL2ONE", 4: "ALL2ALL"}))
	case otf.KindDefCounter:
		v, _ := rec.DefCounter()
		p.props[v.Counter] = v.Properties
		pr := v.Properties
		def("DefCounter: stream %d, counter %d, name \"%s\", properties %s/%s/%s, group %d, unit \"%s\"", rec.Stream, v.Counter, cstr(v.Name),
			named(pr&3, []string{"ACC", "ABS"}),
			named(pr&12, []string{0: "START", 4: "POINT", 8: "LAST", 12: "NEXT"}),
			named(pr&480, varTypes), v.Group, cstr(v.Unit))
	case otf.KindDefCounterGroup:
		v, _ := rec.DefCounterGroup()
		def("DefCounterGroup: stream %d, group %d, name \"%s\"", rec.Stream, v.Group, cstr(v.Name))
	case otf.KindDefSCL:
		v, _ := rec.DefSCL()
		def("DefScl: stream %d, source %d, file %d, line %d", rec.Stream, v.SCL, v.SCLFile, v.Line)
	case otf.KindDefSCLFile:
		v, _ := rec.DefSCLFile()
		def("DefSclFile: stream %d, file %d, name \"%s\"", rec.Stream, v.SCLFile, cstr(v.Name))
	case otf.KindDefCreator:
		v, _ := rec.DefCreator()
		def("DefCreator: stream %d, creator \"%s\"", rec.Stream, cstr(v.Creator))
	case otf.KindDefFile:
		v, _ := rec.DefFile()
		def("DefFile: %s, stream %d, token %d, group %d", cstr(v.Name), rec.Stream, v.File, v.Group)
	case otf.KindDefFileGroup:
		v, _ := rec.DefFileGroup()
		def("DefFileGroup: %s, token %d, stream %d", cstr(v.Name), v.Group, rec.Stream)
	case otf.KindDefKeyValue:
		v, _ := rec.DefKeyValue()
		def("DefKeyValue: stream %d, token %d, type %s, name \"%s\", desc \"%s\"", rec.Stream, v.Key, otf.ValueType(min(v.Type, 255)), cstr(v.Name), cstr(v.Description))
	case otf.KindDefTimeRange:
		v, _ := rec.DefTimeRange()
		def("DefTimeRange: stream %d, [%d, %d]", rec.Stream, v.MinTime, v.MaxTime)
	case otf.KindDefCounterAssignments:
		v, _ := rec.DefCounterAssignments()
		def("DefCounterAssignments: stream %d, counter_token %d, assignees %s", rec.Stream, v.Counter, list(v.ProcsOrGroups, nil))
	case otf.KindDefProcessSubstitutes:
		v, _ := rec.DefProcessSubstitutes()
		def("DefProcessSubstitutes: stream %d, representative process %d, procs %s", rec.Stream, v.Representative, list(v.Procs, nil))
	case otf.KindDefAuxSamplePoint:
		v, _ := rec.DefAuxSamplePoint()
		def("DefAuxSamplePoint: stream %d, time %d, type %s", rec.Stream, v.Time, named(v.Type, []string{"SNAPSHOT", "SUMMARY", "INLINE_SNAPSHOT"}))

	case otf.KindNoOp:
		ev("NoOp: process %d", rec.Process)
	case otf.KindEnter:
		v, _ := rec.Enter()
		ev("Enter: function %d, process %d, source %d", v.Function, rec.Process, v.Source)
	case otf.KindLeave:
		v, _ := rec.Leave()
		ev("Leave: function %d, process %d, source %d", v.Function, rec.Process, v.Source)
	case otf.KindSend:
		v, _ := rec.Send()
		ev("SendMessage: sender %d, receiver %d, group %d, type %d, length %d, source %d", rec.Process, v.Receiver, v.Communicator, v.Tag, v.Length, v.Source)
	case otf.KindReceive:
		v, _ := rec.Receive()
		ev("ReceiveMessage: receiver %d, sender %d, group %d, type %d, length %d, source %d", rec.Process, v.Sender, v.Communicator, v.Tag, v.Length, v.Source)
	case otf.KindCounter:
		v, _ := rec.Counter()
		ev("Counter: process %d, counter %d, value %s", rec.Process, v.Counter, p.counterValue(v.Counter, v.Value))
	case otf.KindCollOp:
		v, _ := rec.CollOp()
		ev("Collective: process %d, collective %d, group %d, root %d, sent %d, received %d, duration %d, source %d", rec.Process, v.CollOp, v.Communicator, v.Root, v.Sent, v.Received, v.Duration, v.Source)
	case otf.KindBeginCollOp:
		v, _ := rec.BeginCollOp()
		ev("BeginCollective: process %d, collective %d, group %d, matchingId %d, root %d, sent %d, received %d, source %d", rec.Process, v.CollOp, v.Communicator, v.MatchingID, v.Root, v.Sent, v.Received, v.Source)
	case otf.KindEndCollOp:
		v, _ := rec.EndCollOp()
		ev("EndCollective: process %d, matchingId %d", rec.Process, v.MatchingID)
	case otf.KindEventComment:
		v, _ := rec.EventComment()
		ev("EventComment: process %d, comment \"%s\"", rec.Process, cstr(v.Comment))
	case otf.KindBeginProcess:
		ev("BeginProcess: process %d", rec.Process)
	case otf.KindEndProcess:
		ev("EndProcess: process %d", rec.Process)
	case otf.KindFileOp:
		v, _ := rec.FileOp()
		ev("FileOperation: file ID %d, process %d, handle ID %d, operation %s, flags %s, bytes %d, duration %d, source %d", v.File, rec.Process, v.Handle, fileOp(v.Operation), ioFlags(v.Operation), v.Bytes, v.Duration, v.Source)
	case otf.KindBeginFileOp:
		v, _ := rec.BeginFileOp()
		ev("BeginFileOperation: process %d, matching ID %d, source %d", rec.Process, v.MatchingID, v.Source)
	case otf.KindBeginFileOpOld:
		v, _ := rec.BeginFileOpOld()
		ev("BeginFileOperation: process %d, matching ID %d, source %d", rec.Process, v.MatchingID, v.Source)
	case otf.KindEndFileOp:
		v, _ := rec.EndFileOp()
		ev("EndFileOperation: process %d, file ID %d, matching ID %d, handle ID %d, operation %s, flags %s, bytes %d, source %d", rec.Process, v.File, v.MatchingID, v.Handle, fileOp(v.Operation), ioFlags(v.Operation), v.Bytes, v.Source)
	case otf.KindEndFileOpOld:
		// The reference reader reports the handle as the matching id and 0 as the handle.
		v, _ := rec.EndFileOpOld()
		ev("EndFileOperation: process %d, file ID %d, matching ID %d, handle ID %d, operation %s, flags %s, bytes %d, source %d", rec.Process, v.File, v.Handle, 0, fileOp(v.Operation), ioFlags(v.Operation), v.Bytes, v.Source)
	case otf.KindRMAPut:
		v, _ := rec.RMAPut()
		p.rma("RMAPut", rec, v.Origin, v.Target, v.Communicator, v.Tag, v.Bytes, v.Source, ev)
	case otf.KindRMAPutRemoteEnd:
		v, _ := rec.RMAPutRemoteEnd()
		p.rma("RMAPutRemoteEnd", rec, v.Origin, v.Target, v.Communicator, v.Tag, v.Bytes, v.Source, ev)
	case otf.KindRMAGet:
		v, _ := rec.RMAGet()
		p.rma("RMAGet", rec, v.Origin, v.Target, v.Communicator, v.Tag, v.Bytes, v.Source, ev)
	case otf.KindRMAEnd:
		v, _ := rec.RMAEnd()
		if v.Remote != 0 {
			ev("RMAEnd: initiator %d, remote %d, communicator %d, tag %d, source %d", rec.Process, v.Remote, v.Communicator, v.Tag, v.Source)
		} else {
			ev("RMAEnd: process %d, communicator %d, tag %d, source %d", rec.Process, v.Communicator, v.Tag, v.Source)
		}

	case otf.KindSnapshotComment:
		v, _ := rec.SnapshotComment()
		ev("SnapComment: process %d, comment \"%s\"", rec.Process, cstr(v.Comment))
	case otf.KindEnterSnapshot:
		v, _ := rec.EnterSnapshot()
		ev("SnapEnter: otime %d, process %d, function %d, source %d", v.OriginalTime, rec.Process, v.Function, v.Source)
	case otf.KindSendSnapshot:
		v, _ := rec.SendSnapshot()
		ev("SnapSend: otime %d, sender %d, receiver %d, group %d, tag %d, length %d, source %d", v.OriginalTime, rec.Process, v.Receiver, v.Communicator, v.Tag, v.Length, v.Source)
	case otf.KindOpenFileSnapshot:
		v, _ := rec.OpenFileSnapshot()
		ev("SnapOpenFile: otime %d, process %d, fileid %d, handle ID %d, source %d", v.OriginalTime, rec.Process, v.File, v.Handle, v.Source)
	case otf.KindBeginCollOpSnapshot:
		v, _ := rec.BeginCollOpSnapshot()
		ev("SnapBeginCollop: otime %d, process %d, collOp %d, matchingID %d, group %d, root %d, sent %d, received %d, source %d", v.OriginalTime, rec.Process, v.CollOp, v.MatchingID, v.Communicator, v.Root, v.Sent, v.Received, v.Source)
	case otf.KindBeginFileOpSnapshot:
		v, _ := rec.BeginFileOpSnapshot()
		ev("SnapBeginFileOp: otime %d, process %d, matchingID %d, source %d", v.OriginalTime, rec.Process, v.MatchingID, v.Source)
	case otf.KindCollOpCountSnapshot:
		v, _ := rec.CollOpCountSnapshot()
		ev("SnapCollopCount: process %d, communicator %d, count %d", rec.Process, v.Communicator, v.Count)
	case otf.KindCounterSnapshot:
		// The reference prints the process after "otime" and the original
		// time after "process".
		v, _ := rec.CounterSnapshot()
		ev("SnapCounter: otime %d, process %d, counter %d, value %s", rec.Process, v.OriginalTime, v.Counter, p.counterValue(v.Counter, v.Value))

	case otf.KindFunctionSummary:
		v, _ := rec.FunctionSummary()
		ev("StatFunction: process %d, function %d, invocations %d, excltime %d, incltime %d", rec.Process, v.Function, v.Count, v.ExclTime, v.InclTime)
	case otf.KindFunctionGroupSummary:
		v, _ := rec.FunctionGroupSummary()
		ev("StatFunctionGroup: process %d, group %d, invocations %d, excltime %d, incltime %d", rec.Process, v.Group, v.Count, v.ExclTime, v.InclTime)
	case otf.KindMessageSummary:
		v, _ := rec.MessageSummary()
		ev("StatMessage: process %d, peer %d, group %d, type %d, numsent %d, numreceived %d, bytessent %d, bytesreceived %d", rec.Process, v.Peer, v.Communicator, v.Tag, v.SentCount, v.ReceivedCount, v.BytesSent, v.BytesReceived)
	case otf.KindCollOpSummary:
		v, _ := rec.CollOpSummary()
		ev("StatCollOp: process %d, group %d, col %d, numsent %d, numreceived %d, bytessent %d, bytesreceived %d", rec.Process, v.Communicator, v.CollOp, v.SentCount, v.ReceivedCount, v.BytesSent, v.BytesReceived)

	case otf.KindDefMarker:
		v, _ := rec.DefMarker()
		fmt.Fprintf(w, "(#%d) DefMarker: ID %d, name \"%s\", type %s", n, v.Marker, cstr(v.Name), named(v.Type, []string{1: "ERROR", 2: "WARNING", 3: "HINT"}))
	case otf.KindMarkerSpot:
		v, _ := rec.MarkerSpot()
		ev("Marker: ID %d, process %d, text \"%s\"", v.Marker, v.Process, cstr(v.Text))
	default:
		ev("%v", rec.Kind)
	}
	p.keyValues(rec)
}

// remember keeps the state print needs (counter properties) for records
// outside the --num range.
func (p *printer) remember(rec *otf.Record) {
	if v, ok := rec.DefCounter(); ok {
		p.props[v.Counter] = v.Properties
	}
}

func (p *printer) rma(name string, rec *otf.Record, origin, target, comm, tag uint32, bytes uint64, src uint32, ev func(string, ...any)) {
	if origin != 0 {
		ev("%s: initiator %d, origin %d, target %d, communicator %d, tag %d, bytes %d, source %d", name, rec.Process, origin, target, comm, tag, bytes, src)
	} else {
		ev("%s: origin %d, target %d, communicator %d, tag %d, bytes %d, source %d", name, rec.Process, target, comm, tag, bytes, src)
	}
}

var varTypes = func() []string {
	s := make([]string, 289)
	s[0], s[32], s[64], s[96] = "UNSIGNED8", "SIGNED8", "UNSIGNED4", "SIGNED4"
	s[128], s[160], s[256], s[288] = "UNSIGNED2", "SIGNED2", "FLOAT", "DOUBLE"
	return s
}()

func named(v uint32, names []string) string {
	if int(v) < len(names) && names[v] != "" {
		return names[v]
	}
	return "UNKNOWN <" + strconv.FormatUint(uint64(v), 10) + ">"
}

var attrNames = []string{1: "IsMPIRank", 2: "IsPThread", 3: "IsOMPThread", 4: "IsCellSPUThread", 5: "hasGroupCounters", 6: "hasEnterLeaveRecords", 7: "IsCommunicator"}

func attrName(v uint32) string { return named(v, attrNames) }

func list(v []uint32, name func(uint32) string) string {
	var b []byte
	for i, x := range v {
		if i > 0 {
			b = append(b, ", "...)
		}
		if name != nil {
			b = append(b, name(x)...)
		} else {
			b = strconv.AppendUint(b, uint64(x), 10)
		}
	}
	return string(b)
}

// cstr prints a missing (NULL) string as the C library's printf does.
func cstr(s []byte) string {
	if s == nil {
		return "(null)"
	}
	return string(s)
}

func fileOp(op uint32) string {
	return named(op&31, []string{"OPEN", "CLOSE", "READ", "WRITE", "SEEK", "UNLINK", "RENAME", "DUP", "SYNC", "LOCK", "UNLOCK"})
}

func ioFlags(op uint32) string {
	f := op &^ 31
	if f == 0 {
		return "EMPTY"
	}
	var b []byte
	for i, name := range []string{"IOFAILED", "ASYNC", "COLL", "DIRECT", "SYNC", "ISREADLOCK"} {
		bit := uint32(32) << i
		if f&bit != 0 {
			if len(b) > 0 {
				b = append(b, ", "...)
			}
			b = append(b, name...)
			f &^= bit
		}
	}
	if f != 0 {
		if len(b) > 0 {
			b = append(b, ", "...)
		}
		b = append(b, "UNKNOWN <"...)
		b = strconv.AppendUint(b, uint64(f), 10)
		b = append(b, '>')
	}
	return string(b)
}

func (p *printer) counterValue(counter uint32, v uint64) string {
	props, ok := p.props[counter]
	if !ok {
		props = 0
	}
	switch props & 480 {
	case 0, 64, 128:
		return strconv.FormatUint(v, 10)
	case 32, 96, 160:
		return strconv.FormatInt(int64(v), 10)
	case 256:
		return strconv.FormatFloat(float64(math.Float32frombits(uint32(v))), 'f', 6, 64)
	case 288:
		return strconv.FormatFloat(math.Float64frombits(v), 'f', 6, 64)
	}
	return fmt.Sprintf("INVALID TYPE <%08x>", v)
}

func (p *printer) keyValues(rec *otf.Record) {
	kvs := rec.KeyValues()
	if p.c.noKV || len(kvs) == 0 {
		p.w.WriteByte('\n')
		return
	}
	b := append(p.buf[:0], ", KeyValue: "...)
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
	b = append(b, '\n')
	p.buf = b
	p.w.Write(b)
}
