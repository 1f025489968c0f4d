package dumpi

import (
	"iter"
	"slices"

	"github.com/hpctrace/hpctrace/internal/kmerge"
	"github.com/hpctrace/hpctrace/model"
)

// ModelOptions configures NewModelSource. A nil or zero value means
// defaults.
type ModelOptions struct {
	// CPUTime takes event times from the CPU clock. By default they come
	// from the wall clock, or from the CPU clock for calls recorded
	// without wall time.
	CPUTime bool

	// Selection chooses the events the source yields, exactly: those of
	// the whole run that Selection.Keep accepts, in the same order and
	// with the same values (see [ModelSource] for what it skips reading).
	Selection model.Selection
}

// A ModelSource maps DUMPI calls onto the format-neutral events of package
// model (doc/stats.md §2.5). It implements model.Source.
//
// Mapping:
//
//   - Locations: one per rank (Native = rank), plus one per extra thread
//     index seen in the calls (Thread = the index). Every location has
//     Process = its rank, MPI set, and Stream = its rank's location (the
//     rank file holds its threads' calls).
//   - Time base: 1 ns; times are the calls' monotonic times
//     ([Call.WallStart] and friends), so they never wrap.
//   - Each call becomes Enter and Leave of the region named after its
//     function (Native = the label), at its start and stop times; the
//     Leave always names its Enter's region, since one record holds both.
//     Function_enter/Function_exit become Enter/Leave of a user region
//     (an exit naming another address than the innermost open one, as
//     after a longjmp, closes it all the same: [model.KindLeave])
//     named by the function-address table (Native = -1 - address). The
//     regions of every rank's table are defined before any event, in rank
//     order and each table's order (an address in several tables is one
//     region, named by the first); an address outside the tables is
//     named "function N" when first entered.
//   - Regions of MPI calls have Paradigm MPI; function-address regions
//     Paradigm User.
//   - Sends (Send, Bsend, Ssend, Rsend, the I-variants, Sendrecv, and
//     Start of a persistent send) give a Send event at the start time;
//     Ssend and Issend set SyncMode.
//   - Requests: each non-blocking operation started (an I-variant send,
//     MPI_Irecv, a Start of a persistent request) gets a request id, 1, 2,
//     … per rank in the order of the calls, never reused although DUMPI
//     reuses its request handles once a request completes. A non-blocking
//     send's Send carries it in Match, and the Wait/Test call that
//     completes its handle gives a SendDone with that Match at the stop
//     time. MPI_Irecv and the Start of a persistent receive give a
//     RecvPost at the start time (Peer the source's location, 0 for
//     MPI_ANY_SOURCE or a communicator of unknown membership; Tag and
//     Comm from the arguments; Match the request id), and the receive's
//     Recv carries the same Match. A request freed with
//     MPI_Request_free before its completion has no SendDone or Recv.
//   - A send to a negative rank (MPI_PROC_NULL) gives no Send, and a
//     receive whose recorded status has a negative source (completed by
//     MPI_PROC_NULL) no Recv. A receive from -1 without a status stays a
//     Recv without peer: MPICH's MPI_PROC_NULL is MPI_ANY_SOURCE's -1.
//   - Receives give a Recv event at the stop time: Recv and Sendrecv
//     directly, Irecv and persistent receives in the Wait/Test call that
//     completes their request. Peer, tag and bytes come from the status
//     when statuses were recorded, from the arguments otherwise.
//   - Bytes are count × the datatype's size from the datatype size table;
//     when the size is unknown Bytes is 0 and the BytesUnknown flag is set.
//   - Collectives give CollBegin after the Enter and CollEnd before the
//     Leave, with Class from the function, Peer = the root, Bytes the data
//     this rank contributes and Recvd the data it receives (vector counts
//     summed). Match is 0: the per-communicator sequence identifies the
//     instance.
//   - A request cancelled with MPI_Cancel, or completed with a cancelled
//     status, delivers no Recv.
//   - Perf-counter values give Counter events at the start (entry value)
//     and stop (exit value).
//   - The footer's counts become Recorded statistics per rank and region:
//     RecordedCount (calls made) and RecordedNotProfiled (calls not
//     written).
//
// # Communicators
//
// Handles are local to a rank's file, and a rank in a message or
// collective on a communicator other than MPI_COMM_WORLD and
// MPI_COMM_SELF means a location only through that communicator's
// members. [NewModelSource] reconstructs them from the calls of every rank:
// MPI_Comm_dup, Comm_split (every member's color and key), Comm_create,
// Comm_group, Comm_remote_group, the Group_* constructors (incl, excl,
// range_incl, range_excl, union, intersection, difference; translate_ranks
// makes nothing), Cart_create, Cart_sub, Graph_create, Intercomm_create,
// Intercomm_merge, and Comm_free and Group_free, after which a handle may
// name a new object. Collective constructors are matched across ranks by
// their parent communicator and their order on it, as MPI requires
// members to call them in the same order. Cart_create and Graph_create
// keep the parent's order (no reordering, as MPICH and Open MPI do by
// default); Intercomm_merge puts the group with high = 0 first, and for
// equal values the group whose leader has the lower world rank.
//
// Every communicator made is defined once for all its members, so
// messages and collectives on it match across ranks: Native is
// DUMPI_FIRST_USER_COMM (4) plus its index in creation order, Members its
// world ranks' locations in rank order, and for an intercommunicator
// Remote the other group. Peers and roots on it resolve through the
// members. Recorded MPI_Comm_rank and MPI_Comm_size results are checked
// against the reconstruction.
//
// What the files do not record cannot be reconstructed: communicators
// made by MPI-3 calls, which have no DUMPI label (MPI_Comm_split_type,
// MPI_Comm_create_group, MPI_Dist_graph_create and _adjacent), by
// MPI_Comm_spawn, accept, connect, join or get_parent, or by calls not
// recorded (the footer's ignored counts), a Comm_split some member did
// not record, splits and creates of intercommunicators. Such a handle is
// defined per rank (Native = (rank+1)<<32 | n<<16 | handle, n counting the
// rank's unknown handles; a handle freed and made again for the same
// reason keeps its definition) without members; its messages have Peer 0 (no
// location: the model never assigns 0), and its collectives have no
// root (Peer 0) and stand alone. [ModelSource.CommReport] counts them and
// says why, per handle. The source of a [NewRun] reads one rank and reconstructs
// nothing.
//
// The reconstruction costs a first pass when, and only when, some rank's
// footer counts a recorded constructor call. It reads each rank's calls up
// to its last communicator-making call (as many as its footer counts;
// to the end for a rank without a footer or whose footer counts more of
// them not recorded than made), and none of a rank that makes no
// communicator: for the usual run, which makes its communicators at the
// start, a small part of the calls. Its memory is proportional to the
// constructor calls and the communicators' and groups' sizes, not to the
// number of calls or events. The events' pass lets go of each call's
// result once it read the call, and of a communicator's record once no
// call left to read names it, as soon as the definitions only the calls
// reveal are made (see Selection): until then a pass over every rank's
// calls from the first may need them, and a run that needs none of those
// definitions keeps them to the end. The model definition of every
// communicator made stays, as the definitions are the whole run's.
//
// # Selection
//
// [ModelOptions].Selection is honoured exactly: the source yields the
// events of the whole run that Selection.Keep accepts, in the same order
// and with the same values. A selection of locations applies to each
// event's location, a thread's too. The source reads the calls of the
// ranks of which it accepts a location (the rank's own or one of its
// threads'); of the others, only the small sections, and the calls the
// communicator reconstruction reads. The threads' locations come after
// every rank's and only the calls reveal them, so a selection that
// refuses some rank's location and may accept a location after the
// ranks' (the source asks it about up to 65535 of them per rank, and
// assumes so beyond 4 Mi in all) costs a first pass over the calls of
// every rank, which defines them as a read of the whole run does. A
// selection of ranks' locations only ([model.Only] of ids 1 to the
// number of ranks) reads nothing of the ranks it refuses.
//
// The definitions are the whole run's, whatever the selection, so that
// the sources of a run's shards agree on them: the locations of every
// rank, the counters of every rank's perf labels, the regions of the
// functions every rank's footer counts and of every rank's
// function-address table, the Recorded statistics of every footer, and
// the communicators reconstructed from every rank's constructor calls.
// What only the calls reveal (a thread other than a rank's first, a
// function no footer counts, an address outside every function-address
// table, a communicator of unknown membership) is defined when a read
// call first needs such a definition, by a pass over the calls of every
// rank up to the last one read, rank by rank, each rank's in the order
// of its calls, so that ids do not depend on which ranks are read. A
// source that reads rank r and none after it without the first pass
// above has the whole run's definitions but for those of the ranks
// after r, which stats.Accumulator.Join accepts, extending them.
//
// A window (Selection.Window) is a filter: the source reads from the
// start, as the requests, persistent requests and communicators of the
// events in the window depend on every call before From (the format has
// no index by time), and yields the events of the window.
//
// Next allocates nothing in the steady state.
type ModelSource struct {
	defs    *model.Defs
	opts    ModelOptions
	ranks   []*rankModel
	regions [NumLabels]model.RegionID
	world   model.CommID
	self    model.CommID
	ranksAt []int        // ranksAt[i] is the world rank of ranks[i]
	cset    *commSet     // nil for a single rank's file
	comm0   model.CommID // the id of the first communicator reconstructed; the others follow it, by gcomm.index
	notes   []string
	report  model.CommReport

	// active lists the indices in ranks of the ranks whose calls are
	// read: those of which the selection accepts some location.
	active   []int
	files    []*File // by rank index, for the pass of reveal
	revealed bool    // reveal made the definitions only the calls reveal
	closed   bool

	merge   kmerge.Tree[int64] // keys: time, then location and active index
	win     int                // active index of ev's rank, to advance on Next
	started bool
	err     error
	ev      model.Event
}

