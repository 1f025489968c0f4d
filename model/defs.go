package model

import (
	"strconv"
	"strings"
)

// Location is one event stream of one thread of execution: a PICL
// (processor, process) pair, a DUMPI rank or one of its threads, an OTF
// process or thread, an OTF2 location.
//
// What a program needs to know about a location, the adapter says here,
// so that no program asks which format it read: which process it belongs
// to (Process, Thread), whether that process is an MPI rank (MPI), and
// whether its events are kept with those of other locations (Stream).
// Each format package's ModelSource documents how it fills them.
type Location struct {
	ID      LocID
	Native  int64  // the format's id (PICL processor, MPI rank, OTF process token)
	Name    string //
	Process int32  // process (rank); for threads the owning process
	Thread  int32  // thread within the process, 0 for the main thread
	Host    bool   // the host or controlling process (PICL processor 32767)

	// MPI says that the location belongs to a process of an MPI run,
	// the rank's own location or one of its threads, and that Process is
	// that rank in MPI_COMM_WORLD. Adapters set it where the files say
	// so: every location of a DUMPI trace, and the locations of OTF2
	// processes and OTF processes that the trace's world communicator
	// lists at the rank their Process already is. It is false where the
	// format does not tell (PICL, whose Process is the processor,
	// Chrome) or Process is not the rank. The wait-state analysis and
	// stats do not need it: they classify MPI calls by region
	// ([Region.MPI]) and ranks by communicator ([Comm.Members]).
	MPI bool

	// Stream is the location whose stream holds this location's events
	// when the format keeps the events of a process and its threads in
	// one stream, which a reader reads or skips as a whole, so that a
	// caller splitting the locations among readers (hpctrace's
	// Options.Locations) keeps a location where it keeps its Stream: for
	// a DUMPI rank and each of its threads, the rank's location. It is 0
	// where each location's events are kept apart or the format does not
	// tell.
	Stream LocID
}

// ByRank reports whether the trace records an MPI run rank by rank: it
// has locations and every location is an MPI rank's or one of its
// threads' (MPI) in the stream of its rank (Stream), as a DUMPI trace
// is. Programs name such locations ranks rather than processes.
func (d *Defs) ByRank() bool {
	locs := d.Locations()
	for i := range locs {
		if !locs[i].MPI || locs[i].Stream == 0 {
			return false
		}
	}
	return len(locs) > 0
}

// Region is a code region whose instances are bracketed by Enter and Leave
// events: a function, loop, MPI operation or PICL event type.
type Region struct {
	ID     RegionID
	Native int64 // the format's id (the PICL event type such as -52, the OTF function token)
	Name   string
	Kind   RegionKind
	Group  string // function group (OTF), empty if none
	File   string // source file, if known
	Line   int32  // source line of the region's definition, 0 if unknown

	// Paradigm is the programming model the region belongs to, as the
	// format records it (OTF2's paradigm, OTF's function group, DUMPI's
	// calls); ParadigmUnknown where the format does not say.
	Paradigm Paradigm
}

// MPI reports whether r's instances are MPI calls: its Paradigm is
// ParadigmMPI, or the format did not say (ParadigmUnknown) and its name
// starts with "MPI_". This is the one rule every consumer applies, so that
// the same trace in every format has the same MPI calls.
func (r *Region) MPI() bool {
	switch r.Paradigm {
	case ParadigmMPI:
		return true
	case ParadigmUnknown:
		return strings.HasPrefix(r.Name, "MPI_")
	}
	return false
}

// Paradigm is the programming model of a [Region].
type Paradigm uint8

// The paradigms. The list covers the groups viewers colour by; formats with
// finer paradigms (OTF2's) map the others to ParadigmOther.
const (
	ParadigmUnknown     Paradigm = iota // the format does not say
	ParadigmUser                        // application code: compiler or manual instrumentation, sampling
	ParadigmMPI                         // MPI
	ParadigmOpenMP                      // OpenMP
	ParadigmThreads                     // Pthreads and other thread libraries
	ParadigmAccelerator                 // CUDA, HIP, OpenCL, OpenACC
	ParadigmIO                          // file I/O (POSIX, ISO C, MPI-IO when not MPI)
	ParadigmMeasurement                 // the measurement system itself
	ParadigmOther                       // a paradigm none of the above names
)

var paradigmNames = [...]string{"unknown", "user", "mpi", "openmp", "threads", "accelerator", "io", "measurement", "other"}

