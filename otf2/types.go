package otf2

import (
	"strconv"
	"strings"
)

//go:generate go run ../internal/gen/otf2records -dir .

// Kind is the kind of an event record; its value is the record's type id in
// event files. KindUnknown marks a record of a type this package does not
// know (a newer OTF2 version's): its bytes are skipped, but it still counts
// as an event and takes the current time stamp.
type Kind uint8

// KindUnknown is the kind of an event record of an unknown type.
const KindUnknown Kind = 0

// String returns the record's name as in the OTF2 documentation (MpiSend),
// or "Unknown".
func (k Kind) String() string {
	if l := eventLayouts[k]; l != nil {
		return l.name
	}
	return "Unknown"
}

// Fields describes the fields of records of kind k in wire order; nil for
// KindUnknown. The slice is shared: do not modify it.
func (k Kind) Fields() []FieldInfo {
	if l := eventLayouts[k]; l != nil {
		return l.fields
	}
	return nil
}

// SnapKind is the kind of a snapshot record; its value is the record's type
// id in snapshot files.
type SnapKind uint8

// String returns the record's name, or "Unknown".
func (k SnapKind) String() string {
	if l := snapLayouts[k]; l != nil {
		return l.name
	}
	return "Unknown"
}

// Fields describes the fields of snapshot records of kind k in wire order;
// the first is the original event's time. The slice is shared: do not
// modify it.
func (k SnapKind) Fields() []FieldInfo {
	if l := snapLayouts[k]; l != nil {
		return l.fields
	}
	return nil
}

// DefKind is the kind of a definition record, global or local.
type DefKind uint8

// String returns the definition's name (Region, MappingTable), or "Unknown".
func (k DefKind) String() string {
	if k < numDefKinds && defLayouts[k] != nil {
		return defLayouts[k].name
	}
	return "Unknown"
}

// TypeID returns the record's type id in definition files; 0 for DefKindUnknown.
func (k DefKind) TypeID() uint8 {
	if k < numDefKinds && defLayouts[k] != nil {
		return defLayouts[k].id
	}
	return 0
}

// Global reports whether k may appear in the global definition file
// (every kind but MappingTable and ClockOffset).
func (k DefKind) Global() bool { return k < numDefKinds && defIsGlobal[k] }

// Fields describes the fields of definitions of kind k in wire order.
// The slice is shared: do not modify it.
func (k DefKind) Fields() []FieldInfo {
	if k < numDefKinds && defLayouts[k] != nil {
		return defLayouts[k].fields
	}
	return nil
}

// A WireType is the on-disk encoding of a field.
type WireType uint8

// Wire types of fields.
const (
	wU8     WireType = iota + 1 // one byte
	wI8                         // one signed byte
	wU16                        // 2 bytes in the chunk's byte order
	wI16                        // 2 bytes, signed
	wU64                        // 8 bytes
	wF32                        // IEEE-754 binary32
	wF64                        // IEEE-754 binary64
	wCU32                       // compressed unsigned 32-bit integer
	wCI32                       // compressed signed 32-bit integer
	wCU64                       // compressed unsigned 64-bit integer
	wCI64                       // compressed signed 64-bit integer
	wStr                        // NUL-terminated bytes
	wAttr                       // a value typed by the preceding Type field
	wMetric                     // a 64-bit metric value stored as a compressed uint64
	wIDMap                      // a mapping table's id map
)

var wireNames = [...]string{"", "u8", "i8", "u16", "i16", "u64", "f32", "f64", "cu32", "ci32", "cu64", "ci64", "str", "attrvalue", "metricvalue", "idmap"}

// String returns the wire type's name as in the record table (cu32, attrvalue).
func (w WireType) String() string {
	if int(w) < len(wireNames) && w != 0 {
		return wireNames[w]
	}
	return "invalid"
}

// Signed reports whether values of w are two's-complement signed numbers.
func (w WireType) Signed() bool { return w == wI8 || w == wI16 || w == wCI32 || w == wCI64 }

// Float reports whether values of w hold IEEE-754 bits.
func (w WireType) Float() bool { return w == wF32 || w == wF64 }

// noMap marks a field that no mapping table translates.
const noMap MappingType = 255

// A FieldInfo describes one field of a record kind.
type FieldInfo struct {
	name    string
	wire    WireType
	slot    int8 // index into the scalar values or the element arrays; -1 for str and idmap
	mapping MappingType
	ref     string
	enum    string
	since   uint8 // version that appended the field, major*10+minor; 0 for 1.0
	attic   bool
	clock   bool
	count   bool
	elem    bool
	group   int
}

// scalar reports whether the field is held in the values array.
func (f *FieldInfo) scalar() bool {
	return f.slot >= 0 && !f.elem && f.wire != wStr && f.wire != wIDMap
}

// Name returns the field's name as in the record table (regionRole).
func (f *FieldInfo) Name() string { return f.name }

