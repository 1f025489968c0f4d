package waitstate

import "github.com/hpctrace/hpctrace/model"

// The hand cases of the non-blocking collectives (doc/waitstates.md
// §2.6), joined to handCases so that every test of the hand cases (the
// reference, the streaming analysis, every format) runs them.
func init() { handCases = append(handCases, icollHandCases...) }

// istart is a call [from, to] of the non-blocking collective name (MPI_Iallreduce
// …) that starts request req: a CollPost at the start naming the call's region.
func (r *rankBuilder) istart(name string, from, to model.Time, req uint64) *rankBuilder {
	return r.call(name, from, to, model.Event{Time: from, Kind: model.KindCollPost, Region: r.b.region(name), Match: req})
}

// icollClass is the class OTF2's collective operations give (otf2.ModelSource).
var icollClass = map[string]model.Class{"MPI_Ibarrier": model.ClassBarrier, "MPI_Iallreduce": model.ClassAllToAll,
	"MPI_Ibcast": model.ClassOneToAll, "MPI_Ireduce": model.ClassAllToOne, "MPI_Iscan": model.ClassAllToAll}

// idoneEv is the CollDone at t of request req of the non-blocking
// collective op on MPI_COMM_WORLD (root as a rank, −1 for none).
func (r *rankBuilder) idoneEv(t model.Time, op string, req uint64, root int, sent, recvd int64) model.Event {
	e := model.Event{Time: t, Kind: model.KindCollDone, Region: r.b.region(op), Comm: r.b.world, Bytes: sent, Recvd: recvd,
		Class: icollClass[op], Match: req}
	if root >= 0 {
		e.Peer = r.peer(root)
	}
	return e
}

