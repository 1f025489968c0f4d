package main

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"slices"
	"sort"
	"sync/atomic"

	"github.com/hpctrace/hpctrace/examples/internal/outfile"
	"github.com/hpctrace/hpctrace/export"
	"github.com/hpctrace/hpctrace/model"
)

// evStore is the index of a trace whose format cannot seek (PICL, DUMPI,
// event JSON, Chrome JSON): the events of the first read, each as the
// model adapter yielded it, encoded in a few bytes (a mask of its
// non-zero fields, its time as the difference from the previous event's,
// the fields as varints), in memory or in a file (-index). A checkpoint
// of the index notes the store's offset and the time of the event before
// it, all a decoder needs to start there: a window's read decodes the
// events from its checkpoint on, whatever the format's reader would have
// to carry to restart (a DUMPI run's communicators and requests, a Chrome
// reader's reorder window, a PICL reader's clock), since that state is
// already in the events the first read made. It never reads the trace.
//
// The store is written once, by the first read, and then only read:
// window reads, concurrent, read it through io.ReaderAt.
type evStore struct {
	mem   []byte        // the events, in memory (no -index)
	file  *outfile.File // the -index file while the first read writes it
	w     *bufio.Writer // over file
	r     *os.File      // the -index file, once committed
	path  string
	size  int64      // bytes of events
	prev  model.Time // the time of the last event stored
	n     int64      // events stored
	limit int64      // in memory: the most events kept (-cache); past it the store is dropped
	full  bool
	err   error
	buf   []byte

	decoded atomic.Int64 // events decoded by window reads
}

// indexMagic starts an -index file: an existing file that starts with it
// is an index traceview wrote, which it replaces without -force.
const indexMagic = "hpctrace traceview index 1\n"

// newStore returns the store of the trace of args: in the file path
// (written under a temporary name and renamed into place once complete;
// never one of the trace's files, nor an existing file other than an
// earlier index, without force), or in memory, up to limit events, when
// path is "".
func newStore(path string, limit int64, force bool, args []string) (*evStore, error) {
	s := &evStore{path: path, limit: limit}
	if path == "" {
		return s, nil
	}
	opts := &outfile.Options{Force: force || isIndex(path)}
	if len(args) == 1 {
		opts.Inputs = outfile.TraceFiles(args[0])
	}
	f, err := outfile.Create(path, opts)
	if err != nil {
		return nil, fmt.Errorf("-index: %w", err)
	}
	if f.Direct() {
		f.Abort()
		return nil, fmt.Errorf("-index %s: %w: the index is read back", path, outfile.ErrNotRegular)
	}
	s.file, s.w = f, bufio.NewWriterSize(f, 1<<16)
	_, s.err = s.w.WriteString(indexMagic)
	return s, nil
}

// isIndex reports whether the file path starts with indexMagic.
func isIndex(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, len(indexMagic))
	_, err = io.ReadFull(f, b)
	return err == nil && string(b) == indexMagic
}

// pos returns where the next event goes: the offset and the time a
// decoder starting there takes as the previous event's.
func (s *evStore) pos() (int64, model.Time) { return s.size, s.prev }

// The fields of the mask of an encoded event.
const (
	fLoc = 1 << iota
	fKind
	fFlags
	fClass
	fRegion
	fSite
	fPeer
	fComm
	fTag
	fCounter
	fBytes
	fRecvd
	fMatch
	fValue
	fText
)

