package shardstat

import (
	"encoding/json"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hpctrace/hpctrace/stats"
)

// writeJSON writes v as json.Encoder does with SetIndent("", " "), byte
// for byte, followed by a newline, but part by part: the encoder builds
// the whole document in memory, compact and then indented, before it
// writes a byte, which for a report of 10^6 locations is several copies
// of gigabytes of text. writeJSON walks structs, slices and the report's
// objects kept as lists (stats.Scoped, stats.Imbalances) itself and
// hands each row to encoding/json, so that it holds one row's text at a
// time. v should be a pointer, so that its parts are addressable, as the
// encoder sees them.
func writeJSON(w io.Writer, v any) error {
	j := &jsonWriter{w: w, types: map[reflect.Type]*typeInfo{}}
	j.value(reflect.ValueOf(v), 0)
	j.buf = append(j.buf, '\n')
	j.flush()
	return j.err
}

// A jsonWriter writes one document; it remembers the first error.
type jsonWriter struct {
	w     io.Writer
	err   error
	buf   []byte
	types map[reflect.Type]*typeInfo
	lastT reflect.Type // the type info last returned, for the next row
	lastI *typeInfo
}

// typeInfo is what the writer knows of a type.
type typeInfo struct {
	ordered bool        // one of the report's objects kept as lists (isOrdered)
	f6      bool        // stats.F6, which fast writes as its MarshalJSON does
	marshal bool        // not a pointer, and a json.Marshaler
	leaf    bool        // marshalled as one piece
	fast    bool        // a leaf the writer encodes itself (see fastType)
	fields  []fieldInfo // a struct's fields in encoding/json's order
}

// fieldInfo is one field of a struct as encoding/json writes it.
type fieldInfo struct {
	key       string // the quoted name and ": "
	index     []int
	omitEmpty bool
}

// flushAt is the size of text the writer gathers before it writes.
const flushAt = 64 << 10

func (j *jsonWriter) flush() {
	if j.err == nil && len(j.buf) > 0 {
		_, j.err = j.w.Write(j.buf)
	}
	j.buf = j.buf[:0]
}

// newline starts a line at depth d.
func (j *jsonWriter) newline(d int) {
	j.buf = append(j.buf, '\n')
	for range d {
		j.buf = append(j.buf, ' ')
	}
}

// value writes v, whose first line is already indented at depth d.
func (j *jsonWriter) value(v reflect.Value, d int) {
	if j.err != nil {
		return
	}
	if len(j.buf) >= flushAt {
		j.flush()
	}
	if !v.IsValid() {
		j.buf = append(j.buf, "null"...)
		return
	}
	t := v.Type()
	if j.info(t).ordered {
		keys, vals := orderedObject(v)
		j.object(keys, vals, d)
		return
	}
	switch t.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			j.buf = append(j.buf, "null"...)
			return
		}
		j.value(v.Elem(), d)
		return
	case reflect.Pointer:
		if v.IsNil() {
			j.buf = append(j.buf, "null"...)
			return
		}
		if !t.Implements(reflect.TypeFor[json.Marshaler]()) {
			j.value(v.Elem(), d)
			return
		}
	}
	ti := j.info(t)
	if ti.leaf {
		j.leaf(v, d)
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		j.buf = append(j.buf, '{')
		n := 0
		for i := range ti.fields {
			f := &ti.fields[i]
			fv, err := v.FieldByIndexErr(f.index)
			if err != nil || f.omitEmpty && isEmpty(fv) {
				continue // a field of a nil embedded pointer, or omitted
			}
			if n > 0 {
				j.buf = append(j.buf, ',')
			}
			n++
			j.newline(d + 1)
			j.buf = append(j.buf, f.key...)
			j.value(fv, d+1)
		}
		if n > 0 {
			j.newline(d)
		}
		j.buf = append(j.buf, '}')
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && v.IsNil() {
			j.buf = append(j.buf, "null"...)
			return
		}
		j.buf = append(j.buf, '[')
		for i := range v.Len() {
			if i > 0 {
				j.buf = append(j.buf, ',')
			}
			j.newline(d + 1)
			j.value(v.Index(i), d+1)
		}
		if v.Len() > 0 {
			j.newline(d)
		}
		j.buf = append(j.buf, ']')
	default:
		j.leaf(v, d)
	}
}

// object writes an object of the keys and values, in their order.
func (j *jsonWriter) object(keys []string, vals func(i int) reflect.Value, d int) {
	j.buf = append(j.buf, '{')
	for i, k := range keys {
		if i > 0 {
			j.buf = append(j.buf, ',')
		}
		j.newline(d + 1)
		kb, err := json.Marshal(k)
		if err != nil {
			j.err = err
			return
		}
		j.buf = append(j.buf, kb...)
		j.buf = append(j.buf, ": "...)
		j.value(vals(i), d+1)
	}
	if len(keys) > 0 {
		j.newline(d)
	}
	j.buf = append(j.buf, '}')
}

