package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace/export"
	"github.com/hpctrace/hpctrace/model"
)

// serveTraces are the fixtures the served viewer is tried on: one of
// each input format.
var serveTraces = []string{
	"fig12.json", // hpctrace's event JSON
	"../../picl/testdata/appendix_a.trf",
	"../../dumpi/testdata/collectives/dumpi-2026.11.22.01.33.17.meta",
	"../../otf/testdata/minimal_ring_short/mini.otf",
	"../../otf/testdata/all_records_short/allrec.otf",
	"../../otf2/testdata/c_localdefs/trace/traces.otf2",
	"../tracestat/testdata/otf2_mpi/trace/traces.otf2",
	"../../chrome/testdata/ring4.json",
}

// testConfig is the configuration of the flags' defaults, with the
// index's checkpoints every `every` events.
func testConfig(every, cache int64) *config {
	return &config{width: 1200, top: 15, detail: 20000, rows: 200, waits: true, waitMax: 1000000,
		serveConfig: serveConfig{addr: "127.0.0.1:0", maxRead: 4000000, cache: cache, every: every}}
}

// getWindow asks the server at base for the window [from, to) of locs.
func getWindow(t *testing.T, base string, from, to model.Time, locs string) *windowReply {
	t.Helper()
	u := fmt.Sprintf("%s/window?from=%d&to=%d", base, from, to)
	if locs != "" {
		u += "&locs=" + locs
	}
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s %v", u, res.StatusCode, b, err)
	}
	var rep windowReply
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	return &rep
}

// sliceKey is a slice clipped to a window, named by its region.
type sliceKey struct {
	Loc         model.LocID
	Region      string
	Start, End  model.Time
	Depth       int
	Coll        bool
	Comm        string
	ClippedLeft bool
}

// clippedKeys returns the slices of tl clipped to [from, to], named.
func clippedKeys(tl *export.TimelineData, from, to model.Time) []sliceKey {
	var out []sliceKey
	for _, s := range tl.Detail.Slices {
		name := ""
		if s.Region > 0 && int(s.Region) <= len(tl.Regions) {
			name = tl.Regions[s.Region-1].Name
		}
		out = append(out, sliceKey{Loc: s.Loc, Region: name, Start: max(s.Start, from), End: min(s.End, to), Depth: s.Depth,
			Coll: s.Coll, Comm: s.Comm, ClippedLeft: s.Start < from})
	}
	slices.SortFunc(out, func(a, b sliceKey) int {
		return cmp.Or(cmp.Compare(a.Loc, b.Loc), cmp.Compare(a.Start, b.Start), cmp.Compare(a.Depth, b.Depth), cmp.Compare(a.End, b.End),
			strings.Compare(a.Region, b.Region))
	})
	return out
}

