package otf

import (
	"fmt"
	"maps"
	"slices"
)

// A Summarizer computes summary records from the events of a trace, with
// the semantics of the reference otfaux (doc/otf.md §9): counts are cumulative
// from the start; a function's count counts its enters; its inclusive and
// exclusive times include the calls still on the stack up to the summary
// time; message summaries aggregate all peers (peer, communicator and tag
// 0); collective summaries are kept per collective type (with the token
// of the last collective of that type and communicator 0); file summaries
// count opens, closes, reads, writes and seeks with their bytes.
//
// Apply definitions (functions, collectives, files) before events, and
// events in time order. The zero Summarizer is ready to use. It is not
// safe for concurrent use.
type Summarizer struct {
	// FunctionGroups writes function group summaries instead of function
	// summaries; FileGroups file group summaries instead of file summaries.
	FunctionGroups, FileGroups bool

	funcGroup map[uint32]uint32
	fileGroup map[uint32]uint32
	collType  map[uint32]uint32
	procs     map[uint32]*procStats
}

type frame struct {
	time uint64
	fn   uint32
}

type collStats struct {
	v   [4]uint64 // sent count, received count, bytes sent, bytes received
	col uint32
}

type beginColl struct {
	col, typ           uint32
	invSent, invRecv   uint64
	bytesSent, bytesRv uint64
}

type procStats struct {
	stack []frame
	funcs map[uint32]*[3]uint64 // count, exclusive, inclusive
	msg   [4]uint64             // sent, received, bytes sent, bytes received
	coll  map[uint32]*collStats // by collective type
	files map[uint32]*[7]uint64
	begun map[uint64]beginColl
}

func (s *Summarizer) proc(p uint32) *procStats {
	if s.procs == nil {
		s.procs = make(map[uint32]*procStats)
	}
	ps := s.procs[p]
	if ps == nil {
		ps = &procStats{funcs: map[uint32]*[3]uint64{}, coll: map[uint32]*collStats{},
			files: map[uint32]*[7]uint64{}, begun: map[uint64]beginColl{}}
		s.procs[p] = ps
	}
	return ps
}

func setDef(m *map[uint32]uint32, k, v uint32) {
	if *m == nil {
		*m = make(map[uint32]uint32)
	}
	(*m)[k] = v
}

// invocations returns the sent and received invocation counts of a
// collective of the given type on process p with root.
func invocations(typ, p, root uint32) (uint64, uint64) {
	switch typ {
	case 1: // barrier
		return 1, 0
	case 2: // one to all
		if p == root {
			return 1, 1
		}
		return 0, 1
	case 3: // all to one
		if p == root {
			return 1, 1
		}
		return 1, 0
	case 4: // all to all
		return 1, 1
	}
	return 0, 0
}

// Apply updates the statistics with one record; records other than
// function, collective and file definitions and events are ignored.
func (s *Summarizer) Apply(rec *Record) {
	switch rec.Kind {
	case KindDefFunction:
		d, _ := rec.DefFunction()
		setDef(&s.funcGroup, d.Function, d.Group)
	case KindDefFile:
		d, _ := rec.DefFile()
		setDef(&s.fileGroup, d.File, d.Group)
	case KindDefCollOp:
		d, _ := rec.DefCollOp()
		setDef(&s.collType, d.CollOp, d.Type)
	case KindEnter:
		e, _ := rec.Enter()
		ps := s.proc(rec.Process)
		ps.stack = append(ps.stack, frame{rec.Time, e.Function})
		ps.fn(e.Function)[0]++
	case KindLeave:
		ps := s.proc(rec.Process)
		n := len(ps.stack)
		if n == 0 {
			return // the reference aborts here
		}
		call := ps.stack[n-1]
		ps.stack = ps.stack[:n-1]
		d := rec.Time - call.time
		f := ps.fn(call.fn)
		f[1] += d
		f[2] += d
		if n > 1 {
			ps.fn(ps.stack[n-2].fn)[1] -= d
		}
	case KindSend:
		m, _ := rec.Send()
		ps := s.proc(rec.Process)
		ps.msg[0]++
		ps.msg[2] += uint64(m.Length)
	case KindReceive:
		m, _ := rec.Receive()
		ps := s.proc(rec.Process)
		ps.msg[1]++
		ps.msg[3] += uint64(m.Length)
	case KindCollOp:
		c, _ := rec.CollOp()
		typ := s.collType[c.CollOp]
		is, ir := invocations(typ, rec.Process, c.Root)
		s.proc(rec.Process).collOp(c.CollOp, typ, is, ir, uint64(c.Sent), uint64(c.Received))
	case KindBeginCollOp:
		c, _ := rec.BeginCollOp()
		typ := s.collType[c.CollOp]
		is, ir := invocations(typ, rec.Process, c.Root)
		ps := s.proc(rec.Process)
		if _, dup := ps.begun[c.MatchingID]; !dup {
			ps.begun[c.MatchingID] = beginColl{c.CollOp, typ, is, ir, c.Sent, c.Received}
		}
	case KindEndCollOp:
		c, _ := rec.EndCollOp()
		ps := s.proc(rec.Process)
		id := uint64(uint32(c.MatchingID)) // the reference looks the id up as 32 bits
		if b, ok := ps.begun[id]; ok {
			delete(ps.begun, id)
			// and passes the bytes on as 32 bits
			ps.collOp(b.col, b.typ, b.invSent, b.invRecv, uint64(uint32(b.bytesSent)), uint64(uint32(b.bytesRv)))
		}
	case KindFileOp:
		f, _ := rec.FileOp()
		s.proc(rec.Process).fileOp(f.File, f.Operation, f.Bytes)
	case KindEndFileOp:
		f, _ := rec.EndFileOp()
		s.proc(rec.Process).fileOp(f.File, f.Operation, f.Bytes)
	case KindEndFileOpOld:
		f, _ := rec.EndFileOpOld()
		s.proc(rec.Process).fileOp(f.File, f.Operation, f.Bytes)
	}
}