// leaf writes v as encoding/json does, indented at depth d.
func (j *jsonWriter) leaf(v reflect.Value, d int) {
	if j.info(v.Type()).fast && j.fast(v, d) {
		return
	}
	x := v.Interface()
	if v.CanAddr() {
		x = v.Addr().Interface() // the encoder calls pointer methods of addressable values
	}
	b, err := json.MarshalIndent(x, strings.Repeat(" ", d), " ")
	if err != nil {
		if j.err == nil {
			j.err = err
		}
		return
	}
	j.buf = append(j.buf, b...)
}

// info returns what the writer knows of t.
func (j *jsonWriter) info(t reflect.Type) *typeInfo {
	if t == j.lastT {
		return j.lastI // the rows of a table are of one type
	}
	if ti, ok := j.types[t]; ok {
		j.lastT, j.lastI = t, ti
		return ti
	}
	ti := &typeInfo{ordered: isOrdered(t), f6: t == reflect.TypeFor[stats.F6](),
		marshal: t.Kind() != reflect.Pointer && t.Implements(reflect.TypeFor[json.Marshaler]())}
	j.types[t] = ti // a type that holds itself is not a leaf
	switch {
	case ti.ordered:
	case t.Implements(reflect.TypeFor[json.Marshaler]()) || reflect.PointerTo(t).Implements(reflect.TypeFor[json.Marshaler]()):
		ti.leaf = true
	default:
		switch t.Kind() {
		case reflect.Struct:
			ti.fields = fields(t, nil, nil)
			ti.leaf = true
			for _, f := range ti.fields {
				if !j.info(t.FieldByIndex(f.index).Type).leaf {
					ti.leaf = false
				}
			}
		case reflect.Pointer:
			ti.leaf = j.info(t.Elem()).leaf
		case reflect.Array:
			ti.leaf = j.info(t.Elem()).leaf
		case reflect.Slice:
			ti.leaf = t.Elem().Kind() == reflect.Uint8 // base64
		case reflect.Map, reflect.Interface:
		default:
			ti.leaf = true
		}
	}
	ti.fast = ti.leaf && j.fastType(t)
	return ti
}

// fastType reports whether the writer encodes values of t itself: the
// rows of the report's tables, structs of integers, floats, booleans,
// strings, Marshalers whose method has a value receiver (stats.F6), and
// pointers to them.
func (j *jsonWriter) fastType(t reflect.Type) bool {
	m := reflect.TypeFor[json.Marshaler]()
	switch {
	case t.Kind() == reflect.Pointer:
		return j.fastType(t.Elem()) // nil is null, Marshaler or not
	case t.Implements(m):
		return true
	case reflect.PointerTo(t).Implements(m):
		return false // a method of the pointer: encoding/json's rules of addressability
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.String:
		return true
	case reflect.Pointer:
		return j.fastType(t.Elem())
	case reflect.Struct:
		for _, f := range j.info(t).fields {
			if !j.fastType(t.FieldByIndex(f.index).Type) {
				return false
			}
		}
		return true
	}
	return false
}

// fast writes v, of a fastType, at depth d as encoding/json does; it
// reports false, having written nothing, where encoding/json would fail
// or a Marshaler's text needs its rules (a float that is not finite, a
// Marshaler's text that is not a plain token).
func (j *jsonWriter) fast(v reflect.Value, d int) bool {
	n := len(j.buf)
	if !j.fastValue(v, d) {
		j.buf = j.buf[:n]
		return false
	}
	return true
}

func (j *jsonWriter) fastValue(v reflect.Value, d int) bool {
	t := v.Type()
	ti := j.info(t)
	if ti.f6 {
		// stats.F6.MarshalJSON, without its allocation.
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			j.buf = append(j.buf, "null"...)
		} else {
			j.buf = strconv.AppendFloat(j.buf, math.Round(f*1e6)/1e6, 'f', -1, 64)
		}
		return true
	}
	if ti.marshal {
		b, err := v.Interface().(json.Marshaler).MarshalJSON()
		if err != nil || !plainToken(b) {
			return false
		}
		j.buf = append(j.buf, b...)
		return true
	}
	switch t.Kind() {
	case reflect.Bool:
		j.buf = strconv.AppendBool(j.buf, v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		j.buf = strconv.AppendInt(j.buf, v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		j.buf = strconv.AppendUint(j.buf, v.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		return j.float(v.Float(), t.Bits())
	case reflect.String:
		j.str(v.String())
	case reflect.Pointer:
		if v.IsNil() {
			j.buf = append(j.buf, "null"...)
			return true
		}
		return j.fastValue(v.Elem(), d)
	case reflect.Struct:
		j.buf = append(j.buf, '{')
		k := 0
		fields := ti.fields
		for i := range fields {
			f := &fields[i]
			fv, err := v.FieldByIndexErr(f.index)
			if err != nil || f.omitEmpty && isEmpty(fv) {
				continue
			}
			if k > 0 {
				j.buf = append(j.buf, ',')
			}
			k++
			j.newline(d + 1)
			j.buf = append(j.buf, f.key...)
			if !j.fastValue(fv, d+1) {
				return false
			}
		}
		if k > 0 {
			j.newline(d)
		}
		j.buf = append(j.buf, '}')
	default:
		return false
	}
	return true
}

// plainToken reports whether b is a number, true, false or null as a
// Marshaler such as stats.F6 writes them: text encoding/json copies as is.
func plainToken(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || c == '.' || c == '-' || c == '+' || c == 'E') {
			return false
		}
	}
	return true
}