// add stores the next event of the first read.
func (s *evStore) add(ev *model.Event) {
	if s.full || s.err != nil {
		return
	}
	if s.file == nil && s.n >= s.limit {
		s.full, s.mem = true, nil
		return
	}
	b := s.buf[:0]
	var mask uint64
	u := func(bit uint64, v uint64) {
		if v != 0 {
			mask |= bit
			b = binary.AppendUvarint(b, v)
		}
	}
	i := func(bit uint64, v int64) {
		if v != 0 {
			mask |= bit
			b = binary.AppendVarint(b, v)
		}
	}
	u(fLoc, uint64(ev.Loc))
	u(fKind, uint64(ev.Kind))
	u(fFlags, uint64(ev.Flags))
	u(fClass, uint64(ev.Class))
	u(fRegion, uint64(ev.Region))
	u(fSite, uint64(ev.Site))
	u(fPeer, uint64(ev.Peer))
	u(fComm, uint64(ev.Comm))
	i(fTag, int64(ev.Tag))
	u(fCounter, uint64(ev.Counter))
	i(fBytes, ev.Bytes)
	i(fRecvd, ev.Recvd)
	u(fMatch, ev.Match)
	i(fValue, ev.Value)
	u(fText, uint64(ev.Text))
	var head [2 * binary.MaxVarintLen64]byte
	h := binary.AppendUvarint(head[:0], mask)
	// The difference wraps in int64 as the decoder's sum does.
	h = binary.AppendVarint(h, int64(uint64(ev.Time)-uint64(s.prev)))
	s.buf = b
	s.prev = ev.Time
	s.n++
	s.size += int64(len(h) + len(b))
	if s.file == nil {
		s.mem = append(append(s.mem, h...), b...)
		return
	}
	if _, err := s.w.Write(h); err != nil {
		s.err = err
	} else if _, err := s.w.Write(b); err != nil {
		s.err = err
	}
}

// finish ends the first read: the -index file is flushed, synced and
// renamed into place, then opened for the window reads. It reports
// whether the store holds every event (not past -cache in memory).
func (s *evStore) finish() (bool, error) {
	if s.file == nil {
		return !s.full, nil
	}
	if s.err == nil {
		s.err = s.w.Flush()
	}
	if s.err != nil {
		s.file.Abort()
		return false, fmt.Errorf("-index %s: %w", s.path, s.err)
	}
	if err := s.file.Commit(); err != nil {
		return false, fmt.Errorf("-index: %w", err)
	}
	r, err := os.Open(s.path)
	if err != nil {
		return false, fmt.Errorf("-index: %w", err)
	}
	s.r, s.file, s.w = r, nil, nil
	return true, nil
}

// close closes the -index file (which stays, beside the trace).
func (s *evStore) close() error {
	if s.file != nil {
		s.file.Abort()
		s.file = nil
	}
	if s.r != nil {
		err := s.r.Close()
		s.r = nil
		return err
	}
	return nil
}

// source returns the events stored from offset off on (prev: the time of
// the event before it), of the locations locs accepts (nil: all).
func (s *evStore) source(defs *model.Defs, off int64, prev model.Time, locs func(model.LocID) bool) *storeSource {
	var ra io.ReaderAt = bytes.NewReader(s.mem)
	base := int64(0)
	if s.r != nil {
		ra, base = s.r, int64(len(indexMagic))
	}
	sec := io.NewSectionReader(ra, base+off, s.size-off)
	return &storeSource{defs: defs, st: s, r: bufio.NewReaderSize(sec, 1<<16), prev: prev, off: off, locs: locs, count: &s.decoded}
}

// seek moves src to offset off of the store (prev: the time of the event
// before it).
func (src *storeSource) seek(off int64, prev model.Time) {
	s := src.st
	var ra io.ReaderAt = bytes.NewReader(s.mem)
	base := int64(0)
	if s.r != nil {
		ra, base = s.r, int64(len(indexMagic))
	}
	src.r.Reset(io.NewSectionReader(ra, base+off, s.size-off))
	src.off, src.prev = off, prev
}

// errDamaged reports an index whose bytes are not what the first read
// wrote (an -index file changed while served).
var errDamaged = errors.New("the index is damaged (was its file changed?)")

// storeSource is a model.Source over the events of an evStore.
type storeSource struct {
	defs  *model.Defs
	st    *evStore
	r     *bufio.Reader
	prev  model.Time
	off   int64 // the store's offset of the next event
	locs  func(model.LocID) bool
	ev    model.Event
	err   error
	n     int64
	count *atomic.Int64
}

func (s *storeSource) Next() bool {
	for s.err == nil {
		if !s.decode() {
			break
		}
		if s.locs == nil || s.locs(s.ev.Loc) {
			return true
		}
	}
	return false
}

