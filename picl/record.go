package picl

import (
	"iter"
	"strconv"
	"strings"
)

// A Record is one line of a PICL trace: six fixed fields, then, when Count is
// positive, a data descriptor and the data.
//
// A Record returned by [Reader.Record] is owned by the Reader: the Record and
// the slices it holds are valid until the next call to Next, Reset or Close. Use
// [Record.Clone] to keep it. The strings (Descriptor, Control) are immutable
// and may be kept.
//
// To write a record built in code, fill Type, Event, Time, Processor,
// Process, Count, Descriptor and Data (or Chars); leave TimeText, Control
// and the number tokens' Text empty and the Writer prints them canonically.
type Record struct {
	Type      RecordType // field 1: what kind of information
	Event     EventType  // field 2: the event it belongs to
	Time      float64    // field 3: timestamp, seconds: the format's native unit (the model's adapter converts it to model.Time ticks)
	TimeText  []byte     // field 3 as written, e.g. "-0.715036"; empty in records built in code
	Processor int32      // field 4: processor id; -1 all, < -1 a processor subset, 32767 the host
	Process   int32      // field 5: process id; -1 all or unknown, < -1 a process subset
	Count     int        // field 6: number of data fields (repetitions of the control string)

	// Descriptor is field 7 as written: an integer alias such as "2", or a
	// quoted control string with its quotes, such as `"%d%lf"`. It is ""
	// when Count is 0.
	Descriptor string

	// Control is the control string the descriptor resolves to: the text
	// between the quotes, or the control string of the alias (predefined
	// 0-5 or defined by an earlier -6 record in scope). It is "" when Count
	// is 0 or the alias is not defined for this record (then
	// FlagUndecoded is set). The Writer resolves the descriptor itself and
	// only checks Control when it is set.
	Control string

	// Data holds the decoded values in file order: Count repetitions of
	// the control string's conversions (see [Record.Field]). It is empty
	// for character data and for undecoded records.
	Data []Value

	// Chars holds the character data when the control string is a lone %c:
	// exactly Count characters (fewer if FlagTruncated), blanks included.
	Chars []byte

	// Raw holds text the reader could not decode: the whole data text
	// after the descriptor when FlagUndecoded is set, or the extra text
	// after the data when FlagTrailing is set. Leading and trailing blanks
	// are not part of it.
	Raw []byte

	// Flags says how the record departs from a well-formed one. It is zero
	// for well-formed records and always zero in strict mode except for
	// FlagUndecoded.
	Flags Flags
}

// A RecordType is field 1 of a record. Values >= 0 are user-defined; the
// negative values named here are the system record types of the format
// (Table 3 of the report). Other negative values are reserved: readers keep
// such records as opaque records.
type RecordType int32

// System record types.
const (
	RecordMark            RecordType = -2   // event with no duration: entry fields then exit fields
	RecordEntry           RecordType = -3   // start of an event with duration
	RecordExit            RecordType = -4   // end of an event with duration
	RecordLabel           RecordType = -5   // characters naming an event type or a location
	RecordDescriptor      RecordType = -6   // defines an integer alias for a control string
	RecordMessage         RecordType = -7   // characters: error/debug message or annotation
	RecordStatTime        RecordType = -101 // statistics: (event type, cumulative seconds) pairs
	RecordStatCount       RecordType = -102 // statistics: (event type, occurrences) pairs
	RecordStatVolume      RecordType = -103 // statistics: (event type, volume) pairs
	RecordProcessorSubset RecordType = -201 // subset definition: id, then processor ids
	RecordProcessSubset   RecordType = -202 // subset definition: id, then process ids
	RecordEventSubset     RecordType = -203 // subset definition: id, then event types
)

var recordTypeNames = map[RecordType]string{
	RecordMark:            "mark",
	RecordEntry:           "entry",
	RecordExit:            "exit",
	RecordLabel:           "label",
	RecordDescriptor:      "descriptor",
	RecordMessage:         "message",
	RecordStatTime:        "stat-time",
	RecordStatCount:       "stat-count",
	RecordStatVolume:      "stat-volume",
	RecordProcessorSubset: "processor-subset",
	RecordProcessSubset:   "process-subset",
	RecordEventSubset:     "event-subset",
}

