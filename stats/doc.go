// Package stats computes profiles, communication and interval statistics
// from a stream of [model] events, in one pass and bounded memory.
//
// The statistics are those of doc/stats.md §3–11, which follow K.-C. Li and
// K. Zhang, "Supporting Scalable Performance Monitoring and Analysis of
// Parallel Programs" (below "Li and Zhang"), PICL's statistics records and
// the OTF tools:
//
//   - the flat profile per location and region: visits, inclusive time
//     (outermost activation), exclusive time, the sum over activations
//     (what otfprofile calls inclusive), min and max;
//   - call-site edges (location, caller, site, callee), and from them the
//     recursion groups, Li and Zhang's PROC and LOOP records, a top-down
//     drill-down tree and its hot path;
//   - point-to-point messages: COM records with the split of every
//     operation's time into synchronisation delay and transmission time,
//     transfer time, send- and receive-side matrices and a log2 size
//     histogram that merges;
//   - collective instances with each member's duration and wait;
//   - load imbalance (max/mean, percent, COV, lost time);
//   - the view mpiP prints ([MPIProfile]): application and MPI time per
//     location, and count, mean, min and max per MPI call site;
//   - the statistics a trace records relative to regions (such as PICL's
//     -101/-102/-103 records), with region subsets, whenever the
//     definitions describe them ([model.RelativeStats], [RelativeReport]);
//   - interval samples p(t) whose differences give any interval;
//   - Diagnostics for unbalanced, unmatched or truncated input, which never
//     stops the analysis.
//
// A minimal run:
//
//	acc := stats.New(src.Defs(), nil)
//	for ev, err := range model.All(src) {
//		if err != nil {
//			return err
//		}
//		acc.Add(ev)
//	}
//	rep := acc.Finalize()
//	rep.WriteText(os.Stdout, nil)
//
// Every accumulated quantity is an int64 (ticks, bytes, counts), so
// [Accumulator.Merge] is exact: accumulators of separate shards merge to
// bit-identical results whatever the merge tree. Ratios are computed by
// Finalize from the merged integers. Merge settles each side first, so
// messages between its shards fall back to the unmatched rules.
//
// Shards of a trace's locations, possibly in other processes, combine
// exactly instead with [Accumulator.Join]: an accumulator saves its state
// with [Accumulator.MarshalBinary] (definitions, options, statistics, and
// the message ends and collective members that wait for other locations),
// [Accumulator.UnmarshalBinary] reads it back, and Join matches what was
// pending, so the joined shards finalize to the report of one pass
// ([CallTree] has the same three methods). [StateVersion] states the
// compatibility rule of saved states.
//
// Memory is proportional to the number of distinct keys (location, region,
// call site, peer), the stack depth and the messages in flight
// (Options.MaxPending), never to the trace length. Add allocates only for
// new keys.
//
// [VClock] wraps a source with Li and Zhang's virtual-clock correction of
// monitoring intrusion.
//
// # Limits
//
// The drill-down is a call-graph view (below a function, its callees are
// summed over all its callers); the calling-context tree, one node per call
// path, is a separate accumulator, [CallTree]. Not computed: dense matrix output,
// the size histogram per (location, peer), idle time beyond the Incl of
// Options.IdleRegions. Per-instance collective records are capped
// (Options.MaxCollectiveInstances); their per-(location, region, site) sums
// are not. The drill-down tree stops expanding nodes once its expanded
// nodes and the calls they list number 20000. Finalize costs time and memory
// near-linear in the keys (locations, regions, call-site edges, COM
// statements), never their product. A collective instance on a
// communicator whose definition lists members (for an intercommunicator,
// those of both groups) is complete, and freed, when that many members
// have ended it. On a communicator whose definition lists no members (or
// on none) the members are known only when every location has been read:
// such calls are held, packed in about 20 bytes each, until the end of
// the stream (or of the last [Accumulator.Join]), where every call with
// the same key forms one instance, complete if all ended and it has as
// many members as the largest instance on its communicator; so the
// instances do not depend on the order in which the locations' events
// arrive, but memory grows with these calls (counted in
// Diagnostics.HeldCollectives). Message channels (sender, receiver, tag,
// communicator) are kept for the whole pass. Diagnostics.TraceLost and
// VClockClamped are set by the caller from its reader or VClock.
//
// # Concurrency
//
// An Accumulator is not safe for concurrent use; use one per goroutine and
// Merge them.
package stats
