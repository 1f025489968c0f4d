package chrome

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/hpctrace/hpctrace/model"
)

// The defaults of [ReaderOptions].
const (
	DefaultReorderWindow  = 1 << 18 // events held to restore time order
	DefaultMaxEvent       = 1 << 20 // bytes of one event or other value of the document
	DefaultMaxFlows       = 1 << 18 // flow ends waiting for their other end
	DefaultMaxOpenRegions = 1 << 12 // slices open at once on one thread
)

// CollectiveCategory is the category that marks a slice as a collective
// operation (a CollBegin to CollEnd) rather than a region: the category
// export.ChromeWriter gives the slice it nests in the call's own.
const CollectiveCategory = "collective_op"

// ReaderOptions configures a [Reader]. A nil or zero value means defaults.
type ReaderOptions struct {
	// Path is used only in error messages.
	Path string
	// TicksPerSecond is the clock of the model's ticks. Zero means the
	// clock the document's "hpctrace" head states (the trace's own, for
	// a document export.ChromeWriter wrote), and nanoseconds (10^9)
	// without one.
	TicksPerSecond uint64
	// ReorderWindow is the most events the reader holds to deliver them in time
	// order; 0 means DefaultReorderWindow. An event that arrives later than the
	// window allows (earlier than one already delivered) is an error
	// wrapping ErrOrder. Each held event costs about 150 bytes.
	ReorderWindow int
	// MaxEvent is the largest element of the event array, or other value
	// of the document, in bytes; 0 means DefaultMaxEvent. The check is
	// made as the input is read, so a value may exceed it by up to
	// min(64 KiB, MaxEvent) bytes before it fails: the decoder holds at
	// most about twice MaxEvent.
	MaxEvent int
	// MaxFlows is the most flow ends ("s" and "f" events) held while
	// waiting for their other end; 0 means DefaultMaxFlows.
	MaxFlows int
	// MaxOpenRegions is the most slices open at once on one thread (the cost
	// of an "X" slice's end grows with it); 0 means DefaultMaxOpenRegions.
	MaxOpenRegions int
	// Selection chooses the events the Reader yields: those of a read of
	// the whole document that Selection.Keep accepts, in the same order
	// and with the same values; the definitions are the whole document's.
	// A document has no index, so the Reader reads every event and
	// filters: a selection saves no reading, and a window does not end the
	// read at To.
	Selection model.Selection
}

// Diagnostics counts what a [Reader] read but could not deliver as it
// stands. Every field is a count of events of the document.
type Diagnostics struct {
	// Skipped counts the events of phases the model has no kind for:
	// async ("b", "e", "n", "S", "T", "F", "p"), object ("N", "O", "D"),
	// sample ("P"), memory dump ("v", "V"), mark ("R"), clock sync ("c"),
	// context ("(", ")"), flow steps ("t"), flow ends without an id and
	// without a peer, counters' non-numeric series, and events without a
	// phase.
	Skipped int64
	// Unmatched counts the "E" events with no slice open on their
	// thread, and the ends of "X" slices already closed.
	Unmatched int64
	// ClosedEarly counts the slices closed at the end of an "X" slice
	// that began before them: "X" slices that overlap without nesting.
	ClosedEarly int64
	// UnpairedFlows counts the sends and receives delivered without a
	// partner (Peer 0): flow ends whose other end came after they were
	// delivered, or never, and that name no known peer in args.
	UnpairedFlows int64
	// CounterRounded counts samples that are not integers of a counter
	// whose first sample was one, delivered rounded to the nearest
	// integer. A counter whose first sample is a float literal (with a
	// fraction or an exponent) is a Float counter: its samples are
	// delivered as the bits of their doubles.
	CounterRounded int64
	// LateMetadata counts the metadata events of a thread that came after
	// its location was defined: the location keeps its first name.
	LateMetadata int64
}

// A Reader reads a document of the Chrome Trace Event Format as a
// [model.Source]. See the package documentation for the mapping and the
// order of the events.
type Reader struct {
	opts ReaderOptions
	lr   *limitReader
	dec  *json.Decoder
	defs *model.Defs
	tk   *ticker
	head bool // the document has hpctrace's head

	state   int
	bare    bool
	rec     int64  // elements of the event array read
	seq     uint64 // items made
	held    []*item
	out     []model.Event
	outPos  int
	cur     model.Event
	err     error
	started bool       // an item was delivered
	mark    model.Time // the greatest key delivered

	threads   []*thread
	threadIdx map[string]int32
	byName    map[string]int32
	procs     map[string]int32 // process key → number of threads seen (for Thread numbers)
	procNums  map[string]int32 // process key → Process number for non-integer pids
	regions   map[regionKey]model.RegionID
	regByName map[string]model.RegionID
	comms     map[string]model.CommID
	counters  map[string]model.CounterID
	flows     map[string]*item
	diag      Diagnostics

	filter bool      // opts.Selection selects something less than everything
	file   io.Closer // the file Open or OpenFS opened, until Close
	closed bool
}