func (ps *procStats) fn(f uint32) *[3]uint64 {
	v := ps.funcs[f]
	if v == nil {
		v = new([3]uint64)
		ps.funcs[f] = v
	}
	return v
}

func (ps *procStats) collOp(col, typ uint32, is, ir, bs, br uint64) {
	c := ps.coll[typ]
	if c == nil {
		c = new(collStats)
		ps.coll[typ] = c
	}
	c.v[0] += is
	c.v[1] += ir
	c.v[2] += uint64(uint32(bs))
	c.v[3] += uint64(uint32(br))
	c.col = col
}

func (ps *procStats) fileOp(file, op uint32, bytes uint64) {
	v := ps.files[file]
	switch op & fileOpBits {
	case fileOpOpen, fileOpClose, fileOpRead, fileOpWrite:
		if v == nil {
			v = new([7]uint64)
			ps.files[file] = v
		}
	case fileOpSeek:
		if v == nil {
			return // a seek in a file never opened: the reference ignores it
		}
	default:
		return
	}
	switch op & fileOpBits {
	case fileOpOpen:
		v[0]++
	case fileOpClose:
		v[1]++
	case fileOpRead:
		v[2]++
		v[5] += bytes
	case fileOpWrite:
		v[3]++
		v[6] += bytes
	case fileOpSeek:
		v[4]++
	}
}

// AppendRecords appends the summary records at time t to recs and returns
// the extended slice: for every process that had an event, ascending, its
// function (or function group) summaries by token, its message summary
// if it sent or received a message, its collective summaries by type and
// its file (or file group) summaries by token, as the reference otfaux
// writes them. The records are new.
func (s *Summarizer) AppendRecords(recs []*Record, t uint64) []*Record {
	add := func(p uint32, k seriesKey, v *[numValues]uint64) {
		rec := &Record{}
		k.process = p
		setSummary(rec, k, v)
		rec.Time = t
		recs = append(recs, rec)
	}
	for _, p := range slices.Sorted(maps.Keys(s.procs)) {
		ps := s.procs[p]
		// The calls on the stack count up to t.
		local := map[uint32][3]uint64{}
		last := t
		for i := len(ps.stack) - 1; i >= 0; i-- {
			f := ps.stack[i]
			l := local[f.fn]
			l[1] += last - f.time
			l[2] += t - f.time
			local[f.fn] = l
			last = f.time
		}
		groups := map[uint32]*[3]uint64{}
		for _, fn := range slices.Sorted(maps.Keys(ps.funcs)) {
			v := *ps.funcs[fn]
			l := local[fn]
			for i := range v {
				v[i] += l[i]
			}
			if s.FunctionGroups {
				g := groups[s.funcGroup[fn]]
				if g == nil {
					g = new([3]uint64)
					groups[s.funcGroup[fn]] = g
				}
				for i := range v {
					g[i] += v[i]
				}
				continue
			}
			add(p, seriesKey{kind: KindFunctionSummary, id: fn}, &[numValues]uint64{v[0], v[1], v[2]})
		}
		for _, g := range slices.Sorted(maps.Keys(groups)) {
			v := groups[g]
			add(p, seriesKey{kind: KindFunctionGroupSummary, id: g}, &[numValues]uint64{v[0], v[1], v[2]})
		}
		if ps.msg[0] > 0 || ps.msg[1] > 0 {
			add(p, seriesKey{kind: KindMessageSummary}, &[numValues]uint64{ps.msg[0], ps.msg[1], ps.msg[2], ps.msg[3]})
		}
		for _, typ := range slices.Sorted(maps.Keys(ps.coll)) {
			c := ps.coll[typ]
			add(p, seriesKey{kind: KindCollOpSummary, id: c.col}, &[numValues]uint64{c.v[0], c.v[1], c.v[2], c.v[3]})
		}
		fileGroups := map[uint32]*[7]uint64{}
		for _, f := range slices.Sorted(maps.Keys(ps.files)) {
			v := ps.files[f]
			if s.FileGroups {
				g := fileGroups[s.fileGroup[f]]
				if g == nil {
					g = new([7]uint64)
					fileGroups[s.fileGroup[f]] = g
				}
				for i := range v {
					g[i] += v[i]
				}
				continue
			}
			vv := [numValues]uint64(*v)
			add(p, seriesKey{kind: KindFileOpSummary, id: f}, &vv)
		}
		for _, g := range slices.Sorted(maps.Keys(fileGroups)) {
			vv := [numValues]uint64(*fileGroups[g])
			add(p, seriesKey{kind: KindFileGroupOpSummary, id: g}, &vv)
		}
	}
	return recs
}

