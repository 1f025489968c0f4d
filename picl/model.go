package picl

import (
	"fmt"
	"iter"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hpctrace/hpctrace/model"
)

// ModelOptions configures a ModelSource. A nil or zero value means defaults.
type ModelOptions struct {
	// TicksPerSecond is the model's clock: 0 means 1_000_000 (PICL's
	// microseconds). Timestamps are rounded to the nearest tick.
	TicksPerSecond uint64
	// Selection chooses the events the source yields: those of a read of
	// the whole stream (from the Reader's current record on) that
	// Selection.Keep accepts, in the same order and with the same values;
	// the definitions are the whole stream's. A PICL file has no index and
	// its order is not time order, so the source reads every record and
	// filters: a selection saves no reading, and a window does not end the
	// read at To. Locations are the model's ids (processor and process
	// pairs numbered in the order they first appear, as the whole read
	// numbers them).
	Selection model.Selection
}

// A ModelSource presents a PICL trace as a [model.Source], following the
// PICL mapping of doc/stats.md §2.5:
//
//   - A location is a (processor, process) pair; processor 32767 is the host
//     (Location.Host). Location.Native and Location.Process are the
//     processor id, Location.Thread the process id. A -5 label with event
//     type -1 names the location. Location.MPI is false (a processor is
//     not an MPI rank) and Location.Stream 0.
//   - A region is an event type (Region.Native, e.g. -52), named by its -5
//     label or else by [EventType.String]; its kind follows the event's
//     category. Its Paradigm is MPI for the message-passing types (sends,
//     receives, the other communication types, sync0 and the other
//     synchronization types, MPICL's MPI and communicator types): PICL's
//     message-passing primitives play MPI's part, so that analyses that
//     look for MPI calls ([model.Region.MPI]) find them; User for user
//     event types (0 and up), IO for file I/O, Measurement for the tracing
//     types, else Unknown. PICL records no posting of a receive and no
//     completion of a send apart from the call: the source yields no
//     RecvPost and no SendDone, and Match is 0.
//   - -3 entry and -4 exit records are Enter and Leave events, -2 marks are
//     Markers of their region. An exit names the event type of its entry
//     in what MPICL and PICL write; one naming another type still closes
//     the innermost open region ([model.KindLeave]).
//   - A send entry with length, type and destination is followed by a Send
//     (Peer = the destination processor and process, or the sender's
//     process when the record omits it; Tag = type; Bytes = length). The
//     send entries are the format's -21 and -27 and MPICL's -22, -23, -24
//     (MPI_Bsend, MPI_Ssend, MPI_Rsend) and -33, -39, -45 (their
//     nonblocking begins); MPI_Ssend and its begin set model.SyncMode.
//   - A -51, -52, -56, -58, -60 or -61 exit with length, type and source is
//     preceded by a Recv; -52, -56 and -61 set model.Waited, the others
//     model.NotWaited.
//   - A -402 barrier entry is followed by a CollBegin (ClassBarrier), its
//     exit preceded by the CollEnd. So are the entries and exits of MPICL's
//     collectives: MPI_Bcast and MPI_Scatter (ClassOneToAll), MPI_Gather
//     and MPI_Reduce (ClassAllToOne), MPI_Allgather, MPI_Allreduce,
//     MPI_Alltoall, MPI_Reduce_scatter and MPI_Scan (ClassAllToAll). Their
//     data are not documented, so the CollBegin has no root or sizes.
//   - A barrier whose first field names a processor subset defined by a
//     -201 record that holds the entering processor runs on a
//     communicator of that subset's locations: Members are the locations
//     of its processors with the entering record's process, in the
//     subset's order (defined, and the locations with them, at the first
//     such barrier; Native is the subset id, Name "processor subset ID").
//     Such communicators hold at most 8 times as many members as the -201
//     records list processors (8 processes per subset); past that, as
//     for an undefined subset, the barrier has Comm 0.
//     Every other collective (subset -1, everybody; no field; MPICL's) has
//     Comm 0: all processors, a membership the definitions do not list.
//     Match is the location's count of collectives on the same
//     communicator (barriers included): the k-th collective of each
//     location on a communicator are one instance.
//   - User records (record type >= 0) are Markers whose Text is
//     "user record N"; -7 messages are Markers whose Text is the message.
//   - -101, -102 and -103 statistics become [model.Recorded] values in
//     Defs().Recorded (Time, Count, Volume; RelativeTo is the record's event
//     type, Region the described event type or event-subset id, Loc 0 for
//     records whose location is a wildcard or subset, Unknown for -1).
//   - -203 event subsets become [model.Subset] definitions.
//   - Defs().Relative holds PICL's conventions for those statistics
//     ([RelativeStats]), so that package stats recomputes them from the
//     events: relative to -1 and to every event type the trace's own
//     statistics records are relative to. Those records usually end the
//     file, so when r was opened by [Open] or [OpenFS] and has not read
//     yet, NewModelSource scans the file for them (through io.ReaderAt,
//     leaving r where it is; it parses only the statistics, descriptor and
//     subset records); otherwise, as for a Reader made by [NewReader],
//     they are relative to -1 alone.
//
// Not mapped: -201/-202 processor and process subsets (the model has no such
// definition), labels that arrive after their region or location was
// created (the model's definitions cannot be renamed), -913/-914 beyond
// their Marker (the model has no diagnostics), and records with a wildcard
// or subset location other than statistics and labels.
//
// Events come in file order. For a trace sorted by time (as ParaGraph needs
// and [Sort] makes) that is a time order, but ties between locations keep
// their file order rather than the model's (Time, Loc) merge order. A
// window (ModelOptions.Selection) keeps or drops each event by its own
// time, in that order, as [model.Window] says; since the file need not be
// sorted, the whole file is read whatever the window.
//
// A ModelSource allocates nothing per event in the steady state: definitions
// and interned strings are added once, statistics records append to
// Defs().Recorded. It is not safe for concurrent use.
type ModelSource struct {
	r        *Reader
	defs     model.Defs
	locs     map[[2]int32]model.LocID
	barriers map[collSeq]uint64     // collectives (barriers and MPICL's) begun per location and communicator
	lastColl map[model.LocID]uint64 // Match of the location's last collective begun
	locNames map[[2]int32]string    // labels of locations not yet created
	names    map[EventType]string   // labels of regions not yet created
	userText map[RecordType]model.StringID
	queue    [2]model.Event
	qi, qn   int
	ev       model.Event
	err      error
	sel      model.Selection
	filter   bool // sel selects something less than everything
	closed   bool

	// Processor subsets (-201) by id, and the communicators made of them
	// by (subset id, process).
	procSubsets map[int32][]int32
	subsetComms map[[2]int32]model.CommID
	// Processors listed by -201 records, and members of the
	// communicators made of them: at most subsetCommsPerProc times as
	// many, so that their definitions stay linear in the input.
	subsetProcs, subsetMembers int
}

