package hpctrace

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace/dumpi"
	"github.com/hpctrace/hpctrace/eventjson"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf"
	"github.com/hpctrace/hpctrace/otf2"
	"github.com/hpctrace/hpctrace/picl"
)

// fixtures lists traces of every format with the format Open must find.
func fixtures(t *testing.T) map[string]Format {
	t.Helper()
	out := map[string]Format{}
	add := func(pattern string, f Format) {
		m, err := filepath.Glob(pattern)
		if err != nil || len(m) == 0 {
			t.Fatalf("no fixtures %s", pattern)
		}
		for _, name := range m {
			out[name] = f
		}
	}
	add("picl/testdata/*.trf", FormatPICL)
	add("dumpi/testdata/*/*.meta", FormatDUMPIRun)
	add("dumpi/testdata/*/*-000[01].bin", FormatDUMPI)
	add("otf/testdata/*/*.otf", FormatOTF)
	add("eventjson/testdata/*.json", FormatJSON)
	add("otf2/testdata/*/trace/*.otf2", FormatOTF2)
	add("chrome/testdata/*.json", FormatChrome)
	return out
}

// copyAs copies the file src to dir/name.
func copyAs(t *testing.T, src, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, name)
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestDetect: every fixture is recognised, and so is its content under a
// name that says nothing (or the wrong thing).
func TestDetect(t *testing.T) {
	dir := t.TempDir()
	n := 0
	for name, want := range fixtures(t) {
		got, err := Detect(name)
		if err != nil || got != want {
			t.Errorf("Detect(%s) = %v, %v; want %v", name, got, err, want)
		}
		// Content alone decides for every format but OTF masters
		// (whose few hex lines say little) … and decides for them too.
		renamed := copyAs(t, name, dir, "trace.dat")
		if got, err := Detect(renamed); err != nil || got != want {
			t.Errorf("Detect(%s copied to .dat) = %v, %v; want %v", name, got, err, want)
		}
		n++
	}
	if n < 20 {
		t.Errorf("%d fixtures; want at least 20", n)
	}
}

func TestDetectByName(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name    string
		content string
		want    Format
	}{
		{"a.trf", "", FormatPICL},
		{"a.bin", "\xff\xaa", FormatDUMPI},                 // too short for the magic: the name decides
		{"a.json", "[]", FormatJSON},                       // the reader will say what is wrong
		{"a.otf", "", FormatOTF},                           // an empty master file
		{"a.META", "hostname=x\n", FormatDUMPIRun},         // a partial meta file
		{"a.json", "-3 -901 0.000000 0 0 0\n", FormatPICL}, // content beats the name
		{"x", `{"format":"trace-events-json/1"}`, FormatJSON},
		{"x", "1:1,2\n2:3\n", FormatOTF},
		{"x", "numprocs=2\nfileprefix=p\n", FormatDUMPIRun},
		{"a.OTF2", "", FormatOTF2},                     // the archive's reader will say what is wrong
		{"x", "\x03\x42OTF2\x00\x03", FormatOTF2},      // a little-endian anchor's header
		{"x.otf", "\x03\x23OTF2\x00\x03", FormatOTF2},  // a big-endian one, whatever the name
		{"x", ` [ {"ph":"B"`, FormatChrome},            // Chrome's bare array, unterminated
		{"a.json", `{"traceEvents":[]}`, FormatChrome}, // content beats the name
		{"x", `{"displayTimeUnit":"ns","otherData":{},"traceEvents":[`, FormatChrome},
		{"x", `{"hpctrace":{"ticks_per_second":1000},"traceEvents":[`, FormatChrome},
		{"x", `{"format":"trace-events-json/1","traceEvents":[]}`, FormatJSON}, // the interchange form first
	} {
		name := filepath.Join(dir, tc.name)
		if err := os.WriteFile(name, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := Detect(name); err != nil || got != tc.want {
			t.Errorf("Detect(%q with %q) = %v, %v; want %v", tc.name, tc.content, got, err, tc.want)
		}
	}
}

func TestDetectUnknown(t *testing.T) {
	dir := t.TempDir()
	for _, content := range []string{"", "hello, not a trace\n", "{\"a\":1}", "1:1,2 and more\n", "\x03\x42OTF1\x00"} {
		name := filepath.Join(dir, "x.txt")
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := Detect(name); !errors.Is(err, ErrUnknownFormat) {
			t.Errorf("Detect(%q) = %v, %v; want ErrUnknownFormat", content, got, err)
		}
		if tr, err := Open(name, nil); !errors.Is(err, ErrUnknownFormat) {
			t.Errorf("Open(%q) = %v, %v; want ErrUnknownFormat", content, tr, err)
		}
	}
	if _, err := Detect(filepath.Join(dir, "missing.otf")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Detect of a missing file: %v; want os.ErrNotExist", err)
	}
}

