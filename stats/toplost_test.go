package stats

import (
	"cmp"
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestTopLost: topLost gives the rows a stable sort by lost time (largest
// first, NaN last) puts first, one more than asked when there are more,
// with ties and NaN among them.
func TestTopLost(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		vals := rapid.SliceOf(rapid.SampledFrom([]float64{0, 1, 2, 2, 3, -1, math.NaN(), math.Inf(1)})).Draw(rt, "lost")
		top := rapid.IntRange(-1, len(vals)+1).Draw(rt, "top")
		imb := make([]textImb, len(vals))
		for i, v := range vals {
			imb[i].lost = F6(v)
		}
		want := make([]int, len(imb))
		for i := range want {
			want[i] = i
		}
		slices.SortStableFunc(want, func(a, b int) int { return cmp.Compare(float64(imb[b].lost), float64(imb[a].lost)) })
		if top >= 0 && top < len(want) {
			want = want[:top+1]
		}
		if got := topLost(imb, top); !slices.Equal(got, want) {
			rt.Fatalf("topLost(%v, %d) = %v, want %v", vals, top, got, want)
		}
	})
}
