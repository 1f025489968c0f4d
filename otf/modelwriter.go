package otf

import (
	"fmt"
	"maps"
	"math"

	"github.com/hpctrace/hpctrace/model"
)

// ModelWriterOptions configures a ModelWriter. A nil or zero value means
// short records without compression, one stream per location with events
// and times written as they are.
type ModelWriterOptions struct {
	// Stub is the name stub of the files ("trace" → trace.otf,
	// trace.0.def, trace.1.events, …); "" means "trace".
	Stub string
	// WriterOptions sets the record syntax and compression of every file.
	WriterOptions
	// Streams is the number of streams the processes are spread over; 0
	// means one stream per location with events. Processes get streams
	// in the order of their first event; once all streams exist, each
	// further process joins the stream with the fewest, as in the
	// reference writer.
	Streams int
	// Origin is subtracted from every time: OTF times are unsigned, so a
	// trace that starts before 0 (PICL writes negative times before its
	// clock synchronisation) needs its earliest time here. An event
	// before Origin is rejected with an error wrapping ErrRange.
	Origin model.Time
	// Creator is the text of the DEFCREATOR record; "" means "hpctrace".
	Creator string
}

// A ModelWriter writes model events as an OTF trace through a
// [TraceWriter]: the definitions from the model's Defs, then one record
// (or a few) per event.
//
// Definitions map as follows. The time base becomes DEFTIMERRESOLUTION (1
// tick per second when the model's is unknown). Locations become processes
// (token = the model's location id; a thread's parent is the main thread
// of its process). Regions become functions (token = region id) in
// function groups named by Region.Group, else by Region.Paradigm as
// VampirTrace names them ("Application", "MPI", "OMP", "PTHREAD", "CUDA",
// "I/O", "VT_API"), else "MPI" for MPI calls ([model.Region.MPI]) and
// communication and collective regions, "I/O" for I/O regions and
// "Application" for the rest. Sites, and the file and line of regions, become DEFSCL and
// DEFSCLFILE records. Communicators become process groups (token = comm
// id). Collective operations become DEFCOLLOPs, one per (region, class)
// in the order of first use, named by the region (else the class).
// Counters become DEFCOUNTERs in one counter group. Definitions added to
// the Defs while events are written (as sources add them while they are
// read) are written when the first event after them arrives.
//
// Events map one to one: Enter, Leave, Send, Receive, BeginCollOp,
// EndCollOp, Counter; ProgramBegin and ProgramEnd become BeginProcess and
// EndProcess (which [ModelSource] reads as markers). RecvPost, SendDone
// and Parameter events have no OTF record: they are not written, and
// [ModelWriter.Unwritten] counts them (Send and Recv lose their request,
// Match). A Marker becomes a zero-length Enter/Leave of its
// region and an EVTCOMMENT with its text, so it reads back through
// [ModelSource] as a visit and a text marker.
//
// What the conversion loses: native ids (PICL event types and
// processors, ranks, the input's tokens: the tokens are model ids); the
// time origin (see ModelWriterOptions.Origin); event Flags (waited or
// not, synchronous mode, unknown size); message sizes of 4 GiB and more
// (clamped); location hosts; region kinds beyond the group name; the
// statistics in Defs.Recorded; subsets; double quotes in names and texts
// (OTF strings have no escaping: they become blanks). An Enter of no
// region (0) is dropped. A Leave closes the innermost open region,
// whatever region it names ([model.ClassifyLeave]), and is written as the
// Leave of that region; a Leave with nothing open is written as it is when
// it names a region and dropped when it names none. A Send or Recv without a known
// peer (Peer 0) is dropped, since an OTF message must name its partner
// process and token 0 would read back as a process of its own; [ModelWriter.NoPeer]
// counts them. A collective without a root (Peer 0) gets the root
// 0xffffffff, which names no process.
//
// A ModelWriter is not safe for concurrent use.
type ModelWriter struct {
	w      *TraceWriter
	defs   *model.Defs
	origin model.Time
	err    error
	closed bool
	n      int64 // events written
	noPeer int64 // messages dropped for want of a peer

	dropped map[model.Kind]int64 // events that gave no record, by kind

	// definitions written so far, by count
	started                            bool
	nloc, nreg, nsite, ncomm, ncounter int
	groups                             map[string]uint32
	files                              map[string]uint32
	scls                               map[model.Site]uint32
	siteSCL                            []uint32 // SCL token by SiteID
	colls                              map[collKey]uint32
	mainThread                         map[int32]model.LocID
	counterGroup                       bool

	open    model.OpenRegions
	rec     Record
	creator []byte
	comment []byte
}

// A collKey names a collective operation: a region and a class.
type collKey struct {
	region model.RegionID
	class  model.Class
}

