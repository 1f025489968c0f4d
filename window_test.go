package hpctrace

import (
	"fmt"
	"io"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf"
	"github.com/hpctrace/hpctrace/otf2"
)

// inWindow returns the events of all with from ≤ Time < to (to 0: no
// end): the documented meaning of a Window.
func inWindow(all []textEvent, from, to model.Time) []textEvent {
	var out []textEvent
	for _, ev := range all {
		if ev.Ev.Time >= from && (to == 0 || ev.Ev.Time < to) {
			out = append(out, ev)
		}
	}
	return out
}

// textEvent is an event with its text as a string: the ids of interned
// strings depend on what was read before.
type textEvent struct {
	Ev   model.Event
	Text string
}

// readText reads every event of tr with its text.
func readText(t *testing.T, tr *Trace) []textEvent {
	t.Helper()
	var out []textEvent
	for i, ev := range readAll(t, tr) {
		out = append(out, textEvent{})
		out[i].Text = tr.Defs().String(ev.Text)
		ev.Text = 0
		out[i].Ev = ev
	}
	return out
}

// TestWindowMatchesFilter: for a trace of every format, a window yields
// the events of the whole read with From ≤ Time < To, in the same order.
func TestWindowMatchesFilter(t *testing.T) {
	for name, fm := range fixtures(t) {
		t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
			tr, err := Open(name, nil)
			if err != nil {
				t.Fatal(err)
			}
			all := readText(t, tr)
			tr.Close()
			if len(all) == 0 {
				return // nothing to window; the format is covered by other fixtures
			}
			lo, hi := all[0].Ev.Time, all[0].Ev.Time
			for _, ev := range all {
				lo, hi = min(lo, ev.Ev.Time), max(hi, ev.Ev.Time)
			}
			span := hi - lo
			for _, w := range []model.Window{
				{From: lo + span/3, To: lo + 2*span/3 + 1},
				{From: lo + span/2},
				{From: lo, To: lo + span/4 + 1},
				{From: lo + span/3, To: lo + span/3 + 1}, // one tick
				{From: hi + 1},
			} {
				tr, err := Open(name, &Options{Window: &w})
				if err != nil {
					t.Fatal(err)
				}
				got := readText(t, tr)
				tr.Close()
				want := inWindow(all, w.From, w.To)
				if fm == FormatOTF {
					want = withoutLateCollOpEnds(want)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("window [%d, %d) of [%d, %d]: %d events, want %d (-filter +window):\n%s", w.From, w.To, lo, hi, len(got), len(want), diff)
				}
			}
		})
	}
}

// withoutLateCollOpEnds drops from the events of a window of an OTF
// trace the CollEnds of deprecated CollOp records before the window
// (Match 0 and no CollBegin of Match 0 on their location in the window
// before them), as [model.Window] documents.
func withoutLateCollOpEnds(evs []textEvent) []textEvent {
	open := map[model.LocID]int{}
	var out []textEvent
	for _, e := range evs {
		ev := e.Ev
		if ev.Match == 0 {
			switch ev.Kind {
			case model.KindCollBegin:
				open[ev.Loc]++
			case model.KindCollEnd:
				if open[ev.Loc] == 0 {
					continue
				}
				open[ev.Loc]--
			}
		}
		out = append(out, e)
	}
	return out
}

// TestWindowEmpty: a window that selects nothing at all is an error.
func TestWindowEmpty(t *testing.T) {
	if tr, err := Open("picl/testdata/appendix_a.trf", &Options{Window: &model.Window{From: 5, To: 5}}); err == nil {
		tr.Close()
		t.Error("Open with window [5, 5): no error")
	}
}

// countingFS counts the bytes read from the files it opens, through Read
// and ReadAt alike.
type countingFS struct {
	fsys fs.FS
	n    int64
}

func (c *countingFS) Open(name string) (fs.File, error) {
	f, err := c.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	return &countingFile{File: f, n: &c.n}, nil
}

type countingFile struct {
	fs.File
	n *int64
}

func (c *countingFile) Read(p []byte) (int, error) {
	k, err := c.File.Read(p)
	*c.n += int64(k)
	return k, err
}

func (c *countingFile) ReadAt(p []byte, off int64) (int, error) {
	k, err := c.File.(io.ReaderAt).ReadAt(p, off)
	*c.n += int64(k)
	return k, err
}

// memFile is a file of a fstest.MapFS being written.
type memFile struct {
	fsys fstest.MapFS
	name string
	b    []byte
}

func (m *memFile) Write(p []byte) (int, error) { m.b = append(m.b, p...); return len(p), nil }
func (m *memFile) Close() error                { m.fsys[m.name] = &fstest.MapFile{Data: m.b}; return nil }

