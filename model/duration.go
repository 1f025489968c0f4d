package model

import (
	"math"
	"math/bits"
	"strconv"
	"time"
)

// Duration converts t ticks to a time.Duration, rounding to the nearest
// nanosecond (halves away from zero) and saturating at the range of
// time.Duration (about 292 years). It is exact for clocks of up to one
// tick per nanosecond and computes in integers, so unlike [TimeBase.Seconds]
// it loses nothing for long traces. The zero TimeBase takes a tick as one
// second.
func (b TimeBase) Duration(t Time) time.Duration {
	tps := b.TicksPerSecond
	if tps == 0 {
		tps = 1
	}
	neg := t < 0
	u := uint64(t)
	if neg {
		u = -u
	}
	hi, lo := bits.Mul64(u, 1e9)
	// Round half away from zero: add tps/2 to the 128-bit product.
	var c uint64
	lo, c = bits.Add64(lo, tps/2, 0)
	hi += c
	if hi >= tps {
		if neg {
			return math.MinInt64
		}
		return math.MaxInt64
	}
	q, _ := bits.Div64(hi, lo, tps)
	if q > math.MaxInt64 {
		if neg {
			return math.MinInt64
		}
		return math.MaxInt64
	}
	if neg {
		return -time.Duration(q)
	}
	return time.Duration(q)
}

// FromDuration converts d to ticks, rounding to the nearest tick (halves
// away from zero) and saturating at the int64 range. The zero TimeBase
// takes a tick as one second.
func (b TimeBase) FromDuration(d time.Duration) Time {
	tps := b.TicksPerSecond
	if tps == 0 {
		tps = 1
	}
	neg := d < 0
	u := uint64(d)
	if neg {
		u = -u
	}
	hi, lo := bits.Mul64(u, tps)
	var c uint64
	lo, c = bits.Add64(lo, 1e9/2, 0)
	hi += c
	if hi >= 1e9 {
		if neg {
			return math.MinInt64
		}
		return math.MaxInt64
	}
	q, _ := bits.Div64(hi, lo, 1e9)
	if q > math.MaxInt64 {
		if neg {
			return math.MinInt64
		}
		return math.MaxInt64
	}
	if neg {
		return -Time(q)
	}
	return Time(q)
}

// String describes the resolution: "1 ns", "1 µs", "1 ms", "1 s" for the
// decimal clocks, otherwise "N ticks/s"; the zero TimeBase is "unknown".
func (b TimeBase) String() string {
	switch b.TicksPerSecond {
	case 0:
		return "unknown"
	case 1_000_000_000:
		return "1 ns"
	case 1_000_000:
		return "1 µs"
	case 1_000:
		return "1 ms"
	case 1:
		return "1 s"
	}
	return strconv.FormatUint(b.TicksPerSecond, 10) + " ticks/s"
}

// Format returns t as a readable duration, scaled to the largest unit
// that keeps it at least 1: "0", "850 ns", "12.500 µs", "1.843 ms", "2.000 s"
// (times of a second and more stay in seconds). It shows at most three
// decimals and none the clock cannot resolve: on a microsecond clock
// 955 µs is "955 µs", not "955.000 µs". The zero TimeBase formats
// "N ticks".
func (b TimeBase) Format(t Time) string {
	if b.TicksPerSecond == 0 {
		return strconv.FormatInt(int64(t), 10) + " ticks"
	}
	return formatDuration(b.Duration(t), b.TicksPerSecond)
}

// FormatDuration formats d as [TimeBase.Format] does for a nanosecond
// clock: "850 ns", "12.500 µs", "1.843 ms", "2.000 s".
func FormatDuration(d time.Duration) string { return formatDuration(d, 1e9) }

// formatDuration formats d with the decimals a clock of tps ticks per
// second resolves, at most three.
func formatDuration(d time.Duration, tps uint64) string {
	a := d
	if a < 0 {
		a = -a
	}
	var unit string
	var div float64
	switch {
	case a == 0:
		return "0"
	case a < time.Microsecond:
		return strconv.FormatInt(int64(d), 10) + " ns"
	case a < time.Millisecond:
		unit, div = " µs", 1e3
	case a < time.Second:
		unit, div = " ms", 1e6
	default:
		unit, div = " s", 1e9
	}
	// A tick lasts 1e9/tps ns; a unit of div ns holds div*tps/1e9 ticks,
	// which need log10 of that many decimals.
	dec := int(math.Ceil(math.Log10(div * float64(tps) / 1e9)))
	dec = min(max(dec, 0), 3)
	return strconv.FormatFloat(float64(d)/div, 'f', dec, 64) + unit
}

// LocationName returns the name of location id, or "loc N" (N its id)
// when it has none or is not defined.
func (d *Defs) LocationName(id LocID) string {
	if l, ok := d.Location(id); ok && l.Name != "" {
		return l.Name
	}
	return "loc " + strconv.FormatUint(uint64(id), 10)
}

// RegionName returns the name of region id, or "region N" (N its id) when
// it has none or is not defined.
func (d *Defs) RegionName(id RegionID) string {
	if r, ok := d.Region(id); ok && r.Name != "" {
		return r.Name
	}
	return "region " + strconv.FormatUint(uint64(id), 10)
}
