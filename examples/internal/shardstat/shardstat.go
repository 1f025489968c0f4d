// Package shardstat is the plumbing the tracestat programs share for
// sharded runs (examples/tracestat with -shard, -save and -merge, and
// examples/tracestat-mpi): the share of a trace's locations a shard
// profiles, the saved state of a shard (the stats Accumulator and
// CallTree states and the waitstate Analyzer's, with the trace's name and
// event count), the checked union of the shards' states, and the report
// printed from it.
//
// A shard i/n profiles the locations l with l mod n == i (location ids,
// 1-based; events of no location go to shard 0), or under MPI (Reduce)
// the i-th of n blocks of neighbouring locations (Blocks); a location kept in
// another's stream goes with it (model.Location.Stream: a DUMPI run's
// thread goes with its rank, whose calls the shard reads).
// Each shard reads the trace's definitions itself, and of its events,
// through hpctrace.Options.Locations, only the files of its locations
// where the format keeps them apart (an OTF trace's streams, a DUMPI
// run's rank calls, an OTF2 archive's event files); its state carries
// the definitions, with the messages and collectives that wait for
// partners in other shards, which match when states are joined (see
// stats.Accumulator.Join). Under MPI (Reduce) the shards read in epochs
// of time and hand what waits for other shards up the reduction tree
// after each, so that a shard's statistics do not grow with the trace;
// the wait-state analysis keeps its log of the shard's MPI calls and
// messages to the end (see package waitstate), which the final reduction
// joins.
package shardstat

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"strconv"
	"strings"

	"github.com/hpctrace/hpctrace"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
	"github.com/hpctrace/hpctrace/waitstate"
)

// Shard is the share I/N of the locations; N == 0 means all of them.
// The share is the locations l with l mod N == I, or with Blocks the
// I-th block of neighbours (see Blocks).
type Shard struct {
	I, N   int
	Blocks *Blocks
}

// String returns "I/N", or "" for all locations.
func (s *Shard) String() string {
	if s.N == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.I, s.N)
}

// Set parses "i/n" (a flag.Value).
func (s *Shard) Set(v string) error {
	a, b, ok := strings.Cut(v, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return fmt.Errorf("%q: want i/n with 0 <= i < n", v)
	}
	s.I, s.N = i, n
	return nil
}

// Has reports whether location l belongs to the shard.
func (s Shard) Has(l model.LocID) bool { return s.N == 0 || s.of(l) == s.I }

// of returns the shard of location l among s.N (N > 0).
func (s Shard) of(l model.LocID) int {
	if s.Blocks != nil {
		return s.Blocks.shard(l, s.N)
	}
	return int(uint64(l) % uint64(s.N))
}

// Of returns the shard, among s.N (N > 0), of location l of a trace
// with the definitions d: that of its stream's location
// (model.Location.Stream), with which it goes.
func (s Shard) Of(d *model.Defs, l model.LocID) int {
	if loc, ok := d.Location(l); ok && loc.Stream != 0 {
		l = loc.Stream
	}
	return s.of(l)
}

// Open opens the trace name with hpctrace.Open, selecting the shard's
// locations (all of them for the zero Shard) through
// hpctrace.Options.Locations, by their streams as Source does: a
// location's own id while the trace opens, when the format's adapter
// asks which locations' files to read, and its stream's once the trace
// is open, when the events are selected.
func (s Shard) Open(name string) (*hpctrace.Trace, error) {
	if s.N == 0 {
		return hpctrace.Open(name, nil)
	}
	var defs *model.Defs // the trace's, once open
	t, err := hpctrace.Open(name, &hpctrace.Options{Locations: func(l model.LocID) bool {
		if defs != nil {
			if loc, ok := defs.Location(l); ok && loc.Stream != 0 {
				l = loc.Stream
			}
		}
		return s.Has(l)
	}})
	if err != nil {
		return nil, err
	}
	defs = t.Defs()
	return t, nil
}

// Source returns src restricted to the events of the shard's locations:
// of a location whose events the format keeps in another's stream
// (model.Location.Stream: a DUMPI rank's threads, in the rank's file),
// those whose Stream is the shard's, as a reader reads or skips the
// stream as a whole.
func (s Shard) Source(src model.Source) model.Source {
	if s.N == 0 {
		return src
	}
	return &shardSource{Source: src, shard: s}
}

type shardSource struct {
	model.Source
	shard Shard
}