// NewModelSource returns a model source reading r from its current record
// on. It fails only on invalid options (an empty window among them). The
// source does not own r: its Close closes nothing, and r (with the file
// Open opened) is the caller's to close.
func NewModelSource(r *Reader, opts *ModelOptions) (*ModelSource, error) {
	var o ModelOptions
	if opts != nil {
		o = *opts
	}
	if o.TicksPerSecond == 0 {
		o.TicksPerSecond = 1_000_000
	}
	if o.TicksPerSecond > 1e15 {
		return nil, fmt.Errorf("picl: ModelOptions.TicksPerSecond %d too large", o.TicksPerSecond)
	}
	if err := o.Selection.Check(); err != nil {
		return nil, fmt.Errorf("picl: ModelOptions.Selection: %w", err)
	}
	s := &ModelSource{
		r:        r,
		locs:     make(map[[2]int32]model.LocID),
		barriers: make(map[collSeq]uint64),
		lastColl: make(map[model.LocID]uint64),
		locNames: make(map[[2]int32]string),
		names:    make(map[EventType]string),
		userText: make(map[RecordType]model.StringID),
		sel:      o.Selection,
		filter:   !o.Selection.IsZero(),
	}
	s.defs.TimeBase = model.TimeBase{TicksPerSecond: o.TicksPerSecond}
	rel, _ := fileRelativeTo(r) // nil (relative to -1) when r cannot be scanned
	s.defs.Relative = RelativeStats(rel...)
	return s, nil
}