const (
	stEvents = iota
	stTail
	stDone
)

type thread struct {
	pidKey, tidKey string
	pid, tid       int64
	pidOK, tidOK   bool
	name           string
	sort           int64
	hasSort        bool
	threadNum      int32
	hasThread      bool
	native         int64
	hasNative      bool
	host           bool
	process        int32
	hasProcess     bool
	idx            int32
	loc            model.LocID
	stack          []openSlice
	last           model.Time
	hasLast        bool
}

type openSlice struct {
	region model.RegionID
	coll   bool
	xid    uint64 // the seq of an "X" slice's begin; 0 for "B"
}

type regionKey struct{ name, cat string }

// The operations of held items.
const (
	opBegin = iota
	opCollBegin
	opEnd
	opXBegin
	opXEnd
	opSend
	opRecv
	opMarker
	opCounter
)

// item is an event held in the reorder window, ordered by (key, rank, aux,
// seq): at one time, the events of all threads in document order, but for
// the ends and begins of "X" slices (see hold and complete). Its event's Loc and Peer are set when it is delivered.
type item struct {
	key  model.Time
	th   int32
	rank uint8
	aux  int64
	seq  uint64
	op   uint8
	peer int32 // the partner's thread index, -1 for none
	xid  uint64
	done bool
	ev   model.Event
}

func (a *item) less(b *item) bool {
	if c := cmp.Compare(a.key, b.key); c != 0 {
		return c < 0
	}
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	if a.aux != b.aux {
		return a.aux < b.aux
	}
	return a.seq < b.seq
}

// rawEvent is one element of the event array, with the fields the reader
// uses.
type rawEvent struct {
	Name string          `json:"name"`
	Cat  string          `json:"cat"`
	Ph   string          `json:"ph"`
	TS   json.Number     `json:"ts"`
	Dur  json.Number     `json:"dur"`
	Pid  json.RawMessage `json:"pid"`
	Tid  json.RawMessage `json:"tid"`
	ID   json.RawMessage `json:"id"`
	ID2  *struct {
		Local  json.RawMessage `json:"local"`
		Global json.RawMessage `json:"global"`
	} `json:"id2"`
	Args map[string]json.RawMessage `json:"args"`
	// The flow bindings of slices ("flow events v2"): a slice with
	// flow_out starts a flow, the next with flow_in and the same bind_id
	// ends it.
	BindID  json.RawMessage `json:"bind_id"`
	FlowIn  bool            `json:"flow_in"`
	FlowOut bool            `json:"flow_out"`
}

// Open opens the file name and returns a Reader of the document it
// holds, as NewReader does; the Reader's Close closes the file. A nil
// opts means defaults; an empty opts.Path means name.
func Open(name string, opts *ReaderOptions) (*Reader, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	return newFileReader(f, name, opts)
}

