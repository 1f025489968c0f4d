package otf2

import (
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
)

// An Event is one event record of a location. Ids in its fields are global
// ids (translated through the location's mapping tables) and Time is
// clock-corrected (through the location's clock offsets), as libotf2 hands
// them to its callbacks; RawTime, RawValue and RawElems give the stored
// values.
type Event struct {
	Kind     Kind
	TypeID   uint8  // the record's type id (differs from Kind for unknown records)
	Location uint64 // the location whose file holds the record
	Time     uint64 // clock-corrected time stamp, in ticks of the ClockProperties resolution
	RawTime  uint64 // time stamp as stored
	Number   uint64 // 1-based event number within the location (chunk headers count the same way)

	// Attrs is the event's attribute list, with attribute ids and
	// reference-typed values translated; owned by the reader.
	Attrs []Attribute

	vals    [8]uint64
	raw     [8]uint64
	snap    bool
	arrs    [3][]uint64
	rawArrs [3][]uint64
}

// An Attribute is one entry of an event's attribute list.
type Attribute struct {
	ID       uint32 // Attribute definition id (global)
	Type     Type   // the value's type
	Value    uint64 // the value's bits: integers zero- or sign-extended, floats as IEEE bits, references translated
	RawID    uint32 // id as stored
	RawValue uint64 // value as stored
}

// Value returns scalar field i of [Kind.Fields] (count fields included,
// element fields not) as 64 bits: unsigned and signed integers extended,
// floats as their IEEE-754 bits; translated ids and corrected times. It
// returns 0 if the kind has no such field.
func (e *Event) Value(i int) uint64 {
	if uint(i) >= maxSlotFields {
		return 0
	}
	s := e.slots()[i]
	// no branch on the kind: a missing field reads slot 0 and masks it
	return e.vals[s&7] & (uint64(s>>7) - 1)
}

// RawValue is like Value but returns the value as stored in the file.
func (e *Event) RawValue(i int) uint64 {
	if uint(i) >= maxSlotFields {
		return 0
	}
	s := e.slots()[i]
	return e.raw[s&7] & (uint64(s>>7) - 1)
}

// slots returns the value slots of the fields of e's kind.
func (e *Event) slots() *[maxSlotFields]uint8 {
	if e.snap {
		return &snapSlots[e.TypeID]
	}
	return &eventSlots[e.Kind]
}

// maxSlotFields bounds the fields of an event or snapshot kind
// (TestSlotTables checks the record table against it).
const maxSlotFields = 8

// noSlot marks a field of a slot table that is not a scalar, or missing.
const noSlot = 0x80

// eventSlots and snapSlots give, by kind (type id for snapshots) and field,
// the value slot of each scalar field, noSlot for the others.
var eventSlots, snapSlots = slotTable(&eventLayouts), slotTable(&snapLayouts)

func slotTable(ls *[256]*layout) *[256][maxSlotFields]uint8 {
	var t [256][maxSlotFields]uint8
	for k, l := range ls {
		for i := range t[k] {
			t[k][i] = noSlot
		}
		if l == nil {
			continue
		}
		for i := range min(len(l.fields), maxSlotFields) {
			if f := &l.fields[i]; f.scalar() {
				t[k][i] = uint8(f.slot)
			}
		}
	}
	return &t
}

// Elems returns the values of element field i of [Kind.Fields] (one per
// array element), translated. The slice is owned by the event.
func (e *Event) Elems(i int) []uint64 {
	if f := e.field(i); f != nil && f.elem {
		return e.arrs[f.slot]
	}
	return nil
}

// RawElems is like Elems but returns the values as stored.
func (e *Event) RawElems(i int) []uint64 {
	if f := e.field(i); f != nil && f.elem {
		return e.rawArrs[f.slot]
	}
	return nil
}

func (e *Event) field(i int) *FieldInfo {
	l := eventLayouts[e.Kind]
	if e.snap {
		l = snapLayouts[e.TypeID]
	}
	if l == nil || i < 0 || i >= len(l.fields) {
		return nil
	}
	return &l.fields[i]
}

