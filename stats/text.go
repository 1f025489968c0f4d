package stats

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/hpctrace/hpctrace/internal/termsafe"
	"github.com/hpctrace/hpctrace/model"
)

// TextOptions configures WriteText. A nil or zero value means defaults.
type TextOptions struct {
	Top   int    // rows per table; 0 means 15
	Scope string // drill-down scope; "" means "all"
	// CallTree, if non-nil, is printed before the drill-down: the
	// calling-context tree of the same events (see [CallTree]).
	CallTree *CallNode
	// TopName names the setting that raises Top in the caller's terms
	// (a program's "-top"), for the line that says how many rows a table
	// left out; "" means "TextOptions.Top".
	TopName string
}

// WriteText writes a readable top-down report: the flat profile summed over
// locations, the drill-down tree and hot path, communication per peer with
// the synchronisation/transmission split, load imbalance, collectives, the
// counters per location (when the trace has counters; see
// [CounterSummary]) and diagnostics. Times are auto-scaled durations ("1.843 ms", see
// [Report.FormatTime]) when the time base is known, otherwise ticks; byte
// counts are in binary units ([FormatBytes]). Control characters in names
// (escape sequences, carriage returns, bells, C1 controls) are written
// escaped, as \x1b, so a hostile name cannot act on a terminal; the JSON
// form keeps them as they are.
func (r *Report) WriteText(w io.Writer, opts *TextOptions) error {
	t := &textWriter{bw: bufio.NewWriter(w), f: &r.Final, tm: r.FormatTime, ticksPerSecond: r.TicksPerSecond}
	if opts != nil {
		t.o = *opts
	}
	if t.o.Top <= 0 {
		t.o.Top = 15
	}
	if t.o.Scope == "" {
		t.o.Scope = "all"
	}
	if t.o.TopName == "" {
		t.o.TopName = "TextOptions.Top"
	}
	t.flat()
	r.writeMPI(t.bw, t.o.Top, t.more)
	if t.o.CallTree != nil {
		t.bw.WriteByte('\n')
		if err := t.o.CallTree.WriteText(t.bw, model.TimeBase{TicksPerSecond: r.TicksPerSecond}, &t.o); err != nil {
			return err
		}
	}
	t.drillDown()
	t.hotPath()
	t.communication()
	t.collectives()
	t.imbalance()
	t.counters()
	t.diagnostics()
	return t.bw.Flush()
}

// A textWriter writes the sections of WriteText, one method per section.
type textWriter struct {
	bw *bufio.Writer
	f  *Final
	o  TextOptions
	tm func(model.Time) string // r.FormatTime

	ticksPerSecond uint64 // r.TicksPerSecond: 0 when the clock's rate is unknown
}

// more writes the line that says how many rows a table left out.
func (t *textWriter) more(n int) {
	fmt.Fprintf(t.bw, "  ... %d more (raise %s to see them)\n", n, t.o.TopName)
}

// A flatRow is a row of the text's flat profile: a region's, summed over
// locations (and over the regions of its name).
type flatRow struct {
	name             string
	visits           int64
	incl, excl, asum model.Time
}

// A flatID is the sum of the flat profile's rows of one region id (or,
// for rows without their region's id, of one row).
type flatID struct {
	visits           int64
	incl, excl, asum model.Time
	first            int // the region's first row, +1; 0: no row
}

// add adds a row, the row-th (from 1), to x.
func (x *flatID) add(row int, visits int64, incl, excl, asum model.Time) {
	if x.first == 0 {
		x.first = row
	}
	x.visits += visits
	x.incl += incl
	x.excl += excl
	x.asum += asum
}

// mergeFlat merges the sums per region id of ids by name (two regions may
// have one name), in the order of the names' first rows, name(i) being
// the name of ids[i].
func mergeFlat(ids []flatID, name func(i int) string) []flatRow {
	nids := 0
	for i := range ids {
		if ids[i].first > 0 {
			nids++
		}
	}
	firsts := make([]int32, 0, nids) // region ids (or rows) by first row
	for r := range ids {
		if ids[r].first > 0 {
			firsts = append(firsts, int32(r))
		}
	}
	slices.SortFunc(firsts, func(a, b int32) int { return cmp.Compare(ids[a].first, ids[b].first) })
	byName := make(map[string]int, nids)
	order := make([]flatRow, 0, nids)
	for _, r := range firsts {
		x := &ids[r]
		nm := name(int(r))
		if j, ok := byName[nm]; ok {
			y := &order[j]
			y.visits += x.visits
			y.incl += x.incl
			y.excl += x.excl
			y.asum += x.asum
			continue
		}
		byName[nm] = len(order)
		order = append(order, flatRow{nm, x.visits, x.incl, x.excl, x.asum})
	}
	return order
}