// OpenFS is Open for the file name of fsys (a slash-separated path
// within fsys).
func OpenFS(fsys fs.FS, name string, opts *ReaderOptions) (*Reader, error) {
	if fsys == nil {
		return nil, errors.New("chrome: OpenFS: nil fs.FS")
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	return newFileReader(f, name, opts)
}

// newFileReader returns a Reader of f that owns it: f is closed here on
// error, else by the Reader's Close.
func newFileReader(f fs.File, name string, opts *ReaderOptions) (*Reader, error) {
	var o ReaderOptions
	if opts != nil {
		o = *opts
	}
	if o.Path == "" {
		o.Path = name
	}
	r, err := NewReader(f, &o)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.file = f
	return r, nil
}

// Close closes the file that Open or OpenFS opened; a Reader made by
// NewReader closes nothing (its io.Reader is the caller's). After Close,
// Next returns false and Err returns ErrClosed unless it already returned
// another error. A second Close returns nil.
func (r *Reader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	r.held, r.out, r.outPos = nil, nil, 0
	r.cur = model.Event{}
	f := r.file
	r.file = nil
	if f != nil {
		return f.Close()
	}
	return nil
}

// NewReader returns a Reader of the document r holds. It reads the
// document's head: up to the event array of the object form, or the
// opening bracket of the array form. It reads r through its own buffer.
// The Reader's Close does not close r.
func NewReader(r io.Reader, opts *ReaderOptions) (*Reader, error) {
	var o ReaderOptions
	if opts != nil {
		o = *opts
	}
	if o.ReorderWindow < 0 || o.MaxEvent < 0 || o.MaxFlows < 0 || o.MaxOpenRegions < 0 {
		return nil, errors.New("chrome: NewReader: negative limit in ReaderOptions")
	}
	if err := o.Selection.Check(); err != nil {
		return nil, fmt.Errorf("chrome: NewReader: ReaderOptions.Selection: %w", err)
	}
	if o.ReorderWindow == 0 {
		o.ReorderWindow = DefaultReorderWindow
	}
	if o.MaxEvent == 0 {
		o.MaxEvent = DefaultMaxEvent
	}
	if o.MaxFlows == 0 {
		o.MaxFlows = DefaultMaxFlows
	}
	if o.MaxOpenRegions == 0 {
		o.MaxOpenRegions = DefaultMaxOpenRegions
	}
	chunk := min(readChunk, o.MaxEvent)
	lr := &limitReader{r: r, chunk: chunk, max: int64(o.MaxEvent + chunk)}
	dec := json.NewDecoder(lr)
	dec.UseNumber()
	rd := &Reader{
		opts: o, lr: lr, dec: dec, defs: new(model.Defs),
		threadIdx: make(map[string]int32), byName: make(map[string]int32),
		procs: make(map[string]int32), procNums: make(map[string]int32),
		regions: make(map[regionKey]model.RegionID), regByName: make(map[string]model.RegionID),
		comms: make(map[string]model.CommID), counters: make(map[string]model.CounterID),
		flows:  make(map[string]*item),
		filter: !o.Selection.IsZero(),
	}
	rd.rec = -1
	tps, err := rd.readHead()
	if err != nil {
		return nil, err
	}
	rd.rec = 0
	if o.TicksPerSecond != 0 {
		tps = o.TicksPerSecond
	}
	rd.defs.TimeBase.TicksPerSecond = tps
	rd.tk = newTicker(max(tps, 1))
	return rd, nil
}

// readHead reads up to the first element of the event array and returns
// the clock the head states (10^9 without one).
func (r *Reader) readHead() (uint64, error) {
	tps := uint64(1e9)
	tok, err := r.token()
	if err != nil {
		return 0, r.fail(err)
	}
	switch tok {
	case json.Delim('['):
		r.bare = true
		r.state = stEvents
		return tps, nil
	case json.Delim('{'):
	default:
		return 0, r.fail(fmt.Errorf("%w: the document starts with %v", ErrFormat, tok))
	}
	for {
		tok, err := r.token()
		if err != nil {
			return 0, r.fail(err)
		}
		if tok == json.Delim('}') {
			r.state = stDone
			return tps, r.checkEnd()
		}
		key, _ := tok.(string)
		switch key {
		case "hpctrace":
			var h struct {
				TicksPerSecond *uint64 `json:"ticks_per_second"`
			}
			if err := r.decode(&h); err != nil {
				return 0, r.fail(err)
			}
			if h.TicksPerSecond != nil {
				r.head = true
				tps = *h.TicksPerSecond
			}
		case "traceEvents":
			tok, err := r.token()
			if err != nil {
				return 0, r.fail(err)
			}
			if tok != json.Delim('[') {
				return 0, r.fail(fmt.Errorf("%w: traceEvents is not an array", ErrSyntax))
			}
			r.state = stEvents
			return tps, nil
		default:
			if err := r.skip(); err != nil {
				return 0, r.fail(err)
			}
		}
	}
}

// readChunk is the most the decoder reads from the input at once (less
// for a MaxEvent below it).
const readChunk = 64 << 10

// limitReader hands the decoder at most readChunk bytes a read and fails
// once the decoder has read more than max bytes since start, the offset of
// the value being decoded: the decoder holds a whole value in memory.
type limitReader struct {
	r          io.Reader
	chunk      int
	n, start   int64
	max        int64
	overLimits bool
	ioErr      error // the input's last error other than io.EOF
}

var errTooLarge = errors.New("value larger than MaxEvent")

func (l *limitReader) Read(p []byte) (int, error) {
	if l.n-l.start > l.max {
		l.overLimits = true
		return 0, errTooLarge
	}
	if len(p) > l.chunk {
		p = p[:l.chunk]
	}
	n, err := l.r.Read(p)
	l.n += int64(n)
	if err != nil && err != io.EOF {
		l.ioErr = err
	}
	if l.n-l.start > l.max {
		// a value within max ends before the read that crosses it
		l.overLimits = true
		return n, errTooLarge
	}
	return n, err
}

// token and decode read the next token or value; a value whose reading
// crossed the limit is an error even where the decoder completed it.
func (r *Reader) token() (json.Token, error) {
	r.lr.start = r.dec.InputOffset()
	tok, err := r.dec.Token()
	if r.lr.overLimits {
		return nil, errTooLarge
	}
	return tok, err
}

func (r *Reader) decode(v any) error {
	r.lr.start = r.dec.InputOffset()
	err := r.dec.Decode(v)
	if r.lr.overLimits {
		return errTooLarge
	}
	return err
}

// skip reads past one value.
func (r *Reader) skip() error {
	var v json.RawMessage
	return r.decode(&v)
}

// checkEnd checks that nothing but blanks follows the document.
func (r *Reader) checkEnd() error {
	_, err := r.token()
	switch {
	case errors.Is(err, io.EOF):
		return nil
	case err != nil:
		return r.fail(err)
	}
	return r.fail(fmt.Errorf("%w: data after the document", ErrSyntax))
}

// fail wraps err in a ParseError at the current position.
func (r *Reader) fail(err error) error {
	var pe *ParseError
	if errors.As(err, &pe) {
		return err
	}
	switch {
	case r.lr.overLimits || errors.Is(err, errTooLarge):
		err = fmt.Errorf("%w: a value larger than %d bytes", ErrLimit, r.opts.MaxEvent)
	case r.lr.ioErr != nil && errors.Is(err, r.lr.ioErr):
		// the input's own error, as it is
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		err = fmt.Errorf("truncated document: %w", io.ErrUnexpectedEOF)
	case errors.Is(err, ErrFormat), errors.Is(err, ErrSyntax), errors.Is(err, ErrRange),
		errors.Is(err, ErrLimit), errors.Is(err, ErrOrder):
	default: // the JSON decoder's syntax and type errors
		err = fmt.Errorf("%w: %w", ErrSyntax, err)
	}
	return &ParseError{Path: r.opts.Path, Offset: r.dec.InputOffset(), Record: r.rec, Err: err}
}

// Defs returns the definitions. They grow as the document is read: a
// location is defined when the first event of any location is delivered,
// with every thread named so far, in the order of their sort indices.
func (r *Reader) Defs() *model.Defs { return r.defs }

// Diagnostics returns the counts of what was read but could not be
// delivered as it stands, so far.
func (r *Reader) Diagnostics() Diagnostics { return r.diag }

// Event returns the current event. It is valid until the next call to
// Next; copy the value to keep it. Before the first Next it returns a zero
// Event.
func (r *Reader) Event() *model.Event { return &r.cur }

// Err returns the first error; nil after a clean end. Errors are sticky.
// Next after Close gives ErrClosed.
func (r *Reader) Err() error { return r.err }

// All returns a single-use iterator over the events; see [model.All].
func (r *Reader) All() iter.Seq2[*model.Event, error] { return model.All(r) }

// Next advances to the next event selected by ReaderOptions.Selection. It
// returns false at the end of the document, on error and after Close; Err
// tells which.
func (r *Reader) Next() bool {
	if r.closed {
		if r.err == nil {
			r.err = ErrClosed
		}
		return false
	}
	for {
		if r.outPos < len(r.out) {
			r.cur = r.out[r.outPos]
			r.outPos++
			if !r.filter || r.opts.Selection.Keep(&r.cur) {
				return true
			}
			continue
		}
		r.out, r.outPos = r.out[:0], 0
		if r.err != nil {
			r.cur = model.Event{}
			return false
		}
		if len(r.held) > 0 && (len(r.held) > r.opts.ReorderWindow || r.state == stDone) {
			if err := r.deliver(r.pop()); err != nil {
				r.err = &ParseError{Path: r.opts.Path, Offset: r.dec.InputOffset(), Record: r.rec, Err: err}
			}
			continue
		}
		if r.state == stDone {
			r.cur = model.Event{}
			return false
		}
		if err := r.step(); err != nil {
			r.err = r.fail(err)
		}
	}
}

// step reads one element of the event array, or one value after it.
func (r *Reader) step() error {
	if r.state == stTail {
		tok, err := r.token()
		if err != nil {
			return err
		}
		if tok == json.Delim('}') {
			r.state = stDone
			return r.checkEnd()
		}
		return r.skip()
	}
	if !r.dec.More() {
		tok, err := r.token()
		switch {
		case r.bare && errors.Is(err, io.EOF):
			r.state = stDone // the array form may end unterminated
			return nil
		case err != nil:
			return err
		case tok != json.Delim(']'):
			return fmt.Errorf("%w: unexpected %v in the event array", ErrSyntax, tok)
		}
		if r.bare {
			r.state = stDone
			return r.checkEnd()
		}
		r.state = stTail
		return nil
	}
	var ev rawEvent
	err := r.decode(&ev)
	if r.bare && errors.Is(err, io.EOF) {
		r.state = stDone // an unterminated array ending in a comma
		return nil
	}
	if err != nil {
		return err
	}
	if err := r.event(&ev); err != nil {
		return err
	}
	r.rec++
	return nil
}

// threadOf returns the index of the thread of pid and tid, adding it.
func (r *Reader) threadOf(pid, tid json.RawMessage) int32 {
	pk, tk := idKey(pid), idKey(tid)
	key := pk + "\x00" + tk
	if i, ok := r.threadIdx[key]; ok {
		return i
	}
	th := &thread{pidKey: pk, tidKey: tk, idx: int32(len(r.threads))}
	th.pid, th.pidOK = idInt(pid)
	th.tid, th.tidOK = idInt(tid)
	r.threads = append(r.threads, th)
	r.threadIdx[key] = th.idx
	return th.idx
}

// idKey normalises a pid, tid or id: a number's text, or a string's
// content after "s:".
func idKey(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return "s:" + s
		}
	}
	return string(raw)
}