// String returns the paradigm's lower-case name ("mpi", "openmp", …), or
// "Paradigm(n)" for an undefined value.
func (p Paradigm) String() string {
	if int(p) < len(paradigmNames) {
		return paradigmNames[p]
	}
	return "Paradigm(" + strconv.Itoa(int(p)) + ")"
}

// Site is a call statement or communication statement (the "line#" of Li and Zhang's records; doc/stats.md §2.3).
type Site struct {
	ID   SiteID
	File string
	Line int32
}

// Comm is a communicator or process group. The order of Members defines the
// ranks within it; nil Members means the membership is unknown.
//
// An intercommunicator has two groups: Members is one, Remote the other
// (nil for an intracommunicator). A location in one group names the ranks
// of the other in point-to-point calls; adapters resolve those ranks to
// locations, so consumers match messages by location and Comm alone.
//
// Self marks a communicator every location forms alone, as MPI's
// MPI_COMM_SELF: a collective on it involves only its caller, whichever
// location calls it, and Members and Remote are nil.
type Comm struct {
	ID      CommID
	Native  int64
	Name    string
	Members []LocID
	Remote  []LocID
	Self    bool
}

// Counter is a performance counter sampled by Counter events.
type Counter struct {
	ID           CounterID
	Native       int64
	Name         string
	Unit         string
	Accumulating bool // values are monotone totals rather than instantaneous readings
	// Float says that the counter's Event.Value holds the bits of an IEEE
	// 754 double (math.Float64frombits), as OTF2 metrics of type DOUBLE
	// do; otherwise Value is the integer itself.
	Float bool
}

// Subset is a named set of PICL event types (-1001 … and user subsets from
// -203 records). Its statistics are the plain sums of its members'.
type Subset struct {
	ID      SubsetID
	Native  int64
	Members []int64 // PICL event types
}

// RecordedKind says what a [Recorded] value measures.
type RecordedKind uint8

// The kinds of recorded statistics.
const (
	RecordedOther       RecordedKind = iota
	RecordedTime                     // cumulative time in ticks (PICL -101, OTF StatFunction incl)
	RecordedCount                    // occurrences (PICL -102, OTF StatFunction count, DUMPI calls encountered)
	RecordedVolume                   // bytes (PICL -103, OTF StatMessage bytes)
	RecordedExclTime                 // exclusive time in ticks (OTF StatFunction excl)
	RecordedNotProfiled              // calls encountered but not profiled (DUMPI footer)
)

var recordedKindNames = [...]string{"other", "time", "count", "volume", "excl_time", "not_profiled"}

// String returns the kind's lower-case name.
func (k RecordedKind) String() string {
	if int(k) < len(recordedKindNames) {
		return recordedKindNames[k]
	}
	return "RecordedKind(?)"
}

// Recorded is a statistic the trace itself stores (PICL -101/-102/-103, OTF
// summary records, DUMPI footer counts). Such values are validation data:
// package stats recomputes them from the events.
type Recorded struct {
	Kind       RecordedKind
	Loc        LocID    // location the statistic describes (0: whole trace)
	Time       Time     // the statistic is cumulative up to this time
	RelativeTo int64    // the region (by Native) the statistic is relative to, -1 for the whole trace (see [RelativeStats])
	Region     RegionID // the region (event type X) described, 0 if none
	Peer       LocID    // message statistics: the partner, 0 if none
	Value      int64    // ticks, count or bytes according to Kind
	Unknown    bool     // the trace marks the value as not measured
}

// Defs holds the definitions of a trace: locations, regions, sites,
// communicators, counters, subsets, recorded statistics, interned strings and
// the time base. Definitions are stored in slices indexed by id, so lookups
// are O(1) and allocate nothing.
//
// The zero value is an empty Defs ready to use. Readers add definitions as
// they meet them, always before the first event that uses them; a consumer
// holding the *Defs of a source sees them appear. A Defs is not safe for
// concurrent use while it is being extended.
type Defs struct {
	TimeBase TimeBase
	Bounds   Bounds     // the trace's first and last times, where the format records them
	Recorded []Recorded // statistics stored in the trace, in file order

	// Relative, if non-nil, says how the statistics relative to regions
	// that the trace records are defined (see [RelativeStats]). An
	// adapter whose format records such statistics sets it before the
	// first event; nil means the trace records none.
	Relative *RelativeStats

	locs     []Location // index = id; [0] unused
	regions  []Region
	sites    []Site
	comms    []Comm
	counters []Counter
	subsets  []Subset
	strings  []string // [0] = ""

	locNative     nativeIndex[LocID]
	regionNative  nativeIndex[RegionID]
	commNative    nativeIndex[CommID]
	counterNative nativeIndex[CounterID]
	siteIndex     map[Site]SiteID
	stringIndex   map[string]StringID

	// gen counts the definitions added, so that a Prefetcher notices new
	// ones with one comparison per event.
	gen uint64
}

