package main

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hpctrace/hpctrace"
	"github.com/hpctrace/hpctrace/export"
	"github.com/hpctrace/hpctrace/model"
)

//go:embed serve.js
var serveScript string

// serveConfig holds the flags of the served viewer (-serve).
type serveConfig struct {
	addr    string // -serve: the address to listen on; "" writes a page
	public  bool   // -public: allow an address other than loopback
	maxRead int64  // -maxread: events a window request may read past its end for the other ends of its messages
	cache   int64  // -cache: events kept in memory for the formats that cannot seek
	index   string // -index: the file of the index of a format that cannot seek ("": in memory)
	every   int64  // events between the index's first checkpoints; 0 means firstEvery (tests set it)
	budget  int64  // -budget: events a window may hold to be read in full; past it the summary answers
}

// serveFlags registers the flags of the served viewer on fs.
func serveFlags(fs *flag.FlagSet, c *serveConfig) {
	fs.StringVar(&c.addr, "serve", "", "serve the viewer at this address (host:port, loopback by default) instead of writing a page: it reads each window the page shows on request from an index of checkpoints kept in memory, OTF and OTF2 by seeking, other formats from the index's copy of their events (in memory up to -cache, or -index)")
	fs.BoolVar(&c.public, "public", false, "with -serve: allow an address other than loopback (the trace is then readable by anyone who can reach it)")
	fs.Int64Var(&c.maxRead, "maxread", 1000000, "with -serve: events a window request may read past the read's end to find the other end of a message of the window")
	fs.Int64Var(&c.budget, "budget", 1000000, "with -serve: events a window may hold to be read in full (every slice); a window of more is answered from the summary built at start-up (the mix of regions and the messages per time bucket), which the page labels as such")
	fs.Int64Var(&c.cache, "cache", 5000000, "with -serve: events of a PICL, DUMPI or JSON trace kept in memory, encoded, as its index (without -index); past it each request reads the trace from its start (OTF and OTF2 seek instead)")
	fs.StringVar(&c.index, "index", "", "with -serve: keep the index of a PICL, DUMPI or JSON trace (its events, encoded) in this file, written at start-up, instead of in memory up to -cache events; an existing file is replaced only if it is such an index, or with -force")
}

// serveUsage is the usage line of the served viewer.
const serveUsage = "       traceview -serve [host]:port [-public] [-maxread n] [-budget n] [-cache n] [-index file] [-width n] [-rows n] [-top n] [-detail n] [FILE]"

// listenAddr checks the address of -serve: an empty host is 127.0.0.1;
// a host other than a loopback address (or "localhost") is refused
// unless public.
func listenAddr(addr string, public bool) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("-serve %q: want host:port or :port: %w", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if !public && !loopbackHost(host) {
		return "", fmt.Errorf("-serve %q: not a loopback address; the viewer serves the trace to anyone who can reach it, so -public must say so", addr)
	}
	return net.JoinHostPort(host, port), nil
}

