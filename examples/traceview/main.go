// Traceview writes an HTML report of a trace of any format: one
// self-contained page (its script and style inline, nothing fetched from
// the network) with
//
//   - a timeline: one row per location, regions as coloured bars (a legend
//     names the colours), messages as lines from send to receive,
//     collectives outlined; drag to pan, the wheel or the buttons to zoom,
//     hover a bar or line for its name, times and bytes;
//   - on the timeline of an MPI run, the wait-state analysis of package
//     waitstate: the waiting part of each MPI call in red (the call's
//     first part, or its last for the completion patterns such as
//     barrier_completion), and the critical path as an orange line along
//     the rows it runs on, dashed where it passes to another location;
//     under the timeline the path's length and regions, and the most
//     severe wait instances (-top of them), each with a "show" link that
//     zooms the timeline to the waiting and the delaying call;
//   - counter tracks (PAPI counters, metric plugins' values): one track
//     per location and counter, under the location's row, a step line of
//     the samples scaled to the track's range, the legend naming each
//     counter with its unit;
//   - the flat profile as bars, the communication matrix as a heat map,
//     the load imbalance per region and location as a heat map, the
//     message size histogram;
//   - the tables of the text report (flat profile, communication,
//     diagnostics) and the whole text report of tracestat.
//
// Usage:
//
//	traceview [-o report.html] [-force] [-from t] [-to t] [-width n] [-rows n] [-top n] [-detail n] [-waits=false] [-waitmax n] [FILE]
//	traceview -serve [host]:port [-public] [-maxread n] [-cache n] [-width n] [-rows n] [-top n] [-detail n] [FILE]
//
// Without FILE it reports on an embedded sample, the example program of
// Figure 12 of the scalable-monitoring paper. FILE is opened with
// hpctrace.Open, which detects its format.
//
// The trace is read once, with memory bounded whatever its length: the
// statistics are package stats', and the timeline is aggregated to -width
// columns (export.Timeline: per location and column the dominant region
// and the messages sent, message lines bundled by column). Up to -detail
// slices and messages (default 20000) the page also holds every slice and
// message, drawn exactly when zoomed in; a bigger trace keeps only the
// aggregate, and -from and -to together (ticks, or durations such as 1.5s or
// 200ms from the clock's zero) choose a window of the trace to see in full
// detail.
//
// A trace of more locations than -rows (default 200) has them share the
// timeline's rows: consecutive locations, as many to a row as needed,
// labelled "ranks a–b" by their native ids, each cell the region that
// occupied most of the column over the row's locations. The charts and
// tables then count rows too (the flat profile and the imbalance per row,
// for the regions of most exclusive time; messages between rows), so the
// page stays small however many locations the trace has. The statistics
// are those of the text report only (stats.Accumulator.FinalTextReport),
// whose memory and time do not hold every location's drill-down.
//
// A window is read as an model.Window: only the events with
// -from ≤ time < -to are read, and the whole page (timeline, statistics and
// tables) covers that window alone. An OTF trace is not read outside the
// window at all (each stream is bisected to -from and read up to -to), so
// the detail of a window of a big trace costs about the window's share of
// the trace; the other formats are read from their start up to the window
// (DUMPI, PICL and JSON to their end) and filtered, as model.Window
// documents. Events are kept by their own time, so a region entered before
// -from has no slice (the window holds its Leave, not its Enter), and a
// message with one end outside the window has no line. A window that holds
// no event of the trace (outside it, or in a gap) is an error, and no page
// is written.
//
// The wait-state analysis is the exception to bounded memory: it keeps a
// log of every MPI call and message end (package waitstate: about 100 to
// 130 bytes per MPI call, plus every wait instance, and Finalize's working
// memory), so its memory grows with the MPI calls of the trace. Past
// -waitmax MPI events (point-to-point and collective events and Enters of
// MPI regions; default one million, about 250 MB of peak memory at most) the
// analysis is dropped, which the page and stderr say; -from and -to choose
// a window to analyse instead. -waits=false leaves it out from the start.
// Without it the page has no waits, critical path or list of instances;
// a trace without MPI calls has none either. The page holds each wait while it
// holds every slice, otherwise the time waited per location and column;
// the critical path's segments exactly up to -width of them, otherwise
// per column (the location on the path for most of it). Counter samples
// are kept exactly up to -detail of them in all; past that each track
// keeps, per column of its span (at most -width), the first, lowest,
// highest and last value. NaN and infinite samples of a floating-point
// counter are not drawn and are counted in the track's tooltip.
//
// The page opens zoomed into [T0, T1] (ticks) when its address ends in
// #view=T0,T1, and zooms there when the fragment changes to one (the
// "show" links of the instances are such fragments).
//
// # Served
//
// With -serve (an address host:port; an empty host is 127.0.0.1)
// traceview reads the trace once and then serves the page instead of
// writing it: the page of the whole trace, as above, which asks the
// server for the data of the visible window whenever it is zoomed or
// panned (GET /window?from=T0&to=T1, ticks, with &locs=1-4,7 for some
// locations only: the page's data for that window, in the JSON shape the
// static page embeds, drawn by the same script) and draws every slice and
// message of it. A window is read with a margin of a quarter of its width
// on each side, so that a small pan needs no request.
//
// The read of a window starts at a checkpoint of an index that the first
// read builds: every so many events, the regions open on every location
// and the message ends waiting for their partner, so that a slice entered
// before the window is drawn from its own start and a message sent before
// it is paired as in a whole read. The read ends at the first checkpoint
// after the window: a slice still open there is drawn up to it. A message
// is drawn when the read holds both its ends (every message with both
// ends in the window, and those with one end in it and the other within
// the read's margin). The index keeps at most 4096 checkpoints (fewer
// past about two million open regions and waiting ends in all, stored
// over all checkpoints): when the trace is longer, the interval between
// checkpoints grows, not the index.
//
// How a window is read depends on the format. OTF and OTF2 seek: each
// stream or location is bisected to the checkpoint's time (see
// hpctrace.Options.Window) and read up to the window's end, so a request
// costs about the window's own events whatever the trace's length, and
// the server's memory, once the first read is done, is the index's and
// that of the requests in flight (at most two are read at once), flat in
// the trace's length. The checkpoints avoid the moments when a location is
// inside a collective's region, where an OTF2 seek would read the
// location from its start. PICL, DUMPI, event JSON and Chrome JSON
// cannot seek: the first read keeps their events in memory (80 bytes an
// event) up to -cache events (default 5 million), and a request reads
// them from there; a larger trace is read again from its start at every
// request, which costs the trace's length. A stream whose times go back
// (a PICL file is in file order) has no checkpoint: every request reads
// it from its start. A window of more than -maxread events (default 4
// million, counted between checkpoints) is not read: the server answers
// with its part of an aggregate of the whole trace that the first read
// made at 16 times -width columns (fewer where the rows times the
// columns would pass a million; the dominant region per column, as the
// page's), and the page says to zoom in. A window whose slices and
// messages exceed -detail is read and drawn aggregated to -width
// columns, as the static page is.
//
// The first read builds the page as traceview without -serve does, so it
// takes that read's time and memory (the wait-state analysis included,
// up to -waitmax). An address other than loopback is refused unless
// -public: the server hands the trace to anyone who can reach it. A
// server on loopback answers only requests addressed to a loopback name
// (localhost, 127.0.0.1, [::1]), so that a web page cannot reach it
// through a name of its own that resolves to 127.0.0.1. The server runs
// until interrupted.
//
// The page is written as package examples/internal/outfile writes every output:
// under a temporary name, renamed when complete, so that a failed run
// leaves no page that looks whole; an existing file is replaced only with
// -force, and a file of the trace read (any file of an OTF or OTF2 trace,
// under any name) is never the output. Progress is shown on stderr when it is a terminal.
package main

