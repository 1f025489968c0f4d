package shardstat

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/hpctrace/hpctrace"
	"github.com/hpctrace/hpctrace/stats"
)

// ReportOptions selects the report's form.
type ReportOptions struct {
	JSON  bool   // the report as JSON, with the call tree as "call_tree"
	Top   int    // rows per table in the text report
	Scope string // drill-down scope: "all" or "loc<N>"
}

// PICLRelativeTo reads a PICL trace and returns -1 and the event types its
// statistics records are relative to, ascending.
func PICLRelativeTo(name string) ([]int64, error) {
	t, err := hpctrace.Open(name, &hpctrace.Options{Format: hpctrace.FormatPICL})
	if err != nil {
		return nil, err
	}
	defer t.Close()
	for t.Next() {
	}
	if err := t.Err(); err != nil {
		return nil, err
	}
	rel := []int64{-1}
	for _, rec := range t.Defs().Recorded {
		if !slices.Contains(rel, rec.RelativeTo) {
			rel = append(rel, rec.RelativeTo)
		}
	}
	slices.Sort(rel)
	return rel, nil
}

// WriteReport prints the report of s, in text or JSON as tracestat does.
// It uses s up: the statistics are settled in place
// (stats.Accumulator.FinalReport), without Finalize's copy of them, and
// the text report builds only what it prints (FinalTextReport), so s must
// not be used afterwards.
func (s *State) WriteReport(out io.Writer, opts *ReportOptions) error {
	h, acc, ct, cfg := s, s.Acc, s.Tree, opts
	name, n, defs := h.Name, h.Events, acc.Defs()
	tb := defs.TimeBase
	var rep *stats.Report
	if cfg.JSON {
		rep = acc.FinalReport()
	} else {
		// The text prints a part of the report only.
		rep = acc.FinalTextReport(cfg.Scope)
	}
	for i := range rep.Locations {
		if l := &rep.Locations[i]; h.MPI && l.Kind == "process" {
			l.Kind = "rank"
		}
	}
	if h.Clamped != 0 {
		rep.Final.Diagnostics.VClockClamped = h.Clamped
	}
	tree := ct.Root()
	if cfg.JSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", " ")
		return enc.Encode(struct {
			*stats.Report
			CallTree *stats.CallNode `json:"call_tree"`
		}{rep, tree})
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
	return nil
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
		fmt.Fprintf(out, "\nInterval [%s, %s): matched messages %d\n", rep.FormatTime(int64(prev.Time)), rep.FormatTime(int64(s.Time)), d.Diagnostics.MatchedMessages)
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
