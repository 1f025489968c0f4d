package hpctrace

import (
	"io/fs"
	"os"
	"path"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
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
		tw, err := OpenFS(whole, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		defs := viewDefs(tw.Source().Defs())
		all := keptEvents(t, tw.Source(), func(model.LocID) bool { return true })
		tw.Close()
		ot, err := otf.Open(fsys, name)
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
				got := keptEvents(t, tr.Source(), keep)
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
