package picl

// The line path, the second of the reader's three tiers: one pass over a
// scanned, well-formed line that splits and converts every field as it
// goes. Next uses it for the lines the buffer path (fastbuf.go) leaves:
// lines with runs of blanks or tabs, long numbers, a CR LF line end, lines
// near the end of the buffered bytes. It accepts only lines on which lenient
// and strict reading agree and set no flag, so it never has to build an
// error: anything unusual (a '+' sign, an exponent, a long number, a quoted
// string value, missing or extra text, an undecoded or %c control string…)
// makes it give up, and the general parser in reader.go reads the line
// again from the start and reports whatever is wrong. FuzzFastLine checks
// that both paths agree on every line the fast path accepts.

// isBlank reports whether c is a field separator (textscan.IsBlank, kept
// here so that the hot loops inline it).
func isBlank(c byte) bool { return c == ' ' || c == '\t' }

// fastLine decodes line into r.rec and r.ctl, which Next has cleared. It
// returns false when the line needs the general parser; r.rec and r.data
// may then hold partial results, which the general parser overwrites.
//
// It walks the line with one index; the helpers compare indexes as
// unsigned numbers so that the compiler drops the bounds checks.
func (r *Reader) fastLine(line []byte) bool {
	rec := &r.rec
	i := skip(line, 0)

	// The six fixed fields; each but the count must be followed by a blank.
	d, neg := minus(line, i)
	u, j := digits(line, d)
	if j == d || j-d > 9 || !blankAt(line, j) {
		return false
	}
	rec.Type = RecordType(signed(u, neg))
	i = after(line, j)
	d, neg = minus(line, i)
	if u, j = digits(line, d); j == d || j-d > 9 || !blankAt(line, j) {
		return false
	}
	rec.Event = EventType(signed(u, neg))
	i = after(line, j)
	f, j, ok := fastFloat(line, i)
	if !ok || !blankAt(line, j) {
		return false
	}
	rec.Time, rec.TimeText = f, line[i:j:j]
	i = after(line, j)
	d, neg = minus(line, i)
	if u, j = digits(line, d); j == d || j-d > 9 || !blankAt(line, j) {
		return false
	}
	rec.Processor = int32(signed(u, neg))
	i = after(line, j)
	d, neg = minus(line, i)
	if u, j = digits(line, d); j == d || j-d > 9 || !blankAt(line, j) {
		return false
	}
	rec.Process = int32(signed(u, neg))
	i = after(line, j)
	d, neg = minus(line, i)
	if u, j = digits(line, d); j == d || j-d > 9 || (neg && u != 0) {
		return false
	}
	rec.Count = int(u)
	i = skip(line, j)
	if rec.Count == 0 || i == j {
		// No data, or no blank after the count.
		return rec.Count == 0 && i == len(line)
	}
	if i >= len(line) {
		return false
	}

	// Descriptor: an alias or a quoted control string.
	var ctl *control
	if line[i] == '"' {
		j = i + 1
		for uint(j) < uint(len(line)) && line[j] != '"' {
			j++
		}
		if j >= len(line) {
			return false
		}
		j++
		q := r.cache.quotedControl(line[i:j])
		rec.Descriptor, ctl = q.token, q.ctl
	} else {
		if u, j = digits(line, i); j == i || j-i > 9 {
			return false
		}
		if u < uint64(len(aliasText)) && (line[i] != '0' || j == i+1) {
			// Digits without a leading zero: the canonical token.
			rec.Descriptor = aliasText[u]
		} else {
			rec.Descriptor = r.cache.aliasToken(line[i:j], int64(u))
		}
		ctl = r.scope.resolve(int64(u), rec.Event, rec.Processor, rec.Process)
	}
	if ctl == nil || ctl.undecoded || ctl.chars {
		return false
	}
	rec.Control = ctl.text

	// Data: Count repetitions of the conversions, each value after at
	// least one blank. A line holds at most one value per two bytes, which
	// bounds the buffer's growth.
	convs := ctl.convs
	want := rec.Count * len(convs)
	if want > len(line)/2 {
		return false
	}
	if cap(r.data) < want {
		r.data = make([]Value, 0, want)
	}
	data := r.data[:want]
	ci := 0 // the conversion of value k
	for k := range data {
		i = skip(line, j)
		if i == j || i >= len(line) {
			return false
		}
		v := &data[k] // set field by field: cheaper than a composite literal
		switch convs[ci] {
		case convInt:
			d, neg = minus(line, i)
			u, j = digits(line, d)
			ok = j > d && j-d <= 18
			v.Kind, v.Int, v.Float, v.Text, v.Quoted = KindInt, signed(u, neg), 0, line[i:j:j], false
		case convFloat:
			f, j, ok = fastFloat(line, i)
			v.Kind, v.Int, v.Float, v.Text, v.Quoted = KindFloat, 0, f, line[i:j:j], false
		case convString:
			ok = line[i] != '"'
			j = i
			for uint(j) < uint(len(line)) && !isBlank(line[j]) {
				j++
			}
			v.Kind, v.Int, v.Float, v.Text, v.Quoted = KindString, 0, 0, line[i:j:j], false
		default:
			ok = false
		}
		if !ok || !endAt(line, j) {
			return false
		}
		if ci++; ci == len(convs) {
			ci = 0
		}
	}
	if skip(line, j) != len(line) {
		return false
	}
	rec.Data = data
	r.ctl = ctl
	return true
}

