package otf2

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace/model"
)

// copyArchive reads a and writes it through an ArchiveWriter with the
// stored (raw) ids and times, local definitions included.
func copyArchive(t *testing.T, a *Archive, c model.Creator) {
	t.Helper()
	an := a.Anchor
	w, err := NewArchiveWriter(c, &WriterOptions{
		EventChunkSize: int64(an.EventChunkSize), DefChunkSize: int64(an.DefChunkSize),
		MachineName: an.MachineName, Creator: an.Creator, Description: an.Description,
		Properties: an.Properties, TraceID: an.TraceID,
		NumSnapshots: an.NumSnapshots, NumThumbnails: an.NumThumbnails,
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
		if an.NumSnapshots > 0 {
			copySnapshots(t, a, w, loc)
		}
	}
	if _, err := fs.Stat(a.fsys, a.base+".marker"); err == nil {
		mr, err := a.MarkerReader()
		if err != nil {
			t.Fatal(err)
		}
		for d, err := range mr.All() {
			if err != nil {
				t.Fatal(err)
			}
			if err := w.WriteMarker(d); err != nil {
				t.Fatal(err)
			}
		}
		mr.Close()
	}
	for n := range an.NumThumbnails {
		name := a.base + "." + strconv.FormatUint(uint64(n), 10) + ".thumb"
		b, err := fs.ReadFile(a.fsys, name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := c.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(b); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// copySnapshots copies the snapshot records of loc with their stored
// values.
func copySnapshots(t *testing.T, a *Archive, w *ArchiveWriter, loc uint64) {
	t.Helper()
	r, err := a.SnapshotReader(loc)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sw, err := w.SnapshotWriter(loc)
	if err != nil {
		t.Fatal(err)
	}
	for s, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		c := NewSnapshot(s.Kind, s.RawTime)
		for i, f := range s.Kind.Fields() {
			if f.Element() {
				c.SetElems(i, s.RawElems(i))
			} else {
				c.SetValue(i, s.RawValue(i))
			}
		}
		for _, at := range s.Attrs {
			c.Attrs = append(c.Attrs, Attribute{ID: at.RawID, Type: at.Type, Value: at.RawValue})
		}
		if err := sw.Write(c); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCopySnapshotsMarkers writes the archive libotf2's otf2-snapshots and
// otf2-marker made back with its snapshots and markers: the snapshot and
// marker files are libotf2's byte for byte, and otf2-print prints the
// copy as the original.
func TestCopySnapshotsMarkers(t *testing.T) {
	a := openFixture(t, "snapshots_markers")
	dir := t.TempDir()
	copyArchive(t, a, model.DirCreator(dir))
	names := []string{"traces.otf2", "traces.def", "traces.marker"}
	for loc := range 4 {
		names = append(names, fmt.Sprintf("traces/%d.snap", loc), fmt.Sprintf("traces/%d.evt", loc))
	}
	for _, name := range names {
		want, err1 := os.ReadFile(filepath.Join("testdata", "snapshots_markers", "trace", name))
		got, err2 := os.ReadFile(filepath.Join(dir, name))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if !bytes.Equal(want, got) {
			t.Errorf("%s differs from libotf2's (%d bytes, want %d)", name, len(got), len(want))
		}
	}
	if _, err := exec.LookPath("otf2-print"); err != nil {
		t.Skip("otf2-print not installed")
	}
	for _, opt := range [][]string{nil, {"-A"}, {"--timestamps=offset"}} {
		want, err := exec.Command("otf2-print", append(opt, filepath.Join("testdata", "snapshots_markers", "trace", "traces.otf2"))...).Output()
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
			copyArchive(t, a, model.DirCreator(dir))
			b, err := Open(filepath.Join(dir, "traces.otf2"), nil)
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
				if ma.Record().Kind == KindUnknown {
					continue
				}
				if !mb.Next() {
					t.Fatal("copy ends early", mb.Err())
				}
				x, y := ma.Record(), mb.Record()
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

// TestWriteSnapshotsMarkers builds snapshot and marker records with
// NewSnapshot, NewDef and SetString and reads them back.
func TestWriteSnapshotsMarkers(t *testing.T) {
	a := openFixture(t, "minimal")
	dir := t.TempDir()
	w, err := NewArchiveWriter(model.DirCreator(dir), &WriterOptions{NumSnapshots: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range a.Defs.All() {
		if err := w.WriteDef(d); err != nil {
			t.Fatal(err)
		}
	}
	loc := a.Locations()[0]
	if _, err := w.EventWriter(loc); err != nil {
		t.Fatal(err)
	}
	sw, err := w.SnapshotWriter(loc)
	if err != nil {
		t.Fatal(err)
	}
	start := NewSnapshot(SnapKindSnapshotStart, 500)
	start.SetValue(0, 1)
	enter := NewSnapshot(SnapKindEnter, 500)
	enter.SetValue(0, 100)
	enter.SetValue(1, 0)
	end := NewSnapshot(SnapKindSnapshotEnd, 500)
	end.SetValue(0, 7)
	for _, s := range []*Snapshot{start, enter, end} {
		if err := sw.Write(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := sw.Write(NewSnapshot(SnapKindSnapshotStart, 499)); !errors.Is(err, ErrTimeOrder) {
		t.Errorf("snapshot before the previous: %v, want ErrTimeOrder", err)
	}
	if err := sw.Write(NewSnapshot(0, 600)); !errors.Is(err, ErrRange) {
		t.Errorf("snapshot kind 0: %v, want ErrRange", err)
	}
	md := NewDef(DefKindMarkerDef)
	md.SetValue(0, 3)
	md.SetString(1, "G")
	md.SetString(2, "C")
	md.SetValue(3, 2)
	m := NewDef(DefKindMarker)
	m.SetValue(0, 450)
	m.SetValue(1, 20)
	m.SetValue(2, 3)
	m.SetString(5, "text")
	for _, d := range []*Def{md, m} {
		if err := w.WriteMarker(d); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.WriteMarker(NewDef(DefKindRegion)); !errors.Is(err, ErrRange) {
		t.Errorf("WriteMarker(Region): %v, want ErrRange", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := Open(filepath.Join(dir, "traces.otf2"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if b.Anchor.NumSnapshots != 1 {
		t.Errorf("anchor counts %d snapshots", b.Anchor.NumSnapshots)
	}
	sr, err := b.SnapshotReader(loc)
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Close()
	var got []string
	for s, err := range sr.All() {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%v@%d %d %d", s.Kind, s.Time, s.RawValue(0), s.RawValue(1)))
	}
	mr, err := b.MarkerReader()
	if err != nil {
		t.Fatal(err)
	}
	defer mr.Close()
	for d, err := range mr.All() {
		if err != nil {
			t.Fatal(err)
		}
		if x, ok := d.MarkerDef(); ok {
			got = append(got, fmt.Sprintf("def %d %s %s %d", x.Self, x.MarkerGroup, x.MarkerCategory, x.Severity))
		}
		if x, ok := d.Marker(); ok {
			got = append(got, fmt.Sprintf("marker %d+%d %d %s", x.Time, x.Duration, x.Marker, x.Text))
		}
	}
	want := []string{"SnapshotStart@500 1 0", "Enter@500 100 0", "SnapshotEnd@500 7 0", "def 3 G C 2", "marker 450+20 3 text"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