// Defs returns the definitions met so far. A definition is added before
// the first event that uses it.
func (s *ModelSource) Defs() *model.Defs { return &s.defs }

// Event returns the current event. It is valid until the next call to Next;
// copy the value to keep it. Before the first Next it is a zero Event.
func (s *ModelSource) Event() *model.Event { return &s.ev }

// Err returns the reader's error, if any; nil after a clean end.
func (s *ModelSource) Err() error { return s.err }

// All returns a single-use iterator over the remaining events; see
// [model.All].
func (s *ModelSource) All() iter.Seq2[*model.Event, error] { return model.All(s) }

// Close ends the source. A ModelSource opened nothing, so it closes
// nothing: the Reader given to NewModelSource, and the file under it, are
// the caller's to close. After Close, Next returns false and Err returns
// ErrClosed unless it already returned another error. Close returns nil,
// the second time too.
func (s *ModelSource) Close() error {
	s.closed = true
	return nil
}

// Next advances to the next event selected by ModelOptions.Selection,
// reading records as needed.
func (s *ModelSource) Next() bool {
	if s.closed {
		if s.err == nil {
			s.err = ErrClosed
		}
		s.ev = model.Event{}
		return false
	}
	for {
		for s.qi == s.qn {
			if s.err != nil {
				s.ev = model.Event{}
				return false
			}
			if !s.r.Next() {
				s.err = s.r.Err()
				s.ev = model.Event{}
				return false
			}
			s.qi, s.qn = 0, 0
			s.record(s.r.Record())
		}
		s.ev = s.queue[s.qi]
		s.qi++
		if !s.filter || s.sel.Keep(&s.ev) {
			return true
		}
	}
}

func (s *ModelSource) push(ev model.Event) {
	s.queue[s.qn] = ev
	s.qn++
}

// loc returns the location of (processor, process), defining it if new.
func (s *ModelSource) loc(proc, process int32) model.LocID {
	key := [2]int32{proc, process}
	if id, ok := s.locs[key]; ok {
		return id
	}
	name := s.locNames[key]
	if name == "" {
		name = s.locNames[[2]int32{proc, -1}] // a label for all processes of the processor
	}
	if name == "" {
		name = "processor " + strconv.Itoa(int(proc))
		if process != 0 {
			name += " process " + strconv.Itoa(int(process))
		}
	}
	id := s.defs.AddLocation(model.Location{Native: int64(proc), Name: name, Process: proc, Thread: process, Host: proc == Host})
	s.locs[key] = id
	return id
}

// region returns the region of event type e, defining it if new.
func (s *ModelSource) region(e EventType) model.RegionID {
	if id, ok := s.defs.RegionByNative(int64(e)); ok {
		return id
	}
	name := s.names[e]
	if name == "" {
		name = e.String()
	}
	paradigm := regionParadigm(e)
	if paradigm == model.ParadigmUser && strings.HasPrefix(name, "MPI_") {
		// a user type named after an MPI call (how ModelWriter keeps
		// MPI calls): an MPI call, as Region.MPI's name rule says
		paradigm = model.ParadigmMPI
	}
	return s.defs.AddRegion(model.Region{Native: int64(e), Name: name, Kind: regionKind(e), Paradigm: paradigm})
}