func idInt(raw json.RawMessage) (int64, bool) {
	v, err := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 64)
	return v, err == nil
}

// event turns one element of the event array into held items.
func (r *Reader) event(ev *rawEvent) error {
	if ev.Ph == "M" {
		r.metadata(ev)
		return nil
	}
	if len(ev.Ph) != 1 || !strings.Contains("BEXiIsfC", ev.Ph) {
		r.diag.Skipped++
		return nil
	}
	if ev.TS == "" {
		return fmt.Errorf("%w: %q event without ts", ErrSyntax, ev.Ph)
	}
	ts, err := r.tk.ticks(string(ev.TS))
	if err != nil {
		return err
	}
	th := r.threadOf(ev.Pid, ev.Tid)
	it := &item{th: th, rank: 1, peer: -1, ev: model.Event{Time: ts}}
	switch ev.Ph {
	case "B":
		if ev.Cat == CollectiveCategory {
			it.op = opCollBegin
			r.collective(it, ev)
		} else {
			it.op = opBegin
			it.ev.Kind = model.KindEnter
			it.ev.Region = r.region(ev.Name, ev.Cat)
		}
	case "E":
		it.op = opEnd
	case "X":
		return r.complete(ev, th, ts)
	case "i", "I":
		it.op = opMarker
		it.ev.Kind = model.KindMarker
		if name, ok := argString(ev.Args, "region"); ok {
			it.ev.Region = r.region(name, ev.Cat)
			if ev.Name != name {
				it.ev.Text = r.defs.Intern(ev.Name)
			}
		} else {
			it.ev.Text = r.defs.Intern(ev.Name)
		}
	case "C":
		return r.counter(ev, th, ts)
	case "s", "f":
		return r.flow(ev, it)
	}
	if err := r.hold(it, true); err != nil {
		return err
	}
	if ev.Ph == "B" {
		return r.bindings(ev, th, ts, 1, 0)
	}
	return nil
}

