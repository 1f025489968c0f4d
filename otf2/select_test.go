package otf2

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace/model"
	"pgregory.net/rapid"
)

// countFS is an fs.FS that counts, per file it opens, the calls to the
// file's Close, and records the names opened.
type countFS struct {
	fs.FS
	mu     sync.Mutex
	files  []*countFile
	opened []string
}

type countFile struct {
	fs.File
	name   string
	closes int
}

func (f *countFile) Close() error {
	f.closes++
	return f.File.Close()
}

// ReadAt and Seek give the readers the random access of the file below.
func (f *countFile) ReadAt(p []byte, off int64) (int, error) {
	ra, ok := f.File.(io.ReaderAt)
	if !ok {
		return 0, errors.New("countFile: no ReadAt")
	}
	return ra.ReadAt(p, off)
}

func (f *countFile) Seek(off int64, whence int) (int64, error) {
	s, ok := f.File.(io.Seeker)
	if !ok {
		return 0, errors.New("countFile: no Seek")
	}
	return s.Seek(off, whence)
}

func (c *countFS) Open(name string) (fs.File, error) {
	f, err := c.FS.Open(name)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	cf := &countFile{File: f, name: name}
	c.files = append(c.files, cf)
	c.opened = append(c.opened, name)
	return cf, nil
}

// check fails t for every file opened not closed exactly once.
func (c *countFS) check(t *testing.T, what string) {
	t.Helper()
	for _, f := range c.files {
		if f.closes != 1 {
			t.Errorf("%s: %s closed %d times, want once", what, f.name, f.closes)
		}
	}
}