// flatOf sums the rows of the flat profile per location of fs per
// region.
func flatOf(fs []Function) []flatRow {
	// Summed per region id first, in a table by id, then per name, in
	// the order of the names' first rows: a trace of many locations has
	// a row per location and region.
	maxID := model.RegionID(0)
	for i := range fs {
		maxID = max(maxID, fs[i].RegionID)
	}
	ids := make([]flatID, int(maxID)+1)
	for i := range fs {
		fn := &fs[i]
		x := &ids[fn.RegionID]
		if x.first > 0 && fs[x.first-1].Region != fn.Region {
			// Rows without their region's id (a report decoded from
			// JSON): summed by name alone.
			ids = nil
			break
		}
		x.add(i+1, fn.Visits, fn.Incl, fn.Excl, fn.InclActivationSum)
	}
	if ids == nil {
		ids = make([]flatID, len(fs))
		for i := range fs {
			fn := &fs[i]
			ids[i].add(i+1, fn.Visits, fn.Incl, fn.Excl, fn.InclActivationSum)
		}
	}
	return mergeFlat(ids, func(i int) string { return fs[ids[i].first-1].Region })
}

// flat writes the flat profile, summed over locations.
func (t *textWriter) flat() {
	f := t.f
	order := f.textFlat // FinalTextReport's
	if order == nil {
		order = flatOf(f.Functions)
	}
	var total model.Time
	for _, x := range order {
		total += x.excl
	}
	fmt.Fprintf(t.bw, "Flat profile (%d locations summed)\n", f.LocationsWithEvents())
	fmt.Fprintf(t.bw, "  %6s %14s %14s %10s  %s\n", "excl%", "excl", "incl", "visits", "region")
	for i, j := range topRows(len(order), t.o.Top, func(a, b int) int { return cmp.Compare(order[b].excl, order[a].excl) }) {
		x := &order[j]
		if i == t.o.Top {
			t.more(len(order) - i)
			break
		}
		pct := 0.0
		if total > 0 {
			pct = 100 * float64(x.excl) / float64(total)
		}
		fmt.Fprintf(t.bw, "  %5.1f%% %14s %14s %10d  %s\n", pct, t.tm(x.excl), t.tm(x.incl), x.visits, termsafe.String(x.name))
	}
}

// drillDown writes the drill-down of the scope, at most 4×Top rows.
func (t *textWriter) drillDown() {
	f := t.f
	tree, _ := f.DrillDown.Get(t.o.Scope)
	var rootIncl model.Time
	for _, c := range tree.Calls {
		rootIncl = max(rootIncl, c.Incl)
	}
	fmt.Fprintf(t.bw, "\nDrill-down over the call graph (%s; call site line, callee, incl, %% of root, count)\n", termsafe.String(t.o.Scope))
	fmt.Fprintf(t.bw, "  Not a call tree: a function's callees are summed over all its callers,\n")
	fmt.Fprintf(t.bw, "  so a row can exceed the row it is indented under.\n")
	lines, hidden := 0, 0
	var rows func(calls []DrillCall) int // rows of calls and their bodies
	rows = func(calls []DrillCall) int {
		n := len(calls)
		for _, c := range calls {
			if c.Body != nil {
				n += rows(c.Body.Calls)
			}
		}
		return n
	}
	var walk func(calls []DrillCall, depth int)
	walk = func(calls []DrillCall, depth int) {
		for _, c := range calls {
			if lines >= 4*t.o.Top {
				hidden++ // c and its body's rows, without a copy of c
				if c.Body != nil {
					hidden += rows(c.Body.Calls)
				}
				continue
			}
			lines++
			pct := 0.0
			if rootIncl > 0 {
				pct = 100 * float64(c.Incl) / float64(rootIncl)
			}
			fmt.Fprintf(t.bw, "  %s%4d %-24s %12s %6.1f%% %8d", strings.Repeat("  ", depth), c.Site, termsafe.String(c.Callee), t.tm(c.Incl), pct, c.Count)
			if c.IsCom() {
				fmt.Fprintf(t.bw, "  sync=%s trans=%s", t.tm(c.SyncDelay), t.tm(c.TransTime))
			}
			t.bw.WriteByte('\n')
			if c.Body != nil {
				walk(c.Body.Calls, depth+1)
			}
		}
	}
	walk(tree.Calls, 0)
	if hidden > 0 {
		t.more(hidden)
	}
}

