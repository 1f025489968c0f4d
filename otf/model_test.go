package otf

import (
	"errors"
	"io"
	"io/fs"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace/model"
	"pgregory.net/rapid"
)

func TestModelSource(t *testing.T) {
	tr, err := OpenFS(fixtureFS(t, "all_records_short"), "allrec.otf", nil)
	if err != nil {
		t.Fatal(err)
	}
	src, err := NewModelSource(tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var _ model.Source = src
	d := src.Defs()
	if d.TimeBase.TicksPerSecond != 1000000 {
		t.Errorf("TimeBase = %d", d.TimeBase.TicksPerSecond)
	}
	if n := d.NumLocations(); n != 5 {
		t.Errorf("%d locations, want 5", n)
	}
	if id, ok := d.LocationByNative(5); !ok {
		t.Error("no location for process 5")
	} else if l, _ := d.Location(id); l.Process != 3 || l.Thread != 1 || l.Name != "Process 3 / Thread 1" {
		t.Errorf("process 5: %+v", l)
	}
	if id, ok := d.RegionByNative(5); !ok {
		t.Error("no region for function 5")
	} else if r, _ := d.Region(id); r.Kind != model.RegionCollective || r.Group != "MPI" || r.Name != "MPI_Allreduce" {
		t.Errorf("function 5: %+v", r)
	}
	if id, _ := d.RegionByNative(1); true {
		if r, _ := d.Region(id); r.File != "src/main.c" || r.Line != 10 || r.Kind != model.RegionFunction {
			t.Errorf("function 1: %+v", r)
		}
	}
	if id, _ := d.RegionByNative(3); true {
		if r, _ := d.Region(id); r.Kind != model.RegionComm {
			t.Errorf("MPI_Send: %+v", r)
		}
	}
	// Paradigms from the function groups "Application", "MPI" and "I/O",
	// and for the collective operations' regions.
	for _, r := range d.Regions() {
		want := map[string]model.Paradigm{"Application": model.ParadigmUser, "MPI": model.ParadigmMPI, "I/O": model.ParadigmIO}[r.Group]
		if r.Paradigm != want {
			t.Errorf("region %q of group %q: paradigm %v, want %v", r.Name, r.Group, r.Paradigm, want)
		}
	}
	if r, _ := d.Region(must(d.RegionByNative(3))); !r.MPI() {
		t.Errorf("MPI_Send: %+v is not an MPI call", r)
	}
	if r, _ := d.Region(must(d.RegionByNative(1))); r.Paradigm != model.ParadigmUser || r.MPI() {
		t.Errorf("main: %+v", r)
	}
	if id, ok := d.CommByNative(1000); !ok {
		t.Error("no comm 1000")
	} else if c, _ := d.Comm(id); len(c.Members) != 4 {
		t.Errorf("comm 1000: %+v", c)
	}
	if len(d.Recorded) == 0 {
		t.Error("no recorded statistics")
	}
	kinds := map[model.Kind]int{}
	var last model.Time
	n := 0
	for ev, err := range src.All() {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Time < last {
			t.Fatalf("event %d: time %d after %d", n, ev.Time, last)
		}
		last = ev.Time
		if ev.Loc == 0 {
			t.Fatalf("event %d has no location: %+v", n, ev)
		}
		kinds[ev.Kind]++
		n++
	}
	// Counts from the reference otfprint dump (golden_otfprint.txt): 16
	// BeginCollective + 8 deprecated Collective, 4 comments + 5 + 5
	// process begin/end markers.
	want := map[model.Kind]int{
		model.KindEnter: 67, model.KindLeave: 67, model.KindSend: 10, model.KindRecv: 10,
		model.KindCounter: 11, model.KindCollBegin: 24, model.KindCollEnd: 24, model.KindMarker: 14,
	}
	for k, w := range want {
		if kinds[k] != w {
			t.Errorf("%v: %d events, want %d", k, kinds[k], w)
		}
	}
	// 4 FileOperation, 1+1 begin/end file operation, 15 RMA, 1 NoOp.
	if src.Ignored() != 22 {
		t.Errorf("Ignored() = %d, want 22", src.Ignored())
	}
}

func TestModelSourceAllocs(t *testing.T) {
	fsys := genTrace(t, 3, 5, 50000, false)
	tr, err := OpenFS(fsys, "bench.otf", nil)
	if err != nil {
		t.Fatal(err)
	}
	src, err := NewModelSource(tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		src.Next()
	}
	// 64 events a run: AllocsPerRun truncates the mean to an integer, so
	// one run per event would hide an allocation every few events (the
	// queue of CollEnds of the trace's CollOps once made one).
	if n := testing.AllocsPerRun(1000, func() {
		for range 64 {
			src.Next()
		}
	}); n != 0 {
		t.Fatalf("ModelSource.Next allocates %.0f times per 64 events; want 0", n)
	}
}

// TestModelSourceTokens checks the conversion of Enter, Leave, Send and
// Receive against lookups in the source's own definitions, for tokens
// small and large (beyond the dense tables), defined and not.
func TestModelSourceTokens(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tok := rapid.OneOf(rapid.Uint32Range(1, 6), rapid.SampledFrom([]uint32{65535, 65536, 70000, 1 << 31}))
		fsys := fstest.MapFS{}
		c := model.CreateFunc(func(name string) (io.WriteCloser, error) {
			return &mapFile{name: name, fs: fsys}, nil
		})
		w, err := NewTraceWriter(c, &TraceWriterOptions{Stub: "m", MaxStreams: 2})
		if err != nil {
			t.Fatal(err)
		}
		var rec Record
		write := func() {
			if err := w.Write(&rec); err != nil {
				t.Fatal(err)
			}
		}
		procs := rapid.SliceOfNDistinct(tok, 1, 4, rapid.ID[uint32]).Draw(t, "procs")
		for _, p := range procs {
			rec = Record{}
			rec.SetDefProcess(DefProcess{Process: p, Name: []byte("p")})
			write()
		}
		rec = Record{}
		rec.SetDefSCLFile(DefSCLFile{SCLFile: 1, Name: []byte("a.c")})
		write()
		for i, s := range rapid.SliceOfDistinct(tok, rapid.ID[uint32]).Draw(t, "scls") {
			rec = Record{}
			rec.SetDefSCL(DefSCL{SCL: s, SCLFile: 1, Line: uint32(i + 1)})
			write()
		}
		for _, f := range rapid.SliceOfDistinct(tok, rapid.ID[uint32]).Draw(t, "funcs") {
			rec = Record{}
			rec.SetDefFunction(DefFunction{Function: f, Name: []byte("f")})
			write()
		}
		for _, g := range rapid.SliceOfDistinct(tok, rapid.ID[uint32]).Draw(t, "groups") {
			rec = Record{}
			rec.SetDefProcessGroup(DefProcessGroup{Group: g, Name: []byte("g"), Members: procs})
			write()
		}
		tm := uint64(10)
		for range rapid.IntRange(0, 60).Draw(t, "events") {
			tm += rapid.Uint64Range(0, 3).Draw(t, "dt")
			rec = Record{Time: tm, Process: rapid.SampledFrom(procs).Draw(t, "proc")}
			switch rapid.IntRange(0, 3).Draw(t, "kind") {
			case 0:
				rec.SetEnter(Enter{Function: tok.Draw(t, "f"), Source: rapid.OneOf(rapid.Just(uint32(0)), tok).Draw(t, "scl")})
			case 1:
				rec.SetLeave(Leave{Function: rapid.OneOf(rapid.Just(uint32(0)), tok).Draw(t, "f")})
			case 2:
				rec.SetSend(Send{Receiver: tok.Draw(t, "peer"), Length: 8, Tag: 1, Communicator: tok.Draw(t, "comm")})
			case 3:
				rec.SetReceive(Receive{Sender: tok.Draw(t, "peer"), Length: 8, Tag: 1, Communicator: tok.Draw(t, "comm")})
			}
			write()
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}

		tr, err := OpenFS(fsys, "m.otf", nil)
		if err != nil {
			t.Fatal(err)
		}
		src, err := NewModelSource(tr, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		raw, err := tr.NewReader(nil)
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		d := src.Defs()
		// The open regions of each location, innermost last, and the
		// Leaves of token 0 with none open.
		open := map[model.LocID][]model.RegionID{}
		var stray int64
		for raw.Next() {
			if !src.Next() {
				t.Fatalf("ModelSource ended early: %v", src.Err())
			}
			r, ev := raw.Record(), *src.Event()
			want := model.Event{Time: model.Time(r.Time)}
			want.Loc, _ = d.LocationByNative(int64(r.Process))
			switch r.Kind {
			case KindEnter:
				v, _ := r.Enter()
				want.Kind = model.KindEnter
				want.Region, _ = d.RegionByNative(int64(v.Function))
				want.Site = src.scl[v.Source]
				open[want.Loc] = append(open[want.Loc], want.Region)
			case KindLeave:
				v, _ := r.Leave()
				want.Kind = model.KindLeave
				st := open[want.Loc]
				if v.Function == 0 {
					if len(st) == 0 {
						stray++
						break
					}
					want.Region = st[len(st)-1]
					open[want.Loc] = st[:len(st)-1]
					break
				}
				// A Leave closes the innermost open region, whatever
				// region it names (model.ClassifyLeave).
				want.Region, _ = d.RegionByNative(int64(v.Function))
				if len(st) > 0 {
					open[want.Loc] = st[:len(st)-1]
				}
			case KindSend, KindReceive:
				v, _ := r.Send()
				want.Kind = model.KindSend
				if r.Kind == KindReceive {
					rv, _ := r.Receive()
					v = Send{Receiver: rv.Sender, Length: rv.Length, Tag: rv.Tag, Communicator: rv.Communicator}
					want.Kind = model.KindRecv
				}
				want.Peer, _ = d.LocationByNative(int64(v.Receiver))
				want.Tag, want.Bytes = int32(v.Tag), int64(v.Length)
				want.Comm, _ = d.CommByNative(int64(v.Communicator))
			default:
				t.Fatalf("unexpected record kind %v", r.Kind)
			}
			if ev != want {
				t.Fatalf("record %+v: event %+v, want %+v", r, ev, want)
			}
		}
		if src.Next() {
			t.Fatalf("ModelSource has an extra event %+v", *src.Event())
		}
		if src.StrayLeaves() != stray {
			t.Fatalf("StrayLeaves() = %d, want %d", src.StrayLeaves(), stray)
		}
		if err := errors.Join(raw.Err(), src.Err()); err != nil {
			t.Fatal(err)
		}
	})
}

