package stats

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hpctrace/hpctrace/model"
)

// Report is the result of Finalize. It marshals to JSON with the key names
// and layout of the expected reports (stats/testdata/*/expected.json): "final" holds
// the statistics at the end of the stream, "samples" the interval samples
// keyed by time, "gprof_average_estimate" what gprof's rule would attribute
// to each call site. Regions appear by name (their model ids are not
// marshalled).
//
// # Locations
//
// A location is identified by its [model.LocID], in the Go API (the LocID,
// PeerID, SenderID, ReceiverID and ArgMaxID fields) and in every output of
// the SDK and its programs: JSON "loc_id" (and "peer_id", "sender_id",
// "receiver_id", "argmax_loc_id"), the "loc_id" column of package export's
// CSV and Parquet tables, package waitstate's JSON. Beside it, for a
// person, each row carries the location's native id (the MPI rank, PICL
// node or OTF process; JSON "loc", "peer", …), which the text report
// prints. "locations" lists every location of the trace: its model id,
// native id, name and kind, so that a reader can tell processes, threads
// and ranks apart; [Report.Location] looks one up. Scope names ("loc<N>")
// use the native id.
//
// # Names that are not UTF-8
//
// JSON strings are UTF-8, but traces carry names in the bytes their
// producer wrote (a code traced on a KOI8-R system has KOI8-R function
// names). A region or location name that is not valid UTF-8 is therefore
// written escaped, so that no byte is lost: each byte that is not part of a
// valid UTF-8 sequence becomes \xHH (a backslash, "x" and two lower-case
// hex digits) and each backslash of the name becomes \\; [RawName]
// recovers the bytes. Names that are valid UTF-8 are written as they are.
type Report struct {
	TicksPerSecond       uint64          `json:"ticks_per_second"`
	Locations            []LocationInfo  `json:"locations"`
	Final                Final           `json:"final"`
	Samples              Samples         `json:"samples,omitempty"`
	GprofAverageEstimate []GprofEstimate `json:"gprof_average_estimate"`
}

// Final holds the statistics at the end of the stream. Tables are sorted by
// their key tuple of ids (doc/stats.md §3.5); ranked views by rank.
type Final struct {
	Diagnostics    Diagnostics          `json:"diagnostics"`
	Functions      []Function           `json:"functions"`
	Callsites      []Callsite           `json:"callsites"`
	Proc           Scoped[[]Proc]       `json:"proc"`
	Groups         Scoped[[]Group]      `json:"groups"`
	DrillDown      Scoped[DrillTree]    `json:"drilldown"`
	HotPath        Scoped[[]HotStep]    `json:"hot_path"`
	Loops          []Loop               `json:"loops"`
	Com            []Com                `json:"com"`
	TransferTime   []Transfer           `json:"transfer_time"`
	MatrixSend     []MatrixEntry        `json:"matrix_send_side"`
	MatrixRecv     []MatrixEntry        `json:"matrix_recv_side"`
	SizeHistogram  []SizeBin            `json:"size_histogram_log2"`
	Imbalance      Imbalances           `json:"imbalance"`
	SiteImbalance  []SiteImbalance      `json:"site_imbalance"` // call sites, COM records and collectives
	Idle           []Idle               `json:"idle,omitempty"`
	Collectives    []CollectiveInstance `json:"collectives"`
	CollectiveSums []CollectiveSum      `json:"collective_sums"`
	Relative       *RelativeReport      `json:"picl,omitempty"`
	MPI            *MPIProfile          `json:"mpi"` // mpiP's view: MPI time per location and per call site
	// Counters summarises every counter per location (samples, extremes,
	// mean, rate), by location then counter; absent without counters.
	Counters []CounterSummary `json:"counters,omitempty"`

	nseen int // the locations with events, as Finalize counted them; 0 if not built by it
	// textFlat is the flat profile of FinalTextReport, summed over
	// locations, in the place of Functions: what WriteText prints of it.
	textFlat []flatRow
	// textImb is the load imbalance of exclusive time of FinalTextReport,
	// by region, in the place of Imbalance: what WriteText prints of it,
	// a third of an Imbalance row.
	textImb []textImb
}

