package waitstate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace/model"
)

// rows returns the report's rows of the patterns of §2 (not the derived views).
func rows(r *Report) []WaitState {
	var out []WaitState
	for _, w := range r.WaitStates {
		if w.Pattern < LateSenderDirect {
			out = append(out, w)
		}
	}
	return out
}

func TestPatterns(t *testing.T) {
	tests := []struct {
		name  string
		build func(b *tb)
		want  []WaitState
		diag  Diagnostics // only the fields checked below
	}{
		{
			name: "late sender",
			build: func(b *tb) {
				b.enter(1, 0, "main").call(1, 300, 310, "MPI_Send", send(2, 1)).leave(1, 1000, "main")
				b.enter(2, 0, "main").call(2, 100, 320, "MPI_Recv", recv(1, 1)).leave(2, 1000, "main")
			},
			want: []WaitState{{LateSender, 2, "main/MPI_Recv", 200, 1}},
		},
		{
			name: "late sender clamped by a clock violation",
			build: func(b *tb) {
				b.enter(1, 0, "main").call(1, 400, 410, "MPI_Send", send(2, 1)).leave(1, 1000, "main")
				b.enter(2, 0, "main").call(2, 100, 300, "MPI_Recv", recv(1, 1)).leave(2, 1000, "main")
			},
			want: []WaitState{{LateSender, 2, "main/MPI_Recv", 200, 1}},
			diag: Diagnostics{ClockViolations: 1},
		},
		{
			name: "latest sender of a waitall",
			build: func(b *tb) {
				b.enter(1, 0, "main").call(1, 200, 210, "MPI_Send", send(3, 1)).leave(1, 1000, "main")
				b.enter(2, 0, "main").call(2, 500, 510, "MPI_Send", send(3, 1)).leave(2, 1000, "main")
				b.enter(3, 0, "main").
					call(3, 10, 20, "MPI_Irecv", post(1)).
					call(3, 20, 30, "MPI_Irecv", post(2)).
					call(3, 100, 600, "MPI_Waitall", recvReq(1, 1, 1), recvReq(2, 1, 2)).
					leave(3, 1000, "main")
			},
			want: []WaitState{{LateSender, 3, "main/MPI_Waitall", 400, 1}},
		},
		{
			name: "test calls have no late sender",
			build: func(b *tb) {
				b.enter(1, 0, "main").call(1, 300, 310, "MPI_Send", send(2, 1)).leave(1, 1000, "main")
				b.enter(2, 0, "main").call(2, 100, 320, "MPI_Test", recv(1, 1)).leave(2, 1000, "main")
			},
		},
		{
			name: "wrong order",
			build: func(b *tb) {
				b.enter(1, 0, "main").call(1, 250, 260, "MPI_Send", send(3, 1)).leave(1, 1000, "main")
				b.enter(2, 0, "main").call(2, 50, 60, "MPI_Send", send(3, 1)).leave(2, 1000, "main")
				b.enter(3, 0, "main").
					call(3, 100, 300, "MPI_Recv", recv(1, 1)).
					call(3, 300, 310, "MPI_Recv", recv(2, 1)).
					leave(3, 1000, "main")
			},
			want: []WaitState{{LateSender, 3, "main/MPI_Recv", 150, 1}, {LateSenderWrongOrder, 3, "main/MPI_Recv", 150, 1}},
		},
		{
			name: "late receiver",
			build: func(b *tb) {
				b.enter(1, 0, "main").call(1, 100, 500, "MPI_Ssend", send(2, 1)).leave(1, 1000, "main")
				b.enter(2, 0, "main").call(2, 400, 510, "MPI_Recv", recv(1, 1)).leave(2, 1000, "main")
			},
			want: []WaitState{{LateReceiver, 1, "main/MPI_Ssend", 300, 1}},
		},
		{
			name: "late receiver: posting call of an irecv, completion of an isend",
			build: func(b *tb) {
				b.enter(1, 0, "main").call(1, 100, 110, "MPI_Isend", isend(2, 1, 7)).call(1, 120, 500, "MPI_Wait", done(7)).leave(1, 1000, "main")
				b.enter(2, 0, "main").call(2, 300, 310, "MPI_Irecv", post(3)).call(2, 600, 610, "MPI_Wait", recvReq(1, 1, 3)).leave(2, 1000, "main")
			},
			want: []WaitState{{LateReceiver, 1, "main/MPI_Wait", 180, 1}},
		},
		{
			name: "buffered send does not wait",
			build: func(b *tb) {
				b.enter(1, 0, "main").call(1, 100, 110, "MPI_Send", send(2, 1)).leave(1, 1000, "main")
				b.enter(2, 0, "main").call(2, 400, 510, "MPI_Recv", recv(1, 1)).leave(2, 1000, "main")
			},
		},
		{
			name: "barrier",
			build: func(b *tb) {
				for i, ex := range [][2]model.Time{{100, 410}, {200, 420}, {400, 430}} {
					l := model.LocID(i + 1)
					b.enter(l, 0, "main").call(l, ex[0], ex[1], "MPI_Barrier", coll(0, 0)).leave(l, 1000, "main")
				}
			},
			want: []WaitState{
				{WaitBarrier, 1, "main/MPI_Barrier", 300, 1}, {WaitBarrier, 2, "main/MPI_Barrier", 200, 1},
				{BarrierCompletion, 2, "main/MPI_Barrier", 10, 1}, {BarrierCompletion, 3, "main/MPI_Barrier", 20, 1},
			},
		},
		{
			name: "barrier by class (PICL sync0)",
			build: func(b *tb) {
				for i, ex := range [][2]model.Time{{100, 410}, {400, 430}} {
					l := model.LocID(i + 1)
					ev := coll(0, 0)
					ev.Class = model.ClassBarrier
					b.enter(l, 0, "main").call(l, ex[0], ex[1], "sync0", ev).leave(l, 1000, "main")
				}
			},
			want: []WaitState{{WaitBarrier, 1, "main/sync0", 300, 1}, {BarrierCompletion, 2, "main/sync0", 20, 1}},
		},
		{
			name: "allreduce",
			build: func(b *tb) {
				for i, ex := range [][2]model.Time{{100, 500}, {300, 520}, {200, 510}} {
					l := model.LocID(i + 1)
					b.enter(l, 0, "main").call(l, ex[0], ex[1], "MPI_Allreduce", coll(0, 8)).leave(l, 1000, "main")
				}
			},
			want: []WaitState{
				{WaitNxN, 1, "main/MPI_Allreduce", 200, 1}, {WaitNxN, 3, "main/MPI_Allreduce", 100, 1},
				{NxNCompletion, 2, "main/MPI_Allreduce", 20, 1}, {NxNCompletion, 3, "main/MPI_Allreduce", 10, 1},
			},
		},
		{
			name: "broadcast",
			build: func(b *tb) {
				b.enter(1, 0, "main").call(1, 300, 310, "MPI_Bcast", coll(1, 0)).leave(1, 1000, "main")
				b.enter(2, 0, "main").call(2, 100, 320, "MPI_Bcast", coll(1, 8)).leave(2, 1000, "main")
				b.enter(3, 0, "main").call(3, 350, 360, "MPI_Bcast", coll(1, 8)).leave(3, 1000, "main")
			},
			want: []WaitState{{LateBroadcast, 2, "main/MPI_Bcast", 200, 1}},
		},
		{
			name: "reduce",
			build: func(b *tb) {
				b.enter(1, 0, "main").call(1, 100, 500, "MPI_Reduce", coll(1, 16)).leave(1, 1000, "main")
				b.enter(2, 0, "main").call(2, 300, 320, "MPI_Reduce", coll(1, 0)).leave(2, 1000, "main")
				b.enter(3, 0, "main").call(3, 450, 460, "MPI_Reduce", coll(1, 0)).leave(3, 1000, "main")
			},
			want: []WaitState{{EarlyReduce, 1, "main/MPI_Reduce", 200, 1}},
		},
		{
			name: "scan",
			build: func(b *tb) {
				b.enter(1, 0, "main").call(1, 300, 310, "MPI_Scan", coll(0, 8)).leave(1, 1000, "main")
				b.enter(2, 0, "main").call(2, 100, 320, "MPI_Scan", coll(0, 8)).leave(2, 1000, "main")
				b.enter(3, 0, "main").call(3, 200, 330, "MPI_Scan", coll(0, 8)).leave(3, 1000, "main")
			},
			want: []WaitState{{EarlyScan, 2, "main/MPI_Scan", 200, 1}, {EarlyScan, 3, "main/MPI_Scan", 100, 1}},
		},
		{
			name: "init and finalize",
			build: func(b *tb) {
				b.enter(1, 0, "main").call(1, 0, 100, "MPI_Init").call(1, 500, 900, "MPI_Finalize").leave(1, 1000, "main")
				b.enter(2, 0, "main").call(2, 0, 130, "MPI_Init").call(2, 800, 910, "MPI_Finalize").leave(2, 1000, "main")
			},
			want: []WaitState{{InitCompletion, 2, "main/MPI_Init", 30, 1}, {WaitFinalize, 1, "main/MPI_Finalize", 300, 1}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newTB(3)
			tc.build(b)
			r := b.analyze(t, nil)
			if diff := cmp.Diff(tc.want, rows(r), cmpEmpty); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
			if got, want := r.Diagnostics.ClockViolations, tc.diag.ClockViolations; got != want {
				t.Errorf("ClockViolations: got %d, want %d", got, want)
			}
		})
	}
}

var cmpEmpty = cmp.Transformer("empty", func(s []WaitState) []WaitState {
	if len(s) == 0 {
		return nil
	}
	return s
})