// Clone returns a deep copy of e that the reader does not reuse.
func (e *Event) Clone() *Event {
	c := *e
	c.Attrs = append([]Attribute(nil), e.Attrs...)
	for i := range e.arrs {
		c.arrs[i] = append([]uint64(nil), e.arrs[i]...)
		c.rawArrs[i] = append([]uint64(nil), e.rawArrs[i]...)
	}
	return &c
}

// A ClockOffset is one ClockOffset local definition: at local time Time the
// location's clock is Offset ticks behind the global clock.
type ClockOffset struct {
	Time              uint64
	Offset            int64
	StandardDeviation float64
}

// clock applies a location's clock offsets as libotf2 does: the records
// define k-1 linear intervals; a time uses the first interval whose end is
// not before it (the first for earlier times, the last for later ones).
type clock struct {
	offs []ClockOffset
	i    int
}

func (c *clock) correct(t uint64) uint64 {
	if len(c.offs) < 2 {
		return t
	}
	for c.i > 0 && t < c.offs[c.i].Time {
		c.i--
	}
	for c.i < len(c.offs)-2 && c.offs[c.i+1].Time < t {
		c.i++
	}
	a, b := c.offs[c.i], c.offs[c.i+1]
	slope := float64(b.Offset-a.Offset) / float64(b.Time-a.Time)
	d := math.RoundToEven(slope * float64(int64(t-a.Time)))
	return t + uint64(a.Offset) + uint64(int64(d))
}

// A Mapping holds a location's mapping tables, indexed by MappingType.
type Mapping struct {
	tables [MappingTypeMax]*IDMap
}

// Set installs the table for type t (replacing an earlier one).
func (m *Mapping) Set(t MappingType, idm *IDMap) {
	if t < MappingTypeMax {
		m.tables[t] = idm
	}
}

// Table returns the table for type t, or nil.
func (m *Mapping) Table(t MappingType) *IDMap {
	if m == nil || t >= MappingTypeMax {
		return nil
	}
	return m.tables[t]
}

func (m *Mapping) apply(t MappingType, v uint64) uint64 {
	if m == nil || t >= MappingTypeMax || m.tables[t] == nil {
		return v
	}
	return m.tables[t].Map(v)
}

// EventReaderOptions configures an EventReader. A nil or zero value means defaults.
type EventReaderOptions struct {
	Path      string        // used only in error messages
	Location  uint64        // the location id put into Event.Location
	ChunkSize int64         // the archive's event chunk size; 0 means 1 MiB
	Mapping   *Mapping      // the location's mapping tables; nil: ids are not translated
	Clock     []ClockOffset // the location's clock offsets in file order; fewer than 2: no correction
	// Size is the file's size in bytes, needed by SeekTime and
	// SeekEvent; 0 means unknown (then the source must be an io.Seeker
	// to find it).
	Size int64
}

// An EventReader reads the events of one location's event file in file
// order. Create one with NewEventReader or [Archive.EventReader].
//
// It holds 64 KiB of its file at a time (a longer record whole), not a
// chunk, which libotf2 writes of up to 16 MiB: readers of many locations
// at once cost 64 KiB each.
//
// An EventReader is not safe for concurrent use.
type EventReader struct {
	opts  EventReaderOptions
	ch    chunks
	c     cursor
	clk   clock
	ev    Event
	attrs []Attribute
	time  uint64 // current raw time
	n     uint64 // events read
	err   error
	done  bool
	src   io.Reader
	lay   *[256]*layout

	closer io.Closer
	empty  bool
	hold   bool // the current event was found by a seek: Next yields it again

	plain   bool // no mapping table and fewer than two clock offsets: values are stored values
	hadArrs bool // the current event's element arrays may be non-empty
	fast    bool // event records (not snapshots): fastNext reads the hot kinds
	used    int  // value slots the current event may have set
}

// Close closes the event file if the reader was opened by an Archive; it
// does nothing for a reader made by NewEventReader.
func (r *EventReader) Close() error {
	if r.closer == nil {
		return nil
	}
	err := r.closer.Close()
	r.closer = nil
	return err
}

