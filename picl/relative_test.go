package picl

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/hpctrace/hpctrace/model"
)

// TestModelSourceRelative: a ModelSource over a file that Open or OpenFS
// opened describes the statistics the trace records relative to -1 and to
// the event types of its statistics records (found by a scan that leaves
// the Reader where it was); over a stream, or a Reader that has read,
// relative to -1 alone. The events are the same either way.
func TestModelSourceRelative(t *testing.T) {
	const name = "testdata/appendix_a.trf"
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	events := func(s *ModelSource) []model.Event {
		var out []model.Event
		for ev, err := range s.All() {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, *ev)
		}
		return out
	}
	check := func(what string, r *Reader, want []int64) []model.Event {
		t.Helper()
		s, err := NewModelSource(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		rel := s.Defs().Relative
		if rel == nil || !slices.Equal(rel.RelativeTo, want) {
			t.Fatalf("%s: Defs().Relative = %+v, want relative to %v", what, rel, want)
		}
		if len(rel.Kinds) != 3 || !slices.Equal(rel.UnknownVolume, []int64{-901}) || len(rel.Groups) != len(standardSubsets) {
			t.Errorf("%s: Defs().Relative = %+v, not PICL's conventions", what, rel)
		}
		return events(s)
	}

	r, err := Open(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	want := check("Open", r, []int64{-1, 0, 1})

	fr, err := OpenFS(fstest.MapFS{"a.trf": {Data: data}}, "a.trf", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fr.Close()
	if got := check("OpenFS", fr, []int64{-1, 0, 1}); !slices.Equal(got, want) {
		t.Error("OpenFS: the events differ from Open's")
	}

	sr, err := NewReader(bytes.NewReader(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := check("NewReader", sr, []int64{-1}); !slices.Equal(got, want) {
		t.Error("NewReader: the events differ from Open's")
	}

	// A Reader that has read is not scanned: the source reads from its
	// current record on.
	rr, err := Open(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Close()
	if !rr.Next() {
		t.Fatal(rr.Err())
	}
	check("Open after a Next", rr, []int64{-1})

	// A trace without statistics records: relative to -1.
	rg, err := Open("testdata/labels_messages.trf", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rg.Close()
	check("labels_messages", rg, []int64{-1})
}

// TestRelativeStatsGroups: PICL's predefined subsets hold the event types
// of their ranges (doc/stats.md §6).
func TestRelativeStatsGroups(t *testing.T) {
	rel := RelativeStats(0, 1)
	if !slices.Equal(rel.RelativeTo, []int64{0, 1}) {
		t.Errorf("RelativeTo = %v", rel.RelativeTo)
	}
	in := map[int64][]int64{-1001: {0, 7}, -1002: {-1, -901}, -1014: {-31, -52, -56, -61}, -1902: {-911, -912}}
	out := map[int64][]int64{-1001: {-1}, -1002: {0}, -1014: {-30, -53}, -1902: {-910, -913}}
	for _, g := range rel.Groups {
		for _, n := range in[g.Native] {
			if !g.Contains(n) {
				t.Errorf("group %d does not hold %d", g.Native, n)
			}
		}
		for _, n := range out[g.Native] {
			if g.Contains(n) {
				t.Errorf("group %d holds %d", g.Native, n)
			}
		}
	}
}

// FuzzRelativeTo: the scan NewModelSource makes of a file (statistics,
// descriptor and subset lines only) finds the event types that a full read
// of the same file records statistics relative to, whenever that read
// ends cleanly. The seeds are the fixtures and statistics records that
// read their pairs through descriptor aliases.
func FuzzRelativeTo(f *testing.F) {
	for _, pat := range []string{"testdata/*.trf", "testdata/mpicl/*.trf", "testdata/bad/*.txtar"} {
		names, _ := filepath.Glob(pat)
		for _, name := range names {
			data, err := os.ReadFile(name)
			if err != nil {
				f.Fatal(err)
			}
			if filepath.Ext(name) == ".txtar" {
				_, after, ok := bytes.Cut(data, []byte("-- input --\n"))
				if !ok {
					continue
				}
				data, _, _ = bytes.Cut(after, []byte("\n-- "))
			}
			f.Add(data)
		}
	}
	aliases, err := os.ReadFile("testdata/descriptor_aliases.trf")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(append(slices.Clone(aliases), "-101 5 0.5 0 0 1 6 -3 0.25\n-102 7 0.5 1 0 1 10 1 x\n  -103 8 0.5 0 0 1 6 -3 2\r\n"...))
	f.Add([]byte("-6 -1 -1 -1 -1 1 \"%d%s\" 6 \"%s%d\"\n-101 4 0.5 0 0 1 6 x 2\n-102 3 0.5 0 0 1 \"%d%d\" -52 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fr, err := NewReader(bytes.NewReader(data), &ReaderOptions{MaxLine: 4096})
		if err != nil {
			t.Fatal(err)
		}
		full, err := NewModelSource(fr, nil)
		if err != nil {
			t.Fatal(err)
		}
		for full.Next() {
		}
		if full.Err() != nil {
			return
		}
		want := []int64{-1}
		for _, r := range full.Defs().Recorded {
			if !slices.Contains(want, r.RelativeTo) {
				want = append(want, r.RelativeTo)
			}
		}
		slices.Sort(want)
		r, err := OpenFS(fstest.MapFS{"t.trf": {Data: data}}, "t.trf", &ReaderOptions{MaxLine: 4096})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		s, err := NewModelSource(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Defs().Relative.RelativeTo; !slices.Equal(got, want) {
			t.Fatalf("the scan finds %v, the full read %v", got, want)
		}
	})
}
