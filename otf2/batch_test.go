package otf2

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

// sameAsBatch reads batch by calling Next pre times, then NextBatch to
// the end, and checks that it yields the events next yields by Next, in
// the same order, and ends with the same error.
func sameAsBatch(t interface{ Fatalf(string, ...any) }, next, batch *MergedReader, pre int) int {
	n := 0
	for ; n < pre && batch.Next(); n++ {
		if !next.Next() {
			t.Fatalf("event %d: Next ends: %v", n, next.Err())
		}
		if diff := gocmp.Diff(next.Record(), batch.Record(), cmpOpts...); diff != "" {
			t.Fatalf("event %d (-want +got):\n%s", n, diff)
		}
	}
	var b Batch
	for batch.NextBatch(&b) {
		if b.Len() == 0 {
			t.Fatalf("event %d: an empty batch", n)
		}
		for i := range b.Len() {
			if !next.Next() {
				t.Fatalf("event %d: Next ends: %v", n, next.Err())
			}
			checkBatchEvent(t, n, next.Record(), &b, i)
			n++
		}
	}
	if batch.Next() {
		t.Fatalf("Next after NextBatch")
	}
	if next.Next() {
		t.Fatalf("event %d: Next has more (%v)", n, next.Record().Kind)
	}
	if (next.Err() == nil) != (batch.Err() == nil) || next.Err() != nil && next.Err().Error() != batch.Err().Error() {
		t.Fatalf("after %d events: errors differ: Next %v, NextBatch %v", n, next.Err(), batch.Err())
	}
	return n
}

// checkBatchEvent checks event i of b against want.
func checkBatchEvent(t interface{ Fatalf(string, ...any) }, n int, want *Event, b *Batch, i int) {
	be := b.At(i)
	if be.Time != want.Time || be.Location != want.Location || be.Kind != want.Kind {
		t.Fatalf("event %d: time %d location %d kind %v, want %d %d %v", n, be.Time, be.Location, be.Kind, want.Time, want.Location, want.Kind)
	}
	if !be.Compact() {
		if diff := gocmp.Diff(want, b.Full(i), cmpOpts...); diff != "" {
			t.Fatalf("event %d, full (-want +got):\n%s", n, diff)
		}
		return
	}
	if b.Full(i) != nil || len(want.Attrs) != 0 || want.TypeID != uint8(want.Kind) {
		t.Fatalf("event %d: compact, but has attributes or is unknown: %+v", n, want)
	}
	var vals [5]uint64
	switch want.Kind {
	case KindMetric:
		if want.Value(1) != 1 || len(want.Elems(2)) != 1 || len(want.Elems(3)) != 1 {
			t.Fatalf("event %d: a compact Metric of %d members", n, want.Value(1))
		}
		vals = [5]uint64{want.Value(0), 1, want.Elems(2)[0], want.Elems(3)[0]}
	case KindEnter, KindLeave, KindMpiSend, KindMpiRecv, KindMpiCollectiveBegin, KindMpiCollectiveEnd:
		for f := range vals {
			vals[f] = want.Value(f)
		}
	default:
		t.Fatalf("event %d: a compact %v", n, want.Kind)
	}
	if be.Vals != vals {
		t.Fatalf("event %d (%v): values %v, want %v", n, want.Kind, be.Vals, vals)
	}
}

// TestBatchSameAsNext: on every fixture (mapping tables, clock offsets,
// attribute lists, unknown records), NextBatch yields the events of Next
// in the same order, after 0 or a few calls of Next.
func TestBatchSameAsNext(t *testing.T) {
	anchors, _ := filepath.Glob("testdata/*/trace/*.otf2")
	if len(anchors) < 5 {
		t.Fatalf("found %d fixture archives", len(anchors))
	}
	for _, anchor := range anchors {
		for _, pre := range []int{0, 1, 5} {
			t.Run(fmt.Sprint(anchor, pre), func(t *testing.T) {
				a, err := Open(anchor, nil)
				if err != nil {
					t.Fatal(err)
				}
				next, err := a.MergedReader(nil)
				if err != nil {
					t.Fatal(err)
				}
				defer next.Close()
				batch, err := a.MergedReader(nil)
				if err != nil {
					t.Fatal(err)
				}
				defer batch.Close()
				if n := sameAsBatch(t, next, batch, pre); n == 0 {
					t.Fatal("no events")
				}
			})
		}
	}
}