type sendInfo struct {
	count    int32
	datatype Datatype
	peer     int32
	tag      int32
	comm     Comm
	recv     bool
	match    uint64 // a pending receive's request id (Event.Match)
}

type rankModel struct {
	s       *ModelSource
	r       *Reader // nil for a rank whose calls are not read
	path    string
	rank    int
	locs    []model.LocID // by thread index
	sizes   []int32
	fnNames map[uint64]string
	fnRegs  map[uint64]model.RegionID
	comms   map[Comm]*cref
	unknown []*cref // handles of unknown membership met so far
	unkByID map[unknownKey]*cref
	results []uint32 // indices into the commSet's views
	ci      int      // next of results
	replay  bool     // a rank of the reveal pass, which consumes no result
	gen     int      // handles of unknown membership defined so far
	ctrs    []model.CounterID

	pending    map[Request]sendInfo // receives waiting for completion
	sends      map[Request]uint64   // non-blocking sends waiting for completion: their request id
	persistent map[Request]sendInfo // Send_init/Recv_init requests
	syncInit   map[Request]bool     // persistent requests from Ssend_init
	lastReq    uint64               // the request id given last

	queue []model.Event
	qi    int
}

// NewModelSource returns a model source over the calls of r: every rank
// of a run from OpenRun or OpenRunFS, merged by (time, location) as
// doc/stats.md requires of multi-location sources, with the members of
// its communicators reconstructed (see [ModelSource]); or the one rank of
// a Run from NewRun. The source reads r's Files and closes none of them:
// they are r's.
func NewModelSource(r *Run, opts *ModelOptions) (*ModelSource, error) {
	var o ModelOptions
	if opts != nil {
		o = *opts
	}
	if err := o.Selection.Check(); err != nil {
		return nil, err
	}
	if r.single {
		s, err := newModelSource(r.Files, []int{r.rank}, &o)
		if err != nil {
			return nil, err
		}
		s.choose()
		return s, nil
	}
	ranks := make([]int, len(r.Files))
	for i := range ranks {
		ranks[i] = i
	}
	s, err := newModelSource(r.Files, ranks, &o)
	if err != nil {
		return nil, err
	}
	if err := s.reconstruct(r.Files); err != nil {
		return nil, err
	}
	s.choose()
	return s, nil
}