// Wire returns the field's encoding.
func (f *FieldInfo) Wire() WireType { return f.wire }

// Ref returns the kind of definition the field refers to (Region, String,
// Comm, ...), or "" for a plain value. Shared id spaces use the name of the
// space: Metric (MetricClass and MetricInstance), Comm (Comm and
// InterComm), IoFile (IoRegularFile and IoDirectory).
func (f *FieldInfo) Ref() string { return f.ref }

// Enum returns the name of the field's enumeration (Paradigm), or "".
func (f *FieldInfo) Enum() string { return f.enum }

// Mapping returns the mapping table that translates the field in event
// files, and whether there is one.
func (f *FieldInfo) Mapping() (MappingType, bool) { return f.mapping, f.mapping != noMap }

// Obsolete reports whether the field is an attic field: still written for
// old readers, replaced by newer fields.
func (f *FieldInfo) Obsolete() bool { return f.attic }

// ClockCorrected reports whether the field is a time the clock offsets apply to.
func (f *FieldInfo) ClockCorrected() bool { return f.clock }

// Count reports whether the field is an array length; the Group fields
// after it repeat that many times, interleaved.
func (f *FieldInfo) Count() (group int, ok bool) { return f.group, f.count }

// Element reports whether the field is a member of an array group.
func (f *FieldInfo) Element() bool { return f.elem }

// Since returns the OTF2 version that appended the field as "major.minor"
// ("1.0" for original fields). Files of older versions end before it.
func (f *FieldInfo) Since() string {
	if f.since == 0 {
		return "1.0"
	}
	return strconv.Itoa(int(f.since/10)) + "." + strconv.Itoa(int(f.since%10))
}

// layout is a record kind's wire form.
type layout struct {
	name      string
	id        uint8
	singleton bool
	fields    []FieldInfo
	arrays    bool // some field is an array element
	plain     bool // no field is translated or clock-corrected
}

type enumName struct {
	v    uint64
	name string
}

func enumString(v uint64, names []enumName) string {
	for _, n := range names {
		if n.v == v {
			return n.name
		}
	}
	return "INVALID <" + strconv.FormatUint(v, 10) + ">"
}

// flagString names the bits of flag set v as otf2-print does: NONE for
// none, else {A, B} with the named bits in ascending order and then the
// bits no flag names together, as INVALID <0x…> in hexadecimal.
func flagString(v uint64, names []enumName) string {
	if v == 0 {
		return "NONE"
	}
	var b strings.Builder
	b.WriteByte('{')
	sep := ""
	unknown := uint64(0)
	for bit := uint64(1); bit != 0; bit <<= 1 {
		if v&bit == 0 {
			continue
		}
		name := ""
		for _, n := range names {
			if n.v == bit {
				name = n.name
				break
			}
		}
		if name == "" {
			unknown |= bit
			continue
		}
		b.WriteString(sep)
		sep = ", "
		b.WriteString(name)
	}
	if unknown != 0 {
		b.WriteString(sep)
		b.WriteString("INVALID <0x")
		b.WriteString(strconv.FormatUint(unknown, 16))
		b.WriteByte('>')
	}
	b.WriteByte('}')
	return b.String()
}

// EnumString returns the name otf2-print uses for value v of the named
// enumeration (Paradigm, RegionFlag, ...): the entry's name without its
// OTF2 prefix, a flag set as NONE or {A, B} (bits no flag names as one
// INVALID <0x…> last), INVALID <n> for an unknown value. ok is false if the enumeration is unknown.
func EnumString(enum string, v uint64) (s string, ok bool) {
	names, flags, ok := enumTable(enum)
	if !ok {
		return "", false
	}
	if flags {
		return flagString(v, names), true
	}
	return enumString(v, names), true
}

// IDMap is the id map of a MappingTable definition: local id → global id.
type IDMap struct {
	Sparse bool     // pairs instead of a dense array
	Dense  []uint64 // dense: the global id of local id i
	Pairs  []IDPair // sparse: pairs in file order (sorted by local id by writers)
}

// An IDPair maps one local id to a global id.
type IDPair struct{ Local, Global uint64 }

// Map translates a local id; ids not in the map are returned unchanged, as
// libotf2 does.
func (m *IDMap) Map(id uint64) uint64 {
	if !m.Sparse {
		if id < uint64(len(m.Dense)) {
			return m.Dense[id]
		}
		return id
	}
	lo, hi := 0, len(m.Pairs)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if m.Pairs[mid].Local < id {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(m.Pairs) && m.Pairs[lo].Local == id {
		return m.Pairs[lo].Global
	}
	// unsorted maps: linear fallback
	for _, p := range m.Pairs {
		if p.Local == id {
			return p.Global
		}
	}
	return id
}

func (m IDMap) clone() IDMap {
	return IDMap{Sparse: m.Sparse, Dense: append([]uint64(nil), m.Dense...), Pairs: append([]IDPair(nil), m.Pairs...)}
}