// hotPath writes the hot path of the scope.
func (t *textWriter) hotPath() {
	f := t.f
	hot, _ := f.HotPath.Get(t.o.Scope)
	fmt.Fprintf(t.bw, "\nHot path (%s):", termsafe.String(t.o.Scope))
	for i, h := range hot {
		if i > 0 {
			t.bw.WriteString(" ->")
		}
		fmt.Fprintf(t.bw, " %s", termsafe.String(h.Callee))
		if h.Site != 0 {
			fmt.Fprintf(t.bw, " (line %d)", h.Site)
		}
	}
	t.bw.WriteByte('\n')
}

// communication writes the messages per (location, peer, direction),
// ranked by synchronisation plus transmission time.
func (t *textWriter) communication() {
	f := t.f
	type pk struct {
		loc, peer int64
		dir       string
	}
	per := map[pk]*Com{}
	var keys []pk
	for _, c := range f.Com {
		k := pk{c.Loc, c.Peer, c.Dir}
		x := per[k]
		if x == nil {
			x = &Com{}
			per[k] = x
			keys = append(keys, k)
		}
		x.Count += c.Count
		x.Bytes += c.Bytes
		x.SyncDelay += c.SyncDelay
		x.TransTime += c.TransTime
		x.Matched += c.Matched
	}
	if len(keys) == 0 {
		return
	}
	slices.SortStableFunc(keys, func(a, b pk) int {
		x, y := per[a], per[b]
		return cmp.Compare(y.SyncDelay+y.TransTime, x.SyncDelay+x.TransTime)
	})
	fmt.Fprintf(t.bw, "\nCommunication per peer\n")
	fmt.Fprintf(t.bw, "  %6s %6s %4s %8s %12s %12s %12s %8s\n", "loc", "peer", "dir", "msgs", "bytes", "sync", "trans", "matched")
	for i, k := range keys {
		if i == t.o.Top {
			t.more(len(keys) - i)
			break
		}
		x := per[k]
		fmt.Fprintf(t.bw, "  %6d %6d %4s %8d %12s %12s %12s %8d\n", k.loc, k.peer, k.dir, x.Count, FormatBytes(x.Bytes), t.tm(x.SyncDelay), t.tm(x.TransTime), x.Matched)
	}
}

// collectives writes the collective sums per location, operation and
// site.
func (t *textWriter) collectives() {
	f := t.f
	if len(f.CollectiveSums) == 0 {
		return
	}
	fmt.Fprintf(t.bw, "\nCollectives\n")
	fmt.Fprintf(t.bw, "  %6s %-20s %6s %12s %12s\n", "loc", "op", "count", "duration", "wait")
	for i, c := range f.CollectiveSums {
		if i == t.o.Top {
			t.more(len(f.CollectiveSums) - i)
			break
		}
		fmt.Fprintf(t.bw, "  %6d %-20s %6d %12s %12s\n", c.Loc, termsafe.String(c.Op), c.Count, t.tm(c.Duration), t.tm(c.Wait))
	}
}

// imbalance writes the load imbalance of exclusive time, ranked by lost
// time.
func (t *textWriter) imbalance() {
	all := t.f.textImb // FinalTextReport's
	if all == nil {
		all = make([]textImb, len(t.f.Imbalance))
		for i := range t.f.Imbalance {
			x := &t.f.Imbalance[i]
			all[i] = textImb{region: x.Region, max: x.Excl.Max, mean: x.Excl.Mean, cov: x.Excl.COV, lost: x.Excl.Lost, argMax: x.Excl.ArgMaxLoc}
			if x.Excl.ImbalanceRatio != nil {
				all[i].ratio, all[i].hasRatio = *x.Excl.ImbalanceRatio, true
			}
		}
	}
	fmt.Fprintf(t.bw, "\nLoad imbalance of exclusive time (absent locations count 0)\n")
	fmt.Fprintf(t.bw, "  %-24s %12s %12s %8s %8s %12s %8s\n", "region", "max", "mean", "max/mean", "cov", "lost", "argmax")
	for i, j := range topLost(all, t.o.Top) {
		x := &all[j]
		if i == t.o.Top {
			t.more(len(all) - i)
			break
		}
		ratio := "-"
		if x.hasRatio {
			ratio = fmt.Sprintf("%.3f", float64(x.ratio))
		}
		fmt.Fprintf(t.bw, "  %-24s %12s %12s %8s %8.3f %12s %8d\n", termsafe.String(x.region), t.tm(model.Time(x.max)), t.tm(model.Time(satInt(float64(x.mean)))), ratio, float64(x.cov), t.tm(model.Time(satInt(float64(x.lost)))), x.argMax)
	}
}