// isSendEntry reports whether an entry of event type e carries a sent
// message's length, type and destination: the format's -21 and -27 and
// MPICL's blocking and nonblocking buffered, synchronous and ready sends.
func isSendEntry(e EventType) bool {
	switch e {
	case EventSend, EventSendBegin, EventBsend, EventBsendBegin, EventSsend, EventSsendBegin, EventRsend, EventRsendBegin:
		return true
	}
	return false
}

// collClass returns the collective class of a barrier or one of MPICL's
// collectives.
func collClass(e EventType) (model.Class, bool) {
	switch e {
	case EventBarrier:
		return model.ClassBarrier, true
	case EventMPIBcast, EventMPIScatter:
		return model.ClassOneToAll, true
	case EventMPIGather, EventMPIReduce:
		return model.ClassAllToOne, true
	case EventMPIAllgather, EventMPIAllreduce, EventMPIAlltoall, EventMPIReduceScatter, EventMPIScan:
		return model.ClassAllToAll, true
	}
	return 0, false
}

// regionParadigm returns the paradigm of event type e's region: MPI for
// the message-passing types (communication -11 … -200, synchronization
// -401 … -500 such as sync0, MPICL's MPI and communicator types), whose
// primitives play MPI's part in a PICL trace; User for user event types;
// IO for file I/O; Measurement for the tracing types; else Unknown.
func regionParadigm(e EventType) model.Paradigm {
	if _, ok := collClass(e); ok {
		return model.ParadigmMPI
	}
	switch {
	case e.IsUser():
		return model.ParadigmUser
	case e.IsComm(), e.IsSync(), e.IsMPI(), e.IsMPIContext():
		return model.ParadigmMPI
	case e.IsFileIO():
		return model.ParadigmIO
	case e.IsTracing():
		return model.ParadigmMeasurement
	}
	return model.ParadigmUnknown
}

func regionKind(e EventType) model.RegionKind {
	if _, ok := collClass(e); ok {
		return model.RegionCollective
	}
	switch {
	case e.IsUser():
		return model.RegionUser
	case e.IsComm():
		return model.RegionComm
	case e.IsFileIO():
		return model.RegionIO
	case e.IsSync():
		return model.RegionSync
	case e.IsTracing():
		return model.RegionTracing
	}
	return model.RegionOther
}

// intAt returns value i of a record's data if it is a present integer.
func intAt(rec *Record, i int) (int64, bool) {
	if i >= len(rec.Data) || rec.Data[i].Kind != KindInt {
		return 0, false
	}
	return rec.Data[i].Int, true
}