// choose prepares to read the calls of the ranks the selection needs:
// those of which it accepts a location. A rank's thread locations come
// after every rank's location and only the calls reveal them; when the
// selection refuses some rank's location and may accept a thread's (some
// location after the ranks', probed up to maxProbe of them), they are
// defined first by a pass over the calls of every rank, as a read of the
// whole run would define them.
func (s *ModelSource) choose() {
	sel := &s.opts.Selection
	every := true
	for _, rm := range s.ranks {
		every = every && sel.KeepsLocation(rm.locs[0])
	}
	s.active = s.active[:0]
	if !every && len(s.ranks) > 1 && s.threadsMayCount() {
		for i := range s.ranks {
			s.active = append(s.active, i)
		}
		s.ranks[0].reveal()
		s.active = s.active[:0]
	}
	for i, rm := range s.ranks {
		if every || len(s.ranks) == 1 || slices.ContainsFunc(rm.locs, sel.KeepsLocation) {
			rm.r = s.files[i].Calls()
			s.active = append(s.active, i)
		}
	}
}

// maxProbe bounds the locations threadsMayCount asks the selection about.
const maxProbe = 1 << 22

// threadsMayCount reports whether the selection may accept a thread's
// location: one of the ids after the ranks', at most 65535 per rank (the
// thread index is 16 bits), asked up to maxProbe of them.
func (s *ModelSource) threadsMayCount() bool {
	n := len(s.ranks)
	if n*65535 > maxProbe {
		return true
	}
	for l := n + 1; l <= n+n*65535; l++ {
		if s.opts.Selection.KeepsLocation(model.LocID(l)) {
			return true
		}
	}
	return false
}

// newModelSource defines what the metadata of the files tell (locations,
// counters, the footers' regions and Recorded statistics, the
// function-address tables' regions), in rank order.
func newModelSource(files []*File, ranks []int, opts *ModelOptions) (*ModelSource, error) {
	s := &ModelSource{defs: new(model.Defs), opts: *opts}
	s.defs.TimeBase = model.TimeBase{TicksPerSecond: 1e9}
	var members []model.LocID
	var tables [][]FunctionName
	for i, f := range files {
		loc := model.LocID(s.defs.NumLocations() + 1)
		s.defs.AddLocation(model.Location{Native: int64(ranks[i]), Name: "rank " + itoa(ranks[i]), Process: int32(ranks[i]), MPI: true, Stream: loc})
		members = append(members, loc)
		rm := &rankModel{s: s, path: f.Path(), rank: ranks[i], locs: []model.LocID{loc},
			pending: map[Request]sendInfo{}, sends: map[Request]uint64{}, persistent: map[Request]sendInfo{}, syncInit: map[Request]bool{}, comms: map[Comm]*cref{}}
		var err error
		if rm.sizes, err = f.DatatypeSizes(); err != nil {
			return nil, err
		}
		names, err := f.FunctionNames()
		if err != nil {
			return nil, err
		}
		tables = append(tables, names)
		rm.fnNames = map[uint64]string{}
		rm.fnRegs = map[uint64]model.RegionID{}
		for _, n := range names {
			if _, dup := rm.fnNames[n.Addr]; !dup {
				rm.fnNames[n.Addr] = n.Name
			}
		}
		perf, err := f.PerfLabels()
		if err != nil {
			return nil, err
		}
		for j, p := range perf {
			rm.ctrs = append(rm.ctrs, s.defs.AddCounter(model.Counter{Native: int64(j), Name: p, Accumulating: true}))
		}
		ft, err := f.Footer()
		if err != nil {
			return nil, err
		}
		for l := range LabelAllFunctions {
			if ft.Called[l] == 0 && ft.Ignored[l] == 0 {
				continue
			}
			reg := s.region(l)
			s.defs.Recorded = append(s.defs.Recorded,
				model.Recorded{Kind: model.RecordedCount, Loc: loc, Region: reg, Value: int64(ft.Called[l])},
				model.Recorded{Kind: model.RecordedNotProfiled, Loc: loc, Region: reg, Value: int64(ft.Ignored[l])})
		}
		s.ranks = append(s.ranks, rm)
	}
	// The function-address tables' regions, after every rank's footer
	// regions, as the ranks' tables list them; an address in several
	// tables is one region, named by the first.
	for i, names := range tables {
		rm := s.ranks[i]
		for _, n := range names {
			native := -1 - int64(n.Addr)
			id, ok := s.defs.RegionByNative(native)
			if !ok {
				id = s.defs.AddRegion(model.Region{Native: native, Name: rm.fnNames[n.Addr], Kind: model.RegionUser, Paradigm: model.ParadigmUser})
			}
			rm.fnRegs[n.Addr] = id
		}
	}
	s.world = s.defs.AddComm(model.Comm{Native: int64(MPI_COMM_WORLD), Name: "MPI_COMM_WORLD", Members: members})
	s.self = s.defs.AddComm(model.Comm{Native: int64(MPI_COMM_SELF), Name: "MPI_COMM_SELF", Self: true})
	s.ranksAt = ranks
	s.files = files
	return s, nil
}

