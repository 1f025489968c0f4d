package model

// RelativeStats says how a trace defines the statistics relative to regions
// that it records in [Defs.Recorded] (those with RelativeTo set), so that
// they can be recomputed from the events without knowing the format: for
// each location, each region E of RelativeTo and each region X, the time X
// was active while E was, the occurrences of X while E was active, and the
// bytes X sent and received while E was active. Package stats computes them
// whenever the definitions carry a RelativeStats ([Defs.Relative]) and
// checks the recorded values against them.
//
// Regions are named by their Native id, as [Recorded.RelativeTo] names them,
// so that a RelativeStats can be given before the regions are defined.
//
// A RelativeStats is not modified once it is in a Defs; a copy of the Defs
// shares it.
type RelativeStats struct {
	// RelativeTo lists the regions E, by Native, that the statistics are
	// relative to; -1 is the whole trace. Empty means {-1}.
	RelativeTo []int64

	// Kinds lists the kinds of statistics the trace records (RecordedTime,
	// RecordedCount, RecordedVolume; others are ignored), in the order a
	// report lists them, each with the format's own id for it, which the
	// report shows. Empty means time, count and volume, without ids.
	Kinds []RelativeKind

	// UnknownVolume lists the regions X, by Native, whose volume the
	// events do not give (the format's own bookkeeping): their volume is
	// reported as unknown and left out of the groups' sums.
	UnknownVolume []int64

	// Groups are sets of regions that the format predefines, whose
	// statistics are reported as the sums of their members', before the
	// trace's own [Subset] definitions, which are summed the same way.
	Groups []RegionGroup
}

// RelativeKind names one kind of [RelativeStats] statistic with the
// format's id for it.
type RelativeKind struct {
	Kind   RecordedKind
	Native int64
}

// A RegionGroup is a predefined set of regions: those whose Native lies in
// one of Ranges (closed intervals, {lo, hi}). Native is the group's id.
type RegionGroup struct {
	Native int64
	Ranges [][2]int64
}

// Contains reports whether the region whose Native is n is in g.
func (g *RegionGroup) Contains(n int64) bool {
	for _, r := range g.Ranges {
		if n >= r[0] && n <= r[1] {
			return true
		}
	}
	return false
}
