package shardstat

import (
	"cmp"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
	"github.com/hpctrace/hpctrace/waitstate"
)

// ReportOptions selects the report's form.
type ReportOptions struct {
	JSON  bool   // the report as JSON, with the call tree as "call_tree"
	Top   int    // rows per table in the text report
	Scope string // drill-down scope: "all" or "loc<N>"
	// Phase, when not nil, is called as each phase of WriteReport ends:
	// "finalize wait states", "finalize statistics", "output" (for
	// tracestat -phases).
	Phase func(what string)
	// Waits, when not nil, gives the wait-state analysis' report (as
	// FinalizeWaits does) in place of s.Waits, which is then nil. It is
	// called once the statistics are finalized, so that the caller may
	// finalize the analysis in another goroutine while the statistics
	// are joined and finalized, as tracestat -j does; its phase is then
	// after "finalize statistics".
	Waits func() (*waitstate.Report, error)
}

func (o *ReportOptions) phase(what string) {
	if o.Phase != nil {
		o.Phase(what)
	}
}

// WriteReport prints the report of s, in text or JSON as tracestat does.
// It uses s up: the statistics are settled in place
// (stats.Accumulator.FinalReport), without Finalize's copy of them, and
// the text report builds only what it prints (FinalTextReport); s.Waits
// and s.Tree are let go (set to nil) once their part is made, before the
// statistics' report is built, and s.Acc once it is. s must not be used
// afterwards.
//
// When s has the wait-state analysis (s.Waits) and the trace has MPI
// calls, the text report ends with its section (waitstate.Report.WriteText)
// and the JSON report's "final" gains "wait_states", "delay_costs" and
// "critical_path" (waitstate.JSON); otherwise the report is the
// statistics' alone.
func (s *State) WriteReport(out io.Writer, opts *ReportOptions) error {
	var ws *waitstate.Report
	if opts.Waits == nil {
		var err error
		if ws, err = FinalizeWaits(s.Waits); err != nil {
			return err
		}
		opts.phase("finalize wait states")
	}
	// The analysis' logs and the call tree's state are let go before the
	// statistics' report is built, which is the run's peak of memory.
	tree := s.Tree.Root()
	s.Waits, s.Tree = nil, nil
	// The garbage collector lets the heap grow to twice what was live at
	// its last collection, which for a trace of many locations held the
	// analysis' logs and the reading's buffers: collected now, the
	// report's work is paced by what the statistics hold, not by what
	// the whole run held.
	runtime.GC()
	h, acc, cfg := s, s.Acc, opts
	name, n, defs := h.Name, h.Events, acc.Defs()
	tb := defs.TimeBase
	var rep *stats.Report
	if cfg.JSON {
		rep = acc.FinalReport()
	} else {
		// The text prints a part of the report only.
		rep = acc.FinalTextReport(cfg.Scope)
	}
	if err := acc.Err(); err != nil {
		return err // the statistics lack message ends
	}
	s.amend(rep)
	// Settled into rep, the statistics' state goes too.
	s.Acc = nil
	cfg.phase("finalize statistics")
	if opts.Waits != nil {
		var err error
		if ws, err = opts.Waits(); err != nil {
			return err
		}
		opts.phase("finalize wait states")
	}
	defer cfg.phase("output")
	if cfg.JSON {
		// Written row by row: the per-location tables of a trace of
		// many locations are gigabytes of text.
		return writeJSON(out, jsonDoc(rep, tree, ws))
	}
	fmt.Fprintf(out, "# %s: %d events, %d locations, clock %v (tick)\n\n", name, n, rep.Final.LocationsWithEvents(), tb)
	if err := rep.WriteText(out, &stats.TextOptions{Top: cfg.Top, Scope: cfg.Scope, TopName: "-top", CallTree: tree}); err != nil {
		return err
	}
	if len(rep.Samples) > 0 {
		writeIntervals(out, rep, cfg.Top)
	}
	if len(defs.Recorded) > 0 {
		writeChecks(out, rep.CheckRecorded(defs))
	}
	if ws != nil {
		fmt.Fprintln(out)
		if len(rep.Samples) > 0 {
			fmt.Fprintln(out, "# The wait states are those of the whole run; the intervals above are of the statistics only.")
		}
		return ws.WriteText(out, &waitstate.TextOptions{Top: cfg.Top, TopName: "-top", Loc: nativeLoc(defs)})
	}
	return nil
}

// FinalizeWaits returns the report of the wait-state analysis a as
// WriteReport prints it, or nil if a is nil or the trace has no MPI
// calls.
func FinalizeWaits(a *waitstate.Analyzer) (*waitstate.Report, error) {
	if a == nil || !a.HasCalls() {
		return nil, nil // no MPI calls: Finalize's temporaries for nothing
	}
	r, err := a.Finalize()
	if err != nil || r.Diagnostics.MPICalls == 0 {
		return nil, err
	}
	return r, nil
}

// amend sets in rep what the statistics do not know: ranks for an MPI
// run's processes, and the virtual clock's clamps.
func (s *State) amend(rep *stats.Report) {
	for i := range rep.Locations {
		if l := &rep.Locations[i]; s.MPI && l.Kind == "process" {
			l.Kind = "rank"
		}
	}
	if s.Clamped != 0 {
		rep.Final.Diagnostics.VClockClamped = s.Clamped
	}
}

// jsonDoc returns the value of the JSON report: rep and the call tree,
// with the wait-state analysis in "final" when ws is not nil.
func jsonDoc(rep *stats.Report, tree *stats.CallNode, ws *waitstate.Report) any {
	if ws != nil {
		return withWaits(rep, tree, ws)
	}
	return &struct {
		*stats.Report
		CallTree *stats.CallNode `json:"call_tree"`
	}{rep, tree}
}

