package otf2

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// copyArchive reads a and writes it through an ArchiveWriter with the
// stored (raw) ids and times, local definitions included.
func copyArchive(t *testing.T, a *Archive, c Creator) {
	t.Helper()
	an := a.Anchor
	w, err := NewArchiveWriter(c, &WriterOptions{
		EventChunkSize: int64(an.EventChunkSize), DefChunkSize: int64(an.DefChunkSize),
		MachineName: an.MachineName, Creator: an.Creator, Description: an.Description,
		Properties: an.Properties, TraceID: an.TraceID,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range a.Defs.All() {
		if d.Kind == DefKindUnknown {
			continue
		}
		if err := w.WriteDef(d); err != nil {
			t.Fatal(err)
		}
	}
	for _, loc := range a.Locations() {
		ld, err := a.LocalDefs(loc)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ld.Defs {
			if err := w.WriteLocalDef(loc, d); err != nil {
				t.Fatal(err)
			}
		}
		r, err := a.EventReader(loc)
		if err != nil {
			t.Fatal(err)
		}
		ew, err := w.EventWriter(loc)
		if err != nil {
			t.Fatal(err)
		}
		for ev, err := range r.All() {
			if err != nil {
				t.Fatal(err)
			}
			if ev.Kind == KindUnknown {
				continue
			}
			raw := NewEvent(ev.Kind, ev.RawTime)
			for i, f := range ev.Kind.Fields() {
				if f.Element() {
					raw.SetElems(i, ev.RawElems(i))
				} else {
					raw.SetValue(i, ev.RawValue(i))
				}
			}
			for _, at := range ev.Attrs {
				raw.Attrs = append(raw.Attrs, Attribute{ID: at.RawID, Type: at.Type, Value: at.RawValue})
			}
			if err := ew.Write(raw); err != nil {
				t.Fatal(err)
			}
		}
		r.Close()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCopyFixtures writes every fixture back and checks that the copy reads
// to the same definitions and events, that libotf2's files and ours are
// byte for byte the same where libotf2 wrote them, and that the reference
// otf2-print prints the copy as it prints the original.
func TestCopyFixtures(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx, func(t *testing.T) {
			a := openFixture(t, fx)
			dir := t.TempDir()
			copyArchive(t, a, DirCreator(dir))
			b, err := Open(filepath.Join(dir, "traces.otf2"))
			if err != nil {
				t.Fatal(err)
			}
			if fx != "unknown_records" {
				for _, name := range []string{"traces.otf2", "traces.def", "traces/0.evt", "traces/0.def"} {
					want, err1 := os.ReadFile(filepath.Join("testdata", fx, "trace", name))
					got, err2 := os.ReadFile(filepath.Join(dir, name))
					if err1 != nil || err2 != nil {
						t.Fatal(err1, err2)
					}
					if !bytes.Equal(want, got) {
						t.Errorf("%s differs from libotf2's (%d bytes, want %d)", name, len(got), len(want))
					}
				}
			}
			ma, _ := a.MergedReader(nil)
			mb, _ := b.MergedReader(nil)
			defer ma.Close()
			defer mb.Close()
			for ma.Next() {
				if ma.Event().Kind == KindUnknown {
					continue
				}
				if !mb.Next() {
					t.Fatal("copy ends early", mb.Err())
				}
				x, y := ma.Event(), mb.Event()
				if x.Kind != y.Kind || x.Time != y.Time || x.Location != y.Location || x.vals != y.vals {
					t.Fatalf("event differs: %+v vs %+v", x, y)
				}
			}
			if mb.Next() || ma.Err() != nil || mb.Err() != nil {
				t.Fatal("copy has more events", ma.Err(), mb.Err())
			}
			if _, err := exec.LookPath("otf2-print"); err != nil || fx == "unknown_records" {
				return
			}
			for _, opt := range [][]string{nil, {"-A"}, {"-M", "-C"}} {
				want, err := exec.Command("otf2-print", append(opt, filepath.Join("testdata", fx, "trace", "traces.otf2"))...).Output()
				if err != nil {
					t.Fatal(err)
				}
				got, err := exec.Command("otf2-print", append(opt, filepath.Join(dir, "traces.otf2"))...).Output()
				if err != nil {
					t.Fatalf("otf2-print on the copy: %v\n%s", err, got)
				}
				if !bytes.Equal(want, got) {
					t.Errorf("otf2-print %s differs on the copy:\n%s", strings.Join(opt, " "), got)
				}
			}
		})
	}
}
