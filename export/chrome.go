package export

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hpctrace/hpctrace/model"
)

// ChromeWriter writes model events in the Chrome Trace Event Format (the
// JSON object form, {"traceEvents":[…]}), which Perfetto
// (ui.perfetto.dev, trace_processor) and chrome://tracing read. It maps:
//
//	location      a thread: pid = Location.Process + 1 (pid 0 is no
//	              process to some readers: TracerBench's trace model
//	              drops its events; it is the idle task of Linux),
//	              tid = the model LocID;
//	              "process_name", "thread_name" and sort-index metadata
//	              events (ph "M") name it, written before its first event
//	Enter/Leave   a slice: ph "B" / "E" named by the region, category the
//	              region kind ("function", "comm", …)
//	CollBegin/End a slice (ph "B" / "E", category "collective_op",
//	              nested in the call's own slice) named by the operation,
//	              with args comm (the communicator's name), class, root,
//	              bytes and recvd; the category tells a reader that the
//	              slice is the operation, not a second call
//	Send/Recv     a flow arrow: ph "s" at the send, ph "f" with "bp":"e"
//	              at the receive, each bound to the slice that encloses it
//	              (the send and receive operations); args bytes, tag, peer
//	              (the partner's thread name), and comm (the
//	              communicator's name) and flags ("sync|waited", as
//	              [model.Flags.String]) where not zero
//	Counter       ph "C" named by the counter, args {"value": v} (the
//	              double of a Float counter, always with a fraction or an
//	              exponent, null for NaN and infinities)
//	Marker        an instant event, ph "i" with thread scope, named by its
//	              text (else its region); a marker of a region (a
//	              zero-length instance, as PICL's marks) has the region's
//	              kind as category and args {"region": name}
//
// The thread_name metadata of a location also carries, in args, the
// location's process ("process"), its thread number ("thread", where not 0), its native id
// ("native", where not 0) and "host" (where true), so that a reader can rebuild it.
//
// Timestamps ("ts") are microseconds: the trace's ticks converted exactly
// to the nearest multiple of the decimals written, three (nanoseconds) for
// clocks of at most 10^9 ticks a second, one more for each factor ten
// beyond, so that rounding ts back to the nearest tick gives
// the tick written. The document's first key, "hpctrace", states the
// clock ({"ticks_per_second": n}; 0 when the trace's is unknown), for
// readers that want the ticks back (package chrome does).
//
// A send and a receive are paired as the stats package pairs them: the
// k-th send from A to B with tag T on communicator C pairs with the k-th
// receive on B from A with T on C; the flow id encodes the channel and k,
// so the writer keeps one counter pair per channel and nothing per
// message.
//
// What cannot be drawn is dropped and counted ([ChromeWriter.Dropped],
// also written into the document's "otherData"): Enters of no region,
// Leaves and CollEnds with nothing open to close, events of unknown
// kinds, sends and receives without a known peer (Peer 0, as on a DUMPI
// communicator of unknown membership: an arrow needs both ends), and
// messages on channels beyond 2^21 (a flow id must stay below
// 2^53 for JavaScript readers). A Leave ends the innermost open region
// slice, whatever region it names ([model.ClassifyLeave]; those naming
// another are counted), and the collective slices still open inside it;
// a CollEnd ends the innermost open collective and the region slices
// still open inside it. Close ends every slice still open at the last
// time written.
//
// Memory grows with the locations, processes, regions and message
// channels (sender, receiver, tag, communicator) and with the nesting
// depth of open slices, not with the number of events.
type ChromeWriter struct {
	w    *bufio.Writer
	defs *model.Defs
	err  error
	buf  []byte

	nlocs    int            // locations whose metadata is written
	procs    map[int32]bool // processes whose name is written
	open     [][]openSlice  // per LocID: open slices, innermost last
	names    [][]byte       // per RegionID: the JSON-quoted name, once looked up
	channels map[chanKey]*chanCount
	comms    []bool       // per CommID: named by an event written
	lastAt   []model.Time // per LocID: the greatest time written
	first    bool         // the document's head is not written yet
	written  bool         // an element of traceEvents is written
	events   bool         // an event is written; last is its greatest time
	last     model.Time
	dropped  ChromeDropped
}