func (s *shardSource) Next() bool {
	d := s.Source.Defs()
	for s.Source.Next() {
		l := s.Source.Event().Loc
		if loc, ok := d.Location(l); ok && loc.Stream != 0 {
			l = loc.Stream
		}
		if s.shard.Has(l) {
			return true
		}
	}
	return false
}

// State is the statistics of a shard, or of the union of shards, of one
// trace.
type State struct {
	Name    string // the trace's name as given on the command line (the first shard's after Join)
	Trace   ID     // the trace's identity (Identity); states of different traces do not join
	Events  int64  // events profiled
	MPI     bool   // the trace records an MPI run rank by rank (model.Defs.ByRank): its processes are reported as ranks
	Clamped int64  // virtual-clock clamps
	Shard   Shard  // the shard; after Join, the first shard's
	Acc     *stats.Accumulator
	Tree    *stats.CallTree
	// Waits is the wait-state analysis of the shard's events, on the
	// definitions of Acc; nil when it was not asked for (tracestat
	// -waits=false). The states of one run all have it or all lack it.
	Waits *waitstate.Analyzer
}

// Options are the choices of Profile, NewProfiler and Reduce. A nil or
// zero value means tracestat's defaults.
type Options struct {
	NoWaits bool // leave out the wait-state analysis (State.Waits is nil)
}

// Profile reads the shard of the trace name (any format hpctrace.Open
// reads) and returns its state, with the options tracestat uses by
// default (the statistics relative to regions that the trace records, as
// its definitions describe them: model.Defs.Relative), and the
// wait-state analysis unless opts.NoWaits.
func Profile(name string, shard Shard, opts *Options) (*State, error) {
	p, err := NewProfiler(name, shard, opts)
	if err != nil {
		return nil, err
	}
	if _, err := p.Feed(math.MaxInt64); err != nil {
		p.Close()
		return nil, err
	}
	return p.State()
}

// A Profiler reads the shard of a trace in steps, by time, for a
// reduction in epochs: Feed profiles the events up to a time, Next tells
// the time of the next one, Detach and Adopt move what waits for other
// shards between the ranks of a reduction tree (see
// stats.Accumulator.DetachPending), and State ends the reading.
type Profiler struct {
	st    *State
	trace *hpctrace.Trace
	src   model.Source
	ev    model.Event // the next event, read ahead, when have
	have  bool
	done  bool
}

// NewProfiler opens the shard of the trace name, as Profile does, and
// reads nothing yet.
func NewProfiler(name string, shard Shard, popts *Options) (*Profiler, error) {
	var opts stats.Options
	t, err := shard.Open(name)
	if err != nil {
		return nil, err
	}
	src := t.Source()
	id, err := Identity(name, src.Defs())
	if err != nil {
		t.Close()
		return nil, err
	}
	src = shard.Source(src)
	st := &State{Name: name, Trace: id, MPI: src.Defs().ByRank(), Shard: shard, Acc: stats.New(src.Defs(), &opts), Tree: stats.NewCallTree(src.Defs(), nil)}
	if popts == nil || !popts.NoWaits {
		st.Waits = waitstate.New(src.Defs(), &waitstate.Options{KeepLogs: true}) // saved and joined
	}
	return &Profiler{st: st, trace: t, src: src}, nil
}

// peek reads the next event ahead; false at the end or on an error.
func (p *Profiler) peek() (bool, error) {
	if p.have || p.done {
		return p.have, nil
	}
	if p.src.Next() {
		p.ev, p.have = *p.src.Event(), true
		return true, nil
	}
	p.done = true
	return false, p.src.Err()
}

// Next returns the time of the next event of the shard; ok is false at
// the end.
func (p *Profiler) Next() (t model.Time, ok bool, err error) {
	ok, err = p.peek()
	return p.ev.Time, ok, err
}

// Feed profiles the shard's events up to the first one later than last
// (events of a location earlier than its previous one are taken in their
// order) and returns how many it profiled.
func (p *Profiler) Feed(last model.Time) (int64, error) {
	var n int64
	for {
		ok, err := p.peek()
		if err != nil {
			return n, err
		}
		if !ok || p.ev.Time > last {
			p.st.Events += n
			return n, nil
		}
		p.st.Acc.Add(&p.ev)
		p.st.Tree.Add(&p.ev)
		if p.st.Waits != nil {
			p.st.Waits.Add(&p.ev)
		}
		p.have = false
		n++
	}
}

