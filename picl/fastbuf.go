package picl

import (
	"encoding/binary"
	"math/bits"
)

// The buffer path: the first of the reader's three tiers. It reads a line
// in the plainest form a trace takes (the form the Writer produces) straight
// from the scanner's buffer, finding the line feed as a by-product of
// reading the last token, so that a line is walked once:
//
//   - fields separated by exactly one space, the line ended by a bare LF;
//   - integers of an optional '-' and 1 to 7 digits; floats of an optional
//     '-', 1 to 7 digits and optionally a '.' and 1 to 7 more;
//   - a decoded control string that is not %c, at most as many values as
//     the reader's value buffer already holds, unquoted string values;
//   - a record that does not change the scope (not a -6 or a subset).
//
// A token is read from the 8 bytes at its start, loaded as one uint64: one-
// and two-digit numbers, the most common, a byte at a time, longer ones
// with SWAR (the bytes of the uint64 tested and converted together); a
// timestamp of one or two digits and six decimals, as writers print it, in
// one piece. Two caches (fieldCache) skip the record and event type and
// the processor, process and count when the bytes that decide them were
// seen before.
// Anything else, including a line that starts fewer than winSize bytes
// before the end of the buffered bytes or whose tokens reach past
// winLimit, makes the buffer path give up without consuming anything;
// nextLine then scans the line and hands it to the line path (fast.go)
// and, failing that, to the general parser. Both accept every line the
// buffer path accepts and decode it the same way, which FuzzBufLine
// checks.