// TestModelSourceReadEvents: any mix of ReadEvents and Next yields the
// events, definitions and ignored count of Next alone.
func TestModelSourceReadEvents(t *testing.T) {
	gen := genTrace(t, 3, 5, 3000, false)
	traces := []struct {
		fsys fs.FS
		name string
	}{{fixtureFS(t, "all_records_short"), "allrec.otf"}, {gen, "bench.otf"}}
	for _, tc := range traces {
		t.Run(tc.name, func(t *testing.T) {
			open := func(t rapid.TB) *ModelSource {
				tr, err := OpenFS(tc.fsys, tc.name, nil)
				if err != nil {
					t.Fatal(err)
				}
				src, err := NewModelSource(tr, nil)
				if err != nil {
					t.Fatal(err)
				}
				return src
			}
			ref := open(t)
			defer ref.Close()
			var want []model.Event
			for ref.Next() {
				want = append(want, *ref.Event())
			}
			if err := ref.Err(); err != nil {
				t.Fatal(err)
			}
			var _ model.BulkSource = ref
			rapid.Check(t, func(t *rapid.T) {
				src := open(t)
				defer src.Close()
				var got []model.Event
				buf := make([]model.Event, 64)
				for {
					if k := rapid.IntRange(0, 64).Draw(t, "bulk"); k > 0 {
						n := src.ReadEvents(buf[:k])
						got = append(got, buf[:n]...)
						continue
					}
					if !src.Next() {
						break
					}
					got = append(got, *src.Event())
				}
				if err := src.Err(); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("events (-Next +mixed):\n%s", diff)
				}
				if src.Ignored() != ref.Ignored() {
					t.Fatalf("Ignored() = %d, want %d", src.Ignored(), ref.Ignored())
				}
				if src.StrayLeaves() != ref.StrayLeaves() {
					t.Fatalf("StrayLeaves() = %d, want %d", src.StrayLeaves(), ref.StrayLeaves())
				}
				if src.Defs().NumLocations() != ref.Defs().NumLocations() {
					t.Fatalf("%d locations, want %d", src.Defs().NumLocations(), ref.Defs().NumLocations())
				}
			})
		})
	}
}

