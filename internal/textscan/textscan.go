// Package textscan holds the line reader and the number parsers shared by the
// text trace formats (PICL, OTF). Everything here works on []byte and
// allocates nothing in the steady state.
//
// A [Scanner] yields lines of at most a configured length, tolerates CR LF
// line ends and tracks the 1-based line number and the byte offset of every
// line. [ParseInt] and [ParseFloat] convert decimal tokens without building
// strings. [Field] splits blank-separated fields in place.
package textscan

import (
	"bytes"
	"errors"
	"io"
	"math"
	"strconv"
)

// ErrLimit is returned by [Scanner.Err] when a line is longer than the
// scanner's limit.
var ErrLimit = errors.New("line longer than the limit")

// DefaultMaxLine is the line limit used when a limit of 0 is given: 1 MiB.
const DefaultMaxLine = 1 << 20

// bufSize is the size of the blocks the Scanner reads. Lines are returned
// in place, without copying; the buffer grows for lines longer than it.
const bufSize = 64 << 10

// A Scanner reads lines from an io.Reader. It is like bufio.Scanner with
// ScanLines (which also drops the CR of a CR LF line end), but it reports positions, tells whether the last line was
// terminated, and returns an error instead of growing past its limit.
//
// A Scanner is not safe for concurrent use.
type Scanner struct {
	r           io.Reader
	buf         []byte // buf[pos:end] is read but not yet scanned
	pos, end    int
	rerr        error // the error of the last Read, returned once buf is drained
	max         int
	start, stop int // the current line is buf[start:stop], unless err is set
	lineNo      int
	base        int64 // the offset of buf[0]; the current line's is base+start
	terminated  bool
	err         error
}

// NewScanner returns a Scanner reading r whose lines may hold at most
// maxLine bytes, not counting the line end; maxLine <= 0 means
// [DefaultMaxLine].
func NewScanner(r io.Reader, maxLine int) *Scanner {
	if maxLine <= 0 {
		maxLine = DefaultMaxLine
	}
	return &Scanner{r: r, max: maxLine, buf: make([]byte, min(bufSize, maxLine+3))}
}

// Reset makes s read from r, keeping its buffers and its limit.
func (s *Scanner) Reset(r io.Reader) {
	s.r = r
	s.pos, s.end = 0, 0
	s.rerr = nil
	s.start, s.stop = 0, 0
	s.lineNo = 0
	s.base = 0
	s.terminated = false
	s.err = nil
}

// Scan advances to the next line. It returns false at the end of the input
// or on an error; [Scanner.Err] tells which. A final line without a line end
// is returned like the others, with [Scanner.Terminated] false.
func (s *Scanner) Scan() bool {
	if s.err != nil {
		return false
	}
	s.lineNo++
	i := bytes.IndexByte(s.buf[s.pos:s.end], '\n')
	for i < 0 {
		if s.end-s.pos > s.max+2 { // too long even before its line end
			s.start = s.pos
			return s.fail(ErrLimit)
		}
		if s.rerr != nil {
			break
		}
		s.fill()
		i = bytes.IndexByte(s.buf[s.pos:s.end], '\n')
	}
	var line []byte
	s.start = s.pos
	if i >= 0 {
		line = s.buf[s.pos : s.pos+i]
		s.pos += i + 1
		s.terminated = true
	} else { // the last line, or a read error
		if !errors.Is(s.rerr, io.EOF) {
			return s.fail(s.rerr)
		}
		if s.pos == s.end {
			return s.fail(io.EOF)
		}
		line = s.buf[s.pos:s.end]
		s.pos = s.end
		s.terminated = false
	}
	line = trimLineEnd(line)
	if len(line) > s.max {
		return s.fail(ErrLimit)
	}
	s.stop = s.start + len(line)
	return true
}

// Buffered returns the bytes read but not yet scanned. It returns none once
// the scanner has stopped. The slice is valid until the next call to Scan,
// Advance or Reset; a caller that finds a complete line at its start may
// consume it with [Scanner.Advance] instead of calling Scan.
func (s *Scanner) Buffered() []byte {
	return s.buf[s.pos:s.end] // empty once stopped: see fail
}

// Advance consumes the first n bytes of [Scanner.Buffered] as lines calls
// of Scan would: they hold that many complete lines, each ended by a line
// feed, the last of them starting at index last. Each line must be at most
// the line limit and must not end in a carriage return followed only by
// blanks and carriage returns (which Scan would trim). The last line becomes
// the current one, as after Scan.
func (s *Scanner) Advance(n, lines, last int) {
	s.start = s.pos + last
	s.stop = s.pos + n - 1
	s.pos += n
	s.lineNo += lines
	s.terminated = true
}

