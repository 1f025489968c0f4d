package otf2

import (
	"fmt"
	"strings"

	"github.com/hpctrace/hpctrace/model"
)

// ModelWriterOptions configures a ModelWriter. A nil or zero value means
// libotf2's chunk sizes, the archive name "traces" and times written as
// they are.
type ModelWriterOptions struct {
	// WriterOptions names the archive and sets its chunk sizes and anchor
	// texts; Creator "" means "hpctrace".
	WriterOptions
	// Origin is subtracted from every time: OTF2 times are unsigned, so a
	// trace that starts before 0 (PICL writes negative times before its
	// clock synchronisation) needs its earliest time here. An event
	// before Origin is rejected with an error wrapping ErrRange.
	Origin model.Time
}

// A ModelWriter writes model events as an OTF2 archive through an
// [ArchiveWriter]: one event file per location with events, and the
// global definitions, made from the model's Defs when the writer is
// closed (so definitions a source adds while it is read are all there).
//
// Definitions map as follows; OTF2 ids are the model ids minus 1.
// The time base becomes ClockProperties (1 tick per second when the
// model's is unknown; global offset and trace length from the times
// written). One SystemTreeNode "machine" holds one LocationGroup
// (PROCESS) per model process, named "Process N" in order of the process
// numbers; locations become CPU_THREAD locations of their process's group.
// Regions become Regions with name and canonical name, source file and
// line, a role from the kind (Function → FUNCTION, Loop → LOOP, Comm →
// POINT2POINT, Collective → COLL_OTHER, Sync → BARRIER, IO → FILE_IO,
// others UNKNOWN) and a paradigm from Region.Group when it names one
// ("MPI", "OPENMP", … as [ModelSource] sets it), else from
// Region.Paradigm (User → USER, MPI → MPI, OpenMP → OPENMP, Threads →
// PTHREAD, Accelerator → OPENCL, Measurement → MEASUREMENT_SYSTEM, IO and
// Other → UNKNOWN), else MPI for the regions [model.Region.MPI] accepts
// and communication and collective regions and USER for the rest; the
// obsolete regionType and groupTypePre12 bytes are set as libotf2 sets
// them. Communication uses MPI groups: a COMM_LOCATIONS group of every
// location, and communicator 0 "world" over it (rank = location index).
// Each model Comm becomes communicator id (a COMM_GROUP of its members'
// ranks in world). Counters become a MetricMember (INT64, or DOUBLE for
// Float counters; decimal;
// ACCUMULATED_START for accumulating counters, else ABSOLUTE_POINT) and a
// MetricClass of that one member, both with the counter's id. Each
// parameter name written becomes a Parameter (STRING for the values with
// Flags StringValue, INT64 for the others), numbered in order of first
// use.
//
// Events: Enter, Leave (of the innermost open region, whatever region the
// model's Leave names: [model.ClassifyLeave]); Send → MpiSend and Recv → MpiRecv when Match is
// 0, else MpiIsend and MpiIrecv with request id Match - 1 (the peer as
// its rank in the event's communicator; world when the event has none, it
// is an intercommunicator, or the peer is not one of the communicator's
// members); RecvPost → MpiIrecvRequest and SendDone → MpiIsendComplete,
// request id Match - 1 (so Match 0 becomes the undefined request id,
// which [ModelSource] reads back as 0); ProgramBegin → ProgramBegin with
// an empty program name and no arguments; ProgramEnd → ProgramEnd with
// exit status 0; Parameter → ParameterString (the value as a string) or
// ParameterInt; CollBegin →
// MpiCollectiveBegin at its time and, at the location's next CollEnd, an
// MpiCollectiveEnd with the operation (from the region's name when it
// names an MPI collective, "MPI_Allgather", else from the class:
// BARRIER, BCAST, REDUCE, ALLREDUCE), communicator, root rank (undefined
// without a root), bytes sent and received; Counter → Metric with one
// INT64 (DOUBLE) value; a Marker with a region → a zero-length Enter/Leave of it;
// CollPost → NonBlockingCollectiveRequest and CollDone →
// NonBlockingCollectiveComplete (request id Match - 1; the completion with
// the operation, from the region's name, MPI_Iallreduce's being
// ALLREDUCE, else from the class, and the communicator, root and bytes
// as for CollBegin).
//
// What the conversion loses: native ids; the time origin (see
// ModelWriterOptions.Origin); event Flags (synchronous mode, waited,
// unknown size); message tags beyond 32 bits are kept, negative tags
// become their unsigned 32-bit form; sites (call statements); location
// hosts and names of processes; region kinds beyond the role, and groups
// that name no paradigm; intercommunicators (their messages and
// collectives are on world; the communicator is defined with its local
// group only); counter value types beyond integer and double (unsigned
// values are written as INT64 with their bits kept); the statistics in Defs.Recorded;
// subsets; marker texts; a RecvPost's peer, tag and communicator (OTF2's
// MpiIrecvRequest has none); a CollPost's fields but its request (OTF2's
// NonBlockingCollectiveRequest has none); the program's name, arguments and exit
// status; unsigned parameters (written as INT64 with the same bits).
// Counted by [ModelWriter.Lost] and not written:
// Enters of no region (0), Leaves with no region open, collectives of
// unknown class without an MPI name, CollEnds without a CollBegin and
// CollBegins never ended, markers without a region, CollPosts and
// CollDones without a request (Match 0) and CollDones of unknown class
// without an MPI name.
//
// Memory: one event chunk (WriterOptions.EventChunkSize, 1 MiB by
// default) per location with events, whatever the trace's length, and the
// definitions.
//
// A ModelWriter is not safe for concurrent use.
type ModelWriter struct {
	w      *ArchiveWriter
	defs   *model.Defs
	origin model.Time
	err    error
	closed bool
	lost   int64

	started  bool
	min, max uint64
	locs     []*modelWLoc // by LocID
	ev       [256]*Event  // reusable events by kind

	b      *defBuilder          // strings are numbered as events use them
	params map[[2]uint64]uint64 // (name's string id, STRING or INT64) → parameter id
	pdefs  [][2]uint64          // by parameter id: name's string id, type
}