// Next advances to the next record, skipping blank lines. It returns false
// at the end of the input or on an error; call [Reader.Err] to tell which.
func (r *Reader) Next() bool {
	// Next's body is the buffer path, so that a plain line costs no call:
	// it decodes the next line from the scanner's buffered bytes (r.win)
	// into r.rec and r.ctl and consumes it, or, when the line needs
	// another path, leaves it to nextLine, having consumed nothing (though
	// r.rec, r.ctl and r.data may hold partial results). It has nothing
	// to read once Next has failed or ended (r.win is nil), and it leaves
	// the records that change the scope (definesScope) to nextLine, so
	// that it need not test what it read.
	p := r.off
	if p > len(r.win)-winSize {
		return r.nextLine()
	}
	w := (*window)(r.win[p : p+winSize])
	rec := &r.rec

	// The six fixed fields: integers but for the timestamp. Two caches
	// skip the integer tokens of most lines; only a miss reads them, one
	// wordInt call each.
	var (
		x    uint64
		u    uint64
		n    uint
		neg  bool
		i, j uint
		c    byte
	)
	// Record and event type, through a cache like the processor's.
	if e, ok := r.fields.types.find(w64(w, 0)); ok {
		rec.Type, rec.Event = RecordType(e.a), EventType(e.b)
		j = e.n()
		i = j + 1
	} else {
		var typ, ev int64
		if typ, j, c = wordInt(w, i); c != ' ' {
			return r.nextLine()
		}
		if ev, j, c = wordInt(w, j+1); c != ' ' {
			return r.nextLine()
		}
		i = j + 1
		if definesScope(RecordType(typ)) {
			return r.nextLine() // never cached, so a hit needs no test
		}
		rec.Type, rec.Event = RecordType(typ), EventType(ev)
		if j < 8 {
			*e = newFieldEntry(w64(w, 0), int32(typ), int32(ev), 0, j, ' ')
		}
	}
	// The timestamp: digits, and usually a '.' and digits; most often one
	// or two digits and six decimals, read without a digit loop.
	x = binary.LittleEndian.Uint64(w[i&wmask:])
	// The two fixed fields before it end within 20 bytes of the line's
	// start, so the short forms end well within winLimit.
	if y := x ^ timeForm1; (y|(y+0x0606060606060606))&0xf0f0f0f0f0f0f0f0|y&0xff00 == 0 && w[(i+8)&wmask] == ' ' {
		// One digit and six decimals. y holds each digit's value and a
		// 0 for the '.': every byte of it is below 10 (its high nibble,
		// and that of the byte plus 6, are 0) and the second is 0. The
		// '.' is dropped and the seven digits read.
		rec.Time = float64(int64(digitsValue(y&0xff|y>>8&^0xff, 7))) / 1e6
		rec.TimeText = w.token(i, 8)
		j = i + 8
	} else if d := w[(i+8)&wmask] - '0'; nonDigits(x) == 0x800000 && byte(x>>16) == '.' && d <= 9 && w[(i+9)&wmask] == ' ' {
		// Two digits and six decimals: the seven digits x holds
		// without its '.', and the last one.
		rec.Time = float64(int64(digitsValue(x&0xffff|x>>8&^0xffff, 7)*10+uint64(d))) / 1e6
		rec.TimeText = w.token(i, 9)
		j = i + 9
	} else {
		var f float64
		if neg = byte(x) == '-'; neg {
			x >>= 8
		}
		if u, n = shortDigits(x); n > 2 {
			u, n = longDigits(x)
		}
		if n == 0 || n > 7 {
			return r.nextLine()
		}
		if neg {
			n++ // the token's length
		}
		j, c = i+n, w[(i+n)&wmask]
		f = float64(int64(u))
		if c == '.' {
			y := binary.LittleEndian.Uint64(w[(j+1)&wmask:])
			e := digitRun(y)
			if uint(e-1) >= 7 {
				return r.nextLine()
			}
			u = u*pow10u[e] + digitsValue(y, e)
			f = float64(int64(u)) / pow10f[e]
			if e == 6 {
				// Six decimals, as PICL writers print them: a constant
				// length lets the processor run ahead to the next field.
				j += 7
				c = byte(y >> 48)
			} else {
				j += 1 + e
				c = byte(y >> (8 * e & 63))
			}
		}
		if neg {
			f = -f
		}
		if c != ' ' || j > winLimit {
			return r.nextLine()
		}
		rec.Time, rec.TimeText = f, w[i:j:j]
	}
	i = j + 1
	// Processor, process and count: their first 8 bytes usually decide
	// them, and recur, so a small cache keyed by those bytes skips the
	// three tokens (see fieldCache).
	var count int64
	g := i
	x = binary.LittleEndian.Uint64(w[g&wmask:])
	if e, ok := r.fields.procs.find(x); ok {
		rec.Processor, rec.Process = e.a, e.b
		count, j, c = int64(e.c()), g+e.n(), e.term()
	} else {
		var proc, process int64
		if proc, j, c = wordInt(w, i); c != ' ' {
			return r.nextLine()
		}
		if process, j, c = wordInt(w, j+1); c != ' ' {
			return r.nextLine()
		}
		if count, j, c = wordInt(w, j+1); c == 0 || count < 0 {
			return r.nextLine()
		}
		rec.Processor, rec.Process = int32(proc), int32(process)
		if j-g < 8 {
			*e = newFieldEntry(w64(w, g), int32(proc), int32(process), int32(count), j-g, c)
		}
	}
	rec.Count = int(count)
	if r.extra {
		rec.Chars, rec.Raw, rec.Flags = nil, nil, 0
		r.extra = false
	}
	if count == 0 {
		if c != '\n' || j > r.bufMax {
			return r.nextLine()
		}
		rec.Descriptor, rec.Control, rec.Data = "", "", nil
		r.ctl = nil
		r.consume(j)
		return true
	}
	if c != ' ' {
		return r.nextLine()
	}

	// Descriptor: an alias or a quoted control string.
	var ctl *control
	i = j + 1
	if d0 := w[i&wmask] - '0'; d0 <= 9 && w[(i+1)&wmask] == ' ' {
		// A one-digit alias, the usual case.
		j, c = i+1, ' '
		rec.Descriptor = aliasText[d0]
		if r.scope.aliases == nil {
			if ctl = bufPredefined[d0]; ctl == nil {
				return r.nextLine()
			}
		} else if ctl = r.scope.resolve(int64(d0), rec.Event, rec.Processor, rec.Process); !bufReadable(ctl) {
			return r.nextLine()
		}
	} else if w[i&wmask] == '"' {
		j = i + 1
		for j < winLimit && w[j] != '"' && w[j] != '\n' {
			j++
		}
		if j >= winLimit || w[j] != '"' {
			return r.nextLine()
		}
		j++
		q := r.cache.quotedControl(w[i:j])
		if rec.Descriptor, ctl = q.token, q.ctl; !bufReadable(ctl) {
			return r.nextLine()
		}
		c = w[j&wmask]
	} else {
		var v int64
		if v, j, c = wordInt(w, i); v < 0 || c == 0 || j > winLimit || w[i&wmask] == '-' {
			return r.nextLine()
		}
		u := uint64(v)
		if u < uint64(len(aliasText)) && (w[i&wmask] != '0' || j == i+1) {
			rec.Descriptor = aliasText[u] // the canonical token
		} else {
			rec.Descriptor = r.cache.aliasToken(w[i:j], int64(u))
		}
		if r.scope.aliases == nil && u < uint64(len(predefined)) {
			ctl = predefined[u]
		} else {
			ctl = r.scope.resolve(int64(u), rec.Event, rec.Processor, rec.Process)
		}
		if !bufReadable(ctl) {
			return r.nextLine()
		}
	}
	rec.Control = ctl.text

	// Data: Count repetitions of the conversions, each value after one
	// space, the last one before the line feed.
	convs := ctl.convs
	want := rec.Count * len(convs)
	if want > cap(r.data) {
		return r.nextLine() // the line path grows the buffer, bounded by the line's length
	}
	data := r.data[:want]
	// Set now, so that the loops below need not keep them; a line left to
	// nextLine has them cleared there.
	rec.Data, r.ctl = data, ctl
	if ctl.ints {
		// Integers only: the same token code without the dispatch.
		for k := range data {
			if c != ' ' {
				return r.nextLine()
			}
			i = j + 1
			d := &data[k]
			// shortDigits written out, its length tests folded into
			// the digit tests; a '-' or a long number out of line.
			// The text of a short number is sliced with its length
			// known (i <= winLimit+1 keeps it within the window).
			x := binary.LittleEndian.Uint64(w[i&wmask:])
			if d0 := byte(x) - '0'; d0 > 9 {
				var v int64
				if v, j, c = wordInt(w, i); c == 0 || j > winLimit {
					return r.nextLine()
				}
				d.Int, d.Text = v, w.token(i, j-i)
			} else if d1 := byte(x>>8) - '0'; d1 > 9 {
				d.Int, d.Text, j, c = int64(d0), w.token(i, 1), i+1, byte(x>>8)
			} else if c = byte(x >> 16); c-'0' > 9 {
				d.Int, d.Text, j = int64(d0)*10+int64(d1), w.token(i, 2), i+2
			} else {
				// Inline: a call would make the loop keep its
				// variables on the stack. Eight digits leave c a
				// digit, and the line to the other paths. Past
				// winLimit, the masked indexes read wrong bytes,
				// but the end's test rejects the line.
				n := digitRun(x)
				j, c = i+n, byte(x>>(8*n&63))
				d.Int, d.Text = int64(digitsValue(x, n)), w.token(i, n)
			}
			d.Kind, d.Float, d.Quoted = KindInt, 0, false
		}
		if c != '\n' || j > r.bufMax {
			return r.nextLine()
		}
		r.consume(j)
		return true
	}
	ci := 0 // the conversion of value k
	for k := range data {
		if c != ' ' {
			return r.nextLine()
		}
		i = j + 1
		d := &data[k] // set field by field: cheaper than a composite literal
		switch convs[ci] {
		case convInt:
			x := binary.LittleEndian.Uint64(w[i&wmask:])
			neg := byte(x) == '-'
			if neg {
				x >>= 8
			}
			u, n := shortDigits(x)
			if n > 2 {
				u, n = longDigits(x)
			}
			if n == 0 {
				return r.nextLine()
			}
			if neg {
				n++
				d.Int = -int64(u)
			} else {
				d.Int = int64(u)
			}
			if j = i + n; j > winLimit {
				return r.nextLine()
			}
			c = w[j&wmask]
			d.Kind, d.Float, d.Text, d.Quoted = KindInt, 0, w.token(i, j-i), false
		case convFloat:
			var f float64
			if f, j, c = floatAt(w, i); j > winLimit {
				return r.nextLine()
			}
			d.Kind, d.Int, d.Float, d.Text, d.Quoted = KindFloat, 0, f, w[i:j:j], false
		case convString:
			j = i
			for j < winLimit && w[j] > ' ' {
				j++
			}
			if j >= winLimit || j == i || w[i] == '"' {
				return r.nextLine()
			}
			c = w[j]
			d.Kind, d.Int, d.Float, d.Text, d.Quoted = KindString, 0, 0, w[i:j:j], false
		default:
			return r.nextLine()
		}
		if ci++; ci == len(convs) {
			ci = 0
		}
	}
	if c != '\n' || j > r.bufMax {
		return r.nextLine()
	}
	r.consume(j)
	return true
}

