package otf

import (
	"errors"
	"fmt"
	"iter"
	"math"
	"slices"
	"strings"

	"github.com/hpctrace/hpctrace/model"
)

// A ModelSource adapts a trace to [model.Source] following the OTF table
// of doc/stats.md §2.5: it reads every definition
// and summary when it is made, then yields the events of the selected
// locations merged by time (time, process, file position).
//
// The selection of [ModelOptions] is honoured exactly, with three
// exceptions that OTF's records force. The deprecated CollOp record gives
// a collective's begin and its duration in one record, from which the
// source makes the CollBegin and the CollEnd: a CollOp before a window's
// From (or a SeekTime's time) is not read, so its CollEnd is not
// yielded. Records before a file's first time line, whose time is
// undefined (-1 in the model), are in no window. A process that neither
// the definitions nor the master file name gets its location when its
// first record is read, so it is outside every location selection. The
// texts of markers are interned as they are read, so their StringIDs
// (not their texts) depend on the selection.
//
// Mapping: DefTimerResolution → TimeBase; DefTimeRange → Bounds (the
// first and the last event time it records; where the definitions have
// none, [Trace.EventTimeRange] finds them); DefProcess → Location (Process
// is the rank of the top-level ancestor in definition order, Thread the
// 1-based index of a descendant; MPI when the process group named
// MPI_COMM_WORLD, as VampirTrace names it, lists the top-level ancestor
// at that rank; Stream 0); DefFunction → Region (Native = token,
// Group = function group name, Kind Comm or Collective for group "MPI" by
// name, IO for file-operation groups, else Function; Paradigm from the
// group where it names one as VampirTrace names them: MPI, OMP… →
// OpenMP, PTHREAD → Threads, I/O → IO, CUDA…, OpenCL → Accelerator,
// Application and USER → User, VT_API → Measurement; else Unknown, for
// which [model.Region.MPI] goes by the name; File and Line from the
// function's source location); DefScl → Site; DefProcessGroup → Comm;
// DefCollOp → a Collective region with Native = 1<<32 | token and the
// class of its type; DefCounter → Counter (Accumulating for ACC).
// Events: Enter/Leave (Site from the source location; a Leave with
// function token 0, which VampirTrace writes for every Leave, leaves the
// innermost function open on its process, see [ModelSource.StrayLeaves]
// for one with none open; a Leave naming a function keeps its region,
// and closes the innermost open one whatever it names, by the rule of
// [model.KindLeave]: VampirTrace and the OTF writers name the function
// their Enter named, so only damaged or hand-made traces mismatch),
// Send/Receive,
// BeginCollOp/EndCollOp → CollBegin/CollEnd (Match = matching id), the
// deprecated CollOp → CollBegin at t and CollEnd at t+duration (Match 0),
// Counter, EventComment → Marker with the text, BeginProcess/EndProcess
// → Marker with text "BeginProcess"/"EndProcess". OTF has no
// record of a non-blocking receive's posting or of a send's completion:
// the source yields no RecvPost and no SendDone, and every Send and Recv
// has Match 0 (the posting call of a receive is its completion call).
// File operations, RMA
// records, NoOps, inline snapshots and unknown lines are skipped and
// counted by Ignored. Key-value lists are dropped.
//
// Summaries become Defs.Recorded at their time: SumFunction gives Count,
// Time (inclusive) and ExclTime of the function's region; SumMessage
// gives Count (messages sent) and Volume (bytes sent) with Peer; SumCollOp
// gives Count and Volume of the collective region. Group, file and comment
// summaries are not mapped.
//
// A ModelSource is not safe for concurrent use.
type ModelSource struct {
	t        *Trace
	o        TraceReaderOptions // of tr
	tr       *TraceReader
	win      model.Window // with windowed: the selection's window
	windowed bool
	closed   bool
	defs     model.Defs
	ev       model.Event
	err      error
	ignored  int64

	scl       map[uint32]model.SiteID
	collClass map[uint32]model.Class
	textBegin model.StringID
	textEnd   model.StringID

	// Dense tables from the tokens below denseTokens to model ids, in
	// front of the Defs' native indexes and the maps above: a lookup is
	// one bounds check and a load, 0 meaning "look further".
	procLoc []model.LocID
	funcReg []model.RegionID
	sclID   []model.SiteID
	commID  []model.CommID
	ctrID   []model.CounterID
	collops []collopDef

	// stacks[loc] holds the regions open on loc, innermost last, to
	// resolve Leave records with function token 0.
	stacks [][]model.RegionID
	stray  int64 // Leaves with token 0 and no open region
	// late holds what catchUp needs while the stacks lack the regions
	// open at a window's From (nil once they have them or without a
	// window).
	late *lateStacks

	// pending CollEnds of deprecated CollOp records, sorted by time: the
	// queue is pending[phead:] (popPending, pushPending)
	pending []model.Event
	phead   int
	held    bool // tr holds a record not yet converted
	slow    bool // err != nil || held || len(pending) > 0: Next takes next
}