import (
	"bytes"
	"cmp"
	"embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hpctrace/hpctrace"
	"github.com/hpctrace/hpctrace/examples/internal/outfile"
	"github.com/hpctrace/hpctrace/examples/internal/progress"
	"github.com/hpctrace/hpctrace/export"
	"github.com/hpctrace/hpctrace/internal/termsafe"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
	"github.com/hpctrace/hpctrace/waitstate"
)

//go:embed fig12.json
var sample embed.FS

//go:embed report.js
var script string

//go:embed report.css
var style string

type config struct {
	out      string
	from, to string
	width    int
	top      int
	detail   int
	rows     int
	force    bool
	waits    bool
	waitMax  int64
	serveConfig
}

func main() {
	outfile.CleanUpOnSignal()
	if err := run(os.Args[1:], os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "traceview:", termsafe.String(err.Error()))
		}
		os.Exit(1)
	}
}

func run(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("traceview", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	fs.StringVar(&cfg.out, "o", "report.html", "the HTML file to write")
	fs.BoolVar(&cfg.force, "force", false, "replace an existing output file")
	fs.StringVar(&cfg.from, "from", "", "start of the detailed window (ticks, or a duration such as 1.5s)")
	fs.StringVar(&cfg.to, "to", "", "end of the detailed window (ticks, or a duration)")
	fs.IntVar(&cfg.width, "width", 1200, "columns of the aggregated timeline")
	fs.IntVar(&cfg.top, "top", 15, "rows per table and chart")
	fs.IntVar(&cfg.detail, "detail", 20000, "slices and messages kept in full detail")
	fs.IntVar(&cfg.rows, "rows", 200, "timeline rows: more locations share rows (ranks a–b)")
	fs.BoolVar(&cfg.waits, "waits", true, "analyse wait states and the critical path (memory grows with the MPI calls)")
	fs.Int64Var(&cfg.waitMax, "waitmax", 1000000, "MPI events past which the wait-state analysis is dropped (0: no limit)")
	serveFlags(fs, &cfg.serveConfig)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: traceview [-o report.html] [-force] [-from t] [-to t] [-width n] [-rows n] [-top n] [-detail n] [-waits=false] [-waitmax n] [FILE]")
		fmt.Fprintln(stderr, serveUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		fs.Usage()
		return errors.New("at most one FILE")
	}
	if cfg.addr != "" {
		if cfg.from != "" || cfg.to != "" {
			return errors.New("-serve serves every window: no -from or -to")
		}
		return serve(fs.Args(), &cfg, stderr)
	}
	var win *model.Window
	if cfg.from != "" || cfg.to != "" {
		if cfg.from == "" || cfg.to == "" {
			return errors.New("-from and -to go together")
		}
		var err error
		if win, err = window(fs.Args(), &cfg); err != nil {
			return err
		}
	}
	name := "fig12.json (embedded sample)"
	outOpts := &outfile.Options{Force: cfg.force}
	if fs.NArg() == 1 {
		name = fs.Arg(0)
		outOpts.Inputs = outfile.TraceFiles(name)
	}
	// Refuse the output before reading the trace, not after.
	if err := outfile.Check(cfg.out, outOpts); err != nil {
		return err
	}
	t, err := openTrace(fs.Args(), win)
	if err != nil {
		return err
	}
	defer t.Close()
	page, err := build(t, name, &cfg, win, stderr)
	if err != nil {
		return err
	}
	return outfile.Write(cfg.out, outOpts, func(w io.Writer) error {
		_, err := w.Write(page)
		return err
	})
}

// openTrace opens the trace of args (the embedded sample without one),
// in the window win if it is not nil.
func openTrace(args []string, win *model.Window) (*hpctrace.Trace, error) {
	if len(args) == 1 {
		return hpctrace.Open(args[0], &hpctrace.Options{Window: win})
	}
	return hpctrace.OpenFS(sample, "fig12.json", &hpctrace.Options{Window: win})
}

// window returns the window of -from and -to. Ticks need no trace;
// durations are converted with the trace's clock, which opening the trace
// tells from its definitions.
func window(args []string, cfg *config) (*model.Window, error) {
	var tb model.TimeBase
	_, errFrom := strconv.ParseInt(cfg.from, 10, 64)
	_, errTo := strconv.ParseInt(cfg.to, 10, 64)
	if errFrom != nil || errTo != nil {
		t, err := openTrace(args, nil)
		if err != nil {
			return nil, err
		}
		tb = t.TimeBase()
		t.Close()
	}
	w := &model.Window{}
	var err error
	if w.From, err = parseTime(cfg.from, tb); err != nil {
		return nil, fmt.Errorf("-from: %w", err)
	}
	if w.To, err = parseTime(cfg.to, tb); err != nil {
		return nil, fmt.Errorf("-to: %w", err)
	}
	if w.To <= w.From {
		return nil, errors.New("-to must be after -from")
	}
	return w, nil
}

// parseTime reads ticks or a duration on the trace's clock.
func parseTime(s string, tb model.TimeBase) (model.Time, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return model.Time(n), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q: want ticks or a duration such as 1.5s", s)
	}
	return tb.FromDuration(d), nil
}

