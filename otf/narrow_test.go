package otf

import (
	"fmt"
	"io/fs"
	"math"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// readMergedBoth reads the events of fsys's trace twice, with the
// one-word merge allowed and with two-word keys only, and returns both
// record sequences and whether the first reader still used one-word
// keys at the end.
func readMergedBoth(t rapid.TB, fsys fs.FS, name string) (narrow, wide []*Record, on bool) {
	t.Helper()
	tc, err := OpenFS(fsys, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	read := func(noNarrow bool) ([]*Record, bool) {
		r, err := tc.NewReader(nil)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		r.noNarrow = noNarrow
		var out []*Record
		for r.Next() {
			out = append(out, r.Record().Clone())
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		return out, r.nw.on
	}
	narrow, on = read(false)
	wide, _ = read(true)
	return narrow, wide, on
}

// TestNarrowMerge checks that the one-word merge yields the records of
// the two-word one, on generated traces and the fixtures, and that it
// is used where it should be.
func TestNarrowMerge(t *testing.T) {
	g1 := genTrace(t, 8, 8, 20000, false)
	g2 := genTrace(t, 3, 7, 20000, false)
	g3 := genTrace(t, 1, 4, 2000, true)
	cases := []struct {
		name string
		fsys fs.FS
		stub string
		on   bool
	}{
		{"gen8x8", g1, "bench.otf", true},
		{"gen3x7", g2, "bench.otf", true},
		{"gen1x4/zlib", g3, "bench.otf", true},
		{"fixture/short", fixtureFS(t, "all_records_short"), "allrec.otf", true},
		{"fixture/long", fixtureFS(t, "all_records_long"), "allrec.otf", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := fs.Stat(c.fsys, c.stub); err != nil {
				t.Skip(err)
			}
			narrow, wide, on := readMergedBoth(t, c.fsys, c.stub)
			if len(wide) == 0 {
				t.Fatal("no records")
			}
			if diff := cmp.Diff(wide, narrow, cmpRecord); diff != "" {
				t.Fatalf("one-word merge differs (-wide +narrow):\n%s", diff)
			}
			if on != c.on {
				t.Errorf("one-word merge on at the end: got %v, want %v", on, c.on)
			}
		})
	}
}

// TestNarrowWiden checks the fall-back to two-word keys in the middle of
// a merge: for a process the master file does not list, and for a time
// too large for one-word keys.
func TestNarrowWiden(t *testing.T) {
	for _, c := range []struct {
		name   string
		master string
		late   string // appended to stream 2's file
	}{
		{"unlisted", "1:1\n2:2\n3:3\n", "*4\nE1\n"},
		{"time", "1:1\n2:2\n3:3\n", "fffffffffffffff0\n*2\nE1\n"},
		{"both", "1:1\n2:2\n3:3\n", "ffffffffffffff00\n*5\nE1\n*2\nE2\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fsys := fstest.MapFS{"w.otf": {Data: []byte(c.master)}}
			for s := uint32(1); s <= 3; s++ {
				var b []byte
				for i := range 200 {
					b = fmt.Appendf(b, "%x\n*%x\nE%x\n", 100+3*i+int(s%2), s, i)
				}
				if s == 2 {
					b = append(b, c.late...)
				}
				fsys[FileName("w", s, FileEvents, false)] = &fstest.MapFile{Data: b}
			}
			narrow, wide, on := readMergedBoth(t, fsys, "w.otf")
			if diff := cmp.Diff(wide, narrow, cmpRecord); diff != "" {
				t.Fatalf("one-word merge differs (-wide +narrow):\n%s", diff)
			}
			if on {
				t.Error("one-word merge still on after the record that does not fit")
			}
			if len(wide) <= 600 {
				t.Errorf("got %d records, want more than 600", len(wide))
			}
		})
	}
}

// TestNarrowResetAllocs checks that restarting a one-word merge reuses
// its tables.
func TestNarrowResetAllocs(t *testing.T) {
	r := openMerged(t, genTrace(t, 4, 6, 5000, false))
	for r.Next() {
	}
	if !r.nw.on {
		t.Fatal("one-word merge not used")
	}
	if n := testing.AllocsPerRun(3, func() {
		r.Reset()
		for r.Next() {
		}
	}); n != 0 {
		t.Errorf("a pass allocates %.1f times; want 0", n)
	}
}

// propNarrow builds a random trace whose master file may leave processes
// out or list them twice, with times up to the top of the range, and
// checks that the one-word merge yields the records of the two-word one
// in merge order.
func propNarrow(t *rapid.T) {
	nstreams := rapid.IntRange(1, 5).Draw(t, "streams")
	fsys := fstest.MapFS{}
	var streams []Stream
	for s := range nstreams {
		id := uint32(s + 1)
		procs := rapid.SliceOfNDistinct(rapid.Uint32Range(0, 9), 0, 3, func(p uint32) uint32 { return p }).Draw(t, "listed")
		if len(procs) > 0 && rapid.Bool().Draw(t, "twice") {
			procs = append(procs, procs[0])
		}
		streams = append(streams, Stream{ID: id, Processes: procs})
		var b []byte
		var now uint64
		for range rapid.IntRange(0, 40).Draw(t, "records") {
			switch rapid.IntRange(0, 9).Draw(t, "step") {
			case 0:
				now = rapid.Uint64Range(now, math.MaxUint64).Draw(t, "jump")
			default:
				if dt := rapid.Uint64Range(0, 3).Draw(t, "dt"); now <= math.MaxUint64-dt {
					now += dt
				}
			}
			p := rapid.Uint32Range(0, 9).Draw(t, "proc")
			if len(procs) > 0 && rapid.IntRange(0, 9).Draw(t, "listedProc") > 0 {
				p = rapid.SampledFrom(procs).Draw(t, "listedProc")
			}
			b = fmt.Appendf(b, "%x\n*%x\nE%x\n", now, p, p)
		}
		fsys[FileName("p", id, FileEvents, false)] = &fstest.MapFile{Data: b}
	}
	fsys["p.otf"] = &fstest.MapFile{Data: AppendMaster(nil, streams)}
	narrow, wide, _ := readMergedBoth(t, fsys, "p.otf")
	if diff := cmp.Diff(wide, narrow, cmpRecord); diff != "" {
		t.Fatalf("one-word merge differs (-wide +narrow):\n%s", diff)
	}
	for i := 1; i < len(narrow); i++ {
		a, b := narrow[i-1], narrow[i]
		if b.Time < a.Time || b.Time == a.Time && b.Stream != a.Stream && b.Process < a.Process {
			t.Fatalf("record %d (time %x, process %d) after (time %x, process %d)", i, b.Time, b.Process, a.Time, a.Process)
		}
	}
}

func TestNarrowProperty(t *testing.T) { rapid.Check(t, propNarrow) }

func FuzzNarrow(f *testing.F) { f.Fuzz(rapid.MakeFuzz(propNarrow)) }
