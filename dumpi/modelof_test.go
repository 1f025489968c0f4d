package dumpi

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/hpctrace/hpctrace/model"
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
		run, err := OpenRun(meta)
		if err != nil {
			t.Fatal(err)
		}
		whole, err := run.Model(nil)
		if err != nil {
			t.Fatal(err)
		}
		all, defs := readAll(t, whole)
		for n := 1; n <= 4; n++ {
			var union int
			for i := range n {
				keep := func(l model.LocID) bool { return int(l)%n == i }
				src, err := run.ModelOf(nil, keep)
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

// TestModelOfPartial: a call that reveals a definition (a thread, a
// function its footer does not count, an address outside the
// function-address table, a communicator of unknown membership) ends a
// source of part of the run that reads it with ErrPartial naming the
// rank, while the other part and the whole run read through.
func TestModelOfPartial(t *testing.T) {
	calls := func(extra ...Args) [][]Args {
		r1 := append([]Args{&Init{}}, extra...)
		return [][]Args{{&Init{}, &Barrier{Comm: MPI_COMM_WORLD}, &Finalize{}}, append(r1, &Finalize{})}
	}
	ft := &Footer{}
	ft.Called[LabelInit], ft.Called[LabelFinalize], ft.Called[LabelBarrier] = 2, 2, 1
	for _, c := range []struct {
		name string
		spec runSpec
		want string
	}{
		{"thread", runSpec{ranks: calls(&Barrier{Comm: MPI_COMM_WORLD}), tweak: func(rank int, c *Call) {
			if rank == 1 && c.Label == LabelBarrier {
				c.Thread = 2
			}
		}}, "thread 2"},
		{"footer", runSpec{ranks: calls(&Barrier{Comm: MPI_COMM_WORLD}, &Wtime{}), footer: ft}, "MPI_Wtime"},
		{"address", runSpec{ranks: calls(&FunctionEnter{Fn: 7}, &FunctionExit{Fn: 7}),
			names: []FunctionName{{Addr: 8, Name: "f"}}}, "address 7"},
		{"comm", runSpec{ranks: calls(&Send{Count: 1, Datatype: MPI_INT, Dest: 0, Tag: 1, Comm: 9})}, "handle 9"},
	} {
		c.spec.prefix = c.name
		run, err := OpenRun(writeSpec(t, t.TempDir(), &c.spec))
		if err != nil {
			t.Fatal(err)
		}
		whole, err := run.Model(nil)
		if err != nil {
			t.Fatal(err)
		}
		for whole.Next() {
		}
		if err := whole.Err(); err != nil {
			t.Errorf("%s: whole run: %v", c.name, err)
		}
		for rank := range 2 {
			src, err := run.ModelOf(nil, func(l model.LocID) bool { return l == model.LocID(rank+1) })
			if err != nil {
				t.Fatal(err)
			}
			for src.Next() {
			}
			err = src.Err()
			switch {
			case rank == 0 && err != nil:
				t.Errorf("%s: rank 0 alone: %v", c.name, err)
			case rank == 1 && (!errors.Is(err, ErrPartial) || !strings.Contains(err.Error(), "rank 1: ") || !strings.Contains(err.Error(), c.want)):
				t.Errorf("%s: rank 1 alone: %v, want ErrPartial naming rank 1 and %q", c.name, err, c.want)
			}
		}
		run.Close()
	}
	if _, err := new(Run).ModelOf(nil, nil); err == nil {
		t.Error("ModelOf with a nil keep: no error")
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
	whole, err := OpenRun(meta)
	if err != nil {
		t.Fatal(err)
	}
	defer whole.Close()
	ws, err := whole.Model(nil)
	if err != nil {
		t.Fatal(err)
	}
	all, defs := readAll(t, ws)
	if rep := ws.CommReport(); rep.Reconstructed != 1 || rep.Unknown != 0 {
		t.Fatalf("whole run: %+v", rep)
	}
	for keepRank := range 3 {
		rc := &readCounter{FS: os.DirFS(dir), read: map[string]int64{}}
		run, err := OpenRunFS(rc, filepath.Base(meta))
		if err != nil {
			t.Fatal(err)
		}
		keep := func(l model.LocID) bool { return l == model.LocID(keepRank+1) }
		src, err := run.ModelOf(nil, keep)
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