// Detach removes what waits for locations outside a group and returns it
// encoded for Adopt (stats.Accumulator.DetachPending).
func (p *Profiler) Detach(inside func(model.LocID) bool) []byte {
	return p.st.Acc.DetachPending(inside)
}

// Adopt adds what another shard's Detach returned (see
// stats.Accumulator.AdoptPending).
func (p *Profiler) Adopt(data []byte) error { return p.st.Acc.AdoptPending(data) }

// State closes the trace and returns the shard's state, of the events fed
// so far (all of them after Feed(math.MaxInt64)).
func (p *Profiler) State() (*State, error) {
	if err := p.trace.Close(); err != nil {
		return nil, err
	}
	return p.st, nil
}

// Close closes the trace, for a Profiler given up on.
func (p *Profiler) Close() { p.trace.Close() }

const (
	magic = "tracestat-state\x00"
	// version is that of the layout around the stats states; see
	// stats.StateVersion for its rule. Version 2 added the trace's
	// identity (State.Trace) and the checksum, version 3 the wait-state
	// analysis (State.Waits).
	version = 3
)

// castagnoli is the table of the states' CRC-32C.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// MarshalBinary encodes s: the magic, the version, the fields of s, the
// stats states and the wait-state analysis' (if any), then the CRC-32C
// (Castagnoli, big-endian) of all the bytes before it. Two encodings of
// the same state are byte-identical. It ends the streams of s.Waits,
// which takes no more events afterwards.
func (s *State) MarshalBinary() ([]byte, error) {
	as, err := s.Acc.MarshalBinary()
	if err != nil {
		return nil, err
	}
	ts, err := s.Tree.MarshalBinary()
	if err != nil {
		return nil, err
	}
	var ws []byte
	if s.Waits != nil {
		if ws, err = s.Waits.MarshalBinary(); err != nil {
			return nil, err
		}
	}
	b := append([]byte(magic), version)
	b = binary.AppendUvarint(b, uint64(len(s.Name)))
	b = append(b, s.Name...)
	b = append(b, s.Trace[:]...)
	b = binary.AppendVarint(b, s.Events)
	mpi := uint64(0)
	if s.MPI {
		mpi = 1
	}
	b = binary.AppendUvarint(b, mpi)
	b = binary.AppendVarint(b, s.Clamped)
	b = binary.AppendUvarint(b, uint64(s.Shard.I))
	b = binary.AppendUvarint(b, uint64(s.Shard.N))
	b = binary.AppendUvarint(b, uint64(len(as)))
	b = append(b, as...)
	b = binary.AppendUvarint(b, uint64(len(ts)))
	b = append(b, ts...)
	// 0 without the analysis, else 1 + the length of its state.
	if s.Waits == nil {
		b = binary.AppendUvarint(b, 0)
	} else {
		b = binary.AppendUvarint(b, 1+uint64(len(ws)))
		b = append(b, ws...)
	}
	return binary.BigEndian.AppendUint32(b, crc32.Checksum(b, castagnoli)), nil
}

