package model

import (
	"math"
	"testing"
	"time"

	"pgregory.net/rapid"
)

func TestTimeBaseDuration(t *testing.T) {
	for _, tc := range []struct {
		tps  uint64
		t    Time
		want time.Duration
	}{
		{1_000_000_000, 1, 1},
		{1_000_000, 1500, 1500 * time.Microsecond},
		{1_000_000, -3, -3 * time.Microsecond},
		{0, 2, 2 * time.Second}, // unknown: a tick is a second
		{3, 1, 333_333_333},     // rounded to the nearest ns
		{3, 2, 666_666_667},
		{2_000_000_000, 1, 1}, // 0.5 ns rounds away from zero
		{2_000_000_000, -1, -1},
		{1_000_000_000, math.MaxInt64, math.MaxInt64},
		{1, math.MaxInt64, math.MaxInt64}, // saturates
		{1, math.MinInt64, math.MinInt64},
		{1_000_000_000_000, math.MaxInt64, 9_223_372_036_854_776}, // ps: no overflow in the product, rounded
	} {
		b := TimeBase{TicksPerSecond: tc.tps}
		if got := b.Duration(tc.t); got != tc.want {
			t.Errorf("TimeBase{%d}.Duration(%d) = %d, want %d", tc.tps, tc.t, got, tc.want)
		}
	}
}

func TestTimeBaseFromDuration(t *testing.T) {
	for _, tc := range []struct {
		tps  uint64
		d    time.Duration
		want Time
	}{
		{1_000_000, 1500 * time.Microsecond, 1500},
		{1_000_000, 1499, 1}, // 1.499 µs rounds to 1
		{1_000_000, 1500, 2}, // halves away from zero
		{1_000_000, -1500, -2},
		{0, 3 * time.Second, 3},
		{1_000_000_000_000, math.MaxInt64, math.MaxInt64}, // saturates
	} {
		b := TimeBase{TicksPerSecond: tc.tps}
		if got := b.FromDuration(tc.d); got != tc.want {
			t.Errorf("TimeBase{%d}.FromDuration(%v) = %d, want %d", tc.tps, tc.d, got, tc.want)
		}
	}
	// Round trip for a µs clock.
	b := TimeBase{TicksPerSecond: 1_000_000}
	for _, v := range []Time{0, 1, 999, 123456789, -42} {
		if got := b.FromDuration(b.Duration(v)); got != v {
			t.Errorf("round trip of %d gives %d", v, got)
		}
	}
}

func TestTimeBaseFormat(t *testing.T) {
	ns := TimeBase{TicksPerSecond: 1_000_000_000}
	for _, tc := range []struct {
		b    TimeBase
		t    Time
		want string
	}{
		{ns, 850, "850 ns"},
		{ns, 0, "0"},
		{ns, 12_500, "12.500 µs"},
		{ns, 1_843_000, "1.843 ms"},
		{ns, 2_000_000_000, "2.000 s"},
		{ns, -1_500_000, "-1.500 ms"},
		{TimeBase{TicksPerSecond: 1_000_000}, 1843, "1.843 ms"},
		{TimeBase{}, 42, "42 ticks"},
	} {
		if got := tc.b.Format(tc.t); got != tc.want {
			t.Errorf("%v.Format(%d) = %q, want %q", tc.b, tc.t, got, tc.want)
		}
	}
	if s := (TimeBase{TicksPerSecond: 1_000_000}).String(); s != "1 µs" {
		t.Errorf("String = %q", s)
	}
}

func TestTimeBaseFormatResolution(t *testing.T) {
	us := TimeBase{TicksPerSecond: 1_000_000}
	for _, tc := range []struct {
		b    TimeBase
		t    Time
		want string
	}{
		{us, 955, "955 µs"},
		{us, 3300, "3.300 ms"},
		{us, 1_843_217, "1.843 s"},
		{TimeBase{TicksPerSecond: 1000}, 12, "12 ms"},
		{TimeBase{TicksPerSecond: 1000}, 1234, "1.234 s"},
		{TimeBase{TicksPerSecond: 100}, 123, "1.23 s"},
	} {
		if got := tc.b.Format(tc.t); got != tc.want {
			t.Errorf("%v.Format(%d) = %q, want %q", tc.b, tc.t, got, tc.want)
		}
	}
}

// TestDurationRoundTrip: on a clock of at most one tick per nanosecond,
// ticks → Duration → ticks is exact wherever the Duration does not
// saturate, and Duration is monotone.
func TestDurationRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tps := rapid.Uint64Range(1, 1_000_000_000).Draw(t, "tps")
		b := TimeBase{TicksPerSecond: tps}
		limit := int64(math.MaxInt64 / 1_000_000_000 * int64(tps) / 2) // well inside the Duration range
		if tps > 9 {
			limit = math.MaxInt64 / 2
		}
		v := Time(rapid.Int64Range(-limit, limit).Draw(t, "t"))
		d := b.Duration(v)
		if d == math.MaxInt64 || d == math.MinInt64 {
			return
		}
		if got := b.FromDuration(d); got != v {
			t.Fatalf("TimeBase{%d}: %d ticks → %v → %d ticks", tps, v, d, got)
		}
		if b.Duration(v+1) < d {
			t.Fatalf("TimeBase{%d}: Duration(%d) = %v > Duration(%d) = %v", tps, v, d, v+1, b.Duration(v+1))
		}
	})
}