// bigOTF writes an OTF trace of 8 locations in 4 streams with n events,
// one a tick from tick 1000, nested visits of 4 regions and messages,
// and returns it.
func bigOTF(t *testing.T, n int) fstest.MapFS {
	t.Helper()
	fsys := fstest.MapFS{}
	var defs model.Defs
	defs.TimeBase = model.TimeBase{TicksPerSecond: 1e6}
	for l := range 8 {
		defs.AddLocation(model.Location{Name: fmt.Sprintf("rank %d", l), Native: int64(l + 1)})
	}
	for r := range 4 {
		defs.AddRegion(model.Region{Name: fmt.Sprintf("f%d", r), Native: int64(r + 1)})
	}
	c := model.CreateFunc(func(name string) (io.WriteCloser, error) { return &memFile{fsys: fsys, name: name}, nil })
	w, err := otf.NewModelWriter(c, &defs, &otf.ModelWriterOptions{Stub: "big", Streams: 4})
	if err != nil {
		t.Fatal(err)
	}
	depth := make([]int, 9)
	for k := range n {
		l := model.LocID(k%8 + 1)
		ev := model.Event{Time: model.Time(1000 + k), Loc: l}
		switch {
		case k%40 == 7:
			ev.Kind, ev.Peer, ev.Tag, ev.Bytes = model.KindSend, l%8+1, 3, 64
		case k%40 == 8+8: // the receive of the send 9 events before, at its peer
			ev.Kind, ev.Peer, ev.Tag, ev.Bytes = model.KindRecv, (l+6)%8+1, 3, 64
		case depth[l] < 3 && (k/8)%7 < 4:
			depth[l]++
			ev.Kind, ev.Region = model.KindEnter, model.RegionID(depth[l])
		case depth[l] > 0:
			ev.Kind, ev.Region = model.KindLeave, model.RegionID(depth[l])
			depth[l]--
		default:
			ev.Kind, ev.Region = model.KindEnter, 1
			depth[l]++
		}
		if err := w.Write(&ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return fsys
}

// TestWindowOTFSeeks: an OTF window reads about the bytes of the window,
// not those of the whole trace, and yields the events of the filter.
func TestWindowOTFSeeks(t *testing.T) {
	const n = 400_000
	fsys := bigOTF(t, n)
	var size int64
	for name, f := range fsys {
		if strings.Contains(name, ".events") {
			size += int64(len(f.Data))
		}
	}
	read := func(w *model.Window) ([]textEvent, int64) {
		cfs := &countingFS{fsys: fsys}
		tr, err := OpenFS(cfs, "big.otf", &Options{Window: w})
		if err != nil {
			t.Fatal(err)
		}
		defer tr.Close()
		return readText(t, tr), cfs.n
	}
	all, whole := read(nil)
	if len(all) != n {
		t.Fatalf("%d events, want %d", len(all), n)
	}
	for _, w := range []model.Window{
		{From: 1000 + n*99/100},                            // the last 1 %
		{From: 1000 + n/2, To: 1000 + n/2 + n/100},         // 1 % in the middle
		{From: 1000 + n/10, To: 1000 + n/10 + 10},          // 10 ticks
		{From: 1000 + n - 1, To: 1000 + n + 1000},          // the last event
		{From: 1000 + n*99/100, To: 1000 + n*99/100 + 400}, // 0.1 %
	} {
		got, bytes := read(&w)
		if diff := cmp.Diff(inWindow(all, w.From, w.To), got); diff != "" {
			t.Errorf("window [%d, %d): (-filter +window):\n%s", w.From, w.To, diff)
		}
		t.Logf("window [%d, %d): %d events, %d bytes read (whole read: %d; event files %d)", w.From, w.To, len(got), bytes, whole, size)
		if bytes > size/20 {
			t.Errorf("window [%d, %d): %d bytes read, want at most 5 %% of the %d of the event files", w.From, w.To, bytes, size)
		}
	}
}

// bigOTF2 writes an OTF2 archive of 4 locations with n events in small
// chunks, one event a tick: a main region open throughout, around n/32
// cycles of a visit of work, a collective inside an MPI region and one
// directly inside main if inMain, else another visit of work (n/4-2 must
// be a multiple of 8), and returns it.
func bigOTF2(t *testing.T, n int, inMain bool) fstest.MapFS {
	t.Helper()
	fsys := fstest.MapFS{}
	var defs model.Defs
	defs.TimeBase = model.TimeBase{TicksPerSecond: 1e6}
	for l := range 4 {
		defs.AddLocation(model.Location{Name: fmt.Sprintf("rank %d", l), Process: int32(l)})
	}
	main := defs.AddRegion(model.Region{Name: "main", Kind: model.RegionFunction})
	work := defs.AddRegion(model.Region{Name: "work", Kind: model.RegionFunction})
	allr := defs.AddRegion(model.Region{Name: "MPI_Allreduce", Kind: model.RegionCollective, Group: "MPI"})
	c := model.CreateFunc(func(name string) (io.WriteCloser, error) { return &memFile{fsys: fsys, name: name}, nil })
	w, err := otf2.NewModelWriter(c, &defs, &otf2.ModelWriterOptions{WriterOptions: otf2.WriterOptions{EventChunkSize: 4096}})
	if err != nil {
		t.Fatal(err)
	}
	write := func(ev model.Event) {
		if err := w.Write(&ev); err != nil {
			t.Fatal(err)
		}
	}
	for k := range n {
		l := model.LocID(k%4 + 1)
		ev := model.Event{Time: model.Time(1000 + k), Loc: l}
		switch p := k / 4; {
		case p == 0:
			ev.Kind, ev.Region = model.KindEnter, main
		case p == n/4-1:
			ev.Kind, ev.Region = model.KindLeave, main
		default:
			switch (p - 1) % 8 {
			case 0:
				ev.Kind, ev.Region = model.KindEnter, work
			case 1:
				ev.Kind, ev.Region = model.KindLeave, work
			case 2:
				ev.Kind, ev.Region = model.KindEnter, allr
			case 3:
				ev.Kind, ev.Region, ev.Class, ev.Bytes, ev.Recvd = model.KindCollBegin, allr, model.ClassAllToAll, 8, 8
			case 4:
				ev.Kind = model.KindCollEnd
			case 7:
				ev.Kind = model.KindCollEnd
				if !inMain {
					ev.Kind, ev.Region = model.KindLeave, work
				}
			case 5:
				ev.Kind, ev.Region = model.KindLeave, allr
			case 6:
				ev.Kind, ev.Region, ev.Class, ev.Bytes, ev.Recvd = model.KindCollBegin, main, model.ClassAllToAll, 16, 16
				if !inMain {
					ev = model.Event{Time: ev.Time, Loc: l, Kind: model.KindEnter, Region: work}
				}
			}
		}
		write(ev)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return fsys
}

// TestWindowOTF2Seeks: an OTF2 window yields the events of the filter,
// with collectives begun before it and collectives directly in a region
// entered before it, and reads about the bytes of the window when no
// collective needs the regions entered before it.
func TestWindowOTF2Seeks(t *testing.T) {
	const cycles = 4000
	const n = 4 * (8*cycles + 2)
	for _, inMain := range []bool{false, true} {
		fsys := bigOTF2(t, n, inMain)
		var size int64
		for name, f := range fsys {
			if strings.HasSuffix(name, ".evt") {
				size += int64(len(f.Data))
			}
		}
		read := func(w *model.Window) ([]textEvent, int64) {
			cfs := &countingFS{fsys: fsys}
			tr, err := OpenFS(cfs, "traces.otf2", &Options{Window: w})
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			return readText(t, tr), cfs.n
		}
		all, whole := read(nil)
		if len(all) != n {
			t.Fatalf("%d events, want %d", len(all), n)
		}
		colls, want := 0, 4*cycles
		if inMain {
			want *= 2
		}
		for _, e := range all {
			if e.Ev.Kind == model.KindCollBegin && e.Ev.Region != 0 {
				colls++
			}
		}
		if colls != want {
			t.Fatalf("%d collectives with a region in the whole read, want %d", colls, want)
		}
		for _, w := range []model.Window{
			{From: 1000 + n*99/100},                                       // the last 1 %
			{From: 1000 + n/2, To: 1000 + n/2 + n/100},                    // 1 % in the middle
			{From: 1000 + 4*(1+8*(cycles/2)+4) + 2, To: 1000 + n/2 + 200}, // inside a collective in MPI_Allreduce
			{From: 1000 + 4*(1+8*(cycles/2)+6) + 1, To: 1000 + n/2 + 200}, // inside a collective in main
			{From: 1000 + 4*(1+8*(cycles/2)+5) + 1, To: 1000 + n/2 + 200}, // before a collective in main
			{From: 1000 + n - 1, To: 1000 + n + 1000},                     // the last event
		} {
			got, bytes := read(&w)
			if diff := cmp.Diff(inWindow(all, w.From, w.To), got); diff != "" {
				t.Errorf("collectives in main %v, window [%d, %d): (-filter +window):\n%s", inMain, w.From, w.To, diff)
			}
			t.Logf("collectives in main %v, window [%d, %d): %d events, %d bytes read (whole read: %d; event files %d)", inMain, w.From, w.To, len(got), bytes, whole, size)
			if !inMain && bytes > size/10 {
				t.Errorf("window [%d, %d): %d bytes read, want at most 10 %% of the %d of the event files", w.From, w.To, bytes, size)
			}
		}
	}
}