// TestModelSourceFrom: on a trace whose Leaves all name function 0
// (VampirTrace's), a source from time T yields the events of the whole
// trace's source at T or later, each Leave resolved to the same region.
func TestModelSourceFrom(t *testing.T) {
	fsys := fixtureFS(t, "compat/vt_leaves")
	read := func(from uint64) ([]model.Event, int64) {
		tr, err := OpenFS(fsys, "vt.otf", nil)
		if err != nil {
			t.Fatal(err)
		}
		src, err := NewModelSource(tr, windowFrom(from, 0))
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		var evs []model.Event
		for ev, err := range src.All() {
			if err != nil {
				t.Fatal(err)
			}
			evs = append(evs, *ev)
		}
		return evs, src.StrayLeaves()
	}
	all, stray := read(0)
	if stray != 0 {
		t.Fatalf("StrayLeaves() = %d on the whole trace", stray)
	}
	for _, from := range []uint64{1100, 2000, 3001, 5000} {
		got, stray := read(from)
		var want []model.Event
		for _, ev := range all {
			if uint64(ev.Time) >= from {
				want = append(want, ev)
			}
		}
		if len(want) == 0 || len(want) == len(all) {
			t.Fatalf("From %d selects %d of %d events", from, len(want), len(all))
		}
		if diff := cmp.Diff(want, got); diff != "" || stray != 0 {
			t.Errorf("From %d: StrayLeaves() = %d; events (-whole trace +from):\n%s", from, stray, diff)
		}
	}
}

