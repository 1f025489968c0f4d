package otf2

import (
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"

	"github.com/hpctrace/hpctrace/model"
)

// NewEvent returns an event of kind k at time t with every field zero;
// set the fields with SetValue and SetElems.
func NewEvent(k Kind, t uint64) *Event { return &Event{Kind: k, TypeID: uint8(k), Time: t, RawTime: t} }

// SetValue sets scalar field i of [Kind.Fields] (stored and translated
// value alike); it does nothing for an element field or a bad index.
func (e *Event) SetValue(i int, v uint64) {
	if f := e.field(i); f != nil && f.scalar() {
		e.vals[f.slot], e.raw[f.slot] = v, v
	}
}

// SetElems sets the values of element field i of [Kind.Fields]; all
// element fields of one array must have the same length.
func (e *Event) SetElems(i int, v []uint64) {
	if f := e.field(i); f != nil && f.elem {
		e.arrs[f.slot] = append(e.arrs[f.slot][:0], v...)
		e.rawArrs[f.slot] = append(e.rawArrs[f.slot][:0], v...)
	}
}

// NewDef returns a definition of kind k with every field zero.
func NewDef(k DefKind) *Def { return &Def{Kind: k, TypeID: k.TypeID()} }

// SetValue sets scalar field i of [DefKind.Fields].
func (d *Def) SetValue(i int, v uint64) {
	if f := d.field(i); f != nil && f.scalar() {
		d.vals[f.slot] = v
	}
}

// SetElems sets the values of element field i of [DefKind.Fields].
func (d *Def) SetElems(i int, v []uint64) {
	if f := d.field(i); f != nil && f.elem {
		d.arrs[f.slot] = append(d.arrs[f.slot][:0], v...)
	}
}

// SetBytes sets the text of a String definition.
func (d *Def) SetBytes(s []byte) { d.strs[0] = append(d.strs[0][:0], s...) }

// SetString sets string field i of [DefKind.Fields] (the group, category
// and text of markers, the name and description of thumbnails); it does
// nothing for a field that is not a string or a bad index.
func (d *Def) SetString(i int, s string) {
	if f := d.field(i); f != nil && f.wire == wStr {
		d.strs[f.slot] = append(d.strs[f.slot][:0], s...)
	}
}

// NewSnapshot returns a snapshot record of kind k whose original event
// happened at time t (the first field; set it with SetValue(0, t) too) and
// that is written at snapshot time st; set the other fields with SetValue
// and SetElems of the embedded Event, whose field indexes are those of
// [SnapKind.Fields].
func NewSnapshot(k SnapKind, st uint64) *Snapshot {
	return &Snapshot{Kind: k, Event: Event{TypeID: uint8(k), snap: true, Time: st, RawTime: st}}
}

// SetIDMap sets the id map of a MappingTable definition.
func (d *Def) SetIDMap(m IDMap) { d.idMap = m.clone() }

// WriterOptions configures an ArchiveWriter. A nil or zero value means defaults.
type WriterOptions struct {
	Name           string // archive name: files <Name>.otf2, <Name>.def, <Name>/<loc>.evt; "" means "traces"
	EventChunkSize int64  // 0 means DefaultEventChunkSize
	DefChunkSize   int64  // 0 means DefaultDefChunkSize
	MachineName    string
	Creator        string
	Description    string
	Properties     []Property
	TraceID        uint64
	// NumSnapshots is the anchor's count of snapshots (the number of
	// snapshot times, as libotf2's OTF2_Archive_SetNumberOfSnapshots sets
	// it); the snapshot records are written with SnapshotWriter.
	NumSnapshots uint32
	// NumThumbnails is the anchor's count of thumbnail files
	// (<Name>.<n>.thumb), for a caller that copies them through the
	// Creator itself: the writer writes no thumbnails.
	NumThumbnails uint32
}

// An ArchiveWriter writes an OTF2 archive that libotf2 3.0.2 reads: global
// definitions (kept in memory until Close), per-location local definitions
// and events (written chunk by chunk as they fill), and the anchor with
// the definition and location counts, written last so that an archive
// whose writing failed has no anchor.
//
// Per location it also writes snapshot files ([ArchiveWriter.SnapshotWriter])
// and for the archive the marker file ([ArchiveWriter.WriteMarker]).
//
// Location definitions get their numberOfEvents from the events written.
// Ids are written as given: no mapping tables are made.
//
// An ArchiveWriter is not safe for concurrent use.
type ArchiveWriter struct {
	c       model.Creator
	opts    WriterOptions
	defs    []*Def
	local   map[uint64][]*Def
	nolocal map[uint64]bool // locations without a local definition file
	evw     map[uint64]*EventWriter
	order   []uint64
	snw     map[uint64]*SnapshotWriter
	sorder  []uint64
	marks   []*Def
	err     error
	closed  bool
}

