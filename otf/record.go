package otf

//go:generate go run ../internal/gen/otfgen -dir .

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// A Kind identifies the type of a record. The constants are generated from
// records.tsv, one per record kind of the format, plus KindUnknown.
type Kind uint8

// String returns the Go name of the kind's body type ("Enter", "DefProcess").
func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Short returns the short-format keyword of the kind ("E"), or "" if it has none.
func (k Kind) Short() string {
	if k < numKinds {
		return kindSpecs[k].short
	}
	return ""
}

// Long returns the long-format keyword of the kind ("ENTER"), or "" if it has none.
func (k Kind) Long() string {
	if k < numKinds {
		return kindSpecs[k].long
	}
	return ""
}

// File returns the type of file the kind belongs to. Key-value pairs and
// the state lines belong to several types and report FileNone.
func (k Kind) File() FileType {
	if k >= numKinds {
		return FileNone
	}
	switch kindSpecs[k].class {
	case classDef:
		return FileDef
	case classEvents:
		return FileEvents
	case classSnaps:
		return FileSnaps
	case classStats:
		return FileStats
	case classMarker:
		return FileMarker
	}
	return FileNone
}

// usesState reports whether records of the kind take their time and
// process from the state lines of their file.
func (k Kind) usesState() bool {
	switch kindSpecs[k].class {
	case classEvents, classSnaps, classStats:
		return true
	}
	return false
}

type fileClass uint8

const (
	classNone fileClass = iota
	classDef
	classEvents
	classSnaps
	classStats
	classMarker
	classAny
	classMaster
)

type fieldType uint8

const (
	tU32 fieldType = iota + 1
	tU64
	tStr
	tList
	tVer
	tKV
)

type fieldSpec struct {
	typ  fieldType
	slot int8
	opt  bool
	kws  []string // short, long, deprecated; nil for the first field
}

type kindSpec struct {
	short, long string
	class       fileClass
	readonly    bool
	fields      []fieldSpec
	numeric     bool // all fields are numbers
	optTail     int  // index of the first field of the all-optional tail
}

const (
	numSlots = 8
	strSlots = 2
)

// A Record is one record of an OTF file: its kind, where it comes from, the
// time and process from the file's state lines, the key-value list
// attached to it and a kind-specific body read with the accessor named
// after the kind (r.Enter(), r.DefProcess(), ...).
//
// A Record filled by a reader, and the slices it holds, are valid until the
// next call to Next, Reset or Close of that reader. Use [Record.Clone] to
// keep it.
type Record struct {
	Kind Kind
	// Stream is the stream id of the file the record was read from (0 for
	// global definitions and markers).
	Stream uint32
	// Time is the current time of the file's state machine for event,
	// snapshot and summary records, and the spot time of a MarkerSpot.
	// Definitions have time 0.
	Time uint64
	// Process is the current process for event, snapshot and summary
	// records and the process of a MarkerSpot.
	Process uint32
	// Offset is the byte offset, in the (decompressed) file, of the first
	// line of the record, counting its key-value lines. Line is the
	// 1-based line number of the record line itself.
	Offset int64
	Line   int64

	num  [numSlots]uint64
	str  [strSlots][]byte
	list []uint32
	kvs  []KeyValue
	raw  []byte
}

func (r *Record) setKind(k Kind) {
	r.Kind = k
	r.num = [numSlots]uint64{}
	r.str = [strSlots][]byte{}
	r.list = nil
	r.raw = nil
}

// KeyValues returns the key-value list attached to the record, in file
// order, with split byte arrays joined.
func (r *Record) KeyValues() []KeyValue { return r.kvs }

// SetKeyValues attaches kvs to the record (retaining the slice).
func (r *Record) SetKeyValues(kvs []KeyValue) { r.kvs = kvs }

// Unknown returns the text of a KindUnknown record's line (without the line
// terminator) and true, or nil and false for another kind.
func (r *Record) Unknown() ([]byte, bool) {
	if r.Kind != KindUnknown {
		return nil, false
	}
	return r.raw, true
}

// SetUnknown makes r a KindUnknown record with the given line text. A
// Writer writes the text verbatim; it must not contain a line feed.
func (r *Record) SetUnknown(line []byte) {
	r.setKind(KindUnknown)
	r.raw = line
}