// ChromeDropped counts the events a [ChromeWriter] could not draw.
type ChromeDropped struct {
	NoRegion    int64 // Enters of region 0
	Unmatched   int64 // Leaves and CollEnds with no open slice to close
	Mismatched  int64 // Leaves naming another region than the slice they end
	ClosedEarly int64 // slices closed by the end of a slice around them
	ClosedAtEnd int64 // slices still open at Close
	UnknownKind int64 // events of kinds the model does not define
	Flows       int64 // sends and receives beyond the flow id range
	NoPeer      int64 // sends and receives without a known peer (Peer 0): no arrow

	// NotDrawn counts the events of kinds the format has no drawing
	// for: RecvPost, SendDone, ProgramBegin, ProgramEnd, Parameter,
	// CollPost and CollDone.
	NotDrawn int64

	// The fields below count what is written without a part the format
	// cannot carry; the events themselves are drawn.
	Sites     int64 // Enters with a call site (Site ≠ 0): the site is not written
	Requests  int64 // sends and receives of a non-blocking request (Match ≠ 0): the request is not written
	CollMatch int64 // CollBegins and CollEnds with an instance id (Match ≠ 0): the id is not written
	Comms     int64 // communicators named by the events written: their names are written, their members are not
}

type openSlice struct {
	region model.RegionID
	coll   bool
}

type chanKey struct {
	from, to model.LocID
	tag      int32
	comm     model.CommID
}

type chanCount struct {
	idx         uint64
	sent, recvd uint64
}

// ChromeCollectiveCategory is the category of the slice a [ChromeWriter]
// draws for a collective operation (CollBegin to CollEnd), nested in the
// slice of the call that holds it.
const ChromeCollectiveCategory = "collective_op"

// maxChannels keeps flow ids (channel index << 32 | sequence) below 2^53.
const maxChannels = 1 << 21

// NewChromeWriter returns a writer of the events of a source whose
// definitions are defs (the source's own, read as they grow; nil means
// none). It writes the document's head at the first Write or at Close, and
// never closes w. It fails only on a nil w, like the other writers'
// constructors of the package, which return an error too.
func NewChromeWriter(w io.Writer, defs *model.Defs) (*ChromeWriter, error) {
	if w == nil {
		return nil, errors.New("export: NewChromeWriter: nil io.Writer")
	}
	if defs == nil {
		defs = new(model.Defs)
	}
	return &ChromeWriter{
		w:        bufio.NewWriterSize(w, 1<<16),
		defs:     defs,
		procs:    make(map[int32]bool),
		channels: make(map[chanKey]*chanCount),
		first:    true,
	}, nil
}

// WriteChrome writes every event of src to w in the Chrome Trace Event
// Format and closes the document. It returns the source's error, if any,
// after writing what it read.
func WriteChrome(w io.Writer, src model.Source) error {
	cw, err := NewChromeWriter(w, src.Defs())
	if err != nil {
		return err
	}
	for src.Next() {
		if err := cw.Write(src.Event()); err != nil {
			return err
		}
	}
	if err := src.Err(); err != nil {
		return err
	}
	return cw.Close()
}

// Dropped returns the counts of the events that could not be drawn so far.
func (c *ChromeWriter) Dropped() ChromeDropped { return c.dropped }