// NewArchiveWriter returns a writer creating the archive's files through
// c ([model.DirCreator] for a directory). It closes every file it
// creates, by Close or Abort; it closes nothing else.
func NewArchiveWriter(c model.Creator, opts *WriterOptions) (*ArchiveWriter, error) {
	w := &ArchiveWriter{c: c, local: map[uint64][]*Def{}, evw: map[uint64]*EventWriter{}, snw: map[uint64]*SnapshotWriter{}}
	if opts != nil {
		w.opts = *opts
		w.opts.Properties = append([]Property(nil), opts.Properties...)
	}
	if w.opts.Name == "" {
		w.opts.Name = "traces"
	}
	if w.opts.EventChunkSize == 0 {
		w.opts.EventChunkSize = DefaultEventChunkSize
	}
	if w.opts.DefChunkSize == 0 {
		w.opts.DefChunkSize = DefaultDefChunkSize
	}
	for _, s := range []int64{w.opts.EventChunkSize, w.opts.DefChunkSize} {
		if s < 256 || s > MaxChunkSize {
			return nil, fmt.Errorf("otf2: chunk size %d: %w", s, ErrRange)
		}
	}
	return w, nil
}

// WriteDef adds a global definition. MappingTable and ClockOffset are local
// only (WriteLocalDef).
func (w *ArchiveWriter) WriteDef(d *Def) error {
	if w.closed {
		return ErrClosed
	}
	if !d.Kind.Global() {
		return fmt.Errorf("otf2: definition %d (%v): %w: not a global definition", len(w.defs), d.Kind, ErrRange)
	}
	w.defs = append(w.defs, d.Clone())
	return nil
}

// OmitLocalDefFile makes Close write no local definition file for
// location loc if no local definition was written for it, as libotf2
// does for a location whose definition writer was never opened. By
// default every location defined gets a local definition file, empty if
// need be, which is what libotf2's readers expect to find.
func (w *ArchiveWriter) OmitLocalDefFile(loc uint64) {
	if w.nolocal == nil {
		w.nolocal = make(map[uint64]bool)
	}
	w.nolocal[loc] = true
}

// WriteLocalDef adds a local definition of location loc.
func (w *ArchiveWriter) WriteLocalDef(loc uint64, d *Def) error {
	if w.closed {
		return ErrClosed
	}
	if d.Kind == DefKindUnknown || localKinds[d.Kind.TypeID()] != d.Kind {
		return fmt.Errorf("otf2: local definition of %d (%v): %w: not a local definition", loc, d.Kind, ErrRange)
	}
	w.local[loc] = append(w.local[loc], d.Clone())
	return nil
}

// EventWriter returns the writer of location loc's events, creating its
// file on first use.
func (w *ArchiveWriter) EventWriter(loc uint64) (*EventWriter, error) {
	if w.closed {
		return nil, ErrClosed
	}
	if ew, ok := w.evw[loc]; ok {
		return ew, nil
	}
	name := path.Join(w.opts.Name, strconv.FormatUint(loc, 10)+".evt")
	f, err := w.c.Create(name)
	if err != nil {
		return nil, fmt.Errorf("otf2: %w", err)
	}
	ew := &EventWriter{out: f, path: name, size: int(w.opts.EventChunkSize), events: true}
	w.evw[loc] = ew
	w.order = append(w.order, loc)
	return ew, nil
}

// WriteMarker adds a MarkerDef or Marker record to the archive's marker
// file (<Name>.marker), written at Close when there is any. Markers
// refer to MarkerDef ids of this file; their times are not
// clock-corrected.
func (w *ArchiveWriter) WriteMarker(d *Def) error {
	if w.closed {
		return ErrClosed
	}
	if d.Kind != DefKindMarkerDef && d.Kind != DefKindMarker {
		return fmt.Errorf("otf2: marker %d (%v): %w: not a MarkerDef or Marker", len(w.marks), d.Kind, ErrRange)
	}
	w.marks = append(w.marks, d.Clone())
	return nil
}