// Clone returns a deep copy of r that shares no memory with it.
func (r *Record) Clone() *Record {
	c := *r
	for i := range c.str {
		if c.str[i] != nil {
			c.str[i] = append([]byte{}, c.str[i]...)
		}
	}
	if c.list != nil {
		c.list = append([]uint32{}, c.list...)
	}
	if c.raw != nil {
		c.raw = append([]byte{}, c.raw...)
	}
	if c.kvs != nil {
		c.kvs = append([]KeyValue{}, c.kvs...)
		for i := range c.kvs {
			if c.kvs[i].Bytes != nil {
				c.kvs[i].Bytes = append([]byte{}, c.kvs[i].Bytes...)
			}
		}
	}
	return &c
}

// String formats the record for debugging: the kind, time, process and
// the body's fields in the short file syntax, e.g. `Enter t=6e p=1 E1X32`.
func (r *Record) String() string {
	var b []byte
	b = append(b, r.Kind.String()...)
	if r.Kind < numKinds && r.Kind.usesState() || r.Kind == KindUnknown && (r.Time != 0 || r.Process != 0) {
		b = append(b, " t="...)
		b = strconv.AppendUint(b, r.Time, 16)
		b = append(b, " p="...)
		b = strconv.AppendUint(b, uint64(r.Process), 16)
	}
	b = append(b, ' ')
	for i := range r.kvs {
		b = appendKeyValue(b, &r.kvs[i], false)
		b = append(b, ' ')
	}
	b = appendBody(b, r, false)
	return string(b)
}

// ValueType is the type of a key-value pair (DEFKEYVALUE TYPE).
type ValueType uint8

// Key-value types.
const (
	TypeChar ValueType = iota
	TypeInt8
	TypeUint8
	TypeInt16
	TypeUint16
	TypeInt32
	TypeUint32
	TypeInt64
	TypeUint64
	TypeFloat
	TypeDouble
	TypeByteArray
)

var valueTypeNames = [...]string{"CHAR", "INT8", "UINT8", "INT16", "UINT16", "INT32", "UINT32", "INT64", "UINT64", "FLOAT", "DOUBLE", "BYTE_ARRAY"}

// String returns the reference name of the type ("UINT32"), or "UNKNOWN <n>".
func (t ValueType) String() string {
	if int(t) < len(valueTypeNames) {
		return valueTypeNames[t]
	}
	return fmt.Sprintf("UNKNOWN <%d>", t)
}

// bits returns the width of the value's bit pattern, 0 for byte arrays.
func (t ValueType) bits() int {
	switch t {
	case TypeChar, TypeInt8, TypeUint8:
		return 8
	case TypeInt16, TypeUint16:
		return 16
	case TypeInt32, TypeUint32, TypeFloat:
		return 32
	case TypeInt64, TypeUint64, TypeDouble:
		return 64
	}
	return 0
}

// A KeyValue is one pair of a key-value list. Value holds the bit pattern
// of every type but TypeByteArray, whose content is in Bytes.
type KeyValue struct {
	Key   uint32
	Type  ValueType
	Value uint64
	Bytes []byte
}

// Int returns the value as a signed integer (sign-extended from the type's width).
func (kv KeyValue) Int() int64 {
	switch kv.Type.bits() {
	case 8:
		return int64(int8(kv.Value))
	case 16:
		return int64(int16(kv.Value))
	case 32:
		return int64(int32(kv.Value))
	}
	return int64(kv.Value)
}

// Float returns a TypeFloat or TypeDouble value as a float64.
func (kv KeyValue) Float() float64 {
	if kv.Type == TypeFloat {
		return float64(math.Float32frombits(uint32(kv.Value)))
	}
	return math.Float64frombits(kv.Value)
}

// FileType is the type of a record file of a trace.
type FileType uint8

// File types. FileDef..FileMarker name the files S.<id>.def, .events,
// .snaps, .stats and S.0.marker.
const (
	FileNone FileType = iota
	FileDef
	FileEvents
	FileSnaps
	FileStats
	FileMarker
)

var fileSuffix = [...]string{"", "def", "events", "snaps", "stats", "marker"}

// String returns the file name suffix of the type ("events").
func (f FileType) String() string {
	if int(f) < len(fileSuffix) && f != FileNone {
		return fileSuffix[f]
	}
	return "FileType(" + strconv.Itoa(int(f)) + ")"
}

// FileName returns the name of stream id's file of type f for the name
// stub ("trace" → "trace.1a.events"); zlib appends ".z".
func FileName(stub string, id uint32, f FileType, zlib bool) string {
	var b strings.Builder
	b.WriteString(stub)
	b.WriteByte('.')
	b.WriteString(strconv.FormatUint(uint64(id), 16))
	b.WriteByte('.')
	b.WriteString(f.String())
	if zlib {
		b.WriteString(".z")
	}
	return b.String()
}
