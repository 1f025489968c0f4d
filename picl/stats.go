package picl

import "iter"

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