// SnapshotWriter returns the writer of location loc's snapshot file
// (<Name>/<loc>.snap), creating the file on first use. The anchor's
// snapshot count is [WriterOptions.NumSnapshots].
func (w *ArchiveWriter) SnapshotWriter(loc uint64) (*SnapshotWriter, error) {
	if w.closed {
		return nil, ErrClosed
	}
	if sw, ok := w.snw[loc]; ok {
		return sw, nil
	}
	name := path.Join(w.opts.Name, strconv.FormatUint(loc, 10)+".snap")
	f, err := w.c.Create(name)
	if err != nil {
		return nil, fmt.Errorf("otf2: %w", err)
	}
	sw := &SnapshotWriter{w: EventWriter{out: f, path: name, size: int(w.opts.EventChunkSize), events: true, snap: true}}
	w.snw[loc] = sw
	w.sorder = append(w.sorder, loc)
	return sw, nil
}

// A SnapshotWriter writes the snapshot records of one location, chunk by
// chunk, as an EventWriter writes events. Get one from
// [ArchiveWriter.SnapshotWriter]; the ArchiveWriter's Close finishes it.
type SnapshotWriter struct {
	w EventWriter
}

// Write appends a snapshot record: SnapshotStart, SnapshotEnd or the copy
// of an event (see [NewSnapshot]). s.Time is the snapshot's time, which
// must not be before the previous record's; the record is encoded before
// any byte is written.
func (s *SnapshotWriter) Write(r *Snapshot) error {
	l := snapLayouts[r.Kind]
	if l == nil {
		return s.w.rangeErr(int64(s.w.n), "snapshot kind %d unknown", r.Kind)
	}
	return s.w.write(l, &r.Event)
}

