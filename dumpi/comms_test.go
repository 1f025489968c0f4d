package dumpi

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace/internal/cputime"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
	"pgregory.net/rapid"
)

// derivedComm is a communicator of the test run and its expected
// membership in world ranks (remote: an intercommunicator's other group).
type derivedComm struct {
	name            string
	members, remote []int32
}

// derivedRun returns the calls of a 6-rank run that makes a communicator
// with every constructor DUMPI records, each with a known membership, and
// then exchanges messages and runs collectives on each of them. handles[r]
// maps each rank's communicator handles to the derived communicators'
// names.
func derivedRun() (ranks [][]Args, comms []derivedComm, handles []map[Comm]string) {
	const n = 6
	comms = []derivedComm{
		{"split0", []int32{4, 2, 0}, nil}, // Comm_split color r%2, key -r
		{"split1", []int32{5, 3, 1}, nil},
		{"dup0", []int32{4, 2, 0}, nil}, // Comm_dup of the split
		{"dup1", []int32{5, 3, 1}, nil},
		{"create", []int32{5, 1, 3}, nil},             // Comm_create of Group_incl [5 1 3]
		{"create2", []int32{2, 4}, nil},               // after Comm_free, the handle reused: Group_intersection
		{"cart", []int32{0, 1, 2, 3, 4, 5}, nil},      // Cart_create 2×3
		{"row0", []int32{0, 1, 2}, nil},               // Cart_sub keeping dimension 1
		{"row1", []int32{3, 4, 5}, nil},               //
		{"graph", []int32{0, 1, 2, 3}, nil},           // Graph_create of 4 nodes
		{"inter", []int32{4, 2, 0}, []int32{5, 3, 1}}, // Intercomm_create of the splits
		{"merged", []int32{4, 2, 0, 5, 3, 1}, nil},    // Intercomm_merge, high = color
		{"union", []int32{5, 1, 3, 0, 2, 4}, nil},     // Comm_create of Group_union
		{"rangeincl", []int32{0, 2, 4}, nil},          // Comm_create of Group_range_incl
		{"diff", []int32{0, 2, 4}, nil},               // Comm_create of Group_difference: a second communicator of the same ranks
	}
	byName := map[string]derivedComm{}
	for _, c := range comms {
		byName[c.name] = c
	}
	for r := range int32(n) {
		h := map[Comm]string{}
		color := r % 2
		var calls []Args
		calls = append(calls, &Init{})
		// bind appends a constructor's result handle when r is a member.
		bind := func(name string, c Comm) Comm {
			if slices.Contains(byName[name].members, r) || slices.Contains(byName[name].remote, r) {
				h[c] = name
				return c
			}
			return MPI_COMM_NULL
		}
		split := [2]string{"split0", "split1"}[color]
		dup := [2]string{"dup0", "dup1"}[color]
		calls = append(calls,
			&CommSplit{Oldcomm: MPI_COMM_WORLD, Color: color, Key: -r, Newcomm: bind(split, 4)},
			&CommDup{Oldcomm: 4, Newcomm: bind(dup, 5)},
			&CommGroup{Comm: MPI_COMM_WORLD, Group: 3},
			&GroupIncl{Group: 3, Count: 3, Ranks: []int32{5, 1, 3}, Newgroup: 4},
			&GroupExcl{Group: 3, Count: 1, Ranks: []int32{0}, Newgroup: 5},                  // 1..5
			&GroupRangeIncl{Group: 3, Count: 1, Ranges: [][]int32{{0, 4, 2}}, Newgroup: 6},  // 0 2 4
			&GroupRangeExcl{Group: 3, Count: 1, Ranges: [][]int32{{5, 1, -2}}, Newgroup: 7}, // 0 2 4
			&GroupUnion{Group1: 4, Group2: 7, Newgroup: 8},                                  // 5 1 3 0 2 4
			&GroupIntersection{Group1: 5, Group2: 6, Newgroup: 9},                           // 2 4
			&GroupDifference{Group1: 3, Group2: 4, Newgroup: 10},                            // 0 2 4
			&CommCreate{Oldcomm: MPI_COMM_WORLD, Group: 4, Newcomm: bind("create", 6)},
		)
		// Free the dup; the next communicator reuses its handle.
		delete(h, 5)
		calls = append(calls, &CommFree{Comm: 5},
			&CommCreate{Oldcomm: MPI_COMM_WORLD, Group: 9, Newcomm: bind("create2", 5)},
			&CartCreate{Oldcomm: MPI_COMM_WORLD, Ndim: 2, Dims: []int32{2, 3}, Periods: []int32{0, 0}, Newcomm: bind("cart", 7)},
			&CartSub{Ndim: 2, Oldcomm: 7, RemainDims: []int32{0, 1}, Newcomm: bind([2]string{"row0", "row1"}[r/3], 8)},
			&GraphCreate{Numedges: 0, Oldcomm: MPI_COMM_WORLD, Nodes: 4, Index: []int32{0, 0, 0, 0}, Newcomm: bind("graph", 9)},
			&IntercommCreate{Localcomm: 4, Localleader: 0, Remotecomm: MPI_COMM_WORLD, Remoteleader: 5 - color, Tag: 99, Newcomm: bind("inter", 10)},
			&IntercommMerge{Comm: 10, High: color, Newcomm: bind("merged", 11)},
			&CommCreate{Oldcomm: MPI_COMM_WORLD, Group: 8, Newcomm: bind("union", 12)},
			&CommCreate{Oldcomm: MPI_COMM_WORLD, Group: 7, Newcomm: bind("rangeincl", 13)},
			&CommCreate{Oldcomm: MPI_COMM_WORLD, Group: 10, Newcomm: bind("diff", 14)},
		)
		for _, g := range []Group{3, 4, 5, 6, 7, 8, 9, 10} {
			calls = append(calls, &GroupFree{Group: g})
		}
		// Traffic: on each communicator, a ring of Sendrecv, a Comm_rank
		// and Comm_size checked against the membership, a Bcast from rank
		// 1 and an Allreduce; on the intercommunicator, rank i exchanges
		// with remote rank i.
		hs := slices.Sorted(func(yield func(Comm) bool) {
			for c := range h {
				if !yield(c) {
					return
				}
			}
		})
		for _, c := range hs {
			d := byName[h[c]]
			local, peers := d.members, d.remote
			if slices.Contains(d.remote, r) {
				local, peers = d.remote, d.members
			}
			me := int32(slices.Index(local, r))
			calls = append(calls, &CommRank{Comm: c, Rank: me}, &CommSize{Comm: c, Size: int32(len(local))})
			if peers == nil {
				k := int32(len(local))
				calls = append(calls,
					&Sendrecv{Sendcount: 2, Sendtype: MPI_INT, Dest: (me + 1) % k, Sendtag: int32(c),
						Recvcount: 2, Recvtype: MPI_INT, Source: (me + k - 1) % k, Recvtag: int32(c), Comm: c},
					&Bcast{Count: 1, Datatype: MPI_INT, Root: 1, Comm: c},
					&Allreduce{Count: 1, Datatype: MPI_INT, Comm: c})
			} else {
				calls = append(calls, &Sendrecv{Sendcount: 1, Sendtype: MPI_INT, Dest: me, Sendtag: 5,
					Recvcount: 1, Recvtype: MPI_INT, Source: me, Recvtag: 5, Comm: c},
					&Barrier{Comm: c})
			}
		}
		calls = append(calls, &Finalize{})
		ranks = append(ranks, calls)
		handles = append(handles, h)
	}
	return ranks, comms, handles
}