// Decode reads a state written by MarshalBinary; path names it in errors.
// A state whose checksum does not match, or whose values are out of range
// (a negative count, a shard outside its run), is refused.
func Decode(path string, data []byte) (*State, error) {
	bad := func(what string) error { return fmt.Errorf("%s: not a tracestat state: %s", path, what) }
	if len(data) < len(magic)+1 || string(data[:len(magic)]) != magic {
		return nil, bad("bad magic")
	}
	if v := data[len(magic)]; v != version {
		return nil, bad(fmt.Sprintf("version %d, this program reads version %d", v, version))
	}
	if len(data) < len(magic)+1+4 {
		return nil, bad("truncated")
	}
	body := data[:len(data)-4]
	if crc32.Checksum(body, castagnoli) != binary.BigEndian.Uint32(data[len(body):]) {
		return nil, bad("checksum mismatch: the file is damaged")
	}
	b := body[len(magic)+1:]
	var err error
	u := func() uint64 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			err, b = bad("truncated"), nil
			return 0
		}
		b = b[n:]
		return v
	}
	i := func() int64 {
		v, n := binary.Varint(b)
		if n <= 0 {
			err, b = bad("truncated"), nil
			return 0
		}
		b = b[n:]
		return v
	}
	bytes := func() []byte {
		n := u()
		if n > uint64(len(b)) {
			err, b = bad("truncated"), nil
			return nil
		}
		s := b[:n]
		b = b[n:]
		return s
	}
	s := &State{Name: string(bytes())}
	if len(b) < len(s.Trace) {
		return nil, bad("truncated")
	}
	b = b[copy(s.Trace[:], b):]
	s.Events = i()
	mpi := u()
	s.MPI = mpi == 1
	s.Clamped = i()
	si, sn := u(), u()
	as, ts := bytes(), bytes()
	var ws []byte
	hasWaits := false
	if n := u(); n > 0 {
		if n-1 > uint64(len(b)) {
			err, b = bad("truncated"), nil
		} else {
			ws, b, hasWaits = b[:n-1], b[n-1:], true
		}
	}
	if err != nil {
		return nil, err
	}
	if s.Events < 0 || s.Clamped < 0 || mpi > 1 {
		return nil, bad("bad counts")
	}
	if sn < 1 || sn > 1<<24 || si >= sn || len(b) > 0 {
		return nil, bad("bad shard")
	}
	s.Shard = Shard{I: int(si), N: int(sn)}
	s.Acc = new(stats.Accumulator)
	if err := s.Acc.UnmarshalBinary(as); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s.Tree = stats.NewCallTree(s.Acc.Defs(), nil)
	if err := s.Tree.UnmarshalBinary(ts); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if hasWaits {
		s.Waits = waitstate.New(s.Acc.Defs(), nil)
		if err := s.Waits.UnmarshalBinary(ws); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return s, nil
}

// Join adds the state o, of other locations of the same trace, to s. The
// trace is told by its identity (State.Trace), not by its name: shards of
// one trace saved under different paths join, and states of two traces
// saved under one path do not. Join uses o up (stats.Accumulator.JoinFrom,
// waitstate.Analyzer.Join): what o holds is moved into s, not copied, and
// o must not be used afterwards.
func (s *State) Join(o *State) error {
	if o.Trace != s.Trace {
		return fmt.Errorf("shard %s is of another trace than shard %s (trace identity %x… against %x…: the definitions or the files differ, whatever their names); states of different traces are not merged", &o.Shard, &s.Shard, o.Trace[:6], s.Trace[:6])
	}
	if o.Shard.N != s.Shard.N || o.MPI != s.MPI {
		return fmt.Errorf("shard %s of %s is not of the run of shard %s of %s", &o.Shard, o.Name, &s.Shard, s.Name)
	}
	if (o.Waits == nil) != (s.Waits == nil) {
		with := func(st *State) string {
			if st.Waits == nil {
				return "without"
			}
			return "with"
		}
		return fmt.Errorf("shard %s was saved %s the wait-state analysis, shard %s %s it (-waits): they are not merged", &o.Shard, with(o), &s.Shard, with(s))
	}
	// Acc.Join extends s's definitions with o's where these have more;
	// the analyzers' joins check them against each other afterwards.
	if err := s.Acc.JoinFrom(o.Acc); err != nil {
		return err
	}
	if err := s.Tree.Join(o.Tree); err != nil {
		return err
	}
	if s.Waits != nil {
		if err := s.Waits.Join(o.Waits); err != nil {
			return err
		}
	}
	s.Events += o.Events
	s.Clamped += o.Clamped
	return nil
}

// A Set joins the states of the shards of one run, checking that each
// shard comes once. The zero value is an empty set.
type Set struct {
	st   *State
	seen []bool
}

// Add joins s into the set; path names it in errors.
func (set *Set) Add(path string, s *State) error {
	if set.st == nil {
		set.st, set.seen = s, make([]bool, s.Shard.N)
		set.seen[s.Shard.I] = true
		return nil
	}
	if s.Shard.N == set.st.Shard.N && set.seen[s.Shard.I] {
		return fmt.Errorf("%s: shard %s given twice", path, &s.Shard)
	}
	if err := set.st.Join(s); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	set.seen[s.Shard.I] = true
	return nil
}

// State returns the union of the shards, or an error naming the missing
// ones.
func (set *Set) State() (*State, error) {
	if set.st == nil {
		return nil, errors.New("no states")
	}
	var missing []string
	for i, ok := range set.seen {
		if !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", i, len(set.seen)))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("shards missing: %s", strings.Join(missing, " "))
	}
	return set.st, nil
}