// modelWLoc is the state of one location's events.
type modelWLoc struct {
	w      *EventWriter
	open   []model.RegionID
	coll   model.Event // the pending CollBegin
	inColl bool
}

// NewModelWriter returns a ModelWriter of the events of a trace with the
// definitions defs, creating the archive's files through c.
func NewModelWriter(c model.Creator, defs *model.Defs, opts *ModelWriterOptions) (*ModelWriter, error) {
	if defs == nil {
		return nil, fmt.Errorf("otf2: NewModelWriter: nil Defs: %w", ErrRange)
	}
	var o ModelWriterOptions
	if opts != nil {
		o = *opts
	}
	if o.Creator == "" {
		o.Creator = "hpctrace"
	}
	aw, err := NewArchiveWriter(c, &o.WriterOptions)
	if err != nil {
		return nil, err
	}
	b := &defBuilder{strs: map[string]uint32{}}
	b.str("")
	return &ModelWriter{w: aw, defs: defs, origin: o.Origin, b: b, params: map[[2]uint64]uint64{}}, nil
}

// Lost returns the number of events not written (see [ModelWriter]).
func (w *ModelWriter) Lost() int64 { return w.lost }

// loc returns the state of location l, opening its event file.
func (w *ModelWriter) loc(l model.LocID) (*modelWLoc, error) {
	if int(l) < len(w.locs) && w.locs[l] != nil {
		return w.locs[l], nil
	}
	if l == 0 {
		return nil, fmt.Errorf("otf2: ModelWriter: event of location 0: %w", ErrRange)
	}
	if _, ok := w.defs.Location(l); !ok {
		return nil, fmt.Errorf("otf2: ModelWriter: event of undefined location %d: %w", l, ErrRange)
	}
	ew, err := w.w.EventWriter(uint64(l - 1))
	if err != nil {
		return nil, err
	}
	for int(l) >= len(w.locs) {
		w.locs = append(w.locs, nil)
	}
	w.locs[l] = &modelWLoc{w: ew}
	return w.locs[l], nil
}

// event returns the reusable event of kind k at time t, its fields zero.
func (w *ModelWriter) event(k Kind, t uint64) *Event {
	e := w.ev[k]
	if e == nil {
		e = NewEvent(k, t)
		w.ev[k] = e
	}
	e.Time, e.RawTime = t, t
	return e
}