// collopNative is the Region.Native of a DEFCOLLOP token.
func collopNative(tok uint32) int64 { return 1<<32 | int64(tok) }

// ModelOptions configures a ModelSource. A nil or zero value reads every
// event of the trace.
type ModelOptions struct {
	// Selection chooses the events the source yields, honoured exactly
	// (see [model.Selection]) but for the exceptions of [ModelSource].
	// Locations map to processes: the event files of the streams the
	// master file gives no selected process are not opened, and a process
	// sharing a stream with a selected one is read and its events are
	// dropped. A window seeks: each stream whose file allows random access
	// is bisected to its first record at From ([Reader.SeekTime], O(log
	// size) small reads) and read up to To, and no further; other files
	// are read from the start and filtered.
	Selection model.Selection
	// Strict and MaxLine are passed to the Reader of every file (see
	// ReaderOptions).
	Strict  bool
	MaxLine int
}

// NewModelSource reads the definitions and summaries of every stream of t
// and returns a source of its events, the part opts.Selection chooses.
// The definitions (location, region, site, communicator and counter ids,
// and Recorded) are those of the whole trace whatever the selection, so
// that the sources of a trace's shards agree on them.
//
// With a window from From > 0, a Leave of function 0 may leave a function
// entered before From, which only the records before From tell: at the
// window's first Leave of function 0 on a process with no function entered
// in the window open, the source reads the Enter and Leave records before
// From and those of the window before that Leave, and resolves it and
// every later one as a read from the start would. A window without such a
// Leave costs no more than its own records; one with it costs a read of
// every record before it as well (once).
//
// The source opens the event files it reads and closes them when it is
// closed; it never closes t.
func NewModelSource(t *Trace, opts *ModelOptions) (*ModelSource, error) {
	if t == nil {
		return nil, errors.New("otf: NewModelSource: nil Trace")
	}
	var mo ModelOptions
	if opts != nil {
		mo = *opts
	}
	if err := mo.Selection.Check(); err != nil {
		return nil, fmt.Errorf("otf: %w", err)
	}
	s := &ModelSource{scl: map[uint32]model.SiteID{}, collClass: map[uint32]model.Class{}}
	o := TraceReaderOptions{Strict: mo.Strict, MaxLine: mo.MaxLine}
	if err := s.readDefs(t, o); err != nil {
		return nil, err
	}
	do := o
	do.File = FileStats
	if err := s.readStats(t, do); err != nil {
		return nil, err
	}
	if keep := mo.Selection.Locations; keep != nil {
		procs := []uint32{}
		for _, l := range s.defs.Locations() {
			if keep(l.ID) {
				procs = append(procs, uint32(l.Native))
			}
		}
		o.Processes = procs
	}
	if w := mo.Selection.Window; w != nil {
		s.win = *w
		s.windowed = true
		o.From, o.To = uint64(max(w.From, 0)), uint64(max(w.To, 0))
		if w.To < 0 {
			// The window ends before time 0, where OTF has no record: a
			// reader's To of 0 would mean no end, so select nothing.
			o.From, o.To = 1, 1
		}
	}
	o.File = FileEvents
	tr, err := t.NewReader(&o)
	if err != nil {
		return nil, err
	}
	s.t, s.o = t, o
	s.tr = tr
	s.textBegin = s.defs.Intern("BeginProcess")
	s.textEnd = s.defs.Intern("EndProcess")
	for _, l := range s.defs.Locations() {
		s.procLoc = setDense(s.procLoc, l.Native, l.ID)
	}
	for _, r := range s.defs.Regions() {
		s.funcReg = setDense(s.funcReg, r.Native, r.ID)
	}
	for _, c := range s.defs.Comms() {
		s.commID = setDense(s.commID, c.Native, c.ID)
	}
	for tok, id := range s.scl {
		s.sclID = setDense(s.sclID, int64(tok), id)
	}
	for _, c := range s.defs.Counters() {
		s.ctrID = setDense(s.ctrID, c.Native, c.ID)
	}
	for tok, class := range s.collClass {
		r, _ := s.defs.RegionByNative(collopNative(tok))
		if tok < denseTokens && r != 0 {
			if int(tok) >= len(s.collops) {
				s.collops = append(s.collops, make([]collopDef, int(tok)+1-len(s.collops))...)
			}
			s.collops[tok] = collopDef{r, class}
		}
	}
	if o.From > 0 {
		s.late = &lateStacks{from: o.From}
	}
	return s, nil
}