// bindings holds the receive (flow_in) and the send (flow_out) of a
// slice's flow bindings, just after its begin: rank and aux are those of
// the begin, and their seq follow its.
func (r *Reader) bindings(ev *rawEvent, th int32, ts model.Time, rank uint8, aux int64) error {
	id := idKey(ev.BindID)
	if id == "" || !(ev.FlowIn || ev.FlowOut) {
		return nil
	}
	key := "bind\x00" + id
	for _, op := range []uint8{opRecv, opSend} {
		if (op == opRecv && !ev.FlowIn) || (op == opSend && !ev.FlowOut) {
			continue
		}
		it := &item{th: th, rank: rank, aux: aux, peer: -1, op: op, ev: model.Event{Time: ts, Kind: model.KindSend}}
		if op == opRecv {
			it.ev.Kind = model.KindRecv
		}
		if err := r.hold(it, rank == 1); err != nil {
			return err
		}
		if err := r.pair(it, key); err != nil {
			return err
		}
	}
	return nil
}

// hold places it in the window. A point event's key is its time, raised
// to the key of its thread's previous point event, so that a thread's
// point events keep their document order.
func (r *Reader) hold(it *item, point bool) error {
	it.key = it.ev.Time
	if point {
		th := r.threads[it.th]
		if th.hasLast && th.last > it.key {
			it.key = th.last
		}
		th.last, th.hasLast = it.key, true
	}
	if r.started && it.key < r.mark {
		return fmt.Errorf("%w: an event at %d ticks after one at %d was delivered (ReaderOptions.ReorderWindow is %d events)",
			ErrOrder, it.key, r.mark, r.opts.ReorderWindow)
	}
	r.seq++
	it.seq = r.seq
	r.push(it)
	return nil
}