// consume ends a record the buffer path read from the line at r.win[r.off:],
// whose line feed is j bytes on.
func (r *Reader) consume(j uint) {
	r.winLast = r.off
	r.off += int(j) + 1
	r.n++
}

// bufPredefined holds, for each one-digit alias, the predefined control
// string it resolves to when no alias is defined, or nil when the buffer
// path cannot read its values (%c, or no such alias).
var bufPredefined = func() (t [10]*control) {
	for d, ctl := range predefined {
		if bufReadable(ctl) {
			t[d] = ctl
		}
	}
	return t
}()

// bufReadable reports whether the buffer path reads the values of ctl.
func bufReadable(ctl *control) bool { return ctl != nil && !ctl.undecoded && !ctl.chars }

// The buffer path reads a line through a fixed-size window of the buffer,
// indexed modulo winLimit so that the compiler can drop the bounds checks.
// A line whose tokens reach past winLimit is left to the line path (the
// masked indexes may then have read the wrong bytes, but only into values
// that are dropped), and an 8-byte load at a float's fraction ends within
// winSize.
const (
	winLimit = 128
	wmask    = winLimit - 1
	winSize  = winLimit + 16
)

type window [winSize]byte

// token returns the n bytes at i, for i < winLimit and n < 16: the masks
// let the compiler drop the bounds checks.
func (w *window) token(i, n uint) []byte {
	i, n = i&wmask, n&15
	return w[i : i+n : i+n]
}

