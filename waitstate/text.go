package waitstate

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/hpctrace/hpctrace/model"
)

// TextOptions configures WriteText. A nil or zero value means defaults.
type TextOptions struct {
	Top int // rows per table; 0 means 5
	// TopName names the setting that raises Top in the caller's terms
	// (a program's "-top"); "" means "TextOptions.Top".
	TopName string
	// Loc returns what names a location after the word "location" (a
	// program's own numbering, such as the MPI rank); nil means its model
	// id.
	Loc func(model.LocID) string
}

// WriteText writes a readable report: the metric tree of the patterns
// (doc/waitstates.md §2.3) with each one's time and its percentage of
// Total, the derived views of late_sender and late_receiver, the call
// paths, locations and instances that wait most per pattern, the delay
// costs, the critical path and the diagnostics. Times are auto-scaled
// durations when the time base is known ([model.TimeBase.Format]).
// Locations are printed as their model ids unless opts.Loc names them.
func (r *Report) WriteText(w io.Writer, opts *TextOptions) error {
	t := &textOut{bw: bufio.NewWriter(w), r: r}
	if opts != nil {
		t.o = *opts
	}
	if t.o.Top <= 0 {
		t.o.Top = 5
	}
	if t.o.TopName == "" {
		t.o.TopName = "TextOptions.Top"
	}
	t.tree()
	t.patterns()
	t.delays()
	t.critical()
	t.diagnostics()
	return t.bw.Flush()
}

type textOut struct {
	bw *bufio.Writer
	r  *Report
	o  TextOptions
}

func (t *textOut) tm(v model.Time) string { return t.r.TimeBase.Format(v) }

func (t *textOut) loc(l model.LocID) string {
	if t.o.Loc != nil {
		return t.o.Loc(l)
	}
	return strconv.FormatUint(uint64(l), 10)
}

func (t *textOut) pct(v float64) string {
	if t.r.Total <= 0 {
		return "     -"
	}
	return fmt.Sprintf("%5.1f%%", 100*v/float64(t.r.Total))
}

func (t *textOut) more(n int) {
	fmt.Fprintf(t.bw, "    ... %d more (raise %s to see them)\n", n, t.o.TopName)
}

// sums returns the time and count of each pattern over all rows.
func (r *Report) sums() (time [numPatterns]model.Time, count [numPatterns]int64) {
	for _, w := range r.WaitStates {
		if w.Pattern < numPatterns {
			time[w.Pattern] += w.Time
			count[w.Pattern] += w.Count
		}
	}
	return time, count
}

