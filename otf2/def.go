package otf2

import (
	"errors"
	"fmt"
	"io"
	"iter"
)

// Undefined ids and values, as stored for "no reference".
const (
	Undefined32 = 0xffffffff         // OTF2_UNDEFINED_UINT32 and every 32-bit undefined reference
	Undefined64 = 0xffffffffffffffff // OTF2_UNDEFINED_UINT64, OTF2_UNDEFINED_LOCATION, OTF2_UNDEFINED_TIMESTAMP
	Undefined8  = 0xff               // OTF2_UNDEFINED_UINT8 (types, I/O paradigms)
	// UndefinedInt64 is OTF2_UNDEFINED_INT64 (ProgramEnd.exitStatus).
	UndefinedInt64 = -1 << 63
)

// A Def is one definition record, global or local. Its typed view comes
// from the accessor of its kind ([Def.Region], [Def.String], ...);
// [Def.Value] and [Def.Elems] give generic access in the order of
// [DefKind.Fields].
type Def struct {
	Kind   DefKind
	TypeID uint8 // the record's type id (for unknown records)

	vals  [12]uint64
	arrs  [3][]uint64
	s     []byte
	idMap IDMap
}

func (d *Def) str() string { return string(d.s) }

// Bytes returns the text of a String definition without copying; owned by d.
func (d *Def) Bytes() []byte { return d.s }

// Value returns scalar field i of [DefKind.Fields] as 64 bits (see [Event.Value]).
func (d *Def) Value(i int) uint64 {
	if f := d.field(i); f != nil && f.slot >= 0 && !f.elem {
		return d.vals[f.slot]
	}
	return 0
}

// Elems returns the values of element field i of [DefKind.Fields].
func (d *Def) Elems(i int) []uint64 {
	if f := d.field(i); f != nil && f.elem {
		return d.arrs[f.slot]
	}
	return nil
}

// Self returns the definition's own id and whether it has one (Region,
// String, Location...; not ClockProperties or the property supplements).
func (d *Def) Self() (uint64, bool) {
	if d.Kind >= numDefKinds || defLayouts[d.Kind] == nil {
		return 0, false
	}
	l := defLayouts[d.Kind]
	if len(l.fields) == 0 || l.fields[0].name != "self" {
		return 0, false
	}
	return d.vals[0], true
}

func (d *Def) field(i int) *FieldInfo {
	if d.Kind >= numDefKinds || defLayouts[d.Kind] == nil {
		return nil
	}
	l := defLayouts[d.Kind]
	if i < 0 || i >= len(l.fields) {
		return nil
	}
	return &l.fields[i]
}

// Clone returns a deep copy of d.
func (d *Def) Clone() *Def {
	c := *d
	for i := range d.arrs {
		c.arrs[i] = append([]uint64(nil), d.arrs[i]...)
	}
	c.s = append([]byte(nil), d.s...)
	c.idMap = d.idMap.clone()
	return &c
}

func (d *Def) readIDMap(c *cursor) error {
	n := c.comp(8)
	mode := c.u8()
	m := &d.idMap
	m.Dense, m.Pairs = m.Dense[:0], m.Pairs[:0]
	if c.err != nil {
		return c.err
	}
	if mode > 1 {
		return fmt.Errorf("%w: id map mode %d", ErrSyntax, mode)
	}
	m.Sparse = mode == 1
	if n > uint64(len(c.b)-c.off) {
		return fmt.Errorf("%w: id map of %d entries in %d bytes", ErrRange, n, len(c.b)-c.off)
	}
	for range n {
		if m.Sparse {
			l := c.comp(8)
			g := c.comp(8)
			m.Pairs = append(m.Pairs, IDPair{l, g})
		} else {
			m.Dense = append(m.Dense, c.comp(8))
		}
	}
	return c.err
}

// setDefaults fills fields i.. of a record that ends before them (written
// by an older OTF2), as libotf2's readers do.
func setDefaults(l *layout, i int, vals []uint64, arrs *[3][]uint64) {
	fs := l.fields
	for j := i; j < len(fs); j++ {
		f := &fs[j]
		switch {
		case f.elem:
			arrs[f.slot] = arrs[f.slot][:0]
		case f.slot < 0:
		case f.ref != "":
			vals[f.slot] = Undefined32
			if f.wire == wCU64 {
				vals[f.slot] = Undefined64
			}
		default:
			vals[f.slot] = 0
		}
	}
	switch l.name {
	case "Region": // canonicalName = name; role, paradigm, flags from regionType
		if i <= 7 {
			vals[7] = vals[1]
			k := regionFromAttic(RegionType(vals[3]))
			vals[8], vals[9], vals[10] = uint64(k[1]), uint64(k[0]), uint64(k[2])
		}
	case "Group":
		if i <= 4 {
			k := groupFromAttic(GroupTypePre12(vals[2]))
			vals[4], vals[5], vals[6] = uint64(k[0]), uint64(k[1]), uint64(k[2])
		}
	case "SystemTreeNodeProperty", "LocationGroupProperty", "LocationProperty":
		if i <= 3 {
			vals[3] = uint64(TypeString)
			vals[4] = vals[2]
		}
	case "RmaWin":
		if i <= 3 {
			vals[3] = uint64(RmaWinFlagCreateDestroyEvents)
		}
	case "ClockProperties":
		if i <= 3 {
			vals[3] = Undefined64
		}
	}
}

