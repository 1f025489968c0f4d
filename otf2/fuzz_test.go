package otf2

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
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
		for er.Next() {
			ev := er.Event()
			for i := range ev.Kind.Fields() {
				_ = ev.Value(i) + ev.RawValue(i)
				_ = ev.Elems(i)
			}
			_ = ev.Clone()
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