// textImb is what the text report prints of a region's load imbalance of
// exclusive time (Imbalance.Excl).
type textImb struct {
	region          string
	max             int64
	mean, cov, lost F6
	ratio           F6 // valid if hasRatio
	hasRatio        bool
	argMax          int64 // ArgMaxLoc
}

// LocationsWithEvents returns the number of locations with events: as
// Finalize counted them, or, for a Final it did not build (read back from
// JSON), one less than the scopes of HotPath (every such location and
// "all").
func (f *Final) LocationsWithEvents() int {
	if f.nseen > 0 || len(f.HotPath) == 0 {
		return f.nseen
	}
	return len(f.HotPath) - 1
}

// Function is the flat profile of one region on one location (doc/stats.md §4.2).
// Times are ticks.
type Function struct {
	LocID             model.LocID    `json:"loc_id"`
	Loc               int64          `json:"loc"`
	RegionID          model.RegionID `json:"-"`
	Region            string         `json:"region"`
	Visits            int64          `json:"visits"`
	Incl              model.Time     `json:"incl"` // time the region is on the stack (outermost activation only)
	Excl              model.Time     `json:"excl"`
	InclActivationSum model.Time     `json:"incl_activation_sum"` // sum over activations (otfprofile's inclusive)
	Min               model.Time     `json:"-"`                   // shortest closed instance
	Max               model.Time     `json:"-"`                   // longest closed instance
}

// Callsite is a call-site edge (location, caller, site, callee) (doc/stats.md §4.3).
type Callsite struct {
	LocID    model.LocID    `json:"loc_id"`
	Loc      int64          `json:"loc"`
	CallerID model.RegionID `json:"-"`
	Caller   string         `json:"caller"` // "<root>" for none
	SiteID   model.SiteID   `json:"-"`
	Site     int32          `json:"site"` // source line, 0 if unknown
	CalleeID model.RegionID `json:"-"`
	Callee   string         `json:"callee"`
	Count    int64          `json:"count"`
	Incl     model.Time     `json:"incl"`
	Excl     model.Time     `json:"excl"`
	Min      model.Time     `json:"min"`
	Max      model.Time     `json:"max"`
}

// Proc is a PROC record of Li and Zhang (doc/stats.md §4.4): one external call edge of a recursion group.
type Proc struct {
	Procedure string         `json:"procedure"` // the group's name (members joined by "+")
	CallerID  model.RegionID `json:"-"`
	Caller    string         `json:"caller"`
	SiteID    model.SiteID   `json:"-"`
	Site      int32          `json:"site"`
	CalleeID  model.RegionID `json:"-"`
	Callee    string         `json:"callee"`
	ProcTime  model.Time     `json:"proc_time"`
	ProcNum   int64          `json:"proc_num"`
}

// Group is a recursion group: a strongly connected component of the call
// graph (doc/stats.md §4.4).
type Group struct {
	MemberIDs      []model.RegionID `json:"-"`
	Members        []string         `json:"members"`
	Recursive      bool             `json:"recursive"`
	ExternalCalls  int64            `json:"external_calls"`
	RecursiveCalls int64            `json:"recursive_calls"`
	Incl           model.Time       `json:"incl"`
	Excl           model.Time       `json:"excl"`
}

// DrillTree is the top-down drill-down of one scope (doc/stats.md §8): the calls from
// the root.
type DrillTree struct {
	Calls []DrillCall `json:"calls"`
}

// IsCom reports whether the call is a communication statement with COM
// records (SyncDelay and TransTime apply).
func (c *DrillCall) IsCom() bool { return c.hasCom }

// DrillCall is one outgoing edge of a drill-down node: a call, loop,
// communication statement or collective, aggregated over the callers in the
// node's group.
type DrillCall struct {
	SiteID    model.SiteID   `json:"-"`
	Site      int32          `json:"site"`
	CalleeID  model.RegionID `json:"-"`
	Callee    string         `json:"callee"`
	Kind      string         `json:"kind"`
	Incl      model.Time     `json:"incl"`
	Count     int64          `json:"count"`
	SyncDelay model.Time     `json:"-"` // communication statements: COM sums over the callers and peers
	TransTime model.Time     `json:"-"`
	hasCom    bool
	Body      *DrillBody `json:"body,omitempty"` // nil when the group is already on the path or too deep
}