// tree writes the metric hierarchy. Inner nodes below MPI show the sum of
// the patterns below them (late_sender_wrong_order is inside late_sender).
func (t *textOut) tree() {
	tm, cnt := t.r.sums()
	fmt.Fprintf(t.bw, "Wait states (%% of Time, the sum over locations of first to last event)\n")
	fmt.Fprintf(t.bw, "  %14s %7s %10s  %s\n", "time", "%", "instances", "metric")
	line := func(depth int, name string, v model.Time, n int64) {
		cs := ""
		if n >= 0 {
			cs = fmt.Sprint(n)
		}
		fmt.Fprintf(t.bw, "  %14s %7s %10s  %s%s\n", t.tm(v), t.pct(float64(v)), cs, strings.Repeat("  ", depth), name)
	}
	sum := func(ps ...Pattern) model.Time {
		var s model.Time
		for _, p := range ps {
			s += tm[p]
		}
		return s
	}
	leaf := func(depth int, p Pattern) { line(depth, p.String(), tm[p], cnt[p]) }
	line(0, "Time", t.r.Total, -1)
	line(1, "MPI (time in MPI calls)", t.r.MPI, -1)
	line(2, "Management", sum(InitCompletion, WaitFinalize), -1)
	line(3, "Init/Exit", sum(InitCompletion, WaitFinalize), -1)
	leaf(4, InitCompletion)
	leaf(4, WaitFinalize)
	line(2, "Synchronization", sum(WaitBarrier, BarrierCompletion), -1)
	line(3, "Collective", sum(WaitBarrier, BarrierCompletion), -1)
	leaf(4, WaitBarrier)
	leaf(4, BarrierCompletion)
	coll := []Pattern{EarlyReduce, EarlyScan, LateBroadcast, WaitNxN, NxNCompletion}
	line(2, "Communication", sum(LateSender, LateReceiver)+sum(coll...), -1)
	line(3, "Point-to-point", sum(LateSender, LateReceiver), -1)
	leaf(4, LateSender)
	leaf(5, LateSenderWrongOrder)
	leaf(4, LateReceiver)
	line(3, "Collective", sum(coll...), -1)
	for _, p := range coll {
		leaf(4, p)
	}
	// The patterns beyond Scalasca's tree are printed when found.
	if icoll := []Pattern{WaitIBarrier, WaitINxN, LateIBroadcast, EarlyIReduce, EarlyIScan}; sum(icoll...) > 0 {
		line(2, "Non-blocking collective completion (not in Scalasca)", sum(icoll...), -1)
		for _, p := range icoll {
			leaf(3, p)
		}
	}
	fmt.Fprintf(t.bw, "\nViews of late_sender and late_receiver (each pair partitions its pattern)\n")
	for _, p := range []Pattern{LateSenderDirect, LateSenderIndirect, LateSenderPropagating, LateSenderTerminal,
		LateReceiverDirect, LateReceiverIndirect, LateReceiverPropagating, LateReceiverTerminal} {
		leaf(1, p)
	}
}

type ranked struct {
	key  string
	time model.Time
	n    int64
}

// patterns writes, per pattern with time, its top call paths, locations and
// instances.
func (t *textOut) patterns() {
	tm, _ := t.r.sums()
	for p := Pattern(1); p < LateSenderDirect; p++ {
		if tm[p] == 0 {
			continue
		}
		byCP, byLoc := map[string]*ranked{}, map[string]*ranked{}
		for _, w := range t.r.WaitStates {
			if w.Pattern != p {
				continue
			}
			for _, x := range []struct {
				m map[string]*ranked
				k string
			}{{byCP, w.CallPath}, {byLoc, "location " + t.loc(w.Loc)}} {
				v := x.m[x.k]
				if v == nil {
					v = &ranked{key: x.k}
					x.m[x.k] = v
				}
				v.time += w.Time
				v.n += w.Count
			}
		}
		fmt.Fprintf(t.bw, "\n%s: %s (%s)\n", p, t.tm(tm[p]), strings.TrimSpace(t.pct(float64(tm[p]))))
		for _, x := range []struct {
			title string
			m     map[string]*ranked
		}{{"call paths", byCP}, {"locations", byLoc}} {
			rows := make([]*ranked, 0, len(x.m))
			for _, v := range x.m {
				rows = append(rows, v)
			}
			slices.SortFunc(rows, func(a, b *ranked) int { return cmp.Or(cmp.Compare(b.time, a.time), strings.Compare(a.key, b.key)) })
			fmt.Fprintf(t.bw, "  top %s\n", x.title)
			for i, v := range rows {
				if i == t.o.Top {
					t.more(len(rows) - i)
					break
				}
				fmt.Fprintf(t.bw, "    %14s %7s %8d  %s\n", t.tm(v.time), t.pct(float64(v.time)), v.n, v.key)
			}
		}
		n := 0
		for _, in := range t.r.Top {
			if in.Pattern != p || n == t.o.Top {
				continue
			}
			if n == 0 {
				fmt.Fprintf(t.bw, "  top instances\n")
			}
			n++
			fmt.Fprintf(t.bw, "    %14s  location %s %s [%s, %s]", t.tm(in.Time), t.loc(in.Waiter.Loc), in.Waiter.CallPath, t.tm(in.Waiter.Enter), t.tm(in.Waiter.Leave))
			if in.Delayer.Loc != 0 {
				fmt.Fprintf(t.bw, " waits for location %s %s entered at %s", t.loc(in.Delayer.Loc), in.Delayer.CallPath, t.tm(in.Delayer.Enter))
			}
			t.bw.WriteByte('\n')
		}
	}
}