// NewEventReader returns a reader of the event file r. It reads nothing yet.
func NewEventReader(r io.Reader, opts *EventReaderOptions) (*EventReader, error) {
	er := &EventReader{}
	if opts != nil {
		er.opts = *opts
	}
	if er.opts.ChunkSize <= 0 {
		er.opts.ChunkSize = DefaultEventChunkSize
	}
	if er.opts.ChunkSize < chunkHeaderSize+2 || er.opts.ChunkSize > maxReadChunk {
		return nil, fmt.Errorf("otf2: event chunk size %d: %w", er.opts.ChunkSize, ErrRange)
	}
	er.opts.Clock = append([]ClockOffset(nil), er.opts.Clock...)
	er.clk.offs = er.opts.Clock
	er.lay = &eventLayouts
	er.fast = true
	er.plain = len(er.opts.Clock) < 2 && (er.opts.Mapping == nil || *er.opts.Mapping == Mapping{})
	er.Reset(r)
	return er, nil
}

// Reset starts reading src from its beginning, keeping the options (and
// buffers) of r.
func (r *EventReader) Reset(src io.Reader) error {
	r.src = src
	_, r.empty = src.(emptyEvents)
	r.ch.reset(src, r.opts.ChunkSize)
	r.ch.limit = r.opts.Size
	r.ch.win = eventWindow
	r.c = cursor{}
	r.time, r.n = 0, 0
	r.err, r.done, r.hold = nil, false, false
	r.attrs = r.attrs[:0]
	r.hadArrs = true
	r.ev.Kind = KindUnknown
	r.ev.Attrs = nil
	r.clk.i = 0
	return nil
}

// Err returns the first error other than io.EOF; nil after a clean end.
func (r *EventReader) Err() error { return r.err }

// Record returns the current event. The Event and the slices it holds are
// valid until the next call to Next, SeekTime, SeekEvent or Reset. Use
// [Event.Clone] to keep it.
func (r *EventReader) Record() *Event { return &r.ev }

// All returns a single-use iterator over the remaining events: (ev, nil)
// per event, then at most one (nil, err).
func (r *EventReader) All() iter.Seq2[*Event, error] {
	return func(yield func(*Event, error) bool) {
		for r.Next() {
			if !yield(&r.ev, nil) {
				return
			}
		}
		if r.err != nil {
			yield(nil, r.err)
		}
	}
}

func (r *EventReader) fail(off int64, err error) bool {
	if errors.Is(err, errShort) || errors.Is(err, errCompInt) {
		err = fmt.Errorf("%w: %w", ErrSyntax, err)
	}
	r.err = &ParseError{Path: r.opts.Path, Offset: off, Record: int64(r.n), Err: err}
	r.done = true
	return false
}

// Next advances to the next event. It returns false at the end of the
// file or on an error (see Err).
func (r *EventReader) Next() bool {
	// small enough to be inlined: the hot kinds go straight to fastNext
	if r.fast && !r.hold && !r.done && r.fastNext() {
		return true
	}
	return r.next()
}

// next is Next for the records fastNext leaves.
func (r *EventReader) next() bool {
	if r.hold {
		r.hold = false
		return true
	}
	if r.done {
		return false
	}
	r.attrs = r.attrs[:0]
	for {
		if r.c.off >= len(r.c.b) && !r.ch.whole() {
			if err := r.more(1); err != nil {
				return r.fail(r.ch.base+int64(r.c.off), err)
			}
		}
		if r.c.off >= len(r.c.b) {
			if err := r.ch.load(); err != nil {
				if errors.Is(err, io.EOF) && r.empty {
					r.done = true
					return false
				}
				if errors.Is(err, io.EOF) {
					return r.fail(r.ch.base, fmt.Errorf("file ends without an end-of-file marker: %w", io.ErrUnexpectedEOF))
				}
				return r.fail(r.ch.base, err)
			}
			r.c = cursor{b: r.ch.buf, off: chunkHeaderSize, be: r.ch.be}
			continue
		}
		if err := r.span(); err != nil {
			return r.fail(r.ch.base+int64(r.c.off), err)
		}
		start := r.c.off
		switch t := r.c.b[start]; t {
		case bEndOfChunk:
			r.c.off = len(r.c.b)
			r.ch.endChunk()
		case bEndOfFile, bEndOfBuffer:
			r.done = true
			return false
		case bChunkHeader, 4:
			return r.fail(r.ch.base+int64(start), fmt.Errorf("%w: byte %#x where a record must start", ErrFormat, t))
		case bTimestamp:
			r.c.off++
			r.time = r.c.u64()
			if r.c.err != nil {
				return r.fail(r.ch.base+int64(start), r.c.err)
			}
		case bAttrList:
			r.c.off++
			if err := r.readAttrs(); err != nil {
				return r.fail(r.ch.base+int64(start), err)
			}
		default:
			r.c.off++
			if err := r.readEvent(t); err != nil {
				return r.fail(r.ch.base+int64(start), err)
			}
			r.n++
			return true
		}
	}
}

