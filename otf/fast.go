package otf

import "encoding/binary"

// The fast paths of Reader. Next first tries fastNext, which reads the
// common shape of an events, snapshot or statistics file (state lines,
// then a short-format record of numbers only) in one pass over the
// buffer; past it, the general path (next) still tries fastState for runs
// of plain state lines and fastFields for a record of numbers before the
// general field parser. Each returns false, having consumed nothing it
// could not account for, on anything it does not handle, and the general
// path takes over. A Reader whose general field is set takes none of
// them: TestFastPath and FuzzFastPath read the same input both ways and
// require the same records, positions and errors.

// generalOnly makes r take the general path alone, for tests.
func (r *Reader) generalOnly() {
	r.general = true
	r.fast = false
}

// fastState consumes plain time and process lines ("1a2b\n", "*3\n") at
// the buffer position without the general line scan: one line with
// ReaderOptions.StateRecords, else as many as follow each other. It
// returns false, consuming nothing, when the next line is anything else
// (including blanks, which the slow path handles).
func (r *Reader) fastState() bool {
	b := r.buf[:r.end]
	pos := r.start
	any := false
	for pos+1 < len(b) {
		i := pos
		star := b[i] == '*'
		if star {
			i++
		}
		v, e := hexRun(b, uint(i))
		j := int(e)
		n := j - i
		if n == 0 || j == len(b) || b[j] != '\n' || n > 16 || star && n > 8 {
			break
		}
		off := r.base + int64(pos)
		pos = j + 1
		r.line++
		any = true
		k := KindTime
		if star {
			r.proc = uint32(v)
			k = KindProcess
		} else {
			r.time = v
		}
		if r.opts.StateRecords {
			r.setState(k, off)
			break
		}
	}
	r.start = pos
	return any
}

// fastFields parses the common case of a short-format record whose fields
// are all numbers, with no blanks. It reports false, leaving rec for the
// general parser, on anything unusual.
func (r *Reader) fastFields(line []byte, i int, rec *Record) bool {
	sp := &kindSpecs[rec.Kind]
	if !sp.numeric {
		return false
	}
	for fi := range sp.fields {
		f := &sp.fields[fi]
		if i == len(line) {
			if f.opt && sp.optTail <= fi {
				return true
			}
			return false
		}
		if fi > 0 {
			k := f.kws[0]
			if len(line)-i <= len(k) || line[i] != k[0] || len(k) > 1 && string(line[i:i+len(k)]) != k {
				if f.opt && !isUpper(line[i]) {
					return false
				}
				if f.opt {
					continue
				}
				return false
			}
			i += len(k)
		}
		v, e := hexRun(line, uint(i))
		j := int(e)
		n := j - i
		if n == 0 {
			if fi == 0 && f.opt {
				continue
			}
			return false
		}
		if n > 8 && (f.typ == tU32 || n > 16) {
			return false
		}
		rec.num[f.slot] = v
		i = j
	}
	return i == len(line)
}

// A fastSpec is the compact form of a numeric kind's fields for fastNext:
// flat arrays instead of the slices and strings of kindSpec.
type fastSpec struct {
	n       uint8 // fields; 0 when the kind is not for the fast path
	optTail uint8
	opt0    bool // the first field is optional
	f       [numSlots]fastField
}

// A fastField is one field of a fastSpec, packed so that the field loop
// reads it with one index.
type fastField struct {
	kw0, kw1 byte  // short keyword of a field i > 0; kw1 == 0 for one letter
	slot     uint8 // always below numSlots
	digits   uint8 // most hex digits: 8 or 16
	opt      bool
}

// The field loop masks a slot with numSlots-1 to drop its bounds check.
var _ = [1]struct{}{}[numSlots&(numSlots-1)]

var fastSpecs = func() (t [numKinds]fastSpec) {
	for k := range t {
		sp := &kindSpecs[k]
		if !sp.numeric || len(sp.fields) > numSlots {
			continue
		}
		fs := &t[k]
		ok := true
		for i, f := range sp.fields {
			ff := &fs.f[i]
			if i > 0 {
				kw := f.kws[0]
				if len(kw) > 2 {
					ok = false
					break
				}
				ff.kw0 = kw[0]
				if len(kw) == 2 {
					ff.kw1 = kw[1]
				}
			}
			ff.slot = uint8(f.slot)
			ff.digits = 8
			if f.typ == tU64 {
				ff.digits = 16
			}
			ff.opt = f.opt
		}
		if !ok {
			continue
		}
		fs.n = uint8(len(sp.fields))
		fs.optTail = uint8(sp.optTail)
		fs.opt0 = sp.fields[0].opt
	}
	return t
}()