// locationFiles returns the locations whose files of extension ext were
// opened.
func (c *countFS) locationFiles(ext string) []uint64 {
	re := regexp.MustCompile(`^traces/([0-9]+)\.` + ext + `$`)
	var ids []uint64
	for _, n := range c.opened {
		if m := re.FindStringSubmatch(n); m != nil {
			id, _ := strconv.ParseUint(m[1], 10, 64)
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// readSource reads every event of s.
func readSource(t testing.TB, s *ModelSource) ([]model.Event, error) {
	var evs []model.Event
	for s.Next() {
		evs = append(evs, *s.Event())
	}
	return evs, s.Err()
}

// selectedRead opens the archive of fsys, reads it through a ModelSource
// with sel, closes both and checks that every file opened was closed
// once. It returns the events, the source's definitions and the files
// opened.
func selectedRead(t *testing.T, fsys fs.FS, sel model.Selection) ([]model.Event, *model.Defs, *countFS) {
	t.Helper()
	c := &countFS{FS: fsys}
	a, err := OpenFS(c, "traces.otf2", nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewModelSource(a, &ModelOptions{Selection: sel})
	if err != nil {
		t.Fatal(err)
	}
	evs, err := readSource(t, s)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	c.check(t, "after ModelSource.Close and Archive.Close")
	return evs, s.Defs(), c
}

// keep returns the events of all that sel keeps.
func keep(all []model.Event, sel model.Selection) []model.Event {
	var out []model.Event
	for _, ev := range all {
		if sel.Keep(&ev) {
			out = append(out, ev)
		}
	}
	return out
}

// TestOpenClose: after ModelSource.Close and Archive.Close every file
// opened (anchor, global and local definitions, event files, those a
// seek reads again) was closed exactly once; ModelSource.Close leaves the
// Archive open; second Closes return nil; reads after Close fail with
// ErrClosed.
func TestOpenClose(t *testing.T) {
	for _, fx := range fixtures {
		fsys := os.DirFS(filepath.Join("testdata", fx, "trace"))
		selectedRead(t, fsys, model.Selection{})
		_, d, _ := selectedRead(t, fsys, model.Selection{Locations: func(l model.LocID) bool { return l%2 == 1 }})
		if d.NumLocations() == 0 {
			t.Fatalf("%s: no locations", fx)
		}
	}
	fsys := collArchive(t, 4, 4000, 4096)
	c := &countFS{FS: fsys}
	a, err := OpenFS(c, "traces.otf2", nil)
	if err != nil {
		t.Fatal(err)
	}
	// A window that seeks and meets collectives with their regions
	// entered before it: the source reads the files of their locations
	// again.
	s, err := NewModelSource(a, &ModelOptions{Selection: model.Selection{Window: &model.Window{From: 3000, To: 3500}}})
	if err != nil {
		t.Fatal(err)
	}
	evs, err := readSource(t, s)
	if err != nil || len(evs) == 0 {
		t.Fatalf("%d events, %v", len(evs), err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second ModelSource.Close: %v", err)
	}
	if s.Next() || !errors.Is(s.Err(), ErrClosed) {
		t.Errorf("Next after Close: Err %v, want ErrClosed", s.Err())
	}
	if err := s.SeekTime(0); !errors.Is(err, ErrClosed) {
		t.Errorf("SeekTime after Close: %v, want ErrClosed", err)
	}
	// The source did not close the archive it was given.
	r, err := a.EventReader(a.Locations()[0])
	if err != nil {
		t.Fatalf("EventReader after ModelSource.Close: %v", err)
	}
	if !r.Next() {
		t.Errorf("EventReader after ModelSource.Close: no event, %v", r.Err())
	}
	r.Close()
	n := len(c.files)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Errorf("second Archive.Close: %v", err)
	}
	c.check(t, "window")
	if n < 2+4+4 {
		t.Errorf("%d files opened, want the anchor, the definitions and every event file at least", n)
	}
	if _, err := a.EventReader(a.Locations()[1]); !errors.Is(err, ErrClosed) {
		t.Errorf("EventReader after Archive.Close: %v, want ErrClosed", err)
	}
	if _, err := a.MergedReader(nil); !errors.Is(err, ErrClosed) {
		t.Errorf("MergedReader after Archive.Close: %v, want ErrClosed", err)
	}
	if _, err := a.MarkerReader(); !errors.Is(err, ErrClosed) {
		t.Errorf("MarkerReader after Archive.Close: %v, want ErrClosed", err)
	}
	if _, err := NewModelSource(a, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("NewModelSource of a closed Archive: %v, want ErrClosed", err)
	}
	if len(c.files) != n {
		t.Errorf("%d files opened after Archive.Close", len(c.files)-n)
	}
	// Archive.MergedReader's Close closes the readers it opened;
	// NewMergedReader's closes none of the readers it was given.
	c = &countFS{FS: fsys}
	a, err = OpenFS(c, "traces.otf2", nil)
	if err != nil {
		t.Fatal(err)
	}
	mr, err := a.MergedReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := mr.Close(); err != nil {
		t.Fatal(err)
	}
	if err := mr.Close(); err != nil {
		t.Errorf("second MergedReader.Close: %v", err)
	}
	c.check(t, "Archive.MergedReader")
	r, err = a.EventReader(0)
	if err != nil {
		t.Fatal(err)
	}
	if err := NewMergedReader([]*EventReader{r}).Close(); err != nil {
		t.Fatal(err)
	}
	if f := c.files[len(c.files)-1]; f.closes != 0 {
		t.Errorf("NewMergedReader's Close closed %s, a file of a reader it was given", f.name)
	}
	r.Close()
	a.Close()
	c.check(t, "NewMergedReader")
	// A failing NewModelSource closes what it opened.
	c = &countFS{FS: fsys}
	a, err = OpenFS(c, "traces.otf2", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewModelSource(a, &ModelOptions{Selection: model.Selection{Window: &model.Window{From: 5, To: 5}}}); err == nil {
		t.Error("an empty window: no error")
	}
	delete(fsys, "traces/2.evt")
	if _, err := NewModelSource(a, nil); !errors.Is(err, ErrIntegrity) {
		t.Errorf("a missing event file: %v, want ErrIntegrity", err)
	}
	a.Close()
	c.check(t, "failed NewModelSource")
}

// collArchive writes an archive of nloc MPI ranks with about n events
// each in chunks of chunk bytes: a main region open throughout and, at
// random steps of 1 to 3 ticks, visits of a work region and of an MPI
// region holding a collective (MpiCollectiveBegin … End) or a
// non-blocking collective (its request and completion), and messages
// between neighbours.
func collArchive(t testing.TB, nloc, n int, chunk int64) fstest.MapFS {
	t.Helper()
	var defs model.Defs
	defs.TimeBase = model.TimeBase{TicksPerSecond: 1e6}
	var members []model.LocID
	for l := range nloc {
		members = append(members, defs.AddLocation(model.Location{Name: fmt.Sprintf("rank %d", l), Process: int32(l)}))
	}
	world := defs.AddComm(model.Comm{Name: "world", Members: members})
	main := defs.AddRegion(model.Region{Name: "main", Kind: model.RegionFunction})
	work := defs.AddRegion(model.Region{Name: "work", Kind: model.RegionFunction})
	allr := defs.AddRegion(model.Region{Name: "MPI_Allreduce", Kind: model.RegionCollective, Group: "MPI", Paradigm: model.ParadigmMPI})
	iallr := defs.AddRegion(model.Region{Name: "MPI_Iallreduce", Kind: model.RegionCollective, Group: "MPI", Paradigm: model.ParadigmMPI})
	send := defs.AddRegion(model.Region{Name: "MPI_Send", Kind: model.RegionComm, Group: "MPI", Paradigm: model.ParadigmMPI})
	cr := memCreator{}
	w, err := NewModelWriter(cr, &defs, &ModelWriterOptions{WriterOptions: WriterOptions{EventChunkSize: chunk}})
	if err != nil {
		t.Fatal(err)
	}
	write := func(ev model.Event) {
		if err := w.Write(&ev); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for li, l := range members {
		tm := model.Time(1000)
		at := func() model.Time { tm += model.Time(1 + rng.IntN(3)); return tm }
		write(model.Event{Time: at(), Loc: l, Kind: model.KindEnter, Region: main})
		for k := 0; k < n; {
			switch rng.IntN(4) {
			case 0:
				write(model.Event{Time: at(), Loc: l, Kind: model.KindEnter, Region: work})
				write(model.Event{Time: at(), Loc: l, Kind: model.KindLeave, Region: work})
				k += 2
			case 1:
				write(model.Event{Time: at(), Loc: l, Kind: model.KindEnter, Region: allr})
				write(model.Event{Time: at(), Loc: l, Kind: model.KindCollBegin, Region: allr, Comm: world, Class: model.ClassAllToAll, Bytes: 8, Recvd: 8})
				write(model.Event{Time: at(), Loc: l, Kind: model.KindCollEnd})
				write(model.Event{Time: at(), Loc: l, Kind: model.KindLeave, Region: allr})
				k += 4
			case 2:
				m := uint64(k + 1)
				write(model.Event{Time: at(), Loc: l, Kind: model.KindEnter, Region: iallr})
				write(model.Event{Time: at(), Loc: l, Kind: model.KindCollPost, Region: iallr, Match: m})
				write(model.Event{Time: at(), Loc: l, Kind: model.KindLeave, Region: iallr})
				write(model.Event{Time: at(), Loc: l, Kind: model.KindEnter, Region: work})
				write(model.Event{Time: at(), Loc: l, Kind: model.KindCollDone, Region: iallr, Match: m, Comm: world, Class: model.ClassAllToAll, Bytes: 8, Recvd: 8})
				write(model.Event{Time: at(), Loc: l, Kind: model.KindLeave, Region: work})
				k += 6
			case 3:
				write(model.Event{Time: at(), Loc: l, Kind: model.KindEnter, Region: send})
				write(model.Event{Time: at(), Loc: l, Kind: model.KindSend, Peer: members[(li+1)%nloc], Comm: world, Tag: 3, Bytes: 64})
				write(model.Event{Time: at(), Loc: l, Kind: model.KindLeave, Region: send})
				k += 3
			}
		}
		write(model.Event{Time: at(), Loc: l, Kind: model.KindLeave, Region: main})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if n := w.Lost(); n != 0 {
		t.Fatalf("%d events lost", n)
	}
	return cr.fs()
}

// TestSelectionExact: a ModelSource with a Selection yields the events
// of a whole read that the Selection keeps, in order and with the same
// values, and opens the event and local definition files of only the
// selected locations; its definitions are the whole archive's.
func TestSelectionExact(t *testing.T) {
	fsys := collArchive(t, 4, 2500, 4096)
	all, whole, _ := selectedRead(t, fsys, model.Selection{})
	lo, hi := all[0].Time, all[0].Time
	for _, ev := range all {
		lo, hi = min(lo, ev.Time), max(hi, ev.Time)
	}
	rapid.Check(t, func(rt *rapid.T) {
		var sel model.Selection
		if rapid.Bool().Draw(rt, "locations") {
			mask := rapid.IntRange(0, 15).Draw(rt, "mask")
			sel.Locations = func(l model.LocID) bool { return mask&(1<<(l-1)) != 0 }
		}
		if rapid.Bool().Draw(rt, "window") {
			from := model.Time(rapid.Int64Range(int64(lo)-5, int64(hi)+5).Draw(rt, "from"))
			w := model.Window{From: from}
			if rapid.Bool().Draw(rt, "to") {
				w.To = from + model.Time(rapid.Int64Range(1, int64(hi-lo)/4).Draw(rt, "length"))
			}
			sel.Window = &w
		}
		got, defs, c := selectedRead(t, fsys, sel)
		if diff := cmp.Diff(keep(all, sel), got); diff != "" {
			rt.Fatalf("(-whole read kept +selection):\n%s", diff)
		}
		if !slices.Equal(defs.Locations(), whole.Locations()) || !slices.Equal(defs.Regions(), whole.Regions()) {
			rt.Fatalf("definitions differ from the whole read's")
		}
		for _, f := range []string{"evt", "def"} {
			for _, id := range c.locationFiles(f) {
				if l, ok := defs.LocationByNative(int64(id)); !ok || !sel.KeepsLocation(l) {
					rt.Fatalf("opened the %s file of location %d, not selected", f, id)
				}
			}
		}
	})
}

// TestSelectionFixtures: on every fixture, each location alone and
// windows at the quarters of its time span, alone and with the odd
// locations, yield the whole read's events the selection keeps.
func TestSelectionFixtures(t *testing.T) {
	for _, fx := range fixtures {
		fsys := os.DirFS(filepath.Join("testdata", fx, "trace"))
		all, defs, _ := selectedRead(t, fsys, model.Selection{})
		if len(all) == 0 {
			t.Fatalf("%s: no events", fx)
		}
		lo, hi := all[0].Time, all[len(all)-1].Time
		sels := []model.Selection{{Locations: func(l model.LocID) bool { return false }}}
		for l := range model.LocID(defs.NumLocations()) {
			sels = append(sels, model.Selection{Locations: model.Only(l + 1)})
		}
		for q := range model.Time(4) {
			w := &model.Window{From: lo + (hi-lo)*q/4, To: lo + (hi-lo)*(q+1)/4 + 1}
			sels = append(sels, model.Selection{Window: w}, model.Selection{Window: w, Locations: func(l model.LocID) bool { return l%2 == 1 }})
		}
		for i, sel := range sels {
			got, _, _ := selectedRead(t, fsys, sel)
			if diff := cmp.Diff(keep(all, sel), got); diff != "" {
				t.Errorf("%s selection %d: (-whole read kept +selection):\n%s", fx, i, diff)
			}
		}
	}
}

// clockArchive writes an archive in small chunks whose location l has
// Enter and Leave events of one region at the raw times times[l] and the
// clock offsets offs[l].
func clockArchive(t testing.TB, times [][]uint64, offs [][]ClockOffset) memCreator {
	t.Helper()
	cr := memCreator{}
	w, err := NewArchiveWriter(cr, &WriterOptions{EventChunkSize: 4096})
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	str := NewDef(DefKindString)
	str.SetBytes([]byte("f"))
	must(w.WriteDef(str))
	reg := NewDef(DefKindRegion)
	reg.SetValue(4, Undefined32)
	must(w.WriteDef(reg))
	for loc := range uint64(len(times)) {
		l := NewDef(DefKindLocation)
		l.SetValue(0, loc)
		l.SetValue(2, 1)
		l.SetValue(3, uint64(len(times[loc])))
		must(w.WriteDef(l))
		for _, o := range offs[loc] {
			d := NewDef(DefKindClockOffset)
			d.SetValue(0, o.Time)
			d.SetValue(1, uint64(o.Offset))
			must(w.WriteLocalDef(loc, d))
		}
		ew, err := w.EventWriter(loc)
		must(err)
		for i, tm := range times[loc] {
			k := KindEnter
			if i%2 == 1 {
				k = KindLeave
			}
			must(ew.Write(NewEvent(k, tm)))
		}
	}
	must(w.Close())
	return cr
}

// TestSelectionBackwards: where a location's clock offsets correct its
// time backwards, so that its times do not ascend, a window is the
// filtered read of every event (no seek, no stop at To).
func TestSelectionBackwards(t *testing.T) {
	var times, other []uint64
	for i := range 4000 {
		times = append(times, uint64(1000+i))
		other = append(other, uint64(1e6+2*i))
	}
	// corrected = raw + offset: 1e6+1000 → about 1e6-1000 at raw 3000
	// (slope -2), then up again (slope +1).
	offs := []ClockOffset{{Time: 1000, Offset: 1e6}, {Time: 3000, Offset: 1e6 - 4000}, {Time: 5000, Offset: 1e6 - 4000}}
	fsys := clockArchive(t, [][]uint64{times, other}, [][]ClockOffset{offs, nil}).fs()
	all, _, _ := selectedRead(t, fsys, model.Selection{})
	a, err := OpenFS(fsys, "traces.otf2", nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewModelSource(a, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := s.TimesAscend(); ok || err != nil {
		t.Fatalf("TimesAscend = %v, %v; want false", ok, err)
	}
	s.Close()
	for _, w := range []model.Window{{From: 1e6 + 200, To: 1e6 + 300}, {From: 1e6 - 500}, {From: 1e6 + 900}, {From: 1e6 + 10, To: 1e6 + 3000}} {
		for _, locs := range []func(model.LocID) bool{nil, model.Only(1), model.Only(2)} {
			sel := model.Selection{Window: &w, Locations: locs}
			want := keep(all, sel)
			if len(want) == 0 && locs == nil {
				t.Fatalf("window %+v: no event in the filtered read", w)
			}
			got, _, _ := selectedRead(t, fsys, sel)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("window %+v: (-filtered +window):\n%s", w, diff)
			}
		}
	}
}

// TestSelectionTimeGoesBack: raw times that go back inside a chunk (which
// TimesAscend cannot see) end a window's read, which stops at To, with an
// error wrapping ErrTimeOrder, not with a silent end; a read without a
// window yields them.
func TestSelectionTimeGoesBack(t *testing.T) {
	cr := clockArchive(t, [][]uint64{{10, 30}, {12, 0x5ab1e5}}, [][]ClockOffset{nil, nil})
	// Location 1's second time becomes 11.
	f := cr["traces/1.evt"]
	old := binary.LittleEndian.AppendUint64([]byte{bTimestamp}, 0x5ab1e5)
	if bytes.Count(f.Bytes(), old) != 1 {
		t.Fatal("the time stamp to patch is not in the event file once")
	}
	b := bytes.Replace(f.Bytes(), old, binary.LittleEndian.AppendUint64([]byte{bTimestamp}, 11), 1)
	f.Reset()
	f.Write(b)
	fsys := cr.fs()
	all, _, _ := selectedRead(t, fsys, model.Selection{})
	if len(all) != 4 || all[2].Time != 11 {
		t.Fatalf("whole read: %+v", all)
	}
	a, err := OpenFS(fsys, "traces.otf2", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	s, err := NewModelSource(a, &ModelOptions{Selection: model.Selection{Window: &model.Window{From: 5, To: 20}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := readSource(t, s)
	if len(got) != 2 || !errors.Is(err, ErrTimeOrder) {
		t.Errorf("got %d events and error %v, want 2 and ErrTimeOrder", len(got), err)
	}
	if s.Next() {
		t.Error("Next after the error: true")
	}
	// Equal times and other locations' earlier times are no error.
	cr = clockArchive(t, [][]uint64{{10, 10, 25, 26}, {8, 30}}, [][]ClockOffset{nil, nil})
	sel := model.Selection{Window: &model.Window{From: 5, To: 20}}
	all, _, _ = selectedRead(t, cr.fs(), model.Selection{})
	if got, _, _ := selectedRead(t, cr.fs(), sel); !slices.Equal(got, keep(all, sel)) {
		t.Errorf("ascending times: got %+v", got)
	}
}

// TestSelectionEmptyLocation: a window over an archive with a location
// without an event file (read as empty) seeks the other locations and
// yields the filtered read's events.
func TestSelectionEmptyLocation(t *testing.T) {
	cr := memCreator{}
	writeBig(t, cr, 3, 400)
	fsys := cr.fs()
	delete(fsys, "traces/1.evt")
	read := func(sel model.Selection) []model.Event {
		a, err := OpenFS(fsys, "traces.otf2", &OpenOptions{AllowMissingEvents: true})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		s, err := NewModelSource(a, &ModelOptions{Selection: sel})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if ok, err := s.TimesAscend(); !ok || err != nil {
			t.Fatalf("TimesAscend = %v, %v; want true", ok, err)
		}
		evs, err := readSource(t, s)
		if err != nil {
			t.Fatal(err)
		}
		return evs
	}
	all := read(model.Selection{})
	if len(all) == 0 {
		t.Fatal("no events")
	}
	mid := all[len(all)/2].Time
	for _, w := range []model.Window{{From: mid}, {From: mid, To: mid + 3}, {From: 1, To: mid}} {
		sel := model.Selection{Window: &w}
		if diff := cmp.Diff(keep(all, sel), read(sel)); diff != "" {
			t.Errorf("window %+v: (-filtered +window):\n%s", w, diff)
		}
	}
}