// maxEncoded is the most bytes an event takes encoded: its mask, time
// and fifteen fields, each a varint of at most ten bytes.
const maxEncoded = 3 + 16*binary.MaxVarintLen64

// decode reads the next event into s.ev; false at the end (a clean one
// leaves s.err nil).
func (s *storeSource) decode() bool {
	p, err := s.r.Peek(maxEncoded)
	if len(p) == 0 {
		if errors.Is(err, io.EOF) {
			return false // the end, between two events
		}
		s.err = fmt.Errorf("%w: %w", errDamaged, err)
		return false
	}
	pos, bad := 0, ""
	uv := func(max uint64) uint64 {
		if bad != "" {
			return 0
		}
		v, n := binary.Uvarint(p[pos:])
		if n <= 0 || v > max {
			bad = "a field is out of range or cut short"
			return 0
		}
		pos += n
		return v
	}
	iv := func(min, max int64) int64 {
		if bad != "" {
			return 0
		}
		v, n := binary.Varint(p[pos:])
		if n <= 0 || v < min || v > max {
			bad = "a field is out of range or cut short"
			return 0
		}
		pos += n
		return v
	}
	mask := uv(1<<15 - 1)
	ev := model.Event{Time: model.Time(uint64(s.prev) + uint64(iv(math.MinInt64, math.MaxInt64)))}
	u := func(bit, max uint64) uint64 {
		if mask&bit == 0 {
			return 0
		}
		return uv(max)
	}
	i := func(bit uint64, min, max int64) int64 {
		if mask&bit == 0 {
			return 0
		}
		return iv(min, max)
	}
	ev.Loc = model.LocID(u(fLoc, math.MaxUint32))
	ev.Kind = model.Kind(u(fKind, math.MaxUint8))
	ev.Flags = model.Flags(u(fFlags, math.MaxUint8))
	ev.Class = model.Class(u(fClass, math.MaxUint8))
	ev.Region = model.RegionID(u(fRegion, math.MaxUint32))
	ev.Site = model.SiteID(u(fSite, math.MaxUint32))
	ev.Peer = model.LocID(u(fPeer, math.MaxUint32))
	ev.Comm = model.CommID(u(fComm, math.MaxUint32))
	ev.Tag = int32(i(fTag, math.MinInt32, math.MaxInt32))
	ev.Counter = model.CounterID(u(fCounter, math.MaxUint32))
	ev.Bytes = i(fBytes, math.MinInt64, math.MaxInt64)
	ev.Recvd = i(fRecvd, math.MinInt64, math.MaxInt64)
	ev.Match = u(fMatch, math.MaxUint64)
	ev.Value = i(fValue, math.MinInt64, math.MaxInt64)
	ev.Text = model.StringID(u(fText, math.MaxUint32))
	if bad != "" {
		s.err = fmt.Errorf("%w: %s", errDamaged, bad)
		return false
	}
	s.r.Discard(pos)
	s.off += int64(pos)
	s.prev, s.ev = ev.Time, ev
	s.n++
	if s.n&0xfff == 0 {
		s.count.Add(0xfff + 1)
	}
	return true
}

func (s *storeSource) Event() *model.Event { return &s.ev }
func (s *storeSource) Err() error          { return s.err }
func (s *storeSource) Defs() *model.Defs   { return s.defs }

// Close adds the events decoded to the store's count.
func (s *storeSource) Close() error {
	s.count.Add(s.n & 0xfff)
	s.n = 0
	return nil
}

// A trace whose events the store holds whole (in memory or -index), in
// time order or not (a PICL file is in file order: each processor's
// records in time order, the processors' blocks one after another), gets
// its checkpoints once the first read is done, from its store
// (index.fileOrder): each is a time and, per location, the offsets in the
// store of the location's events from that time on (locStart). The
// regions open and the messages waiting at a checkpoint are not stored
// in it but once each, with the checkpoints they span (spans). A window's
// read (rangeSource) decodes, of each location, the events from its
// offset at the checkpoint at or before the window to its last before
// the first one after it, in the store's order (one run in a trace in
// time order, one a location in file order), given the regions open and
// the message ends waiting at the first, and takes the messages whose
// other end lies past the second from the spans, instead of reading on:
// the events decoded are the window's share of the trace and a
// checkpoint interval at either side.

