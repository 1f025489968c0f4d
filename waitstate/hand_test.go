package waitstate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hpctrace/hpctrace/model"
)

// A handCase is a small trace with its report worked out by hand from
// doc/waitstates.md: every wait-state row, every delay-cost row, the
// total and (where given) the critical path. The comments show the
// arithmetic. Ranks are locations 1 …; every rank runs "main" around its
// timeline.
type handCase struct {
	name  string
	ranks int
	build func(b *traceBuilder)
	total model.Time
	waits []WaitState
	costs []DelayCost
	cp    *CriticalPath // nil: not worked out
}

func ws(p Pattern, rank int, path string, t model.Time, n int64) WaitState {
	return WaitState{Pattern: p, Loc: model.LocID(rank + 1), CallPath: path, Time: t, Count: n}
}

func dc(p Pattern, rank int, path string, short, long float64) DelayCost {
	return DelayCost{Pattern: p, Loc: model.LocID(rank + 1), CallPath: path, ShortTerm: short, LongTerm: long}
}

func cl(rank int, t model.Time) CriticalLocation {
	return CriticalLocation{Loc: model.LocID(rank + 1), Time: t}
}

var handCases = []handCase{
	{
		// Rank 1 enters MPI_Recv at 20, rank 0 only sends at 100:
		// ls = min(100, 110) − 20 = 80.
		// Delay: b_R = 20, b_S = 100, no earlier sync point, so the
		// intervals are [0, 20] and [0, 100]: T_R(compute) = 20,
		// T_S(compute) = 100, excess 80 = D, W = 0, sw = min(1, 80/80) = 1:
		// short-term 80 on rank 0's compute; indirect 0, direct 80;
		// no later wait: terminal.
		// Critical path: both end at 110, rank 0 (lowest id) has no
		// hand-over: [0, 110] on rank 0 = compute 100 + MPI_Send 10.
		// Imbalance: compute 100 − (100+20)/2 = 40; MPI_Send 10 − 10/2 = 5.
		name:  "late_sender",
		ranks: 2,
		build: func(b *traceBuilder) {
			b.rank(0).enter(0, "main").compute(0, 100).send(100, 110, 1, 0).leave(110, "main")
			b.rank(1).enter(0, "main").compute(0, 20).recv(20, 110, 0, 0).leave(110, "main")
		},
		total: 220,
		waits: []WaitState{
			ws(LateSender, 1, "main/MPI_Recv", 80, 1),
			ws(LateSenderDirect, 1, "main/MPI_Recv", 80, 1),
			ws(LateSenderTerminal, 1, "main/MPI_Recv", 80, 1),
		},
		costs: []DelayCost{dc(LateSender, 0, "main/compute", 80, 0)},
		cp: &CriticalPath{Length: 110,
			Profile:   []CriticalRegion{{"MPI_Send", 10, 5}, {"compute", 100, 40}},
			Locations: []CriticalLocation{cl(0, 110)}},
	},
	{
		// Rank 0 posts two Irecvs and waits for both in one Waitall
		// [10, 100]; rank 1 sends at 30, rank 2 at 60. Per message:
		// min(30, 100) − 10 = 20 and min(60, 100) − 10 = 50: one instance
		// of 50, the latest sender is rank 2.
		// Late receiver: the posting call (Irecv, E = 0) was posted
		// before either send: lr < 0, none.
		// Delay (rank 0, rank 2): b_R = 10, b_S = 60, no earlier sync:
		// T_R = {MPI_Irecv: 10}, T_S = {compute: 60}: excess compute 60,
		// D = 60, W = 0, sw = 50/60: short-term 50.
		name:  "late_sender_waitall",
		ranks: 3,
		build: func(b *traceBuilder) {
			r0 := b.rank(0)
			r0.enter(0, "main").
				call("MPI_Irecv", 0, 5, r0.postEv(0, 1, 0, 1)).
				call("MPI_Irecv", 5, 10, r0.postEv(5, 2, 0, 2)).
				call("MPI_Waitall", 10, 100, r0.recvEv(100, 1, 0, 1), r0.recvEv(100, 2, 0, 2)).
				leave(100, "main")
			b.rank(1).enter(0, "main").compute(0, 30).send(30, 40, 0, 0).compute(40, 100).leave(100, "main")
			b.rank(2).enter(0, "main").compute(0, 60).send(60, 70, 0, 0).compute(70, 100).leave(100, "main")
		},
		total: 300,
		waits: []WaitState{
			ws(LateSender, 0, "main/MPI_Waitall", 50, 1),
			ws(LateSenderDirect, 0, "main/MPI_Waitall", 50, 1),
			ws(LateSenderTerminal, 0, "main/MPI_Waitall", 50, 1),
		},
		costs: []DelayCost{dc(LateSender, 2, "main/compute", 50, 0)},
	},
	{
		// Rank 1 sends tag 1 at 0 (buffered, returns at 10), then tag 2
		// at 50. Rank 0 receives tag 2 first [20, 60]: ls = min(50, 60) − 20
		// = 30; then tag 1 [60, 70]: min(0, 70) − 60 < 0. The second call
		// completes a message sent at 0 < 50: the first instance is wrong
		// order (30 again under late_sender_wrong_order).
		// Late receiver: tag 1's send left at 10 before its receive was
		// posted at 60: none; tag 2's send [50, 60] after the posting at
		// 20: lr = 20 − 50 < 0, none.
		// Delay (rank 0, rank 1): b_R = 20, b_S = 50, no sync point left
		// by then: T_R = {main: 20}, T_S = {MPI_Send: 10, compute: 40};
		// excess MPI_Send 10, compute 40, D = 50, sw = 30/50 = 0.6:
		// short-term 6 and 24.
		name:  "late_sender_wrong_order",
		ranks: 2,
		build: func(b *traceBuilder) {
			b.rank(0).enter(0, "main").recv(20, 60, 1, 2).recv(60, 70, 1, 1).compute(70, 100).leave(100, "main")
			b.rank(1).enter(0, "main").send(0, 10, 0, 1).compute(10, 50).send(50, 60, 0, 2).compute(60, 100).leave(100, "main")
		},
		total: 200,
		waits: []WaitState{
			ws(LateSender, 0, "main/MPI_Recv", 30, 1),
			ws(LateSenderWrongOrder, 0, "main/MPI_Recv", 30, 1),
			ws(LateSenderDirect, 0, "main/MPI_Recv", 30, 1),
			ws(LateSenderTerminal, 0, "main/MPI_Recv", 30, 1),
		},
		costs: []DelayCost{
			dc(LateSender, 1, "main/MPI_Send", 6, 0),
			dc(LateSender, 1, "main/compute", 24, 0),
		},
	},
	{
		// MPI_Test completions: rank 1 sends tag 1 at 0, tag 2 at 30 and
		// tag 3 at 80. Rank 0 posts tag 1, receives tag 2 in MPI_Recv
		// [10, 40]: ls = 30 − 10 = 20; then completes tag 1 in MPI_Test
		// [40, 45], a message sent at 0 < 30: the MPI_Recv's instance is
		// wrong order (the Test takes part in the check). Tag 3 completes
		// in MPI_Test [50, 90], which would be a late sender of 30 but
		// Test* completions are not analysed. No late receiver: every send
		// entered after its posting (tag 1 at the same time: 0).
		// Delay (rank 0, rank 1): b_R = 10, b_S = 30; the tag 1 message is
		// no sync point yet (its Test leaves at 45 > 10): T_R =
		// {MPI_Irecv: 2, main: 8}, T_S = {MPI_Send: 5, compute: 25}:
		// D = 30, sw = 20/30: short-term 10/3 and 50/3.
		name:  "late_sender_test",
		ranks: 2,
		build: func(b *traceBuilder) {
			r0 := b.rank(0)
			r0.enter(0, "main").call("MPI_Irecv", 0, 2, r0.postEv(0, 1, 1, 1)).recv(10, 40, 1, 2).
				call("MPI_Test", 40, 45, r0.recvEv(45, 1, 1, 1)).
				call("MPI_Irecv", 45, 46, r0.postEv(45, 1, 3, 2)).compute(46, 50).
				call("MPI_Test", 50, 90, r0.recvEv(90, 1, 3, 2)).compute(90, 100).leave(100, "main")
			b.rank(1).enter(0, "main").send(0, 5, 0, 1).compute(5, 30).send(30, 35, 0, 2).compute(35, 80).
				send(80, 85, 0, 3).compute(85, 100).leave(100, "main")
		},
		total: 200,
		waits: []WaitState{
			ws(LateSender, 0, "main/MPI_Recv", 20, 1),
			ws(LateSenderWrongOrder, 0, "main/MPI_Recv", 20, 1),
			ws(LateSenderDirect, 0, "main/MPI_Recv", 20, 1),
			ws(LateSenderTerminal, 0, "main/MPI_Recv", 20, 1),
		},
		costs: []DelayCost{
			dc(LateSender, 1, "main/MPI_Send", 10.0/3, 0),
			dc(LateSender, 1, "main/compute", 50.0/3, 0),
		},
	},
	{
		// Rank 0's blocking send [10, 60] leaves only after rank 1 posts
		// its receive at 50: lr = 50 − 10 = 40 (X = 60 > 50). No late
		// sender: the send was entered at 10 < 50.
		// Delay (rank 0, rank 1): b_R = 10, b_S = 50: T_R = {main: 10},
		// T_S = {compute: 50}, D = 50, sw = 40/50: short-term 40.
		name:  "late_receiver",
		ranks: 2,
		build: func(b *traceBuilder) {
			b.rank(0).enter(0, "main").send(10, 60, 1, 0).compute(60, 100).leave(100, "main")
			b.rank(1).enter(0, "main").compute(0, 50).recv(50, 60, 0, 0).compute(60, 100).leave(100, "main")
		},
		total: 200,
		waits: []WaitState{
			ws(LateReceiver, 0, "main/MPI_Send", 40, 1),
			ws(LateReceiverDirect, 0, "main/MPI_Send", 40, 1),
			ws(LateReceiverTerminal, 0, "main/MPI_Send", 40, 1),
		},
		costs: []DelayCost{dc(LateReceiver, 1, "main/compute", 40, 0)},
		// Critical path: both end at 100, start on rank 0; the late
		// receiver hands over at s = 10 + 40 = 50 to rank 1 at its
		// posting (50): [50, 100] on rank 0 (MPI_Send 10, compute 40),
		// [0, 50] on rank 1 (compute). Imbalance: compute 90 − (40 + 90)/2
		// = 25; MPI_Send 10 − (50 − 40)/2 = 5.
		cp: &CriticalPath{Length: 100,
			Profile:   []CriticalRegion{{"MPI_Send", 10, 5}, {"compute", 90, 25}},
			Locations: []CriticalLocation{cl(0, 50), cl(1, 50)}},
	},
	{
		// The send [10, 20] returned before the receive was posted at 50
		// (X = 20 ≤ 50): buffered, no late receiver; the receive was
		// entered after the send: no late sender. Nothing at all.
		name:  "late_receiver_buffered",
		ranks: 2,
		build: func(b *traceBuilder) {
			b.rank(0).enter(0, "main").send(10, 20, 1, 0).compute(20, 100).leave(100, "main")
			b.rank(1).enter(0, "main").compute(0, 50).recv(50, 60, 0, 0).compute(60, 100).leave(100, "main")
		},
		total: 200,
	},
	{
		// Both ranks exchange with MPI_Sendrecv; rank 0 enters at 10,
		// rank 1 at 50. Rank 0: ls = min(50, 60) − 10 = 40; its send
		// waited for the posting at 50 too (50 − 10 = 40) but the call is
		// already a late-sender candidate: no late receiver. Rank 1:
		// ls = min(10, 60) − 50 < 0, lr = 10 − 50 < 0.
		// Delay (rank 0, rank 1): b_R = 10, b_S = 50: D = 50 (compute),
		// sw = 40/50: short-term 40.
		name:  "late_receiver_ls_candidate",
		ranks: 2,
		build: func(b *traceBuilder) {
			r0, r1 := b.rank(0), b.rank(1)
			r0.enter(0, "main").call("MPI_Sendrecv", 10, 60, r0.sendEv(10, 1, 0, 0), r0.recvEv(60, 1, 0, 0)).
				compute(60, 100).leave(100, "main")
			r1.enter(0, "main").compute(0, 50).call("MPI_Sendrecv", 50, 60, r1.sendEv(50, 0, 0, 0), r1.recvEv(60, 0, 0, 0)).
				compute(60, 100).leave(100, "main")
		},
		total: 200,
		waits: []WaitState{
			ws(LateSender, 0, "main/MPI_Sendrecv", 40, 1),
			ws(LateSenderDirect, 0, "main/MPI_Sendrecv", 40, 1),
			ws(LateSenderTerminal, 0, "main/MPI_Sendrecv", 40, 1),
		},
		costs: []DelayCost{dc(LateSender, 1, "main/compute", 40, 0)},
	},
	{
		// A non-blocking send: MPI_Isend [10, 12], completed by MPI_Wait
		// [20, 60] (the SendDone), which waits for rank 1 to post at 50:
		// lr = 50 − 20 = 30 on the Wait. No late sender (send call
		// entered at 10 < 50).
		// Delay (rank 0, rank 1): b_R = 20, b_S = 50; the message is no
		// sync point yet (its receive leaves at 60 > 50): T_R =
		// {MPI_Isend: 2, compute: 8}, T_S = {compute: 50}: excess compute
		// 42, sw = 30/42: short-term 30.
		name:  "late_receiver_isend_wait",
		ranks: 2,
		build: func(b *traceBuilder) {
			r0 := b.rank(0)
			r0.enter(0, "main").call("MPI_Isend", 10, 12, r0.sendEv(10, 1, 0, 7)).compute(12, 20).
				call("MPI_Wait", 20, 60, sendDoneEv(60, 7)).compute(60, 100).leave(100, "main")
			b.rank(1).enter(0, "main").compute(0, 50).recv(50, 60, 0, 0).compute(60, 100).leave(100, "main")
		},
		total: 200,
		waits: []WaitState{
			ws(LateReceiver, 0, "main/MPI_Wait", 30, 1),
			ws(LateReceiverDirect, 0, "main/MPI_Wait", 30, 1),
			ws(LateReceiverTerminal, 0, "main/MPI_Wait", 30, 1),
		},
		costs: []DelayCost{dc(LateReceiver, 1, "main/compute", 30, 0)},
	},
	{
		// Barrier entered at 10, 30, 40 (rank 2 is the latecomer), left at
		// 50, 45, 42: latestE = 40, earliestX = 42.
		// wait_barrier = min(40, X) − E: 30, 10, 0.
		// barrier_completion = X − max(42, 40): 8, 3, 0.
		// Delay, one pair per waiter with rank 2 (b_S = 40): rank 0 (b_R =
		// 10): excess compute 40 − 10 = 30 = D, sw = 1: 30; rank 1 (b_R =
		// 30): 40 − 30 = 10, sw = 1: 10. Short-term 40 on rank 2.
		// Critical path: all end at 100, start on rank 0; its hand-over
		// s = 10 + 30 = 40 → [40, 100] on rank 0 (Barrier 10, compute 50),
		// then rank 2 at 40, no hand-over: [0, 40] compute.
		// Imbalance: compute 90 − (60 + 85 + 98)/3 = 9; MPI_Barrier
		// 10 − (57 − 40)/3 = 13/3.
		name:  "wait_barrier",
		ranks: 3,
		build: func(b *traceBuilder) {
			b.rank(0).enter(0, "main").compute(0, 10).coll("MPI_Barrier", 10, 50, -1, 0, 0).compute(50, 100).leave(100, "main")
			b.rank(1).enter(0, "main").compute(0, 30).coll("MPI_Barrier", 30, 45, -1, 0, 0).compute(45, 100).leave(100, "main")
			b.rank(2).enter(0, "main").compute(0, 40).coll("MPI_Barrier", 40, 42, -1, 0, 0).compute(42, 100).leave(100, "main")
		},
		total: 300,
		waits: []WaitState{
			ws(WaitBarrier, 0, "main/MPI_Barrier", 30, 1),
			ws(WaitBarrier, 1, "main/MPI_Barrier", 10, 1),
			ws(BarrierCompletion, 0, "main/MPI_Barrier", 8, 1),
			ws(BarrierCompletion, 1, "main/MPI_Barrier", 3, 1),
		},
		costs: []DelayCost{dc(WaitBarrier, 2, "main/compute", 40, 0)},
		cp: &CriticalPath{Length: 100,
			Profile:   []CriticalRegion{{"MPI_Barrier", 10, 10 - 17.0/3}, {"compute", 90, 9}},
			Locations: []CriticalLocation{cl(0, 60), cl(2, 40)}},
	},
	{
		// The barrier's times with MPI_Alltoallv; rank 1 receives 0 bytes.
		// wait_nxn: rank 0 30; rank 1 none (0 bytes); rank 2 0.
		// nxn_completion (no bytes rule): 8, 3, 0.
		// Delay: only rank 0's wait: 30 on rank 2's compute.
		name:  "wait_nxn",
		ranks: 3,
		build: func(b *traceBuilder) {
			b.rank(0).enter(0, "main").compute(0, 10).coll("MPI_Alltoallv", 10, 50, -1, 8, 8).compute(50, 100).leave(100, "main")
			b.rank(1).enter(0, "main").compute(0, 30).coll("MPI_Alltoallv", 30, 45, -1, 16, 0).compute(45, 100).leave(100, "main")
			b.rank(2).enter(0, "main").compute(0, 40).coll("MPI_Alltoallv", 40, 42, -1, 0, 8).compute(42, 100).leave(100, "main")
		},
		total: 300,
		waits: []WaitState{
			ws(WaitNxN, 0, "main/MPI_Alltoallv", 30, 1),
			ws(NxNCompletion, 0, "main/MPI_Alltoallv", 8, 1),
			ws(NxNCompletion, 1, "main/MPI_Alltoallv", 3, 1),
		},
		costs: []DelayCost{dc(WaitNxN, 2, "main/compute", 30, 0)},
	},
	{
		// MPI_Bcast from rank 1, which enters at 40; ranks 0 and 2 enter
		// at 10 and 20: late_broadcast 30 and 20. Delay: pairs with rank 1
		// (b_S = 40): excess 30 and 20, sw = 1: short-term 50.
		name:  "late_broadcast",
		ranks: 3,
		build: func(b *traceBuilder) {
			b.rank(0).enter(0, "main").compute(0, 10).coll("MPI_Bcast", 10, 50, 1, 0, 8).compute(50, 100).leave(100, "main")
			b.rank(1).enter(0, "main").compute(0, 40).coll("MPI_Bcast", 40, 45, 1, 8, 0).compute(45, 100).leave(100, "main")
			b.rank(2).enter(0, "main").compute(0, 20).coll("MPI_Bcast", 20, 48, 1, 0, 8).compute(48, 100).leave(100, "main")
		},
		total: 300,
		waits: []WaitState{
			ws(LateBroadcast, 0, "main/MPI_Bcast", 30, 1),
			ws(LateBroadcast, 2, "main/MPI_Bcast", 20, 1),
		},
		costs: []DelayCost{dc(LateBroadcast, 1, "main/compute", 50, 0)},
	},
	{
		// MPI_Reduce to rank 0 entered at 10; the others enter at 30 and
		// 50: early_reduce = min(min(30, 50), 60) − 10 = 20. No delay costs.
		// Critical path: start on rank 0 at 100; the root hands over to
		// the last to enter (rank 2, latestE = 50 > 10) at s = min(50, 60):
		// [50, 100] on rank 0 (Reduce 10, compute 40), [0, 50] on rank 2.
		// Imbalance: compute 90 − (50 + 95 + 95)/3 = 10; MPI_Reduce
		// 10 − (60 − 20)/3 < 0: 0.
		name:  "early_reduce",
		ranks: 3,
		build: func(b *traceBuilder) {
			b.rank(0).enter(0, "main").compute(0, 10).coll("MPI_Reduce", 10, 60, 0, 8, 24).compute(60, 100).leave(100, "main")
			b.rank(1).enter(0, "main").compute(0, 30).coll("MPI_Reduce", 30, 35, 0, 8, 0).compute(35, 100).leave(100, "main")
			b.rank(2).enter(0, "main").compute(0, 50).coll("MPI_Reduce", 50, 55, 0, 8, 0).compute(55, 100).leave(100, "main")
		},
		total: 300,
		waits: []WaitState{ws(EarlyReduce, 0, "main/MPI_Reduce", 20, 1)},
		cp: &CriticalPath{Length: 100,
			Profile:   []CriticalRegion{{"MPI_Reduce", 10, 0}, {"compute", 90, 10}},
			Locations: []CriticalLocation{cl(0, 50), cl(2, 50)}},
	},
	{
		// MPI_Scan entered at 40, 10, 20 by ranks 0, 1, 2. Rank 1 waits for
		// rank 0: min(40, 50) − 10 = 30; rank 2 for the later of ranks 0
		// and 1 (40): min(40, 55) − 20 = 20. No delay costs.
		name:  "early_scan",
		ranks: 3,
		build: func(b *traceBuilder) {
			b.rank(0).enter(0, "main").compute(0, 40).coll("MPI_Scan", 40, 45, -1, 8, 8).compute(45, 100).leave(100, "main")
			b.rank(1).enter(0, "main").compute(0, 10).coll("MPI_Scan", 10, 50, -1, 8, 8).compute(50, 100).leave(100, "main")
			b.rank(2).enter(0, "main").compute(0, 20).coll("MPI_Scan", 20, 55, -1, 8, 8).compute(55, 100).leave(100, "main")
		},
		total: 300,
		waits: []WaitState{
			ws(EarlyScan, 1, "main/MPI_Scan", 30, 1),
			ws(EarlyScan, 2, "main/MPI_Scan", 20, 1),
		},
	},
	{
		// MPI_Finalize entered at 30 and 80, both left at 90:
		// wait_finalize = min(80, 90) − 30 = 50 on rank 0. No delay costs.
		name:  "wait_finalize",
		ranks: 2,
		build: func(b *traceBuilder) {
			b.rank(0).enter(0, "main").compute(0, 30).call("MPI_Finalize", 30, 90).leave(100, "main")
			b.rank(1).enter(0, "main").compute(0, 80).call("MPI_Finalize", 80, 90).leave(100, "main")
		},
		total: 200,
		waits: []WaitState{ws(WaitFinalize, 0, "main/MPI_Finalize", 50, 1)},
	},
	{
		// MPI_Init [0, 50] on rank 0 and MPI_Init_thread [20, 40] on rank 1
		// are one instance: latestE = 20, earliestX = 40:
		// init_completion = X − 40: 10 and 0.
		name:  "init_completion",
		ranks: 2,
		build: func(b *traceBuilder) {
			b.rank(0).enter(0, "main").call("MPI_Init", 0, 50).compute(50, 100).leave(100, "main")
			b.rank(1).enter(0, "main").call("MPI_Init_thread", 20, 40).compute(40, 100).leave(100, "main")
		},
		total: 200,
		waits: []WaitState{ws(InitCompletion, 0, "main/MPI_Init", 10, 1)},
	},
	{
		// A chain: rank 0 sends late to rank 1 (at 60), which then sends
		// late to rank 2 (at 75).
		// Wait 1 on rank 1: MPI_Recv [20, 65], ls = 60 − 20 = 40.
		// Wait 2 on rank 2: MPI_Recv [30, 80], ls = 75 − 30 = 45.
		// Wait 2 ended later (75 > 60): first.
		// Wait 2 (R = 2, S = 1): b_R = 30, b_S = 75, no sync point yet:
		// T_R = {compute: 30}; on rank 1 in [0, 75]: compute 20 + 10 = 30,
		// MPI_Recv 45 − wait 1's 40 = 5; MPI_Send not yet. Excess: compute
		// 0, MPI_Recv 5: D = 5; W = 40 (wait 1); sw = min(1, 45/45) = 1,
		// sc = 0. Short-term 5 on rank 1's MPI_Recv; wait 1 gets
		// C = 40 · (1 + 0) = 40; indirect = 1 · 40 = 40, direct 5.
		// Wait 1 (R = 1, S = 0): b_R = 20, b_S = 60: T_R = {compute: 20},
		// T_S = {compute: 60}: D = 40, W = 0, sw = 1, sc = 40/40 = 1:
		// short-term 40 and long-term 40 on rank 0's compute; direct 40.
		// Wait 1 propagates (a candidate of wait 2), wait 2 is terminal.
		// Critical path: rank 2 ends last (120): [75, 120] on rank 2
		// (MPI_Recv 5, compute 40), to rank 1 at 75: [60, 75] (MPI_Recv 5,
		// compute 10), to rank 0 at 60: [0, 60] compute. Length 120.
		// Imbalance: compute 110 − (95 + 50 + 70)/3 = 115/3;
		// MPI_Recv 10 − (45 + 50 − 40 − 45)/3 = 20/3.
		name:  "chain",
		ranks: 3,
		build: func(b *traceBuilder) {
			b.rank(0).enter(0, "main").compute(0, 60).send(60, 65, 1, 0).compute(65, 100).leave(100, "main")
			b.rank(1).enter(0, "main").compute(0, 20).recv(20, 65, 0, 0).compute(65, 75).send(75, 80, 2, 0).
				compute(80, 100).leave(100, "main")
			b.rank(2).enter(0, "main").compute(0, 30).recv(30, 80, 1, 0).compute(80, 120).leave(120, "main")
		},
		total: 320,
		waits: []WaitState{
			ws(LateSender, 1, "main/MPI_Recv", 40, 1),
			ws(LateSender, 2, "main/MPI_Recv", 45, 1),
			ws(LateSenderDirect, 1, "main/MPI_Recv", 40, 1),
			ws(LateSenderDirect, 2, "main/MPI_Recv", 5, 1),
			ws(LateSenderIndirect, 2, "main/MPI_Recv", 40, 1),
			ws(LateSenderPropagating, 1, "main/MPI_Recv", 40, 1),
			ws(LateSenderTerminal, 2, "main/MPI_Recv", 45, 1),
		},
		costs: []DelayCost{
			dc(LateSender, 0, "main/compute", 40, 40),
			dc(LateSender, 1, "main/MPI_Recv", 5, 0),
		},
		cp: &CriticalPath{Length: 120,
			Profile:   []CriticalRegion{{"MPI_Recv", 10, 20.0 / 3}, {"compute", 110, 115.0 / 3}},
			Locations: []CriticalLocation{cl(0, 60), cl(1, 15), cl(2, 45)}},
	},
	{
		// A chain after an earlier sync point, with partial weights.
		// Rank 0 sends at 0 to rank 1's MPI_Recv [0, 10] (no wait): this
		// message is a sync point of ranks 0 and 1, left at 5 and 10.
		// Wait 1 on rank 1: MPI_Recv [20, 65] for rank 0's send at 60:
		// 40. Wait 2 on rank 2: MPI_Recv [30, 80] for rank 1's send at
		// 75: 45. Wait 2 ended later (75 > 60): first.
		// Wait 2 (R = 2, S = 1): no sync point of ranks 1 and 2 yet:
		// [0, 30] and [0, 75]. T_R = {compute: 30}; T_S = {MPI_Recv:
		// 10 + 45 − 40 = 15, compute: 20}: excess MPI_Recv 15 = D; W = 40;
		// sw = 45/55 = 9/11, sc = 0: short-term 15 · 9/11 = 135/11 on rank
		// 1's MPI_Recv; wait 1 gets C = 40 · 9/11 = 360/11; indirect
		// 9/11 · 40 = 32.7 → 33, direct 12.
		// Wait 1 (R = 1, S = 0): b_R = 20, b_S = 60; the first message
		// left at 10 ≤ 20 on rank 1 and 5 ≤ 60 on rank 0: [10, 20] and
		// [5, 60]. T_R = {compute: 10}, T_S = {compute: 55}: D = 45, W = 0,
		// sw = 40/45, sc = (360/11)/45 = 8/11: short-term 45 · 40/45 = 40,
		// long-term 45 · 8/11 = 360/11 on rank 0's compute; direct 40.
		// Wait 1 propagates, wait 2 is terminal.
		// Critical path: rank 2 ends last (110): [75, 110] on rank 2
		// (MPI_Recv 5, compute 30), rank 1 from 75 to its hand-over at 60
		// (MPI_Recv 5, compute 10), rank 0 [0, 60] (MPI_Send 5, compute 55).
		// Imbalance: compute 95 − (90 + 40 + 60)/3 = 95/3; MPI_Recv
		// 10 − (55 + 50 − 85)/3 = 10/3; MPI_Send 5 − (10 + 5)/3 = 0.
		name:  "sync_interval",
		ranks: 3,
		build: func(b *traceBuilder) {
			b.rank(0).enter(0, "main").send(0, 5, 1, 0).compute(5, 60).send(60, 65, 1, 0).compute(65, 100).leave(100, "main")
			b.rank(1).enter(0, "main").recv(0, 10, 0, 0).compute(10, 20).recv(20, 65, 0, 0).compute(65, 75).
				send(75, 80, 2, 0).compute(80, 100).leave(100, "main")
			b.rank(2).enter(0, "main").compute(0, 30).recv(30, 80, 1, 0).compute(80, 110).leave(110, "main")
		},
		total: 310,
		waits: []WaitState{
			ws(LateSender, 1, "main/MPI_Recv", 40, 1),
			ws(LateSender, 2, "main/MPI_Recv", 45, 1),
			ws(LateSenderDirect, 1, "main/MPI_Recv", 40, 1),
			ws(LateSenderDirect, 2, "main/MPI_Recv", 12, 1),
			ws(LateSenderIndirect, 2, "main/MPI_Recv", 33, 1),
			ws(LateSenderPropagating, 1, "main/MPI_Recv", 40, 1),
			ws(LateSenderTerminal, 2, "main/MPI_Recv", 45, 1),
		},
		costs: []DelayCost{
			dc(LateSender, 0, "main/compute", 40, 360.0/11),
			dc(LateSender, 1, "main/MPI_Recv", 135.0/11, 0),
		},
		cp: &CriticalPath{Length: 110,
			Profile:   []CriticalRegion{{"MPI_Recv", 10, 10.0 / 3}, {"MPI_Send", 5, 0}, {"compute", 95, 95.0 / 3}},
			Locations: []CriticalLocation{cl(0, 60), cl(1, 15), cl(2, 35)}},
	},
}