// loopbackHost reports whether host is "localhost" or a loopback IP.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// serve builds the overview and the index of the trace of args in one
// read, then serves the viewer at cfg.addr until interrupted.
func serve(args []string, cfg *config, stderr io.Writer) error {
	addr, err := listenAddr(cfg.addr, cfg.public)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	s, err := newServer(args, cfg, stderr)
	if err != nil {
		return err
	}
	defer s.close()
	if st := s.ix.store; st != nil {
		where := "in memory"
		if st.path != "" {
			where = "in " + st.path
		}
		fmt.Fprintf(stderr, "traceview: index of %d events, %d bytes, %s\n", st.n, st.size, where)
	} else if cfg.index != "" {
		fmt.Fprintf(stderr, "traceview: -index %s not written: the trace seeks\n", cfg.index)
	}
	// The first read's memory (its statistics, the wait-state analysis)
	// is garbage now: give it back, so that the server's resident memory
	// is what it keeps.
	debug.FreeOSMemory()
	fmt.Fprintf(stderr, "traceview: serving %s at http://%s/ (interrupt to stop)\n", s.name, ln.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		hs.Close()
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// server is the served viewer: the page of the whole trace, and the data
// of any window of it, read on request.
type server struct {
	name   string // as shown
	args   []string
	cfg    config
	page   []byte
	defs   *model.Defs // of the whole trace, after the full read
	ix     *index
	sum    *summary       // nil, or with no data, where the times go back
	msum   *memberSummary // the summary's mix per location; nil unless rows are groups
	groups []regionGroup  // the page's groups of regions
	group  []int          // the group of each region (by RegionID) in groups
	slots  chan struct{}  // bounds the window reads running at once
	seeks  bool           // OTF or OTF2: a read of some locations reads only their streams
}

// newServer reads the trace of args once: the page of the whole trace,
// as traceview writes it, and the index of the windows.
func newServer(args []string, cfg *config, stderr io.Writer) (*server, error) {
	t, err := openSelected(args, nil, nil)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	s := &server{name: "fig12.json (embedded sample)", args: args, cfg: *cfg, slots: make(chan struct{}, 2)}
	if len(args) == 1 {
		s.name = args[0]
	}
	seeks := t.Format == hpctrace.FormatOTF || t.Format == hpctrace.FormatOTF2
	s.seeks = seeks
	s.ix = newIndex(t.Defs(), cfg.every)
	if !seeks && (cfg.index != "" || cfg.cache > 0) {
		if s.ix.store, err = newStore(cfg.index, cfg.cache, cfg.force, args); err != nil {
			return nil, err
		}
	}
	s.sum = newSummary(t.Defs(), cfg.rows)
	s.ix.paired = s.sum.message
	s.msum = newMemberSummary(t.Defs(), cfg.rows)
	observe := func(ev *model.Event) {
		s.ix.observe(ev)
		s.sum.add(ev)
		if s.msum != nil {
			s.msum.add(ev)
		}
	}
	page, err := build(&teeSource{Source: t, f: observe}, s.name, cfg, nil, stderr)
	if err == nil {
		err = s.ix.finish()
	}
	if err != nil {
		s.close()
		return nil, err
	}
	s.ix.paired = nil
	s.sum.finish(s.ix.last + 1)
	if s.msum != nil {
		s.msum.finish(s.ix.last + 1)
	}
	s.defs = t.Defs()
	s.groups, s.group = groupsOf(s.defs)
	// The served page is the static one with the data-fetch script after
	// the page's own; the data element's JSON escapes '<', so the last
	// "</body>" is the page's.
	i := bytes.LastIndex(page, []byte("</body>"))
	if i < 0 {
		return nil, errors.New("traceview: the page has no </body>")
	}
	s.page = slices.Concat(page[:i], []byte("<script>"), []byte(serveScript), []byte("</script>\n"), page[i:])
	return s, nil
}

// close closes the index's file, if any.
func (s *server) close() error {
	if s.ix.store != nil {
		return s.ix.store.close()
	}
	return nil
}

// openSelected opens the trace of args (the embedded sample without one)
// with a window and a location filter, either nil for none.
func openSelected(args []string, w *model.Window, locs func(model.LocID) bool) (*hpctrace.Trace, error) {
	o := &hpctrace.Options{Window: w, Locations: locs}
	if len(args) == 1 {
		return hpctrace.Open(args[0], o)
	}
	return hpctrace.OpenFS(sample, "fig12.json", o)
}

// teeSource passes each event of Source to f as it is read.
type teeSource struct {
	model.Source
	f func(*model.Event)
}

func (t *teeSource) Next() bool {
	if !t.Source.Next() {
		return false
	}
	t.f(t.Source.Event())
	return true
}

// ServeHTTP answers GET / with the page and GET /window with the data
// of a window. A server on a loopback address answers only requests
// addressed to a loopback name, so that a web page elsewhere cannot
// reach it through a name of its own that resolves to 127.0.0.1 (DNS
// rebinding).
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.cfg.public {
		host, _, err := net.SplitHostPort(r.Host)
		if err != nil {
			host = r.Host
		}
		if !loopbackHost(strings.Trim(host, "[]")) {
			http.Error(w, "traceview: this server answers loopback names only", http.StatusForbidden)
			return
		}
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "traceview: GET only", http.StatusMethodNotAllowed)
		return
	}
	switch r.URL.Path {
	case "/":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Write(s.page)
	case "/window":
		s.window(w, r)
	default:
		http.NotFound(w, r)
	}
}