// Write writes one event. Events of one location must come in time order.
func (w *ModelWriter) Write(ev *model.Event) error {
	if w.closed {
		return ErrClosed
	}
	if w.err != nil {
		return w.err
	}
	if ev.Time < w.origin {
		w.err = fmt.Errorf("otf2: ModelWriter: event time %d before the origin %d: %w", ev.Time, w.origin, ErrRange)
		return w.err
	}
	t := uint64(ev.Time - w.origin)
	l, err := w.loc(ev.Loc)
	if err != nil {
		w.err = err
		return err
	}
	if err := w.write(l, ev, t); err != nil {
		w.err = err
		return err
	}
	return nil
}

func (w *ModelWriter) put(l *modelWLoc, e *Event) error {
	if err := l.w.Write(e); err != nil {
		return err
	}
	if !w.started || e.Time < w.min {
		w.min = e.Time
	}
	if !w.started || e.Time > w.max {
		w.max = e.Time
	}
	w.started = true
	return nil
}

func (w *ModelWriter) write(l *modelWLoc, ev *model.Event, t uint64) error {
	switch ev.Kind {
	case model.KindEnter:
		if ev.Region == 0 {
			w.lost++
			return nil
		}
		l.open = append(l.open, ev.Region)
		e := w.event(KindEnter, t)
		e.SetValue(0, uint64(ev.Region-1))
		return w.put(l, e)
	case model.KindLeave:
		n := len(l.open)
		var r model.RegionID
		if n > 0 {
			r = l.open[n-1]
		}
		if model.ClassifyLeave(n, r, ev.Region) == model.LeaveUnmatched {
			w.lost++
			return nil
		}
		l.open = l.open[:n-1]
		e := w.event(KindLeave, t)
		e.SetValue(0, uint64(r-1))
		return w.put(l, e)
	case model.KindSend, model.KindRecv:
		k := KindMpiSend
		switch {
		case ev.Kind == model.KindSend && ev.Match != 0:
			k = KindMpiIsend
		case ev.Kind == model.KindRecv && ev.Match == 0:
			k = KindMpiRecv
		case ev.Kind == model.KindRecv:
			k = KindMpiIrecv
		}
		e := w.event(k, t)
		comm, rank := w.rank(ev.Comm, ev.Peer)
		e.SetValue(0, rank)
		e.SetValue(1, comm)
		e.SetValue(2, uint64(uint32(ev.Tag)))
		e.SetValue(3, uint64(max(ev.Bytes, 0)))
		e.SetValue(4, ev.Match-1) // MpiIsend, MpiIrecv: the request
		return w.put(l, e)
	case model.KindRecvPost, model.KindSendDone:
		k := KindMpiIrecvRequest
		if ev.Kind == model.KindSendDone {
			k = KindMpiIsendComplete
		}
		e := w.event(k, t)
		e.SetValue(0, ev.Match-1)
		return w.put(l, e)
	case model.KindProgramBegin:
		e := w.event(KindProgramBegin, t)
		e.SetValue(0, 0) // the empty string
		return w.put(l, e)
	case model.KindProgramEnd:
		return w.put(l, w.event(KindProgramEnd, t))
	case model.KindParameter:
		typ := uint64(ParameterTypeInt64)
		k, v := KindParameterInt, uint64(ev.Value)
		if ev.Flags&model.StringValue != 0 {
			typ, k = uint64(ParameterTypeString), KindParameterString
			v = w.b.str(w.defs.String(model.StringID(ev.Value)))
		}
		key := [2]uint64{w.b.str(w.defs.String(ev.Text)), typ}
		id, ok := w.params[key]
		if !ok {
			id = uint64(len(w.pdefs))
			w.params[key] = id
			w.pdefs = append(w.pdefs, key)
		}
		e := w.event(k, t)
		e.SetValue(0, id)
		e.SetValue(1, v)
		return w.put(l, e)
	case model.KindCollBegin:
		if l.inColl {
			w.lost++ // the previous one never ended: it stays unmatched
		}
		if _, ok := w.collOp(ev); !ok {
			w.lost++
			return nil
		}
		l.coll, l.inColl = *ev, true
		return w.put(l, w.event(KindMpiCollectiveBegin, t))
	case model.KindCollEnd:
		if !l.inColl {
			w.lost++
			return nil
		}
		b := &l.coll
		l.inColl = false
		op, _ := w.collOp(b)
		comm, _ := w.rank(b.Comm, 0)
		root := uint64(Undefined32)
		if b.Peer != 0 {
			comm, root = w.rank(b.Comm, b.Peer)
		}
		e := w.event(KindMpiCollectiveEnd, t)
		e.SetValue(0, uint64(op))
		e.SetValue(1, comm)
		e.SetValue(2, root)
		e.SetValue(3, uint64(max(b.Bytes, 0)))
		e.SetValue(4, uint64(max(b.Recvd, 0)))
		return w.put(l, e)
	case model.KindCollPost:
		if ev.Match == 0 {
			w.lost++
			return nil
		}
		e := w.event(KindNonBlockingCollectiveRequest, t)
		e.SetValue(0, ev.Match-1)
		return w.put(l, e)
	case model.KindCollDone:
		op, ok := w.collOp(ev)
		if !ok || ev.Match == 0 {
			w.lost++
			return nil
		}
		comm, _ := w.rank(ev.Comm, 0)
		root := uint64(Undefined32)
		if ev.Peer != 0 {
			comm, root = w.rank(ev.Comm, ev.Peer)
		}
		e := w.event(KindNonBlockingCollectiveComplete, t)
		e.SetValue(0, uint64(op))
		e.SetValue(1, comm)
		e.SetValue(2, root)
		e.SetValue(3, uint64(max(ev.Bytes, 0)))
		e.SetValue(4, uint64(max(ev.Recvd, 0)))
		e.SetValue(5, ev.Match-1)
		return w.put(l, e)
	case model.KindCounter:
		if ev.Counter == 0 {
			w.lost++
			return nil
		}
		e := w.event(KindMetric, t)
		e.SetValue(0, uint64(ev.Counter-1))
		one := [1]uint64{uint64(TypeInt64)}
		if c, ok := w.defs.Counter(ev.Counter); ok && c.Float {
			one[0] = uint64(TypeDouble)
		}
		e.SetElems(2, one[:])
		one[0] = uint64(ev.Value)
		e.SetElems(3, one[:])
		return w.put(l, e)
	case model.KindMarker:
		if ev.Region == 0 {
			w.lost++
			return nil
		}
		e := w.event(KindEnter, t)
		e.SetValue(0, uint64(ev.Region-1))
		if err := w.put(l, e); err != nil {
			return err
		}
		e = w.event(KindLeave, t)
		e.SetValue(0, uint64(ev.Region-1))
		return w.put(l, e)
	}
	w.lost++
	return nil
}