// SeekTime moves the source to the first event at or after tm (and at or
// after the window's From): the events that follow are those a read of
// the whole selection yields from tm on, with the exceptions of a window
// from tm ([ModelSource]). Each stream is bisected as for a window (a
// file without random access gives an error wrapping ErrNotSeekable), and
// the regions open at tm are resolved as for a window, when a Leave of
// function 0 needs them.
func (s *ModelSource) SeekTime(tm model.Time) error {
	if s.closed {
		return errors.New("otf: SeekTime on a closed ModelSource")
	}
	from := uint64(max(tm, 0))
	if s.windowed {
		from = max(from, uint64(max(s.win.From, 0)))
	}
	if err := s.tr.SeekTime(from); err != nil {
		s.err, s.slow = err, true
		return err
	}
	s.err = nil
	s.pending, s.phead = s.pending[:0], 0
	s.held = false
	s.slow = false
	for i := range s.stacks {
		s.stacks[i] = s.stacks[i][:0]
	}
	s.late = nil
	if from > 0 {
		s.late = &lateStacks{from: from}
	}
	s.ev = model.Event{}
	return nil
}

// lateStacks is what catchUp needs.
type lateStacks struct {
	from  uint64 // where the read started: the window's From or a SeekTime's
	dirty bool   // a Leave closed a region open before from
}

// catchUp sets the stacks of open regions to those a read from the start
// of the trace would hold before the current record: those open at From,
// then the Enters and Leaves of the window before the current record,
// which is the tr.n-th record of the window.
func (s *ModelSource) catchUp() {
	l := s.late
	s.late = nil
	clear(s.stacks)
	if err := s.openAt(l.from); err != nil {
		s.err, s.slow = err, true
		return
	}
	before := s.tr.n - 1
	if before <= 0 {
		return
	}
	o := s.o
	o.From, o.Limit = l.from, before
	r, err := s.t.NewReader(&o)
	if err != nil {
		s.err, s.slow = err, true
		return
	}
	defer r.Close()
	s.replay(r)
	if err := r.Err(); err != nil {
		s.err, s.slow = err, true
	}
}

// replay applies the Enter and Leave records of r to the stacks.
func (s *ModelSource) replay(r *TraceReader) {
	for r.Next() {
		rec := r.Record()
		switch rec.Kind {
		case KindEnter:
			v, _ := rec.Enter()
			s.push(s.loc(rec.Process), s.region(v.Function))
		case KindLeave:
			v, _ := rec.Leave()
			s.pop(s.loc(rec.Process), v.Function)
		}
	}
}

// openAt sets the stacks of open regions to those open at from, from the
// Enter and Leave records before it, so that a Leave of function 0 after
// from leaves a function entered before.
func (s *ModelSource) openAt(from uint64) error {
	r, err := s.t.NewReader(&TraceReaderOptions{File: FileEvents, Processes: s.o.Processes, To: from,
		Strict: s.o.Strict, MaxLine: s.o.MaxLine})
	if err != nil {
		return err
	}
	defer r.Close()
	stray := s.stray
	s.replay(r)
	s.stray = stray
	return r.Err()
}

// denseTokens bounds the tokens kept in a ModelSource's dense tables;
// larger ones are looked up in the Defs and maps.
const denseTokens = 1 << 16

// setDense sets t[tok] = id if tok is small, growing t as needed. Later
// definitions with the same native replace earlier ones, as in the Defs.
func setDense[ID ~uint32](t []ID, tok int64, id ID) []ID {
	if tok < 0 || tok >= denseTokens {
		return t
	}
	if int(tok) >= len(t) {
		t = append(t, make([]ID, int(tok)+1-len(t))...)
	}
	t[tok] = id
	return t
}

type procDef struct {
	token, parent uint32
	name          string
}

