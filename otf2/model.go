package otf2

import (
	"fmt"
	"iter"
	"math"

	"github.com/hpctrace/hpctrace/internal/kmerge"
	"github.com/hpctrace/hpctrace/model"
)

// A ModelSource adapts an archive to [model.Source]. It converts the
// definitions when it is made and then yields the events of the selected
// locations merged by (time, location, file order).
//
// Mapping: ClockProperties.timerResolution → TimeBase, its globalOffset
// and globalOffset + traceLength → Bounds (Start, End); every Location →
// model Location (Native = location id; Process = the index of its
// location group among the groups in definition order; Thread = its index
// within the group, so OpenMP and pthread threads are locations of one
// process; MPI when the MPI paradigm's COMM_LOCATIONS group, the world's
// ranks in order, lists a location of the group at the group's index, as
// measurement systems write them; Stream 0, each location's events being
// a file of its own); Region → Region (Native = region id; File and Line from the
// source file and begin line; Group = the paradigm's name; Paradigm from
// the paradigm: USER, COMPILER and SAMPLING → User, MPI → MPI, OPENMP →
// OpenMP, the thread libraries → Threads, CUDA, HIP, OpenCL, OpenACC, HMPP
// and Kokkos → Accelerator, MEASUREMENT_SYSTEM → Measurement, UNKNOWN and
// NONE → Unknown, the others → Other; Kind Comm for MPI point-to-point
// roles, Collective for MPI collective and barrier roles, IO for file I/O,
// Loop for loops, Function for functions and wrappers, else Other); Comm →
// Comm with its members' locations in rank order (through the
// COMM_LOCATIONS group of its paradigm); MetricMember → Counter
// (Accumulating for the ACCUMULATED modes, Float for DOUBLE values); when
// the archive defines
// parameters, every Parameter's name and every String (the values of
// string parameters) is interned in definition order, so that the sources
// of one archive agree on their string ids.
//
// Events: Enter/Leave (the Leave keeps the region it names, and closes
// the innermost open region whatever it names, as [model.KindLeave]
// defines: Score-P names the region of the Enter, but APEX, the HPX
// tracer, renames a task after it starts and its Leave names the new
// name, so about a third of an HPX trace's Leaves name another region
// than their Enter); MpiSend, MpiIsend → Send (at the send or the
// issue; Peer is the receiver's location, SyncMode unset); MpiIsendComplete
// → SendDone; MpiIrecvRequest → RecvPost (Peer 0, Tag 0, Comm 0: OTF2
// records the envelope only at the completion); MpiRecv, MpiIrecv (the
// completion carrying the envelope) → Recv; NonBlockingCollectiveRequest
// → CollPost (Region = the region entered last; no communicator: OTF2
// records the operation only at the completion);
// NonBlockingCollectiveComplete → CollDone with its operation's class,
// communicator, root, bytes sent and received, and the Region of its
// request's CollPost. The request of MpiIsend,
// MpiIsendComplete, MpiIrecvRequest, MpiIrecv and the non-blocking
// collective records gives Match = request id
// + 1, so that request 0 is not read as a blocking operation (an undefined
// request id, all ones, gives 0); MpiSend and MpiRecv have Match 0.
// MpiCollectiveBegin … MpiCollectiveEnd → CollBegin at the begin time with
// the end record's operation class, communicator, root, bytes sent and
// received and the region entered last, then CollEnd at the end time
// (Match 0: the per-communicator sequence); Metric → one Counter event per
// value (doubles as their IEEE bits); ProgramBegin, ProgramEnd →
// ProgramBegin, ProgramEnd (the program's name, arguments and exit status
// are not kept); ParameterString, ParameterInt, ParameterUnsignedInt →
// Parameter (Text = the parameter's name; Value = the integer, an unsigned
// one as its bits, or the StringID of the string with Flags StringValue).
// The other request bookkeeping (MpiRequestTest, MpiRequestCancelled),
// OpenMP, thread, RMA, I/O, calling-context and
// unknown records are skipped and counted by Ignored.
//
// # Counts
//
// Every event record of the archive is either converted or counted by
// Ignored: a MpiCollectiveBegin … MpiCollectiveEnd pair gives two events,
// a Metric record one Counter per value (a value without a member is
// counted by Ignored instead), every other record one event or one
// Ignored. So the model events plus Ignored equal the event records
// otf2-print (and examples/otf2print) lists, a Metric record of n values
// counting n. ProgramBegin, ProgramEnd and the Parameter records are
// events, as they are records in otf2-print's listing: a trace of two
// ranks, each with its ProgramBegin and ProgramEnd, has four events more
// than its Enter, Leave and message records. The records a count of model
// events leaves out are those Ignored counts: OpenMP, thread, RMA, I/O,
// calling-context, measurement, request test and cancel records and
// records of unknown kinds.
//
// A ModelSource is not safe for concurrent use.
type ModelSource struct {
	defs    model.Defs
	locs    []*modelLoc
	t       kmerge.Tree[int64] // keys: time, then location rank and index
	rank    []uint32           // rank of each location's model id
	win     int                // location of ev, to advance on Next; -1 if none
	ev      model.Event
	err     error
	ignored int64

	region  map[uint32]model.RegionID
	comm    map[uint32]model.CommID
	loc     map[uint64]model.LocID
	counter map[uint32]model.CounterID
	param   map[uint32]model.StringID // parameter id → its name
	strs    map[uint32]model.StringID // String id → interned string, for string parameters
	a       *Archive
	started bool // the merge is primed (by the first Next)

	// The location of each rank of the communicators seen, built on first
	// use, and the last one asked for.
	peers     map[uint32][]peerLoc
	lastComm  uint32
	lastPeers []peerLoc
	closed    bool

	w    *model.Window // the selection's window; nil for none
	stop bool          // with w: the times ascend, the read ends at the first event at w.To
	done bool          // stopped at w.To
}

