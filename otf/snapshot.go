package otf

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"slices"
)

// A State is the state of the processes of a trace at one time, as the
// snapshot records describe it (doc/otf.md §7): for each process the functions
// on its stack, the messages it sent that are not yet received, its open
// files, its pending collective and file operations, the number of
// completed collective operations per communicator and the last value of
// each counter. The state at time t reflects every event with time < t
// and none at t or later.
//
// A State is built by [TraceReader.SeekState] or by applying records to
// the zero State with [State.Apply], in time order. It is not safe for
// concurrent use.
type State struct {
	// Time is the time the state is for; Apply does not change it.
	Time  uint64
	procs map[uint32]*ProcessState
	// Message matching: receives seen before their send, and, when set,
	// the number of receives each (sender, receiver, communicator, tag)
	// will see in the whole trace (see expectReceives).
	orphans  map[msgKey]int
	expected map[msgKey]int
	sent     map[msgKey]int
	created  map[uint32]int // creation order of the processes, for refOrder
}

type msgKey struct{ sender, receiver, comm, tag uint32 }

// A ProcessState is the state of one process. Its slices use the bodies
// of the snapshot records; OriginalTime is the time the entry began (the
// enter, send, open or begin time; for counters the time of the sample).
type ProcessState struct {
	Process  uint32
	Stack    []EnterSnapshot       // entered functions, outermost first
	Messages []SendSnapshot        // sent, not yet received, in send order
	Files    []OpenFileSnapshot    // open files, in open order
	CollOps  []BeginCollOpSnapshot // begun, not ended, in begin order
	FileOps  []BeginFileOpSnapshot // begun, not ended, in begin order
	// CollOpCounts is the number of completed collective operations per
	// communicator, by communicator.
	CollOpCounts []CollOpCountSnapshot
	// Counters holds the last sample of each counter, by counter.
	Counters []CounterSnapshot

	// The key-value lists of the events behind the entries, which the
	// snapshot records carry: stack and messages in parallel slices, the
	// others by handle, matching id or counter.
	stackKV   [][]KeyValue
	msgKV     [][]KeyValue
	fileKV    map[uint64][]KeyValue
	collKV    map[uint64][]KeyValue
	fileOpKV  map[uint64][]KeyValue
	counterKV map[uint32][]KeyValue
	// creation order of counters and communicators, for refOrder
	seq map[[2]uint32]int
}

// cloneKVs deep-copies a key-value list; nil for an empty one.
func cloneKVs(kvs []KeyValue) []KeyValue {
	if len(kvs) == 0 {
		return nil
	}
	c := slices.Clone(kvs)
	for i := range c {
		if c[i].Bytes != nil {
			c[i].Bytes = slices.Clone(c[i].Bytes)
		}
	}
	return c
}

func setKV[K comparable](m *map[K][]KeyValue, k K, kvs []KeyValue) {
	if len(kvs) == 0 {
		if *m != nil {
			delete(*m, k)
		}
		return
	}
	if *m == nil {
		*m = make(map[K][]KeyValue)
	}
	(*m)[k] = cloneKVs(kvs)
}

func (ps *ProcessState) created(kind, id uint32) {
	if ps.seq == nil {
		ps.seq = make(map[[2]uint32]int)
	}
	if _, ok := ps.seq[[2]uint32{kind, id}]; !ok {
		ps.seq[[2]uint32{kind, id}] = len(ps.seq)
	}
}

func (ps *ProcessState) empty() bool {
	return len(ps.Stack)+len(ps.Messages)+len(ps.Files)+len(ps.CollOps)+len(ps.FileOps)+
		len(ps.CollOpCounts)+len(ps.Counters) == 0
}

// Process returns the state of process p, or nil if nothing is known of it.
func (s *State) Process(p uint32) *ProcessState { return s.procs[p] }