// shortDigits reads one- and two-digit numbers, the most common tokens,
// at the start of the 8 bytes x holds (the first byte lowest), a byte at a
// time. It returns their value and number of digits, 0 if there is no
// digit, or 3 for three digits or more, which the caller reads with
// longDigits. A caller that finds a digit as the byte after the digits
// rejects the token.
func shortDigits(x uint64) (uint64, uint) {
	d0 := byte(x) - '0'
	if d0 > 9 {
		return 0, 0
	}
	d1 := byte(x>>8) - '0'
	if d1 > 9 {
		return uint64(d0), 1
	}
	if byte(x>>16)-'0' > 9 {
		return uint64(d0)*10 + uint64(d1), 2
	}
	return 0, 3
}

// longDigits reads the 1 to 8 digits at the start of x, 8 bytes at a time.
// It is kept out of line so that the short tokens' code does not load its
// constants.
//
//go:noinline
func longDigits(x uint64) (uint64, uint) {
	n := digitRun(x)
	return digitsValue(x, n), n
}

// wordInt reads an integer token at w[i]: an optional '-' and 1 to 7
// digits. It returns the value, the index after the token and the byte
// there, which is never a separator when the token is not such an integer.
func wordInt(w *window, i uint) (int64, uint, byte) {
	x := binary.LittleEndian.Uint64(w[i&wmask:])
	neg := byte(x) == '-'
	if neg {
		x >>= 8
		i++
	}
	u, n := shortDigits(x)
	if n > 2 {
		u, n = longDigits(x)
	}
	c := byte(x >> (8 * n & 63))
	if n == 0 {
		c = 0
	}
	if neg {
		return -int64(u), i + n, c
	}
	return int64(u), i + n, c
}

// floatAt reads a float token at w[i]: an optional '-', 1 to 7 digits and
// optionally a '.' followed by 1 to 7 digits. It returns the value, the
// index after the token and the byte there, which is never a separator when
// the token is not such a float.
//
// The digits, read as an integer m < 10^14 < 2^53, and 10^f for f <= 7
// fractional digits are exact float64s, so m / 10^f is correctly rounded
// (Clinger's fast path) and equals what strconv.ParseFloat returns.
func floatAt(w *window, i uint) (float64, uint, byte) {
	x := binary.LittleEndian.Uint64(w[i&wmask:])
	if c := w[(i+8)&wmask]; nonDigits(x) == 0x8000 && byte(x>>8) == '.' && c-'0' > 9 {
		// One digit and six decimals, as %lf prints values below 10:
		// the seven digits x holds without its '.'.
		return float64(int64(digitsValue(x&0xff|x>>8&^0xff, 7))) / 1e6, i + 8, c
	}
	neg := byte(x) == '-'
	if neg {
		x >>= 8
		i++
	}
	m, n := shortDigits(x)
	if n > 2 {
		m, n = longDigits(x) // 8 digits leave c a digit
	}
	if n == 0 {
		return 0, i, 0
	}
	j := i + n
	c := byte(x >> (8 * n & 63))
	f := float64(m)
	if c == '.' {
		j++
		y := binary.LittleEndian.Uint64(w[j&wmask:])
		k := digitRun(y)
		if uint(k-1) >= 7 {
			return 0, j, 0
		}
		m = m*pow10u[k] + digitsValue(y, k)
		f = float64(m) / pow10f[k]
		j += k
		c = byte(y >> (8 * k & 63))
	}
	if neg {
		f = -f
	}
	return f, j, c
}

// timeForm1 is "0.000000" loaded as a uint64. When x holds a timestamp of
// that form, x ^ timeForm1 has each digit's value in its byte and a 0 for
// the '.'; Next tests for exactly that.
const timeForm1 = 0x3030303030302e30

