package eventjson

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// This file holds the hand-written scanner of the events array: one event
// object per Next, read byte by byte from a bufio.Reader into reused
// buffers, so that reading an event allocates nothing in the steady state.
// The header and whatever follows the events array are read with
// encoding/json.

// errEOF reports input that ends inside the events array.
var errEOF = fmt.Errorf("%w: truncated document", io.ErrUnexpectedEOF)

// span locates a decoded string in Reader.sbuf.
type span struct {
	a, b int
	ok   bool
}

// jsonEvent holds the fields of one event object as scanned; strings are
// spans of sbuf until the object ends, then slices of it.
type jsonEvent struct {
	T            int64
	Loc          optInt
	Kind         []byte
	Region       optInt
	Site         int32
	Peer         optInt
	Tag          int32
	Comm         optInt
	Bytes        int64
	Sync         bool
	Waited       []byte
	BytesUnknown bool
	Op           opRef
	Class        []byte
	Root         optInt
	Sent         int64
	Recvd        int64
	Match        uint64
	Counter      optInt
	Value        int64
	Text         []byte
	String       []byte
	HasString    bool // the event has a "string" key
}

// optInt is an integer whose presence is recorded.
type optInt struct {
	v  int64
	ok bool
}

// opRef is a region given by name (string) or by id (number).
type opRef struct {
	name  []byte
	id    int64
	isNum bool
	ok    bool
}

// startEvents switches from encoding/json to the scanner after the '['
// of the events array.
func (jr *Reader) startEvents(r io.Reader) {
	jr.off = jr.dec.InputOffset()
	jr.br = bufio.NewReaderSize(io.MultiReader(jr.dec.Buffered(), jr.lim.rest(), r), 1<<16)
	jr.dec = nil
}

func (jr *Reader) readByte() (byte, error) {
	c, err := jr.br.ReadByte()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return 0, errEOF
		}
		return 0, err
	}
	jr.off++
	return c, nil
}

func (jr *Reader) unreadByte() {
	jr.br.UnreadByte()
	jr.off--
}

// skipSpace returns the next byte that is not JSON white space.
func (jr *Reader) skipSpace() (byte, error) {
	for {
		c, err := jr.readByte()
		if err != nil {
			return 0, err
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c, nil
	}
}

func syntaxErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrSyntax}, args...)...)
}

// scanNext positions the scanner on the next event object. It reports
// false at the ']' that ends the array.
func (jr *Reader) scanNext() (bool, error) {
	c, err := jr.skipSpace()
	if err != nil {
		return false, err
	}
	if c == ']' {
		return false, nil
	}
	if jr.n > 0 {
		if c != ',' {
			return false, syntaxErr("want ',' or ']' after an event, got %q", c)
		}
		if c, err = jr.skipSpace(); err != nil {
			return false, err
		}
	}
	if c != '{' {
		return false, syntaxErr("want an event object, got %q", c)
	}
	return true, nil
}

// eventKeys are the keys of an event object, in the order of their bits
// in scanEvent.
var eventKeys = [...]string{"t", "loc", "kind", "region", "site", "peer", "tag", "comm", "bytes", "sync", "waited", "bytes_unknown", "op", "class", "root", "sent", "recvd", "match", "counter", "value", "text", "string"}

