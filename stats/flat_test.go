package stats

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"testing"

	"github.com/hpctrace/hpctrace/internal/termsafe"
	"github.com/hpctrace/hpctrace/model"
	"pgregory.net/rapid"
)

// refFlat is the flat profile as it was written before rows were summed
// by region id: a map by name over the rows, and a stable sort of all.
func refFlat(t *textWriter) {
	f := t.f
	type flat struct {
		name             string
		visits           int64
		incl, excl, asum model.Time
	}
	byRegion := map[string]*flat{}
	var order []*flat
	for _, fn := range f.Functions {
		x := byRegion[fn.Region]
		if x == nil {
			x = &flat{name: fn.Region}
			byRegion[fn.Region] = x
			order = append(order, x)
		}
		x.visits += fn.Visits
		x.incl += fn.Incl
		x.excl += fn.Excl
		x.asum += fn.InclActivationSum
	}
	slices.SortStableFunc(order, func(a, b *flat) int { return cmp.Compare(b.excl, a.excl) })
	var total model.Time
	for _, x := range order {
		total += x.excl
	}
	fmt.Fprintf(t.bw, "Flat profile (%d locations summed)\n", f.LocationsWithEvents())
	fmt.Fprintf(t.bw, "  %6s %14s %14s %10s  %s\n", "excl%", "excl", "incl", "visits", "region")
	for i, x := range order {
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

// TestFlatEqualsReference: the flat profile summed per region id, then
// per name, with its top rows selected, is the one summed per name over
// every row and sorted, for rows with ids (regions that share a name
// among them) and rows without (a report decoded from JSON).
func TestFlatEqualsReference(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		names := []string{"a", "b", "c", "MPI_Send"}
		nreg := rapid.IntRange(1, 8).Draw(rt, "regions")
		regName := make([]string, nreg+1)
		for r := 1; r <= nreg; r++ {
			regName[r] = rapid.SampledFrom(names).Draw(rt, "name")
		}
		withIDs := rapid.Bool().Draw(rt, "ids")
		var fs []Function
		for range rapid.IntRange(0, 30).Draw(rt, "rows") {
			r := model.RegionID(rapid.IntRange(1, nreg).Draw(rt, "region"))
			fn := Function{RegionID: r, Region: regName[r], Visits: rapid.Int64Range(0, 5).Draw(rt, "visits"),
				Incl: model.Time(rapid.Int64Range(0, 9).Draw(rt, "incl")), Excl: model.Time(rapid.Int64Range(0, 9).Draw(rt, "excl"))}
			if !withIDs {
				fn.RegionID = 0
			}
			fs = append(fs, fn)
		}
		top := rapid.IntRange(1, 6).Draw(rt, "top")
		f := &Final{Functions: fs}
		write := func(flat func(*textWriter)) string {
			var b bytes.Buffer
			tw := &textWriter{bw: bufio.NewWriter(&b), f: f, o: TextOptions{Top: top, TopName: "-top"}, tm: func(v model.Time) string { return fmt.Sprint(v) }}
			flat(tw)
			tw.bw.Flush()
			return b.String()
		}
		if got, want := write((*textWriter).flat), write(refFlat); got != want {
			rt.Fatalf("flat profile:\n%s\nwant:\n%s", got, want)
		}
	})
}