// pageData is what the page's script draws.
type pageData struct {
	Name        string               `json:"name"`
	Events      int64                `json:"events"`
	Locations   int                  `json:"locations"` // of the trace; the timeline's rows may group them
	Regions     int                  `json:"regions"`   // of the trace; the timeline names those it draws
	Clock       string               `json:"clock"`
	Window      bool                 `json:"window"`
	Top         int                  `json:"top"`
	Timeline    *export.TimelineData `json:"timeline"`
	Profile     []prof               `json:"profile"`
	Matrix      []cell               `json:"matrix"`
	Hist        []stats.SizeBin      `json:"hist"`
	Com         []com                `json:"com"`
	Diagnostics stats.Diagnostics    `json:"diagnostics"`
	Text        string               `json:"text"`
	Wait        *waitData            `json:"wait,omitempty"`         // nil without MPI calls
	WaitDropped int64                `json:"wait_dropped,omitempty"` // -waitmax, when the analysis was dropped past it
	Counters    []*track             `json:"counters,omitempty"`     // one per (location, counter)
}

// prof is one entry of the flat profile, by model location id.
type prof struct {
	Loc    model.LocID `json:"loc"`
	Region string      `json:"region"`
	Visits int64       `json:"visits"`
	Incl   int64       `json:"incl"`
	Excl   int64       `json:"excl"`
}

