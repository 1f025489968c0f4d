package otf2

import (
	"bytes"
	"io"
	"maps"
	"slices"
	"testing/fstest"

	"pgregory.net/rapid"
)

// memCreator collects the files an ArchiveWriter creates.
type memCreator map[string]*memFile

type memFile struct {
	bytes.Buffer
	closed bool
}

func (f *memFile) Close() error { f.closed = true; return nil }

func (m memCreator) Create(name string) (io.WriteCloser, error) {
	f := &memFile{}
	m[name] = f
	return f, nil
}

func (m memCreator) fs() fstest.MapFS {
	out := fstest.MapFS{}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out[k] = &fstest.MapFile{Data: m[k].Bytes()}
	}
	return out
}

// genValue draws a value of wire type w as a reader returns it.
func genValue(t *rapid.T, w WireType, attr uint64, label string) uint64 {
	switch w {
	case wU8:
		return uint64(rapid.Uint8().Draw(t, label))
	case wI8:
		return uint64(int64(rapid.Int8().Draw(t, label)))
	case wU16:
		return uint64(rapid.Uint16().Draw(t, label))
	case wI16:
		return uint64(int64(rapid.Int16().Draw(t, label)))
	case wF32, wCU32:
		return uint64(rapid.Uint32().Draw(t, label))
	case wCI32:
		return uint64(int64(rapid.Int32().Draw(t, label)))
	case wAttr:
		return genValue(t, attrWire(Type(attr)), 0, label)
	}
	return rapid.Uint64().Draw(t, label)
}

func genFields(t *rapid.T, l *layout, set func(i int, v uint64), setElems func(i int, v []uint64)) {
	fs := l.fields
	for i := 0; i < len(fs); i++ {
		f := &fs[i]
		switch {
		case f.count:
			n := rapid.IntRange(0, 4).Draw(t, "n")
			group := fs[i+1 : i+1+f.group]
			vals := make([][]uint64, len(group))
			for j := range n {
				prev := uint64(0)
				for g := range group {
					var v uint64
					if group[g].wire == wU8 && g+1 < len(group) && group[g+1].wire == wAttr {
						v = uint64(rapid.IntRange(0, 30).Draw(t, "type"))
					} else {
						v = genValue(t, group[g].wire, prev, group[g].name)
					}
					vals[g] = append(vals[g], v)
					prev = v
					_ = j
				}
			}
			set(i, uint64(n))
			for g := range group {
				setElems(i+1+g, vals[g])
			}
			i += f.group
		case f.slot < 0:
		default:
			var v uint64
			if f.wire == wU8 && i+1 < len(fs) && fs[i+1].wire == wAttr {
				v = uint64(rapid.IntRange(0, 30).Draw(t, "type"))
			} else {
				prev := uint64(0)
				if i > 0 && fs[i-1].slot >= 0 {
					prev = 0
				}
				_ = prev
				v = genValue(t, f.wire, 0, f.name)
			}
			set(i, v)
		}
	}
}

// fixAttr re-draws attrvalue fields for the type before them.
func fixAttr(t *rapid.T, l *layout, get func(i int) uint64, set func(i int, v uint64)) {
	for i := range l.fields {
		if l.fields[i].wire == wAttr && !l.fields[i].elem && i > 0 {
			set(i, genValue(t, wAttr, get(i-1), "value"))
		}
	}
}

func genEvent(t *rapid.T, time uint64) *Event {
	var kinds []Kind
	for k := range 256 {
		if eventLayouts[k] != nil {
			kinds = append(kinds, Kind(k))
		}
	}
	k := rapid.SampledFrom(kinds).Draw(t, "kind")
	ev := NewEvent(k, time)
	genFields(t, eventLayouts[k], ev.SetValue, ev.SetElems)
	// element attrvalues (none in events) and counts are set; the reader
	// reports the array length as the count
	for i := range rapid.IntRange(0, 3).Draw(t, "attrs") {
		typ := Type(rapid.IntRange(0, 30).Draw(t, "atype"))
		v := genValue(t, attrWire(typ), 0, "avalue")
		id := uint32(rapid.Uint32().Draw(t, "aid"))
		ev.Attrs = append(ev.Attrs, Attribute{ID: id, RawID: id, Type: typ, Value: v, RawValue: v})
		_ = i
	}
	return ev
}

func genDef(t *rapid.T, kinds []DefKind) *Def {
	k := rapid.SampledFrom(kinds).Draw(t, "defkind")
	d := NewDef(k)
	l := defLayouts[k]
	genFields(t, l, d.SetValue, d.SetElems)
	fixAttr(t, l, d.Value, d.SetValue)
	// element attrvalues: IoParadigm values typed by the element types
	for i := range l.fields {
		if l.fields[i].elem && l.fields[i].wire == wAttr {
			types := d.Elems(i - 1)
			vals := make([]uint64, len(types))
			for j := range vals {
				vals[j] = genValue(t, wAttr, types[j], "ev")
			}
			d.SetElems(i, vals)
		}
	}
	if k == DefKindString {
		s := rapid.SliceOfN(rapid.ByteRange(1, 255), 0, 300).Draw(t, "text")
		d.SetBytes(s)
	}
	if k == DefKindMappingTable {
		var m IDMap
		m.Sparse = rapid.Bool().Draw(t, "sparse")
		n := rapid.IntRange(0, 5).Draw(t, "mapn")
		for i := range n {
			if m.Sparse {
				m.Pairs = append(m.Pairs, IDPair{uint64(i) * 3, rapid.Uint64().Draw(t, "g")})
			} else {
				m.Dense = append(m.Dense, rapid.Uint64().Draw(t, "g"))
			}
		}
		d.SetIDMap(m)
	}
	return d
}
