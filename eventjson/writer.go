package eventjson

import (
	"bufio"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/hpctrace/hpctrace/model"
)

// Writer writes events in hpctrace's event JSON, the form read by
// [Reader], one event per line. The header (time base, locations,
// regions, counters) is written from the Defs as they stand at the first
// Write or at Close, so every definition must be added before the first
// event is written. Locations are written with their Native values as ids,
// unless two share one (the processes of one PICL processor): then every
// location's id is its index, 0 … n-1. Regions and counters too are
// written with their Native values as ids unless two share one (regions
// added without a Native all have 0): then every region's (or counter's)
// id is its model id, 1 … n. Sites are written as their line
// numbers (site file names are not represented) and communicators as
// their Native values; the communicators with a name or members are
// defined in a "comms" header when their Natives are unique (the others
// are defined by their first use). The form has no place for the
// recorded statistics (Defs.Recorded) or the event-type subsets: a
// document read back has none of them. A location's MPI and Stream are
// written when set ("mpi": true, "stream": the id of the location whose
// stream holds its events, itself or one defined before it).
//
// Strings are JSON strings, which hold only Unicode: a name that is not
// valid UTF-8 (a function name in KOI8-R or Latin-1, as tracers copy
// symbol bytes) is written with U+FFFD for each invalid byte, and beside
// it a field of the same key with "_bytes" appended ("name_bytes",
// "group_bytes", "file_bytes", "unit_bytes") giving its exact bytes in
// standard base64, which Reader gives back. Such a region is named by
// its id, not its name, in a coll_begin "op". Marker texts have no such
// field: their invalid bytes become U+FFFD. A send or recv without a
// known peer (Peer 0) is written without "peer".
type Writer struct {
	bw      *bufio.Writer
	defs    *model.Defs
	buf     []byte
	started bool
	closed  bool
	n       int64
	err     error
	nloc    int
	dense   bool // locations are written with dense ids: their Natives are not unique
	denseR  bool // regions are written with their model ids: their Natives are not unique
	denseC  bool // counters are written with their model ids: their Natives are not unique
	nreg    int
	ncnt    int
	opNames map[model.RegionID]bool // regions whose names are unique
}

// locID is the "id" a location is written with: its Native, or its dense
// index when two locations share a Native.
func (w *Writer) locID(id model.LocID) int64 {
	if w.dense {
		return int64(id) - 1
	}
	l, _ := w.defs.Location(id)
	return l.Native
}

// regID is the "id" a region is written with: its Native, or its model
// id when two regions share a Native.
func (w *Writer) regID(id model.RegionID) int64 {
	if w.denseR {
		return int64(id)
	}
	r, _ := w.defs.Region(id)
	return r.Native
}

// cntID is the "id" a counter is written with: its Native, or its model
// id when two counters share a Native.
func (w *Writer) cntID(id model.CounterID) int64 {
	if w.denseC {
		return int64(id)
	}
	c, _ := w.defs.Counter(id)
	return c.Native
}

// unique reports whether the natives of defs are all different.
func unique[T any](defs []T, native func(T) int64) bool {
	seen := make(map[int64]bool, len(defs))
	for _, d := range defs {
		n := native(d)
		if seen[n] {
			return false
		}
		seen[n] = true
	}
	return true
}

// WriterOptions configures a Writer. The form has one spelling, so it has
// no field yet: it keeps NewWriter's signature the shape of every model
// writer's (w, defs, opts), so that an option can be added without
// changing a caller. Pass nil.
type WriterOptions struct{}

// NewWriter returns a writer to w of the events of a trace with the
// given definitions; opts may be nil. It writes nothing until the first
// Write or Close, and never closes w.
func NewWriter(w io.Writer, defs *model.Defs, opts *WriterOptions) (*Writer, error) {
	if defs == nil {
		return nil, errors.New("eventjson: NewWriter: nil Defs")
	}
	return &Writer{bw: bufio.NewWriter(w), defs: defs}, nil
}