func grow[T any](s []T) []T {
	if len(s) == 0 {
		var zero T
		s = append(s, zero)
	}
	return s
}

// AddLocation appends l with the next free id, which it returns; l.ID is
// ignored. A later Location with the same Native replaces the native mapping.
func (d *Defs) AddLocation(l Location) LocID {
	d.locs = grow(d.locs)
	l.ID = LocID(len(d.locs))
	d.locs = append(d.locs, l)
	d.gen++
	d.locNative.set(l.Native, l.ID)
	return l.ID
}

// Location returns the location with the given id and whether it exists.
func (d *Defs) Location(id LocID) (Location, bool) {
	if id == 0 || int(id) >= len(d.locs) {
		return Location{}, false
	}
	return d.locs[id], true
}

// LocationByNative returns the id of the location whose Native is n.
func (d *Defs) LocationByNative(n int64) (LocID, bool) {
	id, ok := d.locNative.get(n)
	return id, ok
}

// Locations returns all locations in id order. The slice is owned by d and
// must not be modified; it is valid until the next AddLocation.
func (d *Defs) Locations() []Location { return tail(d.locs) }

// NumLocations returns the number of locations; their ids are 1 … n.
func (d *Defs) NumLocations() int { return len(tail(d.locs)) }

// AddRegion appends r with the next free id, which it returns; r.ID is ignored.
func (d *Defs) AddRegion(r Region) RegionID {
	d.regions = grow(d.regions)
	r.ID = RegionID(len(d.regions))
	d.regions = append(d.regions, r)
	d.gen++
	d.regionNative.set(r.Native, r.ID)
	return r.ID
}

// Region returns the region with the given id and whether it exists.
func (d *Defs) Region(id RegionID) (Region, bool) {
	if id == 0 || int(id) >= len(d.regions) {
		return Region{}, false
	}
	return d.regions[id], true
}

// RegionByNative returns the id of the region whose Native is n.
func (d *Defs) RegionByNative(n int64) (RegionID, bool) {
	id, ok := d.regionNative.get(n)
	return id, ok
}

// Regions returns all regions in id order. The slice is owned by d and must
// not be modified; it is valid until the next AddRegion.
func (d *Defs) Regions() []Region { return tail(d.regions) }

// NumRegions returns the number of regions; their ids are 1 … n.
func (d *Defs) NumRegions() int { return len(tail(d.regions)) }

// AddSite returns the id of the site (file, line), adding it if it is new.
// s.ID is ignored.
func (d *Defs) AddSite(s Site) SiteID {
	s.ID = 0
	if id, ok := d.siteIndex[s]; ok {
		return id
	}
	d.sites = grow(d.sites)
	id := SiteID(len(d.sites))
	if d.siteIndex == nil {
		d.siteIndex = make(map[Site]SiteID)
	}
	d.siteIndex[s] = id
	s.ID = id
	d.sites = append(d.sites, s)
	d.gen++
	return id
}

// Site returns the site with the given id and whether it exists.
func (d *Defs) Site(id SiteID) (Site, bool) {
	if id == 0 || int(id) >= len(d.sites) {
		return Site{}, false
	}
	return d.sites[id], true
}

// Sites returns all sites in id order; the slice is owned by d.
func (d *Defs) Sites() []Site { return tail(d.sites) }

// AddComm appends c with the next free id, which it returns; c.ID is ignored.
func (d *Defs) AddComm(c Comm) CommID {
	d.comms = grow(d.comms)
	c.ID = CommID(len(d.comms))
	d.comms = append(d.comms, c)
	d.gen++
	d.commNative.set(c.Native, c.ID)
	return c.ID
}

// Comm returns the communicator with the given id and whether it exists.
func (d *Defs) Comm(id CommID) (Comm, bool) {
	if id == 0 || int(id) >= len(d.comms) {
		return Comm{}, false
	}
	return d.comms[id], true
}

// CommByNative returns the id of the communicator whose Native is n.
func (d *Defs) CommByNative(n int64) (CommID, bool) {
	id, ok := d.commNative.get(n)
	return id, ok
}