// locStart is where a location's events from a checkpoint's time on
// start in the store: the offset of its first event at or after that
// time (none: the offset past its last event) and the time of the event
// stored before it; and where those before it end: the offset past its
// last event before that time (none: its first event's), which in a
// trace in time order lies before off by the other locations' events
// between the two.
type locStart struct {
	off  int64
	prev model.Time
	lim  int64
}

// maxLocStarts bounds a trace in file order's checkpoints times its
// locations.
const maxLocStarts = 1 << 20

// fileOrder gives the index of a trace whose events the store holds its
// checkpoints: about every `every` events in time (by a histogram of the
// times), at most maxCheckpoints and maxLocStarts / locations, thinned
// while the regions and messages that span them are more than maxOpen.
// It reads the store twice. A trace where a location's own times go back
// gets none.
func (x *index) fileOrder() error {
	st, nl := x.store, len(x.stacks)
	every := max(x.asked, 1)
	k := min(int64(maxCheckpoints), x.n/every, int64(maxLocStarts/max(nl, 1)))
	if k < 1 || x.last <= x.first {
		return nil
	}
	x.every = every
	var count atomic.Int64 // not the windows'
	// decodeAll gives f each event stored, its offset, the time of the
	// event before it and the offset after it.
	decodeAll := func(f func(off int64, prev model.Time, next int64, ev *model.Event) error) error {
		src := st.source(x.defs, 0, 0, nil)
		src.count = &count
		for {
			off, prev := src.off, src.prev
			if !src.decode() {
				return src.err
			}
			if err := f(off, prev, src.off, &src.ev); err != nil {
				return err
			}
		}
	}
	// The checkpoints' times: a histogram of the times, cut every n/k
	// events.
	const nh = 1 << 16
	span := uint64(x.last) - uint64(x.first)
	width := span/nh + 1
	hist := make([]int64, nh)
	err := decodeAll(func(_ int64, _ model.Time, _ int64, ev *model.Event) error {
		d := uint64(ev.Time) - uint64(x.first)
		if ev.Time < x.first || d > span || int(ev.Loc) >= nl {
			return fmt.Errorf("%w: an event out of the first read's range", errDamaged)
		}
		hist[d/width]++
		return nil
	})
	if err != nil {
		return err
	}
	var grid []model.Time
	step := max(x.n/k, 1)
	next, acc := step, int64(0)
	for b, c := range hist {
		acc += c
		if acc < next || uint64(b+1)*width > span {
			continue
		}
		next = acc + step
		if t := model.Time(uint64(x.first) + uint64(b+1)*width); t != 0 {
			grid = append(grid, t)
		}
	}
	if len(grid) == 0 {
		return nil
	}
	x.cps = nil // the first read's, if any: not kept past here
	cps := make([]checkpoint, len(grid))
	for i := range cps {
		cps[i] = checkpoint{time: grid[i], locs: make([]locStart, nl)}
	}
	// where returns the checkpoints a message end at time t waits at,
	// its partner at time u: those in (t, u].
	where := func(t, u model.Time) []checkpoint {
		a := sort.Search(len(grid), func(i int) bool { return grid[i] > t })
		b := sort.Search(len(grid), func(i int) bool { return grid[i] > u })
		return cps[a:max(a, b)]
	}
	starts := make([]locStart, nl)
	ends := make([]locStart, nl) // past each location's last event
	seen := make([]bool, nl)
	nextCP := make([]int, nl)
	stacks := make([][]openRegion, nl)
	before := make([]int64, len(grid)+1) // events by the checkpoints at or before them
	wait := newEnds()
	// The messages and the regions that span a checkpoint, each once
	// (spans).
	var msgs []spanMsg
	var regions []spanRegion
	// nopen counts the messages and regions stored; past maxOpen every
	// other checkpoint goes, as thin does, while they are made, and those
	// that no longer span one go.
	nopen, limit := 0, cmp.Or(x.openMax, maxOpen)
	shrink := func() {
		kept := 0
		for i := 1; i < len(cps); i += 2 {
			cps[kept], grid[kept] = cps[i], grid[i]
			kept++
		}
		clear(cps[kept:])
		cps, grid = cps[:kept], grid[:kept]
		b := make([]int64, kept+1)
		for c, v := range before {
			b[c/2] += v // c checkpoints at or before: c/2 of those kept
		}
		before = b
		for l := range nextCP {
			nextCP[l] /= 2
		}
		msgs = slices.DeleteFunc(msgs, func(m spanMsg) bool { return len(where(m.lo, m.hi)) == 0 })
		regions = slices.DeleteFunc(regions, func(r spanRegion) bool { return len(where(r.start, r.end)) == 0 })
		nopen = len(msgs) + len(regions)
		x.every *= 2
	}
	errBack := errors.New("a location's times go back")
	err = decodeAll(func(off int64, prev model.Time, next int64, ev *model.Event) error {
		l := int(ev.Loc)
		if l >= nl {
			return fmt.Errorf("%w: an event out of the first read's range", errDamaged)
		}
		if seen[l] && ev.Time < ends[l].prev {
			return errBack
		}
		lim := off // past the location's event before ev
		if seen[l] {
			lim = ends[l].off
		}
		ends[l] = locStart{off: next, prev: ev.Time, lim: next}
		if !seen[l] {
			seen[l], starts[l] = true, locStart{off, prev, off}
		}
		for ; nextCP[l] < len(cps) && cps[nextCP[l]].time <= ev.Time; nextCP[l]++ {
			c := &cps[nextCP[l]]
			c.locs[l] = locStart{off, prev, lim}
		}
		before[sort.Search(len(grid), func(i int) bool { return grid[i] > ev.Time })]++
		was := stacks[l]
		stacks[l] = x.apply(was, ev)
		// The regions ev leaves, the innermost first.
		for i := len(was) - 1; i >= len(stacks[l]); i-- {
			if r := was[i]; len(where(r.start, ev.Time)) > 0 {
				regions = append(regions, spanRegion{r, ev.Time})
				nopen++
			}
		}
		if ev.Kind == model.KindSend || ev.Kind == model.KindRecv {
			if other, ok := wait.pair(ev); ok {
				if m := spanMsgOf(&other, ev); len(where(m.lo, m.hi)) > 0 {
					msgs = append(msgs, m)
					nopen++
				}
			}
		}
		for nopen > limit && len(cps) > 1 {
			shrink()
		}
		return nil
	})
	if errors.Is(err, errBack) {
		// Not one block of time-ordered records per location: no
		// checkpoint, every read starts at the beginning.
		return nil
	}
	if err != nil {
		return err
	}
	// The locations' regions still open, left at no time. The ends never
	// paired (wait's) are not stored: a read from a checkpoint given them
	// would pair none of them (they are the last of their channels) nor
	// draw them (they lie before the window).
	for l := range nl {
		for i := len(stacks[l]) - 1; i >= 0; i-- {
			if r := stacks[l][i]; len(where(r.start, math.MaxInt64)) > 0 {
				regions = append(regions, spanRegion{r, math.MaxInt64})
				nopen++
			}
		}
	}
	for nopen > limit && len(cps) > 1 {
		shrink()
	}
	for l := range nl {
		if !seen[l] {
			starts[l], ends[l] = locStart{off: st.size, lim: st.size}, locStart{off: st.size, lim: st.size}
		}
		for i := nextCP[l]; i < len(cps); i++ {
			cps[i].locs[l] = ends[l]
		}
	}
	var n int64
	for i := range cps {
		n += before[i]
		cps[i].n = n
	}
	x.cps, x.starts, x.ends = cps, starts, ends
	x.nopen = 0
	x.thin()
	grid = grid[:0]
	for i := range x.cps {
		grid = append(grid, x.cps[i].time)
	}
	x.spans = newSpans(msgs, regions, grid)
	x.nopen = len(x.spans.mt.keys) + len(x.spans.rt.keys)
	return nil
}