// Write writes one event. Its location and region must be defined in the
// writer's definitions. It returns the first error of the underlying
// writer, which stays sticky.
func (c *ChromeWriter) Write(ev *model.Event) error {
	if c.err != nil {
		return c.err
	}
	if !c.events || ev.Time > c.last {
		c.last = ev.Time
		c.events = true
	}
	for int(ev.Loc) >= len(c.lastAt) {
		c.lastAt = append(c.lastAt, math.MinInt64)
	}
	c.lastAt[ev.Loc] = max(c.lastAt[ev.Loc], ev.Time)
	c.head()
	c.meta()
	switch ev.Kind {
	case model.KindEnter:
		if ev.Region == 0 {
			c.dropped.NoRegion++
			return c.err
		}
		if ev.Site != 0 {
			c.dropped.Sites++
		}
		c.push(ev.Loc, openSlice{region: ev.Region})
		c.begin(ev, 'B', c.regionName(ev.Region), ev.Region)
		c.end()
	case model.KindLeave:
		c.leave(ev)
	case model.KindCollBegin:
		if ev.Match != 0 {
			c.dropped.CollMatch++
		}
		c.useComm(ev.Comm)
		c.push(ev.Loc, openSlice{region: ev.Region, coll: true})
		c.begin(ev, 'B', c.regionName(ev.Region), 0)
		c.buf = append(c.buf, `,"cat":"`+ChromeCollectiveCategory+`","args":{"comm":`...)
		c.buf = appendString(c.buf, commName(c.defs, ev.Comm))
		c.buf = append(c.buf, `,"class":"`...)
		c.buf = append(c.buf, ev.Class.String()...)
		c.buf = append(c.buf, `","root":`...)
		if ev.Peer != 0 {
			c.buf = appendString(c.buf, c.defs.LocationName(ev.Peer))
		} else {
			c.buf = append(c.buf, "null"...)
		}
		c.buf = append(c.buf, `,"bytes":`...)
		c.buf = strconv.AppendInt(c.buf, ev.Bytes, 10)
		c.buf = append(c.buf, `,"recvd":`...)
		c.buf = strconv.AppendInt(c.buf, ev.Recvd, 10)
		c.buf = append(c.buf, '}')
		c.end()
	case model.KindCollEnd:
		if ev.Match != 0 {
			c.dropped.CollMatch++
		}
		c.pop(ev.Loc, ev.Time, func(s openSlice) bool { return s.coll })
	case model.KindSend, model.KindRecv:
		c.flow(ev)
	case model.KindCounter:
		name := counterName(c.defs, ev.Counter)
		if l, ok := c.defs.Location(ev.Loc); ok && l.Thread != 0 {
			name += " (" + c.defs.LocationName(ev.Loc) + ")"
		}
		c.begin(ev, 'C', nil, 0)
		c.buf = append(c.buf, `,"name":`...)
		c.buf = appendString(c.buf, name)
		c.buf = append(c.buf, `,"args":{"value":`...)
		if k, ok := c.defs.Counter(ev.Counter); ok && k.Float {
			// JSON has no NaN or infinities: those samples are null.
			if v := math.Float64frombits(uint64(ev.Value)); math.IsNaN(v) || math.IsInf(v, 0) {
				c.buf = append(c.buf, "null"...)
			} else {
				n := len(c.buf)
				c.buf = strconv.AppendFloat(c.buf, v, 'g', -1, 64)
				if !bytes.ContainsAny(c.buf[n:], ".eE") {
					// a float literal, so that a reader knows the
					// counter's values are doubles (package chrome does)
					c.buf = append(c.buf, ".0"...)
				}
			}
		} else {
			c.buf = strconv.AppendInt(c.buf, ev.Value, 10)
		}
		c.buf = append(c.buf, '}')
		c.end()
	case model.KindMarker:
		c.begin(ev, 'i', nil, 0)
		c.buf = append(c.buf, `,"s":"t","cat":"`...)
		if ev.Region != 0 {
			reg, _ := c.defs.Region(ev.Region)
			c.buf = append(c.buf, reg.Kind.String()...)
		} else {
			c.buf = append(c.buf, "marker"...)
		}
		c.buf = append(c.buf, `","name":`...)
		switch {
		case ev.Text != 0:
			c.buf = appendString(c.buf, c.defs.String(ev.Text))
		case ev.Region != 0:
			c.buf = append(c.buf, c.regionName(ev.Region)...)
		default:
			c.buf = append(c.buf, `"marker"`...)
		}
		if ev.Region != 0 {
			c.buf = append(c.buf, `,"args":{"region":`...)
			c.buf = append(c.buf, c.regionName(ev.Region)...)
			c.buf = append(c.buf, '}')
		}
		c.end()
	case model.KindRecvPost, model.KindSendDone, model.KindProgramBegin, model.KindProgramEnd, model.KindParameter, model.KindCollPost, model.KindCollDone:
		c.dropped.NotDrawn++
	default:
		c.dropped.UnknownKind++
	}
	return c.err
}