// w64 returns the 8 bytes of w at i modulo winLimit, the first one lowest.
func w64(w *window, i uint) uint64 { return binary.LittleEndian.Uint64(w[i&wmask:]) }

// A fieldCache remembers how lines began: each entry holds 8 bytes of a
// line and the fields the buffer path decoded from them (a leading group
// of fields that ends, with the byte after its last token, within those 8
// bytes). The decoding depends on those bytes alone, so an entry never
// goes stale; a new group evicts whatever shares its slot. A trace has few
// distinct record and event type pairs and processor, process and count
// triples, so most lookups hit.
type fieldCache struct {
	types fieldTable // record and event type, from the start of the line
	procs procTable  // processor, process and count, after the timestamp
}

// The table of processors is the larger: a trace of 64 processors, each
// with a few counts and descriptors, has hundreds of distinct keys there
// (and a count of 0 takes in bytes of the next line).
type (
	fieldTable [1 << 10]fieldEntry
	procTable  [1 << 12]fieldEntry
)

// A fieldEntry holds up to three decoded fields, a, b and c, the index n
// of the byte after the group's last token, and that byte, term; c, n and
// term are packed in one word, which takes fewer instructions to read.
type fieldEntry struct {
	key  uint64
	a, b int32
	cnt  uint64 // c, then n, then term, from the lowest byte up
}

func newFieldEntry(key uint64, a, b, c int32, n uint, term byte) fieldEntry {
	return fieldEntry{key, a, b, uint64(uint32(c)) | uint64(uint8(n))<<32 | uint64(term)<<40}
}

func (e *fieldEntry) c() int32   { return int32(e.cnt) }
func (e *fieldEntry) n() uint    { return uint(uint8(e.cnt >> 32)) }
func (e *fieldEntry) term() byte { return byte(e.cnt >> 40) }

// init marks the entries unused: an unused entry's key is one that find
// never looks for in its slot, 0 but in slot 0, where key 0 goes.
func (c *fieldCache) init() {
	c.types[0].key, c.procs[0].key = 1, 1 // 1 goes to slot 632 or 2531
}

// find returns key's slot, and whether it holds key's fields.
func (t *fieldTable) find(key uint64) (*fieldEntry, bool) {
	e := &t[fieldHash(key)>>(64-10)]
	return e, e.key == key
}

// find returns key's slot, and whether it holds key's fields.
func (t *procTable) find(key uint64) (*fieldEntry, bool) {
	e := &t[fieldHash(key)>>(64-12)]
	return e, e.key == key
}

// fieldHash returns the hash of key whose top bits pick its slot: a
// multiplicative hash, the key's high half folded into its low half first
// (without it, "-3 -21 0" and "-4 -52 0", two of the commonest line
// starts, share a slot).
func fieldHash(key uint64) uint64 { return (key ^ key>>32) * 0x9e3779b97f4a7c15 }

// SWAR digit runs: eight bytes of the line, loaded little-endian so that
// the first byte is the lowest, are tested and converted together.
const (
	swarLow7  = 0x7f7f7f7f7f7f7f7f
	swarHigh  = 0x8080808080808080
	swarDigit = 0x0f0f0f0f0f0f0f0f
)

// digitRun returns the number of ASCII digits (0 to 8) at the start of the
// eight bytes x holds. A byte c < 0x80 is a digit when c+0x50 carries into
// bit 7 (c >= '0') and c+0x46 does not (c <= '9'); adding to the low seven
// bits of each byte never carries into the next byte.
func digitRun(x uint64) uint {
	return uint(bits.TrailingZeros64(nonDigits(x))) >> 3
}

// nonDigits returns x with the high bit of each byte that is not an ASCII
// digit set and every other bit clear.
func nonDigits(x uint64) uint64 {
	l := x & swarLow7
	return (x | ^(l + 0x5050505050505050) | (l + 0x4646464646464646)) & swarHigh
}

// digitsValue returns the value of the first n (1 to 8) digits x holds.
// Shifting the other bytes out leaves leading zeros, and three multiplies
// combine the digits pairwise into 2-, 4- and 8-digit numbers.
func digitsValue(x uint64, n uint) uint64 {
	x = (x & swarDigit) << ((64 - 8*n) & 63)
	x = (x * (10<<8 + 1)) >> 8
	x = ((x & 0x00ff00ff00ff00ff) * (100<<16 + 1)) >> 16
	return ((x & 0x0000ffff0000ffff) * (10000<<32 + 1)) >> 32
}
