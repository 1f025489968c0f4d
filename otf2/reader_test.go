package otf2

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

var fixtures = []string{"minimal", "c_localdefs", "defs_attrs", "threads_rma", "unknown_records", "nbcoll"}

func openFixture(t testing.TB, name string) *Archive {
	t.Helper()
	a, err := Open(filepath.Join("testdata", name, "trace", "traces.otf2"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestEventCounts checks every location's event count against its
// Location definition and the merged order against (time, location).
func TestEventCounts(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx, func(t *testing.T) {
			a := openFixture(t, fx)
			if got := uint64(len(a.Locations())); got != a.Anchor.NumLocations {
				t.Fatalf("got %d locations, anchor says %d", got, a.Anchor.NumLocations)
			}
			var total uint64
			for _, loc := range a.Locations() {
				l, _ := a.Defs.Location(loc)
				r, err := a.EventReader(loc)
				if err != nil {
					t.Fatal(err)
				}
				var n uint64
				for ev, err := range r.All() {
					if err != nil {
						t.Fatal(err)
					}
					n++
					if ev.Number != n || ev.Location != loc {
						t.Fatalf("event %d: Number %d, Location %d", n, ev.Number, ev.Location)
					}
				}
				r.Close()
				if n != l.NumberOfEvents {
					t.Errorf("location %d: %d events, definition says %d", loc, n, l.NumberOfEvents)
				}
				total += n
			}
			mr, err := a.MergedReader(nil)
			if err != nil {
				t.Fatal(err)
			}
			defer mr.Close()
			var n uint64
			var prevT, prevL uint64
			for ev, err := range mr.All() {
				if err != nil {
					t.Fatal(err)
				}
				if n > 0 && (ev.Time < prevT || (ev.Time == prevT && ev.Location < prevL)) {
					t.Fatalf("event %d out of order: (%d,%d) after (%d,%d)", n, ev.Time, ev.Location, prevT, prevL)
				}
				prevT, prevL = ev.Time, ev.Location
				n++
			}
			if n != total {
				t.Fatalf("merged %d events, want %d", n, total)
			}
		})
	}
}

// TestMappingAndClock checks the translated and raw values of c_localdefs:
// location 0 uses local region ids 5 and 6, attribute ids 3 and 4, and
// clock offsets +1000 and +3000 four thousand ticks apart.
func TestMappingAndClock(t *testing.T) {
	a := openFixture(t, "c_localdefs")
	r, err := a.EventReader(0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	const t0 = 1 << 62
	type want struct {
		kind          Kind
		raw, time     uint64
		region, rawID uint64
	}
	wants := []want{
		{KindEnter, t0, t0 + 1000, 0, 5},
		{KindEnter, t0 + 1000, t0 + 2500, 1, 6},
	}
	for i, w := range wants {
		if !r.Next() {
			t.Fatal(r.Err())
		}
		ev := r.Record()
		if ev.Kind != w.kind || ev.RawTime != w.raw || ev.Time != w.time || ev.Value(0) != w.region || ev.RawValue(0) != w.rawID {
			t.Fatalf("event %d: got kind %v raw %d time %d region %d raw region %d, want %+v", i, ev.Kind, ev.RawTime, ev.Time, ev.Value(0), ev.RawValue(0), w)
		}
		if e, ok := ev.Enter(); !ok || uint64(e.Region) != w.region {
			t.Fatalf("Enter() = %+v, %v", e, ok)
		}
		if _, ok := ev.Leave(); ok {
			t.Fatal("Leave() ok on an Enter")
		}
	}
	at := r.Record().Attrs
	if len(at) != 2 || at[0].ID != 0 || at[0].RawID != 3 || at[0].Value != 0xdeadbeef || at[1].Type != TypeRegion || at[1].Value != 1 || at[1].RawValue != 6 {
		t.Fatalf("attributes %+v", at)
	}
	// MpiSend: communicator local 0 → global 1.
	if !r.Next() {
		t.Fatal(r.Err())
	}
	s, ok := r.Record().MpiSend()
	if !ok || s.Communicator != 1 || s.Receiver != 1 || s.MsgTag != 42 || r.Record().RawValue(1) != 0 {
		t.Fatalf("MpiSend %+v", s)
	}
	for r.Next() {
		if pe, ok := r.Record().ProgramEnd(); ok && pe.ExitStatus != UndefinedInt64 {
			t.Fatalf("exit status %d", pe.ExitStatus)
		}
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
}

func TestDefs(t *testing.T) {
	a := openFixture(t, "defs_attrs")
	d := a.Defs
	if d.Len() != int(a.Anchor.NumGlobalDefs) {
		t.Fatalf("%d defs, anchor says %d", d.Len(), a.Anchor.NumGlobalDefs)
	}
	reg, ok := d.Region(1)
	if !ok {
		t.Fatal("no region 1")
	}
	name, _ := d.Str(reg.Name)
	canon, _ := d.Str(reg.CanonicalName)
	if name != "work" || canon != "work(int)" || reg.RegionRole != RegionRoleLoop || reg.Paradigm != ParadigmCompiler || reg.RegionFlags != RegionFlagDynamic {
		t.Fatalf("region 1: %+v (%q, %q)", reg, name, canon)
	}
	g, ok := d.Group(1)
	if !ok || g.GroupType != GroupTypeCommGroup || len(g.Members) != 1 {
		t.Fatalf("group 1: %+v", g)
	}
	mi, ok := d.MetricInstance(2)
	if !ok || mi.MetricClass != 0 || mi.MetricScope != MetricScopeLocationGroup {
		t.Fatalf("metric instance 2: %+v", mi)
	}
	if _, ok := d.MetricClass(2); ok {
		t.Fatal("MetricClass(2) is an instance")
	}
	for _, c := range []struct {
		k    DefKind
		id   uint64
		want string
		ok   bool
	}{
		{DefKindRegion, 1, "work", true}, {DefKindLocation, 0, "Main Thread", true},
		{DefKindIoDirectory, 1, "/tmp", true}, {DefKindIoRegularFile, 1, "/tmp", true},
		{DefKindSourceCodeLocation, 0, "main.c:42", true}, {DefKindCallingContext, 1, "work", true},
		{DefKindIoParadigm, 0, "POSIX I/O", true}, {DefKindMetricClass, 0, "", false}, {DefKindRegion, 99, "", false},
	} {
		if got, ok := d.Name(c.k, c.id); got != c.want || ok != c.ok {
			t.Errorf("Name(%v, %d) = %q, %v; want %q, %v", c.k, c.id, got, ok, c.want, c.ok)
		}
	}
	cp, ok := d.ClockProperties()
	if !ok || cp.TimerResolution != 1000000 || cp.GlobalOffset != 1000 {
		t.Fatalf("clock %+v", cp)
	}
	if s := RegionFlag(3).String(); s != "{DYNAMIC, PHASE}" {
		t.Fatalf("flags: %q", s)
	}
	// Unknown values print as otf2-print prints them (its -G output on
	// examples/otf2print/testdata/unknown): an enumeration's value in
	// angle brackets, a flag set's unnamed bits together in hexadecimal.
	for _, c := range []struct{ got, want string }{
		{Paradigm(200).String(), "INVALID <200>"},
		{RegionRole(40).String(), "INVALID <40>"},
		{RegionFlag(1 | 8).String(), "{DYNAMIC, INVALID <0x8>}"},
		{RegionFlag(1<<20 | 0x18 | 2).String(), "{PHASE, INVALID <0x100018>}"},
		{RegionFlag(8).String(), "{INVALID <0x8>}"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// TestOldRecords reads records written without their newer fields and
// checks the documented defaults.
func TestOldRecords(t *testing.T) {
	// Region without the 1.1 fields: regionType USER_REGION (3).
	body := []byte{0x01, 0x01, 0x01, 0x02, 0x00, 0x03, 0x00, 0x00, 0x00}
	file := defFile(15, body)
	dr, _ := NewDefReader(bytes.NewReader(file), nil)
	if !dr.Next() {
		t.Fatal(dr.Err())
	}
	r, ok := dr.Record().Region()
	if !ok || r.CanonicalName != 2 || r.Paradigm != ParadigmUser || r.RegionRole != RegionRoleFunction || r.RegionFlags != 0 {
		t.Fatalf("region %+v", r)
	}
	// Group without the 1.2 fields: groupTypePre12 MPI_GROUP (4), members 0 and 1.
	file = defFile(18, []byte{0x00, 0x00, 0x04, 0x01, 0x02, 0x00, 0x01, 0x01})
	dr, _ = NewDefReader(bytes.NewReader(file), nil)
	if !dr.Next() {
		t.Fatal(dr.Err())
	}
	g, ok := dr.Record().Group()
	if !ok || g.GroupType != GroupTypeCommGroup || g.Paradigm != ParadigmMPI || len(g.Members) != 2 || g.Members[1] != 1 {
		t.Fatalf("group %+v", g)
	}
	// 2.x and 1.x records: LocationProperty without type and value,
	// LocationGroup without its creator, RmaWin and Comm without flags.
	file = defFile(29, []byte{0x00, 0x01, 0x05, 0x01, 0x09},
		13, []byte{0x00, 0x00, 0x01, 0x00},
		24, []byte{0x00, 0x00, 0x00},
		22, []byte{0x00, 0x00, 0x00, 0xff})
	dr, _ = NewDefReader(bytes.NewReader(file), nil)
	defs, err := ReadDefs(dr)
	if err != nil {
		t.Fatal(err)
	}
	lp, _ := defs.All()[0].LocationProperty()
	lg, _ := defs.All()[1].LocationGroup()
	rw, _ := defs.All()[2].RmaWin()
	cm, _ := defs.All()[3].Comm()
	if lp.Type != TypeString || lp.Value != 9 || lg.CreatingLocationGroup != Undefined32 || rw.Flags != RmaWinFlagCreateDestroyEvents || cm.Flags != 0 || cm.Parent != Undefined32 {
		t.Fatalf("defaults: %+v %+v %+v %+v", lp, lg, rw, cm)
	}
	// ClockProperties without realtimeTimestamp, then a String with two
	// bytes of a future version's field.
	file = defFile(5, []byte{0x01, 0x10, 0x00, 0x00}, 10, []byte{0x01, 0x07, 'x', 0, 0xaa, 0xbb})
	dr, _ = NewDefReader(bytes.NewReader(file), nil)
	if !dr.Next() {
		t.Fatal(dr.Err())
	}
	if c, _ := dr.Record().ClockProperties(); c.RealtimeTimestamp != Undefined64 || c.TimerResolution != 16 {
		t.Fatalf("clock %+v", c)
	}
	if !dr.Next() {
		t.Fatal(dr.Err())
	}
	if s, _ := dr.Record().String(); s.Self != 7 || s.String != "x" {
		t.Fatalf("string %+v", s)
	}
	if dr.Next() || dr.Err() != nil {
		t.Fatal("want a clean end", dr.Err())
	}
}

// defFile assembles a one-chunk definition file from (type, body) pairs.
func defFile(recs ...any) []byte {
	b := []byte{3, 0x42, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	for i := 0; i < len(recs); i += 2 {
		body := recs[i+1].([]byte)
		b = append(b, byte(recs[i].(int)), byte(len(body)))
		b = append(b, body...)
	}
	return append(b, 2, 1)
}

func TestTruncated(t *testing.T) {
	data, err := os.ReadFile("testdata/threads_rma/trace/traces/0.evt")
	if err != nil {
		t.Fatal(err)
	}
	r, _ := NewEventReader(bytes.NewReader(data), nil)
	var full int64
	for r.Next() {
		full++
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	for cut := 19; cut < len(data)-2; cut += 7 {
		r.Reset(bytes.NewReader(data[:cut]))
		var n int64
		for r.Next() {
			n++
		}
		var pe *ParseError
		if !errors.As(r.Err(), &pe) {
			t.Fatalf("cut %d: error %v, want a ParseError", cut, r.Err())
		}
		if !errors.Is(r.Err(), io.ErrUnexpectedEOF) && !errors.Is(r.Err(), ErrSyntax) && !errors.Is(r.Err(), ErrRange) {
			t.Fatalf("cut %d: error %v", cut, r.Err())
		}
		if n > full || pe.Offset > int64(cut) || pe.Record < n {
			t.Fatalf("cut %d: %d events, error at offset %d record %d", cut, n, pe.Offset, pe.Record)
		}
		if r.Next() {
			t.Fatal("Next after an error")
		}
	}
}

func TestAnchorCount(t *testing.T) {
	a := openFixture(t, "minimal")
	if a.Anchor.TraceID != 0x33212eea8894ea81 || a.Anchor.EventChunkSize != 1<<20 || a.Anchor.Description != "minimal" {
		t.Fatalf("anchor %+v", a.Anchor)
	}
}

func newEndlessReader(t testing.TB) *EventReader {
	data, err := os.ReadFile("testdata/threads_rma/trace/traces/0.evt")
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewEventReader(bytes.NewReader(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	src := bytes.NewReader(data)
	for range 2 { // warm the buffers
		for r.Next() {
		}
		src.Reset(data)
		r.Reset(src)
	}
	return r
}

func TestNextAllocs(t *testing.T) {
	r := newEndlessReader(t)
	data, _ := os.ReadFile("testdata/threads_rma/trace/traces/0.evt")
	src := bytes.NewReader(data)
	n := testing.AllocsPerRun(1000, func() {
		if !r.Next() {
			if r.Err() != nil {
				t.Fatal(r.Err())
			}
			src.Reset(data)
			r.Reset(src)
			r.Next()
		}
	})
	if n != 0 {
		t.Fatalf("Next allocates %.1f times per record; want 0", n)
	}
}

// TestBigEndian reads a hand-made big-endian event file: fixed-size
// numbers and compressed integers most significant byte first.
func TestBigEndian(t *testing.T) {
	data := []byte{3, 0x23, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2,
		5, 0, 0, 0, 0, 0, 0, 0x03, 0xe8, // TIMESTAMP 1000
		12, 2, 0x01, 0x00, // Enter region 256
		14, 6, 1, 1, 1, 2, 1, 3, // MpiSend? fields cut: receiver 1, comm 2, tag 3, length missing
		2, 1}
	r, _ := NewEventReader(bytes.NewReader(data), nil)
	if !r.Next() {
		t.Fatal(r.Err())
	}
	if ev := r.Record(); ev.Time != 1000 || ev.Value(0) != 256 {
		t.Fatalf("time %d region %d", ev.Time, ev.Value(0))
	}
	if r.Next() {
		t.Fatal("MpiSend without its length field must fail")
	}
	if !errors.Is(r.Err(), ErrSyntax) {
		t.Fatalf("got %v, want ErrSyntax", r.Err())
	}
}

// TestAnchorFormats reads anchors of formats 1 and 2, which lack the
// properties, trace id and snapshot counts.
func TestAnchorFormats(t *testing.T) {
	data, err := os.ReadFile("testdata/minimal/trace/traces.otf2")
	if err != nil {
		t.Fatal(err)
	}
	// format 2: drop the snapshot and thumbnail counts and the trailer check
	v2 := append([]byte(nil), data[:len(data)-11]...)
	v2[7] = 2
	a, err := ReadAnchor(bytes.NewReader(v2), "v2")
	if err != nil || a.TraceID != 0x33212eea8894ea81 || a.NumGlobalDefs != 13 {
		t.Fatalf("format 2: %+v, %v", a, err)
	}
	v1 := append([]byte(nil), data[:len(data)-23]...)
	v1[7] = 1
	a, err = ReadAnchor(bytes.NewReader(v1), "v1")
	if err != nil || a.Description != "minimal" || a.TraceID != 0 {
		t.Fatalf("format 1: %+v, %v", a, err)
	}
	v4 := append([]byte(nil), data...)
	v4[7] = 4
	if _, err := ReadAnchor(bytes.NewReader(v4), "v4"); !errors.Is(err, ErrVersion) {
		t.Fatalf("format 4: %v, want ErrVersion", err)
	}
}

// TestSnapshotsAndMarkers reads the snapshots and markers libotf2's tools
// added to a copy of threads_rma.
func TestSnapshotsAndMarkers(t *testing.T) {
	a := openFixture(t, "snapshots_markers")
	if a.Anchor.NumSnapshots != 2 {
		t.Fatalf("%d snapshots", a.Anchor.NumSnapshots)
	}
	wantPos := map[uint64][]uint64{0: {10, 24}, 1: {8, 16}, 2: {8, 14}, 3: {8, 14}, 4: {1, 4}}
	for _, loc := range a.Locations() {
		r, err := a.SnapshotReader(loc)
		if err != nil {
			t.Fatal(err)
		}
		var pos, times []uint64
		for s, err := range r.All() {
			if err != nil {
				t.Fatal(err)
			}
			switch s.Kind {
			case SnapKindSnapshotStart:
				x, _ := s.SnapshotStart()
				if x.NumberOfRecords != 0 {
					t.Fatalf("start %+v", x)
				}
				times = append(times, s.Time)
			case SnapKindSnapshotEnd:
				x, _ := s.SnapshotEnd()
				pos = append(pos, x.ContReadPos)
			default:
				t.Fatalf("unexpected %v", s.Kind)
			}
		}
		r.Close()
		if !slices.Equal(pos, wantPos[loc]) || !slices.Equal(times, []uint64{5762, 6524}) {
			t.Fatalf("location %d: positions %v times %v", loc, pos, times)
		}
	}
	mr, err := a.MarkerReader()
	if err != nil {
		t.Fatal(err)
	}
	defer mr.Close()
	var got []string
	for d, err := range mr.All() {
		if err != nil {
			t.Fatal(err)
		}
		if x, ok := d.MarkerDef(); ok {
			got = append(got, fmt.Sprintf("def %d %s %s %d", x.Self, x.MarkerGroup, x.MarkerCategory, x.Severity))
		}
		if x, ok := d.Marker(); ok {
			got = append(got, fmt.Sprintf("marker %d+%d %d scope %d:%d %s", x.Time, x.Duration, x.Marker, x.MarkerScope, x.Scope, x.Text))
		}
	}
	want := []string{"def 0 MyGroup Cat1 3", "marker 5100+20 0 scope 1:1 hello marker", "marker 6000+0 0 scope 0:18446744073709551615 global one"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

// TestSlotTables: Value and RawValue find through the slot tables the
// value slot of every scalar field of every event and snapshot kind, and
// nothing for the other fields.
func TestSlotTables(t *testing.T) {
	for _, snap := range []bool{false, true} {
		ls := &eventLayouts
		if snap {
			ls = &snapLayouts
		}
		for k, l := range ls {
			e := Event{Kind: Kind(k), TypeID: uint8(k), snap: snap}
			for i := range e.vals {
				e.vals[i], e.raw[i] = uint64(100+i), uint64(200+i)
			}
			var fields []FieldInfo
			if l != nil {
				fields = l.fields
			}
			if len(fields) > maxSlotFields {
				t.Fatalf("%s has %d fields, more than maxSlotFields", l.name, len(fields))
			}
			for i := range maxSlotFields + 2 {
				var want, wantRaw uint64
				if i < len(fields) && fields[i].scalar() {
					want, wantRaw = uint64(100+int(fields[i].slot)), uint64(200+int(fields[i].slot))
				}
				if got, gotRaw := e.Value(i), e.RawValue(i); got != want || gotRaw != wantRaw {
					t.Errorf("kind %d (snapshot %v) field %d: Value %d RawValue %d, want %d %d", k, snap, i, got, gotRaw, want, wantRaw)
				}
			}
		}
	}
}

// TestAnchorBounded: an anchor or definition file that is not a regular
// file (a link to /dev/zero) is refused, allocating little; an anchor
// longer than 1 MiB is refused; an unknown anchor format is refused.
func TestAnchorBounded(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	for _, file := range []string{"traces.otf2", "traces.def", "traces/0.evt", "traces/0.def"} {
		dir := t.TempDir()
		if err := os.CopyFS(dir, os.DirFS("testdata/minimal/trace")); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.FromSlash(file))
		os.Remove(p)
		if err := os.Symlink("/dev/zero", p); err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		a, err := Open(filepath.Join(dir, "traces.otf2"), nil)
		if err == nil {
			var r *EventReader
			if r, err = a.EventReader(0); err == nil {
				for r.Next() {
				}
				err = r.Err()
			}
		}
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("%s → /dev/zero: got error %v, want not a regular file", file, err)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 4<<20 {
			t.Errorf("%s → /dev/zero: %d bytes allocated, want at most 4 MiB", file, n)
		}
	}
	data, err := os.ReadFile("testdata/minimal/trace/traces.otf2")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ReadAnchor(io.MultiReader(bytes.NewReader(data), io.LimitReader(zeros{}, 2<<20)), "long"); !errors.Is(err, ErrRange) {
		t.Errorf("anchor of 2 MiB: got %v, want ErrRange", err)
	}
	v99 := bytes.Clone(data)
	v99[7] = 99
	if _, err := ReadAnchor(bytes.NewReader(v99), "v99"); !errors.Is(err, ErrVersion) || !strings.Contains(err.Error(), "anchor format 99") {
		t.Errorf("format 99: got %v, want ErrVersion naming the format", err)
	}
}

// zeros reads as an endless run of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestMissingEventFile: a location whose definition declares events and
// whose event file is missing is an ErrIntegrity error, or with
// OpenOptions.AllowMissingEvents an empty location, counted; a location that
// declares none reads as empty.
func TestMissingEventFile(t *testing.T) {
	cr := memCreator{}
	writeBig(t, cr, 3, 10)
	fsys := cr.fs()
	delete(fsys, "traces/1.evt")
	a, err := OpenFS(fsys, "traces.otf2", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.EventReader(1); !errors.Is(err, ErrIntegrity) || !strings.Contains(err.Error(), "declares 10 events") {
		t.Errorf("missing event file: got %v, want ErrIntegrity naming the 10 declared events", err)
	}
	if _, err := a.MergedReader(nil); !errors.Is(err, ErrIntegrity) {
		t.Errorf("merged reader: got %v, want ErrIntegrity", err)
	}
	a, err = OpenFS(fsys, "traces.otf2", &OpenOptions{AllowMissingEvents: true})
	if err != nil {
		t.Fatal(err)
	}
	mr, err := a.MergedReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for mr.Next() {
		n++
	}
	if mr.Err() != nil || n != 20 {
		t.Errorf("lenient: %d events, %v; want 20", n, mr.Err())
	}
	if locs, evs := a.MissingEvents(); locs != 1 || evs != 10 {
		t.Errorf("MissingEvents = %d, %d; want 1, 10", locs, evs)
	}
}
