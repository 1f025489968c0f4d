package dumpi

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hpctrace/hpctrace/model"
	"pgregory.net/rapid"
)

// defsOf returns what a source's definitions hold, for comparison.
func defsOf(d *model.Defs) []any {
	return []any{d.TimeBase, d.Locations(), d.Regions(), d.Sites(), d.Comms(), d.Counters(), d.Subsets(), d.Recorded}
}

// readAll returns the events of src and its definitions after the last.
func readAll(t *testing.T, src *ModelSource) ([]model.Event, []any) {
	t.Helper()
	var evs []model.Event
	for ev, err := range src.All() {
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, *ev)
	}
	return evs, defsOf(src.Defs())
}

// TestModelOfFixtures: for every fixture run, each shard i/n (n = 1 … 4)
// of the locations read with ModelOf has the definitions of the whole
// run, and exactly its locations' events of it, in the same order.
func TestModelOfFixtures(t *testing.T) {
	metas, err := filepath.Glob("testdata/*/*.meta")
	if err != nil || len(metas) < 10 {
		t.Fatalf("fixtures %v: %v", metas, err)
	}
	for _, meta := range metas {
		run, err := OpenRun(meta, nil)
		if err != nil {
			t.Fatal(err)
		}
		whole, err := NewModelSource(run, nil)
		if err != nil {
			t.Fatal(err)
		}
		all, defs := readAll(t, whole)
		for n := 1; n <= 4; n++ {
			var union int
			for i := range n {
				keep := func(l model.LocID) bool { return int(l)%n == i }
				src, err := NewModelSource(run, &ModelOptions{Selection: model.Selection{Locations: keep}})
				if err != nil {
					t.Fatal(err)
				}
				got, gotDefs := readAll(t, src)
				var want []model.Event
				for _, ev := range all {
					if keep(ev.Loc) {
						want = append(want, ev)
					}
				}
				if !reflect.DeepEqual(gotDefs, defs) {
					t.Errorf("%s shard %d/%d: definitions differ from the whole run's", meta, i, n)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s shard %d/%d: %d events, want %d of the whole run's", meta, i, n, len(got), len(want))
				}
				union += len(got)
			}
			if union != len(all) {
				t.Errorf("%s: %d shards have %d events, the whole run %d", meta, n, union, len(all))
			}
		}
		run.Close()
	}
}