// nativeLoc names a location by its number in the format, as the
// statistics' tables do (stats.Function.Loc).
func nativeLoc(defs *model.Defs) func(model.LocID) string {
	return func(l model.LocID) string {
		if loc, ok := defs.Location(l); ok {
			return strconv.FormatInt(loc.Native, 10)
		}
		return "#" + strconv.FormatUint(uint64(l), 10)
	}
}

// sortRuns sorts each run of consecutive elements of s with the same key
// by less.
func sortRuns[T any](s []T, key func(T) string, less func(a, b T) int) {
	for i := 0; i < len(s); {
		j := i + 1
		for j < len(s) && key(s[j]) == key(s[i]) {
			j++
		}
		slices.SortFunc(s[i:j], less)
		i = j
	}
}

// reportJSON is stats.Report's JSON with the wait-state analysis in
// "final" (doc/waitstates.md §5). Its fields are stats.Report's, in its
// order (TestReportJSONFields holds them so), then the call tree.
type reportJSON struct {
	TicksPerSecond       uint64                `json:"ticks_per_second"`
	Locations            []stats.LocationInfo  `json:"locations"`
	Final                finalJSON             `json:"final"`
	Samples              stats.Samples         `json:"samples,omitempty"`
	GprofAverageEstimate []stats.GprofEstimate `json:"gprof_average_estimate"`
	CallTree             *stats.CallNode       `json:"call_tree"`
}

type finalJSON struct {
	*stats.Final
	waitstate.JSON
}

// withWaits returns the JSON report with the wait-state analysis. Its
// rows name locations as every other table of the report does: "loc_id"
// the model id, "loc" the native id of the "locations" list
// (stats.LocationInfo.Loc).
func withWaits(rep *stats.Report, tree *stats.CallNode, ws *waitstate.Report) *reportJSON {
	j := ws.JSON(nil)
	native := func(id model.LocID, fallback int64) int64 {
		if l, ok := rep.Location(id); ok {
			return l.Loc
		}
		return fallback
	}
	for k := range j.WaitStates {
		w := &j.WaitStates[k]
		w.Loc = native(w.LocID, w.Loc)
	}
	for k := range j.DelayCosts {
		d := &j.DelayCosts[k]
		d.Loc = native(d.LocID, d.Loc)
	}
	for k := range j.CriticalPath.Locations {
		l := &j.CriticalPath.Locations[k]
		l.Loc = native(l.LocID, l.Loc)
	}
	// The lists stay sorted by pattern (in waitstate's order), then
	// location, then call path.
	sortRuns(j.WaitStates, func(w waitstate.JSONWaitState) string { return w.Pattern }, func(a, b waitstate.JSONWaitState) int {
		return cmp.Or(cmp.Compare(a.Loc, b.Loc), strings.Compare(a.CallPath, b.CallPath))
	})
	sortRuns(j.DelayCosts, func(d waitstate.JSONDelayCost) string { return d.Pattern }, func(a, b waitstate.JSONDelayCost) int {
		return cmp.Or(cmp.Compare(a.Loc, b.Loc), strings.Compare(a.CallPath, b.CallPath))
	})
	slices.SortFunc(j.CriticalPath.Locations, func(a, b waitstate.JSONCriticalLoc) int { return cmp.Compare(a.Loc, b.Loc) })
	return &reportJSON{
		TicksPerSecond:       rep.TicksPerSecond,
		Locations:            rep.Locations,
		Final:                finalJSON{&rep.Final, j},
		Samples:              rep.Samples,
		GprofAverageEstimate: rep.GprofAverageEstimate,
		CallTree:             tree,
	}
}

// writeChecks summarises the comparison of the statistics stored in the
// trace with those recomputed from its events.
func writeChecks(out io.Writer, checks []stats.RecordedCheck) {
	var agree, differ, unknown int
	var worst stats.RecordedCheck
	for _, c := range checks {
		switch {
		case !c.Known:
			unknown++
		case c.Diff() == 0:
			agree++
		default:
			differ++
			if d := c.Diff(); d*d > worst.Diff()*worst.Diff() || differ == 1 {
				worst = c
			}
		}
	}
	fmt.Fprintf(out, "\nStatistics stored in the trace: %d agree with the events, %d differ, %d not derivable", agree, differ, unknown)
	if differ > 0 {
		fmt.Fprintf(out, " (largest difference %d for %s of region %d)", worst.Diff(), worst.Recorded.Kind, worst.Recorded.Region)
	}
	fmt.Fprintln(out)
}

// writeIntervals prints the flat profile of each interval between samples.
func writeIntervals(out io.Writer, rep *stats.Report, top int) {
	prev := stats.Sample{}
	for _, s := range rep.Samples {
		d := s.Sub(prev)
		fmt.Fprintf(out, "\nInterval [%s, %s): matched messages %d\n", rep.FormatTime(prev.Time), rep.FormatTime(s.Time), d.Diagnostics.MatchedMessages)
		fmt.Fprintf(out, "  %6s %-24s %8s %12s %12s\n", "loc", "region", "visits", "excl", "incl")
		for i, f := range d.Functions {
			if i == 4*top {
				fmt.Fprintf(out, "  ... %d more (raise -top to see them)\n", len(d.Functions)-i)
				break
			}
			fmt.Fprintf(out, "  %6d %-24s %8d %12s %12s\n", f.Loc, f.Region, f.Visits, rep.FormatTime(f.Excl), rep.FormatTime(f.InclActivationSum))
		}
		prev = s
	}
}