// readAll reads every event of src, copying them.
func readAll(t *testing.T, src model.Source) []model.Event {
	t.Helper()
	var evs []model.Event
	for ev, err := range model.All(src) {
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, *ev)
	}
	return evs
}

// TestOpenMatchesAdapter: Open yields the events of the format's own
// model adapter, opened by hand.
func TestOpenMatchesAdapter(t *testing.T) {
	for name, f := range fixtures(t) {
		tr, err := Open(name, nil)
		if err != nil {
			t.Fatalf("Open(%s): %v", name, err)
		}
		if tr.Format != f {
			t.Errorf("%s: Format %v, want %v", name, tr.Format, f)
		}
		got := readAll(t, tr)
		if err := tr.Close(); err != nil {
			t.Errorf("%s: Close: %v", name, err)
		}
		if len(got) == 0 && f != FormatDUMPI {
			t.Errorf("%s: no events", name)
		}
		var want []model.Event
		switch f {
		case FormatDUMPIRun:
			run, err := dumpi.OpenRun(name, nil)
			if err != nil {
				t.Fatal(err)
			}
			src, err := dumpi.NewModelSource(run, nil)
			if err != nil {
				t.Fatal(err)
			}
			want = readAll(t, src)
			run.Close()
		case FormatOTF:
			ot, err := otf.OpenFS(os.DirFS(filepath.Dir(name)), filepath.Base(name), nil)
			if err != nil {
				t.Fatal(err)
			}
			src, err := otf.NewModelSource(ot, nil)
			if err != nil {
				t.Fatal(err)
			}
			want = readAll(t, src)
			src.Close()
		case FormatOTF2:
			a, err := otf2.Open(name, nil)
			if err != nil {
				t.Fatal(err)
			}
			src, err := otf2.NewModelSource(a, nil)
			if err != nil {
				t.Fatal(err)
			}
			want = readAll(t, src)
			src.Close()
			a.Close()
		default:
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: Open differs from the adapter (-want +got):\n%s", name, diff)
		}
	}
}