// Close ends the slices still open, writes the document's tail and
// flushes. It does not close the underlying writer.
func (c *ChromeWriter) Close() error {
	if c.err != nil {
		return c.err
	}
	c.head()
	c.meta()
	for l := range c.open {
		for len(c.open[l]) > 0 {
			c.dropped.ClosedAtEnd++
			c.endSlice(model.LocID(l), c.lastAt[l])
		}
	}
	d := c.dropped
	c.buf = append(c.buf[:0], "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"producer\":\"hpctrace\",\"time_base\":"...)
	c.buf = appendString(c.buf, c.defs.TimeBase.String())
	for _, f := range []struct {
		k string
		v int64
	}{{"dropped_no_region", d.NoRegion}, {"dropped_unmatched", d.Unmatched},
		{"leave_region_mismatch", d.Mismatched}, {"closed_early", d.ClosedEarly},
		{"closed_at_end", d.ClosedAtEnd}, {"dropped_unknown_kind", d.UnknownKind}, {"dropped_flows", d.Flows}, {"dropped_no_peer", d.NoPeer},
		{"not_drawn", d.NotDrawn}, {"lost_sites", d.Sites}, {"lost_requests", d.Requests}, {"lost_coll_match", d.CollMatch}, {"comms_without_members", d.Comms}} {
		c.buf = append(c.buf, ",\""...)
		c.buf = append(c.buf, f.k...)
		c.buf = append(c.buf, "\":"...)
		c.buf = strconv.AppendInt(c.buf, f.v, 10)
	}
	c.buf = append(c.buf, "}}\n"...)
	c.flush()
	if c.err == nil {
		c.err = c.w.Flush()
	}
	if c.err == nil {
		c.err = errClosed
		return nil
	}
	return c.err
}

// errClosed is the sticky state of a closed writer.
var errClosed = errors.New("export: write after Close")

func (c *ChromeWriter) flush() {
	if c.err == nil {
		_, c.err = c.w.Write(c.buf)
	}
	c.buf = c.buf[:0]
}

// head writes the document's opening once.
func (c *ChromeWriter) head() {
	if c.first {
		c.first = false
		c.buf = append(c.buf, "{\"hpctrace\":{\"ticks_per_second\":"...)
		c.buf = strconv.AppendUint(c.buf, c.defs.TimeBase.TicksPerSecond, 10)
		c.buf = append(c.buf, "},\"traceEvents\":["...)
		c.flush()
	}
}

// meta writes the metadata of the locations defined since the last call.
func (c *ChromeWriter) meta() {
	for c.nlocs < c.defs.NumLocations() {
		id := model.LocID(c.nlocs + 1)
		l, _ := c.defs.Location(id)
		if !c.procs[l.Process] {
			c.procs[l.Process] = true
			name := "process " + strconv.FormatInt(int64(l.Process), 10)
			if l.Thread == 0 && l.Name != "" {
				name = l.Name
			}
			c.metaEvent("process_name", l.Process, 0, `"name":`, name)
			c.metaEvent("process_sort_index", l.Process, 0, `"sort_index":`, int64(l.Process))
		}
		c.threadName(l, id)
		c.metaEvent("thread_sort_index", l.Process, id, `"sort_index":`, int64(id))
		c.nlocs++
	}
}