// eventWindow is the part of a chunk an event reader holds at a time, so
// that a location costs that much memory, not a chunk (a record longer
// than that is read whole).
const eventWindow = 64 << 10

// more moves the unread bytes of the chunk's window to its front and
// reads on, until need of them are there or the chunk's end.
func (r *EventReader) more(need int) error {
	if err := r.ch.slide(r.c.off, int64(need)); err != nil {
		return err
	}
	r.c.b, r.c.off = r.ch.buf, 0
	return nil
}

// span makes the whole record at the cursor readable from the buffer, if
// its chunk holds it: its framing (type, length) tells its size.
func (r *EventReader) span() error {
	// a time stamp, a singleton record, or a type and a 9-byte length
	const frame = 10
	if r.ch.whole() {
		return nil
	}
	if len(r.c.b)-r.c.off < frame {
		if err := r.more(frame); err != nil {
			return err
		}
	}
	b := r.c.b[r.c.off:]
	if len(b) < frame {
		return nil // the chunk ends: the record's reader reports it
	}
	t := b[0]
	if t <= bTimestamp {
		return nil // control records and time stamps fit the frame
	}
	if l := r.lay[t]; l != nil && l.singleton {
		return nil
	}
	n := uint64(b[1]) + 2
	if b[1] == 0xff {
		c := cursor{b: b[2:10], be: r.c.be}
		n = c.u64() + 10
	}
	if n > uint64(len(b)) && n <= uint64(r.ch.end-r.ch.base) {
		return r.more(int(n))
	}
	return nil
}

// body returns a cursor over a length-prefixed record body and moves the
// chunk cursor past it.
func (r *EventReader) body() (cursor, error) {
	n := r.c.length()
	if r.c.err != nil {
		return cursor{}, r.c.err
	}
	if n > uint64(len(r.c.b)-r.c.off) {
		return cursor{}, fmt.Errorf("%w: record length %d exceeds its chunk", ErrRange, n)
	}
	b := r.c.b[r.c.off : r.c.off+int(n)]
	r.c.off += int(n)
	return cursor{b: b, be: r.c.be}, nil
}

func (r *EventReader) readAttrs() error {
	c, err := r.body()
	if err != nil {
		return err
	}
	n := c.comp(4)
	if n > uint64(len(c.b)) {
		return fmt.Errorf("%w: attribute list of %d entries in %d bytes", ErrRange, n, len(c.b))
	}
	m := r.opts.Mapping
	for range n {
		var a Attribute
		a.RawID = uint32(c.comp(4))
		a.Type = Type(c.u8())
		a.RawValue = c.attrValue(a.Type)
		a.ID = uint32(m.apply(MappingTypeAttribute, uint64(a.RawID)))
		a.Value = a.RawValue
		if mt := attrMapping(a.Type); mt != noMap {
			a.Value = m.apply(mt, a.RawValue)
		}
		r.attrs = append(r.attrs, a)
	}
	if c.err != nil {
		return fmt.Errorf("attribute list: %w", c.err)
	}
	return nil
}

