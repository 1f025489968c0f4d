// Traceview writes an HTML report of a trace of any format: one
// self-contained page (its script and style inline, nothing fetched from
// the network) with
//
//   - a timeline: one row per location, regions as coloured bars, messages
//     as lines from send to receive, collectives outlined; drag to pan, the
//     wheel or the buttons to zoom, hover a bar or line for its name, times
//     and bytes. Regions are coloured by group (MPI, OpenMP, I/O,
//     application, or the trace's own function groups of OTF and OTF2),
//     each region a shade of its group's hue, and the legend names every
//     region drawn under its group. Where the page does not draw every
//     slice (the view holds more than it can show, or the page holds only
//     the aggregate) each row's screen columns show the mix of regions, the
//     share of the column's time each region held stacked, never the one
//     region of most time, so short MPI calls stay visible at full view.
//     The time axis is the trace's clock (a window's starts at the window's
//     start), with ticks at round times (1, 2 or 5 times a power of ten
//     seconds), its labels and the tooltips' times exact to the tick
//     whatever the ticks' size (past 2^52 ticks the page's times are
//     offsets from an origin it holds as a decimal string). Where
//     locations share rows (-rows), a click on a row's label expands it
//     into a line per location, and collapses it again;
//   - under the timeline, the summary timeline: for each column of the
//     visible window, the number of locations in each function group (or
//     region), stacked, exact from every slice where the timeline draws
//     them, else from the mix;
//   - beside the timeline, for the visible window and recomputed as it
//     changes: the time profile (time per region per interval, stacked),
//     the function summary (exclusive time per region), message
//     statistics, and the process timeline of one location (its slices by
//     call-stack depth, where the page holds every slice);
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
//   - the flat profile as bars, the communication matrix as a heat map
//     (bytes, count, or mean time in flight where the page holds every
//     message), in panels that scroll rather than overlap,
//     the load imbalance per region and location as a heat map, the
//     message size histogram;
//   - the tables of the text report (flat profile, communication,
//     diagnostics) and the whole text report of tracestat.
//
// Usage:
//
//	traceview [-o report.html] [-force] [-from t] [-to t] [-width n] [-rows n] [-top n] [-detail n] [-waits=false] [-waitmax n] [FILE]
//	traceview -serve [host]:port [-public] [-maxread n] [-budget n] [-cache n] [-index file] [-width n] [-rows n] [-top n] [-detail n] [FILE]
//
// Without FILE it reports on an embedded sample, the example program of
// Figure 12 of the scalable-monitoring paper. FILE is opened with
// hpctrace.Open, which detects its format.
//
// The trace is read once, with memory bounded whatever its length: the
// statistics are package stats', and the timeline is aggregated to -width
// columns (export.Timeline: per location and column the dominant region
// and the messages sent, message lines bundled by column; and the mix,
// mix.go: per row and column the share of the time of each region, six
// regions a cell exactly and the rest of each function group as that
// group's own "other" (drawn "other MPI regions", "other application
// regions", … in a pale shade of the group's hue), so that a column's
// share of each group is exact at every zoom; runs of columns of one mix
// merged). Up to -detail slices and messages (default 20000)
// the page also holds every slice and message, drawn one by one when the
// view holds few enough of them to see (the mix otherwise); a bigger trace
// keeps only the aggregate, and -from and -to choose a window of the trace
// to see in full detail: each takes ticks of the trace's clock (an integer)
// or a duration from the trace's start, such as 1.5s or 200ms, a negative
// one counting back from its end (-from -10ms is the last 10 ms); left out,
// -from is the trace's start and -to its end. The start and the end are
// the trace's bounds (hpctrace.Trace.Bounds): its first and last events'
// times, or those the format records (OTF2's clock properties). Durations
// alone are converted as the trace is opened (hpctrace.Options.Interval);
// ticks with a duration or a left-out end open it once more, first, to
// learn them.
//
// A trace of more locations than -rows (default 200) has them share the
// timeline's rows: consecutive locations, as many to a row as needed,
// labelled "ranks a–b" by their native ids, each cell the mix of the
// regions over the row's locations. Up to 100,000 locations the page also
// holds each location's name and its own mix, at columns of its own (the
// rows' columns times the rows shared among the locations, 8 at least),
// so that a row expands into its locations; the slices and messages the
// page holds are on their locations. The charts and
// tables then count rows too (the flat profile and the imbalance per row,
// for the regions of most exclusive time; messages between rows), so the
// page stays small however many locations the trace has. The statistics
// are those of the text report only (stats.Accumulator.FinalTextReport),
// whose memory and time do not hold every location's drill-down.
//
// A window is read as a model.Window: only the events with
// -from ≤ time < -to are read, and the whole page (timeline, statistics and
// tables) covers that window alone. An OTF trace is not read outside the
// window at all (each stream is bisected to -from and read up to -to), so
// the detail of a window of a big trace costs about the window's share of
// the trace; the other formats are read from their start up to the window
// (DUMPI, PICL and JSON to their end) and filtered, as model.Window
// documents. Events are kept by their own time, so a region entered before
// -from is known by its Leave in the window: it is drawn from the window's
// start, marked as cut there (and a region still open at -to is drawn to
// the window's end, marked so), at its depth under the other regions
// entered before the window and left in it. A region open across the whole
// window has no event in it and is not drawn. A message with one end
// outside the window has no line. A window that holds
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
// static page embeds, drawn by the same script; with &origin=O, the
// page's origin, every time of the answer counts from O, so that a trace
// whose ticks pass 2^53 is drawn exactly). A window is read with a
// margin of a quarter of its width on each side, so that a small pan
// needs no request. The full view needs none: the page's own data is made
// from every event of the trace.
//
// A window of up to -budget events (default a million) is answered from
// every event of it: every slice and message of it while they are no
// more than -detail, and always its aggregate and its mix (the share of
// each region in each row and -width column), so that a window too dense
// for slices is drawn as its own mix, not the whole trace's. Such a
// window's cost follows the events it holds.
//
// A wider window is answered from a summary that the first read builds,
// without reading the trace: per timeline row and per time bucket (up to
// 65,536 buckets over the trace's span, fewer past 26 MiB of cells, about
// 400,000 rows times buckets; their width doubles as the read goes on, as
// the aggregate's columns do) the ticks of each region as the innermost
// open one (a bucket's storage is fixed: six regions exactly, the rest of
// each of the first four function groups as that group's "other", and
// the rest of the groups past them as "other regions"), the events
// (from which a window's cost is estimated), and per pair of rows and of
// buckets (coarser past 65,536 such bundles) the messages. The answer's
// columns are whole buckets, as many to a column as keep them within
// -width; its mix is the buckets' summed (that of a read of every event
// at those columns, but for the regions beyond six a bucket, which are in
// their group's "other": each of the first four groups' share of a
// column is exact), its message
// lines the bundles with an end in it, and of its slices only those of a
// column or longer (the start-up read keeps up to 65,536 slices of a
// bucket or longer, the longest: past that it keeps longer ones only;
// they are indexed by length, in levels that double, and by start, so an
// answer looks only at those at least half its column long that start in
// the window or within twice their length before it; an answer holds up
// to 20,000, the longest; a collective's names its communicator, as a
// read's does), which the page outlines over the mix. The answer says so (its "summary": the bucket's width,
// the buckets a column, the events of the window's buckets, the budget,
// the long slices and their least length) and the page's status and
// toolbar say so. The summary's size follows the rows, not the trace's
// length (52 bytes a row and bucket, and the bundles); a trace with a
// time before its first event's (a PICL file, in file order, may have
// one) has none, nor has one that defines more than 2048 rows' locations
// as it goes (Chrome JSON may), and a request for some locations
// (&locs) is always read. -budget 0 reads every window.
//
// Where rows group locations, the page asks with &members=LIST for the
// locations of the rows it shows expanded, and an expanded row's lines
// draw their own mix of the window, not the page's of the whole trace: a
// window read in full gives it from the same events, at the columns the
// page's members' mix has (-width times -rows shared by the members, at
// most -width); a wider one from a members' summary that the first read
// builds beside the rows' (kept only where rows group locations, up to
// 100,000 locations): the same cells, one row per location, in as many
// buckets as keep them within 26 MiB of cells (about 400,000; a cell's
// storage is fixed, as the rows' summary's), so its size follows
// the locations, not the trace's length, and its answer costs no read.
// Expanding a row over a window drawn as a mix asks for the window
// again.
//
// The read of a window starts at a checkpoint of an index that the first
// read builds: every so many events, the regions open on every location
// and the message ends waiting for their partner, so that a slice entered
// before the window is drawn from its own start and a message sent before
// it is paired as in a whole read. The read ends at the first checkpoint
// after the window: a slice still open there is drawn up to it. Past that
// checkpoint the read goes on, taking only sends and receives, until
// every message end it read that waits for its partner has found it or
// -maxread more events (default a million) are read, so that a message
// with an end in the window (or one end before it and the other after)
// is drawn however far its other end lies; an end whose partner lies
// further is not drawn. The ends that no event of the trace pairs, which
// the first read notes (up to a million), are not waited for. The index keeps at most 4096
// checkpoints (fewer past about two million open regions and waiting ends
// in all, stored over all checkpoints): when the trace is longer, the
// interval between checkpoints grows, not the index.
//
// How a window is read depends on the format. OTF and OTF2 seek: each
// stream or location is bisected to the checkpoint's time (see
// hpctrace.Options.Window) and read from there, so a request costs about
// the window's own events whatever the trace's length, and the server's
// memory, once the first read is done, is the index's and that of the
// requests in flight (at most two are read at once), flat in the trace's
// length. The checkpoints avoid the moments when a location is inside a
// collective's region, where an OTF2 seek would read the location from
// its start. PICL, DUMPI, event JSON and Chrome JSON cannot seek: their
// readers carry state from the trace's start (a DUMPI run's communicators
// and requests, a Chrome reader's reorder window and open slices, a PICL
// reader's clock), so the index keeps, beside the checkpoints, the events
// of the first read themselves, encoded in a few bytes each (the fields
// that are not zero, as varints, and the time as the difference from the
// previous event's), and each checkpoint notes its offset among them: a
// request decodes the events from its checkpoint to the one after the
// window (and those past it for messages' other ends), and never reads
// the trace again, so its cost follows the window's events, not the
// trace's length. The events are kept in memory up to -cache events
// (default 5 million); past it, without -index, the index keeps none, and
// every request reads the trace again from its start (its cost and time
// are then the trace's length, though only the window's events are
// drawn). With -index FILE they are kept in FILE instead, whatever their
// number, and the server's memory is the checkpoints' and the requests'
// in flight: FILE is written at start-up under a temporary name and
// renamed into place once complete, never replaces a file of the trace,
// nor an existing file other than such an index without -force, and
// stays beside the trace after the server stops (a later start writes it
// again: the first read, which the page needs, makes it). A stream whose
// times go back (a PICL file is in file order: each processor's records
// in time order, one processor's block after another's) gets its
// checkpoints once the first read is done, from the index's events (read
// twice more): each also notes, per location, where its events from that
// time on start among them, and a request decodes, of each location, the
// events from the checkpoint before the window to the one after it (and
// past it for messages' other ends), so its cost follows the window's
// share of the trace as a time-ordered trace's does; without the index's
// events (past -cache, without -index) such a stream has no checkpoint
// and every request reads the trace from its start.
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
	fs.StringVar(&cfg.from, "from", "", "start of the detailed window: ticks, or a duration from the trace's start such as 1.5s (negative: from its end, -10ms)")
	fs.StringVar(&cfg.to, "to", "", "end of the detailed window: ticks, or a duration as -from's (default: the trace's end)")
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
	var from, to bound
	var err error
	if from, err = parseBound(cfg.from); err != nil {
		return fmt.Errorf("-from: %w", err)
	}
	if to, err = parseBound(cfg.to); err != nil {
		return fmt.Errorf("-to: %w", err)
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
	t, win, err := openWindow(fs.Args(), from, to)
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

// openTrace opens the trace of args (the embedded sample without one)
// with opts.
func openTrace(args []string, opts *hpctrace.Options) (*hpctrace.Trace, error) {
	if len(args) == 1 {
		return hpctrace.Open(args[0], opts)
	}
	return hpctrace.OpenFS(sample, "fig12.json", opts)
}

// A bound is -from or -to: ticks, a duration from the trace's start (from
// its end when negative), or nothing (set false).
type bound struct {
	set, ticks bool
	t          model.Time
	d          time.Duration
}

// parseBound reads ticks or a duration.
func parseBound(s string) (bound, error) {
	if s == "" {
		return bound{}, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return bound{set: true, ticks: true, t: model.Time(n)}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return bound{}, fmt.Errorf("%q: want ticks or a duration such as 1.5s or -10ms", s)
	}
	return bound{set: true, d: d}, nil
}

// openWindow opens the trace of args in the window of from and to, and
// returns it with the window the page covers (nil for the whole trace):
// from ≤ time < to, in ticks within the trace's bounds. Ticks alone need
// no bounds; durations alone are converted by Open; a mix opens the
// trace first to convert them.
func openWindow(args []string, from, to bound) (*hpctrace.Trace, *model.Window, error) {
	if !from.set && !to.set {
		t, err := openTrace(args, nil)
		return t, nil, err
	}
	if from.ticks && to.ticks {
		if to.t <= from.t {
			return nil, nil, errors.New("-to must be after -from")
		}
		w := &model.Window{From: from.t, To: to.t}
		t, err := openTrace(args, &hpctrace.Options{Window: w})
		return t, w, err
	}
	iv := hpctrace.Interval{From: from.d, To: to.d} // a tick bound stands as 0 here
	var t *hpctrace.Trace
	var w model.Window
	var b model.Bounds
	var err error
	if !from.ticks && !to.ticks {
		if t, err = openTrace(args, &hpctrace.Options{Interval: &iv}); err != nil {
			return nil, nil, err
		}
		// Open learnt the bounds and the clock: these cost nothing.
		if w, err = t.Window(iv); err == nil {
			b, err = t.Bounds()
		}
		if err != nil {
			t.Close()
			return nil, nil, err
		}
	} else {
		t0, err := openTrace(args, nil)
		if err != nil {
			return nil, nil, err
		}
		w, err = t0.Window(iv)
		if err == nil {
			b, err = t0.Bounds()
		}
		t0.Close()
		if err != nil {
			return nil, nil, err
		}
		if from.ticks {
			w.From = from.t
		}
		if to.ticks {
			w.To = to.t
		}
		if w.To != 0 && w.To <= w.From {
			return nil, nil, errors.New("-to must be after -from")
		}
		if t, err = openTrace(args, &hpctrace.Options{Window: &w}); err != nil {
			return nil, nil, err
		}
	}
	// The page covers the window within the trace's bounds.
	w.From = max(w.From, b.Start)
	if w.To == 0 {
		w.To = b.End + 1
	}
	return t, &w, nil
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
	// Mix is the share of each region in each row and column, which the
	// timeline draws where a column holds more than one region.
	Mix *mixData `json:"mix,omitempty"`
	// Groups are the function groups the regions are coloured by;
	// RegionGroups the group of each region of Timeline.Regions (index
	// RegionID - 1).
	Groups       []regionGroup `json:"groups"`
	RegionGroups []int         `json:"region_groups"`
	// Members, where the timeline groups locations into rows, is each
	// location's own data, so that the page can expand a row into its
	// locations; nil past maxMembers locations.
	Members *memberData `json:"members,omitempty"`
	// Origin is the tick every time of the page counts from, in decimal:
	// a string, because the page's numbers are doubles, exact up to 2^53.
	// It is 0 unless a time of the timeline passes 2^52 ticks either way;
	// then it is the timeline's start, so that the page's times are
	// offsets from it, exact up to a span of 2^53 ticks.
	Origin string `json:"origin"`
}

// memberData is what the page needs to expand a row of grouped locations
// into rows of their own: the locations' names (index LocID - 1) and their
// mix (row = LocID), at columns of its own: as many as the rows' mix has
// when the locations are at most twice the rows, fewer beyond, so that the
// members hold about as many cells as the rows.
type memberData struct {
	Names []string `json:"names"`
	Mix   *mixData `json:"mix"`
}

// maxMembers is the most locations whose own data the page holds.
const maxMembers = 100000

// memberColumns returns the columns of the members' mix: the rows'
// columns times the rows, shared by n locations, at least 8 (but not more
// than the rows' columns).
func memberColumns(width, rows, n int) int {
	return min(max(width*rows/max(n, 1), 8), max(width, 1))
}

// prof is one entry of the flat profile, by model location id.
type prof struct {
	Loc    model.LocID `json:"loc_id"`
	Region string      `json:"region"`
	Visits int64       `json:"visits"`
	Incl   int64       `json:"incl"`
	Excl   int64       `json:"excl"`
}

// com is one communication record (stats.Com), by model location ids.
type com struct {
	Loc       model.LocID `json:"loc_id"`
	Op        string      `json:"op"`
	Dir       string      `json:"dir"`
	Peer      model.LocID `json:"peer_id"`
	Count     int64       `json:"count"`
	Bytes     int64       `json:"bytes"`
	SyncDelay int64       `json:"sync_delay"`
	TransTime int64       `json:"trans_time"`
}

// cell is one sender → receiver entry of the communication matrix, by
// model location id.
type cell struct {
	From  model.LocID `json:"from_id"`
	To    model.LocID `json:"to_id"`
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
	rowSize := 1
	if n := defs.NumLocations(); cfg.rows > 0 && n > cfg.rows {
		rowSize = (n + cfg.rows - 1) / cfg.rows // as export.Timeline groups them
	}
	mix := newMixer(defs, cfg.width, rowSize, win)
	var members *mixer
	if n := defs.NumLocations(); rowSize > 1 && n <= maxMembers {
		members = newMixer(defs, memberColumns(cfg.width, cfg.rows, n), 1, win)
	}
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
		mix.add(ev)
		if members != nil {
			members.add(ev)
		}
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
	timeline := tl.Finish()
	// The flat profile's rows come one by one, summed at once per row of
	// the timeline where locations share rows: a trace of many locations
	// has a row per location and region.
	profile := newProfRows(timeline.RowSize)
	rep := acc.FinalTextReportFunc("", profile.add)
	if err := acc.Err(); err != nil {
		return nil, err // the statistics lack message ends
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text, &stats.TextOptions{Top: cfg.top, TopName: "-top"}); err != nil {
		return nil, err
	}
	d := pageData{Name: name, Events: n, Locations: defs.NumLocations(), Regions: defs.NumRegions(), Clock: defs.TimeBase.String(), Window: window, Top: cfg.top,
		Timeline: timeline, Hist: rep.Final.SizeHistogram, Diagnostics: rep.Final.Diagnostics, Text: text.String()}
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
	d.Mix = mix.finish()
	mix.clipDetail(d.Timeline.Detail, mix.last)
	groups, groupOf := groupsOf(defs)
	d.Groups = groups
	d.Profile = profile.list
	for _, c := range rep.Final.Com {
		d.Com = append(d.Com, com{Loc: c.LocID, Op: c.Op, Dir: c.Dir, Peer: c.PeerID, Count: c.Count, Bytes: c.Bytes, SyncDelay: int64(c.SyncDelay), TransTime: int64(c.TransTime)})
	}
	for _, m := range rep.Final.MatrixSend {
		d.Matrix = append(d.Matrix, cell{From: m.SenderID, To: m.ReceiverID, Count: m.Count, Bytes: m.Bytes})
	}
	if d.Timeline.RowSize > 1 {
		groupRows(&d, d.Timeline.RowSize, profile)
		if d.Wait != nil {
			d.Wait.groupRows(d.Timeline.RowSize)
		}
	}
	if members != nil {
		d.Members = &memberData{Mix: members.finish()}
		d.Members.Mix.RowLocs = nil // one location a row
		for _, l := range defs.Locations() {
			d.Members.Names = append(d.Members.Names, defs.LocationName(l.ID))
		}
	}
	var memberMix *mixData
	if d.Members != nil {
		memberMix = d.Members.Mix
	}
	for _, r := range renumberRegions(d.Timeline, d.Mix, d.Timeline.RowSize > 1, memberMix) {
		d.RegionGroups = append(d.RegionGroups, groupOf[r])
	}
	rebase(&d, originOf(d.Timeline))
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

// timelineRow returns the row of location l where rows hold size
// locations each: 1 + (l-1)/size.
func timelineRow(l model.LocID, size int) model.LocID {
	if l == 0 {
		return 0
	}
	return 1 + (l-1)/model.LocID(size)
}

// profRows gathers the rows of the flat profile (stats.Function, one per
// location and region) as stats.Accumulator.FinalTextReportFunc passes
// them: in a list where each location has a row of the timeline, else
// summed per row and region, which is what groupRows keeps of them.
type profRows struct {
	size  int
	list  []prof            // size 1
	profs map[profKey]*prof // size > 1
	total map[string]int64  // size > 1: exclusive time per region
}

type profKey struct {
	loc    model.LocID
	region string
}

func newProfRows(size int) *profRows {
	p := &profRows{size: size}
	if size > 1 {
		p.profs, p.total = map[profKey]*prof{}, map[string]int64{}
	}
	return p
}

// add takes a row of the flat profile.
func (p *profRows) add(f *stats.Function) {
	if p.size <= 1 {
		p.list = append(p.list, prof{Loc: f.LocID, Region: f.Region, Visits: f.Visits, Incl: int64(f.Incl), Excl: int64(f.Excl)})
		return
	}
	k := profKey{timelineRow(f.LocID, p.size), f.Region}
	x := p.profs[k]
	if x == nil {
		x = &prof{Loc: k.loc, Region: f.Region}
		p.profs[k] = x
	}
	x.Visits += f.Visits
	x.Incl += int64(f.Incl)
	x.Excl += int64(f.Excl)
	p.total[f.Region] += int64(f.Excl)
}

// groupRows turns the locations of d's profile (summed per row already,
// in profile), communication and matrix into the timeline's rows of size
// locations each (location l is row 1 + (l-1)/size), summing what falls
// on one row; of the profile it keeps the regions of most exclusive time
// (d.Top of them, which the charts show) and the d.Top entries of most
// exclusive time (which the table shows), so that the page grows with
// the rows, not the locations.
func groupRows(d *pageData, size int, profile *profRows) {
	row := func(l model.LocID) model.LocID { return timelineRow(l, size) }
	profs, total := profile.profs, profile.total
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

// renumberRegions, when only is true, makes the regions of tl those its
// cells, detail and mix draw, numbered from 1 in the order of their ids,
// so that the page names the regions it draws rather than every region of
// the trace (a region per location in a trace of many). It returns the
// model id of each region of tl.Regions, in order.
//
// The regions of the mixes of more are renumbered alike (nil ones skipped).
func renumberRegions(tl *export.TimelineData, mix *mixData, only bool, more ...*mixData) []model.RegionID {
	if !only {
		ids := make([]model.RegionID, len(tl.Regions))
		for i := range ids {
			ids[i] = model.RegionID(i + 1)
		}
		return ids
	}
	ids := map[model.RegionID]model.RegionID{}
	var used []model.RegionID
	note := func(r model.RegionID) {
		if _, ok := ids[r]; !ok && r > 0 && int(r) <= len(tl.Regions) {
			ids[r] = 0
			used = append(used, r)
		}
	}
	mixes := append([]*mixData{mix}, more...)
	for _, mx := range mixes {
		if mx == nil {
			continue
		}
		for _, c := range mx.Cells {
			for k := 3; k+1 < len(c); k += 2 {
				if c[k] > 0 {
					note(model.RegionID(c[k]))
				}
			}
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
	for _, mx := range mixes {
		if mx == nil {
			continue
		}
		for _, c := range mx.Cells {
			for k := 3; k+1 < len(c); k += 2 {
				if c[k] > 0 { // a group's rest (< 0) keeps its key
					c[k] = int64(ids[model.RegionID(c[k])])
				}
			}
		}
	}
	return used
}

// originOf returns the tick the page's times count from: 0, or the
// timeline's start when a time of the timeline passes 2^52 ticks either
// way (see pageData.Origin).
func originOf(tl *export.TimelineData) model.Time {
	const big = 1 << 52
	if tl.Start > -big && tl.Start < big && tl.End > -big && tl.End < big {
		return 0
	}
	return tl.Start
}

// rebase makes every time of d an offset from origin, and the counter
// tracks' points, which count from their track's start until now, too.
func rebase(d *pageData, origin model.Time) {
	d.Origin = strconv.FormatInt(int64(origin), 10)
	for _, tr := range d.Counters {
		for i := range tr.Points {
			tr.Points[i][0] = float64(tr.Start - origin + model.Time(tr.Points[i][0]))
		}
		tr.Start -= origin
	}
	if origin == 0 {
		return
	}
	tl := d.Timeline
	tl.Start -= origin
	tl.End -= origin
	if tl.Detail != nil {
		for i := range tl.Detail.Slices {
			tl.Detail.Slices[i].Start -= origin
			tl.Detail.Slices[i].End -= origin
		}
		for i := range tl.Detail.Messages {
			tl.Detail.Messages[i].Send -= origin
			tl.Detail.Messages[i].Recv -= origin
		}
	}
	if d.Mix != nil {
		d.Mix.Start -= origin
	}
	if d.Members != nil && d.Members.Mix != nil {
		d.Members.Mix.Start -= origin
	}
	if w := d.Wait; w != nil {
		for i := range w.Waits {
			w.Waits[i].Start -= origin
			w.Waits[i].End -= origin
		}
		for i := range w.Critical.Segments {
			w.Critical.Segments[i].Start -= origin
			w.Critical.Segments[i].End -= origin
		}
		for i := range w.Top {
			x := &w.Top[i]
			x.Waiter.Enter -= origin
			x.Waiter.Leave -= origin
			x.Delayer.Enter -= origin
			x.Delayer.Leave -= origin
			x.View0 -= origin
			x.View1 -= origin
		}
	}
}