func (c *ChromeWriter) metaEvent(name string, pid int32, tid model.LocID, key string, v any) {
	c.sepAny()
	c.buf = append(c.buf, `{"ph":"M","name":"`...)
	c.buf = append(c.buf, name...)
	c.buf = append(c.buf, `","pid":`...)
	c.buf = strconv.AppendInt(c.buf, int64(pid)+1, 10)
	c.buf = append(c.buf, `,"tid":`...)
	c.buf = strconv.AppendUint(c.buf, uint64(tid), 10)
	c.buf = append(c.buf, `,"args":{`...)
	c.buf = append(c.buf, key...)
	switch v := v.(type) {
	case string:
		c.buf = appendString(c.buf, v)
	case int64:
		c.buf = strconv.AppendInt(c.buf, v, 10)
	}
	c.buf = append(c.buf, "}}"...)
	c.flush()
}

// threadName writes the thread_name metadata of location l.
func (c *ChromeWriter) threadName(l model.Location, id model.LocID) {
	c.sepAny()
	c.buf = append(c.buf, `{"ph":"M","name":"thread_name","pid":`...)
	c.buf = strconv.AppendInt(c.buf, int64(l.Process)+1, 10)
	c.buf = append(c.buf, `,"tid":`...)
	c.buf = strconv.AppendUint(c.buf, uint64(id), 10)
	c.buf = append(c.buf, `,"args":{"name":`...)
	c.buf = appendString(c.buf, c.defs.LocationName(id))
	c.buf = append(c.buf, `,"process":`...)
	c.buf = strconv.AppendInt(c.buf, int64(l.Process), 10)
	if l.Thread != 0 {
		c.buf = append(c.buf, `,"thread":`...)
		c.buf = strconv.AppendInt(c.buf, int64(l.Thread), 10)
	}
	if l.Native != 0 {
		c.buf = append(c.buf, `,"native":`...)
		c.buf = strconv.AppendInt(c.buf, l.Native, 10)
	}
	if l.Host {
		c.buf = append(c.buf, `,"host":true`...)
	}
	c.buf = append(c.buf, "}}"...)
	c.flush()
}

// useComm counts communicator id once among those named.
func (c *ChromeWriter) useComm(id model.CommID) {
	if id == 0 {
		return
	}
	for int(id) >= len(c.comms) {
		c.comms = append(c.comms, false)
	}
	if !c.comms[id] {
		c.comms[id] = true
		c.dropped.Comms++
	}
}

// sepAny writes the separator before every element but the first.
func (c *ChromeWriter) sepAny() {
	if c.written {
		c.buf = append(c.buf, ",\n"...)
	} else {
		c.buf = append(c.buf, '\n')
		c.written = true
	}
}

// begin starts an event element with its phase, location and time, and,
// for a non-nil quoted name, its name and the category of region r.
func (c *ChromeWriter) begin(ev *model.Event, ph byte, name []byte, r model.RegionID) {
	c.sepAny()
	c.buf = append(c.buf, `{"ph":"`...)
	c.buf = append(c.buf, ph)
	c.buf = append(c.buf, `","pid":`...)
	l, _ := c.defs.Location(ev.Loc)
	c.buf = strconv.AppendInt(c.buf, int64(l.Process)+1, 10)
	c.buf = append(c.buf, `,"tid":`...)
	c.buf = strconv.AppendUint(c.buf, uint64(ev.Loc), 10)
	c.buf = append(c.buf, `,"ts":`...)
	c.buf = c.appendTS(c.buf, ev.Time)
	if name != nil {
		c.buf = append(c.buf, `,"name":`...)
		c.buf = append(c.buf, name...)
	}
	if r != 0 {
		reg, _ := c.defs.Region(r)
		c.buf = append(c.buf, `,"cat":"`...)
		c.buf = append(c.buf, reg.Kind.String()...)
		c.buf = append(c.buf, '"')
	}
}