// String returns the record type's short name ("entry", "stat-time"),
// "user(n)" for a user-defined type, or "RecordType(n)" for a reserved one.
func (t RecordType) String() string {
	if s, ok := recordTypeNames[t]; ok {
		return s
	}
	if t >= 0 {
		return "user(" + strconv.Itoa(int(t)) + ")"
	}
	return "RecordType(" + strconv.Itoa(int(t)) + ")"
}

// IsUser reports whether t is a user-defined record type (t >= 0).
func (t RecordType) IsUser() bool { return t >= 0 }

// IsEvent reports whether t is an event record type (-2 … -7): mark, entry,
// exit, label, descriptor or message.
func (t RecordType) IsEvent() bool { return t <= -2 && t >= -7 }

// IsStatistics reports whether t is a statistics record type (-101 … -103).
func (t RecordType) IsStatistics() bool { return t <= -101 && t >= -103 }

// IsSubsetDefinition reports whether t defines a subset (-201 … -203).
func (t RecordType) IsSubsetDefinition() bool { return t <= -201 && t >= -203 }

// IsReserved reports whether t is negative but not a system record type the
// format defines.
func (t RecordType) IsReserved() bool {
	_, ok := recordTypeNames[t]
	return t < 0 && !ok
}

// Host is the processor id of the host processor of hosted machines.
const Host int32 = 32767

// A Kind says how a data value was decoded.
type Kind uint8

// Value kinds.
const (
	KindInvalid Kind = iota // the zero Value
	KindInt                 // %d %i %u %ld %li %lu %lld: Value.Int
	KindFloat               // %f %lf %e %le %g %lg %E %G: Value.Float
	KindString              // %s: Value.Text
)

// String returns "int", "float", "string" or "invalid".
func (k Kind) String() string {
	switch k {
	case KindInt:
		return "int"
	case KindFloat:
		return "float"
	case KindString:
		return "string"
	}
	return "invalid"
}

// A Value is one decoded data value.
//
// Text is the token as written (for a string, the value without any quotes);
// the Writer prints it as is when it is a valid token for the value and
// prints the value canonically otherwise, so reading and writing keeps
// "0.000150" as written while a changed Float is printed afresh.
type Value struct {
	Kind   Kind
	Int    int64   // KindInt
	Float  float64 // KindFloat
	Text   []byte  // the token as written; for KindString, the value
	Quoted bool    // KindString: the value was (or is to be) written as a quoted token
}

// IntValue returns an integer Value.
func IntValue(v int64) Value { return Value{Kind: KindInt, Int: v} }

// FloatValue returns a floating-point Value.
func FloatValue(v float64) Value { return Value{Kind: KindFloat, Float: v} }

// StringValue returns a string Value holding s.
func StringValue(s string) Value { return Value{Kind: KindString, Text: []byte(s)} }

// AppendText appends the value as it would appear in a trace (without
// quotes) to b: the token as written if known, the canonical form
// otherwise.
func (v Value) AppendText(b []byte) []byte {
	switch v.Kind {
	case KindInt:
		if textIsInt(v.Text, v.Int) {
			return append(b, v.Text...)
		}
		return strconv.AppendInt(b, v.Int, 10)
	case KindFloat:
		if textIsFloat(v.Text, v.Float) {
			return append(b, v.Text...)
		}
		return strconv.AppendFloat(b, v.Float, 'g', -1, 64)
	case KindString:
		return append(b, v.Text...)
	}
	return b
}

// String returns the value's text as [Value.AppendText] writes it.
func (v Value) String() string { return string(v.AppendText(nil)) }

// Flags records how a record departs from a well-formed one (doc/picl.md §11, A10 and A12). In strict mode only FlagUndecoded occurs; the others are
// errors there.
type Flags uint8

// Record flags.
const (
	// FlagUndecoded: the data could not be decoded. The control string
	// uses a feature the SDK does not decode (field widths, %*, %[, %n,
	// %c mixed with other conversions), the alias is not defined for this
	// record, or (with FlagBadValue) a value does not fit its conversion.
	// Raw holds the data text; Data and Chars are empty.
	FlagUndecoded Flags = 1 << iota
	// FlagTruncated: the line ends before Count data fields (or characters)
	// were read. Data or Chars hold what is there; a missing descriptor
	// leaves Descriptor empty.
	FlagTruncated
	// FlagTrailing: text follows the data (or the count 0). Raw holds it.
	FlagTrailing
	// FlagBadValue: a value token does not fit its conversion (a word
	// where %d wants an integer). Always set together with FlagUndecoded.
	FlagBadValue
)

