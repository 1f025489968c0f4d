package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/hpctrace/hpctrace/model"
)

// groupSlice is a region's time on every location of groupTrace.
type groupSlice struct {
	mpi  bool
	a, b model.Time
}

// groupTrace writes an event-JSON trace of 2 locations doing the same,
// rounds rounds of 1000 ns from time 0: 8 application functions (app0 …
// app7, 50 + 5i ns each), each followed by a small MPI function (MPI_F0
// … MPI_F7, 5 + i ns), then nothing. A column of more than a round
// holds 16 regions in two groups, past a mix cell's mixSlots.
func groupTrace(t testing.TB, rounds int) (string, []groupSlice) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "groups.json")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprint(w, `{"format":"trace-events-json/1","ticks_per_second":1000000000,"locations":[{"id":0,"name":"rank 0"},{"id":1,"name":"rank 1"}],"regions":[`)
	for i := range 8 {
		fmt.Fprintf(w, `{"id":%d,"name":"app%d","kind":"function","paradigm":"user"},`, i+1, i)
		fmt.Fprintf(w, `{"id":%d,"name":"MPI_F%d","kind":"function","paradigm":"mpi"}`, i+9, i)
		if i < 7 {
			fmt.Fprint(w, ",")
		}
	}
	fmt.Fprint(w, `],"events":[`)
	var ss []groupSlice
	sep := ""
	for k := range rounds {
		t0 := model.Time(k) * 1000
		for i := range 8 {
			for _, x := range []struct {
				region int
				d      model.Time
				mpi    bool
			}{{i + 1, 50 + 5*model.Time(i), false}, {i + 9, 5 + model.Time(i), true}} {
				for loc := range 2 {
					fmt.Fprintf(w, `%s{"t":%d,"loc":%d,"kind":"enter","region":%d},{"t":%d,"loc":%d,"kind":"leave","region":%d}`, sep, t0, loc, x.region, t0+x.d, loc, x.region)
					sep = ","
				}
				ss = append(ss, groupSlice{x.mpi, t0, t0 + x.d})
				t0 += x.d
			}
		}
	}
	fmt.Fprint(w, "]}\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p, ss
}

// checkGroupRests checks that every column of mix m (one location a row)
// holds each group's time exactly: its regions' shares and its rest's
// (region -(g+1)) add up to the group's time of the column in ss, up to
// the rounding of each share to a thousandth. kind gives a key's group
// kind ("mpi", "application"). It returns the rests met, by kind.
func checkGroupRests(t *testing.T, m *mixData, ss []groupSlice, kind func(key int64) string) map[string]int {
	t.Helper()
	rests := map[string]int{}
	if m == nil || len(m.Cells) == 0 {
		t.Fatal("no mix")
	}
	for _, c := range m.Cells {
		for col := c[1]; col < c[1]+c[2]; col++ {
			a := m.Start + model.Time(col)*m.ColWidth
			b := a + m.ColWidth
			want := map[string]float64{}
			for _, s := range ss {
				if d := min(s.b, b) - max(s.a, a); d > 0 {
					want[map[bool]string{true: "mpi", false: "application"}[s.mpi]] += float64(d) * 1000 / float64(m.ColWidth)
				}
			}
			got, slots := map[string]float64{}, map[string]int{}
			for k := 3; k+1 < len(c); k += 2 {
				g := kind(c[k])
				got[g] += float64(c[k+1])
				slots[g]++
				if c[k] < 0 {
					rests[g]++
				}
			}
			for _, g := range []string{"mpi", "application"} {
				if math.Abs(got[g]-want[g]) > 0.5*float64(slots[g])+1e-9 {
					t.Fatalf("row %d column %d: %s holds %.1f thousandths (%d slots), want %.1f; cell %v", c[0], col, g, got[g], slots[g], want[g], c)
				}
			}
		}
	}
	return rests
}

// pageKind returns the group kind of a key of a mix of d: a region's
// group's, or a rest's.
func pageKind(d *pageData) func(int64) string {
	return func(key int64) string {
		switch {
		case key > 0 && int(key) <= len(d.RegionGroups):
			return d.Groups[d.RegionGroups[key-1]].Kind
		case key < 0 && int(-key) <= len(d.Groups):
			return d.Groups[-key-1].Kind
		}
		return "other"
	}
}

// TestMixGroupRests: on a trace of 8 small MPI functions and 8
// application functions in every column, the static page's mix keeps
// the rest of each group as that group's "other" (the old mix lumped
// both in one grey "other regions", where the MPI share hid), so that
// every column's MPI and application shares are exact.
func TestMixGroupRests(t *testing.T) {
	trace, ss := groupTrace(t, 200)
	for _, rows := range []string{"200", "1"} {
		_, _, d := pageOf(t, "-width", "20", "-rows", rows, trace)
		mixes := []*mixData{d.Mix}
		if rows == "1" {
			// Both locations in one row (they do the same: the row's
			// shares are each's), and each its own mix.
			if d.Members == nil {
				t.Fatal("-rows 1: no members' mix")
			}
			mixes = append(mixes, d.Members.Mix)
		}
		for _, m := range mixes {
			if rests := checkGroupRests(t, m, ss, pageKind(&d)); rests["mpi"] == 0 {
				t.Fatalf("-rows %s: no cell holds a rest of MPI: %v", rows, rests)
			}
		}
	}
}

