package waitstate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace/model"
)

func ipost(op model.RegionID, req uint64) model.Event {
	return model.Event{Kind: model.KindCollPost, Region: op, Match: req}
}

func idone(op model.RegionID, req uint64) model.Event {
	return model.Event{Kind: model.KindCollDone, Region: op, Comm: 1, Bytes: 8, Recvd: 8, Class: model.ClassAllToAll, Match: req}
}

// TestICollRules checks the rules of doc/waitstates.md §2.6 on small
// traces, in the streaming analysis and the reference alike.
func TestICollRules(t *testing.T) {
	tests := []struct {
		name   string
		build  func(b *tb)
		want   []WaitState
		incomp int64 // Diagnostics.IncompleteColls
	}{
		{
			// MPI_Waitall completes a late message (ls = 40 − 10 = 30) and
			// an Iallreduce rank 2 started at 50 (60 − 10 = 40 … but the
			// call has a late sender): late_sender only.
			name: "late sender first",
			build: func(b *tb) {
				a := b.reg("MPI_Iallreduce")
				b.enter(1, 0, "main").call(1, 0, 5, "MPI_Iallreduce", ipost(a, 1)).call(1, 5, 6, "MPI_Irecv", post(2)).
					call(1, 10, 70, "MPI_Waitall", recvReq(2, 0, 2), idone(a, 1)).leave(1, 100, "main")
				b.enter(2, 0, "main").call(2, 40, 45, "MPI_Send", send(1, 0)).call(2, 50, 55, "MPI_Iallreduce", ipost(a, 9)).
					call(2, 60, 70, "MPI_Wait", idone(a, 9)).leave(2, 100, "main")
			},
			want: []WaitState{{LateSender, 1, "main/MPI_Waitall", 30, 1}},
		},
		{
			// Rank 1's first Iallreduce never completes: no member, counted;
			// its second pairs with rank 2's only one: 50 − 20 = 30.
			name: "never completed",
			build: func(b *tb) {
				a := b.reg("MPI_Iallreduce")
				b.enter(1, 0, "main").call(1, 0, 5, "MPI_Iallreduce", ipost(a, 1)).call(1, 10, 15, "MPI_Iallreduce", ipost(a, 2)).
					call(1, 20, 60, "MPI_Wait", idone(a, 2)).leave(1, 100, "main")
				b.enter(2, 0, "main").call(2, 50, 55, "MPI_Iallreduce", ipost(a, 1)).
					call(2, 55, 60, "MPI_Wait", idone(a, 1)).leave(2, 100, "main")
			},
			want:   []WaitState{{WaitINxN, 1, "main/MPI_Wait", 30, 1}},
			incomp: 1,
		},
		{
			// A CollDone never posted was started by its own call (S = 0);
			// rank 2 started at 30: rank 1 waits 30 − 0 = 30. The Post's
			// communicator stands for the Done's 0.
			name: "never posted, post's communicator",
			build: func(b *tb) {
				a := b.reg("MPI_Iallreduce")
				b.enter(1, 0, "main").call(1, 0, 50, "MPI_Wait", idone(a, 4)).leave(1, 100, "main")
				p := ipost(a, 3)
				p.Comm = 1
				d := idone(a, 3)
				d.Comm = 0
				b.enter(2, 0, "main").call(2, 30, 35, "MPI_Iallreduce", p).call(2, 40, 50, "MPI_Wait", d).leave(2, 100, "main")
			},
			want: []WaitState{{WaitINxN, 1, "main/MPI_Wait", 30, 1}},
		},
		{
			// Completed in MPI_Test: no wait, though rank 2 started late.
			name: "test",
			build: func(b *tb) {
				a := b.reg("MPI_Ibarrier")
				b.enter(1, 0, "main").call(1, 0, 5, "MPI_Ibarrier", ipost(a, 1)).call(1, 10, 60, "MPI_Test", idone(a, 1)).leave(1, 100, "main")
				b.enter(2, 0, "main").call(2, 50, 55, "MPI_Ibarrier", ipost(a, 1)).call(2, 55, 60, "MPI_Wait", idone(a, 1)).leave(2, 100, "main")
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newTB(2)
			tt.build(b)
			got := b.analyze(t, nil)
			if diff := cmp.Diff(tt.want, rows(got)); diff != "" {
				t.Errorf("streaming (-want +got):\n%s", diff)
			}
			if got.Diagnostics.IncompleteColls != tt.incomp {
				t.Errorf("IncompleteColls = %d, want %d", got.Diagnostics.IncompleteColls, tt.incomp)
			}
			ref := refAnalyze(b.defs, b.ev).report
			if diff := cmp.Diff(tt.want, rows(ref)); diff != "" {
				t.Errorf("reference (-want +got):\n%s", diff)
			}
		})
	}
}