// TestModelOfRevealed: what only the calls reveal (a thread, a function
// the footer does not count, an address outside the function-address
// tables, a communicator of unknown membership) is defined rank by rank,
// whichever call comes first in time, so that every shard has its ranks'
// events of the whole run (a rank's threads with the rank) and the whole
// run's definitions when it reads the last rank that reveals some, a
// prefix of them otherwise.
func TestModelOfRevealed(t *testing.T) {
	reveal := []Args{&Barrier{Comm: MPI_COMM_WORLD}, // on thread 1
		&Wtime{}, &FunctionEnter{Fn: 7}, &FunctionExit{Fn: 7},
		&Send{Count: 1, Datatype: MPI_INT, Dest: 0, Tag: 1, Comm: 9}}
	rank := func(early bool, revealing bool) []Args {
		calls := []Args{&Init{}}
		if !early {
			calls = append(calls, &Barrier{Comm: MPI_COMM_WORLD}, &Barrier{Comm: MPI_COMM_WORLD})
		}
		if revealing {
			calls = append(calls, reveal...)
		}
		return append(calls, &Finalize{})
	}
	ft := &Footer{}
	ft.Called[LabelInit], ft.Called[LabelFinalize], ft.Called[LabelBarrier], ft.Called[LabelSend] = 2, 2, 3, 2
	for _, c := range []struct {
		name     string
		ranks    [][]Args
		everyone bool
	}{
		{"every rank", [][]Args{rank(false, true), rank(true, true)}, true},
		{"rank 1", [][]Args{rank(false, false), rank(true, true)}, false},
	} {
		spec := &runSpec{prefix: "reveal", ranks: c.ranks, footer: ft, names: []FunctionName{{Addr: 8, Name: "f"}},
			tweak: func(r int, call *Call) {
				if _, ok := call.Args().(*Barrier); ok && call.Wall.StartNsec/1e6 == uint32(len(c.ranks[r])-len(reveal)) {
					call.Thread = 1 // the first call of reveal
				}
			}}
		run, err := OpenRun(writeSpec(t, t.TempDir(), spec), nil)
		if err != nil {
			t.Fatal(err)
		}
		whole, err := NewModelSource(run, nil)
		if err != nil {
			t.Fatal(err)
		}
		all, defs := readAll(t, whole)
		d := whole.Defs()
		var threads []string
		for _, l := range d.Locations() {
			threads = append(threads, l.Name)
		}
		want := []string{"rank 0", "rank 1", "rank 0 thread 1", "rank 1 thread 1"}
		if !c.everyone {
			want = []string{"rank 0", "rank 1", "rank 1 thread 1"}
		}
		if !reflect.DeepEqual(threads, want) {
			t.Errorf("%s: locations %q, want %q (rank by rank, though rank 1's thread calls first)", c.name, threads, want)
		}
		if _, ok := d.RegionByNative(-1 - 7); !ok {
			t.Errorf("%s: no region for address 7", c.name)
		}
		for _, l := range d.Locations() {
			// The model says the same: an MPI rank's, in its rank's stream.
			if !l.MPI || l.Stream != model.LocID(l.Process+1) {
				t.Errorf("%s: location %q: MPI %v, Stream %d; want true, rank %d's location %d", c.name, l.Name, l.MPI, l.Stream, l.Process, l.Process+1)
			}
		}
		if !d.ByRank() {
			t.Errorf("%s: ByRank() = false, want true", c.name)
		}
		for n := 1; n <= 3; n++ {
			for i := range n {
				keep := func(l model.LocID) bool { return int(l)%n == i }
				src, err := NewModelSource(run, &ModelOptions{Selection: model.Selection{Locations: keep}})
				if err != nil {
					t.Fatal(err)
				}
				got, gotDefs := readAll(t, src)
				var wantEv []model.Event
				for _, ev := range all {
					if keep(ev.Loc) {
						wantEv = append(wantEv, ev)
					}
				}
				// A shard that may select a thread's location learns every
				// rank's threads first: it has the whole run's definitions.
				if !reflect.DeepEqual(gotDefs, defs) {
					t.Errorf("%s shard %d/%d: definitions differ from the whole run's", c.name, i, n)
				}
				if !reflect.DeepEqual(got, wantEv) {
					t.Errorf("%s shard %d/%d: %d events, want %d of the whole run's", c.name, i, n, len(got), len(wantEv))
				}
			}
		}
		// A selection of rank 0's location alone accepts no thread's: it
		// reads rank 0 only, and has the whole run's definitions but for
		// those of the ranks after it.
		src, err := NewModelSource(run, &ModelOptions{Selection: model.Selection{Locations: model.Only(1)}})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := readAll(t, src)
		var wantEv []model.Event
		for _, ev := range all {
			if ev.Loc == 1 {
				wantEv = append(wantEv, ev)
			}
		}
		if !reflect.DeepEqual(got, wantEv) || !prefixDefs(src.Defs(), whole.Defs()) {
			t.Errorf("%s rank 0 alone: %d events, want %d; definitions a prefix of the whole run's: %v",
				c.name, len(got), len(wantEv), prefixDefs(src.Defs(), whole.Defs()))
		}
		run.Close()
	}
	if _, err := NewModelSource(new(Run), &ModelOptions{Selection: model.Selection{Window: &model.Window{From: 2, To: 1}}}); err == nil {
		t.Error("NewModelSource with an empty window: no error")
	}
}

// readCounter is an fs.FS whose files count the bytes read with ReadAt.
type readCounter struct {
	fs.FS
	mu   sync.Mutex
	read map[string]int64
}

type countedFile struct {
	fs.File
	c    *readCounter
	name string
}

func (c *readCounter) Open(name string) (fs.File, error) {
	f, err := c.FS.Open(name)
	if err != nil {
		return nil, err
	}
	return &countedFile{f, c, name}, nil
}

func (f *countedFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.File.(io.ReaderAt).ReadAt(p, off)
	f.c.mu.Lock()
	f.c.read[f.name] += int64(n)
	f.c.mu.Unlock()
	return n, err
}

