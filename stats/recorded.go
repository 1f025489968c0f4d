package stats

import "github.com/hpctrace/hpctrace/model"

// RecordedCheck compares one statistic stored in the trace (model.Recorded:
// statistics relative to regions, call counts) with the value recomputed from
// the events (doc/stats.md §1, principle 1: stored statistics are validation data).
type RecordedCheck struct {
	Recorded model.Recorded
	Computed int64 // ticks, count or bytes, as Recorded.Value
	Known    bool  // false when the report cannot recompute the value
}

// Diff returns Computed - Recorded.Value.
func (c RecordedCheck) Diff() int64 { return c.Computed - c.Recorded.Value }

// CheckRecorded recomputes every statistic in defs.Recorded that the report
// can derive:
//
//   - time, count and volume relative to a region, from Final.Relative
//     (the report must have been made with model.Defs.Relative or
//     Options.Relative listing that region);
//   - a call count paired with a not-profiled count for the same location
//     and region (DUMPI footer): the region's visits must equal
//     count - not profiled.
//
// Recorded values marked Unknown, and [model.RecordedNotProfiled] entries
// themselves, are skipped. The result is in defs.Recorded order.
func (r *Report) CheckRecorded(defs *model.Defs) []RecordedCheck {
	type pk struct {
		loc    model.LocID
		rel    int64
		kind   model.RecordedKind
		region model.RegionID
	}
	relative := map[pk]*int64{}
	rels := map[int64]bool{}
	kinds := map[model.RecordedKind]bool{}
	if p := r.Final.Relative; p != nil {
		for _, s := range p.Statistics {
			relative[pk{s.LocID, s.RelativeTo, s.Kind, s.RegionID}] = s.Value
			rels[s.RelativeTo] = true
		}
		for _, s := range p.Subsets {
			rels[s.RelativeTo] = true
		}
		ks := p.kinds
		if ks == nil {
			ks = []model.RecordedKind{model.RecordedTime, model.RecordedCount, model.RecordedVolume}
		}
		for _, k := range ks {
			kinds[k] = true
		}
	}
	type lr struct {
		loc    model.LocID
		region model.RegionID
	}
	visits := map[lr]int64{}
	for _, f := range r.Final.Functions {
		visits[lr{f.LocID, f.RegionID}] = f.Visits
	}
	notProfiled := map[lr]int64{}
	for _, rec := range defs.Recorded {
		if rec.Kind == model.RecordedNotProfiled && !rec.Unknown {
			notProfiled[lr{rec.Loc, rec.Region}] = rec.Value
		}
	}
	var out []RecordedCheck
	for _, rec := range defs.Recorded {
		if rec.Unknown || rec.Kind == model.RecordedNotProfiled {
			continue
		}
		c := RecordedCheck{Recorded: rec}
		np, paired := notProfiled[lr{rec.Loc, rec.Region}]
		switch {
		case rec.Kind == model.RecordedCount && paired:
			c.Computed, c.Known = visits[lr{rec.Loc, rec.Region}]+np, true
		case kinds[rec.Kind] && rels[rec.RelativeTo]:
			v, listed := relative[pk{rec.Loc, rec.RelativeTo, rec.Kind, rec.Region}]
			switch {
			case !listed: // the report lists positive values only: not listed means 0
				c.Known = true
			case v != nil:
				c.Computed, c.Known = *v, true
			}
		}
		out = append(out, c)
	}
	return out
}