// regionFromAttic inverts the attic table: the first (paradigm, role,
// flags) that libotf2 would write as t; UNKNOWN for an unknown t.
func regionFromAttic(t RegionType) [3]uint8 {
	best := [3]uint8{0, 0, 0}
	found := false
	for k, v := range atticRegionType {
		if v != t {
			continue
		}
		if !found || k[2] < best[2] || (k[2] == best[2] && (k[0] < best[0] || (k[0] == best[0] && k[1] < best[1]))) {
			best, found = k, true
		}
	}
	return best
}

func groupFromAttic(t GroupTypePre12) [3]uint8 {
	best := [3]uint8{0, 0, 0}
	found := false
	for k, v := range atticGroupType {
		if v != t {
			continue
		}
		if !found || k[0] < best[0] {
			best, found = k, true
		}
	}
	return best
}

// DefReaderOptions configures a DefReader. A nil or zero value means defaults.
type DefReaderOptions struct {
	Path      string // used only in error messages
	Local     bool   // a location's local definition file (MappingTable and ClockOffset are known, ClockProperties and Paradigm are not)
	ChunkSize int64  // the archive's definition chunk size; 0 means 4 MiB
}

// A DefReader reads the records of a definition file in file order.
//
// A DefReader is not safe for concurrent use.
type DefReader struct {
	opts DefReaderOptions
	ch   chunks
	c    cursor
	def  Def
	n    int64
	err  error
	done bool
	kind *[256]DefKind
}

// NewDefReader returns a reader of the definition file r.
func NewDefReader(r io.Reader, opts *DefReaderOptions) (*DefReader, error) {
	dr := &DefReader{}
	if opts != nil {
		dr.opts = *opts
	}
	if dr.opts.ChunkSize <= 0 {
		dr.opts.ChunkSize = DefaultDefChunkSize
	}
	if dr.opts.ChunkSize < chunkHeaderSize+2 || dr.opts.ChunkSize > maxReadChunk {
		return nil, fmt.Errorf("otf2: definition chunk size %d: %w", dr.opts.ChunkSize, ErrRange)
	}
	dr.kind = &globalKinds
	if dr.opts.Local {
		dr.kind = &localKinds
	}
	dr.ch.reset(r, dr.opts.ChunkSize)
	return dr, nil
}

// Def returns the current definition. It and the slices it holds are valid
// until the next call to Next. Use [Def.Clone] to keep it.
func (r *DefReader) Def() *Def { return &r.def }

// Err returns the first error; nil after a clean end.
func (r *DefReader) Err() error { return r.err }

// Count returns the number of records read so far (unknown ones included).
func (r *DefReader) Count() int64 { return r.n }

// All returns a single-use iterator over the remaining definitions.
func (r *DefReader) All() iter.Seq2[*Def, error] {
	return func(yield func(*Def, error) bool) {
		for r.Next() {
			if !yield(&r.def, nil) {
				return
			}
		}
		if r.err != nil {
			yield(nil, r.err)
		}
	}
}

func (r *DefReader) fail(off int64, err error) bool {
	if errors.Is(err, errShort) || errors.Is(err, errCompInt) {
		err = fmt.Errorf("%w: %w", ErrSyntax, err)
	}
	r.err = &ParseError{Path: r.opts.Path, Offset: off, Record: r.n, Err: err}
	r.done = true
	return false
}

// Next advances to the next definition; false at the end or on an error.
func (r *DefReader) Next() bool {
	if r.done {
		return false
	}
	for {
		if r.c.off >= len(r.c.b) {
			if err := r.ch.load(); err != nil {
				if errors.Is(err, io.EOF) {
					return r.fail(r.ch.base, fmt.Errorf("file ends without an end-of-file marker: %w", io.ErrUnexpectedEOF))
				}
				return r.fail(r.ch.base, err)
			}
			r.c = cursor{b: r.ch.buf, off: chunkHeaderSize, be: r.ch.be}
			continue
		}
		start := r.c.off
		t := r.c.b[start]
		switch t {
		case bEndOfChunk:
			r.c.off = len(r.c.b)
			continue
		case bEndOfFile, bEndOfBuffer:
			r.done = true
			return false
		case bChunkHeader, 4:
			return r.fail(r.ch.base+int64(start), fmt.Errorf("%w: byte %#x where a record must start", ErrFormat, t))
		}
		r.c.off++
		n := r.c.length()
		if r.c.err != nil {
			return r.fail(r.ch.base+int64(start), r.c.err)
		}
		if n > uint64(len(r.c.b)-r.c.off) {
			return r.fail(r.ch.base+int64(start), fmt.Errorf("%w: record length %d exceeds its chunk", ErrRange, n))
		}
		body := cursor{b: r.c.b[r.c.off : r.c.off+int(n)], be: r.c.be}
		r.c.off += int(n)
		d := &r.def
		d.TypeID = t
		d.Kind = r.kind[t]
		d.s = d.s[:0]
		d.vals = [12]uint64{}
		for i := range d.arrs {
			d.arrs[i] = d.arrs[i][:0]
		}
		d.idMap = IDMap{Dense: d.idMap.Dense[:0], Pairs: d.idMap.Pairs[:0]}
		if d.Kind != DefKindUnknown {
			if err := decodeFields(defLayouts[d.Kind], &body, d.vals[:], &d.arrs, d); err != nil {
				return r.fail(r.ch.base+int64(start), err)
			}
		}
		r.n++
		return true
	}
}