// NewModelWriter returns a ModelWriter of the events of a trace with the
// definitions defs, writing the files of the stub opts.Stub through c. It
// writes nothing until the first Write or Close, and its Close closes
// every file it created (and nothing else).
func NewModelWriter(c model.Creator, defs *model.Defs, opts *ModelWriterOptions) (*ModelWriter, error) {
	if defs == nil {
		return nil, fmt.Errorf("otf: NewModelWriter: nil Defs: %w", ErrRange)
	}
	var o ModelWriterOptions
	if opts != nil {
		o = *opts
	}
	if o.Streams < 0 {
		return nil, fmt.Errorf("otf: ModelWriterOptions.Streams %d: %w", o.Streams, ErrRange)
	}
	if o.Creator == "" {
		o.Creator = "hpctrace"
	}
	maxStreams := o.Streams
	if maxStreams == 0 {
		maxStreams = math.MaxInt32
	}
	tw, err := NewTraceWriter(c, &TraceWriterOptions{Stub: o.Stub, WriterOptions: o.WriterOptions, MaxStreams: maxStreams})
	if err != nil {
		return nil, err
	}
	w := &ModelWriter{w: tw, defs: defs, origin: o.Origin,
		groups: map[string]uint32{}, files: map[string]uint32{}, scls: map[model.Site]uint32{},
		colls: map[collKey]uint32{}, mainThread: map[int32]model.LocID{}}
	w.creator = quoteless(o.Creator)
	return w, nil
}

// def writes one definition record.
func (w *ModelWriter) def(set func(*Record)) {
	if w.err != nil {
		return
	}
	w.rec = Record{}
	set(&w.rec)
	w.err = w.w.Write(&w.rec)
}

// writeDefs writes the definitions added since the last call.
func (w *ModelWriter) writeDefs() error {
	d := w.defs
	if !w.started {
		w.started = true
		w.def(func(r *Record) { r.SetDefCreator(DefCreator{Creator: w.creator}) })
		w.def(func(r *Record) {
			r.SetDefTimerResolution(DefTimerResolution{TicksPerSecond: max(d.TimeBase.TicksPerSecond, 1)})
		})
	}
	if locs := d.Locations(); len(locs) > w.nloc {
		for _, l := range locs[w.nloc:] {
			if l.Thread == 0 {
				if _, ok := w.mainThread[l.Process]; !ok {
					w.mainThread[l.Process] = l.ID
				}
			}
		}
		for _, l := range locs[w.nloc:] {
			p := DefProcess{Process: uint32(l.ID), Name: quoteless(l.Name)}
			if l.Thread != 0 {
				p.Parent = uint32(w.mainThread[l.Process])
			}
			w.def(func(r *Record) { r.SetDefProcess(p) })
		}
		w.nloc = len(locs)
	}
	if comms := d.Comms(); len(comms) > w.ncomm {
		for _, c := range comms[w.ncomm:] {
			g := DefProcessGroup{Group: uint32(c.ID), Name: quoteless(c.Name)}
			for _, m := range c.Members {
				g.Members = append(g.Members, uint32(m))
			}
			w.def(func(r *Record) { r.SetDefProcessGroup(g) })
		}
		w.ncomm = len(comms)
	}
	if sites := d.Sites(); len(sites) > w.nsite {
		for _, s := range sites[w.nsite:] {
			for int(s.ID) >= len(w.siteSCL) {
				w.siteSCL = append(w.siteSCL, 0)
			}
			w.siteSCL[s.ID] = w.scl(s)
		}
		w.nsite = len(sites)
	}
	if regs := d.Regions(); len(regs) > w.nreg {
		for _, reg := range regs[w.nreg:] {
			w.function(reg)
		}
		w.nreg = len(regs)
	}
	if ctrs := d.Counters(); len(ctrs) > w.ncounter {
		if !w.counterGroup {
			w.counterGroup = true
			w.def(func(r *Record) { r.SetDefCounterGroup(DefCounterGroup{Group: 1, Name: []byte("counters")}) })
		}
		for _, c := range ctrs[w.ncounter:] {
			props := uint32(1) // absolute, unsigned 64-bit
			if c.Accumulating {
				props = 0
			}
			w.def(func(r *Record) {
				r.SetDefCounter(DefCounter{Counter: uint32(c.ID), Group: 1, Name: quoteless(c.Name),
					Properties: props, Unit: quoteless(c.Unit)})
			})
		}
		w.ncounter = len(ctrs)
	}
	return w.err
}