// TestBatchOrder: on random archives (up to 9 locations, many equal
// times, times near the top of the range, times that go back, every hot
// kind, Metric records of one and two members, attribute lists, other
// kinds, a file cut short), read plain or with mapping tables and clock
// offsets, with small location buffers or large ones, NextBatch yields
// the events of Next and ends with its error.
func TestBatchOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nloc := rapid.IntRange(0, 9).Draw(t, "locations")
		ids := rapid.Permutation([]uint64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}).Draw(t, "ids")[:nloc]
		cr := memCreator{}
		w, err := NewArchiveWriter(cr, &WriterOptions{EventChunkSize: 256})
		if err != nil {
			t.Fatal(err)
		}
		kinds := []Kind{KindEnter, KindLeave, KindMpiSend, KindMpiRecv, KindMpiCollectiveBegin, KindMpiCollectiveEnd, KindMetric, KindMetric, KindMpiIsend, KindParameterInt}
		backs := map[uint64]uint64{}
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
			tm := rapid.SampledFrom([]uint64{0, 0, 0, 1<<60 - 2000, 1<<61 - 2000, 1<<63 - 2000, 1<<64 - 3000}).Draw(t, "start")
			n := rapid.IntRange(0, 300).Draw(t, "events")
			back := rapid.IntRange(-n-1, n).Draw(t, "back") // the event whose time goes back, if in range
			for i := range n {
				tm += rapid.Uint64Range(0, 2).Draw(t, "dt")
				if i == back {
					tm++
					backs[id] = tm
				}
				k := rapid.SampledFrom(kinds).Draw(t, "kind")
				ev := NewEvent(k, tm)
				for f := range k.Fields() {
					if fi := &k.Fields()[f]; fi.scalar() {
						ev.SetValue(f, uint64(i*7+f)%5)
					}
				}
				if k == KindMetric {
					m := rapid.IntRange(1, 2).Draw(t, "members")
					ev.SetElems(2, make([]uint64, m))
					vals := make([]uint64, m)
					for j := range vals {
						vals[j] = uint64(i) << (j * 30)
					}
					ev.SetElems(3, vals)
				}
				if rapid.IntRange(0, 9).Draw(t, "attrs") == 0 {
					ev.Attrs = []Attribute{{ID: 1, Type: TypeUint32, Value: uint64(i)}}
				}
				if err := ew.Write(ev); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		for id, tm := range backs {
			goBack(cr[fmt.Sprintf("traces/%d.evt", id)].Bytes(), tm, 3)
		}
		if nloc > 0 && rapid.IntRange(0, 4).Draw(t, "cut") == 0 {
			// a location's file ends early, within a record or not
			f := cr[fmt.Sprintf("traces/%d.evt", ids[rapid.IntRange(0, nloc-1).Draw(t, "cut location")])]
			f.Truncate(rapid.IntRange(0, f.Len()).Draw(t, "cut at"))
		}
		mapped := rapid.Bool().Draw(t, "mapped")
		open := func() *MergedReader {
			var rs []*EventReader
			for _, id := range ids {
				opts := &EventReaderOptions{Location: id, ChunkSize: 256}
				if mapped {
					var m Mapping
					for _, mt := range []MappingType{MappingTypeRegion, MappingTypeComm, MappingTypeMetric, MappingTypeAttribute} {
						m.Set(mt, &IDMap{Dense: []uint64{7, 5, 3}})
					}
					opts.Mapping = &m
					opts.Clock = []ClockOffset{{0, 100, 0}, {1 << 62, 300, 0}}
				}
				r, err := NewEventReader(bytes.NewReader(cr[fmt.Sprintf("traces/%d.evt", id)].Bytes()), opts)
				if err != nil {
					t.Fatal(err)
				}
				rs = append(rs, r)
			}
			return NewMergedReader(rs)
		}
		batch := open()
		batch.perLoc = rapid.SampledFrom([]int{0, 1, 2, 16}).Draw(t, "buffer")
		sameAsBatch(t, open(), batch, rapid.SampledFrom([]int{0, 0, 1, 7}).Draw(t, "pre"))
	})
}

// goBack rewrites the first time stamp record of time tm in the event
// file b to tm-d, so that its location's time goes back (the writer
// refuses to write that). Any other bytes it may hit are read alike by
// the readers compared.
func goBack(b []byte, tm, d uint64) {
	var pat [9]byte
	pat[0] = bTimestamp
	binary.LittleEndian.PutUint64(pat[1:], tm)
	if i := bytes.Index(b, pat[:]); i >= 0 {
		binary.LittleEndian.PutUint64(b[i+1:], tm-d)
	}
}