// fastNext reads the common shape of an events, snapshot or statistics
// file in one pass over the buffer: any state lines, then a short-format
// record whose fields are all numbers, each line ending in LF, no blanks,
// no key-values. It returns false when anything else comes (or the
// buffer ends first), having consumed only the state lines before it;
// Next then takes the general path, which parses the rest.
func (r *Reader) fastNext() bool {
	// Unsigned indices let the compiler drop most bounds checks. The
	// state lines move pos and line, which are stored at the first
	// record line or when the buffer ends; r.start and r.line are
	// then those of the first line not consumed.
	b := r.data
	pos := uint(r.start)
	line := r.line
	var c byte
	for {
		if pos >= uint(len(b)) {
			r.start, r.line = int(pos), line
			return false
		}
		c = b[pos]
		if c-'A' < 26 {
			break // the record line
		}
		var v uint64
		j := pos + 1
		if c == '*' {
			// A process line: *<hex>, most often of one digit.
			if j+1 < uint(len(b)) && b[j+1] == '\n' {
				d := hexVal[b[j]]
				if d > 15 {
					break
				}
				r.proc = uint32(d)
				line++
				pos = j + 2
				continue
			}
			v, j = hexRun(b, j)
			if j >= uint(len(b)) || b[j] != '\n' || j-pos-2 >= 8 {
				break
			}
			r.proc = uint32(v)
			line++
			pos = j + 1
			continue
		}
		// A time line: <hex>.
		d := hexVal[c]
		if d > 15 {
			break
		}
		v = uint64(d)
		if pos+32 <= uint(len(b)) {
			// The time line and the process line after it, written
			// out over a window of the buffer, with no bounds checks:
			// a load, a lookup, a test and a shift per digit. (A call
			// would make the caller spill its registers.)
			p := (*[32]byte)(b[pos : pos+32])
			var k uint // the length of the time
			if d = hexVal[p[1]]; d > 15 {
				k = 1
				goto window
			}
			v = v<<4 | uint64(d)
			if d = hexVal[p[2]]; d > 15 {
				k = 2
				goto window
			}
			v = v<<4 | uint64(d)
			if d = hexVal[p[3]]; d > 15 {
				k = 3
				goto window
			}
			v = v<<4 | uint64(d)
			if d = hexVal[p[4]]; d > 15 {
				k = 4
				goto window
			}
			v = v<<4 | uint64(d)
			if d = hexVal[p[5]]; d > 15 {
				k = 5
				goto window
			}
			v = v<<4 | uint64(d)
			if d = hexVal[p[6]]; d > 15 {
				k = 6
				goto window
			}
			v = v<<4 | uint64(d)
			if d = hexVal[p[7]]; d > 15 {
				k = 7
				goto window
			}
			v = v<<4 | uint64(d)
			if d = hexVal[p[8]]; d > 15 {
				k = 8
				goto window
			}
			v = v<<4 | uint64(d)
			if d = hexVal[p[9]]; d > 15 {
				k = 9
				goto window
			}
			v = v<<4 | uint64(d)
			if d = hexVal[p[10]]; d > 15 {
				k = 10
				goto window
			}
			v = v<<4 | uint64(d)
			if d = hexVal[p[11]]; d > 15 {
				k = 11
				goto window
			}
			v = v<<4 | uint64(d)
			if d = hexVal[p[12]]; d > 15 {
				k = 12
				goto window
			}
			v = v<<4 | uint64(d)
			if d = hexVal[p[13]]; d > 15 {
				k = 13
				goto window
			}
			v = v<<4 | uint64(d)
			if d = hexVal[p[14]]; d > 15 {
				k = 14
				goto window
			}
			v = v<<4 | uint64(d)
			if d = hexVal[p[15]]; d > 15 {
				k = 15
				goto window
			}
			v = v<<4 | uint64(d)
			k = 16 // p[16] must be the LF
		window:
			if k < 16 {
				// The LF and a process line of one digit after it,
				// "\n*d\n", tested with one load.
				if u := binary.LittleEndian.Uint32(p[k : k+4]); u&0xff00ffff == '\n'|'*'<<8|'\n'<<24 {
					if d := hexVal[byte(u>>16)]; d <= 15 {
						r.time = v
						r.proc = uint32(d)
						line += 2
						pos += k + 4
						continue
					}
				}
			}
			if p[k&31] != '\n' {
				break
			}
			r.time = v
			line++
			pos += k + 1
			continue
		}
		for ; j < uint(len(b)); j++ {
			d := hexVal[b[j]]
			if d > 15 {
				break
			}
			v = v<<4 | uint64(d)
		}
		if j >= uint(len(b)) || b[j] != '\n' || j-pos > 16 {
			break
		}
		r.time = v
		line++
		pos = j + 1
		// The process line of one digit that most often follows.
		if pos+2 < uint(len(b)) && b[pos] == '*' && b[pos+2] == '\n' {
			if d := hexVal[b[pos+1]]; d <= 15 {
				r.proc = uint32(d)
				line++
				pos += 3
			}
		}
	}
	r.start, r.line = int(pos), line
	if c-'A' >= 26 {
		return false
	}
	// The record line: its keyword, then the fields.
	i := pos + 1
	for i < uint(len(b)) && b[i]-'A' < 26 {
		i++
	}
	var k Kind
	switch {
	case i-pos == 1:
		if r.class != classEvents {
			return false
		}
		k = eventsShort1[c]
	case c == 'K':
		return false
	default:
		switch r.class {
		case classEvents:
			k = lookupEvents(b[pos:i])
		case classSnaps:
			k = lookupSnaps(b[pos:i])
		case classStats:
			k = lookupStats(b[pos:i])
		}
	}
	fs := &fastSpecs[k]
	if fs.n == 0 {
		return false
	}
	// The kind, the line and the offset are stored now (r.start and
	// r.line are those of the record line): none of them stays live in a
	// register through the field loop, which would spill others. A
	// record left half-written here is rewritten by the general path.
	rec := &r.rec
	rec.Kind = k
	rec.num = [numSlots]uint64{}
	// Field 0 has no keyword and may be missing when optional.
	v, e := hexRun(b, i)
	f := &fs.f[0]
	if n := e - i; n != 0 {
		if n > uint(f.digits) {
			return false
		}
		rec.num[f.slot&(numSlots-1)] = v
		i = e
	} else if !fs.opt0 && fs.optTail > 0 {
		return false
	}
	// Fields 1 and up: a keyword of one or two letters, then hex digits.
	// A line that ends after field 0 of a kind whose other fields are
	// optional (an enter or a leave without a source, the most common
	// records) skips the loop and the test of the line's end after it.
	if i >= uint(len(b)) {
		return false
	}
	if b[i] != '\n' || fs.optTail > 1 {
		n := uint(fs.n)
		for fi := uint(1); fi < n; fi++ {
			f := &fs.f[fi&(numSlots-1)]
			if i+1 >= uint(len(b)) {
				return false
			}
			if c := b[i]; c != f.kw0 || f.kw1 != 0 && b[i+1] != f.kw1 {
				if c == '\n' && fi >= uint(fs.optTail) {
					break
				}
				if f.opt && c-'A' < 26 {
					continue
				}
				return false
			}
			i++
			if f.kw1 != 0 {
				i++
			}
			v, e := hexRun(b, i)
			if n := e - i; n-1 >= uint(f.digits) {
				return false // no digit, or too many
			}
			rec.num[f.slot&(numSlots-1)] = v
			i = e
		}
		if i >= uint(len(b)) || b[i] != '\n' {
			return false
		}
	}
	// Commit.
	if r.dirty {
		rec.str = [strSlots][]byte{}
		rec.list = nil
		rec.raw = nil
		rec.kvs = nil
		r.dirty = false
	}
	rec.Stream = r.opts.Stream
	rec.Time, rec.Process = r.time, r.proc
	rec.Offset = r.base + int64(r.start)
	r.line++
	rec.Line = r.line
	r.nrec++
	r.start = int(i) + 1
	return true
}