func (s *ModelSource) record(rec *Record) {
	switch {
	case rec.Type == RecordLabel:
		s.label(rec)
		return
	case rec.Type.IsStatistics():
		s.statistics(rec)
		return
	case rec.Type == RecordProcessorSubset:
		s.processorSubset(rec)
		return
	case rec.Type == RecordEventSubset:
		if rec.Flags == 0 && len(rec.Data) > 0 {
			members := make([]int64, 0, len(rec.Data)-1)
			for _, v := range rec.Data {
				if v.Kind != KindInt {
					return
				}
			}
			for _, v := range rec.Data[1:] {
				members = append(members, v.Int)
			}
			s.defs.AddSubset(model.Subset{Native: rec.Data[0].Int, Members: members})
		}
		return
	}
	if rec.Processor < 0 || !(rec.Type.IsUser() || rec.Type == RecordMessage || rec.Type == RecordMark ||
		rec.Type == RecordEntry || rec.Type == RecordExit) {
		return // no event: a wildcard or subset location, a definition, a reserved type
	}
	t := s.defs.TimeBase.FromSeconds(rec.Time)
	ev := model.Event{Time: t, Loc: s.loc(rec.Processor, rec.Process)}
	switch {
	case rec.Type.IsUser():
		ev.Kind = model.KindMarker
		ev.Text = s.userMarker(rec.Type)
		s.push(ev)
	case rec.Type == RecordMessage:
		ev.Kind = model.KindMarker
		ev.Text = s.defs.InternBytes(rec.Chars)
		s.push(ev)
	case rec.Type == RecordMark:
		ev.Kind, ev.Region = model.KindMarker, s.region(rec.Event)
		s.push(ev)
	case rec.Type == RecordEntry:
		ev.Kind, ev.Region = model.KindEnter, s.region(rec.Event)
		s.push(ev)
		if class, ok := collClass(rec.Event); ok {
			comm := s.barrierComm(rec)
			k := collSeq{ev.Loc, comm}
			s.barriers[k]++
			s.lastColl[ev.Loc] = s.barriers[k]
			s.push(model.Event{Time: t, Loc: ev.Loc, Kind: model.KindCollBegin, Region: ev.Region, Comm: comm,
				Class: class, Match: s.barriers[k]})
			break
		}
		if isSendEntry(rec.Event) {
			length, ok1 := intAt(rec, 0)
			tag, ok2 := intAt(rec, 1)
			dest, ok3 := intAt(rec, 2)
			if ok1 && ok2 && ok3 && dest >= 0 && dest <= math.MaxInt32 {
				process := rec.Process
				if p, ok := intAt(rec, 3); ok && p >= 0 && p <= math.MaxInt32 {
					process = int32(p)
				}
				send := model.Event{Time: t, Loc: ev.Loc, Kind: model.KindSend, Peer: s.loc(int32(dest), process), Tag: int32(tag)}
				if rec.Event == EventSsend || rec.Event == EventSsendBegin {
					send.Flags |= model.SyncMode
				}
				setBytes(&send, length)
				s.push(send)
			}
		}
	case rec.Type == RecordExit:
		region := s.region(rec.Event)
		switch rec.Event {
		case EventRecv, EventRecvWait, EventMsgWaitBlocked, EventRecvStatus, EventRecvEnd, EventRecvEndWait:
			length, ok1 := intAt(rec, 0)
			tag, ok2 := intAt(rec, 1)
			src, ok3 := intAt(rec, 2)
			if ok1 && ok2 && ok3 && src >= 0 && src <= math.MaxInt32 {
				process := rec.Process
				if p, ok := intAt(rec, 3); ok && p >= 0 && p <= math.MaxInt32 {
					process = int32(p)
				}
				recv := model.Event{Time: t, Loc: ev.Loc, Kind: model.KindRecv, Peer: s.loc(int32(src), process), Tag: int32(tag)}
				setBytes(&recv, length)
				if rec.Event.IsBlocked() {
					recv.Flags |= model.Waited
				} else {
					recv.Flags |= model.NotWaited
				}
				s.push(recv)
			}
		default:
			if _, ok := collClass(rec.Event); ok {
				s.push(model.Event{Time: t, Loc: ev.Loc, Kind: model.KindCollEnd, Match: s.lastColl[ev.Loc]})
			}
		}
		ev.Kind, ev.Region = model.KindLeave, region
		s.push(ev)
	}
}

// subsetCommsPerProc bounds the members of processor-subset communicators
// per processor listed in -201 records.
const subsetCommsPerProc = 8

// collSeq keys the count of a location's collectives on a communicator.
type collSeq struct {
	loc  model.LocID
	comm model.CommID
}

// processorSubset keeps a -201 processor subset definition: an id, then
// processor ids (duplicates dropped). A definition whose values are not
// all integers, or whose processors are out of range, is ignored; a later
// definition of an id replaces the earlier one for the barriers after it.
func (s *ModelSource) processorSubset(rec *Record) {
	if len(rec.Data) == 0 {
		return
	}
	for i, v := range rec.Data {
		if v.Kind != KindInt || v.Int < math.MinInt32 || v.Int > math.MaxInt32 || (i > 0 && v.Int < 0) {
			return
		}
	}
	id := int32(rec.Data[0].Int)
	procs := make([]int32, 0, len(rec.Data)-1)
	for _, v := range rec.Data[1:] {
		if p := int32(v.Int); !slices.Contains(procs, p) {
			procs = append(procs, p)
		}
	}
	if s.procSubsets == nil {
		s.procSubsets = make(map[int32][]int32)
	}
	s.procSubsets[id] = procs
	s.subsetProcs += len(procs)
	for k := range s.subsetComms {
		if k[0] == id {
			delete(s.subsetComms, k)
		}
	}
}

