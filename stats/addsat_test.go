package stats

import (
	"math"
	"math/big"
	"testing"

	"pgregory.net/rapid"
)

// TestAddSat checks the saturating addition against exact arithmetic,
// near the limits as well.
func TestAddSat(t *testing.T) {
	edge := rapid.SampledFrom([]int64{0, 1, -1, math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1})
	num := rapid.OneOf(rapid.Int64(), edge)
	rapid.Check(t, func(t *rapid.T) {
		p, v := num.Draw(t, "p"), num.Draw(t, "v")
		var a Accumulator
		got := p
		a.addSat(&got, v)
		exact := new(big.Int).Add(big.NewInt(p), big.NewInt(v))
		want, over := exact.Int64(), 0
		if !exact.IsInt64() {
			over = 1
			want = math.MaxInt64
			if exact.Sign() < 0 {
				want = math.MinInt64
			}
		}
		if got != want || a.diag.Overflow != int64(over) {
			t.Fatalf("addSat(%d, %d) = %d, overflows %d; want %d, %d", p, v, got, a.diag.Overflow, want, over)
		}
	})
}