// DrillBody is the expansion of a callee's recursion group, over all its callers.
type DrillBody struct {
	Calls []DrillCall `json:"calls"`
	Group string      `json:"group"`
	Incl  model.Time  `json:"incl"`
	Excl  model.Time  `json:"excl"`
}

// HotStep is one step of the hot path.
type HotStep struct {
	Site     int32          `json:"site"`
	CalleeID model.RegionID `json:"-"`
	Callee   string         `json:"callee"`
	Incl     model.Time     `json:"incl"`
}

// Loop is a LOOP record of Li and Zhang (doc/stats.md §4.5).
type Loop struct {
	LocID    model.LocID    `json:"loc_id"`
	Loc      int64          `json:"loc"`
	RegionID model.RegionID `json:"-"`
	Loop     string         `json:"loop"`
	Line     int32          `json:"line"`
	LoopTime model.Time     `json:"loop_time"` // summed Incl of the edges entering the loop
	LoopNum  int64          `json:"loop_num"`  // times the loop statement was executed
}

// Com is a COM record of Li and Zhang (doc/stats.md §5.4).
//
// SyncDelay is Li and Zhang's name for a wait that package waitstate
// reports under Scalasca's: on the receive side it is late_sender (summed
// per location over receives in MPI calls other than MPI_Test*, the two
// agree); the sender side of a synchronous send corresponds to
// late_receiver, which measures from the receive's posting call. waitstate
// adds the call paths, the causes (delay costs) and the collective
// patterns.
type Com struct {
	LocID     model.LocID    `json:"loc_id"`
	Loc       int64          `json:"loc"`
	CallerID  model.RegionID `json:"-"`
	Caller    string         `json:"caller"`
	SiteID    model.SiteID   `json:"-"`
	Site      int32          `json:"site"`
	OpID      model.RegionID `json:"-"`
	Op        string         `json:"op"`
	PeerID    model.LocID    `json:"peer_id"` // 0: no known partner (Diagnostics.UnknownPeer)
	Peer      int64          `json:"peer"`    // native id; -1: no known partner
	Dir       string         `json:"dir"`     // "send" or "recv"
	Count     int64          `json:"count"`
	Bytes     int64          `json:"bytes"`
	SyncDelay model.Time     `json:"sync_delay"`
	TransTime model.Time     `json:"trans_time"`
	Matched   int64          `json:"matched"`
}

// Transfer sums recv time - send time over matched messages (doc/stats.md §5.5).
type Transfer struct {
	SenderID   model.LocID `json:"sender_id"`
	Sender     int64       `json:"sender"`
	ReceiverID model.LocID `json:"receiver_id"`
	Receiver   int64       `json:"receiver"`
	Sum        model.Time  `json:"sum"`
	N          int64       `json:"n"`
	Backward   int64       `json:"backward"` // messages with transfer <= 0, excluded
}

// MatrixEntry is one cell of a communication matrix.
type MatrixEntry struct {
	SenderID   model.LocID `json:"sender_id"`
	Sender     int64       `json:"sender"`
	ReceiverID model.LocID `json:"receiver_id"`
	Receiver   int64       `json:"receiver"`
	Count      int64       `json:"count"`
	Bytes      int64       `json:"bytes"`
}

// SizeBin is a bin of the log2 message-size histogram over Send events:
// bin 0 holds empty messages, bin k >= 1 sizes in [2^(k-1), 2^k - 1].
type SizeBin struct {
	Bin   int   `json:"bin"`
	Lo    int64 `json:"lo"`
	Hi    int64 `json:"hi"`
	Count int64 `json:"count"`
	Bytes int64 `json:"bytes"`
}

// CollectiveSum sums the collective instances of one (location, region, site).
type CollectiveSum struct {
	LocID    model.LocID    `json:"loc_id"`
	Loc      int64          `json:"loc"`
	RegionID model.RegionID `json:"-"`
	Op       string         `json:"op"`
	SiteID   model.SiteID   `json:"-"`
	Site     int32          `json:"site"`
	Count    int64          `json:"count"`
	Duration model.Time     `json:"duration"`
	Wait     model.Time     `json:"wait"`
	Sent     int64          `json:"sent"`
	Recvd    int64          `json:"recvd"`
}