// scanEvent reads the members of an event object after its '{' into jr.raw.
func (jr *Reader) scanEvent() error {
	jr.raw = jsonEvent{}
	jr.sbuf = jr.sbuf[:0]
	var kind, waited, class, text, op, str span
	var seen uint32 // bits of the known keys read (eventKeys)
	r := &jr.raw
	for first := true; ; first = false {
		c, err := jr.skipSpace()
		if err != nil {
			return err
		}
		if c == '}' && first {
			break
		}
		if !first {
			if c == '}' {
				break
			}
			if c != ',' {
				return syntaxErr("want ',' or '}' in an event, got %q", c)
			}
			if c, err = jr.skipSpace(); err != nil {
				return err
			}
		}
		if c != '"' {
			return syntaxErr("want a key in an event, got %q", c)
		}
		key, err := jr.scanString()
		if err != nil {
			return err
		}
		if c, err = jr.skipSpace(); err != nil {
			return err
		}
		if c != ':' {
			return syntaxErr("want ':' after a key, got %q", c)
		}
		k := jr.sbuf[key.a:key.b]
		for i, c := range k {
			if 'A' <= c && c <= 'Z' {
				k[i] = c + 'a' - 'A' // keys match case-insensitively, as in encoding/json
			}
		}
		// The key's bytes are dropped from sbuf; the switch has read them.
		jr.sbuf = jr.sbuf[:key.a]
		var bit uint32
		switch string(k) {
		case "t":
			bit, err = 1<<0, jr.scanInt(&r.T, nil)
		case "loc":
			bit, err = 1<<1, jr.scanOpt(&r.Loc)
		case "kind":
			bit, err = 1<<2, jr.scanStr(&kind)
		case "region":
			bit, err = 1<<3, jr.scanOpt(&r.Region)
		case "site":
			bit, err = 1<<4, jr.scanInt32(&r.Site)
		case "peer":
			bit, err = 1<<5, jr.scanOpt(&r.Peer)
		case "tag":
			bit, err = 1<<6, jr.scanInt32(&r.Tag)
		case "comm":
			bit, err = 1<<7, jr.scanOpt(&r.Comm)
		case "bytes":
			bit, err = 1<<8, jr.scanInt(&r.Bytes, nil)
		case "sync":
			bit, err = 1<<9, jr.scanBool(&r.Sync)
		case "waited":
			bit, err = 1<<10, jr.scanStr(&waited)
		case "bytes_unknown":
			bit, err = 1<<11, jr.scanBool(&r.BytesUnknown)
		case "op":
			bit, err = 1<<12, jr.scanOp(&op)
		case "class":
			bit, err = 1<<13, jr.scanStr(&class)
		case "root":
			bit, err = 1<<14, jr.scanOpt(&r.Root)
		case "sent":
			bit, err = 1<<15, jr.scanInt(&r.Sent, nil)
		case "recvd":
			bit, err = 1<<16, jr.scanInt(&r.Recvd, nil)
		case "match":
			bit, err = 1<<17, jr.scanInt(nil, &r.Match)
		case "counter":
			bit, err = 1<<18, jr.scanOpt(&r.Counter)
		case "value":
			bit, err = 1<<19, jr.scanInt(&r.Value, nil)
		case "text":
			bit, err = 1<<20, jr.scanStr(&text)
		case "string":
			bit, err = 1<<21, jr.scanStr(&str)
			r.HasString = true
		default:
			err = jr.skipValue(0)
		}
		if err != nil {
			return err
		}
		if seen&bit != 0 {
			return syntaxErr("key %q twice in an event", eventKeys[bits.TrailingZeros32(bit)])
		}
		seen |= bit
	}
	// sbuf no longer grows: the spans become slices.
	get := func(s span) []byte { return jr.sbuf[s.a:s.b:s.b] }
	r.Kind, r.Waited, r.Class, r.Text, r.String = get(kind), get(waited), get(class), get(text), get(str)
	if op.ok {
		r.Op.name = get(op)
	}
	return nil
}

// scanValueStart returns the first byte of a value, and false for null.
func (jr *Reader) scanValueStart() (byte, bool, error) {
	c, err := jr.skipSpace()
	if err != nil {
		return 0, false, err
	}
	if c == 'n' {
		return c, false, jr.scanLiteral("ull")
	}
	return c, true, nil
}

func (jr *Reader) scanLiteral(rest string) error {
	for i := 0; i < len(rest); i++ {
		c, err := jr.readByte()
		if err != nil {
			return err
		}
		if c != rest[i] {
			return syntaxErr("invalid literal")
		}
	}
	return nil
}

func (jr *Reader) scanBool(v *bool) error {
	c, ok, err := jr.scanValueStart()
	if err != nil || !ok {
		return err
	}
	switch c {
	case 't':
		*v = true
		return jr.scanLiteral("rue")
	case 'f':
		*v = false
		return jr.scanLiteral("alse")
	}
	return syntaxErr("want a bool, got %q", c)
}

// scanStr reads a string value (or null, leaving s unset).
func (jr *Reader) scanStr(s *span) error {
	c, ok, err := jr.scanValueStart()
	if err != nil || !ok {
		return err
	}
	if c != '"' {
		return syntaxErr("want a string, got %q", c)
	}
	*s, err = jr.scanString()
	return err
}

func (jr *Reader) scanOpt(o *optInt) error {
	var v int64
	set, err := jr.scanNumber(&v, nil)
	if err != nil {
		return err
	}
	*o = optInt{v, set}
	return nil
}

func (jr *Reader) scanInt32(v *int32) error {
	var n int64
	set, err := jr.scanNumber(&n, nil)
	if err != nil {
		return err
	}
	if set {
		if int64(int32(n)) != n {
			return syntaxErr("number %d overflows int32", n)
		}
		*v = int32(n)
	}
	return nil
}