// TestModelSourcePending checks the queue of CollOp CollEnds against a
// slice kept sorted by time, ends of equal times in the order queued.
func TestModelSourcePending(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var s ModelSource
		var want []model.Event
		for i := range rapid.IntRange(0, 200).Draw(t, "ops") {
			if len(want) > 0 && rapid.Bool().Draw(t, "pop") {
				s.popPending()
				if s.ev != want[0] {
					t.Fatalf("popped %+v, want %+v", s.ev, want[0])
				}
				want = want[1:]
				continue
			}
			ev := model.Event{Time: model.Time(rapid.IntRange(0, 20).Draw(t, "time")), Loc: model.LocID(i), Kind: model.KindCollEnd}
			s.pushPending(ev.Time, ev.Loc)
			j := len(want)
			for j > 0 && want[j-1].Time > ev.Time {
				j--
			}
			want = slices.Insert(want, j, ev)
			if s.npending() != len(want) {
				t.Fatalf("%d pending, want %d", s.npending(), len(want))
			}
		}
	})
}

// must returns v, ignoring ok (the test checks the value).
func must[T any](v T, _ bool) T { return v }

// TestGroupParadigm: VampirTrace's function group names give their
// paradigms; other names give ParadigmUnknown.
func TestGroupParadigm(t *testing.T) {
	for g, want := range map[string]model.Paradigm{
		"MPI": model.ParadigmMPI, "mpi": model.ParadigmMPI, "OMP": model.ParadigmOpenMP, "OMP_SYNC": model.ParadigmOpenMP,
		"OMP_PREG": model.ParadigmOpenMP, "PTHREAD": model.ParadigmThreads, "I/O": model.ParadigmIO, "LIBC-I/O": model.ParadigmIO,
		"CUDA_KERNEL": model.ParadigmAccelerator, "CUDART": model.ParadigmAccelerator, "OpenCL": model.ParadigmAccelerator,
		"Application": model.ParadigmUser, "USER": model.ParadigmUser, "VT_API": model.ParadigmMeasurement,
		"G": model.ParadigmUnknown, "": model.ParadigmUnknown, "MEM": model.ParadigmUnknown,
	} {
		if got := groupParadigm(g); got != want {
			t.Errorf("group %q: got %v, want %v", g, got, want)
		}
	}
}