// complete holds the begin and end of an "X" slice.
func (r *Reader) complete(ev *rawEvent, th int32, ts model.Time) error {
	var dur model.Time
	if ev.Dur != "" {
		var err error
		if dur, err = r.tk.ticks(string(ev.Dur)); err != nil {
			return err
		}
	}
	end := ts + dur
	if dur < 0 || end < ts {
		return fmt.Errorf("%w: dur %s", ErrRange, ev.Dur)
	}
	begin := &item{th: th, rank: 2, aux: -int64(dur), peer: -1, op: opXBegin,
		ev: model.Event{Time: ts, Kind: model.KindEnter, Region: r.region(ev.Name, ev.Cat)}}
	if err := r.hold(begin, false); err != nil {
		return err
	}
	if err := r.bindings(ev, th, ts, begin.rank, begin.aux); err != nil {
		return err
	}
	last := &item{th: th, rank: 2, peer: -1, op: opXEnd, xid: begin.seq, ev: model.Event{Time: end}}
	if dur > 0 {
		last.rank, last.aux = 0, -int64(ts)
	}
	return r.hold(last, false)
}

// collective fills a CollBegin from the args export.ChromeWriter writes.
func (r *Reader) collective(it *item, ev *rawEvent) {
	it.ev.Kind = model.KindCollBegin
	if id, ok := r.regByName[ev.Name]; ok {
		it.ev.Region = id
	} else {
		it.ev.Region = r.region(ev.Name, model.RegionCollective.String())
	}
	if s, ok := argString(ev.Args, "comm"); ok {
		it.ev.Comm = r.comm(s)
	}
	if s, ok := argString(ev.Args, "class"); ok {
		for c := model.ClassUnknown; c <= model.ClassAllToAll; c++ {
			if c.String() == s {
				it.ev.Class = c
			}
		}
	}
	if s, ok := argString(ev.Args, "root"); ok {
		if p, ok := r.byName[s]; ok && p >= 0 {
			it.peer = p
		}
	}
	it.ev.Bytes, _ = argInt(ev.Args, "bytes")
	it.ev.Recvd, _ = argInt(ev.Args, "recvd")
}

// counter holds a sample of each series of a "C" event, in the order of
// the series' names.
func (r *Reader) counter(ev *rawEvent, th int32, ts model.Time) error {
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range ev.Args {
			if !yield(k) {
				return
			}
		}
	})
	base := ev.Name
	if t := r.threads[th]; t.name != "" {
		base = strings.TrimSuffix(base, " ("+t.name+")")
	}
	for _, k := range keys {
		raw := bytes.TrimSpace(ev.Args[k])
		name := base
		if k != "value" {
			name += " " + k
		}
		id, ok := r.counters[name]
		if !ok {
			// A counter whose first sample is a float literal holds
			// doubles (model.Counter.Float), as the export writes them.
			id = r.defs.AddCounter(model.Counter{Name: name, Float: bytes.ContainsAny(raw, ".eE")})
			r.counters[name] = id
		}
		var v int64
		if c, _ := r.defs.Counter(id); c.Float {
			f, err := strconv.ParseFloat(string(raw), 64)
			if err != nil {
				r.diag.Skipped++
				continue
			}
			v = int64(math.Float64bits(f))
		} else if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
			v = n
		} else {
			f, ferr := strconv.ParseFloat(string(raw), 64)
			if ferr != nil || math.IsNaN(f) || math.Abs(f) >= 1<<63 {
				r.diag.Skipped++
				continue
			}
			v = int64(math.Round(f))
			r.diag.CounterRounded++
		}
		it := &item{th: th, rank: 1, peer: -1, op: opCounter,
			ev: model.Event{Time: ts, Kind: model.KindCounter, Counter: id, Value: v}}
		if err := r.hold(it, true); err != nil {
			return err
		}
	}
	return nil
}

