package waitstate

import (
	"cmp"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/hpctrace/hpctrace/model"
)

// genStreamProgram draws an MPI program of 2 to 4 locations: computation,
// blocking and non-blocking messages, collectives, non-blocking
// collectives, Init and Finalize, with
// independent clocks (so clock violations occur), and returns its events
// interleaved at random (each location's in order).
func genStreamProgram(t *rapid.T) (*model.Defs, []model.Event) {
	nloc := rapid.IntRange(2, 4).Draw(t, "nloc")
	b := newTB(nloc)
	clock := make([]model.Time, nloc+1)
	per := make([][]model.Event, nloc+1)
	adv := func(l int) model.Time {
		clock[l] += model.Time(rapid.IntRange(0, 20).Draw(t, "dt"))
		return clock[l]
	}
	emit := func(l int, kind model.Kind, name string, inner ...model.Event) {
		ev := model.Event{Kind: kind, Loc: model.LocID(l), Time: adv(l), Region: b.reg(name)}
		per[l] = append(per[l], ev)
		for _, x := range inner {
			x.Loc, x.Time = model.LocID(l), clock[l]
			per[l] = append(per[l], x)
		}
	}
	call := func(l int, name string, inner ...model.Event) {
		emit(l, model.KindEnter, name, inner...)
		emit(l, model.KindLeave, name)
	}
	req := uint64(0)
	for l := 1; l <= nloc; l++ {
		clock[l] = model.Time(rapid.IntRange(0, 5).Draw(t, "start"))
		emit(l, model.KindEnter, "main")
		call(l, "MPI_Init")
	}
	collOps := []string{"MPI_Barrier", "MPI_Allreduce", "MPI_Bcast", "MPI_Reduce", "MPI_Scan", "MPI_Alltoall"}
	steps := rapid.IntRange(0, 25).Draw(t, "steps")
	for range steps {
		s := rapid.IntRange(1, nloc).Draw(t, "s")
		r := rapid.IntRange(1, nloc).Draw(t, "r")
		tag := int32(rapid.IntRange(0, 1).Draw(t, "tag"))
		switch rapid.IntRange(0, 6).Draw(t, "action") {
		case 0:
			call(s, "compute")
		case 1:
			call(s, rapid.SampledFrom([]string{"MPI_Send", "MPI_Ssend"}).Draw(t, "sendop"), send(model.LocID(r), tag))
			call(r, "MPI_Recv", recv(model.LocID(s), tag))
		case 2:
			req++
			rs, rr := req, req+1
			req++
			call(s, "MPI_Isend", isend(model.LocID(r), tag, rs))
			call(r, "MPI_Irecv", post(rr))
			call(s, "compute")
			call(s, "MPI_Wait", done(rs))
			call(r, "MPI_Wait", recvReq(model.LocID(s), tag, rr))
		case 3:
			call(s, "MPI_Sendrecv", send(model.LocID(r), tag), recv(model.LocID(r), tag))
			call(r, "MPI_Sendrecv", send(model.LocID(s), tag), recv(model.LocID(s), tag))
		case 4, 5:
			op := rapid.SampledFrom(collOps).Draw(t, "coll")
			root := model.LocID(rapid.IntRange(1, nloc).Draw(t, "root"))
			for l := 1; l <= nloc; l++ {
				recvd := int64(8)
				if (op == "MPI_Bcast" && model.LocID(l) == root) || (op == "MPI_Reduce" && model.LocID(l) != root) {
					recvd = 0
				}
				call(l, op, coll(root, recvd))
			}
		case 6: // a non-blocking collective, some completed in MPI_Waitall with a message
			op := rapid.SampledFrom([]string{"MPI_Ibarrier", "MPI_Iallreduce", "MPI_Ibcast", "MPI_Ireduce", "MPI_Iscan"}).Draw(t, "icoll")
			root := model.LocID(rapid.IntRange(1, nloc).Draw(t, "iroot"))
			req++
			for l := 1; l <= nloc; l++ {
				recvd := int64(8)
				if (op == "MPI_Ibcast" && model.LocID(l) == root) || (op == "MPI_Ireduce" && model.LocID(l) != root) {
					recvd = 0
				}
				call(l, op, model.Event{Kind: model.KindCollPost, Region: b.reg(op), Match: req})
				if rapid.Bool().Draw(t, "icompute") {
					call(l, "compute")
				}
				done := model.Event{Kind: model.KindCollDone, Region: b.reg(op), Comm: 1, Peer: root, Bytes: 8, Recvd: recvd, Match: req}
				call(l, rapid.SampledFrom([]string{"MPI_Wait", "MPI_Test"}).Draw(t, "icomplete"), done)
			}
		}
	}
	for l := 1; l <= nloc; l++ {
		call(l, "MPI_Finalize")
		if rapid.Bool().Draw(t, "leave main") {
			emit(l, model.KindLeave, "main")
		}
	}
	// Interleave the locations' streams at random.
	var evs []model.Event
	pos := make([]int, nloc+1)
	for {
		var live []int
		for l := 1; l <= nloc; l++ {
			if pos[l] < len(per[l]) {
				live = append(live, l)
			}
		}
		if len(live) == 0 {
			break
		}
		l := live[rapid.IntRange(0, len(live)-1).Draw(t, "next")]
		evs = append(evs, per[l][pos[l]])
		pos[l]++
	}
	return b.defs, evs
}

func TestSortRuns(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := rapid.SliceOf(rapid.IntRange(0, 20)).Draw(t, "a")
		b := rapid.SliceOf(rapid.IntRange(0, 20)).Draw(t, "b")
		if rapid.Bool().Draw(t, "runs") {
			slices.Sort(a)
			slices.Sort(b)
		}
		v := append(slices.Clone(a), b...)
		want := slices.Sorted(slices.Values(v))
		sortRuns(v, nil, cmp.Compare[int])
		if !slices.Equal(v, want) {
			t.Fatalf("got %v, want %v", v, want)
		}
	})
}