// windowReply is the answer to /window: the page's data for the window,
// its timeline and its mix (the share of each region in each row and
// column), both made from every event of the window, and its regions'
// groups (in the page's list of groups).
type windowReply struct {
	pageData
	From  model.Time `json:"from"`
	To    model.Time `json:"to"`
	Read  int64      `json:"read"`  // events read from Start to Stop
	Past  int64      `json:"past"`  // events read past Stop for the other ends of the window's messages
	Start model.Time `json:"start"` // the read's first time: the index's checkpoint at or before From
	Stop  model.Time `json:"stop"`  // the read's end (0: the end of the trace)
	Took  float64    `json:"took"`  // seconds spent
	// Summary, when the window holds more events than -budget, says
	// that the answer is the summary's (no detail; the mix and the
	// message lines at its resolution) and Read is 0.
	Summary *summaryInfo `json:"summary,omitempty"`
	// MembersRead, in an answer from the summary, says that the
	// members' mix is a read of their events (at the page's columns),
	// not the members' summary's.
	MembersRead bool `json:"members_read,omitempty"`
}

// window answers /window?from=T0&to=T1[&locs=LIST][&members=LIST][&origin=T]:
// the slices and messages of [T0, T1) (ticks) of the locations LIST (ids
// and ranges a-b, comma-separated; all without it), as the page's data,
// its times counted from T (the page's origin; 0 without it), so that a
// page whose times pass 2^53 ticks gets them exactly. A window of more
// than -budget events (every location's) is answered from the summary.
// Where the timeline groups locations into rows, members lists the
// locations of the rows the page shows expanded: the answer's members
// (memberData, without names) hold their own mix of the window, made from
// the window's events with the rest, or from the members' summary.
func (s *server) window(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	from, err1 := strconv.ParseInt(q.Get("from"), 10, 64)
	to, err2 := strconv.ParseInt(q.Get("to"), 10, 64)
	if err1 != nil || err2 != nil || to <= from {
		http.Error(w, "traceview: want from and to, ticks, from < to", http.StatusBadRequest)
		return
	}
	origin := int64(0)
	if o := q.Get("origin"); o != "" {
		if origin, err1 = strconv.ParseInt(o, 10, 64); err1 != nil {
			http.Error(w, "traceview: origin: want ticks", http.StatusBadRequest)
			return
		}
	}
	locs, err := parseLocs(q.Get("locs"), s.defs.NumLocations())
	if err != nil {
		http.Error(w, "traceview: locs: "+err.Error(), http.StatusBadRequest)
		return
	}
	members, err := s.parseMembers(q.Get("members"))
	if err != nil {
		http.Error(w, "traceview: members: "+err.Error(), http.StatusBadRequest)
		return
	}
	select {
	case s.slots <- struct{}{}:
		defer func() { <-s.slots }()
	case <-r.Context().Done():
		return
	}
	// The window is cut to the trace's span, which keeps the timeline's
	// arithmetic (its column width) within int64.
	lo, hi := s.ix.first, s.ix.last+1
	if s.ix.n == 0 || to <= int64(lo) || from >= int64(hi) {
		http.Error(w, fmt.Sprintf("traceview: the window [%d, %d) is outside the trace's span [%d, %d]", from, to, lo, hi-1), http.StatusBadRequest)
		return
	}
	a, b := max(model.Time(from), lo), min(model.Time(to), hi)
	var rep *windowReply
	if s.summarized(a, b, locs) {
		rep, err = s.fromSummary(r.Context(), a, b, model.Time(origin), members)
	} else {
		rep, err = s.read(r.Context(), a, b, locs, members)
	}
	if err != nil {
		if r.Context().Err() != nil {
			return
		}
		http.Error(w, "traceview: "+err.Error(), http.StatusInternalServerError)
		return
	}
	rebase(&rep.pageData, model.Time(origin))
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(rep)
}

// parseLocs reads a list of location ids and ranges ("1-4,7"); "" is
// every location (nil).
func parseLocs(s string, n int) (func(model.LocID) bool, error) {
	if s == "" {
		return nil, nil
	}
	keep := make([]bool, n+1)
	for part := range strings.SplitSeq(s, ",") {
		a, b, isRange := strings.Cut(part, "-")
		lo, err := strconv.Atoi(a)
		if err != nil {
			return nil, err
		}
		hi := lo
		if isRange {
			if hi, err = strconv.Atoi(b); err != nil {
				return nil, err
			}
		}
		if lo < 1 || hi > n || hi < lo {
			return nil, fmt.Errorf("%q: locations are 1 to %d", part, n)
		}
		for l := lo; l <= hi; l++ {
			keep[l] = true
		}
	}
	return func(l model.LocID) bool { return int(l) < len(keep) && keep[l] }, nil
}