// com is one communication record (stats.Com), by model location ids.
type com struct {
	Loc       model.LocID `json:"loc"`
	Op        string      `json:"op"`
	Dir       string      `json:"dir"`
	Peer      model.LocID `json:"peer"`
	Count     int64       `json:"count"`
	Bytes     int64       `json:"bytes"`
	SyncDelay int64       `json:"sync_delay"`
	TransTime int64       `json:"trans_time"`
}

// cell is one sender → receiver entry of the communication matrix, by
// model location id.
type cell struct {
	From  model.LocID `json:"from"`
	To    model.LocID `json:"to"`
	Count int64       `json:"count"`
	Bytes int64       `json:"bytes"`
}

// build reads src once and returns the page; win is the window src was
// opened with, nil for the whole trace.
func build(src model.Source, name string, cfg *config, win *model.Window, stderr io.Writer) ([]byte, error) {
	defs := src.Defs()
	opts := &export.TimelineOptions{Columns: cfg.width, MaxDetail: cfg.detail, MaxRows: cfg.rows}
	if cfg.detail <= 0 {
		opts.MaxDetail = -1
	}
	window := win != nil
	if window {
		opts.From, opts.To = win.From, win.To
	}
	acc := stats.New(defs, nil)
	tl := export.NewTimeline(defs, opts)
	var ws *waitstate.Analyzer
	if cfg.waits {
		ws = waitstate.New(defs, &waitstate.Options{TopN: max(cfg.top, 1), Instances: true})
	}
	ctr := newCounterTracks(defs, cfg.width, cfg.detail, opts.From, window)
	meter := progress.New(stderr, name, "events")
	var n, mpiEvents int64
	dropped := false
	mpi := mpiRegions{defs: defs}
	for src.Next() {
		ev := src.Event()
		acc.Add(ev)
		tl.Add(ev)
		if ws != nil && mpi.is(ev) {
			if mpiEvents++; cfg.waitMax > 0 && mpiEvents > cfg.waitMax {
				ws, dropped = nil, true // its memory goes with it
			}
		}
		if ws != nil {
			ws.Add(ev)
		}
		ctr.add(ev)
		n++
		if n&0xffff == 0 {
			meter.Update(n)
		}
	}
	meter.Done(n)
	if err := src.Err(); err != nil {
		return nil, err
	}
	if window && n == 0 {
		return nil, fmt.Errorf("-from %d -to %d (ticks): the window holds no event of %s; no page written", win.From, win.To, name)
	}
	rep := acc.FinalTextReport("")
	var text bytes.Buffer
	if err := rep.WriteText(&text, &stats.TextOptions{Top: cfg.top, TopName: "-top"}); err != nil {
		return nil, err
	}
	d := pageData{Name: name, Events: n, Locations: defs.NumLocations(), Regions: defs.NumRegions(), Clock: defs.TimeBase.String(), Window: window, Top: cfg.top,
		Timeline: tl.Finish(), Hist: rep.Final.SizeHistogram, Diagnostics: rep.Final.Diagnostics, Text: text.String()}
	if dropped {
		d.WaitDropped = cfg.waitMax
		fmt.Fprintf(stderr, "traceview: the wait-state analysis was left out: more than %d MPI events (-waitmax)\n", cfg.waitMax)
	}
	if ws != nil {
		wrep, err := ws.Finalize()
		if err != nil {
			return nil, err
		}
		d.Wait = waitsOf(wrep, d.Timeline, defs, cfg.top)
	}
	d.Counters = ctr.finish(rep.Final.Counters)
	for _, f := range rep.Final.Functions {
		d.Profile = append(d.Profile, prof{Loc: f.LocID, Region: f.Region, Visits: f.Visits, Incl: f.Incl, Excl: f.Excl})
	}
	for _, c := range rep.Final.Com {
		d.Com = append(d.Com, com{Loc: c.LocID, Op: c.Op, Dir: c.Dir, Peer: c.PeerID, Count: c.Count, Bytes: c.Bytes, SyncDelay: c.SyncDelay, TransTime: c.TransTime})
	}
	for _, m := range rep.Final.MatrixSend {
		d.Matrix = append(d.Matrix, cell{From: m.SenderID, To: m.ReceiverID, Count: m.Count, Bytes: m.Bytes})
	}
	if d.Timeline.RowSize > 1 {
		groupRows(&d, d.Timeline.RowSize)
		if d.Wait != nil {
			d.Wait.groupRows(d.Timeline.RowSize)
		}
		renumberRegions(d.Timeline)
	}
	return page(&d)
}