// AuxTimes returns the break times at which otfaux writes snapshots and
// summaries for a trace whose events span [first, last]: every d ticks from
// first + d while below last + 1, where d is (last + 1 − first)/n, or
// period if that is smaller (n = 0 or period = 0 disable either; d is at
// least 1), computed in float64 as the reference does; then the extra
// times; then last + 1 unless a later time is already there. The result
// is ascending without duplicates.
func AuxTimes(first, last uint64, n int, period uint64, extra []uint64) []uint64 {
	end := last + 1
	var ts []uint64
	d := float64(end-first) / float64(n) // +Inf for n = 0
	if period > 0 && float64(period) < d {
		d = float64(period)
	}
	d = max(d, 1)
	if n > 0 || period > 0 {
		for t := float64(first) + d; t < float64(end); t += d {
			ts = append(ts, uint64(t))
		}
	}
	ts = append(ts, extra...)
	slices.Sort(ts)
	ts = slices.Compact(ts)
	if len(ts) == 0 || ts[len(ts)-1] < end {
		ts = append(ts, end)
	}
	return ts
}

// AuxOptions configures Trace.Aux.
type AuxOptions struct {
	// Times are the break times (see AuxTimes); they need not be sorted.
	Times []uint64
	// Snapshots and Summaries select what to compute.
	Snapshots, Summaries bool
	// FunctionGroups and FileGroups select group summaries (see Summarizer).
	FunctionGroups, FileGroups bool
	// Declared lists the processes the reference declares before it
	// replays the events: the processes of its thumbnail, which it writes
	// with the snapshots (see ThumbnailProcesses); nil when it writes no
	// thumbnail. They take part in the order of the processes of a
	// snapshot (see ReferenceOrder).
	Declared []uint32
	// StrayLeaves, if not nil, is set to the number of Leave records of
	// processes with no open function (some producers start a process
	// with one). Aux ignores them; the reference otfaux aborts on them.
	StrayLeaves *int64
	// Progress, if not nil, is called with the number of event records
	// read so far and the bytes read so far from the events files
	// (compressed bytes for zlib files), every AuxProgressEvery records
	// and at the end of each pass over the events; both counts grow over
	// the passes (two with Snapshots, one without), so a caller that
	// wants the share done takes the size of the events files once per
	// pass as the total. It is called from the goroutine that called Aux.
	Progress func(records, bytes int64)
}

// AuxProgressEvery is the number of event records between two calls of
// AuxOptions.Progress.
const AuxProgressEvery = 1 << 16