// end closes an event element and writes it.
func (c *ChromeWriter) end() {
	c.buf = append(c.buf, '}')
	c.flush()
}

// appendTS appends t as microseconds with three decimals, or more for
// clocks finer than a nanosecond (see [ChromeWriter]).
func (c *ChromeWriter) appendTS(b []byte, t model.Time) []byte {
	return appendTS(b, t, c.defs.TimeBase.TicksPerSecond)
}

// appendTS appends t ticks of a clock of tps ticks a second (0: one) as
// microseconds with d decimals, 3 or the fewest beyond that make
// 10^(6+d) ≥ tps (14 beyond 10^19), rounded half away from zero and without
// trailing zero decimals when all are zero. The conversion is exact: in
// 128 bits, else (a time beyond 2^64 units of the last decimal) in big
// integers.
func appendTS(b []byte, t model.Time, tps uint64) []byte {
	tps = max(tps, 1)
	d, scale := 3, uint64(1e9)
	for scale < tps && d < 13 {
		d++
		scale *= 10
	}
	u := uint64(t)
	if t < 0 {
		b = append(b, '-')
		u = -u
	}
	if scale < tps {
		return appendBigTS(b, u, tps, 14)
	}
	hi, lo := bits.Mul64(u, scale)
	var carry uint64
	lo, carry = bits.Add64(lo, tps/2, 0)
	hi += carry
	if hi >= tps {
		return appendBigTS(b, u, tps, d)
	}
	q, _ := bits.Div64(hi, lo, tps)
	var pow uint64 = 1
	for range d {
		pow *= 10
	}
	b = strconv.AppendUint(b, q/pow, 10)
	if f := q % pow; f != 0 {
		var digits [13]byte
		for i := d - 1; i >= 0; i-- {
			digits[i] = byte('0' + f%10)
			f /= 10
		}
		b = append(b, '.')
		b = append(b, digits[:d]...)
	}
	return b
}

// appendBigTS appends u ticks of a clock of tps ticks a second as
// microseconds with d decimals, in big integers: for clocks of more than
// 10^19 ticks a second and times beyond 2^64 units of the last decimal,
// rare enough that their allocation does not matter.
func appendBigTS(b []byte, u, tps uint64, d int) []byte {
	var q, den, half big.Int
	den.SetUint64(tps)
	half.Rsh(&den, 1)
	q.SetUint64(u)
	q.Mul(&q, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(6+d)), nil))
	q.Add(&q, &half)
	q.Quo(&q, &den)
	digits := q.Text(10)
	if len(digits) <= d {
		digits = strings.Repeat("0", d+1-len(digits)) + digits
	}
	whole, frac := digits[:len(digits)-d], digits[len(digits)-d:]
	b = append(b, whole...)
	if strings.Trim(frac, "0") != "" {
		b = append(b, '.')
		b = append(b, frac...)
	}
	return b
}

func (c *ChromeWriter) push(l model.LocID, s openSlice) {
	for int(l) >= len(c.open) {
		c.open = append(c.open, nil)
	}
	c.open[l] = append(c.open[l], s)
}

// pop closes the innermost open slice of l that match accepts, and those
// open inside it.
func (c *ChromeWriter) pop(l model.LocID, t model.Time, match func(openSlice) bool) {
	var st []openSlice
	if int(l) < len(c.open) {
		st = c.open[l]
	}
	i := len(st) - 1
	for i >= 0 && !match(st[i]) {
		i--
	}
	if i < 0 {
		c.dropped.Unmatched++
		return
	}
	for len(c.open[l]) > i+1 {
		c.dropped.ClosedEarly++
		c.endSlice(l, t)
	}
	c.endSlice(l, t)
}