func (s *Scanner) fail(err error) bool {
	s.err = err
	s.pos = s.end // Buffered returns nothing more
	return false
}

// fill moves the unscanned bytes to the front of the buffer, grows it if
// they fill it, and reads once more (retrying empty reads like bufio).
func (s *Scanner) fill() {
	if s.pos > 0 {
		s.end = copy(s.buf, s.buf[s.pos:s.end])
		s.base += int64(s.pos)
		s.pos = 0
	}
	if s.end == len(s.buf) {
		s.buf = append(s.buf, make([]byte, min(len(s.buf), s.max+3))...)
	}
	for range 100 {
		n, err := s.r.Read(s.buf[s.end:])
		if n < 0 || n > len(s.buf)-s.end {
			n, err = 0, errors.New("textscan: invalid Read count")
		}
		s.end += n
		if err != nil {
			s.rerr = err
			return
		}
		if n > 0 {
			return
		}
	}
	s.rerr = io.ErrNoProgress
}

// Bytes returns the current line without its line end: the LF and the
// carriage returns before it, blanks among them included (see
// trimLineEnd), or the same before the end of the input. The
// slice is valid until the next call to Scan or Reset.
func (s *Scanner) Bytes() []byte {
	if s.err != nil {
		return nil
	}
	return s.buf[s.start:s.stop]
}

// Line returns the 1-based number of the current line (or of the line that
// failed).
func (s *Scanner) Line() int { return s.lineNo }

// Offset returns the byte offset of the start of the current line (or of
// the line that failed).
func (s *Scanner) Offset() int64 { return s.base + int64(s.start) }

// Terminated reports whether the current line ended with a line feed.
func (s *Scanner) Terminated() bool { return s.terminated }

// Err returns the error that stopped the scanner: nil after a clean end of
// input, [ErrLimit], or the underlying reader's error.
func (s *Scanner) Err() error {
	if errors.Is(s.err, io.EOF) {
		return nil
	}
	return s.err
}

// IsBlank reports whether c is a field separator: a space or a horizontal
// tab.
func IsBlank(c byte) bool { return c == ' ' || c == '\t' }

// TrimBlanks returns b without leading and trailing blanks.
func TrimBlanks(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && IsBlank(b[i]) {
		i++
	}
	for j > i && IsBlank(b[j-1]) {
		j--
	}
	return b[i:j]
}

// Field returns the first blank-separated field of b, after skipping leading
// blanks, and the rest of b starting at the blank (or end) after the field.
// An empty field means b holds only blanks.
func Field(b []byte) (field, rest []byte) {
	i := 0
	for i < len(b) && IsBlank(b[i]) {
		i++
	}
	j := i
	for j < len(b) && !IsBlank(b[j]) {
		j++
	}
	return b[i:j], b[j:]
}

// IntField reads the first blank-separated field of b, like [Field], and
// parses it as a decimal integer of at most bits bits (32 or 64), like
// [ParseInt], in one pass. It returns the field, the value, the rest of b and
// an error; an empty field means b holds only blanks (err is nil then).
func IntField(b []byte, bits int) (field []byte, v int64, rest []byte, err error) {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	start := i
	neg := false
	if i < len(b) && (b[i] == '-' || b[i] == '+') {
		neg = b[i] == '-'
		i++
	}
	digits := i
	var n int64
	for i < len(b) && i-digits < 9 {
		c := b[i] - '0'
		if c > 9 {
			break
		}
		n = n*10 + int64(c)
		i++
	}
	if i > digits && bits >= 32 && (i == len(b) || b[i] == ' ' || b[i] == '\t') {
		if neg {
			n = -n
		}
		return b[start:i:i], n, b[i:], nil
	}
	field, rest = Field(b[start:])
	if len(field) == 0 {
		return field, 0, rest, nil
	}
	v, err = ParseInt(field, bits)
	return field, v, rest, err
}

// ErrSyntax and ErrRange are returned by the number parsers.
var (
	ErrSyntax = errors.New("invalid number")
	ErrRange  = errors.New("number out of range")
)