// mpiRegions tells the events that grow the wait-state analysis' memory:
// point-to-point and collective events, and the Enters of MPI regions
// (model.Region.MPI), remembered per region.
type mpiRegions struct {
	defs *model.Defs
	mpi  []uint8 // by RegionID: 0 not looked up, 1 MPI, 2 not
}

func (m *mpiRegions) is(ev *model.Event) bool {
	switch ev.Kind {
	case model.KindSend, model.KindRecv, model.KindRecvPost, model.KindSendDone, model.KindCollBegin:
		return true
	case model.KindEnter:
	default:
		return false
	}
	id := int(ev.Region)
	for id >= len(m.mpi) {
		m.mpi = append(m.mpi, 0)
	}
	if m.mpi[id] == 0 {
		m.mpi[id] = 2
		if r, ok := m.defs.Region(ev.Region); ok && r.MPI() {
			m.mpi[id] = 1
		}
	}
	return m.mpi[id] == 1
}

// page renders the data into the HTML page. The JSON encoder escapes <,
// > and &, so no string of the trace can end the script element.
func page(d *pageData) ([]byte, error) {
	js, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	title := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(d.Name)
	fmt.Fprintf(&b, `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>%s: hpctrace report</title>
<style>%s</style>
</head><body>
<div id="errors"></div>
<main id="report"></main>
<script type="application/json" id="data">%s</script>
<script>%s</script>
</body></html>
`, title, style, js, script)
	return b.Bytes(), nil
}

