package stats

import (
	"strconv"

	"github.com/hpctrace/hpctrace/model"
)

// FormatBytes returns n bytes in binary units: "512 B", "16.0 KiB",
// "1.5 MiB", "2.0 GiB", "1.0 TiB".
func FormatBytes(n int64) string {
	a := n
	if a < 0 {
		a = -a
	}
	if a < 1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	v := float64(n) / 1024
	for _, unit := range []string{" KiB", " MiB", " GiB"} {
		if v < 1024 && v > -1024 {
			return strconv.FormatFloat(v, 'f', 1, 64) + unit
		}
		v /= 1024
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + " TiB"
}

// FormatTime returns t ticks of the report's clock as a readable,
// auto-scaled duration ("850 ns", "12.500 µs", "1.843 ms", "2.000 s"), or
// "N ticks" when the clock is unknown; see [model.TimeBase.Format].
func (r *Report) FormatTime(t model.Time) string {
	return model.TimeBase{TicksPerSecond: r.TicksPerSecond}.Format(t)
}