// ParseInt parses a decimal integer token: an optional sign ('-' or '+')
// followed by one or more decimal digits, nothing else. The result must fit
// in bits bits (8 to 64).
func ParseInt(b []byte, bits int) (int64, error) {
	neg := false
	i := 0
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		i = 1
	}
	if i == len(b) {
		return 0, ErrSyntax
	}
	if len(b)-i <= 9 && bits >= 32 { // fast path: no overflow possible
		var n int64
		for ; i < len(b); i++ {
			c := b[i] - '0'
			if c > 9 {
				return 0, ErrSyntax
			}
			n = n*10 + int64(c)
		}
		if neg {
			return -n, nil
		}
		return n, nil
	}
	limit := uint64(1) << (bits - 1) // magnitude limit for negatives
	var n uint64
	for ; i < len(b); i++ {
		c := b[i] - '0'
		if c > 9 {
			return 0, ErrSyntax
		}
		if n > (math.MaxUint64-9)/10 {
			n = math.MaxUint64
			continue
		}
		n = n*10 + uint64(c)
	}
	if neg {
		if n > limit {
			return 0, ErrRange
		}
		return -int64(n), nil
	}
	if n >= limit {
		return 0, ErrRange
	}
	return int64(n), nil
}

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// ParseFloat parses a decimal floating-point token: an optional sign, digits
// with an optional decimal point and fraction (at least one digit in all),
// and an optional exponent ('e' or 'E', optional sign, digits). Infinities,
// NaNs, hexadecimal forms and underscores are rejected. The result is the
// float64 nearest to the decimal value, as with strconv.ParseFloat; values
// beyond the float64 range give [ErrRange].
//
// Tokens of up to 19 significant digits with a small exponent are converted
// exactly without calling strconv; the others go through strconv.ParseFloat,
// which may allocate for tokens longer than 32 bytes.
func ParseFloat(b []byte) (float64, error) {
	i := 0
	neg := false
	if i < len(b) && (b[i] == '-' || b[i] == '+') {
		neg = b[i] == '-'
		i++
	}
	var mant uint64
	nd := 0     // significant digits taken into mant
	digits := 0 // all mantissa digits seen
	exp := 0    // decimal exponent adjustment
	exact := true
	sawDot := false
	for ; i < len(b); i++ {
		c := b[i]
		if c == '.' {
			if sawDot {
				return 0, ErrSyntax
			}
			sawDot = true
			continue
		}
		if c-'0' > 9 {
			break
		}
		digits++
		if nd == 0 && c == '0' {
			if sawDot {
				exp--
			}
			continue
		}
		if nd < 19 {
			mant = mant*10 + uint64(c-'0')
			nd++
			if sawDot {
				exp--
			}
		} else {
			if c != '0' {
				exact = false
			}
			if !sawDot {
				exp++
			}
		}
	}
	if digits == 0 {
		return 0, ErrSyntax
	}
	if i < len(b) {
		if b[i] != 'e' && b[i] != 'E' {
			return 0, ErrSyntax
		}
		i++
		eneg := false
		if i < len(b) && (b[i] == '-' || b[i] == '+') {
			eneg = b[i] == '-'
			i++
		}
		if i == len(b) {
			return 0, ErrSyntax
		}
		e := 0
		for ; i < len(b); i++ {
			c := b[i] - '0'
			if c > 9 {
				return 0, ErrSyntax
			}
			if e < 100000 {
				e = e*10 + int(c)
			}
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if exact && mant < 1<<53 {
		f := float64(mant)
		switch {
		case mant == 0:
			if neg {
				return math.Copysign(0, -1), nil
			}
			return 0, nil
		case exp == 0:
		case exp > 0 && exp <= 22:
			f *= pow10[exp]
		case exp < 0 && exp >= -22:
			f /= pow10[-exp]
		default:
			return slowFloat(b)
		}
		if neg {
			f = -f
		}
		return f, nil
	}
	return slowFloat(b)
}

func slowFloat(b []byte) (float64, error) {
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, ErrRange
		}
		return 0, ErrSyntax
	}
	return f, nil
}

// trimLineEnd cuts line at the first carriage return of its trailing run of
// CRs and blanks, if that run has one: "a\r", "a\r \r" and "a\r " all end
// as "a", and "a \r" as "a ". A line without a CR in its tail is unchanged,
// so trailing blanks that belong to the data stay. The result never ends in
// a CR, so whatever a reader keeps can be written back and read the same.
func trimLineEnd(line []byte) []byte {
	j := len(line)
	for j > 0 && (line[j-1] == '\r' || IsBlank(line[j-1])) {
		j--
	}
	if k := bytes.IndexByte(line[j:], '\r'); k >= 0 {
		return line[:j+k]
	}
	return line
}