var icollHandCases = []handCase{
	{
		// Three ranks start an MPI_Iallreduce and wait for it in MPI_Wait;
		// rank 2 starts it last, at S = 60 = latestS. Rank 0 waits
		// min(60, 70) − 20 = 40, rank 1 60 − 30 = 30, rank 2 entered its
		// MPI_Wait at 70 > 60: none. No delay costs (§2.6).
		// Critical path: all end at 100, rank 0 (lowest id) hands over at
		// s = 20 + 40 = 60 to rank 2's MPI_Iallreduce entered at 60:
		// [60, 100] on rank 0 (MPI_Wait 10, compute 30), [0, 60] on rank 2
		// (compute 60). Imbalance: compute 90 − (45 + 55 + 90)/3 = 80/3;
		// MPI_Wait 10 − (50 + 40 + 5 − 40 − 30)/3 = 5/3.
		name:  "wait_inxn",
		ranks: 3,
		build: func(b *traceBuilder) {
			r0 := b.rank(0)
			r0.enter(0, "main").istart("MPI_Iallreduce", 0, 5, 1).compute(5, 20).
				call("MPI_Wait", 20, 70, r0.idoneEv(70, "MPI_Iallreduce", 1, -1, 8, 8)).compute(70, 100).leave(100, "main")
			r1 := b.rank(1)
			r1.enter(0, "main").istart("MPI_Iallreduce", 0, 5, 1).compute(5, 30).
				call("MPI_Wait", 30, 70, r1.idoneEv(70, "MPI_Iallreduce", 1, -1, 8, 8)).compute(70, 100).leave(100, "main")
			r2 := b.rank(2)
			r2.enter(0, "main").compute(0, 60).istart("MPI_Iallreduce", 60, 65, 7).compute(65, 70).
				call("MPI_Wait", 70, 75, r2.idoneEv(75, "MPI_Iallreduce", 7, -1, 8, 8)).compute(75, 100).leave(100, "main")
		},
		total: 300,
		waits: []WaitState{
			ws(WaitINxN, 0, "main/MPI_Wait", 40, 1),
			ws(WaitINxN, 1, "main/MPI_Wait", 30, 1),
		},
		cp: &CriticalPath{Length: 100,
			Profile:   []CriticalRegion{{"MPI_Wait", 10, 5.0 / 3}, {"compute", 90, 80.0 / 3}},
			Locations: []CriticalLocation{cl(0, 40), cl(2, 60)}},
	},
	{
		// MPI_Ibcast from rank 0, which starts it last (S = 50). Rank 1
		// waits min(50, 60) − 10 = 40, rank 2 50 − 40 = 10; the root
		// waits for nobody. Critical path: rank 0 has no hand-over:
		// [0, 100] on rank 0: compute 90, MPI_Ibcast 5, MPI_Wait 5.
		// Imbalance: compute 90 − (90 + 45 + 75)/3 = 20; MPI_Ibcast
		// 5 − 15/3 = 0; MPI_Wait 5 − (5 + 50 + 20 − 50)/3 < 0: 0.
		name:  "late_ibroadcast",
		ranks: 3,
		build: func(b *traceBuilder) {
			r0 := b.rank(0)
			r0.enter(0, "main").compute(0, 50).istart("MPI_Ibcast", 50, 55, 3).compute(55, 60).
				call("MPI_Wait", 60, 65, r0.idoneEv(65, "MPI_Ibcast", 3, 0, 16, 0)).compute(65, 100).leave(100, "main")
			r1 := b.rank(1)
			r1.enter(0, "main").istart("MPI_Ibcast", 0, 5, 1).compute(5, 10).
				call("MPI_Wait", 10, 60, r1.idoneEv(60, "MPI_Ibcast", 1, 0, 0, 8)).compute(60, 100).leave(100, "main")
			r2 := b.rank(2)
			r2.enter(0, "main").istart("MPI_Ibcast", 0, 5, 1).compute(5, 40).
				call("MPI_Wait", 40, 60, r2.idoneEv(60, "MPI_Ibcast", 1, 0, 0, 8)).compute(60, 100).leave(100, "main")
		},
		total: 300,
		waits: []WaitState{
			ws(LateIBroadcast, 1, "main/MPI_Wait", 40, 1),
			ws(LateIBroadcast, 2, "main/MPI_Wait", 10, 1),
		},
		cp: &CriticalPath{Length: 100,
			Profile:   []CriticalRegion{{"MPI_Ibcast", 5, 0}, {"MPI_Wait", 5, 0}, {"compute", 90, 20}},
			Locations: []CriticalLocation{cl(0, 100)}},
	},
	{
		// MPI_Ireduce to rank 0, which waits from 10 in MPI_Wait for the
		// first other member to start (rank 1 at 30): min(30, 50) − 10 =
		// 20, no delayer (so no hand-over). Critical path: [0, 100] on
		// rank 0: MPI_Ireduce 5, compute 55, MPI_Wait 40. Imbalance:
		// compute 55 − (55 + 90 + 90)/3 < 0: 0; MPI_Ireduce 5 − 15/3 = 0;
		// MPI_Wait 40 − (40 + 5 + 5 − 20)/3 = 30.
		name:  "early_ireduce",
		ranks: 3,
		build: func(b *traceBuilder) {
			r0 := b.rank(0)
			r0.enter(0, "main").istart("MPI_Ireduce", 0, 5, 1).compute(5, 10).
				call("MPI_Wait", 10, 50, r0.idoneEv(50, "MPI_Ireduce", 1, 0, 8, 24)).compute(50, 100).leave(100, "main")
			r1 := b.rank(1)
			r1.enter(0, "main").compute(0, 30).istart("MPI_Ireduce", 30, 35, 1).
				call("MPI_Wait", 35, 40, r1.idoneEv(40, "MPI_Ireduce", 1, 0, 8, 0)).compute(40, 100).leave(100, "main")
			r2 := b.rank(2)
			r2.enter(0, "main").compute(0, 40).istart("MPI_Ireduce", 40, 45, 1).
				call("MPI_Wait", 45, 50, r2.idoneEv(50, "MPI_Ireduce", 1, 0, 8, 0)).compute(50, 100).leave(100, "main")
		},
		total: 300,
		waits: []WaitState{ws(EarlyIReduce, 0, "main/MPI_Wait", 20, 1)},
		cp: &CriticalPath{Length: 100,
			Profile:   []CriticalRegion{{"MPI_Ireduce", 5, 0}, {"MPI_Wait", 40, 30}, {"compute", 55, 0}},
			Locations: []CriticalLocation{cl(0, 100)}},
	},
	{
		// MPI_Iscan: rank 0 starts it last (S = 40). Rank 1 waits for
		// rank 0: 40 − 10 = 30; rank 2 for the latest of ranks 0 and 1
		// (rank 0): 40 − 30 = 10. Critical path: rank 0 has no hand-over:
		// [0, 100] on rank 0: compute 90, MPI_Iscan 5, MPI_Wait 5.
		// Imbalance: compute 90 − (90 + 45 + 65)/3 = 70/3; MPI_Iscan
		// 5 − 15/3 = 0; MPI_Wait 5 − (5 + 50 + 30 − 30 − 10)/3 < 0: 0.
		name:  "early_iscan",
		ranks: 3,
		build: func(b *traceBuilder) {
			r0 := b.rank(0)
			r0.enter(0, "main").compute(0, 40).istart("MPI_Iscan", 40, 45, 1).
				call("MPI_Wait", 45, 50, r0.idoneEv(50, "MPI_Iscan", 1, -1, 8, 8)).compute(50, 100).leave(100, "main")
			r1 := b.rank(1)
			r1.enter(0, "main").istart("MPI_Iscan", 0, 5, 1).compute(5, 10).
				call("MPI_Wait", 10, 60, r1.idoneEv(60, "MPI_Iscan", 1, -1, 8, 8)).compute(60, 100).leave(100, "main")
			r2 := b.rank(2)
			r2.enter(0, "main").istart("MPI_Iscan", 0, 5, 1).compute(5, 30).
				call("MPI_Wait", 30, 60, r2.idoneEv(60, "MPI_Iscan", 1, -1, 8, 8)).compute(60, 100).leave(100, "main")
		},
		total: 300,
		waits: []WaitState{
			ws(EarlyIScan, 1, "main/MPI_Wait", 30, 1),
			ws(EarlyIScan, 2, "main/MPI_Wait", 10, 1),
		},
		cp: &CriticalPath{Length: 100,
			Profile:   []CriticalRegion{{"MPI_Iscan", 5, 0}, {"MPI_Wait", 5, 0}, {"compute", 90, 70.0 / 3}},
			Locations: []CriticalLocation{cl(0, 100)}},
	},
	{
		// Two MPI_Ibarriers on MPI_COMM_WORLD, the n-th of each rank
		// forming instance n. Rank 0 completes both in one MPI_Waitall
		// [20, 90]: 40 − 20 = 20 for the first (rank 1 starts it at 40),
		// 80 − 20 = 60 for the second: one instance of 60, the delayer
		// rank 1's second MPI_Ibarrier. Rank 1 completes the first in
		// MPI_Test (no wait) and the second in MPI_Wait [90, 95] after
		// rank 0 started it: none.
		// Critical path: rank 0 hands over at 20 + 60 = 80 to rank 1 at
		// 80: [80, 100] on rank 0 (MPI_Waitall 10, compute 10), [0, 80] on
		// rank 1 (compute 75, MPI_Ibarrier 5). Imbalance (2 locations):
		// compute 85 − (20 + 80)/2 = 35; MPI_Ibarrier 5 − 20/2 < 0: 0;
		// MPI_Waitall 10 − (70 − 60)/2 = 5.
		name:  "wait_ibarrier_waitall",
		ranks: 2,
		build: func(b *traceBuilder) {
			r0 := b.rank(0)
			r0.enter(0, "main").istart("MPI_Ibarrier", 0, 5, 1).istart("MPI_Ibarrier", 5, 10, 2).compute(10, 20).
				call("MPI_Waitall", 20, 90, r0.idoneEv(90, "MPI_Ibarrier", 1, -1, 0, 0), r0.idoneEv(90, "MPI_Ibarrier", 2, -1, 0, 0)).
				compute(90, 100).leave(100, "main")
			r1 := b.rank(1)
			r1.enter(0, "main").compute(0, 40).istart("MPI_Ibarrier", 40, 45, 1).compute(45, 80).
				istart("MPI_Ibarrier", 80, 85, 2).
				call("MPI_Test", 85, 90, r1.idoneEv(90, "MPI_Ibarrier", 1, -1, 0, 0)).
				call("MPI_Wait", 90, 95, r1.idoneEv(95, "MPI_Ibarrier", 2, -1, 0, 0)).compute(95, 100).leave(100, "main")
		},
		total: 200,
		waits: []WaitState{ws(WaitIBarrier, 0, "main/MPI_Waitall", 60, 1)},
		cp: &CriticalPath{Length: 100,
			Profile:   []CriticalRegion{{"MPI_Ibarrier", 5, 0}, {"MPI_Waitall", 10, 5}, {"compute", 85, 35}},
			Locations: []CriticalLocation{cl(0, 20), cl(1, 80)}},
	},
}
