package waitstate

import (
	"strconv"

	"github.com/hpctrace/hpctrace/model"
)

// Pattern is a wait-state pattern or a derived view of one (doc/waitstates.md §2, §3.4).
type Pattern uint8

// The patterns, in the order of the metric hierarchy (doc/waitstates.md §2.3).
// The derived views of late_sender and late_receiver (direct/indirect,
// propagating/terminal) each partition their pattern's time.
const (
	PatternUnknown Pattern = iota
	InitCompletion
	WaitFinalize
	WaitBarrier
	BarrierCompletion
	LateSender
	LateSenderWrongOrder
	LateReceiver
	EarlyReduce
	EarlyScan
	LateBroadcast
	WaitNxN
	NxNCompletion
	// The completion waits of MPI-3 non-blocking collectives, which
	// Scalasca does not analyse (doc/waitstates.md §2.6).
	WaitIBarrier
	WaitINxN
	LateIBroadcast
	EarlyIReduce
	EarlyIScan
	LateSenderDirect
	LateSenderIndirect
	LateSenderPropagating
	LateSenderTerminal
	LateReceiverDirect
	LateReceiverIndirect
	LateReceiverPropagating
	LateReceiverTerminal
	numPatterns
)

var patternNames = [numPatterns]string{
	"unknown", "init_completion", "wait_finalize", "wait_barrier", "barrier_completion",
	"late_sender", "late_sender_wrong_order", "late_receiver",
	"early_reduce", "early_scan", "late_broadcast", "wait_nxn", "nxn_completion",
	"wait_ibarrier", "wait_inxn", "late_ibroadcast", "early_ireduce", "early_iscan",
	"late_sender_direct", "late_sender_indirect", "late_sender_propagating", "late_sender_terminal",
	"late_receiver_direct", "late_receiver_indirect", "late_receiver_propagating", "late_receiver_terminal",
}

// String returns the pattern's snake-case name as the report's JSON uses it
// ("late_sender", …), or "Pattern(n)" for an undefined value.
func (p Pattern) String() string {
	if p < numPatterns {
		return patternNames[p]
	}
	return "Pattern(" + strconv.Itoa(int(p)) + ")"
}

// ParsePattern returns the pattern named s and whether there is one.
func ParsePattern(s string) (Pattern, bool) {
	for i, n := range patternNames {
		if i > 0 && n == s {
			return Pattern(i), true
		}
	}
	return 0, false
}

// Report is the result of the analysis of a whole trace.
type Report struct {
	// TimeBase is the trace's clock.
	TimeBase model.TimeBase
	// Total is the sum over locations of the time from their first to
	// their last event: the "Time" at the root of the metric hierarchy,
	// against which percentages are taken.
	Total model.Time
	// MPI is the time spent in MPI calls (outermost calls only), summed
	// over locations: the "MPI" node of the metric hierarchy.
	MPI model.Time
	// WaitStates has one row per (pattern, location, call path of the
	// MPI call charged), sorted by pattern, location, call path; rows
	// with time 0 are left out.
	WaitStates []WaitState
	// DelayCosts has one row per (pattern of the wait, delaying location,
	// delaying call path), sorted likewise.
	DelayCosts []DelayCost
	// CriticalPath is the chain of activities that set the run's wall
	// time (doc/waitstates.md §4).
	CriticalPath CriticalPath
	// Top holds the most severe instances of each pattern of
	// doc/waitstates.md §2 (late_sender_wrong_order included, the derived
	// views not), most severe first (ties: earlier, then lower location),
	// at most Options.TopN per pattern, in pattern order.
	Top []Instance
	// CriticalSegments is the critical path as it runs through the
	// locations, in time order: one segment per stretch spent on one
	// location between two hand-overs (doc/waitstates.md §4). Their
	// lengths sum to CriticalPath.Length, and those on a location to its
	// CriticalPath.Locations time. Segments of zero length are left out.
	CriticalSegments []CriticalSegment
	// Instances holds every instance, in the order of the function
	// Instances, when Options.Instances asked for them; nil otherwise.
	Instances []Instance
	// Diagnostics counts what could not be analysed.
	Diagnostics Diagnostics
}

// WaitState is one row of the wait-state table.
type WaitState struct {
	Pattern  Pattern
	Loc      model.LocID
	CallPath string     // region names from the outermost open region to the charged call, joined by "/"
	Time     model.Time // ticks
	Count    int64      // instances with time > 0
}

// DelayCost is one row of the delay-cost table: the waiting time that
// excess work on Loc in CallPath caused (doc/waitstates.md §3.3).
type DelayCost struct {
	Pattern   Pattern // the pattern of the waits it caused
	Loc       model.LocID
	CallPath  string
	ShortTerm float64 // ticks
	LongTerm  float64 // ticks
}

// CriticalPath describes the critical path.
type CriticalPath struct {
	Length    model.Time
	Profile   []CriticalRegion   // by region name, sorted by name
	Locations []CriticalLocation // by location id
}

// CriticalRegion is the time a region spends on the critical path.
type CriticalRegion struct {
	Region    string
	Time      model.Time
	Imbalance float64 // critical-path imbalance (doc/waitstates.md §4), ticks
}

// CriticalLocation is the time a location spends on the critical path.
type CriticalLocation struct {
	Loc  model.LocID
	Time model.Time
}

// CriticalSegment is one stretch of the critical path: the path runs on
// Loc from Start to End (ticks, Start < End). Consecutive segments meet at
// a hand-over (doc/waitstates.md §4): the earlier one ends where the
// delaying call was entered, the later one starts where the wait it
// caused ended, usually the same time.
type CriticalSegment struct {
	Loc        model.LocID
	Start, End model.Time
}

// Call is one MPI call instance: its location, call path and interval.
type Call struct {
	Loc      model.LocID
	Region   model.RegionID
	CallPath string
	Enter    model.Time
	Leave    model.Time
}

// Instance is one wait state: Waiter waits Time ticks in its call for
// Delayer's call (the zero Call where the pattern has no delayer).
type Instance struct {
	Pattern Pattern
	Time    model.Time
	Waiter  Call
	Delayer Call
}

// Message is one matched point-to-point message with the calls on both
// sides: the send call and the call that completed the send (the same call
// for a blocking send), the call that posted the receive and the call that
// completed it (the same call for a blocking receive).
type Message struct {
	Sender, Receiver model.LocID
	Tag              int32
	Comm             model.CommID
	Bytes            int64
	Send             Call
	SendComplete     Call
	Post             Call
	Recv             Call
}

// Diagnostics counts what the analysis met but could not analyse. A
// non-zero count means some pattern may be under-reported.
type Diagnostics struct {
	Events           int64 // events read
	UnknownLocation  int64 // events whose location is 0 or not defined (ignored)
	MPICalls         int64 // MPI call instances
	MatchedMessages  int64
	UnmatchedSends   int64 // sends whose receive never came
	UnmatchedRecvs   int64 // receives whose send never came
	UnknownPeer      int64 // messages without a partner location (model.Event.Peer 0)
	OutsideCall      int64 // point-to-point or collective events outside any MPI call
	UnknownComm      int64 // collective calls on communicators of unknown membership
	IncompleteColls  int64 // collective instances some member never ended or that lack members; non-blocking collectives started and never completed
	ClockViolations  int64 // values clamped to their call (a send entered after its receive left, …)
	LeaveMismatch    int64 // Leaves that named another region than the innermost open one
	UnbalancedLeaves int64 // Leaves without an open region
	OpenAtEnd        int64 // regions still open at the end of the trace
}