// TestReconstructReadsPrefix: the first pass that reconstructs
// communicators reads a rank's calls only up to its last
// communicator-making call, as many as its footer counts, and not at all
// for a rank that makes none; a source of one rank reads little of the
// others' calls, and its events and definitions are those of the whole
// run.
func TestReconstructReadsPrefix(t *testing.T) {
	const rounds = 20000 // 20000 sends of about 40 bytes: 800 kB per rank
	ranks := make([][]Args, 3)
	for r := range ranks {
		ranks[r] = append(ranks[r], &Init{})
		if r < 2 {
			ranks[r] = append(ranks[r], &CommDup{Oldcomm: MPI_COMM_WORLD, Newcomm: 5})
		}
		for i := range rounds {
			c := MPI_COMM_WORLD
			if r < 2 && i%2 == 0 {
				c = 5
			}
			ranks[r] = append(ranks[r], &Send{Count: 1, Datatype: MPI_INT, Dest: int32(1 - r%2), Tag: 1, Comm: c})
		}
		if r < 2 {
			ranks[r] = append(ranks[r], &CommFree{Comm: 5})
		}
		ranks[r] = append(ranks[r], &Finalize{})
	}
	dir := t.TempDir()
	meta := writeRun(t, dir, "prefix", ranks, nil)
	whole, err := OpenRun(meta, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer whole.Close()
	ws, err := NewModelSource(whole, nil)
	if err != nil {
		t.Fatal(err)
	}
	all, defs := readAll(t, ws)
	if rep := ws.CommReport(); rep.Reconstructed != 1 || rep.Unknown != 0 {
		t.Fatalf("whole run: %+v", rep)
	}
	for keepRank := range 3 {
		rc := &readCounter{FS: os.DirFS(dir), read: map[string]int64{}}
		run, err := OpenRunFS(rc, filepath.Base(meta), nil)
		if err != nil {
			t.Fatal(err)
		}
		keep := func(l model.LocID) bool { return l == model.LocID(keepRank+1) }
		src, err := NewModelSource(run, &ModelOptions{Selection: model.Selection{Locations: keep}})
		if err != nil {
			t.Fatal(err)
		}
		got, gotDefs := readAll(t, src)
		run.Close()
		var want []model.Event
		for _, ev := range all {
			if keep(ev.Loc) {
				want = append(want, ev)
			}
		}
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotDefs, defs) {
			t.Errorf("rank %d alone: %d events, want %d; same definitions: %v", keepRank, len(got), len(want), reflect.DeepEqual(gotDefs, defs))
		}
		for r, f := range whole.Files {
			calls := f.Index.Footer - f.Index.Body
			n := rc.read[run.Meta.RankFile(r)]
			switch {
			case r == keepRank && n < calls:
				t.Errorf("rank %d alone: read %d bytes of its file, its calls are %d", keepRank, n, calls)
			case r != keepRank && n > calls/8:
				t.Errorf("rank %d alone: read %d bytes of rank %d's file, its calls are %d", keepRank, n, r, calls)
			}
		}
	}
}

// modelLabels are the labels that matter to the model and its
// definitions, drawn more often than the others.
var modelLabels = []Label{LabelSend, LabelRecv, LabelIsend, LabelIrecv, LabelWait, LabelWaitall, LabelSendrecv,
	LabelSendInit, LabelRecvInit, LabelStart, LabelBarrier, LabelBcast, LabelAllreduce, LabelGather,
	LabelCommDup, LabelCommSplit, LabelCommCreate, LabelCommGroup, LabelGroupIncl, LabelCommFree,
	LabelIntercommCreate, LabelIntercommMerge, LabelCommRank, LabelCommSize, LabelFunctionEnter, LabelFunctionExit}