// leave ends the innermost open region slice of ev's location, whatever
// region ev names, and the collective slices open inside it.
func (c *ChromeWriter) leave(ev *model.Event) {
	var st []openSlice
	if int(ev.Loc) < len(c.open) {
		st = c.open[ev.Loc]
	}
	i := len(st) - 1
	for i >= 0 && st[i].coll {
		i--
	}
	var top model.RegionID
	if i >= 0 {
		top = st[i].region
	}
	switch model.ClassifyLeave(i+1, top, ev.Region) {
	case model.LeaveUnmatched:
		c.dropped.Unmatched++
		return
	case model.LeaveMismatched:
		c.dropped.Mismatched++
	}
	for len(c.open[ev.Loc]) > i+1 {
		c.dropped.ClosedEarly++
		c.endSlice(ev.Loc, ev.Time)
	}
	c.endSlice(ev.Loc, ev.Time)
}

// endSlice writes an "E" for the innermost open slice of l.
func (c *ChromeWriter) endSlice(l model.LocID, t model.Time) {
	c.open[l] = c.open[l][:len(c.open[l])-1]
	c.begin(&model.Event{Loc: l, Time: t}, 'E', nil, 0)
	c.end()
}

// flow writes the start or end of a message's flow arrow.
func (c *ChromeWriter) flow(ev *model.Event) {
	if ev.Peer == 0 {
		c.dropped.NoPeer++
		return
	}
	k := chanKey{from: ev.Loc, to: ev.Peer, tag: ev.Tag, comm: ev.Comm}
	ph := byte('s')
	if ev.Kind == model.KindRecv {
		k.from, k.to = ev.Peer, ev.Loc
		ph = 'f'
	}
	ch := c.channels[k]
	if ch == nil {
		if len(c.channels) >= maxChannels {
			c.dropped.Flows++
			return
		}
		ch = &chanCount{idx: uint64(len(c.channels))}
		c.channels[k] = ch
	}
	seq := &ch.sent
	if ph == 'f' {
		seq = &ch.recvd
	}
	if *seq >= 1<<32 {
		c.dropped.Flows++
		return
	}
	id := ch.idx<<32 | *seq
	*seq++
	if ev.Match != 0 {
		c.dropped.Requests++
	}
	c.useComm(ev.Comm)
	c.begin(ev, ph, nil, 0)
	c.buf = append(c.buf, `,"name":"message","cat":"message","id":`...)
	c.buf = strconv.AppendUint(c.buf, id, 10)
	if ph == 'f' {
		c.buf = append(c.buf, `,"bp":"e"`...)
	}
	c.buf = append(c.buf, `,"args":{"bytes":`...)
	c.buf = strconv.AppendInt(c.buf, ev.Bytes, 10)
	c.buf = append(c.buf, `,"tag":`...)
	c.buf = strconv.AppendInt(c.buf, int64(ev.Tag), 10)
	c.buf = append(c.buf, `,"peer":`...)
	c.buf = appendString(c.buf, c.defs.LocationName(ev.Peer))
	if ev.Comm != 0 {
		c.buf = append(c.buf, `,"comm":`...)
		c.buf = appendString(c.buf, commName(c.defs, ev.Comm))
	}
	if ev.Flags != 0 {
		c.buf = append(c.buf, `,"flags":"`...)
		c.buf = append(c.buf, ev.Flags.String()...)
		c.buf = append(c.buf, '"')
	}
	c.buf = append(c.buf, `}`...)
	c.end()
}

// regionName returns the JSON-quoted name of region r.
func (c *ChromeWriter) regionName(r model.RegionID) []byte {
	for int(r) >= len(c.names) {
		c.names = append(c.names, nil)
	}
	if c.names[r] == nil {
		name := "collective"
		if r != 0 {
			name = c.defs.RegionName(r)
		}
		c.names[r] = appendString(nil, name)
	}
	return c.names[r]
}

// appendString appends s as a JSON string; invalid UTF-8 becomes U+FFFD.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
}