// parseMembers reads /window's members: nil for none, or where the page
// holds no members' data (each row one location, or past maxMembers
// locations, when the read began: then there is no members' summary
// either); else the locations and their number.
func (s *server) parseMembers(list string) (*memberSet, error) {
	n := s.defs.NumLocations()
	if list == "" || s.msum == nil {
		return nil, nil
	}
	keep, err := parseLocs(list, n)
	if err != nil {
		return nil, err
	}
	m := &memberSet{keep: keep}
	for l := 1; l <= n; l++ {
		if keep(model.LocID(l)) {
			m.n++
		}
	}
	return m, nil
}

// memberSet is the locations whose own mix a window's answer holds.
type memberSet struct {
	keep func(model.LocID) bool
	n    int
}

// columns is the columns of the members' mix: as the page's (the rows'
// columns times the rows, shared by the members), at most -width.
func (m *memberSet) columns(cfg *config) int { return memberColumns(cfg.width, cfg.rows, m.n) }

// read builds the window's data from every event of it: from the
// index's checkpoint at or before from (its open regions given to the
// timeline as Enters at their own times, its message ends waiting for a
// partner as Sends and Recvs) to the first checkpoint after to, so that
// the slices that cross the window's edges are drawn with their times;
// then on past that checkpoint, Sends and Recvs only and up to -maxread
// events, until every message end read that waits for its partner has
// found it, so that a message with an end in the window is drawn however
// far its other end lies. The timeline and the mix have -width columns
// over the window; the members' mix (members nil: none) has their
// columns over the window.
func (s *server) read(ctx context.Context, from, to model.Time, locs func(model.LocID) bool, members *memberSet) (*windowReply, error) {
	began := time.Now()
	start, stop := s.ix.span(from, to)
	rep := &windowReply{From: from, To: to, Start: start.time, Stop: stop.time}
	src, closeSrc, err := s.source(start.time, to, locs)
	if err != nil {
		return nil, err
	}
	defer closeSrc()
	defs := src.Defs()
	opts := &export.TimelineOptions{Columns: s.cfg.width, MaxDetail: s.cfg.detail, MaxRows: s.cfg.rows, From: from, To: to}
	if s.cfg.detail <= 0 {
		opts.MaxDetail = -1
	}
	tl := export.NewTimeline(defs, opts)
	mix := newMixer(s.defs, s.cfg.width, rowSizeOf(s.defs, s.cfg.rows), &model.Window{From: from, To: to})
	var mm *mixer // the members'
	if members != nil {
		mm = newMixer(s.defs, members.columns(&s.cfg), 1, &model.Window{From: from, To: to})
	}
	ends := &follow{ends: newEnds(), never: s.ix.unpaired, locs: locs}
	var ev model.Event
	for _, o := range start.open {
		if locs != nil && !locs(o.loc) {
			continue
		}
		ev = model.Event{Time: o.start, Loc: o.loc, Kind: model.KindEnter, Region: o.region}
		if o.coll {
			ev.Kind, ev.Comm = model.KindCollBegin, o.comm
		}
		tl.Add(&ev)
		mix.add(&ev)
		if mm != nil && members.keep(o.loc) {
			mm.add(&ev)
		}
	}
	for i := range start.ends {
		if ev = start.ends[i]; locs == nil || locs(ev.Loc) {
			tl.Add(&ev)
			ends.add(&ev)
		}
	}
	var n, past int64
	var late []export.Message // messages paired past the read's end
	for src.Next() {
		e := src.Event()
		if stop.time != 0 && e.Time >= stop.time {
			// Past the read's end: the other ends of the messages read.
			if ends.waiting == 0 || past >= s.cfg.maxRead {
				break
			}
			if past++; past&0xffff == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if e.Kind == model.KindSend || e.Kind == model.KindRecv {
				if m, ok := ends.add(e); ok {
					late = append(late, m)
				}
			}
			continue
		}
		tl.Add(e)
		mix.add(e)
		if mm != nil && members.keep(e.Loc) {
			mm.add(e)
		}
		if e.Kind == model.KindSend || e.Kind == model.KindRecv {
			ends.add(e)
		}
		if n++; n&0xffff == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	if err := src.Err(); err != nil {
		return nil, err
	}
	// The regions still open end where the read ends: a marker at that
	// time on every location closes them there.
	end := stop.time
	if end == 0 {
		end = s.ix.last
	}
	for l := 1; l <= s.defs.NumLocations(); l++ {
		if locs == nil || locs(model.LocID(l)) {
			ev = model.Event{Time: end, Loc: model.LocID(l), Kind: model.KindMarker}
			tl.Add(&ev)
		}
	}
	d := tl.Finish()
	late = append(late, s.ix.late(from, to, locs)...)
	addLate(d, late, from, to, max(s.cfg.detail, 0))
	md := mix.finish()
	rep.pageData = pageData{Name: s.name, Events: n, Locations: s.defs.NumLocations(), Regions: s.defs.NumRegions(),
		Clock: s.defs.TimeBase.String(), Window: true, Top: s.cfg.top, Timeline: d, Mix: md, Groups: s.groups}
	var mmd *mixData
	if mm != nil {
		mmd = mm.finish()
		mmd.RowLocs = nil // one location a row
		rep.Members = &memberData{Mix: mmd}
	}
	for _, r := range renumberRegions(d, md, true, mmd) {
		rep.RegionGroups = append(rep.RegionGroups, s.group[r])
	}
	rep.Read, rep.Past, rep.Took = n, past, time.Since(began).Seconds()
	return rep, nil
}

// rowSizeOf is the number of locations to a timeline row with -rows
// rows, as export.Timeline groups them.
func rowSizeOf(defs *model.Defs, rows int) int {
	if n := defs.NumLocations(); rows > 0 && n > rows {
		return (n + rows - 1) / rows
	}
	return 1
}

// addLate adds to d the messages paired past the read's end that meet
// [from, to): to the detail, while it holds fewer than maxDetail slices
// and messages, and as message lines (whose receive column may lie past
// the last column).
func addLate(d *export.TimelineData, late []export.Message, from, to model.Time, maxDetail int) {
	col := func(t model.Time) int { return int((t - d.Start) / max(d.ColWidth, 1)) }
	row := func(l model.LocID) model.LocID { return 1 + (l-1)/model.LocID(max(d.RowSize, 1)) }
	for _, m := range late {
		if min(m.Send, m.Recv) > to || max(m.Send, m.Recv) < from {
			continue
		}
		m.From, m.To = row(m.From), row(m.To)
		if d.Detail != nil {
			if len(d.Detail.Slices)+len(d.Detail.Messages) >= maxDetail {
				d.Detail = nil
			} else {
				d.Detail.Messages = append(d.Detail.Messages, m)
			}
		}
		d.Bundles = append(d.Bundles, export.Bundle{From: m.From, To: m.To, FromCol: col(m.Send), ToCol: col(m.Recv), Count: 1, Bytes: m.Bytes})
	}
}

// source returns the events from time from (the index's checkpoint
// there, or the trace's start) on of the locations locs accepts: from the
// index's store, or from the trace, opened with that window (OTF and OTF2
// seek to from). In file order (index.starts), the store's events are
// each location's from its offset at that checkpoint to its offset at the
// first checkpoint after to, then those past it (rangeSource).
func (s *server) source(from, to model.Time, locs func(model.LocID) bool) (model.Source, func(), error) {
	if st := s.ix.store; st != nil {
		if s.ix.starts != nil {
			a, b := s.ix.spanIndex(from, to)
			src := s.ix.rangeSource(s.defs, a, b, locs)
			return src, func() { src.Close() }, nil
		}
		start, _ := s.ix.span(from, from)
		src := st.source(s.defs, start.off, start.prev, locs)
		return src, func() { src.Close() }, nil
	}
	var w *model.Window
	if from != math.MinInt64 {
		w = &model.Window{From: from}
	}
	t, err := openSelected(s.args, w, locs)
	if err != nil {
		return nil, nil, err
	}
	return t, func() { t.Close() }, nil
}

// index is what the server keeps of the whole read to answer windows:
// checkpoints, each the time of an event, the number of events before
// it, and the regions open on every location just before it. A window
// read starts at the checkpoint at or before its start, with those
// regions open, and ends at the first checkpoint after its end.
//
// Checkpoints are taken every `every` events; past maxCheckpoints, or
// past maxOpen open regions in all, every other one is dropped and the
// interval doubles, so the index stays within a fixed size whatever the
// trace's length (the interval, so a window's read, grows instead).
// A checkpoint waits, up to another interval, for a moment when no
// location's innermost region is a collective: OTF2's reader, seeking
// into a collective whose region was entered before the seek, would read
// the location from its start to name it.
//
// For the formats that cannot seek, the index has a store of the events
// (evStore), in memory up to a bound or in a file. When it holds them
// all, fileOrder replaces the checkpoints with its own, taken from it at
// the end, each noting where every location's events start (starts,
// locs), and the regions and messages that span them are stored once
// (spans). For a stream whose times go back (a PICL file is in file
// order, not time order) no checkpoint is taken during the read; without
// a store every read of one starts at the beginning.
type index struct {
	defs     *model.Defs
	cps      []checkpoint
	every    int64
	asked    int64      // every as asked, before any thinning
	n        int64      // events seen
	lastN    int64      // n at the last checkpoint
	first    model.Time // the earliest time seen
	last     model.Time // the latest time seen
	started  bool
	monotone bool
	stacks   [][]openRegion // by LocID
	inColl   int            // locations whose innermost open region is a collective's
	wait     *waitingEnds
	unpaired map[endKey]int        // the message ends that wait for a partner at the trace's end
	nopen    int                   // open regions and pending ends stored in cps
	openMax  int                   // the bound of nopen in file order; 0 means maxOpen (tests set it)
	store    *evStore              // the events, for a format that cannot seek (nil: none)
	starts   []locStart            // in file order, with a store: where each location's events start (nil: in time order)
	ends     []locStart            // and the offset past each one's last event
	spans    *spans                // in file order: the regions and messages that span checkpoints (not in cps)
	paired   func(*export.Message) // nil, or given each message paired in the whole read
}

type checkpoint struct {
	time model.Time
	n    int64
	open []openRegion
	ends []model.Event // message ends waiting for their partner, by channel in order
	off  int64         // the store's offset of the event at the checkpoint
	prev model.Time    // the time of the stored event before it
	locs []locStart    // in file order (index.starts set): where each location's events from time on start
}

// chanKey is a channel of messages, as export.Pairer pairs them: the
// k-th send from one location to another with a tag on a communicator
// with the k-th receive.
type chanKey struct {
	from, to model.LocID
	tag      int32
	comm     model.CommID
}

// pendingEnds are the ends of a channel waiting for their partner: all
// sends or all receives.
type pendingEnds struct {
	recvs bool
	ends  []model.Event
}

// maxPending is export.Pairer's default bound on the ends it keeps.
const maxPending = 1 << 20

type openRegion struct {
	loc        model.LocID
	region     model.RegionID
	start      model.Time
	comm       model.CommID
	coll       bool // a collective (CollBegin)
	collRegion bool // a region of kind RegionCollective
}

const (
	maxCheckpoints = 4096
	maxOpen        = 1 << 21
	firstEvery     = 4096
)

// newIndex returns an empty index of the trace whose definitions are
// defs, a checkpoint every `every` events at first (0: firstEvery).
func newIndex(defs *model.Defs, every int64) *index {
	if every <= 0 {
		every = firstEvery
	}
	return &index{defs: defs, every: every, asked: every, monotone: true, wait: newEnds()}
}

// observe takes the next event of the whole read.
func (x *index) observe(ev *model.Event) {
	if x.started && ev.Time < x.last {
		x.monotone = false
		x.cps = nil
	}
	// No checkpoint at time 0: a window's To of 0 means no end.
	if x.monotone && x.started && ev.Time > x.last && ev.Time != 0 && x.n-x.lastN >= x.every && (x.inColl == 0 || x.n-x.lastN >= 2*x.every) {
		x.checkpoint(ev.Time)
	}
	if !x.started || ev.Time > x.last {
		x.last = ev.Time
	}
	if !x.started || ev.Time < x.first {
		x.first = ev.Time
	}
	x.started = true
	x.n++
	if x.store != nil {
		x.store.add(ev)
	}
	l := int(ev.Loc)
	for l >= len(x.stacks) {
		x.stacks = append(x.stacks, nil)
	}
	st := x.stacks[l]
	was := collTop(st)
	if ev.Kind == model.KindSend || ev.Kind == model.KindRecv {
		if m, ok := x.wait.add(ev); ok && x.paired != nil {
			x.paired(&m)
		}
	} else {
		x.stacks[l] = x.apply(st, ev)
	}
	if now := collTop(x.stacks[l]); now != was {
		if now {
			x.inColl++
		} else {
			x.inColl--
		}
	}
}

// apply returns the open regions st of a location after its event ev.
func (x *index) apply(st []openRegion, ev *model.Event) []openRegion {
	switch ev.Kind {
	case model.KindEnter:
		if ev.Region != 0 {
			r, _ := x.defs.Region(ev.Region)
			st = append(st, openRegion{loc: ev.Loc, region: ev.Region, start: ev.Time, collRegion: r.Kind == model.RegionCollective})
		}
	case model.KindCollBegin:
		st = append(st, openRegion{loc: ev.Loc, region: ev.Region, start: ev.Time, comm: ev.Comm, coll: true})
	case model.KindLeave, model.KindCollEnd:
		// As export.Timeline: a Leave ends the innermost open region, a
		// CollEnd the innermost open collective, with what is open inside.
		coll := ev.Kind == model.KindCollEnd
		i := len(st) - 1
		for i >= 0 && st[i].coll != coll {
			i--
		}
		if i >= 0 {
			st = st[:i]
		}
	}
	return st
}

// collTop reports whether the innermost region of st is a collective
// (or a collective's region).
func collTop(st []openRegion) bool {
	if len(st) == 0 {
		return false
	}
	top := &st[len(st)-1]
	return top.coll || top.collRegion
}

// waitingEnds are the message ends waiting for their partner, paired as
// export.Pairer pairs them, so that a read from a checkpoint, given those
// ends first, pairs the ends it reads as a read from the start.
type waitingEnds struct {
	chans map[chanKey]*pendingEnds
	n     int
}

func newEnds() *waitingEnds { return &waitingEnds{chans: map[chanKey]*pendingEnds{}} }

// add takes a Send or a Recv: when it completes a message (the oldest
// end of the other kind waiting on its channel), add returns the message
// and true; otherwise the end waits (an end of no peer is never kept).
func (w *waitingEnds) add(ev *model.Event) (export.Message, bool) {
	other, ok := w.pair(ev)
	if !ok {
		return export.Message{}, false
	}
	s, r := &other, ev
	if ev.Kind != model.KindRecv {
		s, r = r, s
	}
	return export.Message{From: s.Loc, To: r.Loc, Send: s.Time, Recv: r.Time, Bytes: s.Bytes, Tag: ev.Tag}, true
}

// pair takes a Send or a Recv: when it completes a message, pair returns
// the other end and true; otherwise the end waits, as add.
func (w *waitingEnds) pair(ev *model.Event) (model.Event, bool) {
	if ev.Peer == 0 {
		return model.Event{}, false
	}
	recv := ev.Kind == model.KindRecv
	k := chanKey{from: ev.Loc, to: ev.Peer, tag: ev.Tag, comm: ev.Comm}
	if recv {
		k.from, k.to = ev.Peer, ev.Loc
	}
	p := w.chans[k]
	if p == nil {
		p = &pendingEnds{recvs: recv}
		w.chans[k] = p
	}
	if len(p.ends) > 0 && p.recvs != recv {
		other := p.ends[0]
		p.ends = p.ends[1:]
		w.n--
		if len(p.ends) == 0 {
			delete(w.chans, k)
		}
		return other, true
	}
	p.recvs = recv
	if w.n >= maxPending && len(p.ends) > 0 {
		p.ends = p.ends[1:]
		w.n--
	}
	p.ends = append(p.ends, pendingOf(ev))
	w.n++
	return model.Event{}, false
}

// pendingOf is the message end ev as waitingEnds keeps it.
func pendingOf(ev *model.Event) model.Event {
	return model.Event{Time: ev.Time, Loc: ev.Loc, Kind: ev.Kind, Peer: ev.Peer, Tag: ev.Tag, Comm: ev.Comm, Bytes: ev.Bytes}
}

// endKey names a message end.
type endKey struct {
	time      model.Time
	loc, peer model.LocID
	kind      model.Kind
	tag       int32
	comm      model.CommID
}

func endKeyOf(ev *model.Event) endKey {
	return endKey{time: ev.Time, loc: ev.Loc, peer: ev.Peer, kind: ev.Kind, tag: ev.Tag, comm: ev.Comm}
}

// follow pairs the message ends of a window's read and counts those
// waiting that will find their partner: not those that wait at the
// trace's end (never: the index's), nor those whose partner's location
// the read leaves out (locs), which no read past the window's end would
// pair.
type follow struct {
	ends    *waitingEnds
	never   map[endKey]int
	locs    func(model.LocID) bool
	waiting int
}

// add takes a Send or a Recv, as waitingEnds.add.
func (f *follow) add(ev *model.Event) (export.Message, bool) {
	if ev.Peer == 0 || (f.locs != nil && !f.locs(ev.Peer)) {
		return export.Message{}, false
	}
	m, ok := f.ends.add(ev)
	if ok {
		f.waiting = max(f.waiting-1, 0)
	} else if f.never[endKeyOf(ev)] == 0 {
		f.waiting++
	}
	return m, ok
}

// all returns the ends waiting, by channel in order.
func (w *waitingEnds) all() []model.Event {
	var ends []model.Event
	for _, p := range w.chans {
		ends = append(ends, p.ends...)
	}
	return ends
}

// checkpoint records the state before the first event at time t.
func (x *index) checkpoint(t model.Time) {
	var open []openRegion
	for _, st := range x.stacks {
		open = append(open, st...)
	}
	ends := x.wait.all()
	c := checkpoint{time: t, n: x.n, open: open, ends: ends}
	if x.store != nil {
		c.off, c.prev = x.store.pos()
	}
	x.cps = append(x.cps, c)
	x.lastN = x.n
	x.nopen += len(open) + len(ends)
	x.thin()
}

// thin drops every other checkpoint, doubling the interval, while there
// are more than maxCheckpoints or more than maxOpen open regions and
// pending ends stored.
func (x *index) thin() {
	for len(x.cps) > maxCheckpoints || (x.nopen > maxOpen && len(x.cps) > 1) {
		kept := x.cps[:0]
		x.nopen = 0
		for i, c := range x.cps {
			if i%2 == 1 {
				kept = append(kept, c)
				x.nopen += len(c.open) + len(c.ends)
			}
		}
		clear(x.cps[len(kept):])
		x.cps = kept
		x.every *= 2
	}
}

// finish ends the whole read; a store past its bound is dropped.
func (x *index) finish() error {
	x.unpaired = map[endKey]int{}
	for _, e := range x.wait.all() {
		x.unpaired[endKeyOf(&e)]++
	}
	x.wait = nil
	defer func() { x.stacks = nil }()
	if x.store != nil {
		whole, err := x.store.finish()
		if err != nil {
			return err
		}
		if !whole {
			x.store = nil
		} else {
			return x.fileOrder()
		}
	}
	return nil
}

// spanIndex returns the checkpoints of span: i the last at or before
// from (-1: none), j the first after to (len(cps): none).
func (x *index) spanIndex(from, to model.Time) (i, j int) {
	i = sort.Search(len(x.cps), func(i int) bool { return x.cps[i].time > from }) - 1
	j = sort.Search(len(x.cps), func(i int) bool { return x.cps[i].time > to })
	return i, j
}

// span returns where a read of [from, to) starts (the last checkpoint at
// or before from, or the trace's start: time MinInt64) and ends (the first
// checkpoint after to, or the trace's end: time 0), with the events
// before each.
func (x *index) span(from, to model.Time) (start, stop checkpoint) {
	start = checkpoint{time: math.MinInt64}
	stop = checkpoint{n: x.n}
	i, j := x.spanIndex(from, to)
	if i >= 0 {
		start = x.cps[i]
		if x.spans != nil {
			start.open, start.ends = x.spans.open(i), x.spans.ends(i, j)
		}
	}
	if j < len(x.cps) {
		stop = x.cps[j]
		stop.open, stop.ends = nil, nil
	}
	return start, stop
}