// barrierComm returns the communicator of a collective entry: for a
// barrier over a defined processor subset that holds the entering
// processor, the subset's locations (with the entry's process); else 0.
func (s *ModelSource) barrierComm(rec *Record) model.CommID {
	id, ok := intAt(rec, 0)
	if rec.Event != EventBarrier || !ok || id == -1 || id < math.MinInt32 || id > math.MaxInt32 {
		return 0
	}
	procs, ok := s.procSubsets[int32(id)]
	if !ok || !slices.Contains(procs, rec.Processor) {
		return 0
	}
	k := [2]int32{int32(id), rec.Process}
	if c, ok := s.subsetComms[k]; ok {
		return c
	}
	if s.subsetMembers+len(procs) > subsetCommsPerProc*s.subsetProcs {
		return 0
	}
	s.subsetMembers += len(procs)
	members := make([]model.LocID, len(procs))
	for i, p := range procs {
		members[i] = s.loc(p, rec.Process)
	}
	c := s.defs.AddComm(model.Comm{Native: id, Name: "processor subset " + strconv.FormatInt(id, 10), Members: members})
	if s.subsetComms == nil {
		s.subsetComms = make(map[[2]int32]model.CommID)
	}
	s.subsetComms[k] = c
	return c
}

// setBytes sets a message's size; a negative length (-1: unknown) sets
// model.BytesUnknown.
func setBytes(ev *model.Event, length int64) {
	if length < 0 {
		ev.Flags |= model.BytesUnknown
		return
	}
	ev.Bytes = length
}

func (s *ModelSource) userMarker(t RecordType) model.StringID {
	if id, ok := s.userText[t]; ok {
		return id
	}
	id := s.defs.Intern("user record " + strconv.Itoa(int(t)))
	s.userText[t] = id
	return id
}

// label records a -5 record's name for a region (event type) or, with event
// type -1, a location.
func (s *ModelSource) label(rec *Record) {
	if rec.Chars == nil || rec.Flags != 0 {
		return
	}
	if rec.Event == EventAll {
		if rec.Processor >= 0 {
			s.locNames[[2]int32{rec.Processor, rec.Process}] = string(rec.Chars)
		}
		return
	}
	if rec.Processor != -1 || rec.Process != -1 {
		return // a label scoped to some locations: not a region name
	}
	if _, ok := s.defs.RegionByNative(int64(rec.Event)); !ok {
		s.names[rec.Event] = string(rec.Chars)
	}
}

// statistics appends the pairs of a -101/-102/-103 record to
// Defs().Recorded.
func (s *ModelSource) statistics(rec *Record) {
	kind := model.RecordedTime
	switch rec.Type {
	case RecordStatCount:
		kind = model.RecordedCount
	case RecordStatVolume:
		kind = model.RecordedVolume
	}
	var loc model.LocID
	if rec.Processor >= 0 && rec.Process >= -1 {
		loc = s.loc(rec.Processor, rec.Process)
	}
	t := s.defs.TimeBase.FromSeconds(rec.Time)
	for st := range rec.Stats() {
		r := model.Recorded{Kind: kind, Loc: loc, Time: t, RelativeTo: int64(rec.Event),
			Region: s.region(st.Event), Unknown: st.Unknown}
		if kind == model.RecordedTime {
			r.Value = int64(s.defs.TimeBase.FromSeconds(st.Value))
		} else {
			r.Value = int64(math.Round(math.Max(math.Min(st.Value, math.MaxInt64/2), math.MinInt64/2)))
		}
		s.defs.Recorded = append(s.defs.Recorded, r)
	}
}