// topLost returns the indexes of the first top imbalances of imb in the
// order of a stable sort by lost time, largest first (topRows).
func topLost(imb []textImb, top int) []int {
	return topRows(len(imb), top, func(a, b int) int { return cmp.Compare(float64(imb[b].lost), float64(imb[a].lost)) })
}

// topRows returns the indexes of the first top of n rows in the order of
// a stable sort by compare (all of them if top is negative or at least
// n), and one more when there are more, so that the caller can say so. It
// sorts no copy of the rows, of which a trace of many locations has
// millions: it keeps the best top+1 by insertion.
func topRows(n, top int, compare func(a, b int) int) []int {
	if top < 0 || top >= n {
		ix := make([]int, n)
		for i := range ix {
			ix[i] = i
		}
		slices.SortStableFunc(ix, compare)
		return ix
	}
	// Before: first in the stable order.
	before := func(i, j int) bool {
		c := compare(i, j)
		return c < 0 || c == 0 && i < j
	}
	best := make([]int, 0, top+1)
	for i := range n {
		if len(best) == top+1 && !before(i, best[top]) {
			continue
		}
		k := len(best)
		for k > 0 && before(i, best[k-1]) {
			k--
		}
		if len(best) < top+1 {
			best = append(best, 0)
		}
		copy(best[k+1:], best[k:len(best)-1])
		best[k] = i
	}
	return best
}

// counters writes the counter summaries, when the trace has counters.
func (t *textWriter) counters() {
	cs := t.f.Counters
	if len(cs) == 0 {
		return
	}
	per := "s"
	if t.ticksPerSecond == 0 {
		per = "tick"
	}
	fmt.Fprintf(t.bw, "\nCounters per location (rate: (last - first) per %s of the samples' span; for an\n", per)
	fmt.Fprintf(t.bw, "  instantaneous counter, marked \"inst\", the slope of the reading, not a throughput)\n")
	fmt.Fprintf(t.bw, "  %6s %-24s %4s %8s %12s %12s %12s %12s\n", "loc", "counter", "mode", "samples", "min", "max", "mean", "rate")
	for i, c := range cs {
		if i == t.o.Top {
			t.more(len(cs) - i)
			break
		}
		mode := "inst"
		if c.Accumulating {
			mode = "acc"
		}
		fmt.Fprintf(t.bw, "  %6d %-24s %4s %8d %12.6g %12.6g %12.6g %12.6g\n", c.Loc, termsafe.String(c.Counter), mode, c.Samples,
			float64(c.Min), float64(c.Max), float64(c.Mean), float64(c.Rate))
	}
}

// diagnostics writes the diagnostic counts that are not zero.
func (t *textWriter) diagnostics() {
	f := t.f
	d := f.Diagnostics
	fmt.Fprintf(t.bw, "\nDiagnostics: matched=%d unmatched_send=%d unmatched_recv=%d", d.MatchedMessages, d.UnmatchedSend, d.UnmatchedRecv)
	for _, x := range []struct {
		n string
		v int64
	}{
		{"pending_evicted", d.PendingEvicted}, {"unknown_peer", d.UnknownPeer}, {"leave_region_mismatch", d.LeaveRegionMismatch}, {"unmatched_leave", d.UnmatchedLeave},
		{"open_at_end", d.OpenAtEnd}, {"open_collectives", d.OpenCollectives}, {"held_collectives", d.HeldCollectives}, {"unmatched_coll_end", d.UnmatchedCollEnd},
		{"non_monotonic", d.NonMonotonic}, {"backward", d.Backward}, {"vclock_clamped", d.VClockClamped},
		{"trace_lost", d.TraceLost}, {"ignored", d.Ignored}, {"overflow", d.Overflow},
	} {
		if x.v != 0 {
			fmt.Fprintf(t.bw, " %s=%d", x.n, x.v)
		}
	}
	t.bw.WriteByte('\n')
}

// satInt converts f to int64, saturating at the ends of the range (a
// plain conversion of 2^63, the mean of saturated sums, gives -2^63).
func satInt(f float64) int64 {
	switch {
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}