// float writes f as encoding/json does; it reports false for NaN and
// infinities, which encoding/json refuses.
func (j *jsonWriter) float(f float64, bits int) bool {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return false
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	j.buf = strconv.AppendFloat(j.buf, f, format, -1, bits)
	if format == 'e' {
		// Two-digit exponents as encoding/json writes them: e-07 as e-7.
		n := len(j.buf)
		if n >= 4 && j.buf[n-4] == 'e' && j.buf[n-3] == '-' && j.buf[n-2] == '0' {
			j.buf[n-2] = j.buf[n-1]
			j.buf = j.buf[:n-1]
		}
	}
	return true
}

// str writes s quoted as encoding/json does: ASCII directly, with its
// escapes of quotes, backslashes, control characters and HTML's <, > and
// &; strings with other bytes through encoding/json, which also escapes
// U+2028, U+2029 and bytes that are not UTF-8.
func (j *jsonWriter) str(s string) {
	for i := range len(s) {
		if s[i] >= utf8.RuneSelf {
			b, _ := json.Marshal(s)
			j.buf = append(j.buf, b...)
			return
		}
	}
	const hex = "0123456789abcdef"
	j.buf = append(j.buf, '"')
	start := 0
	for i := range len(s) {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
			continue
		}
		j.buf = append(j.buf, s[start:i]...)
		switch c {
		case '"', '\\':
			j.buf = append(j.buf, '\\', c)
		case '\b':
			j.buf = append(j.buf, '\\', 'b')
		case '\f':
			j.buf = append(j.buf, '\\', 'f')
		case '\n':
			j.buf = append(j.buf, '\\', 'n')
		case '\r':
			j.buf = append(j.buf, '\\', 'r')
		case '\t':
			j.buf = append(j.buf, '\\', 't')
		default: // other control characters, and HTML's <, > and &
			j.buf = append(j.buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	j.buf = append(j.buf, s[start:]...)
	j.buf = append(j.buf, '"')
}

// fields lists the fields of struct t as encoding/json writes them:
// exported ones under their tag's name, those of untagged embedded
// structs in their place. The report's types have no two fields of one
// name, which encoding/json would resolve by depth.
func fields(t reflect.Type, index []int, out []fieldInfo) []fieldInfo {
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		idx := append(append([]int(nil), index...), i)
		if sf.Anonymous && name == "" {
			ft := sf.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				out = fields(ft, idx, out)
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		kb, _ := json.Marshal(name)
		omit := false
		for o := range strings.SplitSeq(opts, ",") {
			omit = omit || o == "omitempty"
		}
		out = append(out, fieldInfo{key: string(kb) + ": ", index: idx, omitEmpty: omit})
	}
	return out
}

// isEmpty is encoding/json's test for omitempty.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

// isOrdered reports whether t is one of the report's types that marshal
// as objects of their own making, which writeJSON writes entry by entry.
func isOrdered(t reflect.Type) bool {
	switch t {
	case reflect.TypeFor[stats.Scoped[[]stats.Proc]](), reflect.TypeFor[stats.Scoped[[]stats.Group]](),
		reflect.TypeFor[stats.Scoped[stats.DrillTree]](), reflect.TypeFor[stats.Scoped[[]stats.HotStep]](),
		reflect.TypeFor[stats.Imbalances]():
		return true
	}
	return false
}

// imbalanceJSON is an entry of stats.Imbalances' object.
type imbalanceJSON struct {
	Excl stats.ImbalanceStat `json:"excl"`
	Incl stats.ImbalanceStat `json:"incl"`
}

// orderedObject returns the keys and values of the object v, one of the
// report's objects kept as lists (isOrdered), marshals as.
func orderedObject(v reflect.Value) ([]string, func(int) reflect.Value) {
	if imb, ok := v.Interface().(stats.Imbalances); ok {
		keys := make([]string, len(imb))
		for i := range imb {
			keys[i] = imb[i].Region
		}
		return keys, func(i int) reflect.Value {
			return reflect.ValueOf(&imbalanceJSON{imb[i].Excl, imb[i].Incl})
		}
	}
	// A stats.Scoped: a list of ScopeValue{Scope, Value}.
	keys := make([]string, v.Len())
	for i := range keys {
		keys[i] = v.Index(i).Field(0).String()
	}
	return keys, func(i int) reflect.Value { return v.Index(i).Field(1) }
}
