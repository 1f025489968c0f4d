package chrome

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"

	"github.com/hpctrace/hpctrace/model"
)

// maxDigits bounds the digits and the exponent of a number the reader
// converts exactly; beyond them a number is out of range (a timestamp of
// 10^400 µs is not a time).
const maxDigits = 400

// ticker converts decimal microseconds to ticks, exactly: the decimal
// number is read as an integer and a power of ten, and the product with the
// ticks per second is rounded once, half away from zero. It reuses its
// big integers, so a conversion allocates only for long numbers.
type ticker struct {
	tpsU         uint64
	tps          big.Int // ticks per second
	m, q, r, pow big.Int
	ten, half    big.Int
}

func newTicker(tps uint64) *ticker {
	t := &ticker{tpsU: tps}
	t.tps.SetUint64(tps)
	t.ten.SetInt64(10)
	return t
}

// ticks converts s, a JSON number of microseconds, to ticks.
func (t *ticker) ticks(s string) (model.Time, error) {
	i, neg := 0, false
	if i < len(s) && s[i] == '-' {
		neg = true
		i++
	}
	digits := 0
	exp := 0 // the value is m × 10^exp
	var small uint64
	t.m.SetInt64(0)
	long := false
	addDigit := func(d byte) {
		if !long && small <= (math.MaxUint64-9)/10 {
			small = small*10 + uint64(d)
			return
		}
		if !long {
			t.m.SetUint64(small)
			long = true
		}
		t.m.Mul(&t.m, &t.ten)
		t.m.Add(&t.m, t.r.SetUint64(uint64(d)))
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		addDigit(s[i] - '0')
		digits++
		i++
	}
	if i == start {
		return 0, fmt.Errorf("%w: number %q", ErrSyntax, s)
	}
	if i < len(s) && s[i] == '.' {
		i++
		f := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			addDigit(s[i] - '0')
			digits++
			exp--
			i++
		}
		if i == f {
			return 0, fmt.Errorf("%w: number %q", ErrSyntax, s)
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		e, f := 0, i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			if e < 10*maxDigits {
				e = e*10 + int(s[i]-'0')
			}
			i++
		}
		if i == f {
			return 0, fmt.Errorf("%w: number %q", ErrSyntax, s)
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if i != len(s) {
		return 0, fmt.Errorf("%w: number %q", ErrSyntax, s)
	}
	if !long {
		if small == 0 {
			return 0, nil
		}
		if v, ok := t.fast(small, exp-6, neg); ok {
			return v, nil
		}
		t.m.SetUint64(small)
	}
	if t.m.Sign() == 0 {
		return 0, nil
	}
	if digits > maxDigits || exp > maxDigits || exp < -2*maxDigits {
		return 0, fmt.Errorf("%w: %s µs", ErrRange, s)
	}
	// ticks = m × tps × 10^(exp-6)
	t.q.Mul(&t.m, &t.tps)
	k := exp - 6
	if k >= 0 {
		t.pow.Exp(&t.ten, t.r.SetInt64(int64(k)), nil)
		t.q.Mul(&t.q, &t.pow)
	} else {
		t.pow.Exp(&t.ten, t.r.SetInt64(int64(-k)), nil)
		t.half.Rsh(&t.pow, 1)
		t.q.Add(&t.q, &t.half)
		t.q.Quo(&t.q, &t.pow)
	}
	if neg {
		t.q.Neg(&t.q)
	}
	if !t.q.IsInt64() {
		return 0, fmt.Errorf("%w: %s µs beyond the clock's int64 ticks", ErrRange, s)
	}
	return model.Time(t.q.Int64()), nil
}

// pow10 holds the powers of ten that fit a uint64.
var pow10 = func() (p [20]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// fast converts m × tps × 10^k in 128 bits where the result allows it,
// rounding half away from zero as the big path does.
func (t *ticker) fast(m uint64, k int, neg bool) (model.Time, bool) {
	hi, lo := bits.Mul64(m, t.tpsU)
	var q uint64
	switch {
	case k >= 0 && k < len(pow10):
		if hi != 0 {
			return 0, false
		}
		h2, l2 := bits.Mul64(lo, pow10[k])
		if h2 != 0 {
			return 0, false
		}
		q = l2
	case k < 0 && -k < len(pow10):
		p := pow10[-k]
		var c uint64
		lo, c = bits.Add64(lo, p/2, 0)
		hi += c
		if hi >= p {
			return 0, false
		}
		q, _ = bits.Div64(hi, lo, p)
	default:
		return 0, false
	}
	if q > math.MaxInt64 {
		return 0, false // the big path tells a range error from -2^63
	}
	if neg {
		return -model.Time(q), true
	}
	return model.Time(q), true
}