func (s *ModelSource) readDefs(t *Trace, o TraceReaderOptions) error {
	o.File = FileDef
	r, err := t.NewReader(&o)
	if err != nil {
		return err
	}
	defer r.Close()
	var (
		procs    []procDef
		groups   []DefProcessGroup
		funcs    []DefFunction
		fgroups  = map[uint32]string{}
		files    = map[uint32]string{}
		scls     []DefSCL
		collops  []DefCollOp
		counters []DefCounter
	)
	for rec, err := range r.All() {
		if err != nil {
			return err
		}
		switch rec.Kind {
		case KindDefTimerResolution:
			v, _ := rec.DefTimerResolution()
			s.defs.TimeBase.TicksPerSecond = v.TicksPerSecond
		case KindDefTimeRange:
			v, _ := rec.DefTimeRange()
			if v.MinTime <= v.MaxTime && v.MaxTime <= math.MaxInt64 {
				s.defs.Bounds = model.Bounds{Start: model.Time(v.MinTime), End: model.Time(v.MaxTime), Known: true}
			}
		case KindDefProcess:
			v, _ := rec.DefProcess()
			procs = append(procs, procDef{v.Process, v.Parent, string(v.Name)})
		case KindDefProcessGroup:
			v, _ := rec.DefProcessGroup()
			v.Members = slices.Clone(v.Members)
			v.Name = slices.Clone(v.Name)
			groups = append(groups, v)
		case KindDefFunction:
			v, _ := rec.DefFunction()
			v.Name = slices.Clone(v.Name)
			funcs = append(funcs, v)
		case KindDefFunctionGroup:
			v, _ := rec.DefFunctionGroup()
			fgroups[v.Group] = string(v.Name)
		case KindDefSCLFile:
			v, _ := rec.DefSCLFile()
			files[v.SCLFile] = string(v.Name)
		case KindDefSCL:
			v, _ := rec.DefSCL()
			scls = append(scls, v)
		case KindDefCollOp:
			v, _ := rec.DefCollOp()
			v.Name = slices.Clone(v.Name)
			collops = append(collops, v)
		case KindDefCounter:
			v, _ := rec.DefCounter()
			v.Name, v.Unit = slices.Clone(v.Name), slices.Clone(v.Unit)
			counters = append(counters, v)
		}
	}
	// Locations: top-level processes get ranks in definition order, their
	// descendants thread indices.
	parent := map[uint32]uint32{}
	for _, p := range procs {
		parent[p.token] = p.parent
	}
	root := func(p uint32) uint32 {
		for range len(procs) + 1 {
			q, ok := parent[p]
			if !ok || q == 0 {
				return p
			}
			p = q
		}
		return p
	}
	rank := map[uint32]int32{}
	threads := map[uint32]int32{}
	for _, p := range procs {
		if _, ok := parent[p.parent]; p.parent == 0 || !ok {
			if _, dup := rank[p.token]; !dup {
				rank[p.token] = int32(len(rank))
			}
		}
	}
	// The world communicator's members, in rank order, are MPI ranks
	// where a member is the top-level process of that rank.
	mpi := map[uint32]bool{}
	for _, g := range groups {
		if string(g.Name) != "MPI_COMM_WORLD" {
			continue
		}
		for i, m := range g.Members {
			if r, ok := rank[m]; ok && r == int32(i) {
				mpi[m] = true
			}
		}
		break
	}
	for _, p := range procs {
		l := model.Location{Native: int64(p.token), Name: p.name}
		r := root(p.token)
		l.Process = rank[r]
		l.MPI = mpi[r]
		if r != p.token {
			threads[r]++
			l.Thread = threads[r]
		}
		s.defs.AddLocation(l)
	}
	// Processes in the master file without a definition.
	for _, st := range t.Streams {
		for _, p := range st.Processes {
			if _, ok := s.defs.LocationByNative(int64(p)); !ok {
				s.defs.AddLocation(model.Location{Native: int64(p), Process: int32(len(rank))})
				rank[p] = int32(len(rank))
			}
		}
	}
	for _, g := range groups {
		c := model.Comm{Native: int64(g.Group), Name: string(g.Name)}
		for _, m := range g.Members {
			if id, ok := s.defs.LocationByNative(int64(m)); ok {
				c.Members = append(c.Members, id)
			}
		}
		s.defs.AddComm(c)
	}
	sclSite := map[uint32]model.Site{}
	for _, d := range scls {
		site := model.Site{File: files[d.SCLFile], Line: int32(d.Line)}
		sclSite[d.SCL] = site
		s.scl[d.SCL] = s.defs.AddSite(site)
	}
	for _, f := range funcs {
		g := fgroups[f.Group]
		reg := model.Region{Native: int64(f.Function), Name: string(f.Name), Group: g, Kind: regionKind(g, string(f.Name)),
			Paradigm: groupParadigm(g)}
		if site, ok := sclSite[f.Source]; ok {
			reg.File, reg.Line = site.File, site.Line
		}
		s.defs.AddRegion(reg)
	}
	for _, c := range collops {
		class := model.ClassUnknown
		if c.Type <= 4 {
			class = model.Class(c.Type)
		}
		s.collClass[c.CollOp] = class
		s.defs.AddRegion(model.Region{Native: collopNative(c.CollOp), Name: string(c.Name), Kind: model.RegionCollective, Group: "MPI",
			Paradigm: model.ParadigmMPI})
	}
	for _, c := range counters {
		s.defs.AddCounter(model.Counter{Native: int64(c.Counter), Name: string(c.Name), Unit: string(c.Unit), Accumulating: c.Properties&3 == 0})
	}
	return nil
}

// groupParadigm returns the paradigm a function group names, as
// VampirTrace names its groups ("MPI", "OMP", "OMP_SYNC", "OMP_PREG",
// "PTHREAD", "I/O", "LIBC-I/O", "CUDA", "CUDART", "CUDA_KERNEL", "CUPTI",
// "OpenCL", "Application", "USER", "VT_API"; case-insensitive), else
// ParadigmUnknown.
func groupParadigm(group string) model.Paradigm {
	g := strings.ToUpper(group)
	switch {
	case g == "MPI":
		return model.ParadigmMPI
	case g == "OPENMP" || g == "OMP" || strings.HasPrefix(g, "OMP_") || strings.HasPrefix(g, "OMP-"):
		return model.ParadigmOpenMP
	case g == "PTHREAD" || g == "PTHREADS":
		return model.ParadigmThreads
	case g == "I/O" || g == "LIBC-I/O" || g == "IO":
		return model.ParadigmIO
	case g == "CUDA" || strings.HasPrefix(g, "CUDA_") || g == "CUDART" || g == "CUPTI" || g == "OPENCL" || g == "GPU":
		return model.ParadigmAccelerator
	case g == "APPLICATION" || g == "USER":
		return model.ParadigmUser
	case g == "VT_API":
		return model.ParadigmMeasurement
	}
	return model.ParadigmUnknown
}