// regionKinds classifies the MPI functions for model.Region.Kind.
func regionKind(l Label) model.RegionKind {
	switch {
	case l <= LabelTestsome, l >= LabelIprobe && l <= LabelSendrecvReplace:
		return model.RegionComm
	case collClass(l) != model.ClassUnknown:
		return model.RegionCollective
	case l >= LabelFileOpen && l <= LabelMPIOTestsome, l == LabelFileCallErrhandler,
		l == LabelFileCreateErrhandler, l == LabelFileGetErrhandler, l == LabelFileSetErrhandler:
		return model.RegionIO
	case l == LabelInit, l == LabelInitThread, l == LabelFinalize:
		return model.RegionSync
	}
	return model.RegionFunction
}

func (s *ModelSource) region(l Label) model.RegionID {
	if id := s.regions[l]; id != 0 {
		return id
	}
	id := s.defs.AddRegion(model.Region{Native: int64(l), Name: l.String(), Kind: regionKind(l), Group: "MPI", Paradigm: model.ParadigmMPI})
	s.regions[l] = id
	return id
}

// Defs returns the definitions. What the files' small sections and the
// communicator reconstruction tell is defined before the first event;
// what only the calls reveal (thread locations, regions of functions no
// footer counts and of addresses outside the function-address tables,
// communicators of unknown membership) is added while the stream is read,
// before its first use: for a run, all of it at once (see the Selection
// section of [ModelSource]), for one rank's file, one by one.
func (s *ModelSource) Defs() *model.Defs { return s.defs }

// Event returns the current event, owned by the source and valid until
// the next call to Next. Before the first Next it is a zero Event.
func (s *ModelSource) Event() *model.Event { return &s.ev }

// Err returns the first error of the underlying readers.
func (s *ModelSource) Err() error { return s.err }

// All returns a single-use iterator over the remaining events; see
// model.All.
func (s *ModelSource) All() iter.Seq2[*model.Event, error] { return model.All(s) }

// Close ends the source: Next returns false after it. The source opened
// nothing, so it closes nothing: the Run and its Files are the caller's to
// close. Close returns nil, every time.
func (s *ModelSource) Close() error {
	s.closed = true
	return nil
}

// Next advances to the next event the selection accepts.
func (s *ModelSource) Next() bool {
	if s.closed {
		return false
	}
	for s.next() {
		if s.opts.Selection.Keep(&s.ev) {
			return true
		}
	}
	return false
}

// next advances to the next event of the ranks read.
func (s *ModelSource) next() bool {
	if s.err != nil {
		return false
	}
	if len(s.active) == 1 {
		rm := s.ranks[s.active[0]]
		if !rm.advance() {
			if s.err == nil {
				s.err = rm.r.Err()
			}
			return false
		}
		s.ev = rm.queue[rm.qi]
		return true
	}
	var w kmerge.Key[int64]
	if !s.started {
		s.started = true
		w = s.merge.Start(len(s.active), s.key)
	} else {
		w = s.merge.Push(s.win, s.key(s.win))
	}
	if w.Done() || s.err != nil {
		return false
	}
	s.win = w.Source()
	rm := s.ranks[s.active[s.win]]
	s.ev = rm.queue[rm.qi]
	return true
}

// key moves rank i to its next event and returns its merge key: time,
// then location, then i. It returns Done at the end or on an error, which
// it keeps.
func (s *ModelSource) key(i int) kmerge.Key[int64] {
	rm := s.ranks[s.active[i]]
	if rm.advance() {
		ev := &rm.queue[rm.qi]
		return kmerge.MakeKey(int64(ev.Time), uint32(ev.Loc), i)
	}
	if err := rm.r.Err(); err != nil && s.err == nil {
		s.err = err
	}
	return kmerge.Done[int64]()
}

// advance moves to the rank's next event, decoding calls as needed.
func (rm *rankModel) advance() bool {
	rm.qi++
	for rm.qi >= len(rm.queue) {
		if !rm.r.Next() {
			return false
		}
		rm.queue = rm.queue[:0]
		rm.qi = 0
		rm.events(rm.r.Record())
	}
	return true
}

// reveal is called before a definition that only the calls reveal is
// made (a thread location, the region of a function no footer counts or
// of an address outside every function-address table, a communicator of
// unknown membership). The first time, in a source of several ranks, it
// makes every such definition of every rank up to the last one read,
// rank by rank, each in the order of its rank's calls: a pass over their
// calls, which runs the model of each rank's calls on its own (a rank's
// model depends on no other rank's calls) and keeps only the
// definitions. So they get the same ids whichever ranks are read and
// whichever call comes first; the reading goes on with every definition
// made.
func (rm *rankModel) reveal() {
	s := rm.s
	if s.revealed || len(s.ranks) == 1 {
		return
	}
	s.revealed = true
	report := s.report
	// The ranks after the last one read can wait: their definitions
	// follow those of the ranks read, which need none of them.
	last := s.active[len(s.active)-1]
	for i, real := range s.ranks[:last+1] {
		d := &rankModel{s: s, path: real.path, rank: real.rank, locs: real.locs, sizes: real.sizes,
			fnNames: real.fnNames, fnRegs: real.fnRegs, comms: map[Comm]*cref{}, unknown: real.unknown,
			unkByID: real.unkByID, results: real.results, replay: true, gen: real.gen, ctrs: real.ctrs,
			pending: map[Request]sendInfo{}, sends: map[Request]uint64{}, persistent: map[Request]sendInfo{}, syncInit: map[Request]bool{}}
		d.r = s.files[i].Calls()
		for d.r.Next() {
			d.queue = d.queue[:0]
			d.events(d.r.Record())
		}
		// A read error ends the rank's definitions here, alike for every
		// source; one that reads the rank reports it where it meets it.
		for _, c := range d.unknown {
			c.msgs, c.colls, c.bad = 0, 0, 0 // counted when the events are read
		}
		real.locs, real.unknown, real.unkByID, real.gen = d.locs, d.unknown, d.unkByID, d.gen
	}
	s.report = report
}

