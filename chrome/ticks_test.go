package chrome

import (
	"math/big"
	"strconv"
	"testing"

	"pgregory.net/rapid"
)

// TestTicksExact checks the conversion of decimal microseconds to ticks,
// the 128-bit path and the big one, against exact rational arithmetic.
func TestTicksExact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tps := rapid.SampledFrom([]uint64{1, 1e6, 1e9, 2_500_000_000, 3_000_000_007, 1e12, 1 << 62, 1<<64 - 1}).Draw(t, "tps")
		whole := rapid.Uint64Range(0, 1<<62).Draw(t, "whole")
		frac := rapid.StringMatching(`[0-9]{0,25}`).Draw(t, "frac")
		neg := rapid.Bool().Draw(t, "neg")
		s := strconv.FormatUint(whole, 10)
		if frac != "" {
			s += "." + frac
		}
		if neg {
			s = "-" + s
		}
		got, err := newTicker(tps).ticks(s)
		// want: round half away from zero of s × tps / 10^6
		r, ok := new(big.Rat).SetString(s)
		if !ok {
			t.Fatalf("bad test number %q", s)
		}
		r.Mul(r, new(big.Rat).SetFrac(new(big.Int).SetUint64(tps), big.NewInt(1e6)))
		num, den := new(big.Int).Abs(r.Num()), r.Denom()
		q := new(big.Int).Add(new(big.Int).Lsh(num, 1), den)
		q.Quo(q, new(big.Int).Lsh(den, 1))
		if r.Sign() < 0 {
			q.Neg(q)
		}
		if !q.IsInt64() {
			if err == nil {
				t.Fatalf("ticks(%q) at %d = %d, want a range error", s, tps, got)
			}
			return
		}
		if err != nil || int64(got) != q.Int64() {
			t.Fatalf("ticks(%q) at %d = %d, %v; want %v", s, tps, got, err, q)
		}
	})
}