// rank returns the OTF2 communicator of a model communicator and the rank
// of peer in it: world (0) and the location's index when comm is 0, an
// intercommunicator, or peer is not one of its members; Undefined32 for
// no peer.
func (w *ModelWriter) rank(comm model.CommID, peer model.LocID) (uint64, uint64) {
	c, ok := w.defs.Comm(comm)
	if !ok || comm == 0 || len(c.Remote) > 0 {
		// no communicator, or an intercommunicator, whose groups hold
		// the peers of the other side: world ranks on both sides
		if peer == 0 {
			return 0, Undefined32
		}
		return 0, uint64(peer - 1)
	}
	if peer == 0 {
		return uint64(comm), Undefined32
	}
	for i, m := range c.Members {
		if m == peer {
			return uint64(comm), uint64(i)
		}
	}
	return 0, uint64(peer - 1)
}

// mpiCollectives names the MPI collectives by their lower-case MPI names.
var mpiCollectives = map[string]CollectiveOp{
	"mpi_barrier": CollectiveOpBarrier, "mpi_bcast": CollectiveOpBcast, "mpi_gather": CollectiveOpGather,
	"mpi_gatherv": CollectiveOpGatherv, "mpi_scatter": CollectiveOpScatter, "mpi_scatterv": CollectiveOpScatterv,
	"mpi_allgather": CollectiveOpAllgather, "mpi_allgatherv": CollectiveOpAllgatherv, "mpi_alltoall": CollectiveOpAlltoall,
	"mpi_alltoallv": CollectiveOpAlltoallv, "mpi_alltoallw": CollectiveOpAlltoallw, "mpi_allreduce": CollectiveOpAllreduce,
	"mpi_reduce": CollectiveOpReduce, "mpi_reduce_scatter": CollectiveOpReduceScatter, "mpi_scan": CollectiveOpScan,
	"mpi_exscan": CollectiveOpExscan, "mpi_reduce_scatter_block": CollectiveOpReduceScatterBlock,
}