// TestDerivedComms writes a run with every communicator constructor and
// checks the reconstructed memberships, the peers of every message, and
// that stats matches every message and completes every collective.
func TestDerivedComms(t *testing.T) {
	ranks, comms, handles := derivedRun()
	meta := writeRun(t, t.TempDir(), "derived", ranks, nil)
	run, err := OpenRun(meta, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	src, err := NewModelSource(run, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := src.Defs()
	worldOf := func(l model.LocID) int32 {
		loc, _ := d.Location(l)
		return int32(loc.Native)
	}
	acc := stats.New(d, nil)
	sends, recvs := 0, 0
	for ev, err := range src.All() {
		if err != nil {
			t.Fatal(err)
		}
		acc.Add(ev)
		if ev.Kind != model.KindSend && ev.Kind != model.KindRecv {
			continue
		}
		if ev.Peer == 0 {
			t.Errorf("%v at rank %d on comm %d: no peer", ev.Kind, worldOf(ev.Loc), ev.Comm)
		}
		if ev.Kind == model.KindSend {
			sends++
		} else {
			recvs++
		}
	}
	if err := src.Err(); err != nil {
		t.Fatal(err)
	}
	rep := src.CommReport()
	if rep.Reconstructed != len(comms) || rep.Unknown != 0 || rep.UnknownMessages != 0 ||
		rep.UnknownCollectives != 0 || rep.Mismatches != 0 || len(rep.Notes) != 0 {
		t.Errorf("report %+v, want %d reconstructed and nothing else", rep, len(comms))
	}
	// Definitions: every derived communicator with its members.
	var got []derivedComm
	toWorld := func(ls []model.LocID) []int32 {
		if ls == nil {
			return nil
		}
		out := make([]int32, len(ls))
		for i, l := range ls {
			out[i] = worldOf(l)
		}
		return out
	}
	for _, c := range d.Comms()[2:] {
		got = append(got, derivedComm{members: toWorld(c.Members), remote: toWorld(c.Remote)})
	}
	var want []derivedComm
	for _, c := range comms {
		want = append(want, derivedComm{members: c.members, remote: c.remote})
	}
	sortComms := func(s []derivedComm) {
		slices.SortFunc(s, func(a, b derivedComm) int {
			if c := slices.Compare(a.members, b.members); c != 0 {
				return c
			}
			return slices.Compare(a.remote, b.remote)
		})
	}
	sortComms(got)
	sortComms(want)
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(derivedComm{})); diff != "" {
		t.Errorf("communicators (-want +got):\n%s", diff)
	}
	// Every rank's handles are bound to the expected communicator.
	for r, h := range handles {
		rm := src.ranks[r]
		for c, name := range h {
			ref, ok := rm.comms[c]
			if !ok || ref.v.g == nil {
				t.Errorf("rank %d handle %d (%s): not bound", r, c, name)
				continue
			}
			def, _ := d.Comm(ref.id)
			var w derivedComm
			for _, x := range comms {
				if x.name == name {
					w = x
				}
			}
			if !slices.Equal(toWorld(def.Members), w.members) {
				t.Errorf("rank %d handle %d: members %v, want %s %v", r, c, toWorld(def.Members), name, w.members)
			}
		}
	}
	f := acc.Finalize().Final
	diag := f.Diagnostics
	if sends != recvs || diag.MatchedMessages != int64(sends) || diag.UnmatchedSend != 0 || diag.UnmatchedRecv != 0 || diag.OpenCollectives != 0 {
		t.Errorf("%d sends, %d receives; stats: %+v", sends, recvs, diag)
	}
	// Each collective instance has all its communicator's members.
	count := map[[2]uint64]int{}
	for _, ci := range f.Collectives {
		count[[2]uint64{uint64(ci.CommID), ci.Instance}]++
	}
	for k, n := range count {
		c, _ := d.Comm(model.CommID(k[0]))
		if n != len(c.Members)+len(c.Remote) {
			t.Errorf("collective %d on %s: %d of %d members", k[1], c.Name, n, len(c.Members))
		}
	}
	// A Bcast and an Allreduce per intracommunicator but the two dups,
	// whose handle is freed before the traffic, and a Barrier of both
	// groups on the intercommunicator.
	if want := 2*(len(comms)-3) + 1; len(count) != want {
		t.Errorf("%d collective instances, want %d", len(count), want)
	}
}

// TestCommsUnknown checks the diagnostics where a run does not record
// enough to know a communicator's members: a handle no recorded call made
// (MPI-3 constructors such as MPI_Comm_split_type have no DUMPI label), a
// Comm_split that one member did not record, and a footer counting
// constructor calls that were not written.
func TestCommsUnknown(t *testing.T) {
	const n = 3
	var ranks [][]Args
	for r := range int32(n) {
		calls := []Args{&Init{}}
		if r != 2 {
			calls = append(calls, &CommSplit{Oldcomm: MPI_COMM_WORLD, Color: 0, Key: r, Newcomm: 4})
		}
		// Handle 9 was made by a call DUMPI does not record.
		calls = append(calls,
			&Sendrecv{Sendcount: 1, Sendtype: MPI_INT, Dest: (r + 1) % n, Sendtag: 1,
				Recvcount: 1, Recvtype: MPI_INT, Source: (r + n - 1) % n, Recvtag: 1, Comm: 9},
			&Barrier{Comm: 9})
		if r != 2 {
			calls = append(calls, &Send{Count: 1, Datatype: MPI_INT, Dest: 1 - r, Tag: 2, Comm: 4},
				&Recv{Count: 1, Datatype: MPI_INT, Source: 1 - r, Tag: 2, Comm: 4})
		}
		calls = append(calls, &Finalize{})
		ranks = append(ranks, calls)
	}
	meta := writeRun(t, t.TempDir(), "unknown", ranks, nil)
	run, err := OpenRun(meta, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	src, err := NewModelSource(run, nil)
	if err != nil {
		t.Fatal(err)
	}
	for ev, err := range src.All() {
		if err != nil {
			t.Fatal(err)
		}
		if (ev.Kind == model.KindSend || ev.Kind == model.KindRecv) && ev.Peer != 0 {
			t.Errorf("%v on comm %d mapped to peer %d", ev.Kind, ev.Comm, ev.Peer)
		}
	}
	rep := src.CommReport()
	// 3 Sendrecv (6 messages) on handle 9, 4 messages on the split.
	if rep.UnknownMessages != 10 || rep.UnknownCollectives != 3 || rep.Unknown != 5 || rep.Reconstructed != 0 {
		t.Errorf("report %+v", rep)
	}
	notes := strings.Join(rep.Notes, "\n")
	for _, w := range []string{"MPI_Comm_split: 2 of 3 members", "handle 9: 2 messages and 1 collectives", "created by no recorded call"} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes lack %q:\n%s", w, notes)
		}
	}

	// A single rank's file reconstructs nothing and says so.
	f := run.Files[0]
	one, err := NewModelSource(NewRun(f, 0), nil)
	if err != nil {
		t.Fatal(err)
	}
	for one.Next() {
	}
	rep = one.CommReport()
	if rep.UnknownMessages != 4 || !strings.Contains(strings.Join(rep.Notes, "\n"), "not all read") {
		t.Errorf("single file: report %+v", rep)
	}
}

