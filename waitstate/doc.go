// Package waitstate tells why time is lost in an MPI run, as Scalasca's
// trace analyzer does: it finds the wait states (a receive waiting for a
// send that starts late, a barrier waiting for the last to arrive, …),
// charges each to the MPI call that waited, traces waiting back to the
// excess work that caused it (delay costs) and walks the critical path,
// the chain of activities that set the run's wall time.
//
// It reads any [model.Source], so every format the SDK reads: the rules
// are those of doc/waitstates.md (the normative text; section numbers
// below refer to it), which carries over Scalasca 2.5's definitions and
// says, where Scalasca is ambiguous or a format lacks something, what this
// package chose.
//
// # Patterns
//
// Every value is charged to (pattern, location, call path of the MPI
// call); a row counts the instances with a value > 0 ([Report.WaitStates]).
// E and X are a call's Enter and Leave times.
//
//   - late_sender: a receive-completion call (MPI_Recv, MPI_Wait*, not
//     MPI_Test*) waits for a send call entered later: min(E_send, X) − E;
//     a call completing several messages counts once, with the latest
//     sender.
//   - late_sender_wrong_order: a late_sender instance that a later
//     completion call on the same location overtook (it completed a
//     message sent earlier), among the last 100; late_sender rows include it.
//   - late_receiver: a send-completion call waits for the receive to be
//     posted: E_post − E, if the call left after the posting.
//   - wait_barrier, barrier_completion: MPI_Barrier (and PICL's sync0):
//     min(latest E, X) − E; X − max(earliest X, latest E).
//   - wait_nxn, nxn_completion: the same for the all-to-all collectives
//     (MPI_Allreduce, MPI_Allgather(v), MPI_Alltoall(v,w),
//     MPI_Reduce_scatter(_block)); no wait for a member receiving 0 bytes.
//   - late_broadcast: a non-root of MPI_Bcast or MPI_Scatter(v) waits for
//     the root.
//   - early_reduce: the root of MPI_Reduce or MPI_Gather(v) waits for the
//     first non-root.
//   - early_scan: rank n of MPI_Scan or MPI_Exscan waits for the last of
//     ranks 0 … n−1.
//   - wait_finalize, init_completion: MPI_Finalize and MPI_Init(_thread),
//     each one instance over every location that calls it.
//   - wait_ibarrier, wait_inxn, late_ibroadcast, early_ireduce,
//     early_iscan: the completion waits of MPI-3 non-blocking collectives
//     (§2.6; Scalasca has no such patterns): the call that completes
//     the operation (MPI_Wait*, not MPI_Test*) waits for the members it
//     needs to have started it, S being the Enter of the call that
//     started it (MPI_Ibarrier …): min(latest S, X) − E, and so on as
//     their blocking cousins; one instance per completion call, none on
//     a call with a late_sender instance. They have no delay costs.
//   - late_sender_direct/_indirect, late_receiver_direct/_indirect: the
//     part of a wait its delayer's own excess work explains, and the part
//     that earlier waits passed on (§3.4).
//   - late_sender_propagating/_terminal, late_receiver_propagating/_terminal:
//     a wait that caused waits later, or not (§3.4).
//
// Delay costs ([Report.DelayCosts], §3) charge the waiting time of
// late_sender, late_receiver, wait_barrier, wait_nxn and late_broadcast to
// the delaying location's call paths, short-term (the excess work there,
// scaled to the wait) and long-term (what that wait caused in turn). The
// critical path ([Report.CriticalPath], §4) has its length, its time per
// region (exclusive) with the critical-path imbalance, and its time per
// location; [Report.CriticalSegments] says where it runs, location by
// location, and [Options.Instances] keeps every instance in the report
// (for a viewer that draws each wait).
//
// # Rules
//
// The rules chosen where Scalasca is ambiguous are those of
// doc/waitstates.md §6. Those that concern this package's input:
//
//   - MPI calls are the instances of regions for which
//     [model.Region.MPI] holds; so are the instances of communication and
//     collective regions of unknown paradigm (PICL's message and sync0
//     event types). An operation is classified by its call's region name
//     when that is a known MPI function, otherwise by the CollBegin event's
//     region, otherwise by its Class.
//   - Point-to-point and collective events belong to the outermost open
//     MPI call of their location (in a native PICL trace the PICL
//     region is the only one; in one converted by picl.ModelWriter the
//     MPI call encloses the zero-length PICL region). Messages are matched as package stats matches them
//     (doc/stats.md §5.2: channels of sender, receiver, tag and
//     communicator, first come first served in each location's order);
//     collective instances by Match or the per-communicator sequence
//     (doc/stats.md §5.6).
//   - The posting call of a receive is the call holding the RecvPost with
//     the Recv's Match on the same location, otherwise the completion call
//     (formats without one: OTF 1.x, PICL). The send-completion call is the
//     call holding the SendDone with the Send's Match, otherwise the send
//     call.
//   - A collective on a communicator of unknown membership is analysed
//     with the members that came (Diagnostics.UnknownComm counts its
//     calls; early_scan needs ranks and skips it); an instance missing
//     members, or with a call never left, is analysed as it is and
//     counted in Diagnostics.IncompleteColls.
//   - Values are clamped to their call; a value that needed it (a send
//     entered after its receive left) is counted in
//     Diagnostics.ClockViolations. Messages whose Peer is 0, events
//     outside any MPI call and unmatched messages are counted, never
//     guessed.
//   - late_sender_indirect is rounded to the nearest tick, and
//     late_sender_direct is the rest, so that the two partition the wait;
//     the same for late_receiver. A message to itself has no delay cost.
//   - Wait states are processed for delay costs latest first, by the time
//     their wait ended (E + value), then by later E.
//   - A non-blocking collective is the CollPost and CollDone of one
//     request (model.Event's "Non-blocking collectives"); its instance is
//     (communicator, n), n counting the location's non-blocking
//     collectives on it in the order they started. One started and never
//     completed, or with a call never left, is counted in
//     Diagnostics.IncompleteColls. Neighbourhood collectives are not
//     analysed.
//
// # Relation to package stats
//
// [stats.Com]'s SyncDelay on the receiving side is Li and Zhang's
// synchronisation delay: for a matched message, clamp(E_send − E, 0, X − E)
// over the operation [E, X] holding the Recv, the operation's maximum over
// its messages (doc/stats.md §5.3). That is late_sender's value, summed
// the same way, wherever both measure it: a matched receive completed in
// an MPI call other than MPI_Test*, with its send in an MPI call. (stats
// takes an operation's maximum over its sends too, which matters only for
// a synchronous send in the same call as a receive.) stats also counts
// what late_sender does not: operations that are not MPI calls
// or are MPI_Test*, unmatched receives flagged Waited (their whole
// duration), and on the sending side synchronous sends (late receiver
// measured against the receive's completion call, where late_receiver
// takes its posting call and every blocking send). The test
// TestSyncDelayAgrees holds the two equal on the repository's traces.
//
// # Memory and cost
//
// Delay costs and the critical path look back at earlier points of other
// locations, so an [Analyzer] keeps a compact log per location. It does
// not keep it to the end. Once the locations that have called MPI have
// all passed a horizon (a time at which none of them is inside an MPI
// call) or a blocking collective over every location the definitions
// hold that every member entered before any left, and the stretch
// before it holds at least some ten thousand MPI calls, the Analyzer
// settles that stretch: it analyses it as Finalize would, keeps its
// rows, counts, sums and top instances, and drops its logs. What the
// two backward passes of Finalize need of it goes to a temporary file
// in Options.SpillDir (os.TempDir() by default), unlinked at once where
// the system allows and closed (removed) by Finalize or on an error,
// read back once, latest stretch first: per wait state with delay
// costs its excess per call path, D, W and candidates (delay costs are
// deferred to one latest-first pass at the end, which the later wait
// states' propagated costs need), and each location's exclusive times
// and critical-path hand-overs. A later wait state whose pair last
// synchronised in a settled stretch, or never, takes the part of its
// synchronisation interval there from running totals per location and
// call path kept at each pair's (and each communicator member's) last
// sync point, and names its candidates there by their ordinals. A
// stretch is settled only if no message, request or collective instance
// crosses its end and it holds no non-blocking collective, nested MPI
// calls or MPI_Finalize; one that does not pass is tried again once it
// has doubled. A horizon also needs every member of a communicator the
// definitions hold to have called MPI (one that calls MPI_Init later
// would join the others' instance of it); a location outside every
// communicator that first calls MPI_Init after a stretch was settled is
// not covered. Settling gives the report of the kept logs exactly
// (TestSettleEqual, TestSettleEqualBeyondBarriers, TestSettleLateCaller,
// TestSettleLateDefined, TestHeldFlatRing). Options.KeepLogs
// turns it off; MarshalBinary and Join need it off.
//
// So the memory grows with the locations, the call paths, the rows of
// the report, the pairs that communicate (a running total per call path
// at each one's last sync point) and the MPI activity between two
// settling points (plus what the locations ahead of the slowest one
// logged meanwhile), not with the trace's length. The backward pass of
// Finalize holds the additions to the propagated costs of candidates
// in stretches it has not read yet: a pair that synchronises rarely, or
// never, keeps one per wait state of it until it reaches them. A trace
// with no such point grows with its MPI activity: one in which some
// location is inside an MPI call at every moment and that has no
// blocking collective over every location, or whose messages always
// cross the candidate points, or with nested MPI calls. Per location, the
// log holds
//
//   - per MPI call, a record and its two boundaries (its Enter and Leave);
//   - per gap between consecutive call boundaries, an entry per call path
//     that ran in it (usually one or two, however many user-region events
//     the gap holds);
//   - per Send and Recv, and per RecvPost and SendDone with a request, a
//     record;
//   - per CollBegin, and per CollPost and CollDone, a record;
//
// and a log grows by doubling, so it holds up to twice that. Besides the
// logs: the call-path tree (a node per distinct path), the stack of open
// regions of each location and its collective sequence numbers per
// communicator. Events of user regions, messages in flight and the
// length of synchronisation intervals add nothing of their own. A
// location that makes no MPI call keeps its first and last time, its
// stream state and the entries of its one gap, under two hundred bytes
// with its stack; the room for boundaries, gaps and calls is allocated by
// its first MPI call, so that a trace of many locations and few calls
// costs little more than its locations.
//
// Finalize allocates, for the time of the call, temporaries that grow
// with the same things: per point-to-point event (its partner, calls and
// channel), per matched message between MPI calls, per collective
// instance and member, per wait state (its delay-cost record, its excess
// per call path and its critical-path hand-over), and a table of the
// pairs of locations of which one waits for the other (dense, locations
// squared, up to 1024 locations; a map beyond). A saved state
// (MarshalBinary) is the log in variable-length integers, several times
// smaller.
//
// Add costs O(1) per event and allocates only when a log grows. Finalize
// costs O(MPI calls + messages) for matching, the patterns and the
// critical path, plus sorting the wait states (runs per location that
// merge in O(n log locations)); each wait state with a delay cost costs
// the length of its synchronisation interval (the calls since the
// previous common sync point of its two locations) on the waiting
// location and, unless the wait state analysed just before it had the
// same delayer and interval there (as the waiters of one collective
// instance mostly do), on the delaying one. That length is short in codes
// whose locations communicate often.
//
// # A minimal loop
//
//	rep, err := waitstate.Analyze(src, nil)
//	if err != nil {
//		return err
//	}
//	for _, w := range rep.WaitStates {
//		fmt.Println(w.Pattern, w.Loc, w.CallPath, w.Time)
//	}
//
// Or feed an Analyzer yourself, which lets shards of a trace's locations
// be analysed apart, saved ([Analyzer.MarshalBinary]) and joined
// ([Analyzer.Join]) into the report of one pass.
//
// # Concurrency
//
// An Analyzer is not safe for concurrent use; separate Analyzers may run
// in parallel, over the same definitions only once these stop growing.
package waitstate