// Aux replays the events of the trace and computes, like the reference
// otfaux, at each break time b (in ascending order): the summaries at b
// (FileStats records, preceded by a DEFAUXSAMPLEPOINT of type 1 as a
// FileDef record) and, except at the last break time, the snapshot at b
// (a DEFAUXSAMPLEPOINT of type 0, then FileSnaps records, processes in
// the order of the reference's hash table, see ReferenceOrder: the
// reference meets the senders of receives first, in its first pass over
// the events, then the processes of AuxOptions.Declared, then the others
// at their first event other than a receive; both passes read the events
// in the reference's order, see TraceReaderOptions.ReferenceOrder). A
// break is taken when the first event with time ≥ b comes, so it describes the
// events before b; the last break is taken after the last event if it is
// not later than the last event time + 1. It calls emit with each record
// in the order the reference writes them; the records are new.
//
// Snapshots list only messages that are received somewhere in the trace,
// as the reference does; Aux therefore reads the events twice. Snapshot
// records carry the key-value lists of the events behind them.
func (t *Trace) Aux(opts *AuxOptions, emit func(f FileType, rec *Record) error) error {
	var o AuxOptions
	if opts != nil {
		o = *opts
	}
	breaks := slices.Clone(o.Times)
	slices.Sort(breaks)
	breaks = slices.Compact(breaks)
	sum := &Summarizer{FunctionGroups: o.FunctionGroups, FileGroups: o.FileGroups}
	defs, err := t.NewReader(&TraceReaderOptions{File: FileDef})
	if err != nil {
		return err
	}
	for rec, err := range defs.All() {
		if err != nil {
			defs.Close()
			return err
		}
		sum.Apply(rec)
	}
	defs.Close()
	var records, passBytes int64 // over every pass; bytes of the finished passes
	tick := func(ev *TraceReader, end bool) {
		if end {
			passBytes += ev.BytesRead()
			o.Progress(records, passBytes)
		} else {
			o.Progress(records, passBytes+ev.BytesRead())
		}
	}
	st := &State{}
	if o.Snapshots {
		n := map[msgKey]int{}
		ev, err := t.NewReader(&TraceReaderOptions{ReferenceOrder: true})
		if err != nil {
			return err
		}
		for rec, err := range ev.All() {
			if err != nil {
				ev.Close()
				return err
			}
			if m, ok := rec.Receive(); ok {
				n[msgKey{m.Sender, rec.Process, m.Communicator, m.Tag}]++
				st.create(m.Sender) // the reference queues the receive at its sender
			}
			if records++; o.Progress != nil && records%AuxProgressEvery == 0 {
				tick(ev, false)
			}
		}
		if o.Progress != nil {
			tick(ev, true)
		}
		ev.Close()
		st.expectReceives(n)
		for _, p := range o.Declared {
			st.create(p)
		}
	}
	var recs []*Record
	flush := func(b uint64) error {
		recs = recs[:0]
		aux := func(typ uint32) {
			d := &Record{}
			d.SetDefAuxSamplePoint(DefAuxSamplePoint{Time: b, Type: typ})
			recs = append(recs, d)
		}
		if o.Summaries {
			aux(1)
			recs = sum.AppendRecords(recs, b)
		}
		if o.Snapshots && b != breaks[len(breaks)-1] {
			aux(0)
			st.Time = b
			recs = st.appendRecords(recs, st.refOrder(), true)
		}
		for _, rec := range recs {
			f := FileStats
			switch {
			case rec.Kind == KindDefAuxSamplePoint:
				f = FileDef
			case rec.Kind.File() == FileSnaps:
				f = FileSnaps
			}
			if err := emit(f, rec); err != nil {
				return err
			}
		}
		return nil
	}
	ev, err := t.NewReader(&TraceReaderOptions{ReferenceOrder: true})
	if err != nil {
		return err
	}
	defer ev.Close()
	var last uint64
	depth := map[uint32]int{} // open functions per process
	var stray int64
	if o.StrayLeaves != nil {
		defer func() { *o.StrayLeaves = stray }()
	}
	for rec, err := range ev.All() {
		if err != nil {
			return err
		}
		for len(breaks) > 0 && rec.Time >= breaks[0] {
			if err := flush(breaks[0]); err != nil {
				return err
			}
			breaks = breaks[1:]
		}
		switch rec.Kind {
		case KindEnter:
			depth[rec.Process]++
		case KindLeave:
			if depth[rec.Process] == 0 {
				stray++
			} else {
				depth[rec.Process]--
			}
		}
		if o.Snapshots {
			st.Apply(rec)
		}
		if o.Summaries {
			sum.Apply(rec)
		}
		last = rec.Time
		if records++; o.Progress != nil && records%AuxProgressEvery == 0 {
			tick(ev, false)
		}
	}
	if o.Progress != nil {
		tick(ev, true)
	}
	if len(breaks) > 0 && breaks[0] <= last+1 {
		if err := flush(breaks[0]); err != nil {
			return fmt.Errorf("otf: aux: %w", err)
		}
	}
	return nil
}

// EventTimeRange returns the first and the last event time of the trace
// (over all streams); ok is false if it has no events. It reads the first
// record of each events file and finds the last time line by SeekTime to
// the end (a bisection); files without random access are read through.
func (t *Trace) EventTimeRange() (first, last uint64, ok bool, err error) {
	for _, s := range t.Streams {
		r, err := t.OpenReader(s.ID, FileEvents, nil)
		if err != nil {
			return 0, 0, false, err
		}
		if r.Next() {
			tm := r.Record().Time
			if !ok || tm < first {
				first = tm
			}
			if r.Seekable() {
				err = r.SeekTime(^uint64(0))
			} else {
				for r.Next() {
				}
				err = r.Err()
			}
			tl, _ := r.State()
			if tl == ^uint64(0) { // the bisection found no time line before the end
				tl = tm
			}
			if !ok || tl > last {
				last = tl
			}
			ok = true
		}
		if err == nil {
			err = r.Err()
		}
		r.Close()
		if err != nil {
			return 0, 0, false, err
		}
	}
	return first, last, ok, nil
}
