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
// accessor safely.
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
			ev := er.Event()
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
			_ = sr.Snapshot().Kind.String()
		}
		for _, local := range []bool{false, true} {
			dr, _ := NewDefReader(bytes.NewReader(data), &DefReaderOptions{Local: local, ChunkSize: 1 << 10})
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
	})
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
		got := r.Event()
		want.Number = got.Number
		if diff := cmp.Diff(want, got, cmpOpts...); diff != "" {
			t.Fatalf("event %d (-want +got):\n%s", i, diff)
		}
	}
	if r.Next() || r.Err() != nil {
		t.Fatalf("re-read has more events or fails: %v", r.Err())
	}
}