// flow holds the send ("s") or receive ("f") of a flow, and pairs it with
// its other end by (cat, name, id).
func (r *Reader) flow(ev *rawEvent, it *item) error {
	it.op, it.ev.Kind = opSend, model.KindSend
	if ev.Ph == "f" {
		it.op, it.ev.Kind = opRecv, model.KindRecv
	}
	if s, ok := argString(ev.Args, "peer"); ok {
		if p, ok := r.byName[s]; ok && p >= 0 {
			it.peer = p
		}
	}
	it.ev.Bytes, _ = argInt(ev.Args, "bytes")
	if tag, ok := argInt(ev.Args, "tag"); ok && tag >= math.MinInt32 && tag <= math.MaxInt32 {
		it.ev.Tag = int32(tag)
	}
	if s, ok := argString(ev.Args, "comm"); ok {
		it.ev.Comm = r.comm(s)
	}
	if s, ok := argString(ev.Args, "flags"); ok {
		it.ev.Flags = parseFlags(s)
	}
	id := idKey(ev.ID)
	if ev.ID2 != nil {
		id = "g" + idKey(ev.ID2.Global) + "l" + idKey(ev.ID2.Local)
	}
	if id == "" {
		if it.peer < 0 {
			r.diag.Skipped++
			return nil
		}
		return r.hold(it, true)
	}
	if err := r.hold(it, true); err != nil {
		return err
	}
	return r.pair(it, ev.Cat+"\x00"+ev.Name+"\x00"+id)
}

// pair pairs the flow end it with the other end of key, or waits for it.
func (r *Reader) pair(it *item, key string) error {
	other, ok := r.flows[key]
	if !ok || other.op == it.op {
		r.flows[key] = it
		if len(r.flows) > r.opts.MaxFlows {
			return fmt.Errorf("%w: more than %d flow ends wait for their other end (ReaderOptions.MaxFlows)", ErrLimit, r.opts.MaxFlows)
		}
		return nil
	}
	delete(r.flows, key)
	it.peer = other.th
	if !other.done {
		other.peer = it.th
	}
	return nil
}

func parseFlags(s string) model.Flags {
	var f model.Flags
	for name := range strings.SplitSeq(s, "|") {
		for i := range 8 {
			if b := model.Flags(1 << i); b.String() == name {
				f |= b
			}
		}
	}
	return f
}

// metadata reads a metadata event ("M").
func (r *Reader) metadata(ev *rawEvent) {
	switch ev.Name {
	case "thread_name", "thread_sort_index":
	default:
		return // process names, labels and sort indices: the model has no process
	}
	th := r.threads[r.threadOf(ev.Pid, ev.Tid)]
	if th.loc != 0 {
		r.diag.LateMetadata++
		return
	}
	if ev.Name == "thread_sort_index" {
		th.sort, th.hasSort = argInt(ev.Args, "sort_index")
		return
	}
	if name, ok := argString(ev.Args, "name"); ok {
		th.name = name
		if i, dup := r.byName[name]; !dup {
			r.byName[name] = th.idx
		} else if i != th.idx {
			r.byName[name] = -1 // two threads of one name: the name names neither
		}
	}
	if v, ok := argInt(ev.Args, "thread"); ok && v >= math.MinInt32 && v <= math.MaxInt32 {
		th.threadNum, th.hasThread = int32(v), true
	}
	th.native, th.hasNative = argInt(ev.Args, "native")
	if v, ok := argInt(ev.Args, "process"); ok && v >= math.MinInt32 && v <= math.MaxInt32 {
		th.process, th.hasProcess = int32(v), true
	}
	th.host, _ = argBool(ev.Args, "host")
}

// region returns the region named name in category cat, adding it. A
// category that is a model.RegionKind name gives the kind; any other is
// the region's group.
func (r *Reader) region(name, cat string) model.RegionID {
	k := regionKey{name, cat}
	if id, ok := r.regions[k]; ok {
		return id
	}
	reg := model.Region{Name: name, Kind: model.RegionOther, Group: cat}
	for kind := model.RegionOther; kind <= model.RegionUser; kind++ {
		if kind.String() == cat {
			reg.Kind, reg.Group = kind, ""
		}
	}
	id := r.defs.AddRegion(reg)
	r.regions[k] = id
	if _, ok := r.regByName[name]; !ok {
		r.regByName[name] = id
	}
	return id
}

func (r *Reader) comm(name string) model.CommID {
	if name == "" {
		return 0
	}
	id, ok := r.comms[name]
	if !ok {
		id = r.defs.AddComm(model.Comm{Name: name})
		r.comms[name] = id
	}
	return id
}

func argString(args map[string]json.RawMessage, key string) (string, bool) {
	raw, ok := args[key]
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func argInt(args map[string]json.RawMessage, key string) (int64, bool) {
	raw, ok := args[key]
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 64)
	return v, err == nil
}

func argBool(args map[string]json.RawMessage, key string) (bool, bool) {
	raw, ok := args[key]
	if !ok {
		return false, false
	}
	var b bool
	if json.Unmarshal(raw, &b) != nil {
		return false, false
	}
	return b, true
}