// approx compares the fractional costs and imbalances; the integer
// fields compare exactly.
var approx = cmpopts.EquateApprox(0, 1e-9)

// checkReport compares a report with a hand case's expectations.
func checkReport(t testing.TB, hc *handCase, got *Report) {
	t.Helper()
	if got.Total != hc.total {
		t.Errorf("%s: Total = %d, want %d", hc.name, got.Total, hc.total)
	}
	if diff := cmp.Diff(hc.waits, got.WaitStates, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("%s: wait states (-want +got):\n%s", hc.name, diff)
	}
	if diff := cmp.Diff(hc.costs, got.DelayCosts, cmpopts.EquateEmpty(), approx); diff != "" {
		t.Errorf("%s: delay costs (-want +got):\n%s", hc.name, diff)
	}
	if hc.cp != nil {
		if diff := cmp.Diff(*hc.cp, got.CriticalPath, cmpopts.EquateEmpty(), approx); diff != "" {
			t.Errorf("%s: critical path (-want +got):\n%s", hc.name, diff)
		}
	}
}

// TestReferenceHandCases checks the reference against the reports worked
// out by hand.
func TestReferenceHandCases(t *testing.T) {
	for i := range handCases {
		hc := &handCases[i]
		t.Run(hc.name, func(t *testing.T) {
			b := newTrace(hc.ranks)
			hc.build(b)
			checkReport(t, hc, refAnalyze(b.defs, b.events()).report)
		})
	}
}