// modelLoc converts the events of one location, with a small queue for
// the records one OTF2 record turns into.
type modelLoc struct {
	r      *EventReader
	id     model.LocID
	native uint64 // the location's id in the archive
	// After SeekTime: seeked, and the stack lacks the regions entered
	// before the seek until catchUp has read them (known).
	seeked, known bool
	begun         bool // a MpiCollectiveBegin was read since the seek
	queue         []model.Event
	head          int
	ireq          map[uint64]model.RegionID // non-blocking collectives in flight: request id → the region of their CollPost
	stack         []model.RegionID          // regions entered
	err           error
	last          model.Time // with stop: the time of the last event yielded
	read          bool       // with stop: an event was yielded
}

// ModelOptions configures NewModelSource. A nil or zero value selects
// every event of every location.
type ModelOptions struct {
	// Selection chooses the events the source yields: those of a whole
	// read that Selection.Keep accepts, in the same order and with the
	// same values (see [model.Selection] and [model.Window]). The
	// source opens the event file and reads the local definitions of
	// only the locations Selection.Locations accepts, and seeks to a
	// window's From; see "Selections and windows" at [ModelSource].
	Selection model.Selection
}

// NewModelSource converts a's definitions (the whole archive's, whatever
// opts selects) and opens the event files of the locations opts
// selects. opts may be nil.
//
// The source closes the event files it opens (Close); it never closes a,
// which must stay open while the source is read.
func NewModelSource(a *Archive, opts *ModelOptions) (*ModelSource, error) {
	var o ModelOptions
	if opts != nil {
		o = *opts
	}
	if err := o.Selection.Check(); err != nil {
		return nil, fmt.Errorf("otf2: %w", err)
	}
	if a.closed {
		return nil, ErrClosed
	}
	s := &ModelSource{a: a, region: map[uint32]model.RegionID{}, comm: map[uint32]model.CommID{},
		loc: map[uint64]model.LocID{}, counter: map[uint32]model.CounterID{}, param: map[uint32]model.StringID{},
		strs: map[uint32]model.StringID{}}
	s.convertDefs()
	for _, l := range a.Locations() {
		id, ok := s.loc[l]
		if !ok || !o.Selection.KeepsLocation(id) {
			continue
		}
		r, err := a.EventReader(l)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.locs = append(s.locs, &modelLoc{r: r, id: id, native: l})
	}
	s.rank = locationRanks(len(s.locs), func(i int) uint64 { return uint64(s.locs[i].id) })
	s.win = -1
	if w := o.Selection.Window; w != nil {
		if err := s.window(*w); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// window sets the source to yield the events of w: it seeks to w.From
// and stops at the first event at w.To when each location's times
// ascend, else it filters a read of every event.
func (s *ModelSource) window(w model.Window) error {
	s.w = &w
	ascend, err := s.TimesAscend()
	if err != nil || !ascend {
		return err
	}
	s.stop = true
	if w.From > 0 {
		return s.SeekTime(w.From)
	}
	return nil
}

// SeekTime positions every location at its first event at or after time
// t (a time before 0 is the start), by the bisection of
// [EventReader.SeekTime] (a few reads of its file, then the events of
// one chunk), so that the source yields the events a read from the start
// yields at t or later, with the same values, when each location's times
// do not decrease ([ModelSource.TimesAscend] checks what can be checked
// without decoding). It must be called before the first Next. A window
// of the source's Selection still holds: seeking before its From yields
// nothing earlier than From.
//
// Two conversions need what lies before t, and the source handles both:
// a MpiCollectiveEnd whose MpiCollectiveBegin is before t gives its
// CollEnd alone, as a read from the start does once its CollBegin is
// past; and a CollBegin's region, the region entered last, is found by
// reading the location's events from its start (once, and only for a
// collective met while none of the regions entered after t is open).
func (s *ModelSource) SeekTime(t model.Time) error {
	if s.closed {
		return ErrClosed
	}
	if s.started {
		return fmt.Errorf("otf2: SeekTime after Next")
	}
	for _, l := range s.locs {
		if err := l.r.SeekTime(uint64(max(t, 0))); err != nil {
			return err
		}
		l.seeked = t > 0 // at 0, nothing lies before
	}
	return nil
}

// catchUp sets the stack of l to the regions open before its event of
// number n, read from the start of its file.
func (s *ModelSource) catchUp(l *modelLoc, n uint64) {
	l.known = true
	r, err := s.a.EventReader(l.native)
	if err != nil {
		s.fail(err)
		return
	}
	defer r.Close()
	l.stack = l.stack[:0]
	clear(l.ireq)
	for r.Next() {
		ev := r.Record()
		if ev.Number >= n {
			return
		}
		switch ev.Kind {
		case KindEnter:
			e, _ := ev.Enter()
			l.stack = append(l.stack, s.region[e.Region])
		case KindLeave:
			if k := len(l.stack); k > 0 {
				l.stack = l.stack[:k-1]
			}
		case KindNonBlockingCollectiveRequest, KindNonBlockingCollectiveComplete:
			s.request(l, ev)
		}
	}
	s.fail(r.Err())
}

// fail keeps err as the source's error if it is the first.
func (s *ModelSource) fail(err error) {
	if s.err == nil && err != nil {
		s.err = err
	}
}

func (s *ModelSource) str(id uint32) string {
	t, _ := s.a.Defs.Str(id)
	return t
}

func regionKind(r DefRegion) model.RegionKind {
	switch r.RegionRole {
	case RegionRolePoint2point:
		return model.RegionComm
	case RegionRoleCollOne2all, RegionRoleCollAll2one, RegionRoleCollAll2all, RegionRoleCollOther:
		return model.RegionCollective
	case RegionRoleBarrier, RegionRoleImplicitBarrier:
		if r.Paradigm == ParadigmMPI {
			return model.RegionCollective
		}
		return model.RegionSync
	case RegionRoleFileIO, RegionRoleFileIOMetadata:
		return model.RegionIO
	case RegionRoleLoop:
		return model.RegionLoop
	case RegionRoleFunction, RegionRoleWrapper:
		return model.RegionFunction
	}
	return model.RegionOther
}

func (s *ModelSource) convertDefs() {
	d := s.a.Defs
	if c, ok := d.ClockProperties(); ok {
		s.defs.TimeBase = model.TimeBase{TicksPerSecond: c.TimerResolution}
		s.defs.Bounds = clockBounds(c)
	}
	groups := map[uint32]int32{}
	threads := map[uint32]int32{}
	mpi := mpiGroups(d)
	for _, x := range d.All() {
		switch x.Kind {
		case DefKindLocationGroup:
			g, _ := x.LocationGroup()
			if _, ok := groups[g.Self]; !ok {
				groups[g.Self] = int32(len(groups))
			}
		case DefKindLocation:
			l, _ := x.Location()
			th := threads[l.LocationGroup]
			threads[l.LocationGroup] = th + 1
			s.loc[l.Self] = s.defs.AddLocation(model.Location{Native: int64(l.Self), Name: s.str(l.Name), Process: groups[l.LocationGroup], Thread: th,
				MPI: mpi[l.LocationGroup]})
		case DefKindRegion:
			r, _ := x.Region()
			name := s.str(r.Name)
			if name == "" {
				name = s.str(r.CanonicalName)
			}
			group := ""
			if r.Paradigm != ParadigmNone && r.Paradigm != ParadigmUnknown {
				group = r.Paradigm.String()
			}
			s.region[r.Self] = s.defs.AddRegion(model.Region{Native: int64(r.Self), Name: name, Kind: regionKind(r), Group: group,
				File: s.str(r.SourceFile), Line: int32(min(r.BeginLineNumber, 1<<31-1)), Paradigm: modelParadigm(r.Paradigm)})
		case DefKindMetricMember:
			m, _ := x.MetricMember()
			s.counter[m.Self] = s.defs.AddCounter(model.Counter{Native: int64(m.Self), Name: s.str(m.Name), Unit: s.str(m.Unit),
				Accumulating: m.MetricMode&0x0f == 0, Float: m.ValueType == TypeDouble})
		case DefKindParameter:
			p, _ := x.Parameter()
			s.param[p.Self] = s.defs.Intern(s.str(p.Name))
			if len(s.strs) == 0 {
				s.internStrings()
			}
		}
	}
	for _, x := range d.All() {
		c, ok := x.Comm()
		if !ok {
			continue
		}
		var members []model.LocID
		self := false
		if g, ok := d.Group(c.Group); ok {
			self = g.GroupType == GroupTypeCommSelf
			for rank := range g.Members {
				if l, ok := s.rankLoc(c.Self, uint64(rank)); ok && !self {
					members = append(members, l)
				}
			}
		}
		s.comm[c.Self] = s.defs.AddComm(model.Comm{Native: int64(c.Self), Name: s.str(c.Name), Members: members, Self: self})
	}
}

// clockBounds returns the bounds the clock properties give: from the
// global offset to the offset plus the trace length, saturating at the
// int64 range (model.Time is signed).
func clockBounds(c DefClockProperties) model.Bounds {
	start := min(c.GlobalOffset, math.MaxInt64)
	return model.Bounds{Start: model.Time(start), End: model.Time(start + min(c.TraceLength, math.MaxInt64-start)), Known: true}
}

// mpiGroups returns the location groups that are MPI ranks at their own
// index among the location groups (model.Location.Process): those with
// a location that the MPI paradigm's COMM_LOCATIONS group, the world's
// ranks in order, lists at that index.
func mpiGroups(d *Defs) map[uint32]bool {
	index := map[uint32]int32{}  // location group → its index
	group := map[uint64]uint32{} // location → its group
	var world []uint64
	for _, x := range d.All() {
		switch x.Kind {
		case DefKindLocationGroup:
			g, _ := x.LocationGroup()
			if _, ok := index[g.Self]; !ok {
				index[g.Self] = int32(len(index))
			}
		case DefKindLocation:
			l, _ := x.Location()
			group[l.Self] = l.LocationGroup
		case DefKindGroup:
			if g, _ := x.Group(); g.GroupType == GroupTypeCommLocations && g.Paradigm == ParadigmMPI && world == nil {
				world = g.Members
			}
		}
	}
	var mpi map[uint32]bool
	for rank, m := range world {
		g, ok := group[m]
		if !ok || index[g] != int32(rank) {
			continue
		}
		if mpi == nil {
			mpi = map[uint32]bool{}
		}
		mpi[g] = true
	}
	return mpi
}

// internStrings interns every String definition, in definition order, for
// the values of string parameters.
func (s *ModelSource) internStrings() {
	for _, x := range s.a.Defs.All() {
		if x.Kind == DefKindString {
			id := uint32(x.Value(0))
			s.strs[id] = s.defs.Intern(x.str(0))
		}
	}
}

// modelParadigm maps an OTF2 paradigm to the model's.
func modelParadigm(p Paradigm) model.Paradigm {
	switch p {
	case ParadigmUnknown, ParadigmNone:
		return model.ParadigmUnknown
	case ParadigmUser, ParadigmCompiler, ParadigmSampling:
		return model.ParadigmUser
	case ParadigmMPI:
		return model.ParadigmMPI
	case ParadigmOpenmp:
		return model.ParadigmOpenMP
	case ParadigmPthread, ParadigmWinthread, ParadigmQtthread, ParadigmAcethread, ParadigmTbbthread:
		return model.ParadigmThreads
	case ParadigmCUDA, ParadigmHIP, ParadigmOpencl, ParadigmOpenacc, ParadigmHMPP, ParadigmKokkos:
		return model.ParadigmAccelerator
	case ParadigmMeasurementSystem:
		return model.ParadigmMeasurement
	}
	return model.ParadigmOther
}

// rankLoc resolves a rank of a communicator to a model location.
func (s *ModelSource) rankLoc(comm uint32, rank uint64) (model.LocID, bool) {
	p := s.lastPeers
	if comm != s.lastComm || p == nil {
		var ok bool
		if p, ok = s.peers[comm]; !ok {
			p = s.commPeers(comm)
			if s.peers == nil {
				s.peers = map[uint32][]peerLoc{}
			}
			s.peers[comm] = p
		}
		s.lastComm, s.lastPeers = comm, p
	}
	if rank >= uint64(len(p)) {
		return 0, false
	}
	return p[rank].id, p[rank].ok
}

// peerLoc is the location of one rank of a communicator; ok is false if
// the rank maps to none.
type peerLoc struct {
	id model.LocID
	ok bool
}

// commPeers returns the location of every rank of the communicator comm
// (nil for an unknown communicator), from its group: a group of
// locations, or a group of ranks of the paradigm's first group of
// locations.
func (s *ModelSource) commPeers(comm uint32) []peerLoc {
	d := s.a.Defs
	c, ok := d.Comm(comm)
	if !ok {
		return []peerLoc{}
	}
	g, ok := d.Group(c.Group)
	if !ok {
		return []peerLoc{}
	}
	p := make([]peerLoc, len(g.Members))
	switch g.GroupType {
	case GroupTypeCommLocations, GroupTypeLocations:
		for i, m := range g.Members {
			p[i].id, p[i].ok = s.loc[m]
		}
	case GroupTypeCommGroup:
		for _, x := range d.All() {
			cl, ok := x.Group()
			if !ok || cl.GroupType != GroupTypeCommLocations || cl.Paradigm != g.Paradigm {
				continue
			}
			for i, m := range g.Members {
				if m < uint64(len(cl.Members)) {
					p[i].id, p[i].ok = s.loc[cl.Members[m]]
				}
			}
			break
		}
	}
	return p
}

func collClass(op CollectiveOp) model.Class {
	switch op {
	case CollectiveOpBarrier:
		return model.ClassBarrier
	case CollectiveOpBcast, CollectiveOpScatter, CollectiveOpScatterv:
		return model.ClassOneToAll
	case CollectiveOpGather, CollectiveOpGatherv, CollectiveOpReduce:
		return model.ClassAllToOne
	case CollectiveOpAllgather, CollectiveOpAllgatherv, CollectiveOpAlltoall, CollectiveOpAlltoallv, CollectiveOpAlltoallw,
		CollectiveOpAllreduce, CollectiveOpReduceScatter, CollectiveOpScan, CollectiveOpExscan, CollectiveOpReduceScatterBlock:
		return model.ClassAllToAll
	}
	return model.ClassUnknown
}

// fill converts OTF2 events of l into its queue until it holds at least
// one model event; false at the end or on an error.
func (s *ModelSource) fill(l *modelLoc) bool {
	l.queue, l.head = l.queue[:0], 0
	for len(l.queue) == 0 {
		if !l.r.Next() {
			l.err = l.r.Err()
			return false
		}
		s.convert(l, l.r.Record())
	}
	return true
}

func (s *ModelSource) base(l *modelLoc, ev *Event, k model.Kind) model.Event {
	return model.Event{Time: model.Time(ev.Time), Loc: l.id, Kind: k}
}

func (s *ModelSource) convert(l *modelLoc, ev *Event) {
	switch ev.Kind {
	case KindEnter:
		e, _ := ev.Enter()
		m := s.base(l, ev, model.KindEnter)
		m.Region = s.region[e.Region]
		l.stack = append(l.stack, m.Region)
		l.queue = append(l.queue, m)
	case KindLeave:
		e, _ := ev.Leave()
		m := s.base(l, ev, model.KindLeave)
		m.Region = s.region[e.Region]
		if n := len(l.stack); n > 0 {
			l.stack = l.stack[:n-1]
		}
		l.queue = append(l.queue, m)
	case KindMpiSend, KindMpiIsend:
		m := s.base(l, ev, model.KindSend)
		s.p2p(&m, ev)
		if ev.Kind == KindMpiIsend {
			m.Match = ev.Value(4) + 1
		}
		l.queue = append(l.queue, m)
	case KindMpiRecv, KindMpiIrecv:
		m := s.base(l, ev, model.KindRecv)
		s.p2p(&m, ev)
		if ev.Kind == KindMpiIrecv {
			m.Match = ev.Value(4) + 1
		}
		l.queue = append(l.queue, m)
	case KindMpiIrecvRequest, KindMpiIsendComplete:
		k := model.KindRecvPost
		if ev.Kind == KindMpiIsendComplete {
			k = model.KindSendDone
		}
		m := s.base(l, ev, k)
		m.Match = ev.Value(0) + 1
		l.queue = append(l.queue, m)
	case KindNonBlockingCollectiveRequest, KindNonBlockingCollectiveComplete:
		s.nonBlockingColl(l, ev)
	case KindProgramBegin:
		l.queue = append(l.queue, s.base(l, ev, model.KindProgramBegin))
	case KindProgramEnd:
		l.queue = append(l.queue, s.base(l, ev, model.KindProgramEnd))
	case KindParameterString, KindParameterInt, KindParameterUnsignedInt:
		m := s.base(l, ev, model.KindParameter)
		m.Text = s.param[uint32(ev.Value(0))]
		m.Value = int64(ev.Value(1))
		if ev.Kind == KindParameterString {
			m.Value = int64(s.strs[uint32(ev.Value(1))])
			m.Flags = model.StringValue
		}
		l.queue = append(l.queue, m)
	case KindMpiCollectiveBegin:
		l.begun = true
		s.collective(l, ev)
	case KindMpiCollectiveEnd:
		if l.seeked && !l.begun {
			// the end of a collective begun before the seek
			l.queue = append(l.queue, s.base(l, ev, model.KindCollEnd))
			return
		}
		s.ignored++
	case KindMetric:
		x, _ := ev.Metric()
		var members []uint64
		if d, ok := s.a.Defs.Lookup(DefKindMetricClass, uint64(x.Metric)); ok {
			if c, ok := d.MetricClass(); ok {
				members = c.MetricMembers
			} else if in, ok := d.MetricInstance(); ok {
				if c, ok := s.a.Defs.MetricClass(in.MetricClass); ok {
					members = c.MetricMembers
				}
			}
		}
		for i, v := range x.MetricValues {
			if i >= len(members) {
				s.ignored++
				continue
			}
			m := s.base(l, ev, model.KindCounter)
			m.Counter = s.counter[uint32(members[i])]
			m.Value = int64(v)
			l.queue = append(l.queue, m)
		}
	default:
		s.ignored++
	}
}

// p2p fills the message fields of MpiSend/MpiIsend/MpiRecv/MpiIrecv
// (their first four fields: peer rank, communicator, tag, length).
func (s *ModelSource) p2p(m *model.Event, ev *Event) {
	comm := uint32(ev.Value(1))
	m.Comm = s.comm[comm]
	m.Peer, _ = s.rankLoc(comm, ev.Value(0))
	m.Tag = int32(uint32(ev.Value(2)))
	m.Bytes = int64(ev.Value(3))
}

// nonBlockingColl converts NonBlockingCollectiveRequest to CollPost (Match
// = request + 1, Region = the region entered last) and
// NonBlockingCollectiveComplete to CollDone with the completion's fields
// and the region of its request's CollPost (0 if the request was not
// read, as after a seek).
func (s *ModelSource) nonBlockingColl(l *modelLoc, ev *Event) {
	req := ev.Value(0) // NonBlockingCollectiveRequest
	if ev.Kind == KindNonBlockingCollectiveComplete {
		req = ev.Value(5)
	}
	if req == ^uint64(0) {
		s.ignored++ // an undefined request names no collective
		return
	}
	if l.seeked && !l.known && (len(l.stack) == 0 || ev.Kind == KindNonBlockingCollectiveComplete) {
		s.catchUp(l, ev.Number) // the regions and requests of before the seek
	}
	region := s.request(l, ev)
	if ev.Kind == KindNonBlockingCollectiveRequest {
		m := s.base(l, ev, model.KindCollPost)
		m.Match, m.Region = req+1, region
		l.queue = append(l.queue, m)
		return
	}
	x, _ := ev.NonBlockingCollectiveComplete()
	m := s.base(l, ev, model.KindCollDone)
	m.Match, m.Region = req+1, region
	m.Comm, m.Class = s.comm[x.Communicator], collClass(x.CollectiveOp)
	m.Bytes, m.Recvd = int64(x.SizeSent), int64(x.SizeReceived)
	if x.Root < 0xfffffffd {
		m.Peer, _ = s.rankLoc(x.Communicator, uint64(x.Root))
	}
	l.queue = append(l.queue, m)
}

// request keeps the region of a NonBlockingCollectiveRequest (the region
// entered last) for its completion and returns it; for a
// NonBlockingCollectiveComplete it returns and forgets its request's (0 if
// the request was not read).
func (s *ModelSource) request(l *modelLoc, ev *Event) model.RegionID {
	if ev.Kind == KindNonBlockingCollectiveRequest {
		var r model.RegionID
		if n := len(l.stack); n > 0 {
			r = l.stack[n-1]
		}
		if l.ireq == nil {
			l.ireq = map[uint64]model.RegionID{}
		}
		l.ireq[ev.Value(0)] = r
		return r
	}
	r := l.ireq[ev.Value(5)]
	delete(l.ireq, ev.Value(5))
	return r
}

// collective reads ahead to the MpiCollectiveEnd of a MpiCollectiveBegin,
// keeping the events between them, and queues CollBegin, those events and
// CollEnd.
func (s *ModelSource) collective(l *modelLoc, begin *Event) {
	bt := begin.Time
	region := model.RegionID(0)
	if len(l.stack) == 0 && l.seeked && !l.known {
		s.catchUp(l, begin.Number)
	}
	if n := len(l.stack); n > 0 {
		region = l.stack[n-1]
	}
	start := len(l.queue)
	l.queue = append(l.queue, model.Event{}) // the CollBegin, filled at the end
	for l.r.Next() {
		ev := l.r.Record()
		if ev.Kind != KindMpiCollectiveEnd {
			s.convert(l, ev)
			continue
		}
		e, _ := ev.MpiCollectiveEnd()
		b := model.Event{Time: model.Time(bt), Loc: l.id, Kind: model.KindCollBegin, Region: region,
			Comm: s.comm[e.Communicator], Class: collClass(e.CollectiveOp), Bytes: int64(e.SizeSent), Recvd: int64(e.SizeReceived)}
		if e.Root < 0xfffffffd {
			b.Peer, _ = s.rankLoc(e.Communicator, uint64(e.Root))
		}
		l.queue[start] = b
		l.queue = append(l.queue, model.Event{Time: model.Time(ev.Time), Loc: l.id, Kind: model.KindCollEnd})
		return
	}
	// no end: the begin stays unmatched
	l.queue = append(l.queue[:start], l.queue[start+1:]...)
	s.ignored++
}

func (s *ModelSource) advance(i int) bool {
	l := s.locs[i]
	if l.head+1 < len(l.queue) {
		l.head++
		return true
	}
	if s.fill(l) {
		return true
	}
	if l.err != nil && s.err == nil {
		s.err = l.err
	}
	return false
}

// key moves location i to its next event and returns its merge key, Done
// at the end or on an error (which advance keeps).
func (s *ModelSource) key(i int) kmerge.Key[int64] {
	if !s.advance(i) {
		return kmerge.Done[int64]()
	}
	l := s.locs[i]
	return kmerge.MakeKey(int64(l.queue[l.head].Time), s.rank[i], i)
}

// Next advances to the next selected event.
func (s *ModelSource) Next() bool {
	if s.closed {
		s.fail(ErrClosed)
		return false
	}
	for s.next() {
		if s.w == nil {
			return true
		}
		tm := s.ev.Time
		if s.stop {
			l := s.locs[s.win]
			if l.read && tm < l.last {
				s.done = true
				s.err = fmt.Errorf("otf2: window [%d, %d): location %d: time %d after %d: its times go back, so a window (which seeks to From and ends at To) may miss events; read the archive without a window and filter it: %w", s.w.From, s.w.To, l.native, tm, l.last, ErrTimeOrder)
				return false
			}
			l.last, l.read = tm, true
			if s.w.To != 0 && tm >= s.w.To {
				s.done = true
				return false
			}
		}
		if s.w.Contains(tm) {
			return true
		}
	}
	return false
}

// next advances the merge of the locations to its next event.
func (s *ModelSource) next() bool {
	if s.err != nil || s.done {
		return false
	}
	if !s.started {
		// The merge starts here, not in NewModelSource, so that SeekTime
		// can position the locations first.
		s.started = true
		s.t.Start(len(s.locs), s.key)
	}
	w := s.t.Winner()
	if s.win >= 0 {
		w = s.t.Push(s.win, s.key(s.win))
	}
	if w.Done() || s.err != nil {
		s.win = -1
		return false
	}
	s.win = w.Source()
	l := s.locs[s.win]
	s.ev = l.queue[l.head]
	return true
}

// Event returns the current event, valid until the next Next.
func (s *ModelSource) Event() *model.Event { return &s.ev }

// Err returns the first error; nil after a clean end.
func (s *ModelSource) Err() error { return s.err }

// Defs returns the converted definitions.
func (s *ModelSource) Defs() *model.Defs { return &s.defs }

// All returns a single-use iterator over the remaining events.
func (s *ModelSource) All() iter.Seq2[*model.Event, error] { return model.All(s) }

// Ignored returns the number of OTF2 records (and metric values without a
// member) skipped so far.
func (s *ModelSource) Ignored() int64 { return s.ignored }

// Close closes the event files the source opened, not the Archive it
// was made from. A second Close returns nil; Next after Close returns
// false, and Err then returns ErrClosed.
func (s *ModelSource) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	var first error
	for _, l := range s.locs {
		if err := l.r.Close(); err != nil && first == nil {
			first = fmt.Errorf("otf2: %w", err)
		}
	}
	return first
}