func (w *ArchiveWriter) writeFile(name string, defs []*Def, local bool) error {
	f, err := w.c.Create(name)
	if err != nil {
		return fmt.Errorf("otf2: %w", err)
	}
	cw := &EventWriter{out: f, path: name, size: int(w.opts.DefChunkSize)}
	for i, d := range defs {
		if err := cw.writeDef(d, int64(i)); err != nil {
			f.Close()
			return err
		}
	}
	if err := cw.finish(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Close finishes every event file, writes the global and local definition
// files and then the anchor. It does not close anything the Creator's
// caller owns. A second Close returns nil.
func (w *ArchiveWriter) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	fail := func(err error) error {
		if w.err == nil {
			w.err = err
		}
		return w.err
	}
	counts := map[uint64]uint64{}
	for _, loc := range w.order {
		ew := w.evw[loc]
		counts[loc] = ew.n
		if err := ew.finish(); err != nil {
			ew.out.Close()
			return fail(err)
		}
		if err := ew.out.Close(); err != nil {
			return fail(err)
		}
	}
	for _, loc := range w.sorder {
		sw := &w.snw[loc].w
		if err := sw.finish(); err != nil {
			sw.out.Close()
			return fail(err)
		}
		if err := sw.out.Close(); err != nil {
			return fail(err)
		}
	}
	if len(w.marks) > 0 {
		if err := w.writeFile(w.opts.Name+".marker", w.marks, false); err != nil {
			return fail(err)
		}
	}
	var nloc uint64
	var locs []uint64
	for _, d := range w.defs {
		if d.Kind == DefKindLocation {
			nloc++
			locs = append(locs, d.vals[0])
			if n, ok := counts[d.vals[0]]; ok {
				d.vals[3] = n
			}
		}
	}
	if err := w.writeFile(w.opts.Name+".def", w.defs, false); err != nil {
		return fail(err)
	}
	for _, loc := range locs {
		if w.nolocal[loc] && len(w.local[loc]) == 0 {
			continue
		}
		if err := w.writeFile(path.Join(w.opts.Name, strconv.FormatUint(loc, 10)+".def"), w.local[loc], true); err != nil {
			return fail(err)
		}
	}
	an := &Anchor{
		AnchorFormat: 3, TraceFormat: 2, Version: [3]uint8{3, 0, 2},
		EventChunkSize: uint64(w.opts.EventChunkSize), DefChunkSize: uint64(w.opts.DefChunkSize),
		Substrate: FileSubstratePosix, Compression: CompressionNone,
		NumLocations: nloc, NumGlobalDefs: uint64(len(w.defs)),
		MachineName: w.opts.MachineName, Creator: w.opts.Creator, Description: w.opts.Description,
		Properties: w.opts.Properties, TraceID: w.opts.TraceID,
		NumSnapshots: w.opts.NumSnapshots, NumThumbnails: w.opts.NumThumbnails,
	}
	f, err := w.c.Create(w.opts.Name + ".otf2")
	if err != nil {
		return fail(fmt.Errorf("otf2: %w", err))
	}
	if _, err := f.Write(appendAnchor(nil, an)); err != nil {
		f.Close()
		return fail(err)
	}
	if err := f.Close(); err != nil {
		return fail(err)
	}
	return nil
}

// Abort closes the event files written so far without finishing them and
// writes neither definitions nor the anchor, so what was written is not
// an archive; the caller removes the files. Close after Abort returns
// ErrClosed; a second Abort does nothing.
func (w *ArchiveWriter) Abort() {
	if w.closed {
		return
	}
	w.closed = true
	w.err = ErrClosed
	for _, loc := range w.order {
		w.evw[loc].out.Close()
	}
	for _, loc := range w.sorder {
		w.snw[loc].w.out.Close()
	}
}

// An EventWriter writes the events of one location, chunk by chunk.
// Get one from [ArchiveWriter.EventWriter]; the ArchiveWriter's Close
// finishes it.
type EventWriter struct {
	out    io.WriteCloser
	path   string
	size   int    // chunk size
	events bool   // an event file: TIMESTAMP records and event numbers
	snap   bool   // a snapshot file: records of snapLayouts
	chunk  []byte // the current chunk, header included
	rec    []byte // the record being encoded
	body   enc
	n      uint64 // events written
	first  uint64 // number of the chunk's first event
	cur    uint64 // current time
	fresh  bool   // no event yet in this chunk
	err    error
	nchunk int
}

func (w *EventWriter) rangeErr(rec int64, format string, args ...any) error {
	return fmt.Errorf("otf2: %s: record %d: %w: %s", w.path, rec, ErrRange, fmt.Sprintf(format, args...))
}

// encodeFields appends the fields of layout l from vals/arrs to w.body and
// returns the writer's upper bound of their size.
func (w *EventWriter) encodeFields(l *layout, vals []uint64, arrs *[3][]uint64, d *Def, rec int64) (int, error) {
	bound := 0
	fs := l.fields
	for i := 0; i < len(fs); i++ {
		f := &fs[i]
		switch {
		case f.wire == wStr:
			w.body.str(string(d.strs[f.slot]))
			bound += len(d.strs[f.slot]) + 1
		case f.wire == wIDMap:
			m := &d.idMap
			if m.Sparse {
				w.body.comp(uint64(len(m.Pairs)), 8)
				w.body.u8(1)
				for _, p := range m.Pairs {
					w.body.comp(p.Local, 8)
					w.body.comp(p.Global, 8)
				}
			} else {
				w.body.comp(uint64(len(m.Dense)), 8)
				w.body.u8(0)
				for _, g := range m.Dense {
					w.body.comp(g, 8)
				}
			}
			bound += 9 * (2 + 2*len(m.Pairs) + len(m.Dense))
		case f.count:
			group := fs[i+1 : i+1+f.group]
			n := len(arrs[group[0].slot])
			for _, g := range group {
				if len(arrs[g.slot]) != n {
					return 0, w.rangeErr(rec, "%s: element arrays of different lengths", l.name)
				}
			}
			if f.wire == wU8 && n > 255 {
				return 0, w.rangeErr(rec, "%s: %d elements (at most 255)", l.name, n)
			}
			w.body.value(f.wire, uint64(n), 0)
			bound += valueBound(f.wire)
			for j := range n {
				prev := uint64(0)
				for _, g := range group {
					v := arrs[g.slot][j]
					w.body.value(g.wire, v, prev)
					bound += valueBound(g.wire)
					prev = v
				}
			}
			i += f.group
		default:
			prev := uint64(0)
			if i > 0 && fs[i-1].scalar() {
				prev = vals[fs[i-1].slot]
			}
			w.body.value(f.wire, vals[f.slot], prev)
			bound += valueBound(f.wire)
		}
	}
	return bound, nil
}

// appendFramed appends type, length and w.body to w.rec.
func (w *EventWriter) appendFramed(t uint8, long bool) {
	w.rec = append(w.rec, t)
	e := enc{b: w.rec}
	if long {
		e.u8(0xff)
		e.u64(uint64(len(w.body.b)))
	} else {
		e.u8(uint8(len(w.body.b)))
	}
	w.rec = append(e.b, w.body.b...)
}

// Write appends an event. Its Time must not be before the previous
// event's; Location and Number are ignored (the file and the order say
// them). The event is encoded before any byte is written.
func (w *EventWriter) Write(ev *Event) error {
	l := eventLayouts[ev.Kind]
	if l == nil || w.snap {
		return w.rangeErr(int64(w.n), "event kind %d unknown", ev.Kind)
	}
	return w.write(l, ev)
}

// write appends ev as a record of layout l.
func (w *EventWriter) write(l *layout, ev *Event) error {
	if w.err != nil {
		return w.err
	}
	rec := int64(w.n)
	if ev.Time < w.cur {
		return fmt.Errorf("otf2: %s: record %d: %w", w.path, rec, ErrTimeOrder)
	}
	w.rec = w.rec[:0]
	if len(ev.Attrs) > 0 {
		w.body.b = w.body.b[:0]
		w.body.comp(uint64(len(ev.Attrs)), 4)
		for _, a := range ev.Attrs {
			w.body.comp(uint64(a.ID), 4)
			w.body.u8(uint8(a.Type))
			w.body.value(wAttr, a.Value, uint64(a.Type))
		}
		w.appendFramed(bAttrList, 15*len(ev.Attrs)+5 >= 255)
	}
	w.body.b = w.body.b[:0]
	if l.singleton {
		w.rec = append(w.rec, l.id)
		e := enc{b: w.rec}
		e.value(l.fields[0].wire, ev.vals[0], 0)
		w.rec = e.b
	} else {
		bound, err := w.encodeFields(l, ev.vals[:], &ev.arrs, nil, rec)
		if err != nil {
			return err
		}
		w.appendFramed(l.id, bound >= 255)
	}
	needTS := w.fresh || ev.Time > w.cur || ev.Time == 0 || len(w.chunk) == 0
	if err := w.place(needTS, ev.Time, rec); err != nil {
		return err
	}
	w.n++
	return nil
}

func (w *EventWriter) writeDef(d *Def, rec int64) error {
	l := defLayouts[d.Kind]
	if l == nil {
		return w.rangeErr(rec, "definition kind %v unknown", d.Kind)
	}
	w.body.b = w.body.b[:0]
	if _, err := w.encodeFields(l, d.vals[:], &d.arrs, d, rec); err != nil {
		return err
	}
	w.rec = w.rec[:0]
	w.appendFramed(l.id, len(w.body.b) >= 255)
	return w.place(false, 0, rec)
}

// place puts w.rec (with a TIMESTAMP record before it if ts) into the
// current chunk, starting a new chunk if it does not fit.
func (w *EventWriter) place(ts bool, t uint64, rec int64) error {
	need := len(w.rec) + 1 // keep a byte for the padding
	if ts {
		need += 9
	}
	if len(w.chunk) > 0 && len(w.chunk)+need > w.size {
		if err := w.flushChunk(true); err != nil {
			return err
		}
	}
	if len(w.chunk) == 0 {
		w.startChunk()
		if w.events {
			ts = true
		}
		need = len(w.rec) + 1 + 9
		if chunkHeaderSize+need > w.size {
			w.err = w.rangeErr(rec, "record of %d bytes larger than a chunk", len(w.rec))
			return w.err
		}
	}
	if ts && w.events {
		e := enc{b: append(w.chunk, bTimestamp)}
		e.u64(t)
		w.chunk = e.b
		w.cur = t
	}
	w.chunk = append(w.chunk, w.rec...)
	w.fresh = false
	return nil
}

func (w *EventWriter) startChunk() {
	if cap(w.chunk) < w.size {
		w.chunk = make([]byte, 0, w.size)
	}
	w.chunk = append(w.chunk[:0], bChunkHeader, endianLittle)
	w.chunk = append(w.chunk, make([]byte, 16)...)
	w.first = w.n + 1
	w.fresh = true
}

// flushChunk writes the current chunk, padded to the chunk size if pad.
func (w *EventWriter) flushChunk(pad bool) error {
	first, last := uint64(1), uint64(0)
	if w.events {
		first, last = w.first, w.n
	}
	e := enc{b: w.chunk[:2]}
	e.u64(first)
	e.u64(last)
	if pad {
		for len(w.chunk) < w.size {
			w.chunk = append(w.chunk, 0)
		}
	}
	if _, err := w.out.Write(w.chunk); err != nil {
		w.err = fmt.Errorf("otf2: %s: %w", w.path, err)
		return w.err
	}
	w.nchunk++
	w.chunk = w.chunk[:0]
	return nil
}

// finish ends the file: the end markers in the last chunk.
func (w *EventWriter) finish() error {
	if w.err != nil {
		return w.err
	}
	if len(w.chunk) > 0 && len(w.chunk)+2 > w.size {
		if err := w.flushChunk(true); err != nil {
			return err
		}
	}
	if len(w.chunk) == 0 {
		w.startChunk()
	}
	w.chunk = append(w.chunk, bEndOfFile, bEndOfBuffer)
	if err := w.flushChunk(false); err != nil {
		return err
	}
	w.err = errors.New("otf2: event writer finished")
	return nil
}