// TestServeMixGroupRests: the served window's mix, read in full or
// answered from the summary, keeps each group's rest as the page's does,
// and so does the expanded row's members' mix.
func TestServeMixGroupRests(t *testing.T) {
	trace, ss := groupTrace(t, 200)
	for _, c := range []struct {
		budget int64
		rows   int
	}{{1 << 40, 200}, {1, 200}, {1 << 40, 1}, {1, 1}} {
		budget := c.budget
		t.Run(fmt.Sprint("budget ", budget, " rows ", c.rows), func(t *testing.T) {
			cfg := testConfig(50, 0)
			cfg.width, cfg.budget, cfg.rows = 20, budget, c.rows
			s, err := newServer([]string{trace}, cfg, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			hs := httptest.NewServer(s)
			defer hs.Close()
			for _, w := range [][2]model.Time{{0, 200000}, {30000, 90000}} {
				rep := getWindow(t, hs.URL, w[0], w[1], "")
				if c.rows == 1 {
					// The expanded row's locations' own mix too.
					res, err := http.Get(fmt.Sprintf("%s/window?from=%d&to=%d&members=1-2", hs.URL, w[0], w[1]))
					if err != nil {
						t.Fatal(err)
					}
					rep = &windowReply{}
					err = json.NewDecoder(res.Body).Decode(rep)
					res.Body.Close()
					if err != nil {
						t.Fatal(err)
					}
				}
				if (rep.Summary != nil) != (budget == 1) {
					t.Fatalf("window %v, budget %d: summary %v", w, budget, rep.Summary != nil)
				}
				mixes := []*mixData{rep.Mix}
				if c.rows == 1 {
					if rep.Members == nil {
						t.Fatalf("window %v: no members' mix", w)
					}
					mixes = append(mixes, rep.Members.Mix)
				}
				for _, m := range mixes {
					if rests := checkGroupRests(t, m, ss, pageKind(&rep.pageData)); rests["mpi"] == 0 {
						t.Fatalf("window %v: no cell holds a rest of MPI: %v", w, rests)
					}
				}
			}
		})
	}
}

// TestSummaryGroupRests: a bucket of the summary keeps the rest of
// every function group apart, however many (the summary once kept only
// the first four, the later ones together as "other regions"): on a
// trace of 7 groups of 3 regions each (regions defined as the trace
// goes), every column of an answer holds each group's time exactly.
// With its memory bound set low, the buckets halve in number to keep the
// cells and the rests within it, and the groups stay exact.
func TestSummaryGroupRests(t *testing.T) {
	for _, limit := range []int{sumBytes, 96 << 10} {
		t.Run(fmt.Sprint("limit ", limit), func(t *testing.T) {
			testSummaryGroupRests(t, limit)
		})
	}
}

func testSummaryGroupRests(t *testing.T, limit int) {
	const groups, per, locs, rounds = 7, 3, 2, 300
	defs := &model.Defs{TimeBase: model.TimeBase{TicksPerSecond: 1e9}}
	s := newSummary(defs, 200)
	s.limit = limit
	nb0 := s.nb
	var ids []model.RegionID
	for g := range groups {
		for i := range per {
			ids = append(ids, defs.AddRegion(model.Region{Name: fmt.Sprintf("g%d_%d", g, i), Group: fmt.Sprint("G", g), Kind: model.RegionFunction, Paradigm: model.ParadigmUser}))
		}
	}
	for l := range locs {
		defs.AddLocation(model.Location{Name: fmt.Sprint("rank ", l)})
	}
	type sl struct {
		g    int
		a, b model.Time
	}
	var ss []sl
	var t0 model.Time
	for k := range rounds {
		for j, r := range ids {
			d := model.Time(10 + (j*7+k)%23)
			for l := 1; l <= locs; l++ {
				s.add(&model.Event{Time: t0, Loc: model.LocID(l), Kind: model.KindEnter, Region: r})
				s.add(&model.Event{Time: t0 + d, Loc: model.LocID(l), Kind: model.KindLeave, Region: r})
			}
			ss = append(ss, sl{j / per, t0, t0 + d})
			t0 += d
		}
	}
	s.finish(t0)
	if s.bytes() > limit {
		t.Fatalf("%d bytes (%d rows of %d buckets, %d rests), past the limit of %d", s.bytes(), len(s.rows), s.nb, s.nrests, limit)
	}
	n := 0
	for _, x := range s.rows {
		n += len(x.rests)
	}
	if n != s.nrests {
		t.Fatalf("%d rests counted, %d kept", s.nrests, n)
	}
	if limit < sumBytes && s.nb >= nb0 {
		t.Fatalf("limit %d: %d buckets, as at first; want fewer", limit, s.nb)
	}
	t.Logf("%d rows of %d buckets, %d rests: %d bytes", len(s.rows), s.nb, s.nrests, s.bytes())
	_, m, _ := s.answer(0, t0, 40)
	gt := newGroupTable(defs)
	rests := 0
	for _, c := range m.Cells {
		for col := c[1]; col < c[1]+c[2]; col++ {
			a := m.Start + model.Time(col)*m.ColWidth
			b := a + m.ColWidth
			var want, got [groups]float64
			var slots [groups]int
			for _, x := range ss {
				if d := min(x.b, b) - max(x.a, a); d > 0 {
					want[x.g] += float64(d) * 1000 / float64(m.ColWidth)
				}
			}
			for k := 3; k+1 < len(c); k += 2 {
				var g int
				switch r := c[k]; {
				case r > 0:
					g = gt.of[r]
				case r < 0 && -r <= groups:
					g = int(-r - 1)
					rests++
				default:
					t.Fatalf("column %d: key %d, neither a region nor a group's rest: %v", col, r, c)
				}
				got[g] += float64(c[k+1])
				slots[g]++
			}
			for g := range want {
				if math.Abs(got[g]-want[g]) > 0.5*float64(slots[g])+1e-9 {
					t.Fatalf("row %d column %d: group %d holds %.1f thousandths, want %.1f; cell %v", c[0], col, g, got[g], want[g], c)
				}
			}
		}
	}
	if rests == 0 {
		t.Fatal("no rest of a group in the answer")
	}
}
