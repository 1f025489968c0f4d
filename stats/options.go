package stats

import "github.com/hpctrace/hpctrace/model"

// Options configures an Accumulator. A nil or zero value means defaults.
type Options struct {
	// MaxPending bounds the message endpoints kept waiting for their partner.
	// Beyond it the oldest endpoint is settled as unmatched and counted in
	// Diagnostics.PendingEvicted. 0 means 1<<20.
	MaxPending int

	// MaxDrillDepth bounds the depth of the drill-down tree. 0 means 16.
	MaxDrillDepth int

	// MaxCollectiveInstances bounds the per-instance collective records kept
	// for the report (per-(location, region, site) sums are always kept).
	// 0 means 4096; a negative value keeps none.
	MaxCollectiveInstances int

	// SampleTimes lists times at which Add takes a Sample automatically: just
	// before the first event with a time >= T (and at Finalize for times the
	// stream never reached). The stream must be ordered by time for samples
	// to be exact. They appear in Report.Samples.
	SampleTimes []model.Time

	// SamplePeriod, if positive, adds samples at the multiples of the
	// period from the first event on. Periods are sparse: a sample is taken
	// at the end of each period that holds events, and a stretch of periods
	// without events becomes one interval (one sample at its end), so a
	// trace of n events yields at most 2n periodic samples whatever its time
	// span. Storing n samples costs n times the number of (location, region)
	// keys.
	SamplePeriod model.Time

	// IdleRegions lists the regions whose Incl counts as idle time
	// (commonly MPI_Wait*, MPI_Recv, barriers); Report.Final.Idle gives it
	// per location. Empty means no idle report.
	IdleRegions []model.RegionID

	// Relative, if non-nil, asks for the statistics relative to regions
	// that it describes (Report.Final.Relative) instead of those the
	// definitions describe (model.Defs.Relative, which an adapter sets
	// for a trace that records such statistics). Without either there are
	// none. The description is read when the Accumulator is made; at most
	// 64 regions of its RelativeTo are kept.
	Relative *model.RelativeStats

	// SpillDir is the directory of the temporary file to which message
	// ends that wait long for their partner move (see [Accumulator]).
	// "" means [os.TempDir].
	SpillDir string
}

func (o *Options) withDefaults() Options {
	var r Options
	if o != nil {
		r = *o
		r.SampleTimes = append([]model.Time(nil), o.SampleTimes...)
		r.IdleRegions = append([]model.RegionID(nil), o.IdleRegions...)
	}
	if r.MaxPending <= 0 {
		r.MaxPending = 1 << 20
	}
	if r.MaxDrillDepth <= 0 {
		r.MaxDrillDepth = 16
	}
	if r.MaxCollectiveInstances == 0 {
		r.MaxCollectiveInstances = 4096
	}
	return r
}