// TestBatchTooManyLocations: a merge whose buffers would hold more
// events than BatchEvent numbers fails with ErrRange instead of
// mixing up events.
func TestBatchTooManyLocations(t *testing.T) {
	a, err := Open("testdata/minimal/trace/traces.otf2", nil)
	if err != nil {
		t.Fatal(err)
	}
	mr, err := a.MergedReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer mr.Close()
	mr.perLoc = int(uint64(math.MaxUint32)/uint64(len(a.Locations())) + 1)
	var b Batch
	if mr.NextBatch(&b) || !errors.Is(mr.Err(), ErrRange) {
		t.Fatalf("NextBatch: %d events, error %v", b.Len(), mr.Err())
	}
}

// TestBatchWindowed: the windowed merge is the one in use on archives
// whose times ascend (so that the tests above check it), and it hands
// over to the loser tree when a time goes back or the buffered times
// span more than a key holds; either way NextBatch yields the events of
// Next.
func TestBatchWindowed(t *testing.T) {
	const nloc = 8
	for _, tc := range []struct {
		name     string
		time     func(loc, i int) uint64
		windowed bool
	}{
		{"round robin", func(loc, i int) uint64 { return uint64(1000 + loc + 10*i) }, true},
		{"irregular", func(loc, i int) uint64 { return uint64(i*i%7 + 5*i + loc*3) }, true},
		{"near the top", func(loc, i int) uint64 { return 1<<63 + uint64(loc+10*i) }, true},
		{"time goes back", func(loc, i int) uint64 { return uint64(1000 + loc + 10*i) }, false},
		{"span too wide", func(loc, i int) uint64 {
			if loc == 5 && i >= 2000 {
				return 1<<62 + uint64(i)
			}
			return uint64(loc + 10*i)
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cr := memCreator{}
			w, err := NewArchiveWriter(cr, &WriterOptions{EventChunkSize: 64 << 10})
			if err != nil {
				t.Fatal(err)
			}
			kinds := []Kind{KindEnter, KindMpiSend, KindMetric, KindMpiCollectiveEnd, KindLeave}
			for loc := range nloc {
				l := NewDef(DefKindLocation)
				l.SetValue(0, uint64(loc))
				if err := w.WriteDef(l); err != nil {
					t.Fatal(err)
				}
				ew, err := w.EventWriter(uint64(loc))
				if err != nil {
					t.Fatal(err)
				}
				for i := range 5000 {
					ev := NewEvent(kinds[i%len(kinds)], tc.time(loc, i))
					if ev.Kind == KindMetric {
						ev.SetElems(2, []uint64{uint64(TypeUint64)})
						ev.SetElems(3, []uint64{uint64(i)})
					}
					if err := ew.Write(ev); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if !tc.windowed && tc.time(5, 2000) < 1<<62 {
				goBack(cr["traces/3.evt"].Bytes(), tc.time(3, 3000), 100)
			}
			open := func() *MergedReader {
				var rs []*EventReader
				for loc := range nloc {
					r, err := NewEventReader(bytes.NewReader(cr[fmt.Sprintf("traces/%d.evt", loc)].Bytes()), &EventReaderOptions{Location: uint64(loc), ChunkSize: 64 << 10})
					if err != nil {
						t.Fatal(err)
					}
					rs = append(rs, r)
				}
				return NewMergedReader(rs)
			}
			batch := open()
			if n := sameAsBatch(t, open(), batch, 0); n != nloc*5000 {
				t.Fatalf("%d events", n)
			}
			if batch.windowed != tc.windowed {
				t.Errorf("windowed merge in use at the end: %v, want %v", batch.windowed, tc.windowed)
			}
		})
	}
}

// TestBatchWindowLocations pins where the windowed merge ends: with
// merge4Asm, at the most locations whose buffers fit its keys (160 with
// the default buffers); without, at 64 locations (winMaxLocs), although
// 65 locations' buffers would fit.
func TestBatchWindowLocations(t *testing.T) {
	for _, nloc := range []int{1, 64, 65, 160, 161} {
		cr := memCreator{}
		writeBig(t, cr, nloc, 40)
		mr := openMerged(t, cr.fs())
		var b Batch
		n := 0
		for mr.NextBatch(&b) {
			n += b.Len()
		}
		if err := mr.Err(); err != nil || n != nloc*40 {
			t.Fatalf("%d locations: %d events, %v", nloc, n, err)
		}
		fits := 3*nloc*(mr.per+1) <= winLen
		if want := fits && (haveMerge4Asm || nloc <= 64); mr.windowed != want {
			t.Errorf("%d locations: windowed merge %v, want %v", nloc, mr.windowed, want)
		}
		if fits != (nloc <= 160) {
			t.Errorf("%d locations of %d events each fit winKeys: %v; the test expects up to 160 to fit", nloc, mr.per, fits)
		}
		mr.Close()
	}
}

// TestKeyRun: keyRun's keys are the times relative to b shifted left by
// sh, or-ed with the events' places from x, as long as the times ascend
// from prev, and it reports the first time that goes back (times near
// the top of the range and b above a time included: the keys are
// modulo 2^64).
func TestKeyRun(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 40).Draw(t, "n")
		// the places x to x+n-1 fit in sh bits
		sh := uint(rapid.IntRange(6, 32).Draw(t, "sh"))
		x := rapid.Uint64Range(0, 1<<sh-uint64(n)).Draw(t, "x")
		top := rapid.Bool().Draw(t, "top")
		evs := make([]BatchEvent, n)
		tm := rapid.Uint64().Draw(t, "start")
		if !top {
			tm >>= 20
		}
		prev := tm - rapid.Uint64Range(0, 3).Draw(t, "before")
		for j := range evs {
			if rapid.IntRange(0, 30).Draw(t, "back") == 0 {
				tm -= rapid.Uint64Range(1, 5).Draw(t, "by")
			} else {
				tm += rapid.Uint64Range(0, 9).Draw(t, "step")
			}
			evs[j].Time = tm
		}
		back, last := -1, prev
		for j, e := range evs {
			if e.Time < last {
				back = j
				break
			}
			last = e.Time
		}
		b := rapid.Uint64().Draw(t, "b")
		ks := make([]uint64, n)
		got := keyRun(ks, evs, b, sh, x, prev)
		if got != (back >= 0) {
			t.Fatalf("keyRun reports a time going back: %v, want %v (event %d)", got, back >= 0, back)
		}
		upto := n
		if back >= 0 {
			upto = back
		}
		for j := range upto {
			if want := (evs[j].Time-b)<<sh | (x + uint64(j)); ks[j] != want {
				t.Fatalf("key %d: got %#x, want %#x", j, ks[j], want)
			}
		}
	})
}

