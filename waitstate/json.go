package waitstate

import (
	"encoding/json"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
)

// JSON is the report's part of tracestat's JSON report (doc/waitstates.md
// §5): the three lists "wait_states", "delay_costs" and "critical_path".
// A program embeds it, as an anonymous field, in the struct it marshals
// as tracestat's "final" object, so that the three keys sit beside the
// statistics':
//
//	final := struct {
//		stats.Final
//		waitstate.JSON
//	}{rep.Final, ws.JSON(defs)}
//
// A location is identified as in every output of the SDK (see package
// stats, "Locations"): "loc_id" is its model.LocID, and "loc" beside it its
// native id (the MPI rank, OTF process, …) from the definitions given to
// [Report.JSON] (LocID − 1 without them). Times are integer ticks, costs are numbers
// rounded to 6 decimals. Empty lists marshal as [], never null.
type JSON struct {
	WaitStates   []JSONWaitState  `json:"wait_states"`
	DelayCosts   []JSONDelayCost  `json:"delay_costs"`
	CriticalPath JSONCriticalPath `json:"critical_path"`
}

// JSONWaitState is one row of "wait_states".
type JSONWaitState struct {
	Pattern  string      `json:"pattern"`
	LocID    model.LocID `json:"loc_id"`
	Loc      int64       `json:"loc"`
	CallPath string      `json:"callpath"`
	Time     int64       `json:"time"`
	Count    int64       `json:"count"`
}

// JSONDelayCost is one row of "delay_costs".
type JSONDelayCost struct {
	Pattern   string      `json:"pattern"`
	LocID     model.LocID `json:"loc_id"`
	Loc       int64       `json:"loc"`
	CallPath  string      `json:"callpath"`
	ShortTerm stats.F6    `json:"short_term"`
	LongTerm  stats.F6    `json:"long_term"`
}

// JSONCriticalPath is "critical_path".
type JSONCriticalPath struct {
	Length    int64                `json:"length"`
	Profile   []JSONCriticalRegion `json:"profile"`
	Locations []JSONCriticalLoc    `json:"locations"`
}

// JSONCriticalRegion is one row of the critical path's "profile".
type JSONCriticalRegion struct {
	Region    string   `json:"region"`
	Time      int64    `json:"time"`
	Imbalance stats.F6 `json:"imbalance"`
}

// JSONCriticalLoc is one row of the critical path's "locations".
type JSONCriticalLoc struct {
	LocID model.LocID `json:"loc_id"`
	Loc   int64       `json:"loc"`
	Time  int64       `json:"time"`
}

// jsonNative returns the native id of location l in defs, l − 1 without
// definitions.
func jsonNative(defs *model.Defs, l model.LocID) int64 {
	if defs != nil {
		if x, ok := defs.Location(l); ok {
			return x.Native
		}
	}
	return int64(l) - 1
}

// JSON returns the report's lists in the layout of tracestat's JSON report,
// with the native ids ("loc") of the trace's definitions defs, those the
// report was made from; nil defs give LocID − 1.
func (r *Report) JSON(defs *model.Defs) JSON {
	j := JSON{
		WaitStates: make([]JSONWaitState, 0, len(r.WaitStates)),
		DelayCosts: make([]JSONDelayCost, 0, len(r.DelayCosts)),
		CriticalPath: JSONCriticalPath{
			Length:    int64(r.CriticalPath.Length),
			Profile:   make([]JSONCriticalRegion, 0, len(r.CriticalPath.Profile)),
			Locations: make([]JSONCriticalLoc, 0, len(r.CriticalPath.Locations)),
		},
	}
	for _, w := range r.WaitStates {
		j.WaitStates = append(j.WaitStates, JSONWaitState{w.Pattern.String(), w.Loc, jsonNative(defs, w.Loc), w.CallPath, int64(w.Time), w.Count})
	}
	for _, d := range r.DelayCosts {
		j.DelayCosts = append(j.DelayCosts, JSONDelayCost{d.Pattern.String(), d.Loc, jsonNative(defs, d.Loc), d.CallPath, stats.F6(d.ShortTerm), stats.F6(d.LongTerm)})
	}
	for _, p := range r.CriticalPath.Profile {
		j.CriticalPath.Profile = append(j.CriticalPath.Profile, JSONCriticalRegion{p.Region, int64(p.Time), stats.F6(p.Imbalance)})
	}
	for _, l := range r.CriticalPath.Locations {
		j.CriticalPath.Locations = append(j.CriticalPath.Locations, JSONCriticalLoc{l.Loc, jsonNative(defs, l.Loc), int64(l.Time)})
	}
	return j
}

// MarshalJSON writes the object of [Report.JSON] without definitions
// ("loc" is LocID − 1): {"wait_states": …, "delay_costs": …,
// "critical_path": …}.
func (r *Report) MarshalJSON() ([]byte, error) { return json.Marshal(r.JSON(nil)) }