// scl returns the source-location token of s, defining it (and its file)
// if it is new.
func (w *ModelWriter) scl(s model.Site) uint32 {
	s.ID = 0
	if t, ok := w.scls[s]; ok {
		return t
	}
	f, ok := w.files[s.File]
	if !ok {
		f = uint32(len(w.files) + 1)
		w.files[s.File] = f
		w.def(func(r *Record) { r.SetDefSCLFile(DefSCLFile{SCLFile: f, Name: quoteless(s.File)}) })
	}
	t := uint32(len(w.scls) + 1)
	w.scls[s] = t
	w.def(func(r *Record) { r.SetDefSCL(DefSCL{SCL: t, SCLFile: f, Line: uint32(max(s.Line, 0))}) })
	return t
}

// paradigmGroups names the function group of a region of each paradigm
// without a group, as VampirTrace names them ([ModelSource] reads them
// back as the same paradigms).
var paradigmGroups = map[model.Paradigm]string{model.ParadigmUser: "Application", model.ParadigmMPI: "MPI",
	model.ParadigmOpenMP: "OMP", model.ParadigmThreads: "PTHREAD", model.ParadigmAccelerator: "CUDA", model.ParadigmIO: "I/O",
	model.ParadigmMeasurement: "VT_API"}

// function defines region reg as a function, and its group if it is new.
func (w *ModelWriter) function(reg model.Region) {
	g := reg.Group
	if g == "" {
		g = paradigmGroups[reg.Paradigm]
	}
	if g == "" {
		switch {
		case reg.MPI(), reg.Kind == model.RegionComm, reg.Kind == model.RegionCollective:
			g = "MPI"
		case reg.Kind == model.RegionIO:
			g = "I/O"
		default:
			g = "Application"
		}
	}
	gt, ok := w.groups[g]
	if !ok {
		gt = uint32(len(w.groups) + 1)
		w.groups[g] = gt
		w.def(func(r *Record) { r.SetDefFunctionGroup(DefFunctionGroup{Group: gt, Name: quoteless(g)}) })
	}
	f := DefFunction{Function: uint32(reg.ID), Group: gt, Name: quoteless(reg.Name)}
	if reg.File != "" || reg.Line != 0 {
		f.Source = w.scl(model.Site{File: reg.File, Line: reg.Line})
	}
	w.def(func(r *Record) { r.SetDefFunction(f) })
}

// collOp returns the DEFCOLLOP token of (region, class), defining it on
// first use.
func (w *ModelWriter) collOp(region model.RegionID, class model.Class) uint32 {
	k := collKey{region, class}
	if t, ok := w.colls[k]; ok {
		return t
	}
	t := uint32(len(w.colls) + 1)
	w.colls[k] = t
	name := class.String()
	if reg, ok := w.defs.Region(region); ok && reg.Name != "" {
		name = reg.Name
	}
	w.def(func(r *Record) { r.SetDefCollOp(DefCollOp{CollOp: t, Name: quoteless(name), Type: uint32(class)}) })
	return t
}

// quoteless returns s as bytes with double quotes replaced by blanks: OTF
// strings end at a double quote and have no escape.
func quoteless(s string) []byte {
	b := []byte(s)
	for i, c := range b {
		if c == '"' {
			b[i] = ' '
		}
	}
	return b
}

// Write writes the records of one event, after any definitions added to
// the Defs since the last Write. An event the writer cannot encode (a time
// before Origin, an undefined location) is rejected with an error
// wrapping ErrRange before anything of it is written. Write does not
// retain ev.
func (w *ModelWriter) Write(ev *model.Event) error {
	if w.closed {
		return ErrClosed
	}
	if w.err != nil {
		return w.err
	}
	if err := w.writeDefs(); err != nil {
		return err
	}
	if ev.Time < w.origin {
		return fmt.Errorf("otf: event %d: time %d before ModelWriterOptions.Origin %d: %w", w.n, ev.Time, w.origin, ErrRange)
	}
	if ev.Loc == 0 || int(ev.Loc) > w.nloc {
		return fmt.Errorf("otf: event %d: location %d not defined: %w", w.n, ev.Loc, ErrRange)
	}
	wrote := false
	for i, more := 0, true; more; i++ {
		more = w.event(ev, i)
		if w.err != nil {
			return w.err
		}
		if w.rec.Kind == KindUnknown {
			continue
		}
		if err := w.w.Write(&w.rec); err != nil {
			w.err = err
			return err
		}
		wrote = true
	}
	if !wrote {
		if w.dropped == nil {
			w.dropped = map[model.Kind]int64{}
		}
		w.dropped[ev.Kind]++
	}
	w.n++
	return nil
}