// skip returns the index of the first non-blank at or after line[i], or
// len(line).
func skip(line []byte, i int) int {
	for uint(i) < uint(len(line)) && isBlank(line[i]) {
		i++
	}
	return i
}

// after returns the index of the first non-blank after the blank at
// line[j]; a single blank, the usual separator, costs one comparison.
func after(line []byte, j int) int {
	j++
	if blankAt(line, j) {
		j = skip(line, j)
	}
	return j
}

// blankAt reports whether line[i] is a blank.
func blankAt(line []byte, i int) bool {
	return uint(i) < uint(len(line)) && isBlank(line[i])
}

// endAt reports whether a token ending at line[i] is followed by a blank or
// the end of the line.
func endAt(line []byte, i int) bool {
	return uint(i) >= uint(len(line)) || isBlank(line[i])
}

// minus skips an optional '-' at line[i]. It returns the index after it
// and whether there was one.
func minus(line []byte, i int) (int, bool) {
	if uint(i) < uint(len(line)) && line[i] == '-' {
		return i + 1, true
	}
	return i, false
}

// signed returns u, negated if neg.
func signed(u uint64, neg bool) int64 {
	if neg {
		return -int64(u)
	}
	return int64(u)
}

// digits reads the decimal digits from line[i] on. It returns their value
// (wrapped past 19 digits, so callers bound the count) and the index after
// them.
func digits(line []byte, i int) (uint64, int) {
	var x uint64
	for ; uint(i) < uint(len(line)); i++ {
		c := line[i] - '0'
		if c > 9 {
			break
		}
		x = x*10 + uint64(c)
	}
	return x, i
}

// pow10u and pow10f hold the powers of ten up to 1e15, exact in both types.
var (
	pow10u = [16]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}
	pow10f = [16]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}
)

// fastFloat parses a plain decimal at line[i]: an optional '-', digits, and
// an optional '.' with more digits, at least one digit and at most 15 in
// all. It returns the value and the index after the token, or false when
// the token needs the general parser (it does not check what follows).
//
// The result is the one strconv.ParseFloat gives: the digits, read as an
// integer m < 1e15 < 2^53, and 10^f for f <= 15 fractional digits are both
// exact float64s, and IEEE division rounds m / 10^f correctly (Clinger's
// fast path). FuzzFastFloat checks it against strconv.
func fastFloat(line []byte, i int) (float64, int, bool) {
	neg := i < len(line) && line[i] == '-'
	if neg {
		i++
	}
	m, j := digits(line, i)
	n := j - i
	frac := 0
	if j < len(line) && line[j] == '.' {
		fm, k := digits(line, j+1)
		frac = k - (j + 1)
		n += frac
		j = k
		if n > 15 {
			return 0, j, false
		}
		m = m*pow10u[frac] + fm
	}
	if n == 0 || n > 15 {
		return 0, j, false
	}
	f := float64(m) / pow10f[frac]
	if neg {
		f = -f
	}
	return f, j, true
}

// skipBlanks returns b without its leading blanks.
func skipBlanks(b []byte) []byte { return b[skip(b, 0):] }
