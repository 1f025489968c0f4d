package picl

// The fast path: one pass over a plain, well-formed line that splits and
// converts every field as it goes. It accepts only lines on which lenient
// and strict reading agree and set no flag, so it never has to build an
// error: anything unusual (a '+' sign, an exponent, a long number, a quoted
// string value, missing or extra text, an undecoded or %c control string…)
// makes it give up, and the general parser in reader.go reads the line
// again from the start and reports whatever is wrong. FuzzFastLine checks
// that both paths agree on every line the fast path accepts.

// isBlank reports whether c is a field separator (textscan.IsBlank, kept
// here so that the hot loops inline it).
func isBlank(c byte) bool { return c == ' ' || c == '\t' }

// fastLine decodes line into r.rec and r.ctl, which parse has cleared. It
// returns false when the line needs the general parser; r.rec and r.data
// may then hold partial results, which the general parser overwrites.
func (r *Reader) fastLine(line []byte) bool {
	rec := &r.rec
	var v [5]int64 // type, event, processor, process, count
	i := 0
	for k := range v {
		if k == 2 { // the timestamp comes third
			for i < len(line) && isBlank(line[i]) {
				i++
			}
			start := i
			f, j, ok := fastFloat(line, i)
			if !ok || j == len(line) || !isBlank(line[j]) {
				return false
			}
			rec.Time, rec.TimeText = f, line[start:j:j]
			i = j
		}
		for i < len(line) && isBlank(line[i]) {
			i++
		}
		x, j, ok := fastInt(line, i, 9)
		if !ok {
			return false
		}
		v[k], i = x, j
	}
	if v[4] < 0 {
		return false
	}
	rec.Type, rec.Event, rec.Processor, rec.Process, rec.Count = RecordType(v[0]), EventType(v[1]), int32(v[2]), int32(v[3]), int(v[4])
	for i < len(line) && isBlank(line[i]) {
		i++
	}
	if rec.Count == 0 {
		return i == len(line)
	}
	if i == len(line) {
		return false
	}

	// Descriptor: an alias or a quoted control string.
	var ctl *control
	if line[i] == '"' {
		j := i + 1
		for j < len(line) && line[j] != '"' {
			j++
		}
		if j == len(line) || (j+1 < len(line) && !isBlank(line[j+1])) {
			return false
		}
		q := r.cache.quotedControl(line[i : j+1])
		rec.Descriptor, ctl = q.token, q.ctl
		i = j + 1
	} else {
		start := i
		alias, j, ok := fastInt(line, i, 9)
		if !ok || line[start] == '-' {
			return false
		}
		i = j
		rec.Descriptor = r.cache.aliasToken(line[start:i], alias)
		ctl = r.scope.resolve(alias, rec.Event, rec.Processor, rec.Process)
	}
	if ctl == nil || ctl.undecoded || ctl.chars {
		return false
	}
	rec.Control = ctl.text

	// Data: Count repetitions of the conversions, each value after blanks.
	data := r.data[:0]
	for range rec.Count {
		for _, c := range ctl.convs {
			for i < len(line) && isBlank(line[i]) {
				i++
			}
			if i == len(line) {
				r.data = data
				return false
			}
			start := i
			var val Value
			switch c {
			case convInt:
				x, j, ok := fastInt(line, i, 18)
				if !ok {
					r.data = data
					return false
				}
				i = j
				val = Value{Kind: KindInt, Int: x, Text: line[start:i:i]}
			case convFloat:
				f, j, ok := fastFloat(line, i)
				if !ok || (j < len(line) && !isBlank(line[j])) {
					r.data = data
					return false
				}
				i = j
				val = Value{Kind: KindFloat, Float: f, Text: line[start:i:i]}
			case convString:
				if line[i] == '"' {
					r.data = data
					return false
				}
				for i < len(line) && !isBlank(line[i]) {
					i++
				}
				val = Value{Kind: KindString, Text: line[start:i:i]}
			default:
				r.data = data
				return false
			}
			data = append(data, val)
		}
	}
	r.data = data
	for i < len(line) && isBlank(line[i]) {
		i++
	}
	if i != len(line) {
		return false
	}
	rec.Data = data
	r.ctl = ctl
	return true
}

// fastInt parses a plain integer token at line[i]: an optional '-' and 1 to
// maxDigits (at most 18) decimal digits, followed by a blank or the end of
// the line. It returns the value and the index after the token, or false.
func fastInt(line []byte, i, maxDigits int) (int64, int, bool) {
	neg := i < len(line) && line[i] == '-'
	if neg {
		i++
	}
	x, j := digits(line, i)
	if j == i || j-i > maxDigits || (j < len(line) && !isBlank(line[j])) {
		return 0, j, false
	}
	if neg {
		return -int64(x), j, true
	}
	return int64(x), j, true
}

// digits reads the decimal digits from line[i] on. It returns their value
// (wrapped past 19 digits, so callers bound the count) and the index after
// them.
func digits(line []byte, i int) (uint64, int) {
	var x uint64
	for ; i < len(line); i++ {
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
