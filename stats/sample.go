package stats

import (
	"slices"

	"github.com/hpctrace/hpctrace/model"
)

// Sample is the state of the monotone cumulative statistics at a time T
// (doc/stats.md §9): events before T are included, events at exactly T are
// not, and open region instances contribute their time up to T. Every value
// is non-decreasing in T, so the statistics of an interval [a, b) are
// Sample(b) - Sample(a), field by field (see [Sample.Sub]).
type Sample struct {
	Time        model.Time  `json:"-"`
	Diagnostics Diagnostics `json:"diagnostics"`
	Functions   []Function  `json:"functions"` // by (location, region); only regions visited before T
}

// Sample returns the cumulative statistics at time t. It is exact when every
// event with a time before t has been added and none at or after t; use
// Options.SampleTimes to have Add take samples at the right moment while
// streaming. It covers the events added to a, not the accumulators merged
// into it (their samples are in the Report). Sample does not modify a.
func (a *Accumulator) Sample(t model.Time) Sample {
	s := Sample{Time: t, Diagnostics: a.diag}
	for li := range a.locs {
		ls := &a.locs[li]
		if !ls.seen {
			continue
		}
		// Partial contributions of open frames.
		type partial struct {
			act, excl int64
			since     model.Time // the Enter of the region's outermost open instance
		}
		var parts map[model.RegionID]partial
		for i := range ls.stack {
			f := &ls.stack[i]
			end := t
			if i+1 < len(ls.stack) {
				end = min(ls.stack[i+1].enter, t)
			}
			if parts == nil {
				parts = make(map[model.RegionID]partial)
			}
			p, ok := parts[f.region]
			if !ok {
				p.since = f.enter
			}
			p.act += max(int64(t-f.enter), 0)
			p.excl += max(int64(end-f.enter)-f.child, 0)
			parts[f.region] = p
		}
		for r, fs := range ls.funcs.all() {
			if fs.visits == 0 {
				continue
			}
			fn := a.function(model.LocID(li), r, fs)
			if p, ok := parts[r]; ok {
				fn.Incl += max(t-p.since, 0)
				fn.InclActivationSum += model.Time(p.act)
				fn.Excl += model.Time(p.excl)
			}
			s.Functions = append(s.Functions, fn)
		}
	}
	return s
}

// Sub returns s - prev field by field: the statistics of [prev.Time, s.Time).
// Functions absent from prev count as zero there; Min and Max are not
// differences and are left zero.
func (s Sample) Sub(prev Sample) Sample {
	out := Sample{Time: s.Time}
	d, p := s.Diagnostics, prev.Diagnostics
	out.Diagnostics = Diagnostics{
		MatchedMessages: d.MatchedMessages - p.MatchedMessages, UnmatchedSend: d.UnmatchedSend - p.UnmatchedSend,
		UnmatchedRecv: d.UnmatchedRecv - p.UnmatchedRecv, PendingEvicted: d.PendingEvicted - p.PendingEvicted,
		LeaveRegionMismatch: d.LeaveRegionMismatch - p.LeaveRegionMismatch, UnmatchedLeave: d.UnmatchedLeave - p.UnmatchedLeave,
		OpenAtEnd: d.OpenAtEnd - p.OpenAtEnd, OpenCollectives: d.OpenCollectives - p.OpenCollectives,
		UnmatchedCollEnd: d.UnmatchedCollEnd - p.UnmatchedCollEnd, NonMonotonic: d.NonMonotonic - p.NonMonotonic,
		Backward: d.Backward - p.Backward, VClockClamped: d.VClockClamped - p.VClockClamped,
		TraceLost: d.TraceLost - p.TraceLost, Ignored: d.Ignored - p.Ignored, Overflow: d.Overflow - p.Overflow,
	}
	type key struct {
		l model.LocID
		r model.RegionID
	}
	old := make(map[key]Function, len(prev.Functions))
	for _, f := range prev.Functions {
		old[key{f.LocID, f.RegionID}] = f
	}
	for _, f := range s.Functions {
		o := old[key{f.LocID, f.RegionID}]
		f.Visits -= o.Visits
		f.Incl -= o.Incl
		f.Excl -= o.Excl
		f.InclActivationSum -= o.InclActivationSum
		f.Min, f.Max = 0, 0
		if f.Visits != 0 || f.Incl != 0 || f.Excl != 0 || f.InclActivationSum != 0 {
			out.Functions = append(out.Functions, f)
		}
	}
	return out
}

// mergeSamples adds the samples of b into a, matching them by time.
func mergeSamples(a, b []Sample) []Sample {
	for _, sb := range b {
		i, found := slices.BinarySearchFunc(a, sb.Time, func(s Sample, t model.Time) int { return cmpTime(s.Time, t) })
		if !found {
			a = slices.Insert(a, i, Sample{Time: sb.Time})
		}
		sa := &a[i]
		sa.Diagnostics.add(&sb.Diagnostics)
		sa.Functions = mergeFunctions(sa.Functions, sb.Functions)
	}
	return a
}

func cmpTime(a, b model.Time) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// mergeFunctions merges two lists sorted by (location, region), adding
// records with equal keys.
func mergeFunctions(a, b []Function) []Function {
	out := make([]Function, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && lessFn(&a[i], &b[j])):
			out = append(out, a[i])
			i++
		case i == len(a) || lessFn(&b[j], &a[i]):
			out = append(out, b[j])
			j++
		default:
			f := a[i]
			g := b[j]
			f.Visits += g.Visits
			f.Incl += g.Incl
			f.Excl += g.Excl
			f.InclActivationSum += g.InclActivationSum
			f.Min = min(f.Min, g.Min)
			f.Max = max(f.Max, g.Max)
			out = append(out, f)
			i++
			j++
		}
	}
	return out
}

func lessFn(a, b *Function) bool {
	if a.LocID != b.LocID {
		return a.LocID < b.LocID
	}
	return a.RegionID < b.RegionID
}