// Comms returns all communicators in id order; the slice is owned by d.
func (d *Defs) Comms() []Comm { return tail(d.comms) }

// AddCounter appends c with the next free id, which it returns; c.ID is ignored.
func (d *Defs) AddCounter(c Counter) CounterID {
	d.counters = grow(d.counters)
	c.ID = CounterID(len(d.counters))
	d.counters = append(d.counters, c)
	d.gen++
	d.counterNative.set(c.Native, c.ID)
	return c.ID
}

// Counter returns the counter with the given id and whether it exists.
func (d *Defs) Counter(id CounterID) (Counter, bool) {
	if id == 0 || int(id) >= len(d.counters) {
		return Counter{}, false
	}
	return d.counters[id], true
}

// CounterByNative returns the id of the counter whose Native is n.
func (d *Defs) CounterByNative(n int64) (CounterID, bool) {
	id, ok := d.counterNative.get(n)
	return id, ok
}

// Counters returns all counters in id order; the slice is owned by d.
func (d *Defs) Counters() []Counter { return tail(d.counters) }

// AddSubset appends s with the next free id, which it returns; s.ID is ignored.
func (d *Defs) AddSubset(s Subset) SubsetID {
	d.subsets = grow(d.subsets)
	s.ID = SubsetID(len(d.subsets))
	d.subsets = append(d.subsets, s)
	d.gen++
	return s.ID
}

// Subset returns the subset with the given id and whether it exists.
func (d *Defs) Subset(id SubsetID) (Subset, bool) {
	if id == 0 || int(id) >= len(d.subsets) {
		return Subset{}, false
	}
	return d.subsets[id], true
}

// Subsets returns all subsets in id order; the slice is owned by d.
func (d *Defs) Subsets() []Subset { return tail(d.subsets) }

// Intern returns the id of s in the string table, adding it if it is new.
// The empty string is always id 0. Looking up an existing string with
// Intern(string(b)) does not allocate.
func (d *Defs) Intern(s string) StringID {
	if s == "" {
		return 0
	}
	if id, ok := d.stringIndex[s]; ok {
		return id
	}
	if d.stringIndex == nil {
		d.stringIndex = make(map[string]StringID)
	}
	d.strings = grow(d.strings)
	id := StringID(len(d.strings))
	d.strings = append(d.strings, s)
	d.stringIndex[s] = id
	d.gen++
	return id
}

// InternBytes is like Intern(string(b)) but allocates only when b is new.
func (d *Defs) InternBytes(b []byte) StringID {
	if len(b) == 0 {
		return 0
	}
	if id, ok := d.stringIndex[string(b)]; ok {
		return id
	}
	return d.Intern(string(b))
}

// String returns the interned string with the given id; unknown ids give "".
func (d *Defs) String(id StringID) string {
	if int(id) >= len(d.strings) {
		return ""
	}
	return d.strings[id]
}

func tail[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s[1:]
}

// denseNatives bounds the native ids a nativeIndex keeps in its slice,
// with twice the number of ids set: formats number processes, functions
// and communicators from small integers, so the slice serves nearly every
// lookup, a run of a million ranks too; it costs at most 4 bytes per
// native below the largest one seen, at most 256 KiB and 8 bytes per id
// set.
const denseNatives = 1 << 16

// A nativeIndex maps a format's own ids to dense ids: a slice indexed by the
// native id for small non-negative ones, a map for the rest. A lookup is one
// bounds check in the common case, which matters to adapters that resolve
// several natives per event. The zero value is empty.
type nativeIndex[ID ~uint32] struct {
	dense []ID // dense[n] is the id of native n; 0 means none
	other map[int64]ID
	n     int // ids set
}

func (x *nativeIndex[ID]) set(n int64, id ID) {
	x.n++
	if n >= 0 && n < denseNatives+2*int64(x.n) {
		delete(x.other, n) // set when n was beyond the slice
		if int(n) >= len(x.dense) {
			x.dense = append(x.dense, make([]ID, int(n)+1-len(x.dense))...)
		}
		x.dense[n] = id
		return
	}
	if x.other == nil {
		x.other = make(map[int64]ID)
	}
	x.other[n] = id
}

func (x *nativeIndex[ID]) get(n int64) (ID, bool) {
	if uint64(n) < uint64(len(x.dense)) {
		if id := x.dense[n]; id != 0 {
			return id, true
		}
	}
	if x.other == nil {
		return 0, false
	}
	id, ok := x.other[n]
	return id, ok
}