// TestCommsFooterIgnored: a footer that counts constructor calls the file
// does not record gives a note.
func TestCommsFooterIgnored(t *testing.T) {
	dir := t.TempDir()
	var ft Footer
	ft.Called[LabelCommDup] = 2
	ft.Ignored[LabelCommDup] = 1
	ft.Called[LabelAllFunctions] = 2
	ft.Ignored[LabelAllFunctions] = 1
	meta := writeRunFooter(t, dir, "ign", [][]Args{{&CommDup{Oldcomm: MPI_COMM_WORLD, Newcomm: 4}}}, &ft)
	run, err := OpenRun(meta, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	src, err := NewModelSource(run, nil)
	if err != nil {
		t.Fatal(err)
	}
	for src.Next() {
	}
	rep := src.CommReport()
	if rep.Reconstructed != 1 || !strings.Contains(strings.Join(rep.Notes, "\n"), "the footer counts 1 MPI_Comm_dup calls that were not recorded") {
		t.Errorf("report %+v", rep)
	}
}

// TestCommsFixture checks the reconstruction on the reference tracer's
// comm_topo run: Comm_split, Comm_dup, Comm_create of a Group_incl,
// Cart_create and Cart_sub, every recorded Comm_rank and Comm_size in
// agreement, and every collective on them complete.
func TestCommsFixture(t *testing.T) {
	src, _ := runModel(t, "comm_topo")
	acc := stats.New(src.Defs(), nil)
	for ev, err := range src.All() {
		if err != nil {
			t.Fatal(err)
		}
		acc.Add(ev)
	}
	rep := src.CommReport()
	if rep.Reconstructed != 7 || rep.Unknown != 0 || rep.Mismatches != 0 || len(rep.Notes) != 0 {
		t.Errorf("report %+v", rep)
	}
	var got []string
	d := src.Defs()
	for _, c := range d.Comms() {
		var m []int64
		for _, l := range c.Members {
			loc, _ := d.Location(l)
			m = append(m, loc.Native)
		}
		got = append(got, c.Name+" "+strings.TrimSpace(itoaSlice(m)))
	}
	want := []string{
		"MPI_COMM_WORLD 0 1 2 3",
		"MPI_COMM_SELF ",
		"comm 4 (MPI_Comm_split of MPI_COMM_WORLD) 2 0",
		"comm 5 (MPI_Comm_split of MPI_COMM_WORLD) 3 1",
		"comm 6 (MPI_Comm_dup of MPI_COMM_WORLD) 0 1 2 3",
		"comm 7 (MPI_Comm_create of MPI_COMM_WORLD) 0 2",
		"comm 8 (MPI_Cart_create of MPI_COMM_WORLD) 0 1 2 3",
		"comm 9 (MPI_Cart_sub of comm 8) 0 2",
		"comm 10 (MPI_Cart_sub of comm 8) 1 3",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("communicators (-want +got):\n%s", diff)
	}
	diag := acc.Finalize().Final.Diagnostics
	// The run shifts along a non-periodic dimension of the Cartesian
	// communicator with Sendrecv: ranks 1 and 3 send to MPI_PROC_NULL
	// (no message), ranks 0 and 2 receive from it without a status, which
	// MPICH's -1 does not tell from MPI_ANY_SOURCE: two receives stay
	// unmatched.
	if diag.OpenCollectives != 0 || diag.MatchedMessages != 2 || diag.UnmatchedSend != 0 || diag.UnmatchedRecv != 2 {
		t.Errorf("stats: %+v", diag)
	}
}

func itoaSlice(s []int64) string {
	var b strings.Builder
	for _, v := range s {
		b.WriteString(" " + itoa(int(v)))
	}
	return b.String()
}

// TestCommsScale replays the constructors of 20,000 ranks: the split,
// the Cartesian sub-communicators and the group constructors are computed
// once per distinct input, not once per rank, so this takes a fraction of
// a second (0.05 s on the development host) instead of minutes.
func TestCommsScale(t *testing.T) {
	n := 20000
	ops := make([][]commOp, n)
	for r := range ops {
		ops[r] = []commOp{
			{label: LabelCommSplit, in: MPI_COMM_WORLD, x: int32(r % 7), y: int32(-r), out: 4},
			{label: LabelCommDup, in: MPI_COMM_WORLD, out: 5},
			{label: LabelCommGroup, in: MPI_COMM_WORLD, outG: 3},
			{label: LabelGroupExcl, g1: 3, ints: []int32{0}, outG: 4},
			{label: LabelGroupUnion, g1: 4, g2: 3, outG: 5},
			{label: LabelCommCreate, in: MPI_COMM_WORLD, g1: 4, out: 6},
			{label: LabelCartCreate, in: MPI_COMM_WORLD, ints: []int32{100, 200}, out: 7},
			{label: LabelCartSub, in: 7, ints: []int32{0, 1}, out: 8},
		}
		if r == 0 {
			ops[r][5].out = MPI_COMM_NULL
		}
	}
	var cs *commSet
	took, clock := cputime.Of(func() { cs = resolveComms(n, ops) })
	if len(cs.all) != 7+1+1+1+100 || len(cs.notes) != 0 {
		t.Errorf("%d communicators, notes %q", len(cs.all), cs.notes)
	}
	for r := range n {
		res := resultsOf(cs, r)
		if len(res) != 5 {
			t.Fatalf("rank %d: %d results", r, len(res))
		}
		sub := res[4].v
		if sub.g == nil || sub.g.members[sub.me] != int32(r) || len(sub.g.members) != 200 || sub.g.members[0] != int32(r/200*200) {
			t.Fatalf("rank %d: Cart_sub %+v", r, sub)
		}
		split := res[0].v
		if split.g.members[split.me] != int32(r) {
			t.Fatalf("rank %d: split rank %d is world rank %d", r, split.me, split.g.members[split.me])
		}
	}
	// Linear work takes well under a second of CPU time (which a busy
	// machine does not inflate, as it does wall-clock time); the guard is
	// against a quadratic replay (minutes), with room for the race
	// detector's slowdown.
	budget := 10 * time.Second
	if raceEnabled {
		budget *= 10
	}
	if clock && took > budget {
		t.Errorf("%d ranks took %v of CPU time, budget %v", n, took, budget)
	}
	t.Logf("%d ranks: %v of CPU time", n, took)
}

// TestCommsContradiction: a rank that records a new communicator where
// the reconstruction gives it none (or none where it gives one) gets a
// note and a communicator of unknown membership, never a guess.
func TestCommsContradiction(t *testing.T) {
	ranks := [][]Args{
		{&CommSplit{Oldcomm: MPI_COMM_WORLD, Color: -32766, Newcomm: 4}, // MPI_UNDEFINED, yet a handle
			&Send{Count: 1, Datatype: MPI_INT, Dest: 0, Tag: 1, Comm: 4}},
		{&CommSplit{Oldcomm: MPI_COMM_WORLD, Color: 0, Newcomm: MPI_COMM_NULL}}, // a color, yet no handle
	}
	meta := writeRun(t, t.TempDir(), "contra", ranks, nil)
	run, err := OpenRun(meta, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	src, err := NewModelSource(run, nil)
	if err != nil {
		t.Fatal(err)
	}
	for src.Next() {
	}
	rep := src.CommReport()
	notes := strings.Join(rep.Notes, "\n")
	if rep.UnknownMessages != 1 || !strings.Contains(notes, "rank 0: MPI_Comm_split returned a communicator where the reconstruction has MPI_COMM_NULL") ||
		!strings.Contains(notes, "rank 1: MPI_Comm_split returned MPI_COMM_NULL where the reconstruction has a communicator") {
		t.Errorf("report %+v", rep)
	}
}

// TestCommsHostile replays constructors with arguments no MPI library
// accepts: they give unknown communicators, never a panic.
func TestCommsHostile(t *testing.T) {
	ops := [][]commOp{
		{
			{label: LabelCommGroup, in: MPI_COMM_WORLD, outG: 3},
			{label: LabelGroupRangeIncl, g1: 3, ints: []int32{0, 1, 1 << 30}, outG: 4},
			{label: LabelGroupRangeIncl, g1: 3, ints: []int32{1, 1, 1<<31 - 1, 0, 1, 1<<31 - 1}, outG: 4},
			{label: LabelCommCreate, in: MPI_COMM_WORLD, g1: 4, out: 13},
			{label: LabelGroupRangeIncl, g1: 3, ints: []int32{1, 0, -(1 << 31)}, outG: 5},
			{label: LabelGroupRangeExcl, g1: 3, ints: []int32{0, 1, 0}, outG: 6},
			{label: LabelGroupIncl, g1: 3, ints: []int32{-1}, outG: 7},
			{label: LabelCommCreate, in: MPI_COMM_WORLD, g1: 99, out: 4},
			{label: LabelCartCreate, in: MPI_COMM_WORLD, ints: []int32{1 << 30, 1 << 30, 4}, out: 5},
			{label: LabelCartCreate, in: MPI_COMM_WORLD, ints: []int32{-2, 1}, out: 6},
			{label: LabelCartSub, in: MPI_COMM_WORLD, ints: []int32{1}, out: 7},
			{label: LabelGraphCreate, in: MPI_COMM_WORLD, x: -5, out: 8},
			{label: LabelIntercommCreate, in: MPI_COMM_WORLD, x: 7, y: 9, peer: 77, out: 9},
			{label: LabelIntercommMerge, in: 50, out: 10},
			{label: LabelCommSplit, in: 51, out: 11},
			{label: LabelCommDup, in: 4, out: 12},
		},
		{
			{label: LabelCommSplit, in: MPI_COMM_WORLD, x: 1, out: 4},
		},
	}
	cs := resolveComms(2, ops)
	if len(cs.notes) == 0 {
		t.Error("no notes")
	}
	for r := range cs.results {
		for i, c := range resultsOf(cs, r) {
			if c.v.g != nil && r == 0 && i > 0 {
				t.Errorf("rank %d result %d: %+v", r, i, c.v)
			}
		}
	}
}

// propComms replays random constructor calls on a few ranks: nothing
// panics, every constructor call has one result, and every communicator a
// rank is given contains it at the rank the result says.
func propComms(t *rapid.T) {
	n := rapid.IntRange(1, 5).Draw(t, "ranks")
	labels := []Label{LabelCommDup, LabelCommCreate, LabelCommSplit, LabelCartCreate, LabelCartSub,
		LabelGraphCreate, LabelIntercommCreate, LabelIntercommMerge, LabelCommFree, LabelCommGroup,
		LabelCommRemoteGroup, LabelGroupIncl, LabelGroupExcl, LabelGroupRangeIncl, LabelGroupRangeExcl,
		LabelGroupUnion, LabelGroupIntersection, LabelGroupDifference, LabelGroupFree}
	small := rapid.Int32Range(-2, 6)
	ops := make([][]commOp, n)
	for r := range ops {
		k := rapid.IntRange(0, 12).Draw(t, "ops")
		for range k {
			op := commOp{
				label: rapid.SampledFrom(labels).Draw(t, "label"),
				in:    Comm(rapid.IntRange(1, 7).Draw(t, "in")),
				peer:  Comm(rapid.IntRange(1, 7).Draw(t, "peer")),
				g1:    Group(rapid.IntRange(1, 6).Draw(t, "g1")),
				g2:    Group(rapid.IntRange(1, 6).Draw(t, "g2")),
				out:   Comm(rapid.IntRange(1, 7).Draw(t, "out")),
				outG:  Group(rapid.IntRange(2, 6).Draw(t, "outG")),
				x:     small.Draw(t, "x"),
				y:     small.Draw(t, "y"),
				tag:   small.Draw(t, "tag"),
				ints:  rapid.SliceOfN(small, 0, 6).Draw(t, "ints"),
			}
			ops[r] = append(ops[r], op)
		}
	}
	cs := resolveComms(n, ops)
	for r := range n {
		want := 0
		for _, op := range ops[r] {
			if makesComm(op.label) {
				want++
			}
		}
		if len(cs.results[r]) != want {
			t.Fatalf("rank %d: %d results for %d constructors", r, len(cs.results[r]), want)
		}
		for i, res := range resultsOf(cs, r) {
			v := res.v
			if v.g == nil {
				continue
			}
			local, _ := v.g.group(v.side)
			if v.me < 0 || int(v.me) >= len(local) || local[v.me] != int32(r) {
				t.Fatalf("rank %d result %d: rank %d in %v", r, i, v.me, local)
			}
		}
	}
}

func TestCommsRandom(t *testing.T) { rapid.Check(t, propComms) }

// TestCommsUnknownRoot: the root of a collective on a communicator of
// unknown membership maps to no location and is not counted as a message.
func TestCommsUnknownRoot(t *testing.T) {
	ranks := [][]Args{
		{&Init{}, &Reduce{Count: 1, Datatype: MPI_INT, Op: MPI_MAX, Root: 1, Comm: 9},
			&Bcast{Count: 1, Datatype: MPI_INT, Root: 0, Comm: 9}, &Finalize{}},
		{&Init{}, &Finalize{}},
	}
	meta := writeRun(t, t.TempDir(), "root", ranks, nil)
	run, err := OpenRun(meta, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	src, err := NewModelSource(run, nil)
	if err != nil {
		t.Fatal(err)
	}
	colls := 0
	for ev, err := range src.All() {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind == model.KindCollBegin {
			colls++
			if ev.Peer != 0 {
				t.Errorf("collective on an unknown communicator has root %d", ev.Peer)
			}
		}
	}
	rep := src.CommReport()
	if colls != 2 || rep.UnknownMessages != 0 || rep.UnknownCollectives != 2 || rep.Unknown != 1 {
		t.Errorf("%d collectives, report %+v", colls, rep)
	}
}

// TestCommsUnknownReused: a handle of unknown membership freed and made
// again for the same reason, over and over, keeps one definition and one
// note with the sum of its counts: the definitions and notes do not grow
// with the trace.
func TestCommsUnknownReused(t *testing.T) {
	var r0, r1 []Args
	r0 = append(r0, &Init{})
	r1 = append(r1, &Init{})
	const n = 50
	for range n {
		r0 = append(r0, &Send{Count: 1, Datatype: MPI_INT, Dest: 1, Tag: 1, Comm: 9}, &CommFree{Comm: 9})
	}
	r0 = append(r0, &Send{Count: 1, Datatype: MPI_INT, Dest: 1, Tag: 1, Comm: 10}, &Finalize{})
	r1 = append(r1, &Finalize{})
	meta := writeRun(t, t.TempDir(), "reuse", [][]Args{r0, r1}, nil)
	run, err := OpenRun(meta, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	src, err := NewModelSource(run, nil)
	if err != nil {
		t.Fatal(err)
	}
	comms := map[model.CommID]int{}
	for ev, err := range src.All() {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind == model.KindSend {
			comms[ev.Comm]++
		}
	}
	rep := src.CommReport()
	if len(comms) != 2 || rep.Unknown != 2 || rep.UnknownMessages != n+1 || len(rep.Notes) != 2 {
		t.Errorf("sends by communicator %v, report %+v", comms, rep)
	}
	if !strings.Contains(strings.Join(rep.Notes, "\n"), "handle 9: 50 messages") {
		t.Errorf("notes %q", rep.Notes)
	}
	if got := len(src.Defs().Comms()); got != 4 { // WORLD, SELF, handles 9 and 10
		t.Errorf("%d communicators defined, want 4", got)
	}
}

// TestCommsNotesRepeated: a contradiction met again and again gives one
// note with its count, not a line per call.
func TestCommsNotesRepeated(t *testing.T) {
	var r0, r1 []Args
	const n = 30
	for range n {
		r0 = append(r0, &CommSplit{Oldcomm: MPI_COMM_WORLD, Color: -32766, Newcomm: 4}, // MPI_UNDEFINED, yet a handle
			&Send{Count: 1, Datatype: MPI_INT, Dest: 0, Tag: 1, Comm: 4}, &CommFree{Comm: 4})
		r1 = append(r1, &CommSplit{Oldcomm: MPI_COMM_WORLD, Color: -32766, Newcomm: MPI_COMM_NULL})
	}
	meta := writeRun(t, t.TempDir(), "repeat", [][]Args{r0, r1}, nil)
	run, err := OpenRun(meta, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	src, err := NewModelSource(run, nil)
	if err != nil {
		t.Fatal(err)
	}
	for src.Next() {
	}
	rep := src.CommReport()
	want := []string{
		"rank 0: MPI_Comm_split returned a communicator where the reconstruction has MPI_COMM_NULL (30 times)",
		"rank 0: communicator handle 4: 30 messages and 0 collectives on a communicator of unknown membership (MPI_Comm_split returned a communicator where the reconstruction has MPI_COMM_NULL)",
	}
	if rep.UnknownMessages != n || !slices.Equal(rep.Notes, want) {
		t.Errorf("report %+v\nwant notes %q", rep, want)
	}
}

// resultsOf returns the results of rank r.
func resultsOf(cs *commSet, r int) []cresult {
	out := make([]cresult, len(cs.results[r]))
	for i := range out {
		out[i] = cs.result(r, i)
	}
	return out
}
