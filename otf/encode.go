package otf

import "strconv"

const hexDigits = "0123456789abcdef"

func appendHex(b []byte, v uint64) []byte {
	if v < 16 {
		return append(b, hexDigits[v])
	}
	var tmp [16]byte
	i := len(tmp)
	for v > 0 {
		i--
		tmp[i] = hexDigits[v&15]
		v >>= 4
	}
	return append(b, tmp[i:]...)
}

// appendString writes s in quotes, mapping '"' and LF to blanks as the
// reference writer does.
func appendString(b []byte, s []byte) []byte {
	b = append(b, '"')
	for _, c := range s {
		if c == '"' || c == '\n' {
			c = ' '
		}
		b = append(b, c)
	}
	return append(b, '"')
}

// fieldZero reports whether an optional field holds its "absent" value.
func fieldZero(r *Record, f *fieldSpec) bool {
	switch f.typ {
	case tStr:
		return r.str[f.slot] == nil
	case tList:
		return len(r.list) == 0
	default:
		return r.num[f.slot] == 0
	}
}

// appendBody writes the record line of r without its line terminator.
func appendBody(b []byte, r *Record, long bool) []byte {
	if r.Kind == KindUnknown || r.Kind >= numKinds {
		return append(b, r.raw...)
	}
	sp := &kindSpecs[r.Kind]
	if long && sp.long != "" {
		b = append(b, sp.long...)
	} else {
		b = append(b, sp.short...)
	}
	last := -1
	for i := range sp.fields {
		f := &sp.fields[i]
		if !f.opt || !fieldZero(r, f) {
			last = i
		}
	}
	if last < 0 {
		if long {
			b = append(b, ' ')
		}
		return b
	}
	for i := 0; i <= last; i++ {
		f := &sp.fields[i]
		if f.opt && f.typ == tStr && r.str[f.slot] == nil {
			continue
		}
		if f.kws == nil {
			if long {
				b = append(b, ' ')
			}
		} else if long {
			b = append(b, ' ')
			b = append(b, f.kws[1]...)
			b = append(b, ' ')
		} else {
			b = append(b, f.kws[0]...)
		}
		switch f.typ {
		case tU32, tU64:
			b = appendHex(b, r.num[f.slot])
		case tStr:
			b = appendString(b, r.str[f.slot])
		case tList:
			for _, v := range r.list {
				b = appendHex(b, uint64(v))
				b = append(b, ',')
			}
		case tVer:
			b = appendHex(b, r.num[f.slot]&0xff)
			b = append(b, '.')
			b = appendHex(b, r.num[f.slot+1]&0xff)
			b = append(b, '.')
			b = appendHex(b, r.num[f.slot+2]&0xff)
			b = appendString(b, r.str[0])
		}
	}
	return b
}

// maxPiece is the largest byte-array piece the reference writer puts on
// one key-value line.
const maxPiece = 100

// appendKeyValue writes the key-value line(s) of kv, each terminated by
// LF except the last; byte arrays longer than 100 bytes become several
// pieces.
func appendKeyValue(b []byte, kv *KeyValue, long bool) []byte {
	if kv.Type != TypeByteArray {
		b = appendKVHead(b, kv, long)
		v := kv.Value
		if n := kv.Type.bits(); n > 0 && n < 64 {
			v &= 1<<n - 1
		}
		return appendHex(b, v)
	}
	rest := kv.Bytes
	for {
		b = appendKVHead(b, kv, long)
		n := min(len(rest), maxPiece)
		for _, c := range rest[:n] {
			b = append(b, hexDigits[c>>4], hexDigits[c&15])
		}
		if long {
			b = append(b, "LEN"...)
		} else {
			b = append(b, 'L')
		}
		b = appendHex(b, uint64(len(rest)))
		rest = rest[n:]
		if len(rest) == 0 {
			return b
		}
		b = append(b, '\n')
	}
}

func appendKVHead(b []byte, kv *KeyValue, long bool) []byte {
	if long {
		b = append(b, "KEY "...)
		b = appendHex(b, uint64(kv.Key))
		b = append(b, " TYPE "...)
		b = appendHex(b, uint64(kv.Type))
		return append(b, " VALUE "...)
	}
	b = append(b, 'K')
	b = appendHex(b, uint64(kv.Key))
	b = append(b, 'Y')
	b = appendHex(b, uint64(kv.Type))
	return append(b, 'V')
}

// checkRecord reports a record the format cannot encode.
func checkRecord(r *Record) (string, bool) {
	if r.Kind >= numKinds {
		return "Kind", false
	}
	if r.Kind == KindUnknown {
		for _, c := range r.raw {
			if c == '\n' {
				return "Unknown", false
			}
		}
		return "", true
	}
	sp := &kindSpecs[r.Kind]
	for i := range sp.fields {
		f := &sp.fields[i]
		if f.typ == tU32 && r.num[f.slot] > 0xffffffff {
			return "field " + strconv.Itoa(i), false
		}
	}
	for i := range r.kvs {
		if int(r.kvs[i].Type) >= len(valueTypeNames) {
			return "KeyValues[" + strconv.Itoa(i) + "].Type", false
		}
	}
	return "", true
}