func (jr *Reader) scanInt(i *int64, u *uint64) error {
	_, err := jr.scanNumber(i, u)
	return err
}

// scanOp reads an op: a region name or id.
func (jr *Reader) scanOp(name *span) error {
	c, ok, err := jr.scanValueStart()
	if err != nil {
		return err
	}
	jr.raw.Op = opRef{}
	*name = span{}
	if !ok {
		return nil
	}
	if c == '"' {
		*name, err = jr.scanString()
		jr.raw.Op.ok = true
		return err
	}
	jr.unreadByte()
	var v int64
	if _, err := jr.scanNumber(&v, nil); err != nil {
		return err
	}
	jr.raw.Op = opRef{id: v, isNum: true, ok: true}
	return nil
}

// scanNumber reads an integer value into *i (signed) or *u (unsigned). It
// reports false for null, which leaves the destination unchanged.
func (jr *Reader) scanNumber(i *int64, u *uint64) (bool, error) {
	c, ok, err := jr.scanValueStart()
	if err != nil || !ok {
		return false, err
	}
	neg := c == '-'
	if neg {
		if c, err = jr.readByte(); err != nil {
			return false, err
		}
	}
	if c < '0' || c > '9' {
		return false, syntaxErr("want a number, got %q", c)
	}
	first := c
	n := uint64(c - '0')
	over := false
	for {
		if c, err = jr.readByte(); err != nil {
			return false, err
		}
		if c < '0' || c > '9' {
			break
		}
		if first == '0' {
			return false, syntaxErr("number with a leading zero")
		}
		d := uint64(c - '0')
		if n > (1<<64-1-d)/10 {
			over = true
		} else {
			n = n*10 + d
		}
	}
	switch c {
	case '.', 'e', 'E':
		return false, syntaxErr("want an integer")
	}
	jr.unreadByte()
	switch {
	case over:
		return false, syntaxErr("number out of range")
	case u != nil:
		if neg && n != 0 {
			return false, syntaxErr("want an unsigned integer")
		}
		*u = n
	case neg:
		if n > 1<<63 {
			return false, syntaxErr("number out of range")
		}
		*i = -int64(n)
	default:
		if n > 1<<63-1 {
			return false, syntaxErr("number out of range")
		}
		*i = int64(n)
	}
	return true, nil
}

// scanString reads a string after its opening quote, decoding escapes
// into sbuf; invalid UTF-8 and unpaired surrogates become U+FFFD, as in
// encoding/json.
func (jr *Reader) scanString() (span, error) {
	a := len(jr.sbuf)
	ascii := true
	for {
		c, err := jr.readByte()
		if err != nil {
			return span{}, err
		}
		switch {
		case c == '"':
			s := span{a, len(jr.sbuf), true}
			if !ascii && !utf8.Valid(jr.sbuf[a:]) {
				s = jr.fixUTF8(s)
			}
			return s, nil
		case c < 0x20:
			return span{}, syntaxErr("control character in a string")
		case c >= 0x80:
			ascii = false
			jr.sbuf = append(jr.sbuf, c)
		case c == '\\':
			if c, err = jr.readByte(); err != nil {
				return span{}, err
			}
			switch c {
			case '"', '\\', '/':
				jr.sbuf = append(jr.sbuf, c)
			case 'b':
				jr.sbuf = append(jr.sbuf, '\b')
			case 'f':
				jr.sbuf = append(jr.sbuf, '\f')
			case 'n':
				jr.sbuf = append(jr.sbuf, '\n')
			case 'r':
				jr.sbuf = append(jr.sbuf, '\r')
			case 't':
				jr.sbuf = append(jr.sbuf, '\t')
			case 'u':
				r, err := jr.scanHex4()
				if err != nil {
					return span{}, err
				}
				if utf16.IsSurrogate(r) {
					r = jr.scanLowSurrogate(r)
				}
				jr.sbuf = utf8.AppendRune(jr.sbuf, r)
			default:
				return span{}, syntaxErr("invalid escape \\%c", c)
			}
		default:
			jr.sbuf = append(jr.sbuf, c)
		}
		if len(jr.sbuf)-a > jr.maxString {
			return span{}, fmt.Errorf("%w: string longer than ReaderOptions.MaxString (%d bytes)", ErrLimit, jr.maxString)
		}
	}
}

func (jr *Reader) scanHex4() (rune, error) {
	var r rune
	for range 4 {
		c, err := jr.readByte()
		if err != nil {
			return 0, err
		}
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, syntaxErr("invalid \\u escape")
		}
		r = r<<4 | rune(c)
	}
	return r, nil
}