func (rm *rankModel) loc(thread uint16) model.LocID {
	if int(thread) >= len(rm.locs) {
		rm.reveal()
	}
	for int(thread) >= len(rm.locs) {
		t := len(rm.locs)
		l := rm.s.defs.AddLocation(model.Location{
			Native: int64(rm.rank), Name: "rank " + itoa(rm.rank) + " thread " + itoa(t),
			Process: int32(rm.rank), Thread: int32(t), MPI: true, Stream: rm.locs[0]})
		rm.locs = append(rm.locs, l)
	}
	return rm.locs[thread]
}

func (rm *rankModel) comm(c Comm) model.CommID {
	switch c {
	case MPI_COMM_WORLD:
		return rm.s.world
	case MPI_COMM_SELF:
		return rm.s.self
	}
	return rm.ref(c).id
}

// ref returns the rank's view of communicator handle c (not WORLD or
// SELF), defining a communicator of unknown membership for a handle no
// recorded call created.
func (rm *rankModel) ref(c Comm) *cref {
	if r, ok := rm.comms[c]; ok {
		return r
	}
	why := "created by no recorded call"
	if rm.s.cset == nil {
		why = "not reconstructed: the run's rank files were not all read"
	}
	return rm.unknownRef(c, why)
}

// An unknownKey names the communicators of unknown membership of a rank
// that share one definition: those bound to the same handle for the same
// reason.
type unknownKey struct {
	handle Comm
	why    string
}

// unknownRef binds handle c to a communicator of unknown membership. The
// communicators bound to one handle for one reason, one after another (a
// handle freed and made again by the same unrecorded call), share one
// definition and one count: nothing tells them apart, and so the
// definitions and notes grow with the distinct handles and reasons, not
// with the constructor calls.
func (rm *rankModel) unknownRef(c Comm, why string) *cref {
	k := unknownKey{c, why}
	if r, ok := rm.unkByID[k]; ok {
		rm.comms[c] = r
		return r
	}
	if !rm.s.revealed {
		rm.reveal()
		if r, ok := rm.unkByID[k]; ok {
			rm.comms[c] = r
			return r
		}
	}
	native := int64(rm.rank+1)<<32 | int64(rm.gen)<<16 | int64(c)
	rm.gen++
	r := &cref{handle: c, why: why, id: rm.s.defs.AddComm(model.Comm{Native: native,
		Name: "rank " + itoa(rm.rank) + " " + c.String() + " " + itoa(int(c)) + " (members unknown)"})}
	rm.comms[c] = r
	rm.unknown = append(rm.unknown, r)
	if rm.unkByID == nil {
		rm.unkByID = make(map[unknownKey]*cref)
	}
	rm.unkByID[k] = r
	return r
}

// peer maps a rank in comm c to a location, or 0 when it cannot; a
// message whose communicator's membership is unknown is counted.
func (rm *rankModel) peer(c Comm, rank int32, self model.LocID) model.LocID {
	switch {
	case c == MPI_COMM_SELF && rank == 0:
		return self
	case c == MPI_COMM_WORLD:
		return rm.s.locOf(rank)
	case c == MPI_COMM_SELF:
		return 0
	}
	r := rm.ref(c)
	if r.v.g == nil {
		if rank >= 0 {
			r.msgs++
			rm.s.report.UnknownMessages++
		}
		return 0
	}
	_, peers := r.v.g.group(r.v.side)
	if rank < 0 || int(rank) >= len(peers) {
		return 0
	}
	return rm.s.locOf(peers[rank])
}

// locOf returns the main location of world rank r, or 0 when the source
// does not read that rank.
func (s *ModelSource) locOf(r int32) model.LocID {
	if len(s.ranksAt) == 1 {
		if int(r) == s.ranksAt[0] {
			return s.ranks[0].locs[0]
		}
		return 0
	}
	// A Run's ranks are 0 … n-1 in order.
	if r >= 0 && int(r) < len(s.ranks) {
		return s.ranks[r].locs[0]
	}
	return 0
}

// bytes returns count × the datatype's size, and whether the size is known.
func (rm *rankModel) bytes(count int32, dt Datatype) (int64, bool) {
	if int(dt) < len(rm.sizes) && rm.sizes[dt] > 0 {
		return int64(count) * int64(rm.sizes[dt]), true
	}
	return 0, count == 0
}

// send queues a Send event; match is its request id, 0 for a blocking
// send.
func (rm *rankModel) send(t model.Time, loc model.LocID, si sendInfo, sync bool, match uint64) {
	if si.peer < 0 {
		return // MPI_PROC_NULL: no message
	}
	b, known := rm.bytes(si.count, si.datatype)
	ev := model.Event{Time: t, Loc: loc, Kind: model.KindSend, Peer: rm.peer(si.comm, si.peer, loc),
		Comm: rm.comm(si.comm), Tag: si.tag, Bytes: b, Match: match}
	if sync {
		ev.Flags |= model.SyncMode
	}
	if !known {
		ev.Flags |= model.BytesUnknown
	}
	rm.queue = append(rm.queue, ev)
}

// recv queues a Recv event; st is the completing status, if recorded.
func (rm *rankModel) recv(t model.Time, loc model.LocID, si sendInfo, st []Status, i int) {
	ev := model.Event{Time: t, Loc: loc, Kind: model.KindRecv, Comm: rm.comm(si.comm), Tag: si.tag, Match: si.match}
	src := si.peer
	if i >= 0 && i < len(st) {
		if st[i].Source < 0 {
			return // from MPI_PROC_NULL: no message
		}
		src = st[i].Source
		ev.Tag = st[i].Tag
		ev.Bytes = int64(st[i].Bytes)
	} else {
		b, known := rm.bytes(si.count, si.datatype)
		ev.Bytes = b
		if !known {
			ev.Flags |= model.BytesUnknown
		}
	}
	ev.Peer = rm.peer(si.comm, src, loc)
	rm.queue = append(rm.queue, ev)
}