func (w *Writer) header() {
	d := w.defs
	b := w.buf[:0]
	b = append(b, `{"format":"`+Format+`","ticks_per_second":`...)
	b = strconv.AppendUint(b, d.TimeBase.TicksPerSecond, 10)
	b = append(b, ",\n\"locations\":["...)
	natives := make(map[int64]bool, d.NumLocations())
	for _, l := range d.Locations() {
		if natives[l.Native] {
			w.dense = true
			break
		}
		natives[l.Native] = true
	}
	for i, l := range d.Locations() {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n{\"id\":"...)
		b = strconv.AppendInt(b, w.locID(l.ID), 10)
		b = appendName(b, "name", l.Name)
		b = append(b, `,"process":`...)
		b = strconv.AppendInt(b, int64(l.Process), 10)
		b = append(b, `,"thread":`...)
		b = strconv.AppendInt(b, int64(l.Thread), 10)
		if l.Host {
			b = append(b, `,"host":true`...)
		}
		if l.MPI {
			b = append(b, `,"mpi":true`...)
		}
		if l.Stream != 0 {
			b = append(b, `,"stream":`...)
			b = strconv.AppendInt(b, w.locID(l.Stream), 10)
		}
		b = append(b, '}')
	}
	b = append(b, "],\n\"regions\":["...)
	w.denseR = !unique(d.Regions(), func(r model.Region) int64 { return r.Native })
	w.denseC = !unique(d.Counters(), func(c model.Counter) int64 { return c.Native })
	names := make(map[string]int)
	for _, r := range d.Regions() {
		names[r.Name]++
	}
	w.opNames = make(map[model.RegionID]bool)
	for i, r := range d.Regions() {
		if names[r.Name] == 1 && r.Name != "" && utf8.ValidString(r.Name) {
			w.opNames[r.ID] = true
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n{\"id\":"...)
		b = strconv.AppendInt(b, w.regID(r.ID), 10)
		b = appendName(b, "name", r.Name)
		b = append(b, `,"kind":"`...)
		b = append(b, r.Kind.String()...)
		b = append(b, '"')
		if r.Group != "" {
			b = appendName(b, "group", r.Group)
		}
		if r.File != "" {
			b = appendName(b, "file", r.File)
		}
		b = append(b, `,"line":`...)
		b = strconv.AppendInt(b, int64(r.Line), 10)
		if r.Paradigm != model.ParadigmUnknown && int(r.Paradigm) < len(paradigmNames) {
			b = append(b, `,"paradigm":"`...)
			b = append(b, r.Paradigm.String()...)
			b = append(b, '"')
		}
		b = append(b, '}')
	}
	b = append(b, ']')
	if cs := d.Counters(); len(cs) > 0 {
		b = append(b, ",\n\"counters\":["...)
		for i, c := range cs {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n{\"id\":"...)
			b = strconv.AppendInt(b, w.cntID(c.ID), 10)
			b = appendName(b, "name", c.Name)
			if c.Unit != "" {
				b = appendName(b, "unit", c.Unit)
			}
			if c.Accumulating {
				b = append(b, `,"accumulating":true`...)
			}
			if c.Float {
				b = append(b, `,"float":true`...)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = w.appendComms(b)
	b = append(b, ",\n\"events\":["...)
	w.nloc, w.nreg, w.ncnt = d.NumLocations(), d.NumRegions(), len(d.Counters())
	w.buf = b
	w.started = true
}

// appendComms appends the "comms" header: the communicators with a name
// or members, when the communicators' Natives are unique (an event names
// its communicator by Native).
func (w *Writer) appendComms(b []byte) []byte {
	cs := w.defs.Comms()
	if !unique(cs, func(c model.Comm) int64 { return c.Native }) {
		return b
	}
	first := true
	for _, c := range cs {
		if c.Name == "" && len(c.Members) == 0 && !c.Self {
			continue
		}
		if first {
			b = append(b, ",\n\"comms\":["...)
		} else {
			b = append(b, ',')
		}
		first = false
		b = append(b, "\n{\"id\":"...)
		b = strconv.AppendInt(b, c.Native, 10)
		b = appendName(b, "name", c.Name)
		for _, g := range []struct {
			key  string
			locs []model.LocID
		}{{"members", c.Members}, {"remote", c.Remote}} {
			if len(g.locs) == 0 {
				continue
			}
			b = append(b, `,"`...)
			b = append(b, g.key...)
			b = append(b, `":[`...)
			for i, l := range g.locs {
				if i > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendInt(b, w.locID(l), 10)
			}
			b = append(b, ']')
		}
		if c.Self {
			b = append(b, `,"self":true`...)
		}
		b = append(b, '}')
	}
	if !first {
		b = append(b, ']')
	}
	return b
}

// rangeErr reports an event the writer cannot encode: an error wrapping
// ErrRange that names the event index (a ParseError is for malformed input
// only).
func (w *Writer) rangeErr(format string, args ...any) error {
	return fmt.Errorf("eventjson: record %d: %s: %w", w.n, fmt.Sprintf(format, args...), ErrRange)
}

// Write encodes one event. It validates ev first: an event that refers to an
// id not defined when the header was written, or of an unknown kind, is
// rejected with an error wrapping ErrRange and nothing is written. Write does
// not retain ev.
func (w *Writer) Write(ev *model.Event) error {
	if w.closed {
		return ErrClosed
	}
	if w.err != nil {
		return w.err
	}
	if !w.started {
		w.header()
		if _, err := w.bw.Write(w.buf); err != nil {
			w.err = err
			return err
		}
	}
	d := w.defs
	locOK := func(id model.LocID) bool { return id != 0 && int(id) <= w.nloc }
	regOK := func(id model.RegionID) bool { return id != 0 && int(id) <= w.nreg }
	if !locOK(ev.Loc) {
		return w.rangeErr("field Loc: location %d not defined", ev.Loc)
	}
	if ev.Kind == model.KindUnknown || int(ev.Kind) >= len(kindNames) {
		return w.rangeErr("field Kind: %v", ev.Kind)
	}
	b := w.buf[:0]
	if w.n > 0 {
		b = append(b, ',')
	}
	b = append(b, "\n{\"t\":"...)
	b = strconv.AppendInt(b, int64(ev.Time), 10)
	b = append(b, `,"loc":`...)
	b = strconv.AppendInt(b, w.locID(ev.Loc), 10)
	b = append(b, `,"kind":"`...)
	b = append(b, ev.Kind.String()...)
	b = append(b, '"')
	comm := func(b []byte) []byte {
		if ev.Comm == 0 {
			return b
		}
		c, _ := d.Comm(ev.Comm)
		b = append(b, `,"comm":`...)
		return strconv.AppendInt(b, c.Native, 10)
	}
	switch ev.Kind {
	case model.KindEnter, model.KindLeave:
		if !regOK(ev.Region) {
			return w.rangeErr("field Region: region %d not defined", ev.Region)
		}
		b = append(b, `,"region":`...)
		b = strconv.AppendInt(b, w.regID(ev.Region), 10)
		if ev.Kind == model.KindEnter {
			s, ok := d.Site(ev.Site)
			if ev.Site != 0 && (!ok || s.Line == 0) {
				return w.rangeErr("field Site: site %d has no line number", ev.Site)
			}
			b = append(b, `,"site":`...)
			b = strconv.AppendInt(b, int64(s.Line), 10)
		}
	case model.KindSend, model.KindRecv:
		if ev.Peer != 0 {
			if !locOK(ev.Peer) {
				return w.rangeErr("field Peer: location %d not defined", ev.Peer)
			}
			b = append(b, `,"peer":`...)
			b = strconv.AppendInt(b, w.locID(ev.Peer), 10)
		}
		if _, ok := d.Comm(ev.Comm); ev.Comm != 0 && !ok {
			return w.rangeErr("field Comm: communicator %d not defined", ev.Comm)
		}
		b = append(b, `,"tag":`...)
		b = strconv.AppendInt(b, int64(ev.Tag), 10)
		b = comm(b)
		if ev.Bytes < 0 {
			return w.rangeErr("field Bytes: negative size %d", ev.Bytes)
		}
		b = append(b, `,"bytes":`...)
		b = strconv.AppendInt(b, ev.Bytes, 10)
		if ev.Kind == model.KindSend {
			b = append(b, `,"sync":`...)
			b = strconv.AppendBool(b, ev.Flags&model.SyncMode != 0)
		} else {
			switch {
			case ev.Flags&model.Waited != 0:
				b = append(b, `,"waited":"yes"`...)
			case ev.Flags&model.NotWaited != 0:
				b = append(b, `,"waited":"no"`...)
			default:
				b = append(b, `,"waited":"unknown"`...)
			}
		}
		if ev.Flags&model.BytesUnknown != 0 {
			b = append(b, `,"bytes_unknown":true`...)
		}
		if ev.Match != 0 {
			b = append(b, `,"match":`...)
			b = strconv.AppendUint(b, ev.Match, 10)
		}
	case model.KindRecvPost:
		if ev.Peer != 0 {
			if !locOK(ev.Peer) {
				return w.rangeErr("field Peer: location %d not defined", ev.Peer)
			}
			b = append(b, `,"peer":`...)
			b = strconv.AppendInt(b, w.locID(ev.Peer), 10)
		}
		if _, ok := d.Comm(ev.Comm); ev.Comm != 0 && !ok {
			return w.rangeErr("field Comm: communicator %d not defined", ev.Comm)
		}
		b = append(b, `,"tag":`...)
		b = strconv.AppendInt(b, int64(ev.Tag), 10)
		b = comm(b)
		b = append(b, `,"match":`...)
		b = strconv.AppendUint(b, ev.Match, 10)
	case model.KindSendDone:
		b = append(b, `,"match":`...)
		b = strconv.AppendUint(b, ev.Match, 10)
	case model.KindParameter:
		b = append(b, `,"text":`...)
		b = appendString(b, d.String(ev.Text))
		if ev.Flags&model.StringValue != 0 {
			b = append(b, `,"string":`...)
			b = appendString(b, d.String(model.StringID(ev.Value)))
		} else {
			b = append(b, `,"value":`...)
			b = strconv.AppendInt(b, ev.Value, 10)
		}
	case model.KindCollBegin, model.KindCollPost, model.KindCollDone:
		if ev.Kind != model.KindCollBegin && ev.Match == 0 {
			return w.rangeErr("field Match: %v without a request", ev.Kind)
		}
		if ev.Region != 0 {
			if !regOK(ev.Region) {
				return w.rangeErr("field Region: region %d not defined", ev.Region)
			}
			r, _ := d.Region(ev.Region)
			b = append(b, `,"op":`...)
			if w.opNames[ev.Region] {
				b = appendString(b, r.Name)
			} else {
				b = strconv.AppendInt(b, w.regID(ev.Region), 10)
			}
		}
		if int(ev.Class) >= len(classNames) {
			return w.rangeErr("field Class: %v", ev.Class)
		}
		if _, ok := d.Comm(ev.Comm); ev.Comm != 0 && !ok {
			return w.rangeErr("field Comm: communicator %d not defined", ev.Comm)
		}
		b = append(b, `,"class":"`...)
		b = append(b, ev.Class.String()...)
		b = append(b, '"')
		b = comm(b)
		if ev.Peer != 0 {
			if !locOK(ev.Peer) {
				return w.rangeErr("field Peer: location %d not defined", ev.Peer)
			}
			b = append(b, `,"root":`...)
			b = strconv.AppendInt(b, w.locID(ev.Peer), 10)
		}
		if ev.Bytes < 0 || ev.Recvd < 0 {
			return w.rangeErr("fields Bytes, Recvd: negative size %d, %d", ev.Bytes, ev.Recvd)
		}
		b = append(b, `,"sent":`...)
		b = strconv.AppendInt(b, ev.Bytes, 10)
		b = append(b, `,"recvd":`...)
		b = strconv.AppendInt(b, ev.Recvd, 10)
		b = append(b, `,"match":`...)
		b = strconv.AppendUint(b, ev.Match, 10)
	case model.KindCollEnd:
		b = append(b, `,"match":`...)
		b = strconv.AppendUint(b, ev.Match, 10)
	case model.KindCounter:
		if ev.Counter == 0 || int(ev.Counter) > w.ncnt {
			return w.rangeErr("field Counter: counter %d not defined", ev.Counter)
		}
		b = append(b, `,"counter":`...)
		b = strconv.AppendInt(b, w.cntID(ev.Counter), 10)
		b = append(b, `,"value":`...)
		b = strconv.AppendInt(b, ev.Value, 10)
	case model.KindMarker:
		if ev.Region != 0 {
			if !regOK(ev.Region) {
				return w.rangeErr("field Region: region %d not defined", ev.Region)
			}
			b = append(b, `,"region":`...)
			b = strconv.AppendInt(b, w.regID(ev.Region), 10)
		}
		b = append(b, `,"text":`...)
		b = appendString(b, d.String(ev.Text))
	}
	b = append(b, '}')
	w.buf = b
	if _, err := w.bw.Write(b); err != nil {
		w.err = err
		return err
	}
	w.n++
	return nil
}

// Flush writes buffered data to the underlying writer.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	if err := w.bw.Flush(); err != nil {
		w.err = err
	}
	return w.err
}

// Close writes the header if no event was written, ends the document and
// flushes. It does not close the underlying writer: the caller owns it,
// and the file under it. A second Close returns nil.
//
// If Close, or a Write or Flush before it, fails, the underlying writer
// holds what was flushed before the failure: a document without its end,
// which a Reader rejects after the events it holds. A caller writing a
// file should write to a temporary file and rename it into place only
// after Close and the file's own Close succeed, and remove it otherwise.
func (w *Writer) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	if w.err != nil {
		return w.err
	}
	if !w.started {
		w.header()
		if _, err := w.bw.Write(w.buf); err != nil {
			w.err = err
			return err
		}
	}
	if _, err := w.bw.WriteString("\n]}\n"); err != nil {
		w.err = err
		return err
	}
	return w.Flush()
}

// appendName appends the field ,"key":s, and when s is not valid UTF-8
// the field ,"key_bytes": with its bytes in standard base64, so that a
// reader can give them back (see Reader).
func appendName(b []byte, key, s string) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	b = appendString(b, s)
	if !utf8.ValidString(s) {
		b = append(b, ',', '"')
		b = append(b, key...)
		b = append(b, `_bytes":"`...)
		b = base64.StdEncoding.AppendEncode(b, []byte(s))
		b = append(b, '"')
	}
	return b
}

// rawOr returns the bytes of a "_bytes" field when it was given, else s.
func rawOr(raw []byte, s string) string {
	if raw != nil {
		return string(raw)
	}
	return s
}

// appendString appends s as a JSON string. Invalid UTF-8 is replaced by
// U+FFFD, as encoding/json does.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
