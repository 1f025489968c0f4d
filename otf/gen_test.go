package otf

import (
	"pgregory.net/rapid"
)

// kindsOf lists the record kinds a file of type f holds.
func kindsOf(f FileType) []Kind {
	var ks []Kind
	for k := KindUnknown + 1; k < numKinds; k++ {
		kf := k.File()
		if kf == f || f == FileEvents && kf == FileSnaps {
			ks = append(ks, k)
		}
	}
	return ks
}

var genString = rapid.Custom(func(t *rapid.T) []byte {
	b := rapid.SliceOfN(rapid.Byte(), 0, 12).Draw(t, "str")
	for i, c := range b {
		if c == '"' || c == '\n' {
			b[i] = 'q'
		}
	}
	return b
})

// genBody fills rec with a random body of kind k.
func genBody(t *rapid.T, rec *Record, k Kind) {
	rec.setKind(k)
	for i, f := range kindSpecs[k].fields {
		switch f.typ {
		case tU32:
			rec.num[f.slot] = uint64(rapid.Uint32().Draw(t, "u32"))
			if f.opt && rapid.Bool().Draw(t, "zero") {
				rec.num[f.slot] = 0
			}
		case tU64:
			rec.num[f.slot] = rapid.Uint64().Draw(t, "u64")
		case tStr:
			s := genString.Draw(t, "s")
			if f.opt && rapid.Bool().Draw(t, "nil") {
				s = nil
			}
			rec.str[f.slot] = s
		case tList:
			rec.list = rapid.SliceOfN(rapid.Uint32(), 1, 5).Draw(t, "list")
			if rapid.Bool().Draw(t, "empty") {
				rec.list = nil
			}
		case tVer:
			for n := range 3 {
				rec.num[int(f.slot)+n] = uint64(rapid.Uint8().Draw(t, "ver"))
			}
			rec.str[0] = genString.Draw(t, "vername")
		}
		_ = i
	}
}

var genKeyValues = rapid.Custom(func(t *rapid.T) []KeyValue {
	n := rapid.IntRange(0, 3).Draw(t, "nkv")
	if n == 0 {
		return nil
	}
	kvs := make([]KeyValue, n)
	for i := range kvs {
		kv := &kvs[i]
		kv.Key = uint32(i*7) + rapid.Uint32Range(0, 6).Draw(t, "key")
		kv.Type = ValueType(rapid.IntRange(0, int(TypeByteArray)).Draw(t, "type"))
		if kv.Type == TypeByteArray {
			kv.Bytes = rapid.SliceOfN(rapid.Byte(), 0, 260).Draw(t, "bytes")
			if kv.Bytes == nil {
				kv.Bytes = []byte{}
			}
			continue
		}
		kv.Value = rapid.Uint64().Draw(t, "value")
		if b := kv.Type.bits(); b < 64 {
			kv.Value &= 1<<b - 1
		}
	}
	return kvs
})

// genFile returns a random file type and a valid record sequence for it.
func genFile(t *rapid.T) (FileType, uint32, []*Record) {
	f := rapid.SampledFrom([]FileType{FileDef, FileEvents, FileSnaps, FileStats, FileMarker}).Draw(t, "file")
	stream := rapid.Uint32Range(0, 300).Draw(t, "stream")
	kinds := kindsOf(f)
	n := rapid.IntRange(0, 30).Draw(t, "n")
	var now uint64
	recs := make([]*Record, n)
	for i := range recs {
		rec := &Record{}
		genBody(t, rec, rapid.SampledFrom(kinds).Draw(t, "kind"))
		rec.Stream = stream
		rec.kvs = genKeyValues.Draw(t, "kvs")
		switch f {
		case FileEvents, FileSnaps, FileStats:
			if rapid.Bool().Draw(t, "advance") {
				now += rapid.Uint64Range(0, 1<<40).Draw(t, "dt")
			}
			rec.Time = now
			rec.Process = rapid.Uint32Range(0, 5).Draw(t, "proc")
		case FileMarker:
			if rec.Kind == KindMarkerSpot {
				rec.Time, rec.Process = rec.num[1], uint32(rec.num[2])
			}
		}
		recs[i] = rec
	}
	return f, stream, recs
}