// newRequest returns a fresh request id for a non-blocking operation:
// DUMPI's handles are reused once a request completes, the ids never.
func (rm *rankModel) newRequest() uint64 {
	rm.lastReq++
	return rm.lastReq
}

// post makes si a pending receive of request req with a fresh request id
// and queues its RecvPost: Peer the source's location (0 for
// MPI_ANY_SOURCE or a communicator of unknown membership, which does not
// count the message as unresolved: its Recv does).
func (rm *rankModel) post(t model.Time, loc model.LocID, req Request, si sendInfo) {
	si.match = rm.newRequest()
	rm.pending[req] = si
	ev := model.Event{Time: t, Loc: loc, Kind: model.KindRecvPost, Comm: rm.comm(si.comm), Tag: si.tag, Match: si.match}
	if si.peer >= 0 && (si.comm == MPI_COMM_WORLD || si.comm == MPI_COMM_SELF || rm.ref(si.comm).v.g != nil) {
		ev.Peer = rm.peer(si.comm, si.peer, loc)
	}
	rm.queue = append(rm.queue, ev)
}

// isend queues the Send of a non-blocking send of request req, with a
// fresh request id that its completion's SendDone repeats.
func (rm *rankModel) isend(t model.Time, loc model.LocID, req Request, si sendInfo, sync bool) {
	if si.peer < 0 {
		return // MPI_PROC_NULL: no message, nothing to complete
	}
	m := rm.newRequest()
	rm.sends[req] = m
	rm.send(t, loc, si, sync, m)
}

// complete emits the Recv of request req, completed with status i of st,
// or the SendDone of a non-blocking send.
func (rm *rankModel) complete(t model.Time, loc model.LocID, req Request, st []Status, i int) {
	if m, ok := rm.sends[req]; ok {
		delete(rm.sends, req)
		rm.queue = append(rm.queue, model.Event{Time: t, Loc: loc, Kind: model.KindSendDone, Match: m})
		return
	}
	si, ok := rm.pending[req]
	if !ok {
		return
	}
	delete(rm.pending, req) // a persistent receive is pending again after its next Start
	if i >= 0 && i < len(st) && st[i].Cancelled != 0 {
		return
	}
	rm.recv(t, loc, si, st, i)
}

func (rm *rankModel) coll(t model.Time, loc model.LocID, l Label, c Comm, root int32, sent, recvd int64) {
	if c != MPI_COMM_WORLD && c != MPI_COMM_SELF {
		if r := rm.ref(c); r.v.g == nil {
			r.colls++
			rm.s.report.UnknownCollectives++
			root = -1 // no location to map it to; not a message either
		} else if r.v.g.remote != nil {
			root = -1 // an intercommunicator's root is MPI_ROOT or a remote rank
		}
	}
	ev := model.Event{Time: t, Loc: loc, Kind: model.KindCollBegin, Region: rm.s.region(l), Comm: rm.comm(c),
		Class: collClass(l), Bytes: sent, Recvd: recvd}
	if root >= 0 {
		ev.Peer = rm.peer(c, root, loc)
	}
	rm.queue = append(rm.queue, ev)
}

func sum32(s []int32) int64 {
	var n int64
	for _, v := range s {
		n += int64(v)
	}
	return n
}

// isRoot reports whether this rank is root in comm c, when that is known.
func (rm *rankModel) isRoot(c Comm, root int32) bool {
	me, ok := rm.myRank(c)
	return ok && me == root
}

// myRank returns the rank's rank in communicator c, if known.
func (rm *rankModel) myRank(c Comm) (int32, bool) {
	switch c {
	case MPI_COMM_WORLD:
		return int32(rm.rank), true
	case MPI_COMM_SELF:
		return 0, true
	}
	r := rm.ref(c)
	return r.v.me, r.v.g != nil
}

// events appends the events of one call to the queue.
func (rm *rankModel) events(c *Call) {
	start, stop := c.WallStart(), c.WallStop()
	if rm.s.opts.CPUTime || !c.Mask.WallTime() {
		start, stop = c.CPUStart(), c.CPUStop()
	}
	t0, t1 := model.Time(start), model.Time(stop)
	loc := rm.loc(c.Thread)
	switch a := c.Args().(type) {
	case *FunctionEnter:
		rm.queue = append(rm.queue, model.Event{Time: t0, Loc: loc, Kind: model.KindEnter, Region: rm.fnRegion(a.Fn)})
		rm.counters(t0, loc, c, true)
		return
	case *FunctionExit:
		rm.counters(t1, loc, c, false)
		rm.queue = append(rm.queue, model.Event{Time: t1, Loc: loc, Kind: model.KindLeave, Region: rm.fnRegion(a.Fn)})
		return
	}
	if rm.s.regions[c.Label] == 0 {
		rm.reveal()
	}
	reg := rm.s.region(c.Label)
	rm.queue = append(rm.queue, model.Event{Time: t0, Loc: loc, Kind: model.KindEnter, Region: reg})
	rm.counters(t0, loc, c, true)
	rm.commCall(c)
	coll := rm.modelEvents(&callEnv{t0, t1, loc, c.Label}, c.Args())
	if coll {
		rm.queue = append(rm.queue, model.Event{Time: t1, Loc: loc, Kind: model.KindCollEnd})
	}
	rm.counters(t1, loc, c, false)
	rm.queue = append(rm.queue, model.Event{Time: t1, Loc: loc, Kind: model.KindLeave, Region: reg})
}

// A callEnv is what the model roles of a call share: its start and end
// time, location and label.
type callEnv struct {
	t0, t1 model.Time
	loc    model.LocID
	label  Label
}

// The model roles of the call table (the model column of calls.tsv,
// dispatched by modelEvents in model_gen.go). Point-to-point: sends at the
// start, receives and completions at the end.

func (rm *rankModel) modelSend(e *callEnv, count int32, dt Datatype, dest, tag int32, c Comm) {
	rm.send(e.t0, e.loc, sendInfo{count, dt, dest, tag, c, false, 0}, false, 0)
}