// locStart returns where location l's events from checkpoint i on start
// in the store (i -1: the trace's start; len(cps): past its last event).
func (x *index) locStart(l, i int) locStart {
	switch {
	case i < 0:
		return x.starts[l]
	case i >= len(x.cps):
		return x.ends[l]
	}
	return x.cps[i].locs[l]
}

// storeRun is a run of the store to decode: from off (the event before
// it at prev) to end.
type storeRun struct {
	off, end int64
	prev     model.Time
}

// rangeSource is a model.Source over the events of a trace whose store
// has its checkpoints (index.starts) from checkpoint a to checkpoint b
// (-1: the trace's start; len(cps): its end), of the locations locs
// accepts (nil: all): each location's events between its offsets at the
// two, decoded in the store's order over the runs that hold them (the
// messages paired past b are the index's spans').
type rangeSource struct {
	*storeSource
	x      *index
	locs   func(model.LocID) bool
	a, b   int
	lo, hi []int64 // by location: its events in this interval
	runs   []storeRun
	end    int64
}

// rangeSource returns the events of the locations locs accepts from
// checkpoint a to checkpoint b.
func (x *index) rangeSource(defs *model.Defs, a, b int, locs func(model.LocID) bool) *rangeSource {
	nl := len(x.starts)
	r := &rangeSource{storeSource: x.store.source(defs, 0, 0, nil), x: x, locs: locs, a: a, b: b,
		lo: make([]int64, nl), hi: make([]int64, nl)}
	r.interval()
	return r
}