// collOp returns the operation of a CollBegin or CollDone: by its
// region's MPI name (for a CollDone, MPI_Iallreduce's is that of
// MPI_Allreduce, and so on), else by its class.
func (w *ModelWriter) collOp(ev *model.Event) (CollectiveOp, bool) {
	if r, ok := w.defs.Region(ev.Region); ok {
		name := strings.ToLower(r.Name)
		if op, ok := mpiCollectives[name]; ok {
			return op, true
		}
		if rest, ok := strings.CutPrefix(name, "mpi_i"); ok && ev.Kind == model.KindCollDone {
			if op, ok := mpiCollectives["mpi_"+rest]; ok {
				return op, true
			}
		}
	}
	switch ev.Class {
	case model.ClassBarrier:
		return CollectiveOpBarrier, true
	case model.ClassOneToAll:
		return CollectiveOpBcast, true
	case model.ClassAllToOne:
		return CollectiveOpReduce, true
	case model.ClassAllToAll:
		return CollectiveOpAllreduce, true
	}
	return 0, false
}

// regionRole returns the OTF2 role of a model region kind.
func regionRole(k model.RegionKind) RegionRole {
	switch k {
	case model.RegionFunction:
		return RegionRoleFunction
	case model.RegionLoop:
		return RegionRoleLoop
	case model.RegionComm:
		return RegionRolePoint2point
	case model.RegionCollective:
		return RegionRoleCollOther
	case model.RegionSync:
		return RegionRoleBarrier
	case model.RegionIO:
		return RegionRoleFileIO
	}
	return RegionRoleUnknown
}

// regionParadigm returns the paradigm a model region's group names, else
// the one of its Paradigm, else MPI for MPI calls and communication and
// collective regions and USER for the rest.
func regionParadigm(r *model.Region) Paradigm {
	if r.Group != "" {
		for p := ParadigmUnknown; p <= ParadigmKokkos; p++ {
			if p.String() == r.Group {
				return p
			}
		}
	}
	switch r.Paradigm {
	case model.ParadigmUser:
		return ParadigmUser
	case model.ParadigmMPI:
		return ParadigmMPI
	case model.ParadigmOpenMP:
		return ParadigmOpenmp
	case model.ParadigmThreads:
		return ParadigmPthread
	case model.ParadigmAccelerator:
		return ParadigmOpencl
	case model.ParadigmMeasurement:
		return ParadigmMeasurementSystem
	case model.ParadigmIO, model.ParadigmOther:
		return ParadigmUnknown
	}
	if r.MPI() || r.Kind == model.RegionComm || r.Kind == model.RegionCollective {
		return ParadigmMPI
	}
	return ParadigmUser
}

// defBuilder collects the global definitions, strings first.
type defBuilder struct {
	strs  map[string]uint32
	sdefs []*Def
	defs  []*Def
}

func (b *defBuilder) str(s string) uint64 {
	if id, ok := b.strs[s]; ok {
		return uint64(id)
	}
	id := uint32(len(b.sdefs))
	b.strs[s] = id
	d := NewDef(DefKindString)
	d.SetValue(0, uint64(id))
	d.SetBytes([]byte(s))
	b.sdefs = append(b.sdefs, d)
	return uint64(id)
}

func (b *defBuilder) add(k DefKind, vals ...uint64) *Def {
	d := NewDef(k)
	for i, v := range vals {
		d.SetValue(i, v)
	}
	b.defs = append(b.defs, d)
	return d
}