var mpiCollectives = []string{"barrier", "bcast", "reduce", "allreduce", "alltoall", "allgather", "gather", "scatter", "scan", "exscan", "reduce_scatter"}

// regionKind classifies a function by its group and name.
func regionKind(group, name string) model.RegionKind {
	switch {
	case strings.EqualFold(group, "MPI"):
		n := strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(name, "MPI_"), "mpi_"))
		n = strings.TrimPrefix(n, "i") // non-blocking forms: Ibarrier, Iallreduce
		for _, c := range mpiCollectives {
			if strings.HasPrefix(n, c) {
				return model.RegionCollective
			}
		}
		return model.RegionComm
	case strings.Contains(strings.ToLower(group), "i/o") || strings.EqualFold(group, "IO"):
		return model.RegionIO
	}
	return model.RegionFunction
}

func (s *ModelSource) readStats(t *Trace, o TraceReaderOptions) error {
	r, err := t.NewReader(&o)
	if err != nil {
		return err
	}
	defer r.Close()
	for rec, err := range r.All() {
		if err != nil {
			return err
		}
		loc, _ := s.defs.LocationByNative(int64(rec.Process))
		base := model.Recorded{Loc: loc, Time: model.Time(rec.Time), RelativeTo: -1}
		add := func(k model.RecordedKind, v uint64) {
			r := base
			r.Kind, r.Value = k, int64(v)
			s.defs.Recorded = append(s.defs.Recorded, r)
		}
		switch rec.Kind {
		case KindFunctionSummary:
			v, _ := rec.FunctionSummary()
			base.Region, _ = s.defs.RegionByNative(int64(v.Function))
			add(model.RecordedCount, v.Count)
			add(model.RecordedTime, v.InclTime)
			add(model.RecordedExclTime, v.ExclTime)
		case KindMessageSummary:
			v, _ := rec.MessageSummary()
			base.Peer, _ = s.defs.LocationByNative(int64(v.Peer))
			add(model.RecordedCount, v.SentCount)
			add(model.RecordedVolume, v.BytesSent)
		case KindCollOpSummary:
			v, _ := rec.CollOpSummary()
			base.Region, _ = s.defs.RegionByNative(collopNative(v.CollOp))
			add(model.RecordedCount, v.SentCount)
			add(model.RecordedVolume, v.BytesSent)
		}
	}
	return nil
}

// Next advances to the next event.
func (s *ModelSource) Next() bool {
	if s.slow {
		return s.next()
	}
	// The common case: no CollEnd of a deprecated CollOp is due, so each
	// record is converted as it comes; Enter and Leave, most of a trace,
	// right here.
	for s.tr.Next() {
		rec := s.tr.Record()
		switch rec.Kind {
		case KindEnter:
			v, _ := rec.Enter()
			ev := &s.ev
			*ev = model.Event{}
			ev.Time, ev.Loc, ev.Kind = model.Time(rec.Time), s.loc(rec.Process), model.KindEnter
			ev.Region, ev.Site = s.region(v.Function), s.site(v.Source)
			s.push(ev.Loc, ev.Region)
			return true
		case KindLeave:
			v, _ := rec.Leave()
			ev := &s.ev
			*ev = model.Event{}
			ev.Time, ev.Loc, ev.Kind = model.Time(rec.Time), s.loc(rec.Process), model.KindLeave
			ev.Region = s.pop(ev.Loc, v.Function)
			return true
		}
		if s.convert(rec) {
			return true
		}
		s.ignored++
	}
	s.err = s.tr.Err()
	s.slow = s.err != nil
	return false
}