// groupRows turns the locations of d's profile, communication and matrix
// into the timeline's rows of size locations each (location l is row
// 1 + (l-1)/size), summing what falls on one row; of the profile it keeps
// the regions of most exclusive time (d.Top of them, which the charts
// show) and the d.Top entries of most exclusive time (which the table
// shows), so that the page grows with the rows, not the locations.
func groupRows(d *pageData, size int) {
	row := func(l model.LocID) model.LocID {
		if l == 0 {
			return 0
		}
		return 1 + (l-1)/model.LocID(size)
	}
	type pk struct {
		loc    model.LocID
		region string
	}
	profs := map[pk]*prof{}
	total := map[string]int64{}
	for _, f := range d.Profile {
		k := pk{row(f.Loc), f.Region}
		p := profs[k]
		if p == nil {
			p = &prof{Loc: k.loc, Region: f.Region}
			profs[k] = p
		}
		p.Visits += f.Visits
		p.Incl += f.Incl
		p.Excl += f.Excl
		total[f.Region] += f.Excl
	}
	byExcl := func(x, y int64, a, b string) int { return cmp.Or(cmp.Compare(y, x), strings.Compare(a, b)) }
	regions := slices.Collect(maps.Keys(total))
	slices.SortFunc(regions, func(a, b string) int { return byExcl(total[a], total[b], a, b) })
	keep := map[string]bool{}
	for _, r := range regions[:min(d.Top, len(regions))] {
		keep[r] = true
	}
	all := slices.Collect(maps.Values(profs))
	slices.SortFunc(all, func(a, b *prof) int {
		return cmp.Or(byExcl(a.Excl, b.Excl, a.Region, b.Region), cmp.Compare(a.Loc, b.Loc))
	})
	d.Profile = d.Profile[:0]
	for i, p := range all {
		if i < d.Top || keep[p.Region] {
			d.Profile = append(d.Profile, *p)
		}
	}
	slices.SortFunc(d.Profile, func(a, b prof) int { return cmp.Or(cmp.Compare(a.Loc, b.Loc), strings.Compare(a.Region, b.Region)) })

	type ck struct {
		loc, peer model.LocID
		op, dir   string
	}
	coms := map[ck]*com{}
	var corder []ck
	for _, c := range d.Com {
		k := ck{row(c.Loc), row(c.Peer), c.Op, c.Dir}
		x := coms[k]
		if x == nil {
			x = &com{Loc: k.loc, Op: c.Op, Dir: c.Dir, Peer: k.peer}
			coms[k] = x
			corder = append(corder, k)
		}
		x.Count += c.Count
		x.Bytes += c.Bytes
		x.SyncDelay += c.SyncDelay
		x.TransTime += c.TransTime
	}
	d.Com = d.Com[:0]
	for _, k := range corder {
		d.Com = append(d.Com, *coms[k])
	}

	type mk struct{ from, to model.LocID }
	cells := map[mk]*cell{}
	var morder []mk
	for _, m := range d.Matrix {
		k := mk{row(m.From), row(m.To)}
		x := cells[k]
		if x == nil {
			x = &cell{From: k.from, To: k.to}
			cells[k] = x
			morder = append(morder, k)
		}
		x.Count += m.Count
		x.Bytes += m.Bytes
	}
	d.Matrix = d.Matrix[:0]
	for _, k := range morder {
		d.Matrix = append(d.Matrix, *cells[k])
	}
}

// renumberRegions makes the regions of tl those its cells and detail
// draw, numbered from 1 in the order of their ids, so that the page names
// the regions it draws rather than every region of the trace (a region
// per location in a trace of many).
func renumberRegions(tl *export.TimelineData) {
	ids := map[model.RegionID]model.RegionID{}
	var used []model.RegionID
	note := func(r model.RegionID) {
		if _, ok := ids[r]; !ok && r > 0 && int(r) <= len(tl.Regions) {
			ids[r] = 0
			used = append(used, r)
		}
	}
	for _, c := range tl.Cells {
		note(c.Region)
	}
	if tl.Detail != nil {
		for _, s := range tl.Detail.Slices {
			note(s.Region)
		}
	}
	slices.Sort(used)
	regions := make([]export.TimelineRegion, 0, len(used))
	for i, r := range used {
		ids[r] = model.RegionID(i + 1)
		regions = append(regions, tl.Regions[r-1])
	}
	tl.Regions = regions
	for i := range tl.Cells {
		tl.Cells[i].Region = ids[tl.Cells[i].Region]
	}
	if tl.Detail != nil {
		for i := range tl.Detail.Slices {
			tl.Detail.Slices[i].Region = ids[tl.Detail.Slices[i].Region]
		}
	}
}
