package model

// A LeaveOutcome says what a Leave does to the regions open on its
// location, by the one rule every consumer of the model follows (see
// [KindLeave] and [ClassifyLeave]).
type LeaveOutcome uint8

// The outcomes of a Leave.
const (
	// LeaveMatched: the Leave closes the innermost open instance, which
	// is of the region it names (or it names none: region 0).
	LeaveMatched LeaveOutcome = iota
	// LeaveMismatched: the Leave closes the innermost open instance all
	// the same, although it names another region. Consumers that keep
	// diagnostics count it (stats.Diagnostics.LeaveRegionMismatch).
	LeaveMismatched
	// LeaveUnmatched: nothing is open on the location; the Leave changes
	// nothing.
	LeaveUnmatched
)

var leaveOutcomeNames = [...]string{"matched", "mismatched", "unmatched"}

// String returns "matched", "mismatched" or "unmatched".
func (o LeaveOutcome) String() string {
	if int(o) < len(leaveOutcomeNames) {
		return leaveOutcomeNames[o]
	}
	return "LeaveOutcome(?)"
}

// ClassifyLeave applies the rule of [KindLeave] to a Leave naming region r
// on a location with depth open region instances, the innermost of region
// top: a Leave always closes the innermost open instance, whatever region
// it names, and only one. It returns LeaveUnmatched when depth is 0,
// LeaveMismatched when r is neither 0 nor top, and LeaveMatched otherwise.
// It costs a few comparisons.
func ClassifyLeave(depth int, top, r RegionID) LeaveOutcome {
	switch {
	case depth <= 0:
		return LeaveUnmatched
	case r != 0 && r != top:
		return LeaveMismatched
	}
	return LeaveMatched
}

// OpenRegions tracks the regions open on every location, innermost last,
// for readers and writers that must name the region a Leave closes: the
// innermost open one, whatever region the Leave names ([ClassifyLeave]).
//
// The zero value is ready to use. Its memory grows with the largest LocID
// given to Enter and the deepest stack; once grown, Enter and Leave
// allocate nothing and cost O(1). An OpenRegions is not safe for
// concurrent use.
type OpenRegions struct {
	locs [][]RegionID // by LocID: the open regions, innermost last
}

// Enter opens an instance of region r on location l. Region 0 is a region
// like any other here; callers that treat it as undefined skip it.
func (o *OpenRegions) Enter(l LocID, r RegionID) {
	for int(l) >= len(o.locs) {
		o.locs = append(o.locs, nil)
	}
	o.locs[l] = append(o.locs[l], r)
}

// Leave applies a Leave naming region r on location l: it closes the
// innermost open instance and returns its region and how the Leave
// matched it (LeaveMatched or LeaveMismatched). When nothing is open it
// changes nothing and returns r and LeaveUnmatched.
func (o *OpenRegions) Leave(l LocID, r RegionID) (RegionID, LeaveOutcome) {
	if int(l) >= len(o.locs) {
		return r, LeaveUnmatched
	}
	st := o.locs[l]
	n := len(st)
	var top RegionID
	if n > 0 {
		top = st[n-1]
	}
	out := ClassifyLeave(n, top, r)
	if out == LeaveUnmatched {
		return r, out
	}
	o.locs[l] = st[:n-1]
	return top, out
}

// Depth returns the number of instances open on location l.
func (o *OpenRegions) Depth(l LocID) int {
	if int(l) >= len(o.locs) {
		return 0
	}
	return len(o.locs[l])
}

// Reset closes every open instance on every location, keeping the memory
// grown so far for reuse.
func (o *OpenRegions) Reset() {
	for i := range o.locs {
		o.locs[i] = o.locs[i][:0]
	}
}