// Processes returns the processes with a state, ascending.
func (s *State) Processes() []uint32 {
	ps := make([]uint32, 0, len(s.procs))
	for p := range s.procs {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	return ps
}

func (s *State) proc(p uint32) *ProcessState {
	if s.procs == nil {
		s.procs = make(map[uint32]*ProcessState)
	}
	ps := s.procs[p]
	if ps == nil {
		ps = &ProcessState{Process: p}
		s.procs[p] = ps
		s.create(p)
	}
	return ps
}

// create notes that the reference otfaux has created its entry for
// process p, for refOrder; later calls for p do nothing.
func (s *State) create(p uint32) {
	if s.created == nil {
		s.created = make(map[uint32]int)
	}
	if _, ok := s.created[p]; !ok {
		s.created[p] = len(s.created)
	}
}

// Apply updates the state with one record of the process rec.Process:
// events change it as their kinds define (enter and leave, send and the
// matching receive, file open and close, begin and end of collective and
// file operations, complete collective operations, counter samples), and
// snapshot records add the entries they describe, so that applying the
// snapshot records of time t to the zero State yields the state at t.
// Other records are ignored.
//
// A message is matched by (sender, receiver, communicator, tag) in FIFO
// order; a receive removes the oldest pending message of its sender (a
// receive that comes before its send cancels that send). A message that is
// never received therefore stays pending here, while the reference
// otfaux's snapshots (and Trace.Aux) list only messages that are received
// somewhere in the trace. A LEAVE pops the top of the stack whatever its
// function token.
func (s *State) Apply(rec *Record) {
	switch rec.Kind {
	case KindEnter:
		e, _ := rec.Enter()
		ps := s.proc(rec.Process)
		ps.Stack = append(ps.Stack, EnterSnapshot{Function: e.Function, OriginalTime: rec.Time, Source: e.Source})
		ps.stackKV = append(ps.stackKV, cloneKVs(rec.KeyValues()))
	case KindLeave:
		ps := s.proc(rec.Process)
		if n := len(ps.Stack); n > 0 {
			ps.Stack = ps.Stack[:n-1]
			ps.stackKV = ps.stackKV[:n-1]
		}
	case KindSend:
		m, _ := rec.Send()
		s.create(rec.Process) // even for a message never received
		s.send(rec.Process, SendSnapshot{Receiver: m.Receiver, OriginalTime: rec.Time, Communicator: m.Communicator,
			Tag: m.Tag, Length: m.Length, Source: m.Source}, rec.KeyValues())
	case KindReceive:
		m, _ := rec.Receive()
		s.receive(msgKey{m.Sender, rec.Process, m.Communicator, m.Tag})
	case KindCounter:
		c, _ := rec.Counter()
		s.counter(rec.Process, CounterSnapshot{OriginalTime: rec.Time, Counter: c.Counter, Value: c.Value}, rec.KeyValues())
	case KindCollOp:
		c, _ := rec.CollOp()
		s.countCollOp(rec.Process, c.Communicator, 1)
	case KindBeginCollOp:
		c, _ := rec.BeginCollOp()
		ps := s.proc(rec.Process)
		ps.CollOps = slices.DeleteFunc(ps.CollOps, func(x BeginCollOpSnapshot) bool { return x.MatchingID == c.MatchingID })
		ps.CollOps = append(ps.CollOps, BeginCollOpSnapshot{OriginalTime: rec.Time, CollOp: c.CollOp, MatchingID: c.MatchingID,
			Communicator: c.Communicator, Root: c.Root, Sent: c.Sent, Received: c.Received, Source: c.Source})
		setKV(&ps.collKV, c.MatchingID, rec.KeyValues())
	case KindEndCollOp:
		c, _ := rec.EndCollOp()
		ps := s.proc(rec.Process)
		if i := slices.IndexFunc(ps.CollOps, func(x BeginCollOpSnapshot) bool { return x.MatchingID == c.MatchingID }); i >= 0 {
			comm := ps.CollOps[i].Communicator
			ps.CollOps = slices.Delete(ps.CollOps, i, i+1)
			setKV(&ps.collKV, c.MatchingID, nil)
			s.countCollOp(rec.Process, comm, 1)
		}
	case KindFileOp:
		f, _ := rec.FileOp()
		s.fileOp(rec.Process, rec.Time, f.File, f.Handle, f.Operation, f.Source, rec.KeyValues())
	case KindBeginFileOp, KindBeginFileOpOld:
		var id uint64
		var src uint32
		if f, ok := rec.BeginFileOp(); ok {
			id, src = f.MatchingID, f.Source
		} else {
			f, _ := rec.BeginFileOpOld()
			id, src = f.MatchingID, f.Source
		}
		ps := s.proc(rec.Process)
		ps.FileOps = slices.DeleteFunc(ps.FileOps, func(x BeginFileOpSnapshot) bool { return x.MatchingID == id })
		ps.FileOps = append(ps.FileOps, BeginFileOpSnapshot{OriginalTime: rec.Time, MatchingID: id, Source: src})
		setKV(&ps.fileOpKV, id, rec.KeyValues())
	case KindEndFileOp, KindEndFileOpOld:
		var f EndFileOp
		if e, ok := rec.EndFileOp(); ok {
			f = e
		} else {
			e, _ := rec.EndFileOpOld()
			// The old record has no matching id: the reference reports the
			// handle as matching id and 0 as handle.
			f = EndFileOp{File: e.File, MatchingID: e.Handle, Operation: e.Operation, Bytes: e.Bytes, Source: e.Source}
		}
		ps := s.proc(rec.Process)
		ps.FileOps = slices.DeleteFunc(ps.FileOps, func(x BeginFileOpSnapshot) bool { return x.MatchingID == f.MatchingID })
		setKV(&ps.fileOpKV, f.MatchingID, nil)
		s.fileOp(rec.Process, rec.Time, f.File, f.Handle, f.Operation, f.Source, rec.KeyValues())
	case KindEnterSnapshot:
		e, _ := rec.EnterSnapshot()
		ps := s.proc(rec.Process)
		ps.Stack = append(ps.Stack, e)
		ps.stackKV = append(ps.stackKV, cloneKVs(rec.KeyValues()))
	case KindSendSnapshot:
		m, _ := rec.SendSnapshot()
		ps := s.proc(rec.Process)
		ps.Messages = append(ps.Messages, m)
		ps.msgKV = append(ps.msgKV, cloneKVs(rec.KeyValues()))
	case KindOpenFileSnapshot:
		f, _ := rec.OpenFileSnapshot()
		ps := s.proc(rec.Process)
		ps.Files = append(ps.Files, f)
		setKV(&ps.fileKV, f.Handle, rec.KeyValues())
	case KindBeginCollOpSnapshot:
		c, _ := rec.BeginCollOpSnapshot()
		ps := s.proc(rec.Process)
		ps.CollOps = append(ps.CollOps, c)
		setKV(&ps.collKV, c.MatchingID, rec.KeyValues())
	case KindBeginFileOpSnapshot:
		f, _ := rec.BeginFileOpSnapshot()
		ps := s.proc(rec.Process)
		ps.FileOps = append(ps.FileOps, f)
		setKV(&ps.fileOpKV, f.MatchingID, rec.KeyValues())
	case KindCollOpCountSnapshot:
		c, _ := rec.CollOpCountSnapshot()
		s.countCollOp(rec.Process, c.Communicator, c.Count)
	case KindCounterSnapshot:
		c, _ := rec.CounterSnapshot()
		s.counter(rec.Process, c, rec.KeyValues())
	}
}

func (s *State) send(p uint32, m SendSnapshot, kvs []KeyValue) {
	k := msgKey{p, m.Receiver, m.Communicator, m.Tag}
	if s.orphans[k] > 0 {
		s.orphans[k]-- // its receive came first
		return
	}
	if s.expected != nil {
		n := s.sent[k]
		s.sent[k] = n + 1
		if n >= s.expected[k] {
			return // never received: the reference's snapshots omit it
		}
	}
	ps := s.proc(p)
	ps.Messages = append(ps.Messages, m)
	ps.msgKV = append(ps.msgKV, cloneKVs(kvs))
}

func (s *State) receive(k msgKey) {
	if ps := s.procs[k.sender]; ps != nil {
		i := slices.IndexFunc(ps.Messages, func(m SendSnapshot) bool {
			return m.Receiver == k.receiver && m.Communicator == k.comm && m.Tag == k.tag
		})
		if i >= 0 {
			ps.Messages = slices.Delete(ps.Messages, i, i+1)
			ps.msgKV = slices.Delete(ps.msgKV, i, i+1)
			return
		}
	}
	if s.orphans == nil {
		s.orphans = make(map[msgKey]int)
	}
	s.orphans[k]++
}

// expectReceives makes the state keep only messages that will be
// received: n[k] is the number of receives of each key in the whole trace.
// This is how the reference otfaux decides which sends are in flight.
func (s *State) expectReceives(n map[msgKey]int) {
	s.expected = n
	s.sent = make(map[msgKey]int)
}

func (s *State) counter(p uint32, c CounterSnapshot, kvs []KeyValue) {
	ps := s.proc(p)
	ps.created(0, c.Counter)
	setKV(&ps.counterKV, c.Counter, kvs)
	i, found := slices.BinarySearchFunc(ps.Counters, c.Counter, func(x CounterSnapshot, id uint32) int { return cmp.Compare(x.Counter, id) })
	if found {
		ps.Counters[i] = c
	} else {
		ps.Counters = slices.Insert(ps.Counters, i, c)
	}
}

func (s *State) countCollOp(p, comm uint32, n uint64) {
	ps := s.proc(p)
	ps.created(1, comm)
	i, found := slices.BinarySearchFunc(ps.CollOpCounts, comm, func(x CollOpCountSnapshot, c uint32) int { return cmp.Compare(x.Communicator, c) })
	if found {
		ps.CollOpCounts[i].Count += n
	} else {
		ps.CollOpCounts = slices.Insert(ps.CollOpCounts, i, CollOpCountSnapshot{Communicator: comm, Count: n})
	}
}

// File operation codes (the low 5 bits of the operation field).
const (
	fileOpOpen  = 0
	fileOpClose = 1
	fileOpRead  = 2
	fileOpWrite = 3
	fileOpSeek  = 4
	fileOpBits  = 31
)

func (s *State) fileOp(p uint32, t uint64, file uint32, handle uint64, op, src uint32, kvs []KeyValue) {
	switch op & fileOpBits {
	case fileOpOpen:
		ps := s.proc(p)
		ps.Files = slices.DeleteFunc(ps.Files, func(f OpenFileSnapshot) bool { return f.Handle == handle })
		ps.Files = append(ps.Files, OpenFileSnapshot{File: file, OriginalTime: t, Handle: handle, Source: src})
		setKV(&ps.fileKV, handle, kvs)
	case fileOpClose:
		ps := s.proc(p)
		if i := slices.IndexFunc(ps.Files, func(f OpenFileSnapshot) bool { return f.Handle == handle }); i >= 0 {
			ps.Files = slices.Delete(ps.Files, i, i+1)
			setKV(&ps.fileKV, handle, nil)
		}
	}
}

// AppendRecords appends the snapshot records that describe the state at
// time s.Time to recs and returns the extended slice: per process,
// ascending, its stack (TENTER), messages (TSEND), open files (TOPENFILE),
// pending collectives (TBEGINCOLLOP), collective counts (TCOLLOPCOUNT),
// pending file operations (TBEGINFILEOP) and counters (TCOUNTER), the
// order of the reference otfaux. The records are new.
func (s *State) AppendRecords(recs []*Record) []*Record {
	return s.appendRecords(recs, s.Processes(), false)
}

// refOrder returns the processes in the order the reference otfaux writes
// their snapshots (see [ReferenceOrder]), newest first within a bucket.
// The reference creates a process's entry when it first meets the process:
// as the sender of a receive in its first pass over the events, as one of
// the processes it declares for its thumbnail (see [ThumbnailProcesses]),
// then at its first event other than a receive.
func (s *State) refOrder() []uint32 {
	ps := s.Processes()
	slices.SortFunc(ps, func(a, b uint32) int { return cmp.Compare(s.created[a], s.created[b]) })
	ReferenceOrder(ps)
	return ps
}

// ReferenceOrder sorts distinct processes, given in the order they were
// defined, into the order of the reference otfaux's process table: a hash
// table of 1024 buckets keyed by the lookup3 hash of the 64-bit process id,
// the last defined first within a bucket. The reference lists processes in
// this order in the files it writes (snapshots, thumbnails), so a tool that
// reproduces those files byte for byte needs it too.
func ReferenceOrder(procs []uint32) {
	slices.Reverse(procs)
	slices.SortStableFunc(procs, func(a, b uint32) int {
		return cmp.Compare(lookup3Uint64(uint64(a))&1023, lookup3Uint64(uint64(b))&1023)
	})
}

// thumbnailProcs is the reference otfaux's default bound on the processes
// of its thumbnail (--thumbnail-procs).
const thumbnailProcs = 512

// ThumbnailProcesses returns the processes the reference otfaux samples
// for its thumbnail, in the order it declares them: it shuffles the
// defined processes (given in definition order) with the C library's
// rand() seeded by srand(1) (the GNU C library's generator) and takes the
// first n, or the first 512 when n is 0. The reference declares them
// before it replays the events, so they take part in the order of its
// process table (see [AuxOptions].Declared and [ReferenceOrder]).
func ThumbnailProcesses(defined []uint32, n int) []uint32 {
	if n <= 0 {
		n = thumbnailProcs
	}
	all := slices.Clone(defined)
	n = min(n, len(all))
	var g glibcRand
	g.seed(1)
	for i := range n {
		r := int(uint32(float64(g.next())/float64(1<<31-1)*float64(len(all)-1-i) + 0.5))
		if i+r < len(all) {
			all[i], all[i+r] = all[i+r], all[i]
		}
	}
	return all[:n]
}

// glibcRand is the GNU C library's rand() (random(3) with its default
// 128-byte state): an additive feedback generator r[i] = r[i-3] + r[i-31]
// whose outputs are r[i] >> 1 from i = 344 on.
type glibcRand struct {
	r [34]int32 // the last 34 values, r[i%34]
	i int
}

func (g *glibcRand) seed(s uint32) {
	g.r[0] = int32(s)
	for i := 1; i < 31; i++ {
		// 16807 * r[i-1] mod (2^31 - 1), by Schrage's method as glibc.
		w := g.r[i-1]
		hi, lo := w/127773, w%127773
		w = 16807*lo - 2836*hi
		if w < 0 {
			w += 2147483647
		}
		g.r[i] = w
	}
	for i := 31; i < 34; i++ {
		g.r[i] = g.r[i-31]
	}
	g.i = 34
	for range 310 {
		g.next()
	}
}

func (g *glibcRand) next() uint32 {
	v := uint32(g.r[(g.i-31)%34]) + uint32(g.r[(g.i-3)%34])
	g.r[g.i%34] = int32(v)
	g.i++
	return v >> 1
}

// lookup3Uint32 is Bob Jenkins' lookup3 hashlittle of the 4 little-endian
// bytes of k with initial value 0.
func lookup3Uint32(k uint32) uint32 {
	a := uint32(0xdeadbeef+4) + k
	b, c := uint32(0xdeadbeef+4), uint32(0xdeadbeef+4)
	return lookup3Final(a, b, c)
}

// lookup3Uint64 is Bob Jenkins' lookup3 hashlittle of the 8 little-endian
// bytes of k with initial value 0.
func lookup3Uint64(k uint64) uint32 {
	a := uint32(0xdeadbeef + 8)
	b, c := a, a
	b += uint32(k >> 32)
	a += uint32(k)
	return lookup3Final(a, b, c)
}

func lookup3Final(a, b, c uint32) uint32 {
	rot := func(x uint32, n int) uint32 { return x<<n | x>>(32-n) }
	c ^= b
	c -= rot(b, 14)
	a ^= c
	a -= rot(c, 11)
	b ^= a
	b -= rot(a, 25)
	c ^= b
	c -= rot(b, 16)
	a ^= c
	a -= rot(c, 4)
	b ^= a
	b -= rot(a, 14)
	c ^= b
	c -= rot(b, 24)
	return c
}

func (s *State) appendRecords(recs []*Record, order []uint32, ref bool) []*Record {
	for _, p := range order {
		ps := s.procs[p]
		add := func(kvs []KeyValue, set func(*Record)) {
			rec := &Record{}
			set(rec)
			rec.Time, rec.Process = s.Time, p
			rec.SetKeyValues(kvs)
			recs = append(recs, rec)
		}
		for i, v := range ps.Stack {
			add(ps.stackKV[i], func(r *Record) { r.SetEnterSnapshot(v) })
		}
		for i, v := range ps.Messages {
			add(ps.msgKV[i], func(r *Record) { r.SetSendSnapshot(v) })
		}
		for _, v := range ps.Files {
			add(ps.fileKV[v.Handle], func(r *Record) { r.SetOpenFileSnapshot(v) })
		}
		for _, v := range ps.CollOps {
			add(ps.collKV[v.MatchingID], func(r *Record) { r.SetBeginCollOpSnapshot(v) })
		}
		counts, counters := ps.CollOpCounts, ps.Counters
		if ref {
			// The reference's hash tables: 256 buckets of communicators,
			// 16 of counters, newest first within a bucket.
			counts = slices.Clone(counts)
			slices.SortStableFunc(counts, func(a, b CollOpCountSnapshot) int {
				return cmp.Or(cmp.Compare(lookup3Uint32(a.Communicator)&255, lookup3Uint32(b.Communicator)&255),
					cmp.Compare(ps.seq[[2]uint32{1, b.Communicator}], ps.seq[[2]uint32{1, a.Communicator}]))
			})
			counters = slices.Clone(counters)
			slices.SortStableFunc(counters, func(a, b CounterSnapshot) int {
				return cmp.Or(cmp.Compare(lookup3Uint32(a.Counter)&15, lookup3Uint32(b.Counter)&15),
					cmp.Compare(ps.seq[[2]uint32{0, b.Counter}], ps.seq[[2]uint32{0, a.Counter}]))
			})
		}
		for _, v := range counts {
			add(nil, func(r *Record) { r.SetCollOpCountSnapshot(v) })
		}
		for _, v := range ps.FileOps {
			add(ps.fileOpKV[v.MatchingID], func(r *Record) { r.SetBeginFileOpSnapshot(v) })
		}
		for _, v := range counters {
			add(ps.counterKV[v.Counter], func(r *Record) { r.SetCounterSnapshot(v) })
		}
	}
	return recs
}

// SnapshotTimes returns the times at which the trace has snapshots in its
// snapshot files, from its DEFAUXSAMPLEPOINT records of type 0, ascending.
// Inline snapshots (type 2, in the events files) are not listed.
func (t *Trace) SnapshotTimes() ([]uint64, error) {
	tr, err := t.NewReader(&TraceReaderOptions{File: FileDef})
	if err != nil {
		return nil, err
	}
	defer tr.Close()
	var ts []uint64
	for rec, err := range tr.All() {
		if err != nil {
			return nil, err
		}
		if a, ok := rec.DefAuxSamplePoint(); ok && a.Type == 0 {
			ts = append(ts, a.Time)
		}
	}
	slices.Sort(ts)
	return slices.Compact(ts), nil
}

// SeekState positions the reader of events at the first event with time
// ≥ t, like SeekTime, and returns the state of the selected processes
// before that event: the state that all events with time < t produce.
//
// It starts from the latest snapshot at or before t: its time s comes from
// the DEFAUXSAMPLEPOINT definitions if there are any, else from bisecting
// each stream's snapshot file (the time lines before t + 1). It reads the
// snapshot records at s (a bisection of each snapshot file and a read of
// the records at s), then replays the events in [s, t) (a bisection of
// each events file and a linear read). Without a snapshot at or before t
// it replays the events from the start of the trace. The cost is
// therefore a few bisections plus the events between the snapshot and t.
//
// Messages sent before s by processes that are not selected are not
// known. Snapshot records of inline snapshots (in events files) are not
// used as snapshots.
func (tr *TraceReader) SeekState(t uint64) (*State, error) {
	if tr.opts.File != FileEvents {
		return nil, fmt.Errorf("%w: SeekState needs a reader of events, not %v", ErrNotSeekable, tr.opts.File)
	}
	st := &State{}
	s, found, err := tr.latestSnapshot(t)
	if err != nil {
		return nil, err
	}
	if found {
		snaps, err := tr.t.NewReader(&TraceReaderOptions{File: FileSnaps, Processes: tr.opts.Processes, From: s, To: s + 1})
		if err != nil {
			return nil, err
		}
		if err := snaps.SeekTime(s); err != nil {
			snaps.Close()
			return nil, err
		}
		for rec, err := range snaps.All() {
			if err != nil {
				snaps.Close()
				return nil, err
			}
			st.Apply(rec)
		}
		snaps.Close()
	} else {
		s = 0
	}
	if s < t {
		ev, err := tr.t.NewReader(&TraceReaderOptions{File: FileEvents, Processes: tr.opts.Processes, From: s, To: t})
		if err != nil {
			return nil, err
		}
		if s > 0 {
			if err := ev.SeekTime(s); err != nil {
				ev.Close()
				return nil, err
			}
		}
		for rec, err := range ev.All() {
			if err != nil {
				ev.Close()
				return nil, err
			}
			st.Apply(rec)
		}
		ev.Close()
	}
	st.Time = t
	for p, ps := range st.procs {
		if ps.empty() {
			delete(st.procs, p)
		}
	}
	if err := tr.SeekTime(t); err != nil {
		return nil, err
	}
	return st, nil
}

// latestSnapshot returns the latest snapshot time ≤ t.
func (tr *TraceReader) latestSnapshot(t uint64) (uint64, bool, error) {
	times, err := tr.t.SnapshotTimes()
	if err != nil {
		return 0, false, err
	}
	if len(times) > 0 {
		i, found := slices.BinarySearch(times, t)
		if found {
			return t, true, nil
		}
		if i == 0 {
			return 0, false, nil
		}
		return times[i-1], true, nil
	}
	// No sample points: bisect the snapshot files.
	var best uint64
	var any bool
	for _, s := range tr.t.Streams {
		if tr.sel != nil && !slices.ContainsFunc(s.Processes, func(p uint32) bool { return tr.sel[p] }) {
			continue
		}
		r, err := tr.t.OpenReader(s.ID, FileSnaps, nil)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0, false, err
		}
		if t < ^uint64(0) {
			err = r.SeekTime(t + 1)
		} else {
			for r.Next() {
			}
			err = r.Err()
		}
		tm, _ := r.State()
		r.Close()
		if err != nil {
			return 0, false, err
		}
		if tm != ^uint64(0) && tm <= t && (!any || tm > best) {
			best, any = tm, true
		}
	}
	return best, any, nil
}
