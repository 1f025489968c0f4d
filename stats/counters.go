package stats

import (
	"cmp"
	"math"
	"slices"
	"strconv"

	"github.com/hpctrace/hpctrace/model"
)

// CounterSummary summarises the samples of one counter (a PAPI counter, a
// metric plugin's value) on one location. Values are the counter's own:
// integers, or the doubles of a Float counter ([model.Counter.Float]),
// both given as float64 here (integers beyond 2^53 lose their last
// digits).
//
// Rate is (Last − First) / (LastTime − FirstTime), per second when the
// trace's clock rate is known (per tick otherwise), and 0 with fewer than
// two samples at distinct times. For an accumulating counter (a total that
// only grows, such as PAPI_TOT_INS) it is the mean rate of what it counts,
// such as instructions per second. For an instantaneous counter (a
// reading, such as a temperature or a memory size) it is the mean rate of
// change of the reading over the span, its slope: not a throughput; Mean
// is then the number to read (the mean of the samples, not weighted by
// time).
type CounterSummary struct {
	LocID        model.LocID     `json:"loc_id"`
	Loc          int64           `json:"loc"`
	CounterID    model.CounterID `json:"-"`
	Counter      string          `json:"counter"`
	Unit         string          `json:"unit,omitempty"`
	Accumulating bool            `json:"accumulating"`
	Float        bool            `json:"float,omitempty"`
	Samples      int64           `json:"samples"`
	FirstTime    model.Time      `json:"first_time"` // ticks
	LastTime     model.Time      `json:"last_time"`  // ticks
	First        Real            `json:"first"`
	Last         Real            `json:"last"`
	Min          Real            `json:"min"`
	Max          Real            `json:"max"`
	Mean         Real            `json:"mean"`
	Rate         Real            `json:"rate"` // (Last − First) per second of LastTime − FirstTime
}

// Real is a float64 that marshals to JSON in the shortest form that reads
// back exactly, with NaN and infinities (which a Float counter may hold)
// as null.
type Real float64

// MarshalJSON writes r, or null for NaN and infinities.
func (r Real) MarshalJSON() ([]byte, error) {
	v := float64(r)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, v, 'g', -1, 64), nil
}

type counterKey struct {
	loc model.LocID
	ctr model.CounterID
}

// counterStat is the mergeable summary of one (location, counter): the
// count, the first and last samples with their times, and the extremes
// and sum of the values as float64.
type counterStat struct {
	n             int64
	firstT, lastT model.Time
	first, last   float64
	min, max, sum float64
	float         bool // the values were decoded as IEEE doubles
}

// counterValue decodes the value of a counter event.
func counterValue(v int64, float bool) float64 {
	if float {
		return math.Float64frombits(uint64(v))
	}
	return float64(v)
}

// counter accounts one counter sample.
func (a *Accumulator) counter(ev *model.Event) {
	// The definition in place, not a copy of it (Defs.Counter).
	cs := a.defs.Counters()
	if ev.Counter == 0 || int(ev.Counter) > len(cs) {
		a.diag.Ignored++
		return
	}
	c := &cs[ev.Counter-1]
	if a.ctrs == nil {
		a.ctrs = make(map[counterKey]*counterStat)
	}
	k := counterKey{ev.Loc, ev.Counter}
	s := a.ctrs[k]
	if s == nil {
		s = &counterStat{float: c.Float}
		a.ctrs[k] = s
	}
	s.add(ev.Time, counterValue(ev.Value, c.Float))
}

func (s *counterStat) add(t model.Time, v float64) {
	if s.n == 0 || t < s.firstT {
		s.firstT, s.first = t, v
	}
	if s.n == 0 || t >= s.lastT {
		s.lastT, s.last = t, v
	}
	s.addValues(1, v, v, v)
}

// addValues adds n samples of extremes lo, hi and sum sum.
func (s *counterStat) addValues(n int64, lo, hi, sum float64) {
	if s.n == 0 {
		s.min, s.max = lo, hi
	} else {
		s.min, s.max = math.Min(s.min, lo), math.Max(s.max, hi)
	}
	s.n += n
	s.sum += sum
}

// merge adds the samples of o (of the same location and counter) to s.
func (s *counterStat) merge(o *counterStat) {
	if o.n == 0 {
		return
	}
	if s.n == 0 || o.firstT < s.firstT {
		s.firstT, s.first = o.firstT, o.first
	}
	if s.n == 0 || o.lastT > s.lastT {
		s.lastT, s.last = o.lastT, o.last
	}
	s.float = s.float || o.float
	s.addValues(o.n, o.min, o.max, o.sum)
}

// counters returns the counter summaries, by location then counter id.
func (b *finalizer) counters() []CounterSummary {
	c := b.c
	keys := make([]counterKey, 0, len(c.ctrs))
	for k, s := range c.ctrs {
		if s.n > 0 {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	slices.SortFunc(keys, func(x, y counterKey) int { return cmp.Or(cmp.Compare(x.loc, y.loc), cmp.Compare(x.ctr, y.ctr)) })
	out := make([]CounterSummary, 0, len(keys))
	for _, k := range keys {
		s := c.ctrs[k]
		def, _ := c.defs.Counter(k.ctr)
		name := escapeName(def.Name)
		if def.Name == "" {
			name = strconv.FormatInt(def.Native, 10)
		}
		x := CounterSummary{LocID: k.loc, Loc: b.nm.loc(k.loc), CounterID: k.ctr, Counter: name, Unit: escapeName(def.Unit),
			Accumulating: def.Accumulating, Float: s.float, Samples: s.n, FirstTime: model.Time(s.firstT), LastTime: model.Time(s.lastT),
			First: Real(s.first), Last: Real(s.last), Min: Real(s.min), Max: Real(s.max), Mean: Real(s.sum / float64(s.n))}
		if span := float64(s.lastT) - float64(s.firstT); span > 0 {
			if tps := c.defs.TimeBase.TicksPerSecond; tps > 0 {
				span /= float64(tps)
			}
			x.Rate = Real((s.last - s.first) / span)
		}
		out = append(out, x)
	}
	return out
}