// event sets w.rec to the i-th OTF record for ev and reports whether
// another follows. w.rec.Kind is KindUnknown when ev gives no record.
func (w *ModelWriter) event(ev *model.Event, i int) (more bool) {
	rec := &w.rec
	*rec = Record{Time: uint64(ev.Time - w.origin), Process: uint32(ev.Loc)}
	switch ev.Kind {
	case model.KindEnter:
		if ev.Region == 0 {
			return false // an undefined region: nothing to enter
		}
		w.open.Enter(ev.Loc, ev.Region)
		v := Enter{Function: uint32(ev.Region)}
		if int(ev.Site) < len(w.siteSCL) {
			v.Source = w.siteSCL[ev.Site]
		}
		rec.SetEnter(v)
	case model.KindLeave:
		r, out := w.open.Leave(ev.Loc, ev.Region)
		if out == model.LeaveUnmatched && r == 0 {
			return false // nothing open to leave
		}
		rec.SetLeave(Leave{Function: uint32(r)})
	case model.KindSend, model.KindRecv:
		if ev.Peer == 0 {
			w.noPeer++
			return false // no partner to name
		}
		if ev.Kind == model.KindRecv {
			rec.SetReceive(Receive{Sender: uint32(ev.Peer), Length: clamp32(ev.Bytes), Tag: uint32(ev.Tag), Communicator: uint32(ev.Comm)})
			break
		}
		rec.SetSend(Send{Receiver: uint32(ev.Peer), Length: clamp32(ev.Bytes), Tag: uint32(ev.Tag), Communicator: uint32(ev.Comm)})
	case model.KindCollBegin:
		op := w.collOp(ev.Region, ev.Class)
		*rec = Record{Time: uint64(ev.Time - w.origin), Process: uint32(ev.Loc)} // collOp used rec for its definition
		rec.SetBeginCollOp(BeginCollOp{CollOp: op, MatchingID: ev.Match,
			Communicator: uint32(ev.Comm), Root: collRoot(ev.Peer), Sent: uint64(max(ev.Bytes, 0)), Received: uint64(max(ev.Recvd, 0))})
	case model.KindCollEnd:
		rec.SetEndCollOp(EndCollOp{MatchingID: ev.Match})
	case model.KindCounter:
		rec.SetCounter(Counter{Counter: uint32(ev.Counter), Value: uint64(ev.Value)})
	case model.KindProgramBegin:
		rec.SetBeginProcess(BeginProcess{})
	case model.KindProgramEnd:
		rec.SetEndProcess(EndProcess{})
	case model.KindRecvPost, model.KindSendDone, model.KindParameter, model.KindCollPost, model.KindCollDone:
		return false
	case model.KindMarker:
		// A marker of a region is a zero-length visit; its text a comment.
		steps := 0
		if ev.Region != 0 {
			steps = 2
		}
		switch {
		case i < steps && i == 0:
			rec.SetEnter(Enter{Function: uint32(ev.Region)})
		case i < steps:
			rec.SetLeave(Leave{Function: uint32(ev.Region)})
		case ev.Text != 0 || steps == 0:
			w.comment = append(w.comment[:0], w.defs.String(ev.Text)...)
			for j, c := range w.comment {
				if c == '"' {
					w.comment[j] = ' '
				}
			}
			rec.SetEventComment(EventComment{Comment: w.comment})
		}
		last := steps - 1
		if ev.Text != 0 || steps == 0 {
			last = steps
		}
		return i < last
	}
	return false
}

// collRoot is the OTF root of a collective whose root is p: its process
// token, or 0xffffffff (no root, as VampirTrace writes for a barrier) when
// p is 0.
func collRoot(p model.LocID) uint32 {
	if p == 0 {
		return ^uint32(0)
	}
	return uint32(p)
}

// NoPeer returns the number of Send and Recv events written so far that
// gave no record because their peer is unknown (Peer 0).
func (w *ModelWriter) NoPeer() int64 { return w.noPeer }

// Dropped returns the number of events written so far that gave no record,
// by kind: an Enter of no region, a Leave with nothing open, messages
// without a peer (NoPeer counts them too), and kinds OTF has no form for.
// The map is a copy, nil when nothing was dropped.
func (w *ModelWriter) Dropped() map[model.Kind]int64 { return maps.Clone(w.dropped) }

func clamp32(n int64) uint32 { return uint32(min(max(n, 0), 1<<32-1)) }

// Close writes any definitions not yet written, closes every file and
// writes the master file. A second Close returns nil.
//
// The ModelWriter owns the files it creates through its Creator and
// closes them all, also after a failure; the master file, which makes
// them a trace, is written only when everything before it succeeded (see
// [TraceWriter.Close]). After a failed Write or Close the files created
// so far are left, without a master file, for the caller to remove.
func (w *ModelWriter) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	err := w.err
	if err == nil {
		err = w.writeDefs()
	}
	if err != nil && w.w.err == nil {
		w.w.err = err // no master file for a trace that failed
	}
	if cerr := w.w.Close(); err == nil {
		err = cerr
	}
	return err
}
