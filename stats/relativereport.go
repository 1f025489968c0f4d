package stats

import (
	"cmp"
	"slices"

	"github.com/hpctrace/hpctrace/model"
)

// RelativeReport holds the statistics relative to regions that the
// definitions (model.Defs.Relative) or Options.Relative describe,
// recomputed from the events (doc/stats.md §6): the statistics a trace
// records relative to regions, such as PICL's -101, -102 and -103 records.
// Its JSON key in a report is "picl", the format that defined them.
type RelativeReport struct {
	Statistics []RelativeStat   `json:"statistics"`
	Subsets    []RelativeSubset `json:"subsets"`

	kinds []model.RecordedKind // the kinds computed; nil in a decoded report: time, count and volume
}

// RelativeStat is one statistic: for location Loc, relative to the region
// whose Native is RelativeTo (-1: the whole trace), the statistic of kind
// Kind (whose id in the trace's format is Record, model.RelativeKind) of
// the region whose Native is Native. Value is in ticks (RecordedTime),
// occurrences (RecordedCount) or bytes (RecordedVolume); nil when the value
// is not derivable from events (model.RelativeStats.UnknownVolume). Only
// positive values are listed, as the traces that record them do.
type RelativeStat struct {
	LocID      model.LocID        `json:"loc_id"`
	Loc        int64              `json:"loc"`
	RelativeTo int64              `json:"relative_to"`
	Kind       model.RecordedKind `json:"-"`
	Record     int64              `json:"record"`
	RegionID   model.RegionID     `json:"-"`
	Native     int64              `json:"event_type"`
	Value      *int64             `json:"value"`
}

// RelativeSubset sums the statistics of the member regions of a region set:
// a group the format predefines (model.RelativeStats.Groups) or a subset
// the trace defines (model.Subset). Nested members are not de-duplicated;
// unknown volumes are left out.
type RelativeSubset struct {
	LocID      model.LocID `json:"loc_id"`
	Loc        int64       `json:"loc"`
	RelativeTo int64       `json:"relative_to"`
	Subset     int64       `json:"subset"`
	Members    []int64     `json:"members"` // natives of the member regions present in the trace
	Time       model.Time  `json:"time"`
	Count      int64       `json:"count"`
	Volume     int64       `json:"volume"`
}

func (a *Accumulator) relativeReport(seen []model.LocID) *RelativeReport {
	nm := namer{a.defs}
	p := a.opts.Relative
	rep := &RelativeReport{Statistics: []RelativeStat{}, Subsets: []RelativeSubset{}}
	for _, k := range p.Kinds {
		rep.kinds = append(rep.kinds, k.Kind)
	}
	// Subsets: the format's groups, then those the trace defines.
	type subset struct {
		native int64
		in     func(int64) bool
	}
	var subsets []subset
	for _, g := range p.Groups {
		subsets = append(subsets, subset{g.Native, g.Contains})
	}
	for _, s := range a.defs.Subsets() {
		subsets = append(subsets, subset{s.Native, func(t int64) bool { return slices.Contains(s.Members, t) }})
	}
	for _, l := range seen {
		ls := &a.locs[l]
		for e, rel := range p.RelativeTo {
			if e >= len(ls.relLocs()) {
				break
			}
			st := &ls.rel[e]
			type xv struct {
				r       model.RegionID
				native  int64
				t, c, v int64
				unknown bool
			}
			var xs []xv
			for r, x := range st.xs.all() {
				if x.count == 0 && x.time == 0 && x.volume == 0 {
					continue
				}
				reg, _ := a.defs.Region(r)
				xs = append(xs, xv{r, reg.Native, x.time, x.count, x.volume, slices.Contains(p.UnknownVolume, reg.Native)})
			}
			slices.SortFunc(xs, func(x, y xv) int { return cmp.Compare(x.native, y.native) })
			add := func(k model.RelativeKind, x xv, v *int64) {
				rep.Statistics = append(rep.Statistics, RelativeStat{LocID: l, Loc: nm.loc(l), RelativeTo: rel, Kind: k.Kind, Record: k.Native, RegionID: x.r, Native: x.native, Value: v})
			}
			for _, k := range p.Kinds {
				for _, x := range xs {
					var v int64
					switch k.Kind {
					case model.RecordedTime:
						v = x.t
					case model.RecordedCount:
						v = x.c
					case model.RecordedVolume:
						if x.unknown {
							add(k, x, nil)
							continue
						}
						v = x.v
					}
					if v > 0 {
						add(k, x, &v)
					}
				}
			}
			for _, s := range subsets {
				ps := RelativeSubset{LocID: l, Loc: nm.loc(l), RelativeTo: rel, Subset: s.native, Members: []int64{}}
				for _, x := range xs {
					if !s.in(x.native) {
						continue
					}
					ps.Members = append(ps.Members, x.native)
					ps.Time += model.Time(x.t)
					ps.Count += x.c
					if !x.unknown {
						ps.Volume += x.v
					}
				}
				rep.Subsets = append(rep.Subsets, ps)
			}
		}
	}
	return rep
}