// ReadEvents copies up to len(dst) events into dst and returns their
// number; see [model.BulkSource]. It converts the common records (Enter,
// Leave, Send and Receive of defined processes) and stops before any
// other, which Next then yields.
func (s *ModelSource) ReadEvents(dst []model.Event) int {
	if s.slow {
		return 0
	}
	procLoc := s.procLoc // no process is added here
	n := 0
	for n < len(dst) {
		if !s.tr.Next() {
			s.err = s.tr.Err()
			s.slow = s.err != nil
			return n
		}
		rec := s.tr.Record()
		var loc model.LocID
		if p := rec.Process; p < uint32(len(procLoc)) {
			loc = procLoc[p]
		}
		if loc == 0 {
			s.held, s.slow = true, true
			return n
		}
		ev := &dst[n]
		switch rec.Kind {
		case KindEnter:
			v, _ := rec.Enter()
			*ev = model.Event{}
			ev.Time, ev.Loc, ev.Kind = model.Time(rec.Time), loc, model.KindEnter
			ev.Region, ev.Site = s.region(v.Function), s.site(v.Source)
			s.push(loc, ev.Region)
		case KindLeave:
			v, _ := rec.Leave()
			*ev = model.Event{}
			ev.Time, ev.Loc, ev.Kind = model.Time(rec.Time), loc, model.KindLeave
			ev.Region = s.pop(loc, v.Function)
		case KindSend, KindReceive:
			m := rec.message()
			k := model.KindSend
			if rec.Kind == KindReceive {
				k = model.KindRecv
			}
			var peer model.LocID
			if m.peer < uint32(len(procLoc)) {
				peer = procLoc[m.peer]
			}
			if peer == 0 {
				s.held, s.slow = true, true
				return n
			}
			*ev = model.Event{}
			ev.Time, ev.Loc, ev.Kind = model.Time(rec.Time), loc, k
			ev.Peer, ev.Tag, ev.Bytes = peer, int32(m.tag), int64(m.length)
			ev.Comm = s.comm(m.comm)
		default:
			s.held, s.slow = true, true
			return n
		}
		n++
	}
	return n
}

// popPending makes the first pending CollEnd the event. The queue's
// storage is reused (pushPending), so that a trace of CollOps does not
// allocate for every one.
func (s *ModelSource) popPending() {
	s.ev = s.pending[s.phead]
	s.phead++
	if s.phead == len(s.pending) {
		s.pending, s.phead = s.pending[:0], 0
	}
}

// pushPending queues the CollEnd of loc at time t after those due before
// or with it. The CollEnds come mostly in time order: they are appended
// then. The event is filled in place (see message).
func (s *ModelSource) pushPending(t model.Time, loc model.LocID) {
	if len(s.pending) == cap(s.pending) && s.phead > 0 {
		s.pending = s.pending[:copy(s.pending, s.pending[s.phead:])]
		s.phead = 0
	}
	q := s.pending[s.phead:]
	i := len(s.pending)
	if len(q) == 0 || q[len(q)-1].Time <= t {
		s.pending = append(s.pending, model.Event{})
	} else {
		j, _ := slices.BinarySearchFunc(q, t, func(e model.Event, t model.Time) int {
			if e.Time <= t {
				return -1
			}
			return 1
		})
		i = s.phead + j
		s.pending = slices.Insert(s.pending, i, model.Event{})
	}
	ev := &s.pending[i]
	ev.Time, ev.Loc, ev.Kind = t, loc, model.KindCollEnd
}

// npending returns the number of pending CollEnds.
func (s *ModelSource) npending() int { return len(s.pending) - s.phead }

// next is Next with pending CollEnds, a held record or an error.
func (s *ModelSource) next() bool {
	ok := s.next1()
	s.slow = s.err != nil || s.held || s.npending() > 0 || s.closed
	return ok
}

func (s *ModelSource) next1() bool {
	if s.err != nil || s.closed {
		return false
	}
	for {
		if !s.held {
			if !s.tr.Next() {
				if s.err = s.tr.Err(); s.err != nil {
					return false
				}
				if s.npending() > 0 {
					s.popPending()
					return true
				}
				return false
			}
			s.held = true
		}
		rec := s.tr.Record()
		if s.npending() > 0 && uint64(s.pending[s.phead].Time) <= rec.Time {
			s.popPending()
			return true
		}
		s.held = false
		if s.convert(rec) {
			return true
		}
		s.ignored++
	}
}

