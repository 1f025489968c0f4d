package picl

import (
	"iter"
	"math"
	"slices"

	"github.com/hpctrace/hpctrace/model"
)

// A Stat is one pair of a statistics record (-101, -102, -103): the
// statistic of event type (or event subset) Event measured relative to the
// record's event type, at the record's location (doc/picl.md §6.4).
type Stat struct {
	Type       RecordType // RecordStatTime, RecordStatCount or RecordStatVolume
	RelativeTo EventType  // field 2 of the record: -1 or -901 for the whole run
	Processor  int32
	Process    int32
	Event      EventType // the event type or event-subset id described
	Value      float64   // seconds (time, the format's native unit), occurrences (count) or volume
	Unknown    bool      // the record gives -1: not measured or not defined
}

// Stats returns an iterator over the complete (event, value) pairs of a
// statistics record; it yields nothing for other records and skips pairs
// whose first value is not an integer.
func (r *Record) Stats() iter.Seq[Stat] {
	return func(yield func(Stat) bool) {
		if !r.Type.IsStatistics() {
			return
		}
		for _, f := range r.Fields() {
			if len(f) != 2 || f[0].Kind != KindInt || f[0].Int != int64(int32(f[0].Int)) {
				continue
			}
			s := Stat{Type: r.Type, RelativeTo: r.Event, Processor: r.Processor, Process: r.Process, Event: EventType(f[0].Int)}
			switch v := f[1]; v.Kind {
			case KindInt:
				s.Value = float64(v.Int)
			case KindFloat:
				s.Value = v.Float
			default:
				continue
			}
			s.Unknown = s.Value == -1
			if s.Unknown {
				s.Value = 0
			}
			if !yield(s) {
				return
			}
		}
	}
}

// MergeStats merges the statistics records of recs: PICL may write several
// records with the same (record type, event type, processor, process), for
// instance one for system and one for user events, and their pairs add up
// (doc/picl.md §11, A15). It returns one Stat per distinct (Type, RelativeTo,
// Processor, Process, Event), in order of first appearance, with the values
// summed; a Stat is Unknown only if every pair for it was -1. Its memory is
// the result, one Stat per distinct key plus a map over the keys.
func MergeStats(recs []Record) []Stat {
	type key struct {
		t         RecordType
		rel, ev   EventType
		proc, pid int32
	}
	index := make(map[key]int)
	var out []Stat
	for i := range recs {
		for s := range recs[i].Stats() {
			k := key{s.Type, s.RelativeTo, s.Event, s.Processor, s.Process}
			j, ok := index[k]
			if !ok {
				index[k] = len(out)
				out = append(out, s)
				continue
			}
			m := &out[j]
			m.Value += s.Value
			m.Unknown = m.Unknown && s.Unknown
		}
	}
	return out
}

// RelativeStats returns PICL's conventions for its -101 (time), -102
// (count) and -103 (volume) statistics records as a [model.RelativeStats]:
// the statistics relative to the event types relativeTo (-1, the whole
// traced portion, if none are given), the -901 volume (the trace bytes
// PICL buffered) unknown, and PICL's predefined event-type subsets (PICL
// report, Table 5: -1001 all user types, -1002 all system types, -1011
// interprocess communication, …). A ModelSource sets it in Defs().Relative
// (see [NewModelSource]); a caller that wants PICL's statistics of a trace
// of another format sets it in stats.Options.Relative.
func RelativeStats(relativeTo ...int64) *model.RelativeStats {
	rel := slices.Clone(relativeTo)
	if len(rel) == 0 {
		rel = []int64{-1}
	}
	groups := make([]model.RegionGroup, len(standardSubsets))
	for i, s := range standardSubsets {
		groups[i] = model.RegionGroup{Native: s.native, Ranges: slices.Clone(s.ranges)}
	}
	return &model.RelativeStats{
		RelativeTo: rel,
		Kinds: []model.RelativeKind{
			{Kind: model.RecordedTime, Native: int64(RecordStatTime)},
			{Kind: model.RecordedCount, Native: int64(RecordStatCount)},
			{Kind: model.RecordedVolume, Native: int64(RecordStatVolume)},
		},
		UnknownVolume: []int64{int64(EventTracing)},
		Groups:        groups,
	}
}

// standardSubsets are PICL's predefined event-type subsets (PICL report,
// Table 5), by ranges of event types.
var standardSubsets = []struct {
	native int64
	ranges [][2]int64
}{
	{-1001, [][2]int64{{0, math.MaxInt64}}},
	{-1002, [][2]int64{{math.MinInt64, -1}}},
	{-1011, [][2]int64{{-200, -11}}},
	{-1012, [][2]int64{{-50, -21}}},
	{-1013, [][2]int64{{-80, -51}}},
	{-1014, [][2]int64{{-31, -31}, {-52, -52}, {-56, -56}, {-61, -61}}},
	{-1201, [][2]int64{{-400, -201}}},
	{-1401, [][2]int64{{-500, -401}}},
	{-1501, [][2]int64{{-600, -501}}},
	{-1601, [][2]int64{{-700, -601}}},
	{-1901, [][2]int64{{-1000, -901}}},
	{-1902, [][2]int64{{-911, -911}, {-912, -912}}},
}