// TestCopyEventFields: copyEvent copies Event field by field, so a field
// added to Event must be added there (and here). An event with every
// field set (attributes, arrays, a snapshot) copies equal to itself and
// shares no slice with the source, over a destination that held other
// values; an event with no attributes or arrays empties those of the
// destination.
func TestCopyEventFields(t *testing.T) {
	want := []string{"Kind", "TypeID", "Location", "Time", "RawTime", "Number", "Attrs", "vals", "raw", "snap", "arrs", "rawArrs"}
	ty := reflect.TypeFor[Event]()
	var got []string
	for i := range ty.NumField() {
		got = append(got, ty.Field(i).Name)
	}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Fatalf("Event's fields (-copied by copyEvent +declared):\n%s", diff)
	}
	full := Event{Kind: KindMetric, TypeID: 20, Location: 3, Time: 40, RawTime: 39, Number: 7,
		Attrs: []Attribute{{ID: 1, Type: TypeUint64, Value: 5, RawID: 2, RawValue: 5}},
		vals:  [8]uint64{1, 2, 3, 4, 5, 6, 7, 8}, raw: [8]uint64{9, 10, 11, 12, 13, 14, 15, 16}, snap: true,
		arrs:    [3][]uint64{{1}, {2, 3}, {4}},
		rawArrs: [3][]uint64{{5}, {6, 7}, nil},
	}
	dst := Event{Attrs: []Attribute{{ID: 9}, {ID: 8}}, arrs: [3][]uint64{{9, 9, 9}}, rawArrs: [3][]uint64{nil, nil, {9}}}
	copyEvent(&dst, &full)
	opts := []gocmp.Option{gocmp.AllowUnexported(Event{}), cmpopts.EquateEmpty()}
	if diff := gocmp.Diff(full, dst, opts...); diff != "" {
		t.Fatalf("copy (-want +got):\n%s", diff)
	}
	dst.Attrs[0].ID, dst.arrs[1][0], dst.rawArrs[1][1] = 100, 100, 100
	if full.Attrs[0].ID == 100 || full.arrs[1][0] == 100 || full.rawArrs[1][1] == 100 {
		t.Fatal("the copy shares a slice with the source")
	}
	plain := Event{Kind: KindMpiIsend, TypeID: uint8(KindMpiIsend), Time: 50, vals: [8]uint64{1, 2}}
	copyEvent(&dst, &plain)
	if diff := gocmp.Diff(plain, dst, opts...); diff != "" {
		t.Fatalf("copy of an event without slices (-want +got):\n%s", diff)
	}
}