// propModelOfRevealing: in a random run, every shard of every partition
// has its ranks' events of the whole run, with the same ids, and the
// whole run's definitions or (when its calls need none of those only the
// calls reveal, or the ranks after its last reveal some) a prefix of
// them. When every rank first calls on a thread of its own, every shard
// that reads the last rank has the whole run's.
func propModelOfRevealing(tt *testing.T, t *rapid.T) {
	forced := rapid.Bool().Draw(t, "forced")
	nr := rapid.IntRange(2, 4).Draw(t, "ranks")
	var names []FunctionName
	for a := range rapid.IntRange(0, 3).Draw(t, "names") {
		names = append(names, FunctionName{Addr: uint64(a), Name: "f" + itoa(a)})
	}
	ranks := make([][]Args, nr)
	threads := make([][]uint16, nr)
	for r := range ranks {
		ranks[r] = []Args{&Wtime{}}
		threads[r] = []uint16{uint16(rapid.IntRange(0, 2).Draw(t, "thread0"))}
		if forced && threads[r][0] == 0 {
			threads[r][0] = 1
		}
		for range rapid.IntRange(0, 25).Draw(t, "calls") {
			l := rapid.SampledFrom(modelLabels).Draw(t, "label")
			if rapid.IntRange(0, 9).Draw(t, "any") == 0 {
				l = rapid.SampledFrom(callLabels).Draw(t, "label")
			}
			a := genArgs(t, l, true)
			switch a := a.(type) {
			case *FunctionEnter:
				a.Fn = rapid.Int64Range(0, 5).Draw(t, "fn")
			case *FunctionExit:
				a.Fn = rapid.Int64Range(0, 5).Draw(t, "fn")
			}
			ranks[r] = append(ranks[r], a)
			threads[r] = append(threads[r], uint16(rapid.IntRange(0, 3).Draw(t, "thread")/3))
		}
	}
	dir, err := os.MkdirTemp("", "modelof")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	idx := make([]int, nr)
	meta := writeSpec(tt, dir, &runSpec{prefix: "p", ranks: ranks, names: names, tweak: func(r int, c *Call) {
		c.Thread = threads[r][idx[r]]
		idx[r]++
	}})
	run, err := OpenRun(meta, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	whole, err := NewModelSource(run, nil)
	if err != nil {
		t.Fatal(err)
	}
	var all []model.Event
	for whole.Next() {
		all = append(all, *whole.Event())
	}
	if whole.Err() != nil {
		return // a call the model cannot read ends every source alike
	}
	defs := defsOf(whole.Defs())
	for n := 2; n <= nr; n++ {
		for i := range n {
			keep := func(l model.LocID) bool { return int(l)%n == i }
			src, err := NewModelSource(run, &ModelOptions{Selection: model.Selection{Locations: keep}})
			if err != nil {
				t.Fatal(err)
			}
			var got []model.Event
			for src.Next() {
				got = append(got, *src.Event())
			}
			if err := src.Err(); err != nil {
				t.Fatalf("shard %d/%d: %v", i, n, err)
			}
			var want []model.Event
			for _, ev := range all {
				if keep(ev.Loc) {
					want = append(want, ev)
				}
			}
			if !reflect.DeepEqual(defsOf(src.Defs()), defs) {
				t.Fatalf("shard %d/%d: definitions differ from the whole run's:\n%v\n%v", i, n, defsOf(src.Defs()), defs)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("shard %d/%d: %d events differ from the whole run's %d", i, n, len(got), len(want))
			}
		}
	}
}

// prefixDefs reports whether the definitions d are those of whole but for
// some of the last of each kind.
func prefixDefs(d, whole *model.Defs) bool {
	pre := func(x, y any) bool {
		a, b := reflect.ValueOf(x), reflect.ValueOf(y)
		return a.Len() <= b.Len() && reflect.DeepEqual(x, b.Slice(0, a.Len()).Interface())
	}
	return d.TimeBase == whole.TimeBase && pre(d.Locations(), whole.Locations()) && pre(d.Regions(), whole.Regions()) &&
		pre(d.Sites(), whole.Sites()) && pre(d.Comms(), whole.Comms()) && pre(d.Counters(), whole.Counters()) &&
		reflect.DeepEqual(d.Recorded, whole.Recorded)
}

func TestModelOfRevealingRandom(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) { propModelOfRevealing(t, rt) })
}

// TestReconstructFooterUndercounts: a communicator made by a call after as
// many as the footer counts is not reconstructed, and its use is reported
// with the reason, not mapped by a guess.
func TestReconstructFooterUndercounts(t *testing.T) {
	var ranks [][]Args
	for r := range 2 {
		ranks = append(ranks, []Args{&CommDup{Oldcomm: MPI_COMM_WORLD, Newcomm: 4}, &CommDup{Oldcomm: MPI_COMM_WORLD, Newcomm: 5},
			&Send{Count: 1, Datatype: MPI_INT, Dest: int32(1 - r), Tag: 1, Comm: 4},
			&Send{Count: 1, Datatype: MPI_INT, Dest: int32(1 - r), Tag: 1, Comm: 5}})
	}
	ft := &Footer{}
	ft.Called[LabelCommDup], ft.Called[LabelSend] = 1, 2 // two of each recorded
	run, err := OpenRun(writeRunFooter(t, t.TempDir(), "under", ranks, ft), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	src, err := NewModelSource(run, nil)
	if err != nil {
		t.Fatal(err)
	}
	var peers []model.LocID
	for ev, err := range src.All() {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind == model.KindSend {
			peers = append(peers, ev.Peer)
		}
	}
	rep := src.CommReport()
	if !slices.Equal(peers, []model.LocID{2, 1, 0, 0}) || rep.Reconstructed != 1 || rep.UnknownMessages != 2 ||
		!strings.Contains(strings.Join(rep.Notes, "\n"), "more communicator-making calls than its footer counts") {
		t.Errorf("send peers %v, report %+v", peers, rep)
	}
}