// defineLocations defines every thread seen and not yet defined, in the
// order of their sort indices (threads without one after those with one),
// then of their first appearance.
func (r *Reader) defineLocations() {
	var todo []*thread
	for _, th := range r.threads {
		if th.loc == 0 {
			todo = append(todo, th)
		}
	}
	slices.SortStableFunc(todo, func(a, b *thread) int {
		if a.hasSort != b.hasSort {
			if a.hasSort {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.sort, b.sort)
	})
	for _, th := range todo {
		l := model.Location{Name: th.name, Host: th.host}
		if l.Name == "" {
			l.Name = "pid " + strings.TrimPrefix(th.pidKey, "s:") + " tid " + strings.TrimPrefix(th.tidKey, "s:")
		}
		switch {
		case th.hasProcess:
			l.Process = th.process
		case th.pidOK && th.pid >= math.MinInt32 && th.pid <= math.MaxInt32:
			l.Process = int32(th.pid)
		default:
			n, ok := r.procNums[th.pidKey]
			if !ok {
				n = int32(len(r.procNums))
				r.procNums[th.pidKey] = n
			}
			l.Process = n
		}
		switch {
		case th.hasThread:
			l.Thread = th.threadNum
		case r.head || (th.pidOK && th.tidOK && th.pid == th.tid):
			l.Thread = 0
		default:
			r.procs[th.pidKey]++
			l.Thread = r.procs[th.pidKey]
		}
		switch {
		case th.hasNative:
			l.Native = th.native
		case !r.head && th.tidOK:
			l.Native = th.tid
		}
		th.loc = r.defs.AddLocation(l)
	}
}

func (r *Reader) locOf(th int32) model.LocID {
	if r.threads[th].loc == 0 {
		r.defineLocations()
	}
	return r.threads[th].loc
}

// deliver turns a held item into events, closing slices as it must.
func (r *Reader) deliver(it *item) error {
	it.done = true
	if !r.started || it.key > r.mark {
		r.mark = it.key
	}
	r.started = true
	th := r.threads[it.th]
	ev := it.ev
	ev.Loc = r.locOf(it.th)
	if it.peer >= 0 {
		ev.Peer = r.locOf(it.peer)
	}
	if (it.op == opBegin || it.op == opXBegin || it.op == opCollBegin) && len(th.stack) >= r.opts.MaxOpenRegions {
		return fmt.Errorf("%w: more than %d slices open on thread %q (ReaderOptions.MaxOpenRegions)", ErrLimit, r.opts.MaxOpenRegions, r.defs.LocationName(ev.Loc))
	}
	switch it.op {
	case opBegin:
		th.stack = append(th.stack, openSlice{region: ev.Region})
	case opXBegin:
		th.stack = append(th.stack, openSlice{region: ev.Region, xid: it.seq})
	case opCollBegin:
		th.stack = append(th.stack, openSlice{region: ev.Region, coll: true})
	case opEnd:
		if len(th.stack) == 0 {
			r.diag.Unmatched++
			return nil
		}
		r.closeTop(th, ev.Loc, ev.Time)
		return nil
	case opXEnd:
		i := len(th.stack) - 1
		for i >= 0 && th.stack[i].xid != it.xid {
			i--
		}
		if i < 0 {
			r.diag.Unmatched++
			return nil
		}
		for len(th.stack) > i+1 {
			r.diag.ClosedEarly++
			r.closeTop(th, ev.Loc, ev.Time)
		}
		r.closeTop(th, ev.Loc, ev.Time)
		return nil
	case opSend, opRecv:
		if it.peer < 0 {
			r.diag.UnpairedFlows++
		}
	}
	r.out = append(r.out, ev)
	return nil
}

// closeTop ends the innermost open slice of th.
func (r *Reader) closeTop(th *thread, loc model.LocID, t model.Time) {
	s := th.stack[len(th.stack)-1]
	th.stack = th.stack[:len(th.stack)-1]
	ev := model.Event{Time: t, Loc: loc, Kind: model.KindLeave, Region: s.region}
	if s.coll {
		ev = model.Event{Time: t, Loc: loc, Kind: model.KindCollEnd}
	}
	r.out = append(r.out, ev)
}

// push and pop keep held as a binary heap by item.less.
func (r *Reader) push(it *item) {
	h := append(r.held, it)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].less(h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	r.held = h
}

func (r *Reader) pop() *item {
	h := r.held
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h[n] = nil
	h = h[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if l+1 < n && h[l+1].less(h[l]) {
			m = l + 1
		}
		if !h[m].less(h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	r.held = h
	return top
}