func (rm *rankModel) modelSsend(e *callEnv, count int32, dt Datatype, dest, tag int32, c Comm) {
	rm.send(e.t0, e.loc, sendInfo{count, dt, dest, tag, c, false, 0}, true, 0)
}

func (rm *rankModel) modelIsend(e *callEnv, count int32, dt Datatype, dest, tag int32, c Comm, r Request) {
	rm.isend(e.t0, e.loc, r, sendInfo{count, dt, dest, tag, c, false, 0}, false)
}

func (rm *rankModel) modelIssend(e *callEnv, count int32, dt Datatype, dest, tag int32, c Comm, r Request) {
	rm.isend(e.t0, e.loc, r, sendInfo{count, dt, dest, tag, c, false, 0}, true)
}

func (rm *rankModel) modelRecv(e *callEnv, count int32, dt Datatype, source, tag int32, c Comm, st []Status) {
	rm.recv(e.t1, e.loc, sendInfo{count, dt, source, tag, c, true, 0}, st, 0)
}

func (rm *rankModel) modelSendrecv(e *callEnv, sendcount int32, sendtype Datatype, dest, sendtag int32,
	recvcount int32, recvtype Datatype, source, recvtag int32, c Comm, st []Status) {
	rm.send(e.t0, e.loc, sendInfo{sendcount, sendtype, dest, sendtag, c, false, 0}, false, 0)
	rm.recv(e.t1, e.loc, sendInfo{recvcount, recvtype, source, recvtag, c, true, 0}, st, 0)
}

func (rm *rankModel) modelIrecv(e *callEnv, count int32, dt Datatype, source, tag int32, c Comm, r Request) {
	rm.post(e.t0, e.loc, r, sendInfo{count, dt, source, tag, c, true, 0})
}

func (rm *rankModel) modelSendInit(e *callEnv, count int32, dt Datatype, dest, tag int32, c Comm, r Request) {
	rm.persistent[r] = sendInfo{count, dt, dest, tag, c, false, 0}
}

func (rm *rankModel) modelSsendInit(e *callEnv, count int32, dt Datatype, dest, tag int32, c Comm, r Request) {
	rm.persistent[r] = sendInfo{count, dt, dest, tag, c, false, 0}
	rm.syncInit[r] = true
}

func (rm *rankModel) modelRecvInit(e *callEnv, count int32, dt Datatype, source, tag int32, c Comm, r Request) {
	rm.persistent[r] = sendInfo{count, dt, source, tag, c, true, 0}
}

func (rm *rankModel) modelStart(e *callEnv, r Request) { rm.start(e.t0, e.loc, r) }

func (rm *rankModel) modelStartall(e *callEnv, rs []Request) {
	for _, r := range rs {
		rm.start(e.t0, e.loc, r)
	}
}

// modelCancel forgets a pending receive: a cancelled receive delivers
// nothing.
func (rm *rankModel) modelCancel(e *callEnv, r Request) { delete(rm.pending, r) }

func (rm *rankModel) modelFree(e *callEnv, r Request) {
	delete(rm.pending, r)
	delete(rm.sends, r)
	delete(rm.persistent, r)
	delete(rm.syncInit, r)
}

func (rm *rankModel) modelWait(e *callEnv, r Request, st []Status) {
	rm.complete(e.t1, e.loc, r, st, 0)
}

func (rm *rankModel) modelTest(e *callEnv, flag int32, r Request, st []Status) {
	if flag != 0 {
		rm.complete(e.t1, e.loc, r, st, 0)
	}
}

func (rm *rankModel) modelWaitany(e *callEnv, index int32, rs []Request, st []Status) {
	if index >= 0 && int(index) < len(rs) {
		rm.complete(e.t1, e.loc, rs[index], st, 0)
	}
}

func (rm *rankModel) modelTestany(e *callEnv, flag, index int32, rs []Request, st []Status) {
	if flag != 0 {
		rm.modelWaitany(e, index, rs, st)
	}
}

func (rm *rankModel) modelWaitall(e *callEnv, rs []Request, st []Status) {
	for i, r := range rs {
		rm.complete(e.t1, e.loc, r, st, i)
	}
}

func (rm *rankModel) modelTestall(e *callEnv, flag int32, rs []Request, st []Status) {
	if flag != 0 {
		rm.modelWaitall(e, rs, st)
	}
}

// modelWaitsome completes the requests indices names (also for Testsome,
// whose empty index list means none completed).
func (rm *rankModel) modelWaitsome(e *callEnv, indices []int32, rs []Request, st []Status) {
	for i, x := range indices {
		if x >= 0 && int(x) < len(rs) {
			rm.complete(e.t1, e.loc, rs[x], st, i)
		}
	}
}

// Collectives: one CollBegin at the start with the bytes this rank sends
// and receives (root -1 for a collective without one).

func (rm *rankModel) modelBarrier(e *callEnv, c Comm) {
	rm.coll(e.t0, e.loc, e.label, c, -1, 0, 0)
}

func (rm *rankModel) modelBcast(e *callEnv, count int32, dt Datatype, root int32, c Comm) {
	n, _ := rm.bytes(count, dt)
	if rm.isRoot(c, root) {
		rm.coll(e.t0, e.loc, e.label, c, root, n, 0)
	} else {
		rm.coll(e.t0, e.loc, e.label, c, root, 0, n)
	}
}

func (rm *rankModel) modelReduce(e *callEnv, count int32, dt Datatype, root int32, c Comm) {
	n, _ := rm.bytes(count, dt)
	var in int64
	if rm.isRoot(c, root) {
		in = n
	}
	rm.coll(e.t0, e.loc, e.label, c, root, n, in)
}

// modelAllreduce is also Scan and Exscan.
func (rm *rankModel) modelAllreduce(e *callEnv, count int32, dt Datatype, c Comm) {
	n, _ := rm.bytes(count, dt)
	rm.coll(e.t0, e.loc, e.label, c, -1, n, n)
}

