package stats

import (
	"cmp"
	"slices"

	"github.com/hpctrace/hpctrace/model"
)

// PICLReport holds the statistics PICL writes in its -101 (time), -102
// (count) and -103 (volume) records, recomputed from the events (doc/stats.md §6).
type PICLReport struct {
	Statistics []PICLStat   `json:"statistics"`
	Subsets    []PICLSubset `json:"subsets"`
}

// PICLStat is one value of a PICL statistics record: for location Loc,
// relative to event type RelativeTo, record Record (-101, -102 or -103) of
// event type EventType. Value is in ticks (-101), occurrences (-102) or
// bytes (-103); nil when the value is not derivable from events. Only
// positive values are listed, like PICL does.
type PICLStat struct {
	LocID      model.LocID    `json:"loc_id"`
	Loc        int64          `json:"loc"`
	RelativeTo int64          `json:"relative_to"`
	Record     int64          `json:"record"`
	RegionID   model.RegionID `json:"-"`
	EventType  int64          `json:"event_type"`
	Value      *int64         `json:"value"`
}

// PICLSubset sums the statistics of the member event types of an event-type
// subset (nested members are not de-duplicated; unknown volumes are left out).
type PICLSubset struct {
	LocID      model.LocID `json:"loc_id"`
	Loc        int64       `json:"loc"`
	RelativeTo int64       `json:"relative_to"`
	Subset     int64       `json:"subset"`
	Members    []int64     `json:"members"` // member types present in the trace
	Time       model.Time  `json:"time"`
	Count      int64       `json:"count"`
	Volume     int64       `json:"volume"`
}

type typeRange struct{ lo, hi int64 }

// standardSubsets are PICL's predefined event-type subsets (PICL report,
// Table 5).
var standardSubsets = []struct {
	native int64
	ranges []typeRange
}{
	{-1001, []typeRange{{0, 1<<63 - 1}}},
	{-1002, []typeRange{{-1 << 63, -1}}},
	{-1011, []typeRange{{-200, -11}}},
	{-1012, []typeRange{{-50, -21}}},
	{-1013, []typeRange{{-80, -51}}},
	{-1014, []typeRange{{-31, -31}, {-52, -52}, {-56, -56}, {-61, -61}}},
	{-1201, []typeRange{{-400, -201}}},
	{-1401, []typeRange{{-500, -401}}},
	{-1501, []typeRange{{-600, -501}}},
	{-1601, []typeRange{{-700, -601}}},
	{-1901, []typeRange{{-1000, -901}}},
	{-1902, []typeRange{{-911, -911}, {-912, -912}}},
}

func (a *Accumulator) piclReport(seen []model.LocID) *PICLReport {
	nm := namer{a.defs}
	p := a.opts.PICL
	rep := &PICLReport{Statistics: []PICLStat{}, Subsets: []PICLSubset{}}
	// Subsets: standard ones, then those the trace defines.
	type subset struct {
		native int64
		in     func(int64) bool
	}
	var subsets []subset
	for _, s := range standardSubsets {
		subsets = append(subsets, subset{s.native, func(t int64) bool {
			for _, r := range s.ranges {
				if t >= r.lo && t <= r.hi {
					return true
				}
			}
			return false
		}})
	}
	for _, s := range a.defs.Subsets() {
		subsets = append(subsets, subset{s.Native, func(t int64) bool { return slices.Contains(s.Members, t) }})
	}
	for _, l := range seen {
		ls := &a.locs[l]
		for e, rel := range p.RelativeTo {
			if e >= len(ls.piclLocs()) {
				break
			}
			st := &ls.picl[e]
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
			add := func(record int64, x xv, v *int64) {
				rep.Statistics = append(rep.Statistics, PICLStat{LocID: l, Loc: nm.loc(l), RelativeTo: rel, Record: record, RegionID: x.r, EventType: x.native, Value: v})
			}
			for _, rec := range []int64{-101, -102, -103} {
				for _, x := range xs {
					var v int64
					switch rec {
					case -101:
						v = x.t
					case -102:
						v = x.c
					case -103:
						if x.unknown {
							add(rec, x, nil)
							continue
						}
						v = x.v
					}
					if v > 0 {
						add(rec, x, &v)
					}
				}
			}
			for _, s := range subsets {
				ps := PICLSubset{LocID: l, Loc: nm.loc(l), RelativeTo: rel, Subset: s.native, Members: []int64{}}
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
