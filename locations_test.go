package hpctrace

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hpctrace/hpctrace/dumpi"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf"
)

// openCounter is an fs.FS that records the names opened.
type openCounter struct {
	fs.FS
	mu     sync.Mutex
	opened []string
}

func (c *openCounter) Open(name string) (fs.File, error) {
	c.mu.Lock()
	c.opened = append(c.opened, name)
	c.mu.Unlock()
	return c.FS.Open(name)
}

// streamFiles returns the stream ids of the opened files whose name ends
// in "."+kind (compressed or not).
func (c *openCounter) streamFiles(kind string) []uint32 {
	re := regexp.MustCompile(`\.([0-9a-f]+)\.` + kind + `(\.z)?$`)
	var ids []uint32
	for _, n := range c.opened {
		if m := re.FindStringSubmatch(path.Base(n)); m != nil {
			id, _ := strconv.ParseUint(m[1], 16, 32)
			ids = append(ids, uint32(id))
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

type defsView struct {
	TimeBase  model.TimeBase
	Locations []model.Location
	Regions   []model.Region
	Sites     []model.Site
	Comms     []model.Comm
	Counters  []model.Counter
	Recorded  []model.Recorded
}

func viewDefs(d *model.Defs) defsView {
	return defsView{d.TimeBase, d.Locations(), d.Regions(), d.Sites(), d.Comms(), d.Counters(), d.Recorded}
}

// events returns the events of src whose location keep accepts, with
// Marker texts resolved.
// (string ids are interned as the strings are read, so they depend on
// what was read).
func keptEvents(t *testing.T, src model.Source, keep func(model.LocID) bool) []textEvent {
	t.Helper()
	var out []textEvent
	for src.Next() {
		if ev := src.Event(); keep(ev.Loc) {
			te := textEvent{Ev: *ev, Text: src.Defs().String(ev.Text)}
			te.Ev.Text = 0
			out = append(out, te)
		}
	}
	if err := src.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// readWhole opens name in fsys with no options and returns its
// definitions and all its events, the reference a shard is compared with.
func readWhole(t *testing.T, fsys fs.FS, name string) (defsView, []textEvent) {
	t.Helper()
	tw, err := OpenFS(fsys, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tw.Close()
	all := keptEvents(t, tw.Source(), func(model.LocID) bool { return true })
	return viewDefs(tw.Source().Defs()), all
}

// TestOTFLocationsReadsOnlyTheirStreams checks that Options.Locations
// makes an OTF trace open the event files of only the streams with an
// accepted process, while its definitions (the definition and summary
// files of every stream) and the accepted locations' events stay those of
// a whole read.
func TestOTFLocationsReadsOnlyTheirStreams(t *testing.T) {
	for _, dir := range []string{"otf/testdata/ring_zlib_blocks", "otf/testdata/all_records_long", "otf/testdata/minimal_ring_short"} {
		fsys := os.DirFS(dir)
		m, err := fs.Glob(fsys, "*.otf")
		if err != nil || len(m) != 1 {
			t.Fatalf("%s: %v %v", dir, m, err)
		}
		name := m[0]
		whole := &openCounter{FS: fsys}
		defs, all := readWhole(t, whole, name)
		ot, err := otf.OpenFS(fsys, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(ot.Streams) < 2 {
			t.Fatalf("%s: %d streams, want several", dir, len(ot.Streams))
		}
		if got := whole.streamFiles("events"); len(got) != len(ot.Streams) {
			t.Fatalf("%s: a whole read opened the event files of streams %v", dir, got)
		}
		for n := 1; n <= 3; n++ {
			for i := range n {
				keep := func(l model.LocID) bool { return int(l)%n == i }
				c := &openCounter{FS: fsys}
				tr, err := OpenFS(c, name, &Options{Locations: keep})
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(defs, viewDefs(tr.Source().Defs())); diff != "" {
					t.Errorf("%s shard %d/%d: definitions differ from a whole read (-whole +shard):\n%s", dir, i, n, diff)
				}
				// The adapter selects by itself: its own events are the shard's.
				got := keptEvents(t, tr.Source(), func(model.LocID) bool { return true })
				tr.Close()
				want := slices.DeleteFunc(slices.Clone(all), func(ev textEvent) bool { return !keep(ev.Ev.Loc) })
				if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("%s shard %d/%d: events differ (-whole +shard):\n%s", dir, i, n, diff)
				}
				var wantStreams []uint32
				for _, s := range ot.Streams {
					if slices.ContainsFunc(s.Processes, func(p uint32) bool {
						id, ok := tr.Source().Defs().LocationByNative(int64(p))
						return ok && keep(id)
					}) {
						wantStreams = append(wantStreams, s.ID)
					}
				}
				slices.Sort(wantStreams)
				if got := c.streamFiles("events"); !slices.Equal(got, wantStreams) {
					t.Errorf("%s shard %d/%d: opened the event files of streams %v, want %v", dir, i, n, got, wantStreams)
				}
				if got, want := c.streamFiles("def"), whole.streamFiles("def"); !slices.Equal(got, want) {
					t.Errorf("%s shard %d/%d: opened the definition files of streams %v, want all: %v", dir, i, n, got, want)
				}
				if got, want := c.streamFiles("stats"), whole.streamFiles("stats"); !slices.Equal(got, want) {
					t.Errorf("%s shard %d/%d: opened the summary files of streams %v, want all: %v", dir, i, n, got, want)
				}
			}
		}
	}
}

// readAtCounter is an fs.FS whose files record the byte ranges read from
// them with ReadAt, by name.
type readAtCounter struct {
	fs.FS
	mu    sync.Mutex
	reads map[string][][2]int64
}

type countedFile struct {
	fs.File
	c    *readAtCounter
	name string
}

func (c *readAtCounter) Open(name string) (fs.File, error) {
	f, err := c.FS.Open(name)
	if err != nil {
		return nil, err
	}
	return &countedFile{f, c, name}, nil
}

func (f *countedFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.File.(io.ReaderAt).ReadAt(p, off)
	f.c.mu.Lock()
	if f.c.reads == nil {
		f.c.reads = map[string][][2]int64{}
	}
	f.c.reads[f.name] = append(f.c.reads[f.name], [2]int64{off, off + int64(n)})
	f.c.mu.Unlock()
	return n, err
}

// callBytes returns how many bytes of the call stream [from, to) of file
// name were read (counting a byte read twice twice).
func (c *readAtCounter) callBytes(name string, from, to int64) int64 {
	var n int64
	for _, r := range c.reads[name] {
		n += max(0, min(r[1], to)-max(r[0], from))
	}
	return n
}

// TestDUMPILocationsReadsOnlyTheirRanks checks that Options.Locations makes
// a DUMPI run read the calls of only the ranks with an accepted location,
// the other ranks' files only in their small sections (header, footer,
// tables), while the definitions stay those of a whole read and the
// accepted locations' events those of the whole run. The selections
// accept no location after the ranks' (a thread's, which only the calls
// reveal: one that may accept such a location reads every rank's calls
// once first, see dumpi.ModelSource). A run whose footers
// count communicator constructors is read by the first pass that
// reconstructs their membership up to each rank's last one, in
// derived_comms most of the calls; there the test checks the definitions
// and events only.
func TestDUMPILocationsReadsOnlyTheirRanks(t *testing.T) {
	for _, c := range []struct {
		dir          string
		constructors bool
	}{
		{"dumpi/testdata/collectives", false},
		{"dumpi/testdata/p2p_nonblocking", false},
		{"dumpi/testdata/annotations", false},
		{"dumpi/testdata/derived_comms", true},
	} {
		fsys := os.DirFS(c.dir)
		m, err := fs.Glob(fsys, "*.meta")
		if err != nil || len(m) != 1 {
			t.Fatalf("%s: %v %v", c.dir, m, err)
		}
		name := m[0]
		defs, all := readWhole(t, fsys, name)
		run, err := dumpi.OpenRunFS(fsys, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		type stream struct {
			name     string
			from, to int64
		}
		var streams []stream
		for r, f := range run.Files {
			streams = append(streams, stream{path.Join(path.Dir(name), run.Meta.RankFile(r)), f.Index.Body, f.Index.Footer})
		}
		run.Close()
		for n := 1; n <= 4; n++ {
			for i := range n {
				keep := func(l model.LocID) bool { return int(l) <= len(streams) && int(l)%n == i }
				rc := &readAtCounter{FS: fsys}
				tr, err := OpenFS(rc, name, &Options{Locations: keep})
				if err != nil {
					t.Fatal(err)
				}
				got := keptEvents(t, tr.Source(), keep)
				if diff := cmp.Diff(defs, viewDefs(tr.Source().Defs())); diff != "" {
					t.Errorf("%s shard %d/%d: definitions differ from a whole read (-whole +shard):\n%s", c.dir, i, n, diff)
				}
				tr.Close()
				want := slices.DeleteFunc(slices.Clone(all), func(ev textEvent) bool { return !keep(ev.Ev.Loc) })
				if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("%s shard %d/%d: events differ (-whole +shard):\n%s", c.dir, i, n, diff)
				}
				for r, s := range streams {
					read := rc.callBytes(s.name, s.from, s.to)
					switch {
					case keep(model.LocID(r+1)) && read < s.to-s.from:
						t.Errorf("%s shard %d/%d: read %d bytes of rank %d's %d bytes of calls, want all", c.dir, i, n, read, r, s.to-s.from)
					case !keep(model.LocID(r+1)) && !c.constructors && read > 0:
						t.Errorf("%s shard %d/%d: read %d bytes of the calls of rank %d, not in the shard", c.dir, i, n, read, r)
					}
				}
			}
		}
	}
}

// locationFiles returns the location ids of the opened files of an OTF2
// archive's directory whose name ends in "."+ext.
func (c *openCounter) locationFiles(ext string) []uint64 {
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

// TestOTF2LocationsReadsOnlyTheirLocations checks that Options.Locations
// makes an OTF2 archive open the event and local definition files of
// only the accepted locations, while its definitions (the global ones,
// read by every shard) and the accepted locations' events stay those of a
// whole read; with locations chosen by native id too (through the
// definitions), of the locations both accept.
func TestOTF2LocationsReadsOnlyTheirLocations(t *testing.T) {
	dirs, err := filepath.Glob("otf2/testdata/*/trace")
	if err != nil || len(dirs) < 5 {
		t.Fatalf("OTF2 fixtures: %v %v", dirs, err)
	}
	// 5 MPI ranks, one with two threads, written by libotf2.
	dirs = append(dirs, "examples/tracestat/testdata/otf2_mpi/trace")
	several := 0
	for _, dir := range dirs {
		fsys := os.DirFS(dir)
		const name = "traces.otf2"
		whole := &openCounter{FS: fsys}
		defs, all := readWhole(t, whole, name)
		var evts []uint64
		for _, l := range defs.Locations {
			if _, err := fs.Stat(fsys, fmt.Sprintf("traces/%d.evt", l.Native)); err == nil {
				evts = append(evts, uint64(l.Native))
			}
		}
		slices.Sort(evts)
		if got := whole.locationFiles("evt"); !slices.Equal(got, evts) {
			t.Fatalf("%s: a whole read opened the event files of locations %v, want %v", dir, got, evts)
		}
		if len(evts) > 1 {
			several++
		}
		for n := 1; n <= 4; n++ {
			for i := range n {
				keep := func(l model.LocID) bool { return int(l)%n == i }
				c := &openCounter{FS: fsys}
				tr, err := OpenFS(c, name, &Options{Locations: keep})
				if err != nil {
					t.Fatal(err)
				}
				d := tr.Source().Defs()
				if diff := cmp.Diff(defs, viewDefs(d)); diff != "" {
					t.Errorf("%s shard %d/%d: definitions differ from a whole read (-whole +shard):\n%s", dir, i, n, diff)
				}
				got := keptEvents(t, tr.Source(), func(model.LocID) bool { return true })
				tr.Close()
				want := slices.DeleteFunc(slices.Clone(all), func(ev textEvent) bool { return !keep(ev.Ev.Loc) })
				if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("%s shard %d/%d: events differ (-whole +shard):\n%s", dir, i, n, diff)
				}
				var wantFiles []uint64
				for _, id := range evts {
					l, ok := d.LocationByNative(int64(id))
					if ok && keep(l) {
						wantFiles = append(wantFiles, id)
					}
				}
				if got := c.locationFiles("evt"); !slices.Equal(got, wantFiles) {
					t.Errorf("%s shard %d/%d: opened the event files of locations %v, want %v", dir, i, n, got, wantFiles)
				}
				for _, id := range c.locationFiles("def") {
					if l, ok := d.LocationByNative(int64(id)); !ok || !keep(l) {
						t.Errorf("%s shard %d/%d: opened the local definitions of location %d, not in the shard", dir, i, n, id)
					}
				}
				if !slices.Contains(c.opened, "traces.def") {
					t.Errorf("%s shard %d/%d: did not read the global definitions: opened %v", dir, i, n, c.opened)
				}
			}
		}
		// Locations chosen by native id, converted to model ids through
		// the definitions, and the odd ones: of the first two locations,
		// the odd model location.
		var sel []uint64
		var ids []model.LocID
		for i, l := range defs.Locations[:min(2, len(defs.Locations))] {
			sel = append(sel, uint64(l.Native))
			ids = append(ids, model.LocID(i+1))
		}
		chosen := model.Only(ids...)
		odd := func(l model.LocID) bool { return l%2 == 1 && chosen(l) }
		c := &openCounter{FS: fsys}
		tr, err := OpenFS(c, name, &Options{Locations: odd})
		if err != nil {
			t.Fatal(err)
		}
		got := keptEvents(t, tr.Source(), func(model.LocID) bool { return true })
		tr.Close()
		want := slices.DeleteFunc(slices.Clone(all), func(ev textEvent) bool { return ev.Ev.Loc != 1 })
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: locations %v and odd Locations: events differ (-whole +selection):\n%s", dir, sel, diff)
		}
		if got := c.locationFiles("evt"); len(got) > 1 || len(got) == 1 && got[0] != sel[0] {
			t.Errorf("%s: locations %v and odd Locations: opened the event files of locations %v", dir, sel, got)
		}
	}
	if several < 4 {
		t.Errorf("%d OTF2 fixtures with several event files, want 4 or more", several)
	}
}

// TestLocationsExact checks, on a trace of every format, that
// Options.Locations yields exactly the events of the accepted locations
// (those of a whole read that it accepts, in order), alone and with a
// window: the odd-numbered locations, then the first location alone.
func TestLocationsExact(t *testing.T) {
	for name := range fixtures(t) {
		t.Run(name, func(t *testing.T) {
			_, all := readWhole(t, os.DirFS("."), name)
			whole, err := Open(name, nil)
			if err != nil {
				t.Fatal(err)
			}
			n := whole.Defs().NumLocations()
			whole.Close()
			var tmin, tmax model.Time
			for i, e := range all {
				if i == 0 || e.Ev.Time < tmin {
					tmin = e.Ev.Time
				}
				tmax = max(tmax, e.Ev.Time)
			}
			mid := tmin + (tmax-tmin)/2
			for _, c := range []struct {
				keep func(model.LocID) bool
				win  *model.Window
			}{
				{keep: func(l model.LocID) bool { return l%2 == 1 }},
				{keep: model.Only(1)},
				{keep: model.Only(1, model.LocID(n)), win: &model.Window{From: tmin, To: mid + 1}},
				{win: &model.Window{From: -10, To: -5}}, // before time 0: OTF's unsigned times must not read it as no end
			} {
				var want []textEvent
				sel := model.Selection{Locations: c.keep, Window: c.win}
				for _, e := range all {
					if sel.Keep(&e.Ev) {
						want = append(want, e)
					}
				}
				tr, err := Open(name, &Options{Locations: c.keep, Window: c.win})
				if err != nil {
					t.Fatal(err)
				}
				got := keptEvents(t, tr, func(model.LocID) bool { return true })
				tr.Close()
				if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("window %v: events differ from the whole read's accepted ones (-want +got):\n%s", c.win, diff)
				}
			}
		})
	}
}
