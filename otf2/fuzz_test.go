package otf2

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzReader feeds bytes to the event, definition and anchor readers: they
// must never panic, hang or allocate without bound, and must call every
// accessor safely. The fast paths of the hot kinds (Next's and
// NextBatch's) must read what the generic decoder reads, and a reader
// holding a part of a chunk what one holding whole chunks reads.
func FuzzReader(f *testing.F) {
	files, _ := filepath.Glob("testdata/*/trace/traces/*")
	more, _ := filepath.Glob("testdata/*/trace/traces.*")
	for _, name := range append(files, more...) {
		data, err := os.ReadFile(name)
		if err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		er, _ := NewEventReader(bytes.NewReader(data), &EventReaderOptions{ChunkSize: 1 << 10})
		var evs []*Event
		for er.Next() {
			ev := er.Record()
			for i := range ev.Kind.Fields() {
				_ = ev.Value(i) + ev.RawValue(i)
				_ = ev.Elems(i)
			}
			if ev.Kind != KindUnknown {
				evs = append(evs, ev.Clone())
			}
		}
		if er.Err() == nil {
			rewrite(t, evs)
		}
		sr, _ := NewSnapshotReader(bytes.NewReader(data), nil)
		for sr.Next() {
			_ = sr.Record().Kind.String()
		}
		for _, file := range []DefFile{GlobalDefFile, LocalDefFile, MarkerFile, ThumbnailFile} {
			dr, _ := NewDefReader(bytes.NewReader(data), &DefReaderOptions{File: file, ChunkSize: 1 << 10})
			if d, err := ReadDefs(dr); err == nil {
				for _, x := range d.All() {
					_ = x.Clone()
					_, _ = x.Self()
					_, _ = x.Region()
					_, _ = x.MappingTable()
				}
			}
		}
		_, _ = ReadAnchor(bytes.NewReader(data), "x")
		sameAsGeneric(t, data, &EventReaderOptions{ChunkSize: 1 << 10})
		sameAsWhole(t, data, &EventReaderOptions{ChunkSize: 1 << 10}, 20)
		var m Mapping
		for _, mt := range []MappingType{MappingTypeRegion, MappingTypeComm, MappingTypeMetric, MappingTypeAttribute} {
			m.Set(mt, &IDMap{Dense: []uint64{7, 5, 3}})
		}
		sameAsGeneric(t, data, &EventReaderOptions{ChunkSize: 1 << 10, Mapping: &m, Clock: []ClockOffset{{0, 100, 0}, {5000, 300, 0}}})
		for _, opts := range []EventReaderOptions{{ChunkSize: 1 << 10}, {ChunkSize: 1 << 10, Mapping: &m, Clock: []ClockOffset{{0, 100, 0}, {5000, 300, 0}}}} {
			open := func() *MergedReader {
				a, b := opts, opts
				b.Location = 1
				ra, _ := NewEventReader(bytes.NewReader(data), &a)
				rb, _ := NewEventReader(bytes.NewReader(data), &b)
				return NewMergedReader([]*EventReader{ra, rb})
			}
			batch := open()
			batch.perLoc = 3
			sameAsBatch(t, open(), batch, 0)
		}
	})
}

// sameAsGeneric checks that an event reader reads the same events and
// fails the same way with the fast path of the hot kinds as with the
// generic decoder alone.
func sameAsGeneric(t interface{ Fatalf(string, ...any) }, data []byte, opts *EventReaderOptions) {
	r, _ := NewEventReader(bytes.NewReader(data), opts)
	slow, _ := NewEventReader(bytes.NewReader(data), opts)
	slow.fast = false
	for r.Next() {
		ev := r.Record()
		if !slow.Next() {
			t.Fatalf("event %d: generic path ends: %v", ev.Number, slow.Err())
		}
		if diff := cmp.Diff(slow.Record(), ev, cmpOpts...); diff != "" {
			t.Fatalf("event %d (-generic +fast):\n%s", ev.Number, diff)
		}
	}
	if slow.Next() {
		t.Fatalf("generic path reads more events: %v", slow.Record().Kind)
	}
	if (r.Err() == nil) != (slow.Err() == nil) || r.Err() != nil && r.Err().Error() != slow.Err().Error() {
		t.Fatalf("errors differ: fast %v, generic %v", r.Err(), slow.Err())
	}
}

// rewrite writes events that parsed and checks that they read back equal.
func rewrite(t *testing.T, evs []*Event) {
	cr := memCreator{}
	w, err := NewArchiveWriter(cr, &WriterOptions{EventChunkSize: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	ew, _ := w.EventWriter(0)
	for i, ev := range evs {
		if i > 0 && ev.Time < evs[i-1].Time {
			return // the writer refuses time going back; the reader accepts it
		}
		if err := ew.Write(ev); err != nil {
			t.Fatalf("event %d (%v): %v", i, ev.Kind, err)
		}
	}
	w.WriteDef(NewDef(DefKindLocation))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, _ := NewEventReader(bytes.NewReader(cr["traces/0.evt"].Bytes()), &EventReaderOptions{ChunkSize: 64 << 10})
	for i, want := range evs {
		if !r.Next() {
			t.Fatalf("re-read ends at %d of %d: %v", i, len(evs), r.Err())
		}
		got := r.Record()
		want.Number = got.Number
		if diff := cmp.Diff(want, got, cmpOpts...); diff != "" {
			t.Fatalf("event %d (-want +got):\n%s", i, diff)
		}
	}
	if r.Next() || r.Err() != nil {
		t.Fatalf("re-read has more events or fails: %v", r.Err())
	}
}