// convert fills s.ev from rec and reports whether rec maps to an event.
func (s *ModelSource) convert(rec *Record) bool {
	ev := &s.ev
	*ev = model.Event{Time: model.Time(rec.Time)}
	ev.Loc = s.loc(rec.Process)
	switch rec.Kind {
	case KindEnter:
		v, _ := rec.Enter()
		ev.Kind = model.KindEnter
		ev.Region = s.region(v.Function)
		ev.Site = s.site(v.Source)
		s.push(ev.Loc, ev.Region)
	case KindLeave:
		v, _ := rec.Leave()
		ev.Kind = model.KindLeave
		ev.Region = s.pop(ev.Loc, v.Function)
	case KindSend, KindReceive:
		ev.Kind = model.KindSend
		if rec.Kind == KindReceive {
			ev.Kind = model.KindRecv
		}
		m := rec.message()
		ev.Peer, ev.Tag, ev.Bytes = s.loc(m.peer), int32(m.tag), int64(m.length)
		ev.Comm = s.comm(m.comm)
	case KindCounter:
		v, _ := rec.Counter()
		ev.Kind = model.KindCounter
		ev.Counter = s.counter(v.Counter)
		ev.Value = int64(v.Value)
	case KindBeginCollOp:
		v, _ := rec.BeginCollOp()
		ev.Kind = model.KindCollBegin
		c := s.collop(v.CollOp)
		ev.Region, ev.Class = c.region, c.class
		ev.Comm = s.commDefined(v.Communicator)
		if v.Root != ^uint32(0) {
			ev.Peer = s.locDefined(v.Root)
		}
		ev.Bytes, ev.Recvd, ev.Match = int64(v.Sent), int64(v.Received), v.MatchingID
	case KindEndCollOp:
		v, _ := rec.EndCollOp()
		ev.Kind = model.KindCollEnd
		ev.Match = v.MatchingID
	case KindCollOp:
		// The body's fields straight from the record (see message).
		op, comm, root := uint32(rec.num[0]), uint32(rec.num[1]), uint32(rec.num[2])
		ev.Kind = model.KindCollBegin
		c := s.collop(op)
		ev.Region, ev.Class = c.region, c.class
		ev.Comm = s.commDefined(comm)
		if root != ^uint32(0) {
			ev.Peer = s.locDefined(root)
		}
		ev.Bytes, ev.Recvd = int64(uint32(rec.num[3])), int64(uint32(rec.num[4]))
		end := ev.Time + model.Time(rec.num[5])
		if !s.windowed || s.win.Contains(end) {
			s.pushPending(end, ev.Loc)
			s.slow = true
		}
	case KindEventComment:
		v, _ := rec.EventComment()
		ev.Kind = model.KindMarker
		ev.Text = s.defs.InternBytes(v.Comment)
	case KindBeginProcess:
		ev.Kind, ev.Text = model.KindMarker, s.textBegin
	case KindEndProcess:
		ev.Kind, ev.Text = model.KindMarker, s.textEnd
	default:
		return false
	}
	return true
}

// msgFields are the fields of a Send or Receive record the model uses.
// They have four, so that the compiler keeps them in registers; the body
// structs (Send, Receive: five fields, CollOp: seven) are built in memory
// field by field and copied out whole, and the copy waits for those
// stores to drain instead of taking their values from the store buffer.
type msgFields struct{ peer, length, tag, comm uint32 }

// message returns the fields of a Send (peer: Receiver) or Receive (peer:
// Sender) record, in the slots records_gen.go gives both bodies.
func (r *Record) message() msgFields {
	return msgFields{uint32(r.num[0]), uint32(r.num[1]), uint32(r.num[2]), uint32(r.num[3])}
}

// push records that loc entered region r.
func (s *ModelSource) push(loc model.LocID, r model.RegionID) {
	if int(loc) >= len(s.stacks) {
		s.stacks = append(s.stacks, make([][]model.RegionID, int(loc)+1-len(s.stacks))...)
	}
	s.stacks[loc] = append(s.stacks[loc], r)
}

// pop returns the region a Leave of function token f on loc leaves and
// closes it on loc's stack. Token 0 leaves the innermost open region; a
// Leave with token 0 and no open region leaves region 0 and is counted by
// StrayLeaves. Another token names its region, and the Leave closes the
// innermost open region whatever it names, as [model.KindLeave] defines
// ([model.ClassifyLeave]); if none is open the stack is unchanged.
func (s *ModelSource) pop(loc model.LocID, f uint32) model.RegionID {
	var st []model.RegionID
	if int(loc) < len(s.stacks) {
		st = s.stacks[loc]
	}
	n := len(st)
	if f == 0 {
		// Without the regions open at From, the stack holds those entered
		// since, innermost last, and is exact above them unless a Leave
		// of a region not in it may have closed some (dirty): only a
		// Leave of function 0 past them needs the records before From.
		if s.late != nil && (n == 0 || s.late.dirty) {
			s.catchUp()
			if int(loc) < len(s.stacks) {
				st = s.stacks[loc]
			}
			n = len(st)
		}
		if n == 0 {
			s.stray++
			return 0
		}
		s.stacks[loc] = st[:n-1]
		return st[n-1]
	}
	r := s.region(f)
	if n > 0 {
		s.stacks[loc] = st[:n-1]
		return r
	}
	if s.late != nil {
		s.late.dirty = true // it closes a region open below the stack
	}
	return r
}

// loc returns the location of process p, adding one if p has no
// definition.
func (s *ModelSource) loc(p uint32) model.LocID {
	if p < uint32(len(s.procLoc)) && s.procLoc[p] != 0 {
		return s.procLoc[p]
	}
	return s.locSlow(p)
}

func (s *ModelSource) locSlow(p uint32) model.LocID {
	id, ok := s.defs.LocationByNative(int64(p))
	if !ok {
		id = s.defs.AddLocation(model.Location{Native: int64(p)})
		s.procLoc = setDense(s.procLoc, int64(p), id)
	}
	return id
}

