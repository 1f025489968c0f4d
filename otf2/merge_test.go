package otf2

import (
	"cmp"
	"path/filepath"
	"slices"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// TestMergeOrder: the merged reader yields the events of any number of
// locations (ids in any order, many equal times) sorted by time, then
// location id, each location's events in file order. Times near the top
// of the range (in a location or all) move the merge from packed keys to
// two-word ones, at the start or midway.
func TestMergeOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nloc := rapid.IntRange(0, 9).Draw(t, "locations")
		ids := rapid.Permutation([]uint64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}).Draw(t, "ids")[:nloc]
		cr := memCreator{}
		w, err := NewArchiveWriter(cr, &WriterOptions{EventChunkSize: 256})
		if err != nil {
			t.Fatal(err)
		}
		type key struct{ time, loc, seq uint64 }
		var want []key
		for _, id := range ids {
			l := NewDef(DefKindLocation)
			l.SetValue(0, id)
			if err := w.WriteDef(l); err != nil {
				t.Fatal(err)
			}
			ew, err := w.EventWriter(id)
			if err != nil {
				t.Fatal(err)
			}
			tm := rapid.SampledFrom([]uint64{0, 0, 1<<60 - 20, 1<<61 - 20, 1<<63 - 20, 1<<64 - 100}).Draw(t, "start")
			for i := range rapid.IntRange(0, 40).Draw(t, "events") {
				tm += rapid.Uint64Range(0, 2).Draw(t, "dt")
				ev := NewEvent(KindEnter, tm)
				ev.SetValue(0, uint64(i))
				if err := ew.Write(ev); err != nil {
					t.Fatal(err)
				}
				want = append(want, key{tm, id, uint64(i)})
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		a, err := OpenFS(cr.fs(), "traces.otf2", nil)
		if err != nil {
			t.Fatal(err)
		}
		mr, err := a.MergedReader(nil)
		if err != nil {
			t.Fatal(err)
		}
		defer mr.Close()
		var got []key
		for ev, err := range mr.All() {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, key{ev.Time, ev.Location, ev.Value(0)})
		}
		slices.SortStableFunc(want, func(x, y key) int {
			return cmp.Or(cmp.Compare(x.time, y.time), cmp.Compare(x.loc, y.loc))
		})
		if !slices.Equal(want, got) {
			t.Fatalf("merged order\n got %v\nwant %v", got, want)
		}
		if mr.Next() {
			t.Fatal("Next after the end")
		}
	})
}

// TestMergedFastSameAsGeneric: on every fixture (mapping tables, clock
// offsets, attribute lists, unknown records), the merged reader, which
// reads the hot kinds through the fast path, yields the same events as a
// merge of readers that use the generic decoder alone.
func TestMergedFastSameAsGeneric(t *testing.T) {
	anchors, _ := filepath.Glob("testdata/*/trace/*.otf2")
	if len(anchors) < 5 {
		t.Fatalf("found %d fixture archives", len(anchors))
	}
	for _, anchor := range anchors {
		t.Run(anchor, func(t *testing.T) {
			a, err := Open(anchor, nil)
			if err != nil {
				t.Fatal(err)
			}
			fast, err := a.MergedReader(nil)
			if err != nil {
				t.Fatal(err)
			}
			defer fast.Close()
			var rs []*EventReader
			for _, l := range a.Locations() {
				r, err := a.EventReader(l)
				if err != nil {
					t.Fatal(err)
				}
				r.fast = false
				rs = append(rs, r)
			}
			slow := NewMergedReader(rs)
			defer func() {
				for _, r := range rs {
					r.Close()
				}
			}()
			n := 0
			for fast.Next() {
				if !slow.Next() {
					t.Fatalf("event %d: the generic merge ends: %v", n, slow.Err())
				}
				if diff := gocmp.Diff(slow.Record(), fast.Record(), cmpOpts...); diff != "" {
					t.Fatalf("event %d (-generic +fast):\n%s", n, diff)
				}
				n++
			}
			if slow.Next() || fast.Err() != nil || slow.Err() != nil {
				t.Fatalf("after %d events: generic has more %v, errors %v %v", n, slow.Record().Kind, fast.Err(), slow.Err())
			}
			if n == 0 {
				t.Fatal("no events")
			}
		})
	}
}