// writeDefs converts the model's definitions and hands them to the
// archive writer.
func (w *ModelWriter) writeDefs() error {
	b := w.b
	d := w.defs
	length := uint64(0)
	if w.started {
		length = w.max - w.min
	}
	b.add(DefKindClockProperties, max(d.TimeBase.TicksPerSecond, 1), w.min, length, Undefined64)
	b.add(DefKindParadigm, uint64(ParadigmMPI), b.str("MPI"), uint64(ParadigmClassProcess))
	b.add(DefKindSystemTreeNode, 0, b.str("machine"), b.str("machine"), Undefined32)
	locs := d.Locations()
	group := map[int32]uint64{}
	for _, l := range locs {
		if _, ok := group[l.Process]; !ok {
			group[l.Process] = uint64(len(group))
			b.add(DefKindLocationGroup, group[l.Process], b.str(fmt.Sprintf("Process %d", l.Process)),
				uint64(LocationGroupTypeProcess), 0, Undefined32)
		}
	}
	for _, l := range locs {
		b.add(DefKindLocation, uint64(l.ID-1), b.str(l.Name), uint64(LocationTypeCPUThread), 0, group[l.Process])
	}
	for _, r := range d.Regions() {
		name := b.str(r.Name)
		file := uint64(Undefined32)
		if r.File != "" {
			file = b.str(r.File)
		}
		p, role := regionParadigm(&r), regionRole(r.Kind)
		b.add(DefKindRegion, uint64(r.ID-1), name, b.str(""), uint64(atticRegionType[[3]uint8{uint8(p), uint8(role), 0}]),
			file, uint64(max(r.Line, 0)), uint64(max(r.Line, 0)), name, uint64(role), uint64(p), 0)
	}
	members := make([]uint64, len(locs))
	ranks := make([]uint64, len(locs))
	for i, l := range locs {
		members[i], ranks[i] = uint64(l.ID-1), uint64(i)
	}
	group2 := func(id uint64, name string, t GroupType, m []uint64) {
		g := b.add(DefKindGroup, id, b.str(name), uint64(atticGroupType[[3]uint8{uint8(t), uint8(ParadigmMPI), 0}]))
		g.SetElems(4, m)
		g.SetValue(5, uint64(t))
		g.SetValue(6, uint64(ParadigmMPI))
	}
	group2(0, "", GroupTypeCommLocations, members)
	group2(1, "", GroupTypeCommGroup, ranks)
	b.add(DefKindComm, 0, b.str("world"), 1, Undefined32, 0)
	for _, c := range d.Comms() {
		m := make([]uint64, 0, len(c.Members))
		for _, l := range c.Members {
			if l > 0 && int(l) <= len(locs) {
				m = append(m, uint64(l-1))
			}
		}
		t := GroupTypeCommGroup
		if c.Self {
			t = GroupTypeCommSelf
		}
		group2(uint64(c.ID)+1, "", t, m)
		b.add(DefKindComm, uint64(c.ID), b.str(c.Name), uint64(c.ID)+1, Undefined32, 0)
	}
	for _, c := range d.Counters() {
		mode := MetricModeAbsolutePoint
		if c.Accumulating {
			mode = MetricModeAccumulatedStart
		}
		vt := TypeInt64
		if c.Float {
			vt = TypeDouble // the event values are the doubles' bits already
		}
		b.add(DefKindMetricMember, uint64(c.ID-1), b.str(c.Name), b.str(""), uint64(MetricTypeOther), uint64(mode),
			uint64(vt), uint64(BaseDecimal), 0, b.str(c.Unit))
		mc := b.add(DefKindMetricClass, uint64(c.ID-1))
		mc.SetElems(2, []uint64{uint64(c.ID - 1)})
		mc.SetValue(3, uint64(MetricOccurrenceSynchronous))
		mc.SetValue(4, uint64(RecorderKindAbstract))
	}
	for id, p := range w.pdefs {
		b.add(DefKindParameter, uint64(id), p[0], p[1])
	}
	for _, x := range append(b.sdefs, b.defs...) {
		if err := w.w.WriteDef(x); err != nil {
			return err
		}
	}
	return nil
}

// Close writes the definitions, finishes every file and writes the
// anchor. Locations without events get an empty event file. After an
// error (of Write or of Close) no anchor is written: the files written so
// far are closed as they are ([ArchiveWriter.Abort]). A second Close
// returns the first's error.
func (w *ModelWriter) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	for _, l := range w.locs {
		if l != nil && l.inColl {
			w.lost++
		}
	}
	if w.err != nil {
		w.w.Abort()
		return w.err
	}
	for _, l := range w.defs.Locations() {
		if _, err := w.loc(l.ID); err != nil {
			w.err = err
			w.w.Abort()
			return err
		}
	}
	if err := w.writeDefs(); err != nil {
		w.err = err
		w.w.Abort()
		return err
	}
	if err := w.w.Close(); err != nil {
		w.err = err
	}
	return w.err
}