// interval makes the runs of the checkpoint interval [a, b).
func (r *rangeSource) interval() {
	r.runs = r.runs[:0]
	for l := range r.lo {
		r.lo[l], r.hi[l] = 0, 0
		if r.locs != nil && !r.locs(model.LocID(l)) {
			continue
		}
		s, e := r.x.locStart(l, r.a), r.x.locStart(l, r.b)
		if s.off < e.lim {
			r.lo[l], r.hi[l] = s.off, e.lim
			r.runs = append(r.runs, storeRun{off: s.off, end: e.lim, prev: s.prev})
		}
	}
	slices.SortFunc(r.runs, func(a, b storeRun) int { return cmp.Compare(a.off, b.off) })
	merged := r.runs[:0]
	for _, run := range r.runs {
		if n := len(merged); n > 0 && run.off <= merged[n-1].end {
			merged[n-1].end = max(merged[n-1].end, run.end)
			continue
		}
		merged = append(merged, run)
	}
	r.runs, r.end = merged, r.off
}

func (r *rangeSource) Next() bool {
	for r.err == nil {
		for r.off < r.end {
			off := r.off
			if !r.decode() {
				if r.err == nil {
					r.err = fmt.Errorf("%w: cut short", errDamaged)
				}
				return false
			}
			if l := r.ev.Loc; int(l) < len(r.lo) && off >= r.lo[l] && off < r.hi[l] {
				return true
			}
		}
		if len(r.runs) > 0 {
			run := r.runs[0]
			r.runs = r.runs[1:]
			if run.off != r.off {
				r.seek(run.off, run.prev)
			}
			r.end = run.end
			continue
		}
		return false
	}
	return false
}

// The regions open and the messages waiting at the checkpoints of a
// trace with a store are each stored once, with the checkpoints they
// span, not in each of those checkpoints: a region entered before a
// checkpoint's time and left at or after it is open there, a message
// whose earlier end lies before it and its later one at or after it
// waits there. A read from checkpoint i to checkpoint j is given the
// regions open at i, as the ends waiting for their partner the earlier
// ends of the messages waiting at i whose later end it reads, and, as
// messages paired past its end, those waiting at j, so that it reads
// nothing past j.

// spanMsg is a message that spans at least one checkpoint.
type spanMsg struct {
	lo, hi    model.Time // its earlier end's time, its later end's
	sendBytes int64      // the send's Bytes
	loBytes   int64      // the earlier end's Bytes
	from, to  model.LocID
	comm      model.CommID
	tag       int32
	recvFirst bool // its earlier end is the receive
}