// TestOpenAbsolutePath: an OTF trace named by an absolute path opens (the
// fs.FS form needs a path within the FS), and otf.Open says why it can't.
func TestOpenAbsolutePath(t *testing.T) {
	abs, err := filepath.Abs("otf/testdata/ring_zlib_blocks/ring.otf")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Open(abs, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if n := len(readAll(t, tr)); n == 0 {
		t.Error("no events from a zlib OTF trace")
	}
	if _, err := otf.OpenFS(os.DirFS("/"), abs, nil); !errors.Is(err, os.ErrInvalid) {
		t.Errorf("otf.Open with an absolute name: %v; want fs.ErrInvalid", err)
	}
}

func TestTraceClose(t *testing.T) {
	tr, err := Open("picl/testdata/appendix_a.trf", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !tr.Next() {
		t.Fatal("no first event")
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	if tr.Next() {
		t.Error("Next after Close returned true")
	}
	if err := tr.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestOpenFormatOption(t *testing.T) {
	// A PICL file forced to be read as JSON fails in the event JSON reader.
	if tr, err := Open("picl/testdata/appendix_a.trf", &Options{Format: FormatJSON}); err == nil {
		tr.Close()
		t.Error("PICL read as JSON succeeded")
	}
	if _, err := Open("picl/testdata/appendix_a.trf", &Options{Format: Format(99)}); !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("Format(99): %v; want ErrUnknownFormat", err)
	}
}

// A Trace is a model source (with the bulk path) and an io.Closer.
var (
	_ model.BulkSource = (*Trace)(nil)
	_ io.Closer        = (*Trace)(nil)
)

// TestOpenOTFRecordFile: a record file's name opens its trace.
func TestOpenOTFRecordFile(t *testing.T) {
	for _, name := range []string{"otf/testdata/ring_zlib_blocks/ring.1.events.z", "otf/testdata/minimal_ring_short/mini.0.def"} {
		if f, err := Detect(name); err != nil || f != FormatOTF {
			t.Errorf("Detect(%s) = %v, %v; want OTF", name, f, err)
		}
		tr, err := Open(name, nil)
		if err != nil {
			t.Fatalf("Open(%s): %v", name, err)
		}
		if n := len(readAll(t, tr)); n == 0 {
			t.Errorf("%s: no events", name)
		}
		tr.Close()
	}
	for _, name := range []string{"a.events", "x.g.def", "notes.1.txt", ".1.def"} {
		if stub, ok := otfStub(name); ok {
			t.Errorf("otfStub(%q) = %q; want none", name, stub)
		}
	}
}

// Every format's model source is an io.Closer, so Trace.Source can be
// closed whatever the format.
var (
	_ io.Closer = (*picl.ModelSource)(nil)
	_ io.Closer = (*dumpi.ModelSource)(nil)
	_ io.Closer = (*otf.ModelSource)(nil)
	_ io.Closer = (*otf2.ModelSource)(nil)
	_ io.Closer = (*eventjson.Reader)(nil)
)

// TestOpenFS: every fixture opened through an fs.FS yields the events it
// yields opened by path, and a trace in memory opens too.
func TestOpenFS(t *testing.T) {
	fsys := os.DirFS(".")
	for name, want := range fixtures(t) {
		f, err := DetectFS(fsys, name)
		if err != nil || f != want {
			t.Errorf("DetectFS(%s) = %v, %v; want %v", name, f, err, want)
		}
		byFS, err := OpenFS(fsys, filepath.ToSlash(name), nil)
		if err != nil {
			t.Fatalf("OpenFS(%s): %v", name, err)
		}
		got := readAll(t, byFS)
		byFS.Close()
		byPath, err := Open(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		wantEvs := readAll(t, byPath)
		byPath.Close()
		if diff := cmp.Diff(wantEvs, got); diff != "" {
			t.Errorf("%s: OpenFS differs from Open (-want +got):\n%s", name, diff)
		}
	}
	data, err := os.ReadFile("picl/testdata/ring4.trf")
	if err != nil {
		t.Fatal(err)
	}
	mem := fstest.MapFS{"traces/ring": {Data: data}}
	tr, err := OpenFS(mem, "traces/ring", nil)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Format != FormatPICL || len(readAll(t, tr)) == 0 {
		t.Errorf("a PICL trace in memory: format %v", tr.Format)
	}
	tr.Close()
	if _, err := OpenFS(nil, "x", nil); err == nil {
		t.Error("OpenFS(nil) succeeded")
	}
	if _, err := OpenFS(mem, "missing", nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenFS of a missing file: %v; want fs.ErrNotExist", err)
	}
}

// TestOpenOTF2NativeLocation: a caller that knows an OTF2 location by
// its id in the archive selects it through the model's definitions
// (Defs.LocationByNative) and Options.Locations.
func TestOpenOTF2NativeLocation(t *testing.T) {
	name := "otf2/testdata/c_localdefs/trace/traces.otf2"
	all, err := Open(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	evs := readAll(t, all)
	id, ok := all.Defs().LocationByNative(1)
	all.Close()
	if !ok {
		t.Fatal("no location of native id 1")
	}
	one, err := Open(name, &Options{Locations: model.Only(id)})
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	got := readAll(t, one)
	var want []model.Event
	for _, ev := range evs {
		if l, _ := one.Defs().Location(ev.Loc); l.Native == 1 {
			want = append(want, ev)
		}
	}
	if len(want) == 0 || len(want) == len(evs) {
		t.Fatalf("%d of %d events on location 1", len(want), len(evs))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("location 1 (-want +got):\n%s", diff)
	}
}

// TestOpenRunOutside: Open refuses a DUMPI .meta file whose fileprefix
// leaves its directory, and reads the run when Options.DUMPIRun allows it.
func TestOpenRunOutside(t *testing.T) {
	const stub = "dumpi-2026.11.22.01.38.03"
	dir := t.TempDir()
	for _, d := range []string{"ranks", "meta"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range []string{"0000", "0001"} {
		b, err := os.ReadFile("dumpi/testdata/minimal/" + stub + "-" + r + ".bin")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "ranks", stub+"-"+r+".bin"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	meta := filepath.Join(dir, "meta", "run.meta")
	text := "hostname=vm\nnumprocs=2\nusername=u\nstartime=1795311483\nfileprefix=../ranks/" + stub +
		"\nversion=13\nsubversion=0\nsubsubversion=0\n"
	if err := os.WriteFile(meta, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if tr, err := Open(meta, nil); !errors.Is(err, dumpi.ErrRange) {
		if err == nil {
			tr.Close()
		}
		t.Fatalf("Open without DUMPIRun: err %v, want a refusal wrapping dumpi.ErrRange", err)
	}
	if tr, err := Open(meta, &Options{DUMPIRun: &dumpi.RunOptions{}}); !errors.Is(err, dumpi.ErrRange) {
		if err == nil {
			tr.Close()
		}
		t.Fatalf("Open with a zero DUMPIRun: err %v, want a refusal", err)
	}
	tr, err := Open(meta, &Options{DUMPIRun: &dumpi.RunOptions{AllowOutside: true}})
	if err != nil {
		t.Fatalf("Open with AllowOutside: %v", err)
	}
	defer tr.Close()
	want, err := Open("dumpi/testdata/minimal/"+stub+".meta", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer want.Close()
	if got, w := len(readAll(t, tr)), len(readAll(t, want)); got != w || got == 0 {
		t.Errorf("run read through an outside prefix: %d events, want %d", got, w)
	}
}

// copyArchive copies the OTF2 archive of the anchor src/traces.otf2 into
// dir as the archive name (name.otf2, name.def, the directory name/, and
// the marker and thumbnail files) and returns the new anchor's path.
func copyArchive(t *testing.T, src, dir, name string) string {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if rel == "." {
			return nil
		}
		out := filepath.Join(dir, name+rel[len("traces"):])
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		copyAs(t, p, filepath.Dir(out), filepath.Base(out))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, name+".otf2")
}

// TestOpenRenamedOTF2: an OTF2 archive whose anchor is not named
// traces.otf2 is detected and opens as the original, through Open and
// OpenFS, whole and by locations.
func TestOpenRenamedOTF2(t *testing.T) {
	for _, fx := range []string{"c_localdefs", "snapshots_markers", "threads_rma"} {
		orig := filepath.Join("otf2", "testdata", fx, "trace")
		dir := t.TempDir()
		anchor := copyArchive(t, orig, dir, "run.2026-11-28")
		if f, err := Detect(anchor); err != nil || f != FormatOTF2 {
			t.Errorf("%s: Detect = %v, %v; want OTF2", anchor, f, err)
		}
		for _, opts := range []*Options{nil, {Locations: func(l model.LocID) bool { return l%2 == 1 }}} {
			o, err := Open(filepath.Join(orig, "traces.otf2"), opts)
			if err != nil {
				t.Fatal(err)
			}
			want := readAll(t, o)
			o.Close()
			r, err := Open(anchor, opts)
			if err != nil {
				t.Fatalf("%s renamed: %v", fx, err)
			}
			got := readAll(t, r)
			if diff := cmp.Diff(want, got); diff != "" || len(want) == 0 {
				t.Errorf("%s renamed (%d events): differs from the original (-want +got):\n%s", fx, len(want), diff)
			}
			if diff := cmp.Diff(o.Defs().Locations(), r.Defs().Locations()); diff != "" {
				t.Errorf("%s renamed: locations differ:\n%s", fx, diff)
			}
			r.Close()
			f, err := OpenFS(os.DirFS(dir), "run.2026-11-28.otf2", opts)
			if err != nil {
				t.Fatalf("%s renamed, OpenFS: %v", fx, err)
			}
			if diff := cmp.Diff(want, readAll(t, f)); diff != "" {
				t.Errorf("%s renamed, OpenFS: differs from the original (-want +got):\n%s", fx, diff)
			}
			f.Close()
		}
	}
}

// TestOTFOptionsSelectionRefused: the OTF options' Selection is not a
// second selector beside Options.Locations and Options.Window.
func TestOTFOptionsSelectionRefused(t *testing.T) {
	name := "otf/testdata/minimal_ring_short/mini.otf"
	for _, sel := range []model.Selection{
		{Locations: model.Only(1)},
		{Window: &model.Window{From: 1}},
	} {
		tr, err := Open(name, &Options{OTF: &otf.ModelOptions{Selection: sel}})
		if err == nil {
			tr.Close()
			t.Errorf("Options.OTF.Selection %+v: no error", sel)
		} else if !strings.Contains(err.Error(), "Options.Locations and Options.Window") {
			t.Errorf("Options.OTF.Selection %+v: %v", sel, err)
		}
	}
	tr, err := Open(name, &Options{OTF: &otf.ModelOptions{Strict: true, MaxLine: 4096}})
	if err != nil {
		t.Fatal(err)
	}
	tr.Close()
}

// TestOTF2OpenOptions checks that Options.OTF2 reaches otf2.OpenFS: an
// archive with a location's event file missing fails with ErrIntegrity
// by default and reads that location as empty with AllowMissingEvents.
func TestOTF2OpenOptions(t *testing.T) {
	dir := "otf2/testdata/nbcoll/trace"
	fsys := fstest.MapFS{}
	err := fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(filepath.Join(dir, p))
		fsys[p] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	count := func(opts *Options) (int, error) {
		tr, err := OpenFS(fsys, "traces.otf2", opts)
		if err != nil {
			return 0, err
		}
		defer tr.Close()
		n := 0
		for tr.Next() {
			n++
		}
		return n, tr.Err()
	}
	whole, err := count(nil)
	if err != nil || whole == 0 {
		t.Fatalf("whole archive: %d events, %v", whole, err)
	}
	delete(fsys, "traces/1.evt")
	if _, err := count(nil); !errors.Is(err, otf2.ErrIntegrity) {
		t.Errorf("missing event file without Options.OTF2: %v, want otf2.ErrIntegrity", err)
	}
	n, err := count(&Options{OTF2: &otf2.OpenOptions{AllowMissingEvents: true}})
	if err != nil || n == 0 || n >= whole {
		t.Errorf("with AllowMissingEvents: %d events, %v; want fewer than the whole %d and no error", n, err, whole)
	}
}