// modelGather is also Allgather (root -1): the receive count is per
// member.
func (rm *rankModel) modelGather(e *callEnv, sendcount int32, sendtype Datatype, recvcount int32, recvtype Datatype, root int32, c Comm) {
	out, _ := rm.bytes(sendcount, sendtype)
	in, _ := rm.bytes(recvcount, recvtype)
	rm.coll(e.t0, e.loc, e.label, c, root, out, in*int64(rm.commSize(c)))
}

// modelGatherv is also Allgatherv (root -1).
func (rm *rankModel) modelGatherv(e *callEnv, sendcount int32, sendtype Datatype, recvcounts []int32, recvtype Datatype, root int32, c Comm) {
	out, _ := rm.bytes(sendcount, sendtype)
	in, _ := rm.bytes(sumCount(recvcounts), recvtype)
	rm.coll(e.t0, e.loc, e.label, c, root, out, in)
}

// modelScatter: the send count is per member.
func (rm *rankModel) modelScatter(e *callEnv, sendcount int32, sendtype Datatype, recvcount int32, recvtype Datatype, root int32, c Comm) {
	out, _ := rm.bytes(sendcount, sendtype)
	in, _ := rm.bytes(recvcount, recvtype)
	rm.coll(e.t0, e.loc, e.label, c, root, out*int64(rm.commSize(c)), in)
}

func (rm *rankModel) modelScatterv(e *callEnv, sendcounts []int32, sendtype Datatype, recvcount int32, recvtype Datatype, root int32, c Comm) {
	out, _ := rm.bytes(sumCount(sendcounts), sendtype)
	in, _ := rm.bytes(recvcount, recvtype)
	rm.coll(e.t0, e.loc, e.label, c, root, out, in)
}

func (rm *rankModel) modelAlltoall(e *callEnv, sendcount int32, sendtype Datatype, recvcount int32, recvtype Datatype, c Comm) {
	out, _ := rm.bytes(sendcount, sendtype)
	in, _ := rm.bytes(recvcount, recvtype)
	k := int64(rm.commSize(c))
	rm.coll(e.t0, e.loc, e.label, c, -1, out*k, in*k)
}

func (rm *rankModel) modelAlltoallv(e *callEnv, sendcounts []int32, sendtype Datatype, recvcounts []int32, recvtype Datatype, c Comm) {
	out, _ := rm.bytes(sumCount(sendcounts), sendtype)
	in, _ := rm.bytes(sumCount(recvcounts), recvtype)
	rm.coll(e.t0, e.loc, e.label, c, -1, out, in)
}

func (rm *rankModel) modelAlltoallw(e *callEnv, sendcounts []int32, sendtypes []Datatype, recvcounts []int32, recvtypes []Datatype, c Comm) {
	var out, in int64
	for i := range sendcounts {
		if i < len(sendtypes) {
			n, _ := rm.bytes(sendcounts[i], sendtypes[i])
			out += n
		}
	}
	for i := range recvcounts {
		if i < len(recvtypes) {
			n, _ := rm.bytes(recvcounts[i], recvtypes[i])
			in += n
		}
	}
	rm.coll(e.t0, e.loc, e.label, c, -1, out, in)
}

func (rm *rankModel) modelReduceScatter(e *callEnv, recvcounts []int32, dt Datatype, c Comm) {
	n, _ := rm.bytes(sumCount(recvcounts), dt)
	var in int64
	if me, ok := rm.myRank(c); ok && me >= 0 && int(me) < len(recvcounts) {
		in, _ = rm.bytes(recvcounts[me], dt)
	}
	rm.coll(e.t0, e.loc, e.label, c, -1, n, in)
}

// sumCount is the sum of counts as a count, saturated at the largest int32.
func sumCount(counts []int32) int32 { return int32(min(sum32(counts), 1<<31-1)) }

// commSize returns the number of members of c when known (the run's rank
// count for MPI_COMM_WORLD, 1 for MPI_COMM_SELF), else 1.
func (rm *rankModel) commSize(c Comm) int {
	switch c {
	case MPI_COMM_WORLD:
		return len(rm.s.ranks)
	case MPI_COMM_SELF:
		return 1
	}
	if r := rm.ref(c); r.v.g != nil {
		_, peers := r.v.g.group(r.v.side)
		return len(peers)
	}
	return 1
}

func (rm *rankModel) start(t model.Time, loc model.LocID, r Request) {
	si, ok := rm.persistent[r]
	if !ok {
		return
	}
	if si.recv {
		rm.post(t, loc, r, si)
		return
	}
	rm.isend(t, loc, r, si, rm.syncInit[r])
}

func (rm *rankModel) counters(t model.Time, loc model.LocID, c *Call, in bool) {
	for i, p := range c.Perf {
		if i >= len(rm.ctrs) {
			return
		}
		v := p.Out
		if in {
			v = p.In
		}
		rm.queue = append(rm.queue, model.Event{Time: t, Loc: loc, Kind: model.KindCounter, Counter: rm.ctrs[i], Value: v})
	}
}

func (rm *rankModel) fnRegion(addr int64) model.RegionID {
	a := uint64(addr)
	if id, ok := rm.fnRegs[a]; ok {
		return id
	}
	// Regions are shared by the ranks: look the native id up first.
	native := -1 - addr
	id, found := rm.s.defs.RegionByNative(native)
	if !found && !rm.s.revealed {
		rm.reveal()
		id, found = rm.s.defs.RegionByNative(native)
	}
	if !found {
		name, ok := rm.fnNames[a]
		if !ok {
			name = "function " + itoa(int(addr))
		}
		id = rm.s.defs.AddRegion(model.Region{Native: native, Name: name, Kind: model.RegionUser})
	}
	rm.fnRegs[a] = id
	return id
}