// spanMsgOf returns the message of the ends a (paired first) and b.
func spanMsgOf(a, b *model.Event) spanMsg {
	if b.Time < a.Time {
		a, b = b, a
	}
	s := a
	if a.Kind == model.KindRecv {
		s = b
	}
	return spanMsg{lo: a.Time, hi: b.Time, sendBytes: s.Bytes, loBytes: a.Bytes, from: s.Loc, to: s.Peer,
		comm: a.Comm, tag: a.Tag, recvFirst: a.Kind == model.KindRecv}
}

// end returns the earlier end of m, as waitingEnds keeps it.
func (m *spanMsg) end() model.Event {
	if m.recvFirst {
		return model.Event{Time: m.lo, Loc: m.to, Kind: model.KindRecv, Peer: m.from, Tag: m.tag, Comm: m.comm, Bytes: m.loBytes}
	}
	return model.Event{Time: m.lo, Loc: m.from, Kind: model.KindSend, Peer: m.to, Tag: m.tag, Comm: m.comm, Bytes: m.loBytes}
}

// message returns m as export.Pairer pairs it.
func (m *spanMsg) message() export.Message {
	s, r := m.lo, m.hi
	if m.recvFirst {
		s, r = r, s
	}
	return export.Message{From: m.from, To: m.to, Send: s, Recv: r, Bytes: m.sendBytes, Tag: m.tag}
}

// spanRegion is a region open across at least one checkpoint: entered
// at its start, left at end (math.MaxInt64: never).
type spanRegion struct {
	openRegion
	end model.Time
}

// spanKey is an item of a spanTree: the checkpoints it spans, ca to
// cb-1, and its index in the tree's items.
type spanKey struct{ ca, cb, item int32 }

// spanTree finds the items (a trace in file order's messages or
// regions) that span a checkpoint, each kept once, in a centred interval
// tree over the checkpoints: an item spanning the checkpoints x to y is
// kept at the node of level h = bits.Len(x^y) and prefix p = x>>h, which
// covers the checkpoints [p<<h, (p+1)<<h) and whose middle, p<<h +
// 1<<(h-1), the item spans. The items spanning checkpoint c are at c's
// ancestors, one a level: at a node whose middle lies past c, those that
// span from c or before (a prefix of the node's keys, by ca); at one
// whose middle lies at or before c, those that span past c (a prefix of
// byCB's). A query takes one step a level and one an item found.
type spanTree struct {
	n    int       // checkpoints
	keys []spanKey // by node, each node's by ca
	byCB []int32   // by node, the indices of each node's keys by cb, descending
	node []int32   // node k's keys are keys[node[k]:node[k+1]]
	base []int     // the first node of each level
}

// newSpanTree returns the tree of the items whose spans span gives (ca
// to cb-1; ca >= cb: none, the item is left out) over n checkpoints.
func newSpanTree(n, items int, span func(i int) (ca, cb int)) *spanTree {
	t := &spanTree{n: n}
	nodes := 0
	for h := range bits.Len(uint(max(n-1, 0))) + 1 {
		t.base = append(t.base, nodes)
		nodes += max(n-1, 0)>>h + 1
	}
	var keys []spanKey
	for i := range items {
		if ca, cb := span(i); ca < cb {
			keys = append(keys, spanKey{int32(ca), int32(cb), int32(i)})
		}
	}
	nodeOf := func(k spanKey) int {
		x, y := int(k.ca), int(k.cb)-1
		h := bits.Len(uint(x ^ y))
		return t.base[h] + x>>h
	}
	t.node = make([]int32, nodes+1)
	for _, k := range keys {
		t.node[nodeOf(k)+1]++
	}
	for k := range nodes {
		t.node[k+1] += t.node[k]
	}
	t.keys = make([]spanKey, len(keys))
	at := slices.Clone(t.node[:nodes])
	for _, k := range keys {
		i := nodeOf(k)
		t.keys[at[i]] = k
		at[i]++
	}
	t.byCB = make([]int32, len(keys))
	for k := range nodes {
		lo, hi := t.node[k], t.node[k+1]
		slices.SortStableFunc(t.keys[lo:hi], func(a, b spanKey) int { return cmp.Compare(a.ca, b.ca) })
		idx := t.byCB[lo:hi]
		for i := range idx {
			idx[i] = lo + int32(i)
		}
		slices.SortStableFunc(idx, func(a, b int32) int { return cmp.Compare(t.keys[b].cb, t.keys[a].cb) })
	}
	return t
}