// scanLowSurrogate completes the high surrogate r with a following \uXXXX
// low surrogate, or returns U+FFFD and leaves the input as it was.
func (jr *Reader) scanLowSurrogate(r rune) rune {
	if b, err := jr.br.Peek(6); err == nil && b[0] == '\\' && b[1] == 'u' {
		var r2 rune
		for _, c := range b[2:] {
			switch {
			case '0' <= c && c <= '9':
				c -= '0'
			case 'a' <= c && c <= 'f':
				c -= 'a' - 10
			case 'A' <= c && c <= 'F':
				c -= 'A' - 10
			default:
				return utf8.RuneError
			}
			r2 = r2<<4 | rune(c)
		}
		if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
			jr.br.Discard(6)
			jr.off += 6
			return dec
		}
	}
	return utf8.RuneError
}

// fixUTF8 rewrites the invalid UTF-8 of s as U+FFFD, one per bad byte.
func (jr *Reader) fixUTF8(s span) span {
	b := len(jr.sbuf)
	for i := s.a; i < s.b; {
		r, n := utf8.DecodeRune(jr.sbuf[i:s.b])
		jr.sbuf = utf8.AppendRune(jr.sbuf, r)
		i += n
	}
	return span{b, len(jr.sbuf), true}
}

// maxDepth bounds the nesting of the values skipped in an event object.
const maxDepth = 1000

// skipValue reads and discards one value of any type (an unknown key's).
func (jr *Reader) skipValue(depth int) error {
	if depth > maxDepth {
		return syntaxErr("values nested too deep")
	}
	c, err := jr.skipSpace()
	if err != nil {
		return err
	}
	switch c {
	case '{':
		if c, err = jr.skipSpace(); err != nil || c == '}' {
			return err
		}
		for {
			if c != '"' {
				return syntaxErr("want a key, got %q", c)
			}
			a := len(jr.sbuf)
			_, err := jr.scanString()
			jr.sbuf = jr.sbuf[:a] // a skipped value keeps nothing
			if err != nil {
				return err
			}
			if c, err = jr.skipSpace(); err != nil {
				return err
			}
			if c != ':' {
				return syntaxErr("want ':' after a key, got %q", c)
			}
			if err := jr.skipValue(depth + 1); err != nil {
				return err
			}
			if c, err = jr.skipSpace(); err != nil || c == '}' {
				return err
			}
			if c != ',' {
				return syntaxErr("want ',' or '}', got %q", c)
			}
			if c, err = jr.skipSpace(); err != nil {
				return err
			}
		}
	case '[':
		if c, err = jr.skipSpace(); err != nil || c == ']' {
			return err
		}
		jr.unreadByte()
		for {
			if err := jr.skipValue(depth + 1); err != nil {
				return err
			}
			if c, err = jr.skipSpace(); err != nil || c == ']' {
				return err
			}
			if c != ',' {
				return syntaxErr("want ',' or ']', got %q", c)
			}
		}
	case '"':
		a := len(jr.sbuf)
		_, err = jr.scanString()
		jr.sbuf = jr.sbuf[:a]
		return err
	case 't':
		return jr.scanLiteral("rue")
	case 'f':
		return jr.scanLiteral("alse")
	case 'n':
		return jr.scanLiteral("ull")
	}
	jr.unreadByte()
	return jr.skipNumber()
}

// skipNumber reads a number of any form: -?int(.digits)?([eE][+-]?digits)?
func (jr *Reader) skipNumber() error {
	c, err := jr.readByte()
	if err != nil {
		return err
	}
	if c == '-' {
		if c, err = jr.readByte(); err != nil {
			return err
		}
	}
	digits := func(c byte) (byte, error) { // c is the first digit
		if c < '0' || c > '9' {
			return 0, syntaxErr("want a digit, got %q", c)
		}
		for {
			c, err := jr.readByte()
			if err != nil || c < '0' || c > '9' {
				return c, err
			}
		}
	}
	if c == '0' {
		c, err = jr.readByte()
	} else {
		c, err = digits(c)
	}
	if err != nil {
		return err
	}
	if c == '.' {
		if c, err = jr.readByte(); err != nil {
			return err
		}
		if c, err = digits(c); err != nil {
			return err
		}
	}
	if c == 'e' || c == 'E' {
		if c, err = jr.readByte(); err != nil {
			return err
		}
		if c == '+' || c == '-' {
			if c, err = jr.readByte(); err != nil {
				return err
			}
		}
		if c, err = digits(c); err != nil {
			return err
		}
	}
	_ = c
	jr.unreadByte()
	return nil
}