// String returns the flags' names joined by "|", or "" for none.
func (f Flags) String() string {
	var parts []string
	for i, name := range []string{"undecoded", "truncated", "trailing", "bad-value"} {
		if f&(1<<i) != 0 {
			parts = append(parts, name)
		}
	}
	if rest := f &^ (FlagUndecoded | FlagTruncated | FlagTrailing | FlagBadValue); rest != 0 {
		parts = append(parts, "0x"+strconv.FormatUint(uint64(rest), 16))
	}
	return strings.Join(parts, "|")
}

// PerField returns the number of values in one data field: the number of
// conversions in the control string (1 for a lone %c), or 0 when it cannot be
// decoded. The control string is Control, or when that is empty (a record
// built in code) the quoted Descriptor or predefined alias 0-5.
func (r *Record) PerField() int {
	text := r.Control
	if text == "" {
		d := r.Descriptor
		switch {
		case len(d) >= 2 && d[0] == '"' && d[len(d)-1] == '"':
			text = d[1 : len(d)-1]
		case len(d) == 1 && d[0] >= '0' && d[0] <= '5':
			text = predefined[d[0]-'0'].text
		}
	}
	c := parseControl(text)
	if c.undecoded {
		return 0
	}
	return c.n
}

// Field returns the values of data field i (0-based): PerField values of
// Data. It returns false when the record has no such field (i out of range,
// character or undecoded data, or a field cut short by truncation). The
// slice aliases Data.
func (r *Record) Field(i int) ([]Value, bool) {
	k := r.PerField()
	if k == 0 || i < 0 || i >= r.Count || (i+1)*k > len(r.Data) || r.Chars != nil {
		return nil, false
	}
	return r.Data[i*k : (i+1)*k], true
}

// Fields returns an iterator over the complete data fields: the field index
// and its values, as [Record.Field] returns them. It allocates nothing
// beyond the iterator itself.
func (r *Record) Fields() iter.Seq2[int, []Value] {
	return func(yield func(int, []Value) bool) {
		k := r.PerField()
		if k == 0 || r.Chars != nil {
			return
		}
		for i := 0; i < r.Count && (i+1)*k <= len(r.Data); i++ {
			if !yield(i, r.Data[i*k:(i+1)*k]) {
				return
			}
		}
	}
}

// IsHeader reports whether the record is of a kind that makes up a file's
// header (doc/picl.md §8): a label (-5), descriptor (-6) or subset
// definition (-201 … -203), or a reserved negative record type (the report
// expects future header record types). Whether such a record is part of
// the header also depends on its position: see [HeaderLen]. A label written
// mid-trace is of header kind but not in the header.
func (r *Record) IsHeader() bool {
	return r.Type == RecordLabel || r.Type == RecordDescriptor || r.Type.IsSubsetDefinition() || r.Type.IsReserved()
}

// HeaderLen returns the number of header records at the start of recs: the
// longest prefix of records for which [Record.IsHeader] holds. Header
// records should have timestamps before every other record so that sorting
// keeps them first; [Validator] does not check this.
func HeaderLen(recs []Record) int {
	for i := range recs {
		if !recs[i].IsHeader() {
			return i
		}
	}
	return len(recs)
}

// Clone returns a deep copy of r that shares no memory with it. It
// allocates a few slices, sized to the record.
func (r *Record) Clone() Record {
	c := *r
	c.TimeText = cloneBytes(r.TimeText)
	c.Chars = cloneBytes(r.Chars)
	c.Raw = cloneBytes(r.Raw)
	if r.Data != nil {
		c.Data = make([]Value, len(r.Data))
		n := 0
		for _, v := range r.Data {
			n += len(v.Text)
		}
		buf := make([]byte, 0, n)
		for i, v := range r.Data {
			c.Data[i] = v
			if v.Text != nil {
				start := len(buf)
				buf = append(buf, v.Text...)
				c.Data[i].Text = buf[start:len(buf):len(buf)]
			}
		}
	}
	return c
}

func cloneBytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append(make([]byte, 0, len(b)), b...)
}
