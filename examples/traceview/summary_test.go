package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace/export"
	"github.com/hpctrace/hpctrace/model"
	"pgregory.net/rapid"
)

// fullMix is the mix of a full read of the trace of args at the columns
// of m (its start, width and number), the regions still open at the
// trace's end open to end; with every region of the trace (unnumbered:
// index RegionID - 1), and the messages of the trace.
func fullMix(t *testing.T, args []string, m *mixData, rows int, end model.Time) (*mixData, []export.TimelineRegion, []export.Message, []export.Slice) {
	t.Helper()
	tr, err := openSelected(args, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	defs := tr.Defs()
	mix := newMixer(defs, m.Columns, rowSizeOf(defs, rows), &model.Window{From: m.Start, To: m.Start + model.Time(m.Columns)*m.ColWidth})
	if mix.width != m.ColWidth {
		t.Fatalf("the full read's columns are %d ticks wide, the served %d", mix.width, m.ColWidth)
	}
	tl := export.NewTimeline(defs, &export.TimelineOptions{MaxDetail: 1 << 30})
	for tr.Next() {
		mix.add(tr.Event())
		tl.Add(tr.Event())
	}
	if err := tr.Err(); err != nil {
		t.Fatal(err)
	}
	mix.to = min(mix.to, end)
	d := tl.Finish()
	return mix.finish(), d.Regions, d.Detail.Messages, d.Detail.Slices
}

// longKeys are the slices of at least min ticks that meet [from, to],
// named, sorted.
func longKeys(ss []export.Slice, regions []export.TimelineRegion, min, from, to model.Time) []string {
	var out []string
	for _, x := range ss {
		if x.End-x.Start >= min && x.End >= from && x.Start <= to {
			out = append(out, fmt.Sprintf("loc %d %s %d-%d depth %d coll %v comm %q", x.Loc, regions[x.Region-1].Name, x.Start, x.End, x.Depth, x.Coll, x.Comm))
		}
	}
	slices.Sort(out)
	return out
}

// TestServeSummaryMix: a window of more events than -budget is answered
// from the summary, reading no event, at columns of whole buckets; its
// mix is that of a full read at those columns, its message lines count
// the messages with an end in them, and its long slices are the full
// read's slices of at least a column that meet the window, for every
// format (the summary
// of a trace with a time before its first event's, as a PICL file in
// file order may have, is dropped: its windows are read).
func TestServeSummaryMix(t *testing.T) {
	summarized, longSeen := 0, 0
	for _, in := range serveTraces {
		t.Run(in, func(t *testing.T) {
			args := []string{in}
			cfg := testConfig(3, 0)
			cfg.width, cfg.budget = 50, 1
			s, err := newServer(args, cfg, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			hs := httptest.NewServer(s)
			defer hs.Close()
			first, last := s.ix.first, s.ix.last
			span := last - first + 1
			for _, w := range [][2]model.Time{{first, last + 1}, {first + span/3, first + span/2}, {first + span/2, first + span/2 + max(span/20, 1)}} {
				rep := getWindow(t, hs.URL, w[0], w[1], "")
				if !s.sum.usable() {
					if s.ix.monotone {
						t.Fatalf("no summary of a trace whose times ascend")
					}
					if rep.Summary != nil || rep.Timeline.Detail == nil {
						t.Fatalf("window %v: a summary of a trace whose times go back", w)
					}
					continue
				}
				if s.sum.estimate(w[0], w[1]) <= 1 {
					continue // read: no more events than the budget
				}
				if rep.Summary == nil || rep.Read != 0 || rep.Timeline.Detail != nil {
					t.Fatalf("window %v of %d events, budget 1: read %d events, summary %+v, detail %v", w, s.ix.n, rep.Read, rep.Summary, rep.Timeline.Detail != nil)
				}
				summarized++
				m := rep.Mix
				if m.ColWidth%rep.Summary.Bucket != 0 || (m.Start-s.sum.start)%rep.Summary.Bucket != 0 || m.Start > w[0] ||
					m.Start+model.Time(m.Columns)*m.ColWidth < w[1] || m.Columns > cfg.width {
					t.Fatalf("window %v: columns from %d, %d of %d ticks, not whole buckets of %d from %d covering it", w, m.Start, m.Columns, m.ColWidth,
						rep.Summary.Bucket, s.sum.start)
				}
				want, regions, msgs, all := fullMix(t, args, m, cfg.rows, last+1)
				if len(want.Cells) == 0 {
					t.Fatalf("window %v: the full read's mix is empty", w)
				}
				if diff := gocmp.Diff(namedMix(want, regions), namedMix(m, rep.Timeline.Regions)); diff != "" {
					t.Errorf("window %v: mix (-full read +summary):\n%s", w, diff)
				}
				if !slices.Equal(m.RowLocs, want.RowLocs) {
					t.Errorf("window %v: rows %v, want %v", w, m.RowLocs, want.RowLocs)
				}
				a, b := m.Start, m.Start+model.Time(m.Columns)*m.ColWidth
				var n, got int64
				for _, x := range msgs {
					if (x.Send >= a && x.Send < b) || (x.Recv >= a && x.Recv < b) {
						n++
					}
				}
				for _, x := range rep.Timeline.Bundles {
					got += x.Count
				}
				if s.sum.bshift == 0 && got != n {
					t.Errorf("window %v: %d messages in the message lines, want %d", w, got, n)
				}
				if len(rep.RegionGroups) != len(rep.Timeline.Regions) {
					t.Errorf("window %v: %d region groups for %d regions", w, len(rep.RegionGroups), len(rep.Timeline.Regions))
				}
				if rep.Summary.LongMin != m.ColWidth {
					t.Errorf("window %v: long slices from %d ticks, want the column's %d", w, rep.Summary.LongMin, m.ColWidth)
				}
				wantLong := longKeys(all, regions, rep.Summary.LongMin, rep.From, rep.To)
				if diff := gocmp.Diff(wantLong, longKeys(rep.Summary.Long, rep.Timeline.Regions, rep.Summary.LongMin, rep.From, rep.To)); diff != "" {
					t.Errorf("window %v: long slices (-full read +summary):\n%s", w, diff)
				}
				longSeen += len(wantLong)
			}
		})
	}
	if summarized == 0 || longSeen == 0 {
		t.Errorf("%d windows answered from the summary, with %d long slices; want some of both", summarized, longSeen)
	}
}

// TestServeBudget: a window request reads at most -budget events (and
// the index's checkpoint intervals at its edges); a wider window is
// answered from the summary without reading.
func TestServeBudget(t *testing.T) {
	for _, in := range []string{"fig12.json", "../../otf2/testdata/c_localdefs/trace/traces.otf2", "../tracestat/testdata/otf2_mpi/trace/traces.otf2"} {
		t.Run(in, func(t *testing.T) {
			cfg := testConfig(3, 0)
			s0, err := newServer([]string{in}, cfg, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			cfg.budget = max(s0.ix.n/8, 1)
			s, err := newServer([]string{in}, cfg, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			hs := httptest.NewServer(s)
			defer hs.Close()
			first, last := s.ix.first, s.ix.last
			span := last - first + 1
			exact, summed := 0, 0
			for _, f := range []model.Time{1, 2, 4, 8, 16, 64, 256, 4096} {
				for _, pos := range []model.Time{0, 1, 2} {
					w := max(span/f, 1)
					from := first + pos*(span-w)/2
					rep := getWindow(t, hs.URL, from, from+w, "")
					if bound := cfg.budget + 2*s.ix.every; rep.Read > bound {
						t.Errorf("window of 1/%d of the span at %d: %d events read, more than the budget %d and the checkpoints' %d", f, from, rep.Read, cfg.budget, 2*s.ix.every)
					}
					if rep.Summary != nil {
						summed++
					} else {
						exact++
					}
				}
			}
			if exact == 0 || summed == 0 {
				t.Errorf("%d windows read, %d from the summary; want both", exact, summed)
			}
		})
	}
}

// writeHuge writes a trace (event JSON) of two ranks whose ticks start at
// 2^60 and returns its path.
func writeHuge(t *testing.T, base int64) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "huge.json")
	ev := func(dt int64, loc int, body string) string {
		return fmt.Sprintf(`{"t":%d,"loc":%d,%s}`, base+dt, loc, body)
	}
	trace := `{"format":"trace-events-json/1","ticks_per_second":1000000000,"locations":[{"id":0,"name":"rank 0"},{"id":1,"name":"rank 1"}],` +
		`"regions":[{"id":1,"name":"main","kind":"function","paradigm":"user"},{"id":2,"name":"MPI_Recv","kind":"function","paradigm":"mpi"}],"events":[` +
		ev(0, 0, `"kind":"enter","region":1`) + "," + ev(0, 1, `"kind":"enter","region":1`) + "," +
		ev(3, 1, `"kind":"enter","region":2`) + "," + ev(5, 0, `"kind":"send","peer":1,"tag":1,"bytes":8`) + "," +
		ev(9, 1, `"kind":"recv","peer":0,"tag":1,"bytes":8`) + "," + ev(10, 1, `"kind":"leave","region":2`) + "," +
		ev(20, 0, `"kind":"leave","region":1`) + "," + ev(20, 1, `"kind":"leave","region":1`) + "]}\n"
	if err := os.WriteFile(p, []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestServeHugeTicks: a served window of a trace whose ticks pass 2^53
// (2^60 ns) counts its times from the page's origin, so that the page
// gets them exactly; read in full and from the summary.
func TestServeHugeTicks(t *testing.T) {
	const base = int64(1) << 60
	for _, budget := range []int64{0, 1} {
		cfg := testConfig(0, 0)
		cfg.budget = budget
		s, err := newServer([]string{writeHuge(t, base)}, cfg, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(s)
		u := fmt.Sprintf("%s/window?from=%d&to=%d&origin=%d", hs.URL, base, base+21, base)
		res, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		var rep windowReply
		err = json.NewDecoder(res.Body).Decode(&rep)
		res.Body.Close()
		hs.Close()
		if err != nil {
			t.Fatal(err)
		}
		tl := rep.Timeline
		if rep.Origin != strconv.FormatInt(base, 10) || tl.Start != 0 || tl.End != 21 || rep.Mix.Start != 0 {
			t.Errorf("budget %d: origin %q, timeline %d–%d, mix from %d; want %d and offsets 0–21", budget, rep.Origin, tl.Start, tl.End, rep.Mix.Start, base)
		}
		if budget == 0 {
			var recv []model.Time
			for _, s := range tl.Detail.Slices {
				if tl.Regions[s.Region-1].Name == "MPI_Recv" {
					recv = append(recv, s.Start, s.End)
				}
			}
			if len(recv) != 2 || recv[0] != 3 || recv[1] != 10 {
				t.Errorf("MPI_Recv at %v, want [3 10]", recv)
			}
			if m := tl.Detail.Messages; len(m) != 1 || m[0].Send != 5 || m[0].Recv != 9 {
				t.Errorf("messages %+v, want one sent at 5, received at 9", m)
			}
		} else if rep.Summary == nil || rep.Mix.ColWidth != 1 || len(rep.Mix.Cells) == 0 {
			t.Errorf("budget 1: summary %+v, mix columns of %d ticks, %d cells; want the summary at one tick a column", rep.Summary, rep.Mix.ColWidth, len(rep.Mix.Cells))
		}
	}
}

// TestSummaryBounds: the summary stays within its bounds while keeping
// its sums: locations defined as the trace goes (Chrome JSON) add rows,
// and past maxSumCells cells the buckets halve in number; past
// maxSumBundles message lines they are counted at coarser buckets. Its
// mix is still a full read's at its columns, and every message is in its
// lines.
func TestSummaryBounds(t *testing.T) {
	defs := &model.Defs{TimeBase: model.TimeBase{TicksPerSecond: 1e9}}
	s := newSummary(defs, 200) // no location yet: a row a location
	nb0 := s.nb
	const locs, n = 40, 4000
	work := defs.AddRegion(model.Region{Name: "work", Kind: model.RegionFunction})
	comm := defs.AddRegion(model.Region{Name: "comm", Kind: model.RegionFunction})
	var evs []model.Event
	var msgs []export.Message
	for i := range n {
		t0 := model.Time(i) * 100
		for l := 1; l <= locs; l++ {
			evs = append(evs, model.Event{Time: t0, Loc: model.LocID(l), Kind: model.KindEnter, Region: work},
				model.Event{Time: t0 + model.Time(10+l), Loc: model.LocID(l), Kind: model.KindLeave, Region: work},
				model.Event{Time: t0 + model.Time(10+l), Loc: model.LocID(l), Kind: model.KindEnter, Region: comm},
				model.Event{Time: t0 + 90, Loc: model.LocID(l), Kind: model.KindLeave, Region: comm})
			msgs = append(msgs, export.Message{From: model.LocID(l), To: model.LocID(1 + (l+i)%locs), Send: t0 + 20, Recv: t0 + 50 + model.Time(i%7)*1000, Bytes: 8})
		}
	}
	slices.SortStableFunc(evs, func(a, b model.Event) int { return int(a.Time - b.Time) })
	for l := 1; l <= locs; l++ {
		defs.AddLocation(model.Location{Name: fmt.Sprint("rank ", l)})
	}
	for i := range evs {
		s.add(&evs[i])
	}
	for i := range msgs {
		s.message(&msgs[i])
	}
	last := evs[len(evs)-1].Time
	s.finish(last + 1)
	if len(s.rows) != locs || s.nb >= nb0 || len(s.rows)*s.nb > maxSumCells || s.bshift == 0 || len(s.lines) > maxSumBundles {
		t.Fatalf("%d rows of %d buckets (at first %d), bundles %d at shift %d; want %d rows within %d cells, bundles within %d", len(s.rows), s.nb, nb0,
			len(s.lines), s.bshift, locs, maxSumCells, maxSumBundles)
	}
	tl, m, _ := s.answer(evs[0].Time, last+1, 300)
	mix := newMixer(defs, m.Columns, 1, &model.Window{From: m.Start, To: m.Start + model.Time(m.Columns)*m.ColWidth})
	for i := range evs {
		mix.add(&evs[i])
	}
	mix.to = min(mix.to, last+1)
	want := mix.finish()
	regions := export.NewTimeline(defs, nil).Finish().Regions
	if diff := gocmp.Diff(namedMix(want, regions), namedMix(m, regions)); diff != "" {
		t.Errorf("mix (-full read +summary):\n%s", diff)
	}
	var got int64
	for _, b := range tl.Bundles {
		got += b.Count
	}
	if got != int64(len(msgs)) {
		t.Errorf("%d messages in the lines, want %d", got, len(msgs))
	}
}

// TestSummaryRowsMetLate: a trace that defines its locations as it goes
// (rows of one) and meets more rows than the summary holds at its
// coarsest drops the summary instead of growing past its bound.
func TestSummaryRowsMetLate(t *testing.T) {
	defs := &model.Defs{}
	s := newSummary(defs, 200)
	r := defs.AddRegion(model.Region{Name: "work", Kind: model.RegionFunction})
	n := maxSumCells/minSumBuckets + 1
	for l := 1; l <= n; l++ {
		s.add(&model.Event{Time: 0, Loc: model.LocID(l), Kind: model.KindEnter, Region: r})
	}
	for l := 1; l <= n; l++ {
		s.add(&model.Event{Time: 10, Loc: model.LocID(l), Kind: model.KindLeave, Region: r})
		if s.dropped {
			break
		}
		if len(s.rows)*s.nb > maxSumCells {
			t.Fatalf("%d rows of %d buckets: past %d cells", len(s.rows), s.nb, maxSumCells)
		}
	}
	s.finish(11)
	if s.usable() || len(s.rows) != 0 {
		t.Errorf("%d rows met: the summary is kept (%d rows)", n, len(s.rows))
	}
}

// TestMemberSummaryBounds: the members' summary of 3000 locations in 200
// rows holds at most maxMemberCells cells, made at the start and not
// grown by the trace's length (its buckets widen instead), and a
// window's members' mix from it is that of a full read of those
// locations at its columns; a trace whose rows are its locations has
// none.
func TestMemberSummaryBounds(t *testing.T) {
	defs := &model.Defs{TimeBase: model.TimeBase{TicksPerSecond: 1e9}}
	const locs, n = 3000, 20
	for l := 1; l <= locs; l++ {
		defs.AddLocation(model.Location{Name: fmt.Sprint("rank ", l)})
	}
	if m := newMemberSummary(defs, locs); m != nil {
		t.Fatalf("a members' summary where every row is a location")
	}
	m := newMemberSummary(defs, 200)
	work := defs.AddRegion(model.Region{Name: "work", Kind: model.RegionFunction})
	comm := defs.AddRegion(model.Region{Name: "comm", Kind: model.RegionFunction})
	var evs []model.Event
	for i := range n {
		t0 := model.Time(i) * 1000
		for l := 1; l <= locs; l++ {
			d := model.Time(100 + l%700)
			evs = append(evs, model.Event{Time: t0, Loc: model.LocID(l), Kind: model.KindEnter, Region: work},
				model.Event{Time: t0 + d, Loc: model.LocID(l), Kind: model.KindLeave, Region: work},
				model.Event{Time: t0 + d, Loc: model.LocID(l), Kind: model.KindEnter, Region: comm},
				model.Event{Time: t0 + 900, Loc: model.LocID(l), Kind: model.KindLeave, Region: comm})
		}
	}
	slices.SortStableFunc(evs, func(a, b model.Event) int { return int(a.Time - b.Time) })
	nb := m.sum.nb
	for i := range evs {
		m.add(&evs[i])
	}
	last := evs[len(evs)-1].Time
	m.finish(last + 1)
	if len(m.sum.rows) != locs || m.sum.nb != nb || locs*nb > maxMemberCells || m.sum.width == 1 {
		t.Fatalf("%d rows of %d buckets (at first %d) of %d ticks; want %d rows within %d cells, the buckets widened", len(m.sum.rows), m.sum.nb, nb, m.sum.width, locs, maxMemberCells)
	}
	keep := func(l model.LocID) bool { return l >= 16 && l <= 30 }
	from, to := last/3, last/2
	got := m.answer(from, to, 50, keep)
	if got.Start > from || got.Start+model.Time(got.Columns)*got.ColWidth < to || got.ColWidth%m.sum.width != 0 {
		t.Fatalf("columns from %d, %d of %d ticks: not whole buckets of %d covering [%d, %d)", got.Start, got.Columns, got.ColWidth, m.sum.width, from, to)
	}
	mix := newMixer(defs, got.Columns, 1, &model.Window{From: got.Start, To: got.Start + model.Time(got.Columns)*got.ColWidth})
	for i := range evs {
		if keep(evs[i].Loc) {
			mix.add(&evs[i])
		}
	}
	mix.to = min(mix.to, last+1)
	want := mix.finish()
	want.RowLocs = nil
	regions := export.NewTimeline(defs, nil).Finish().Regions
	if len(want.Cells) == 0 {
		t.Fatal("the full read's mix is empty")
	}
	if diff := gocmp.Diff(namedMix(want, regions), namedMix(got, regions)); diff != "" {
		t.Errorf("members' mix (-full read +summary):\n%s", diff)
	}
}

// TestSummaryLongIndex: the summary's long slices are indexed by length
// and start, so that an answer touches only those as long as its columns
// that meet its window (and a few that end just before it), not all it
// keeps; what it answers is every kept slice of at least the column's
// width that meets the window.
func TestSummaryLongIndex(t *testing.T) {
	d := &model.Defs{TimeBase: model.TimeBase{TicksPerSecond: 1e9}}
	const nloc, per = 4, 10000
	var locs [nloc]model.LocID
	for i := range locs {
		locs[i] = d.AddLocation(model.Location{Name: fmt.Sprintf("rank %d", i)})
	}
	mainR := d.AddRegion(model.Region{Name: "main", Kind: model.RegionFunction})
	work := d.AddRegion(model.Region{Name: "work", Kind: model.RegionFunction})
	s := newSummary(d, 200)
	var evs []model.Event
	for i := range per {
		for _, l := range locs {
			t0 := model.Time(i) * 8
			if i == 0 {
				evs = append(evs, model.Event{Time: 0, Loc: l, Kind: model.KindEnter, Region: mainR})
			}
			evs = append(evs, model.Event{Time: t0, Loc: l, Kind: model.KindEnter, Region: work},
				model.Event{Time: t0 + 4 + model.Time(i*7+int(l))%5, Loc: l, Kind: model.KindLeave, Region: work})
		}
	}
	end := model.Time(per * 8)
	for _, l := range locs {
		evs = append(evs, model.Event{Time: end, Loc: l, Kind: model.KindLeave, Region: mainR})
	}
	slices.SortStableFunc(evs, func(a, b model.Event) int { return cmp.Compare(a.Time, b.Time) })
	for i := range evs {
		s.add(&evs[i])
	}
	s.finish(end + 1)
	var all []export.Slice
	for _, lv := range s.levels {
		all = append(all, lv...)
	}
	if len(all) < nloc*per {
		t.Fatalf("%d long slices kept; want the trace's %d and its mains", len(all), nloc*per)
	}
	key := func(ss []export.Slice) []string {
		var out []string
		for _, x := range ss {
			out = append(out, fmt.Sprintf("loc %d region %d %d-%d depth %d", x.Loc, x.Region, x.Start, x.End, x.Depth))
		}
		slices.Sort(out)
		return out
	}
	rapid.Check(t, func(rt *rapid.T) {
		from := model.Time(rapid.Int64Range(0, int64(end)).Draw(rt, "from"))
		to := from + model.Time(rapid.Int64Range(1, int64(end)).Draw(rt, "length"))
		cols := rapid.IntRange(1, 1200).Draw(rt, "columns")
		before := s.longTouched.Load()
		_, md, info := s.answer(from, to, cols)
		touched := s.longTouched.Load() - before
		var want []export.Slice
		for _, x := range all {
			if x.End-x.Start >= info.LongMin && x.End >= from && x.Start <= to {
				want = append(want, x)
			}
		}
		if diff := gocmp.Diff(key(want), key(info.Long)); diff != "" {
			rt.Fatalf("window [%d, %d) in %d columns: long slices (-every kept one +answer):\n%s", from, to, cols, diff)
		}
		// Each touched is of a level whose longest slices are longer
		// than the columns' width, so at least half as long, and
		// starts at most twice its length before the window.
		near := 0
		for _, x := range all {
			if n := x.End - x.Start; 2*n > md.ColWidth && x.Start <= to && x.Start > from-2*n {
				near++
			}
		}
		if touched > int64(near) || (to-from < end/10 && touched > int64(len(all)/4)) {
			rt.Fatalf("window [%d, %d) in %d columns: %d long slices touched for %d answered; want at most the %d at least half a column long near it, of %d kept",
				from, to, cols, touched, len(info.Long), near, len(all))
		}
	})
}