// The functions, source code locations and process groups are all defined
// when a ModelSource is made, so their dense tables are complete: a small
// token missing from them has no definition.

// region returns the region of function f, 0 if it has no definition.
func (s *ModelSource) region(f uint32) model.RegionID {
	if f < uint32(len(s.funcReg)) {
		return s.funcReg[f]
	}
	if f < denseTokens {
		return 0
	}
	return s.regionSlow(f)
}

//go:noinline
func (s *ModelSource) regionSlow(f uint32) model.RegionID {
	id, _ := s.defs.RegionByNative(int64(f))
	return id
}

// site returns the site of source code location scl, 0 if none.
func (s *ModelSource) site(scl uint32) model.SiteID {
	if scl < uint32(len(s.sclID)) {
		return s.sclID[scl]
	}
	if scl < denseTokens {
		return 0
	}
	return s.siteSlow(scl)
}

//go:noinline
func (s *ModelSource) siteSlow(scl uint32) model.SiteID { return s.scl[scl] }

// comm returns the communicator of process group g, 0 if none.
func (s *ModelSource) comm(g uint32) model.CommID {
	if g < uint32(len(s.commID)) {
		return s.commID[g]
	}
	if g < denseTokens {
		return 0
	}
	return s.commSlow(g)
}

//go:noinline
func (s *ModelSource) commSlow(g uint32) model.CommID {
	id, _ := s.defs.CommByNative(int64(g))
	return id
}

// A collopDef is a collective operation's region and class.
type collopDef struct {
	region model.RegionID
	class  model.Class
}

// collop, counter and commDefined take the dense tables first and, for a
// token not in them, the definitions: a token the tables lack is looked
// up, never taken for undefined.

// collop returns the region and class of collective operation token op.
func (s *ModelSource) collop(op uint32) collopDef {
	if op < uint32(len(s.collops)) && s.collops[op].region != 0 {
		return s.collops[op]
	}
	return s.collopSlow(op)
}

//go:noinline
func (s *ModelSource) collopSlow(op uint32) collopDef {
	r, _ := s.defs.RegionByNative(collopNative(op))
	return collopDef{r, s.collClass[op]}
}

// counter returns the counter of token c, 0 if it has no definition.
func (s *ModelSource) counter(c uint32) model.CounterID {
	if c < uint32(len(s.ctrID)) && s.ctrID[c] != 0 {
		return s.ctrID[c]
	}
	return s.counterSlow(c)
}

//go:noinline
func (s *ModelSource) counterSlow(c uint32) model.CounterID {
	id, _ := s.defs.CounterByNative(int64(c))
	return id
}

// commDefined returns the communicator of process group g, 0 if it has
// no definition.
func (s *ModelSource) commDefined(g uint32) model.CommID {
	if g < uint32(len(s.commID)) && s.commID[g] != 0 {
		return s.commID[g]
	}
	return s.commSlow(g)
}

// locDefined returns the location of process p, 0 if it has no
// definition; unlike loc, it adds none. Every location of a token below
// denseTokens is in procLoc (the definitions' and those loc adds), so
// only a larger one is looked up.
func (s *ModelSource) locDefined(p uint32) model.LocID {
	if p < uint32(len(s.procLoc)) {
		return s.procLoc[p]
	}
	if p < denseTokens {
		return 0
	}
	return s.locDefinedSlow(p)
}

//go:noinline
func (s *ModelSource) locDefinedSlow(p uint32) model.LocID {
	id, _ := s.defs.LocationByNative(int64(p))
	return id
}

// Event returns the current event. It is valid until the next call to Next.
func (s *ModelSource) Event() *model.Event { return &s.ev }

// Err returns the first error, nil after a clean end.
func (s *ModelSource) Err() error { return s.err }

// Defs returns the definitions; Recorded holds the trace's summaries.
func (s *ModelSource) Defs() *model.Defs { return &s.defs }

// All returns a single-use iterator over the remaining events; see [model.All].
func (s *ModelSource) All() iter.Seq2[*model.Event, error] { return model.All(s) }

// StrayLeaves returns the number of Leave records read so far that name
// function 0 ("the innermost open function") on a process with no open
// function. Such a Leave becomes a Leave of region 0, which no Enter
// matches: [model.KindLeave] consumers count it as unmatched (as
// stats.Diagnostics.UnmatchedLeave does) and the other events are not
// disturbed. Some producers start a process with such a Leave.
func (s *ModelSource) StrayLeaves() int64 { return s.stray }

// Ignored returns the number of records skipped so far because the model
// has no event for them (file operations, RMA, NoOp, unknown lines).
func (s *ModelSource) Ignored() int64 { return s.ignored }

// Close closes the event files the source opened; it does not close the
// Trace. Next returns false afterwards, and a second Close returns nil.
func (s *ModelSource) Close() error {
	if s.closed {
		return nil
	}
	s.closed, s.slow = true, true
	return s.tr.Close()
}