func (r *EventReader) readEvent(t uint8) error {
	e := &r.ev
	e.TypeID = t
	e.Location = r.opts.Location
	e.RawTime = r.time
	e.Time = r.time
	if len(r.clk.offs) >= 2 {
		e.Time = r.clk.correct(r.time)
	}
	e.Attrs = r.attrs
	e.Number = r.n + 1
	// only the slots the previous event used can be non-zero
	clear(e.vals[:r.used])
	clear(e.raw[:r.used])
	r.used = 0
	if r.hadArrs {
		for i := range e.arrs {
			e.arrs[i], e.rawArrs[i] = e.arrs[i][:0], e.rawArrs[i][:0]
		}
		r.hadArrs = false
	}
	l := r.lay[t]
	if l == nil {
		e.Kind = KindUnknown
		_, err := r.body()
		return err
	}
	e.Kind = Kind(t)
	r.used = min(len(l.fields), len(e.vals))
	if l.singleton {
		v := r.c.value(l.fields[0].wire, 0)
		if r.c.err != nil {
			return r.c.err
		}
		e.raw[0], e.vals[0] = v, v
		if !r.plain {
			e.vals[0] = r.opts.Mapping.apply(l.fields[0].mapping, v)
		}
		return nil
	}
	c, err := r.body()
	if err != nil {
		return err
	}
	if err := decodeFields(l, &c, e.raw[:], &e.rawArrs, nil); err != nil {
		return err
	}
	if !l.arrays && (l.plain || r.plain) {
		e.vals = e.raw // no field is translated or corrected
		return nil
	}
	r.hadArrs = r.hadArrs || l.arrays
	m := r.opts.Mapping
	for i := range l.fields {
		f := &l.fields[i]
		switch {
		case f.elem:
			a := append(e.arrs[f.slot][:0], e.rawArrs[f.slot]...)
			if f.mapping != noMap {
				for j := range a {
					a[j] = m.apply(f.mapping, a[j])
				}
			}
			e.arrs[f.slot] = a
		case f.scalar():
			v := e.raw[f.slot]
			if f.mapping != noMap {
				v = m.apply(f.mapping, v)
			}
			if f.clock {
				v = r.clk.correct(v)
			}
			e.vals[f.slot] = v
		}
	}
	return nil
}

// decodeFields reads the fields of layout l from c (a record body) into
// vals and arrs. Field groups the body ends before get their defaults;
// bytes after the known fields are ignored (a newer version's fields).
func decodeFields(l *layout, c *cursor, vals []uint64, arrs *[3][]uint64, d *Def) error {
	fs := l.fields
	for i := 0; i < len(fs); i++ {
		f := &fs[i]
		if c.off == len(c.b) && f.since > 0 && c.err == nil {
			setDefaults(l, i, vals, arrs)
			return nil
		}
		if f.wire == wStr || f.wire == wIDMap {
			if d == nil {
				return fmt.Errorf("%w: %s: field %s outside a definition", ErrSyntax, l.name, f.name)
			}
			if f.wire == wStr {
				d.strs[f.slot] = append(d.strs[f.slot][:0], c.str()...)
			} else if err := d.readIDMap(c); err != nil {
				return err
			}
			continue
		}
		if f.count {
			n := c.value(f.wire, 0)
			vals[f.slot] = n
			group := fs[i+1 : i+1+f.group]
			for _, g := range group {
				arrs[g.slot] = arrs[g.slot][:0]
			}
			if n > uint64(len(c.b)-c.off) {
				return fmt.Errorf("%w: %s: %d elements in %d bytes", ErrRange, f.name, n, len(c.b)-c.off)
			}
			for range n {
				prev := uint64(0)
				for _, g := range group {
					v := c.value(g.wire, prev)
					arrs[g.slot] = append(arrs[g.slot], v)
					prev = v
				}
			}
			i += f.group
			continue
		}
		prev := uint64(0)
		if i > 0 && fs[i-1].scalar() {
			prev = vals[fs[i-1].slot]
		}
		vals[f.slot] = c.value(f.wire, prev)
	}
	if c.err != nil {
		return fmt.Errorf("%s: %w", l.name, c.err)
	}
	return nil
}