// delays writes the delay costs, most costly first.
func (t *textOut) delays() {
	rows := slices.Clone(t.r.DelayCosts)
	slices.SortStableFunc(rows, func(a, b DelayCost) int { return cmp.Compare(b.ShortTerm+b.LongTerm, a.ShortTerm+a.LongTerm) })
	fmt.Fprintf(t.bw, "\nDelay costs (the waiting time excess work caused: short-term directly, long-term through propagation)\n")
	fmt.Fprintf(t.bw, "  %14s %14s %7s  %-22s %s\n", "short-term", "long-term", "%", "caused", "location, call path")
	for i, d := range rows {
		if i == 2*t.o.Top {
			t.more(len(rows) - i)
			break
		}
		fmt.Fprintf(t.bw, "  %14s %14s %7s  %-22s location %s %s\n", t.tm(model.Time(d.ShortTerm+0.5)), t.tm(model.Time(d.LongTerm+0.5)),
			t.pct(d.ShortTerm+d.LongTerm), d.Pattern, t.loc(d.Loc), d.CallPath)
	}
}

// critical writes the critical path.
func (t *textOut) critical() {
	cp := &t.r.CriticalPath
	fmt.Fprintf(t.bw, "\nCritical path: %s\n", t.tm(cp.Length))
	prof := slices.Clone(cp.Profile)
	slices.SortStableFunc(prof, func(a, b CriticalRegion) int { return cmp.Compare(b.Time, a.Time) })
	fmt.Fprintf(t.bw, "  %14s %7s %14s  %s\n", "time", "% path", "imbalance", "region")
	for i, p := range prof {
		if i == 2*t.o.Top {
			t.more(len(prof) - i)
			break
		}
		pc := 0.0
		if cp.Length > 0 {
			pc = 100 * float64(p.Time) / float64(cp.Length)
		}
		fmt.Fprintf(t.bw, "  %14s %6.1f%% %14s  %s\n", t.tm(p.Time), pc, t.tm(model.Time(p.Imbalance+0.5)), p.Region)
	}
	locs := slices.Clone(cp.Locations)
	slices.SortStableFunc(locs, func(a, b CriticalLocation) int { return cmp.Compare(b.Time, a.Time) })
	fmt.Fprintf(t.bw, "  locations on the path:")
	for i, l := range locs {
		if i == t.o.Top {
			fmt.Fprintf(t.bw, " … %d more", len(locs)-i)
			break
		}
		fmt.Fprintf(t.bw, " %s (%s)", t.loc(l.Loc), t.tm(l.Time))
	}
	t.bw.WriteByte('\n')
}

func (t *textOut) diagnostics() {
	d := &t.r.Diagnostics
	fmt.Fprintf(t.bw, "\nDiagnostics: %d events, %d MPI calls, %d messages matched", d.Events, d.MPICalls, d.MatchedMessages)
	for _, x := range []struct {
		n    int64
		what string
	}{
		{d.UnknownLocation, "events of unknown locations"},
		{d.UnmatchedSends, "unmatched sends"},
		{d.UnmatchedRecvs, "unmatched receives"},
		{d.UnknownPeer, "messages without a partner"},
		{d.OutsideCall, "communication events outside MPI calls"},
		{d.UnknownComm, "collective calls on communicators of unknown membership"},
		{d.IncompleteColls, "incomplete collectives"},
		{d.ClockViolations, "clock-condition violations"},
		{d.LeaveMismatch, "mismatched leaves"},
		{d.UnbalancedLeaves, "unbalanced leaves"},
		{d.OpenAtEnd, "regions open at the end"},
	} {
		if x.n != 0 {
			fmt.Fprintf(t.bw, ", %d %s", x.n, x.what)
		}
	}
	t.bw.WriteString("\n")
}