// oracle is the timeline of [from, to) of a full read of the trace of
// args, of the locations keep accepts (nil: all).
func oracle(t *testing.T, args []string, from, to model.Time, keep func(model.LocID) bool) (*export.TimelineData, model.Time, model.Time) {
	t.Helper()
	tr, err := openSelected(args, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	tl := export.NewTimeline(tr.Defs(), &export.TimelineOptions{Columns: 1200, MaxDetail: 1 << 30, MaxRows: 200, From: from, To: to})
	first, last, seen := model.Time(0), model.Time(0), false
	for tr.Next() {
		ev := tr.Event()
		if !seen || ev.Time < first {
			first = ev.Time
		}
		if !seen || ev.Time > last {
			last = ev.Time
		}
		seen = true
		if keep == nil || keep(ev.Loc) {
			tl.Add(ev)
		}
	}
	if err := tr.Err(); err != nil {
		t.Fatal(err)
	}
	return tl.Finish(), first, last
}

// TestServeWindows asks for windows at the start, middle and end of a
// trace of every format, with the index's checkpoints every few events
// (so that reads start inside the trace) and every read from the start,
// with the events kept in memory and read again from the file, and
// checks that every slice meeting the window is served (those clipped
// at its edges included), and every message meeting it, however far
// past the read's end its other end lies.
func TestServeWindows(t *testing.T) {
	clippedSeen := 0
	for _, in := range serveTraces {
		for _, c := range []struct{ every, cache int64 }{{3, 0}, {3, 5000000}, {3, 10}, {1 << 40, 0}} {
			t.Run(fmt.Sprintf("%s/every=%d/cache=%d", in, c.every, c.cache), func(t *testing.T) {
				args := []string{in}
				s, err := newServer(args, testConfig(c.every, c.cache), io.Discard)
				if err != nil {
					t.Fatal(err)
				}
				if c.every == 3 && s.ix.monotone && len(s.ix.cps) == 0 {
					t.Fatalf("no checkpoint in %d events", s.ix.n)
				}
				hs := httptest.NewServer(s)
				defer hs.Close()
				_, first, last := oracle(t, args, 0, 1, nil)
				span := last - first + 1
				wins := [][2]model.Time{
					{first, first + span/5 + 1},
					{first + 2*span/5, first + 3*span/5 + 1},
					{first + span/2, first + span/2 + max(span/50, 1)},
					{last - span/5, last + 1},
					{first, last + 1},
				}
				for _, w := range wins {
					rep := getWindow(t, hs.URL, w[0], w[1], "")
					if rep.Timeline == nil || rep.Timeline.Detail == nil {
						t.Fatalf("window %v: no detail: %+v", w, rep)
					}
					want, _, _ := oracle(t, args, w[0], w[1], nil)
					ws, gs := clippedKeys(want, w[0], w[1]), clippedKeys(rep.Timeline, w[0], w[1])
					if diff := gocmp.Diff(ws, gs); diff != "" {
						t.Errorf("window %v: slices (-full read +served):\n%s", w, diff)
					}
					for _, k := range gs {
						if k.ClippedLeft {
							clippedSeen++
						}
					}
					checkMessages(t, w, want.Detail.Messages, rep.Timeline.Detail.Messages)
				}
				// Locations: the served slices of locations 1 and the last
				// are those of the full read of those locations alone.
				n := s.defs.NumLocations()
				keep := model.Only(1, model.LocID(n))
				w := wins[1]
				rep := getWindow(t, hs.URL, w[0], w[1], fmt.Sprintf("1,%d-%d", n, n))
				want, _, _ := oracle(t, args, w[0], w[1], keep)
				if diff := gocmp.Diff(clippedKeys(want, w[0], w[1]), clippedKeys(rep.Timeline, w[0], w[1])); diff != "" {
					t.Errorf("window %v of locations 1 and %d: slices (-full read +served):\n%s", w, n, diff)
				}
			})
		}
	}
	if clippedSeen == 0 {
		t.Errorf("no window had a slice entered before it: the test does not try clipped slices")
	}
}

// checkMessages checks that the served messages are those of the full
// read that meet the window w: both ends in it, one end in it and the
// other before or after it (past the checkpoint where the read of the
// window ends), or one end before it and the other after.
func checkMessages(t *testing.T, w [2]model.Time, full, served []export.Message) {
	t.Helper()
	for _, m := range served {
		if !slices.Contains(full, m) {
			t.Errorf("window %v: served message %+v is not in the full read", w, m)
		}
	}
	for _, m := range full {
		if !slices.Contains(served, m) {
			t.Errorf("window %v: message %+v not served", w, m)
		}
	}
}

// namedMix is a mix cell with its regions named: row, column, columns,
// then region name and share in turn.
func namedMix(m *mixData, regions []export.TimelineRegion) [][]string {
	var out [][]string
	for _, c := range m.Cells {
		row := []string{fmt.Sprint(c[0]), fmt.Sprint(c[1]), fmt.Sprint(c[2])}
		for k := 3; k+1 < len(c); k += 2 {
			name := "other"
			if c[k] > 0 {
				name = regions[c[k]-1].Name
			} else if c[k] < 0 {
				name = fmt.Sprintf("rest of group %d", -c[k]-1)
			}
			row = append(row, name, fmt.Sprint(c[k+1]))
		}
		out = append(out, row)
	}
	return out
}

// namedCells are the aggregate's cells with their regions named, those
// of the columns that start before the window's end (the last columns of
// a window not a multiple of their width in length lie past it).
func namedCells(tl *export.TimelineData) []string {
	var out []string
	for _, c := range tl.Cells {
		if tl.Start+model.Time(c.Col)*tl.ColWidth >= tl.End {
			continue
		}
		name := ""
		if c.Region > 0 {
			name = tl.Regions[c.Region-1].Name
		}
		out = append(out, fmt.Sprintf("loc %d col %d+%d %s msgs %d", c.Loc, c.Col, c.Span, name, c.Msgs))
	}
	return out
}

// TestServeMix: the aggregate and the mix of a window (the share of each
// region in each row and column) are those of a full read with that
// window, whatever the window's size: -maxread 10 and -detail 5 make
// every window but the smallest one of more events than either.
func TestServeMix(t *testing.T) {
	for _, in := range serveTraces {
		t.Run(in, func(t *testing.T) {
			args := []string{in}
			cfg := testConfig(3, 0)
			cfg.maxRead, cfg.detail, cfg.width = 10, 5, 50
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
				if rep.Mix == nil || rep.Timeline == nil {
					t.Fatalf("window %v: no mix or timeline", w)
				}
				tr, err := openSelected(args, nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				tl := export.NewTimeline(tr.Defs(), &export.TimelineOptions{Columns: cfg.width, MaxDetail: -1, MaxRows: cfg.rows, From: w[0], To: w[1]})
				mix := newMixer(tr.Defs(), cfg.width, rowSizeOf(tr.Defs(), cfg.rows), &model.Window{From: w[0], To: w[1]})
				for tr.Next() {
					tl.Add(tr.Event())
					mix.add(tr.Event())
				}
				if err := tr.Err(); err != nil {
					t.Fatal(err)
				}
				tr.Close()
				want, wantMix := tl.Finish(), mix.finish()
				renumberRegions(want, wantMix, true)
				if len(wantMix.Cells) == 0 {
					t.Fatalf("window %v: the full read's mix is empty", w)
				}
				if diff := gocmp.Diff(namedMix(wantMix, want.Regions), namedMix(rep.Mix, rep.Timeline.Regions)); diff != "" {
					t.Errorf("window %v: mix (-full read +served):\n%s", w, diff)
				}
				if rep.Mix.Start != wantMix.Start || rep.Mix.ColWidth != wantMix.ColWidth || !slices.Equal(rep.Mix.RowLocs, wantMix.RowLocs) {
					t.Errorf("window %v: mix columns from %d of %d, rows %v; want from %d of %d, rows %v", w, rep.Mix.Start, rep.Mix.ColWidth, rep.Mix.RowLocs,
						wantMix.Start, wantMix.ColWidth, wantMix.RowLocs)
				}
				if diff := gocmp.Diff(namedCells(want), namedCells(rep.Timeline)); diff != "" {
					t.Errorf("window %v: aggregate (-full read +served):\n%s", w, diff)
				}
				if len(rep.RegionGroups) != len(rep.Timeline.Regions) {
					t.Errorf("window %v: %d region groups for %d regions", w, len(rep.RegionGroups), len(rep.Timeline.Regions))
				}
			}
		})
	}
}

// TestServeRequests checks the answers to bad requests and the page.
func TestServeRequests(t *testing.T) {
	s, err := newServer(nil, testConfig(0, 1000), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	defer hs.Close()
	for _, c := range []struct {
		path string
		code int
	}{
		{"/", 200},
		{"/window?from=0&to=1000", 200},
		{"/window?from=10&to=5", 400},
		{"/window?from=x&to=5", 400},
		{"/window?from=0&to=5&locs=0", 400},
		{"/window?from=0&to=5&locs=1-9", 400},
		{"/window?from=0&to=5&locs=a", 400},
		{"/other", 404},
	} {
		res, err := http.Get(hs.URL + c.path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != c.code {
			t.Errorf("GET %s: %d, want %d (%s)", c.path, res.StatusCode, c.code, b)
		}
		if c.path == "/" && (!strings.Contains(string(b), "window.traceview") || !strings.Contains(string(b), "fetch('window?from=")) {
			t.Errorf("the served page lacks the served-mode script")
		}
	}
	req, _ := http.NewRequest("GET", hs.URL+"/", nil)
	req.Host = "attacker.example:80"
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("a request for another host name: %d, want 403", res.StatusCode)
	}
}

// TestServeLoopback: -serve refuses an address other than loopback
// without -public, before reading the trace.
func TestServeLoopback(t *testing.T) {
	for _, c := range []struct {
		addr   string
		public bool
		ok     bool
		want   string
	}{
		{":0", false, true, "127.0.0.1:0"},
		{"127.0.0.1:0", false, true, "127.0.0.1:0"},
		{"[::1]:8080", false, true, "[::1]:8080"},
		{"localhost:8080", false, true, "localhost:8080"},
		{"0.0.0.0:8080", false, false, ""},
		{"192.0.2.1:8080", false, false, ""},
		{"example.com:8080", false, false, ""},
		{"0.0.0.0:8080", true, true, "0.0.0.0:8080"},
		{"8080", false, false, ""},
	} {
		got, err := listenAddr(c.addr, c.public)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("listenAddr(%q, %v) = %q, %v; want %q, ok %v", c.addr, c.public, got, err, c.want, c.ok)
		}
	}
	err := run([]string{"-serve", "0.0.0.0:0", "no-such-trace"}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "-public") {
		t.Errorf("-serve 0.0.0.0:0: got error %v, want one naming -public", err)
	}
	if err := run([]string{"-serve", ":0", "-from", "1", "-to", "2"}, io.Discard); err == nil {
		t.Errorf("-serve with -from and -to: no error")
	}
}

// chromiumURL renders the page at url headless and returns its DOM after
// the scripts ran (and the requests they made were answered), or skips
// the test when chromium is not installed.
func chromiumURL(t *testing.T, url string) string {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed")
	}
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--virtual-time-budget=5000",
		"--user-data-dir="+t.TempDir(), "--dump-dom", url)
	cmd.Stderr = &stderr
	dom, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.Bytes())
	}
	return string(dom)
}