// at returns the items spanning checkpoint c (none if c is not one) for
// which keep (nil: all) returns true, in no order.
func (t *spanTree) at(c int, keep func(k spanKey) bool) []int32 {
	if t == nil || c < 0 || c >= t.n {
		return nil
	}
	var items []int32
	add := func(k spanKey) {
		if keep == nil || keep(k) {
			items = append(items, k.item)
		}
	}
	for h := range t.base {
		p := c >> h
		lo, hi := t.node[t.base[h]+p], t.node[t.base[h]+p+1]
		switch {
		case h == 0:
			for _, k := range t.keys[lo:hi] {
				add(k)
			}
		case c < p<<h+1<<(h-1):
			for i := lo; i < hi && int(t.keys[i].ca) <= c; i++ {
				add(t.keys[i])
			}
		default:
			for _, i := range t.byCB[lo:hi] {
				if int(t.keys[i].cb) <= c {
					break
				}
				add(t.keys[i])
			}
		}
	}
	return items
}

// spans is what a trace in file order's checkpoints hold once: the
// messages and the regions that span them.
type spans struct {
	msgs    []spanMsg    // in the order the first read paired them
	regions []spanRegion // in the order the first read left them (inner first)
	mt, rt  *spanTree
}

// newSpans returns the spans of msgs and regions over the checkpoints at
// times grid (ascending): an item spans those in (its start, its end].
func newSpans(msgs []spanMsg, regions []spanRegion, grid []model.Time) *spans {
	idx := func(t model.Time) int { return sort.Search(len(grid), func(i int) bool { return grid[i] > t }) }
	sp := &spans{msgs: msgs, regions: regions}
	sp.mt = newSpanTree(len(grid), len(msgs), func(i int) (int, int) { return idx(msgs[i].lo), idx(msgs[i].hi) })
	sp.rt = newSpanTree(len(grid), len(regions), func(i int) (int, int) { return idx(regions[i].start), idx(regions[i].end) })
	return sp
}

// open returns the regions open at checkpoint i, each location's
// outermost first.
func (sp *spans) open(i int) []openRegion {
	items := sp.rt.at(i, nil)
	slices.SortFunc(items, func(a, b int32) int { return cmp.Compare(b, a) })
	open := make([]openRegion, len(items))
	for k, it := range items {
		open[k] = sp.regions[it].openRegion
	}
	return open
}

// ends returns the earlier ends of the messages waiting at checkpoint i
// whose later end lies before checkpoint j, in the order the first read
// paired them (so each channel's in its order).
func (sp *spans) ends(i, j int) []model.Event {
	items := sp.mt.at(i, func(k spanKey) bool { return int(k.cb) <= j })
	slices.Sort(items)
	ends := make([]model.Event, len(items))
	for k, it := range items {
		ends[k] = sp.msgs[it].end()
	}
	return ends
}

// late returns the messages waiting at checkpoint j between the
// locations locs accepts (nil: all), in the order the first read paired
// them.
func (sp *spans) late(j int, locs func(model.LocID) bool) []export.Message {
	items := sp.mt.at(j, func(k spanKey) bool {
		m := &sp.msgs[k.item]
		return locs == nil || locs(m.from) && locs(m.to)
	})
	slices.Sort(items)
	late := make([]export.Message, len(items))
	for k, it := range items {
		late[k] = sp.msgs[it].message()
	}
	return late
}

// late returns the messages of the window [from, to)'s read that are
// paired past its end, between the locations locs accepts: in file
// order, those waiting at the read's last checkpoint; none otherwise.
func (x *index) late(from, to model.Time, locs func(model.LocID) bool) []export.Message {
	if x.spans == nil {
		return nil
	}
	_, j := x.spanIndex(from, to)
	return x.spans.late(j, locs)
}
