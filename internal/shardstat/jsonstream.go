package shardstat

import (
	"encoding/json"
	"io"
	"reflect"
	"strings"

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
}

// typeInfo is what the writer knows of a type.
type typeInfo struct {
	leaf   bool        // marshalled as one piece by encoding/json
	fields []fieldInfo // a struct's fields in encoding/json's order
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
	if keys, vals, ok := orderedObject(v); ok {
		j.object(keys, vals, d)
		return
	}
	t := v.Type()
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
	if ti, ok := j.types[t]; ok {
		return ti
	}
	ti := &typeInfo{}
	j.types[t] = ti // a type that holds itself is not a leaf
	switch {
	case isOrdered(t):
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
	return ti
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

// orderedObject returns the keys and values of the object v marshals as,
// if v is one of the report's objects kept as lists.
func orderedObject(v reflect.Value) ([]string, func(int) reflect.Value, bool) {
	if !isOrdered(v.Type()) {
		return nil, nil, false
	}
	if imb, ok := v.Interface().(stats.Imbalances); ok {
		keys := make([]string, len(imb))
		for i := range imb {
			keys[i] = imb[i].Region
		}
		return keys, func(i int) reflect.Value {
			return reflect.ValueOf(&imbalanceJSON{imb[i].Excl, imb[i].Incl})
		}, true
	}
	// A stats.Scoped: a list of ScopeValue{Scope, Value}.
	keys := make([]string, v.Len())
	for i := range keys {
		keys[i] = v.Index(i).Field(0).String()
	}
	return keys, func(i int) reflect.Value { return v.Index(i).Field(1) }, true
}