// TestChromiumServed loads the served page of an OTF2 trace in headless
// Chromium, opened zoomed into a window: the page asks the server for
// that window and draws every slice and message of it. The page itself
// holds only the aggregate (-detail 80 is less than the trace's slices
// and messages), so the slices drawn are the server's.
func TestChromiumServed(t *testing.T) {
	args := []string{"../tracestat/testdata/otf2_mpi/trace/traces.otf2"}
	cfg := testConfig(3, 0)
	cfg.detail = 80
	s, err := newServer(args, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	defer hs.Close()
	_, first, last := oracle(t, args, 0, 1, nil)
	whole, _, _ := oracle(t, args, first, last+1, nil)
	if n := len(whole.Detail.Slices) + len(whole.Detail.Messages); n <= cfg.detail {
		t.Fatalf("the trace has %d slices and messages, no more than -detail %d", n, cfg.detail)
	}
	span := last - first
	from, to := first+span*2/5, first+span*12/25
	dom := chromiumURL(t, fmt.Sprintf("%s/#view=%d,%d", hs.URL, from, to))
	if m := regexp.MustCompile(`<div id="errors">([^<]*)</div>`).FindStringSubmatch(dom); m == nil || m[1] != "" {
		t.Fatalf("script errors: %q", m)
	}
	st := regexp.MustCompile(`<span [^>]*id="served"[^>]*>`).FindString(dom)
	if !strings.Contains(st, `data-state="ok"`) {
		t.Fatalf("served state: %q", st)
	}
	// The window read: the view with a quarter of its span each side.
	a, b := attr(t, dom, "served", "data-from"), attr(t, dom, "served", "data-to")
	if model.Time(a) > from || model.Time(b) < to {
		t.Fatalf("read [%d, %d), want it to cover the view [%d, %d)", a, b, from, to)
	}
	// What the page drew is what the server answers for that window
	// (TestServeWindows checks the answers against a full read).
	rep := getWindow(t, hs.URL, model.Time(a), model.Time(b), "")
	bars, msgs := 0, 0
	for _, s := range rep.Timeline.Detail.Slices {
		if s.End >= from && s.Start <= to {
			bars++
		}
	}
	for _, m := range rep.Timeline.Detail.Messages {
		if max(m.Send, m.Recv) >= from && min(m.Send, m.Recv) <= to {
			msgs++
		}
	}
	if bars == 0 || msgs == 0 {
		t.Fatalf("the window has %d slices and %d messages: choose another", bars, msgs)
	}
	if got := strings.Count(dom, `class="bar`); got != bars {
		t.Errorf("%d bars drawn, want the %d slices of the view", got, bars)
	}
	if got := strings.Count(dom, `class="msg"`); got != msgs {
		t.Errorf("%d message lines drawn, want %d", got, msgs)
	}
	if !strings.Contains(dom, "served window") {
		t.Errorf("the toolbar does not say the window is served")
	}
}

// TestServeSpan: a window is cut to the trace's span, and one outside it
// is an error (a window of the whole int64 range once overflowed the
// timeline's arithmetic).
func TestServeSpan(t *testing.T) {
	s, err := newServer(nil, testConfig(3, 0), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	defer hs.Close()
	rep := getWindow(t, hs.URL, math.MinInt64, math.MaxInt64, "")
	if rep.From != s.ix.first || rep.To != s.ix.last+1 || rep.Timeline == nil || rep.Timeline.Detail == nil || len(rep.Timeline.Detail.Slices) != 34 {
		t.Errorf("the whole int64 range: window [%d, %d), want [%d, %d] with the sample's 34 slices", rep.From, rep.To, s.ix.first, s.ix.last)
	}
	for _, w := range [][2]int64{{int64(s.ix.last) + 1, int64(s.ix.last) + 10}, {math.MinInt64, int64(s.ix.first)}} {
		res, err := http.Get(fmt.Sprintf("%s/window?from=%d&to=%d", hs.URL, w[0], w[1]))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusBadRequest {
			t.Errorf("window %v outside the trace: %d, want 400", w, res.StatusCode)
		}
	}
}

// TestServeCheckpointsOutsideCollectives: a checkpoint waits, up to
// another interval, for a moment when no location's innermost region is
// a collective (where an OTF2 seek would read the location from its
// start).
func TestServeCheckpointsOutsideCollectives(t *testing.T) {
	const every = 3
	s, err := newServer([]string{"../tracestat/testdata/otf2_mpi/trace/traces.otf2"}, testConfig(every, 0), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if s.ix.every != every {
		t.Fatalf("the interval grew to %d", s.ix.every)
	}
	waited := 0
	for i, cp := range s.ix.cps {
		top := map[model.LocID]openRegion{}
		for _, o := range cp.open {
			top[o.loc] = o
		}
		inColl := false
		for _, o := range top {
			inColl = inColl || o.coll || o.collRegion
		}
		gap := cp.n - s.ix.cps[max(i-1, 0)].n
		if i == 0 {
			gap = cp.n
		}
		if gap > every {
			waited++
		}
		if inColl && gap < 2*every {
			t.Errorf("checkpoint %d at %d (after %d events) is inside a collective: %+v", i, cp.time, gap, top)
		}
	}
	if waited == 0 {
		t.Errorf("no checkpoint waited: the trace does not try it")
	}
}

// TestServePast: the read past a window's end for its messages' other
// ends waits only for the ends that some later event pairs: a send that
// no receive ever matches (here the trace's first event) does not make
// every request read on to -maxread.
func TestServePast(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"format":"trace-events-json/1","ticks_per_second":1000000000,"locations":[{"id":0,"name":"a"},{"id":1,"name":"b"}],` +
		`"regions":[{"id":1,"name":"work","kind":"function","paradigm":"user"}],"events":[{"t":1,"loc":0,"kind":"send","peer":1,"tag":9,"bytes":8}`)
	for i := range 2000 {
		fmt.Fprintf(&b, `,{"t":%d,"loc":%d,"kind":"enter","region":1},{"t":%d,"loc":%d,"kind":"leave","region":1}`, 10+10*i, i%2, 15+10*i, i%2)
	}
	b.WriteString("]}\n")
	path := t.TempDir() + "/past.json"
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cache := range []int64{0, 1 << 20} {
		s, err := newServer([]string{path}, testConfig(3, cache), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(s)
		rep := getWindow(t, hs.URL, 10000, 10100, "")
		hs.Close()
		if rep.Past != 0 || rep.Stop == 0 || len(rep.Timeline.Detail.Slices) == 0 {
			t.Errorf("cache %d: window [10000, 10100): %d events read past the read's end at %d (%d slices), want none", cache, rep.Past, rep.Stop, len(rep.Timeline.Detail.Slices))
		}
	}
}

// memberMix is the mix of a full read of the trace of args of the
// locations keep accepts, one a row, at the columns of m over [from, to)
// (m's columns may reach past to), with the trace's regions (index
// RegionID - 1).
func memberMix(t *testing.T, args []string, m *mixData, from, to model.Time, keep func(model.LocID) bool) (*mixData, []export.TimelineRegion) {
	t.Helper()
	tr, err := openSelected(args, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	defs := tr.Defs()
	mix := newMixer(defs, m.Columns, 1, &model.Window{From: from, To: m.Start + model.Time(m.Columns)*m.ColWidth})
	if mix.width != m.ColWidth || m.Start != from {
		t.Fatalf("the full read's columns are %d ticks from %d, the served %d from %d", mix.width, from, m.ColWidth, m.Start)
	}
	mix.to = min(mix.to, to)
	for tr.Next() {
		if keep(tr.Event().Loc) {
			mix.add(tr.Event())
		}
	}
	if err := tr.Err(); err != nil {
		t.Fatal(err)
	}
	var regions []export.TimelineRegion
	for _, r := range defs.Regions() {
		regions = append(regions, export.TimelineRegion{Name: r.Name})
	}
	d := mix.finish()
	d.RowLocs = nil
	return d, regions
}

// TestServeMembers: where rows group locations (-rows 2), a window asked
// with &members=LIST answers the listed locations' own mix of the window
// (the lines of an expanded row), one location a row: that of a full
// read of their events over the window, read in full or from the
// members' summary (-budget 1), at the members' columns (the summary's:
// whole buckets); without the list, no members' mix.
func TestServeMembers(t *testing.T) {
	windows, summarized := 0, 0
	for _, in := range serveTraces {
		for _, budget := range []int64{0, 1} {
			t.Run(fmt.Sprintf("%s/budget=%d", in, budget), func(t *testing.T) {
				args := []string{in}
				cfg := testConfig(3, 0)
				cfg.width, cfg.rows, cfg.budget = 50, 2, budget
				s, err := newServer(args, cfg, io.Discard)
				if err != nil {
					t.Fatal(err)
				}
				n := s.defs.NumLocations()
				if n <= 2 {
					return // no row groups locations
				}
				hs := httptest.NewServer(s)
				defer hs.Close()
				// The second row's locations: those of an expanded row.
				rs := rowSizeOf(s.defs, cfg.rows)
				lo, hi := rs+1, min(2*rs, n)
				keep := func(l model.LocID) bool { return int(l) >= lo && int(l) <= hi }
				first, last := s.ix.first, s.ix.last
				span := last - first + 1
				if s.msum != nil {
					for _, bad := range []string{"0", fmt.Sprintf("1-%d", n+1), "a"} {
						res, err := http.Get(fmt.Sprintf("%s/window?from=%d&to=%d&members=%s", hs.URL, first, last+1, bad))
						if err != nil {
							t.Fatal(err)
						}
						res.Body.Close()
						if res.StatusCode != http.StatusBadRequest {
							t.Errorf("members=%s: %d, want 400", bad, res.StatusCode)
						}
					}
				}
				for _, w := range [][2]model.Time{{first, last + 1}, {first + span/3, first + span/2}, {first + span/2, first + span/2 + max(span/20, 1)}} {
					if rep := getWindow(t, hs.URL, w[0], w[1], ""); rep.Members != nil {
						t.Fatalf("window %v without members: members %+v", w, rep.Members)
					}
					u := fmt.Sprintf("%s/window?from=%d&to=%d&members=%d-%d", hs.URL, w[0], w[1], lo, hi)
					res, err := http.Get(u)
					if err != nil {
						t.Fatal(err)
					}
					var rep windowReply
					err = json.NewDecoder(res.Body).Decode(&rep)
					res.Body.Close()
					if err != nil {
						t.Fatal(err)
					}
					if s.msum == nil {
						// The page has no members' data (its locations
						// were defined as the trace went): nor has the
						// answer.
						if rep.Members != nil {
							t.Fatalf("window %v: members %+v; the page has none", w, rep.Members)
						}
						continue
					}
					if rep.Summary != nil && !s.msum.usable() {
						t.Fatalf("window %v: answered from the summary without the members' summary", w)
					}
					if rep.Members == nil || rep.Members.Mix == nil {
						t.Fatalf("window %v: no members' mix", w)
					}
					m := rep.Members.Mix
					from, to := rep.From, rep.To
					if rep.Summary != nil {
						summarized++
						b := s.msum.sum.width
						if m.ColWidth%b != 0 || (m.Start-s.msum.sum.start)%b != 0 || m.Start > w[0] || m.Start+model.Time(m.Columns)*m.ColWidth < min(w[1], last+1) {
							t.Fatalf("window %v: members' columns from %d, %d of %d ticks, not whole buckets of %d covering it", w, m.Start, m.Columns, m.ColWidth, b)
						}
						from, to = m.Start, last+1
					} else if m.Columns != memberColumns(cfg.width, cfg.rows, hi-lo+1) {
						t.Errorf("window %v: %d members' columns, want %d", w, m.Columns, memberColumns(cfg.width, cfg.rows, hi-lo+1))
					}
					want, regions := memberMix(t, args, m, from, to, keep)
					if diff := gocmp.Diff(namedMix(want, regions), namedMix(m, rep.Timeline.Regions)); diff != "" {
						t.Errorf("window %v: members' mix (-full read +served):\n%s", w, diff)
					}
					if len(want.Cells) == 0 {
						continue // none of their time is in a region (PICL's)
					}
					if len(rep.RegionGroups) != len(rep.Timeline.Regions) {
						t.Errorf("window %v: %d region groups for %d regions", w, len(rep.RegionGroups), len(rep.Timeline.Regions))
					}
					windows++
				}
			})
		}
	}
	if windows == 0 || summarized == 0 {
		t.Errorf("%d windows with members, %d from the summary; want some of both", windows, summarized)
	}
}

// TestServeMembersRead: for OTF and OTF2 (whose reads of some locations
// read only their streams), a window answered from the summary whose
// members' events the members' summary puts within -budget has the
// members' mix of a read of their events, at the page's columns over
// the window (members_read), equal to a full read's; the members'
// summary, at whole buckets, answers only past the budget
// (TestServeMembers, -budget 1).
func TestServeMembersRead(t *testing.T) {
	checked := 0
	for _, in := range serveTraces {
		if !strings.HasSuffix(in, ".otf") && !strings.HasSuffix(in, ".otf2") {
			continue
		}
		t.Run(in, func(t *testing.T) {
			args := []string{in}
			cfg := testConfig(3, 0)
			cfg.width, cfg.rows, cfg.budget = 50, 2, 1
			s, err := newServer(args, cfg, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			n := s.defs.NumLocations()
			if n <= 2 || !s.msum.usable() {
				return // no row groups locations
			}
			// Served in this goroutine, as the budget changes between requests.
			get := func(u string) *windowReply {
				req := httptest.NewRequest(http.MethodGet, u, nil)
				req.Host = "127.0.0.1"
				rec := httptest.NewRecorder()
				s.ServeHTTP(rec, req)
				rep := &windowReply{}
				if err := json.NewDecoder(rec.Body).Decode(rep); err != nil {
					t.Fatalf("%s: %d: %v", u, rec.Code, err)
				}
				return rep
			}
			first, last := s.ix.first, s.ix.last
			span := last - first + 1
			for l := 1; l <= n; l++ {
				keep := func(x model.LocID) bool { return int(x) == l }
				for _, w := range [][2]model.Time{{first, last + 1}, {first + span/3, first + span/2}} {
					start, _ := s.ix.span(w[0], w[1])
					est := s.msum.estimate(max(start.time, first), w[1], keep)
					if est == 0 || s.sum.estimate(w[0], w[1]) <= est {
						continue // the members' events are the window's: no budget between
					}
					s.cfg.budget = est
					u := fmt.Sprintf("/window?from=%d&to=%d&members=%d", w[0], w[1], l)
					rep := get(u)
					if rep.Summary == nil || !rep.MembersRead || rep.Members == nil || rep.Members.Mix == nil {
						t.Fatalf("location %d, window %v, budget %d: summary %v, members read %v, members %v; want the summary with the members read", l, w, est, rep.Summary != nil, rep.MembersRead, rep.Members)
					}
					m := rep.Members.Mix
					if want := memberColumns(cfg.width, cfg.rows, 1); m.Columns != want || m.Start != rep.From {
						t.Fatalf("location %d, window %v: %d members' columns from %d, want %d from %d (the page's)", l, w, m.Columns, m.Start, want, rep.From)
					}
					want, regions := memberMix(t, args, m, rep.From, rep.To, keep)
					if diff := gocmp.Diff(namedMix(want, regions), namedMix(m, rep.Timeline.Regions)); diff != "" {
						t.Errorf("location %d, window %v: members' mix (-full read +served):\n%s", l, w, diff)
					}
					if len(want.Cells) > 0 {
						checked++
					}
					// One event less of budget: the members' summary.
					s.cfg.budget = est - 1
					rep = get(u)
					if rep.Summary == nil || rep.MembersRead || rep.Members == nil {
						t.Fatalf("location %d, window %v, budget %d: summary %v, members read %v; want the members' summary", l, w, est-1, rep.Summary != nil, rep.MembersRead)
					}
				}
			}
		})
	}
	if checked == 0 {
		t.Error("no members' mix read within the budget")
	}
}