// GprofEstimate compares a call site's measured inclusive time with what
// gprof's average-time rule would attribute to it.
type GprofEstimate struct {
	LocID         model.LocID `json:"loc_id"`
	Loc           int64       `json:"loc"`
	Caller        string      `json:"caller"`
	Site          int32       `json:"site"`
	Callee        string      `json:"callee"`
	MeasuredIncl  model.Time  `json:"measured_incl"`
	GprofEstimate F6          `json:"gprof_estimate"`
}

// F6 is a float64 that marshals rounded to 6 decimal places.
type F6 float64

// MarshalJSON writes f rounded to 6 decimals; NaN and infinities as null.
func (f F6) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, math.Round(v*1e6)/1e6, 'f', -1, 64), nil
}

// Scoped is a list of values per scope ("loc<N>" for one location by native
// id, "all" for every location merged) that marshals as a JSON object in
// list order.
type Scoped[T any] []ScopeValue[T]

// ScopeValue is the value of one scope.
type ScopeValue[T any] struct {
	Scope string
	Value T
}

// Get returns the value of a scope.
func (s Scoped[T]) Get(scope string) (T, bool) {
	for _, v := range s {
		if v.Scope == scope {
			return v.Value, true
		}
	}
	var zero T
	return zero, false
}

// MarshalJSON writes the scopes as an object in order.
func (s Scoped[T]) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, v := range s {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(v.Scope)
		b.Write(k)
		b.WriteByte(':')
		val, err := json.Marshal(v.Value)
		if err != nil {
			return nil, err
		}
		b.Write(val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Samples are interval samples in time order; they marshal as an object
// keyed by the decimal time.
type Samples []Sample

// MarshalJSON writes the samples as an object keyed by time.
func (s Samples) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, v := range s {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + strconv.FormatInt(int64(v.Time), 10) + `":`)
		val, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		b.Write(val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// ImbalanceStat describes how a metric is spread over the locations of a
// scope (doc/stats.md §7); locations where the region never ran count as 0.
// Max and Min are in the metric's unit: ticks for a time (Excl, Incl,
// SyncDelay, Wait; convert with model.Time), a count for Visits, so they
// are int64 rather than [model.Time].
type ImbalanceStat struct {
	Max              int64       `json:"max"`
	Min              int64       `json:"min"`
	Mean             F6          `json:"mean"`
	ImbalanceRatio   *F6         `json:"imbalance_ratio"`   // Max / Mean; nil when Mean = 0
	PercentImbalance *F6         `json:"percent_imbalance"` // (Max / Mean - 1) x 100; nil when Mean = 0
	COV              F6          `json:"cov"`               // sample standard deviation / Mean
	Lost             F6          `json:"lost"`              // Max - Mean
	ArgMaxID         model.LocID `json:"argmax_loc_id"`
	ArgMaxLoc        int64       `json:"argmax_loc"` // lowest location on ties
}

// Imbalance is the load imbalance of one region for Excl, Incl and Visits.
type Imbalance struct {
	RegionID model.RegionID
	Region   string
	Excl     ImbalanceStat
	Incl     ImbalanceStat
	Visits   ImbalanceStat
}

// Imbalances marshals as an object keyed by region name, in region id order,
// with the "excl" and "incl" statistics of the expected reports' layout (Visits is in
// the API only).
type Imbalances []Imbalance

// MarshalJSON writes the imbalances as an object keyed by region name.
func (s Imbalances) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, v := range s {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(v.Region)
		b.Write(k)
		b.WriteByte(':')
		val, err := json.Marshal(struct {
			Excl ImbalanceStat `json:"excl"`
			Incl ImbalanceStat `json:"incl"`
		}{v.Excl, v.Incl})
		if err != nil {
			return nil, err
		}
		b.Write(val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// locVal is the value of one location for imbalance: pos indexes the seen
// locations.
type locVal struct {
	pos int
	v   int64
}

// imbalance computes the statistic over the n = len(locs) seen locations
// from the values of those present in vals (sorted by pos, each pos at most
// once); absent locations count as 0. Its cost is proportional to len(vals),
// not to n.
func imbalance(vals []locVal, locs []model.LocID, defs *model.Defs) ImbalanceStat {
	a := newImbAcc()
	for _, x := range vals {
		a.add(x.pos, x.v)
	}
	mean := a.mean(len(locs))
	for _, x := range vals {
		a.square(x.v, mean)
	}
	return a.stat(locs, defs)
}

// An imbAcc accumulates the statistic of imbalance from the values of the
// present locations, given in the order of their positions, without
// keeping them: add each value, then square each again (in the same
// order) with the mean, then stat.
type imbAcc struct {
	n      int32 // the values added
	absent int32 // the first absent position; -1 while every position so far is present
	arg    int32 // the position of the first largest value
	max    int64
	min    int64
	sum    int64
	ss     float64 // the squared deviations from the mean (square)
}

func newImbAcc() imbAcc { return imbAcc{absent: -1, arg: -1} }

// add adds the value v of the location at position pos, which is above
// the positions added before.
func (a *imbAcc) add(pos int, v int64) {
	if a.absent < 0 && pos != int(a.n) {
		a.absent = a.n
	}
	if a.n == 0 || v > a.max {
		a.max, a.arg = v, int32(pos)
	}
	if a.n == 0 || v < a.min {
		a.min = v
	}
	a.sum += v
	a.n++
}

// mean returns the mean over n locations.
func (a *imbAcc) mean(n int) float64 { return float64(a.sum) / float64(n) }

// square adds the squared deviation of v from mean.
func (a *imbAcc) square(v int64, mean float64) {
	d := float64(v) - mean
	a.ss += d * d
}

// stat returns the statistic over the seen locations locs.
func (a *imbAcc) stat(locs []model.LocID, defs *model.Defs) ImbalanceStat {
	s, ratio, pct, ok := a.values(locs, defs)
	if ok {
		s.ImbalanceRatio, s.PercentImbalance = &ratio, &pct
	}
	return s
}

// values returns the statistic over the seen locations locs, but for its
// ImbalanceRatio and PercentImbalance, which it returns apart, with ok
// false when they are nil (a mean of 0), without allocating them.
func (a *imbAcc) values(locs []model.LocID, defs *model.Defs) (s ImbalanceStat, ratio, pct F6, ok bool) {
	n := len(locs)
	if n == 0 {
		return s, 0, 0, false
	}
	// The first absent position, n if none.
	absent := int(a.absent)
	if absent < 0 {
		absent = int(a.n)
	}
	s.Max, s.Min = a.max, a.min
	arg := int(a.arg)
	if absent < n {
		switch {
		case a.n == 0 || 0 > s.Max:
			s.Max, arg = 0, absent
		case s.Max == 0:
			arg = min(arg, absent)
		}
		s.Min = min(s.Min, 0)
		if a.n == 0 {
			s.Min = 0
		}
	}
	s.ArgMaxID = locs[arg]
	l, _ := defs.Location(s.ArgMaxID)
	s.ArgMaxLoc = l.Native
	mean := a.mean(n)
	s.Mean = F6(mean)
	s.Lost = F6(float64(s.Max) - mean)
	if mean != 0 {
		ratio, pct, ok = F6(float64(s.Max)/mean), F6((float64(s.Max)/mean-1)*100), true
		if n >= 2 {
			ss := a.ss + float64(n-int(a.n))*mean*mean
			s.COV = F6(math.Sqrt(ss/float64(n-1)) / mean)
		}
	}
	return s, ratio, pct, ok
}

// namer resolves ids for presentation.
type namer struct{ d *model.Defs }

func (n namer) region(id model.RegionID) string {
	if id == 0 {
		return "<root>"
	}
	r, ok := n.d.Region(id)
	if !ok {
		return "region#" + strconv.FormatUint(uint64(id), 10)
	}
	if r.Name == "" {
		return strconv.FormatInt(r.Native, 10)
	}
	return escapeName(r.Name)
}

func (n namer) kind(id model.RegionID) model.RegionKind {
	r, _ := n.d.Region(id)
	return r.Kind
}

func (n namer) loc(id model.LocID) int64 {
	if id == 0 {
		return -1 // no location: a message end without a known partner
	}
	if l, ok := n.d.Location(id); ok {
		return l.Native
	}
	return int64(id)
}

func (n namer) site(id model.SiteID) int32 {
	s, _ := n.d.Site(id)
	return s.Line
}

func (n namer) comm(id model.CommID) int64 {
	if c, ok := n.d.Comm(id); ok {
		return c.Native
	}
	return int64(id)
}

func (a *Accumulator) function(loc model.LocID, r model.RegionID, fs *funcStat) Function {
	nm := namer{a.defs}
	return Function{
		LocID: loc, Loc: nm.loc(loc), RegionID: r, Region: nm.region(r),
		Visits: fs.visits, Incl: model.Time(fs.incl), Excl: model.Time(fs.excl), InclActivationSum: model.Time(fs.actSum), Min: model.Time(fs.min), Max: model.Time(fs.max),
	}
}

func cmpKey(a, b edgeKey) int {
	return cmp.Or(cmp.Compare(a.loc, b.loc), cmp.Compare(a.caller, b.caller), cmp.Compare(a.site, b.site), cmp.Compare(a.callee, b.callee))
}

// SiteImbalance is the load imbalance of one statement over the locations
// (doc/stats.md §7): a call-site edge (metric Incl), a communication statement
// (metric SyncDelay of its COM records, summed over peers) or a collective
// call (metric Wait).
type SiteImbalance struct {
	Kind     string         `json:"kind"` // "call", "com" or "collective"
	CallerID model.RegionID `json:"-"`
	Caller   string         `json:"caller"`
	SiteID   model.SiteID   `json:"-"`
	Site     int32          `json:"site"`
	CalleeID model.RegionID `json:"-"`
	Callee   string         `json:"callee"` // the callee, operation or collective region
	Metric   string         `json:"metric"` // "incl", "sync_delay" or "wait"
	Stat     ImbalanceStat  `json:"stat"`
}

// Idle is the idle time of one location: the summed Incl of the regions of
// Options.IdleRegions (pipit's idle_time).
type Idle struct {
	LocID model.LocID `json:"loc_id"`
	Loc   int64       `json:"loc"`
	Idle  model.Time  `json:"idle"`
}

// LocationInfo describes one location of the trace in a [Report].
type LocationInfo struct {
	LocID   model.LocID `json:"loc_id"`
	Loc     int64       `json:"loc"`  // native id, as beside LocID in the report's tables
	Name    string      `json:"name"` // escaped if not UTF-8 (see [Report])
	Kind    string      `json:"kind"` // "process", "thread" or "host"
	Process int32       `json:"process"`
	Thread  int32       `json:"thread"` // 0 for a process's main thread
}

// Location returns the description of location id: its native id, name
// and kind. It reports false for an id the report does not list.
func (r *Report) Location(id model.LocID) (LocationInfo, bool) {
	// Locations are in id order, usually dense from 1.
	if i := int(id) - 1; i >= 0 && i < len(r.Locations) && r.Locations[i].LocID == id {
		return r.Locations[i], true
	}
	for _, l := range r.Locations {
		if l.LocID == id {
			return l, true
		}
	}
	return LocationInfo{}, false
}

// locationTable lists the locations of d in id order.
func locationTable(d *model.Defs) []LocationInfo {
	out := []LocationInfo{}
	for _, l := range d.Locations() {
		k := "process"
		switch {
		case l.Host:
			k = "host"
		case l.Thread > 0:
			k = "thread"
		}
		out = append(out, LocationInfo{LocID: l.ID, Loc: l.Native, Name: escapeName(l.Name), Kind: k, Process: l.Process, Thread: l.Thread})
	}
	return out
}

// escapeName returns s if it is valid UTF-8, else s with each byte that is
// not part of a valid UTF-8 sequence written \xHH and each backslash \\.
func escapeName(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case r == '\\':
			b.WriteString(`\\`)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// RawName returns the bytes of a region or location name as a [Report]
// writes it: a name with \xHH escapes (one that was not valid UTF-8) is
// unescaped, \\ becoming one backslash; any other name is returned as it
// is. A name that is valid UTF-8 and happens to contain \xHH is
// indistinguishable from an escaped one.
func RawName(name string) string {
	if !strings.Contains(name, `\x`) {
		return name
	}
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c == '\\' && i+1 < len(name) {
			if name[i+1] == '\\' {
				b.WriteByte('\\')
				i++
				continue
			}
			if name[i+1] == 'x' && i+3 < len(name) {
				if v, err := strconv.ParseUint(name[i+2:i+4], 16, 8); err == nil {
					b.WriteByte(byte(v))
					i += 3
					continue
				}
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}
