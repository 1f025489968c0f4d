package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyFixture copies in with convert into a new directory and returns the
// output path and the notes printed.
func copyFixture(t *testing.T, in string, o *options) (string, string) {
	t.Helper()
	var notes bytes.Buffer
	o.notes = &notes
	out := filepath.Join(t.TempDir(), filepath.Base(in))
	if err := convert(in, out, o); err != nil {
		t.Fatalf("%s: %v", in, err)
	}
	return out, notes.String()
}

// TestCopyFidelitySingleFiles copies every PICL, JSON and DUMPI fixture:
// each copy is byte-identical, and nothing is said, except for the MPICL
// traces, whose statistics records end in a blank the PICL writer does
// not write: their notes show the first such line in both versions.
func TestCopyFidelitySingleFiles(t *testing.T) {
	var ins []string
	for _, g := range []string{"../../picl/testdata/*.trf", "../../picl/testdata/*/*.trf", "../../eventjson/testdata/*.json", "../../dumpi/testdata/*/*.bin"} {
		m, _ := filepath.Glob(g)
		if len(m) == 0 {
			t.Fatalf("no fixtures %s", g)
		}
		ins = append(ins, m...)
	}
	wantNotes := map[string]string{
		"mpicl_quirks.trf": `mpicl_quirks.trf: line 15: input "-101 -1 0.000200 0 0 3 \"%d%lf\" 1 0.000026 -22 0.000010 -781 0.000020 \n", copy "-101 -1 0.000200 0 0 3 \"%d%lf\" 1 0.000026 -22 0.000010 -781 0.000020\n"`,
		"mpicl_events.trf": `mpicl_events.trf: line 55: input "-101 -1 0.000300 0 0 4 \"%d%lf\" -22 0.000010 -33 0.000005 -785 0.000020 -782 0.000020 \n", copy`,
	}
	for _, in := range ins {
		out, notes := copyFixture(t, in, &options{})
		want, _ := os.ReadFile(in)
		got, _ := os.ReadFile(out)
		if w, ok := wantNotes[filepath.Base(in)]; ok {
			if !strings.Contains(notes, w) {
				t.Errorf("%s: notes %q lack %q", in, notes, w)
			}
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: copy differs", in)
		}
		if notes != "" {
			t.Errorf("%s: notes for an identical copy: %s", in, notes)
		}
	}
}

// TestCopyFidelityOTF copies every OTF fixture: the copy has the same
// files (the thumbnail too), byte-identical, except where the notes say
// which file differs and how.
func TestCopyFidelityOTF(t *testing.T) {
	masters, _ := filepath.Glob("../../otf/testdata/*/*.otf")
	compat, _ := filepath.Glob("../../otf/testdata/*/*/*.otf")
	masters = append(masters, compat...)
	if len(masters) < 12 {
		t.Fatalf("fixtures: %v", masters)
	}
	// The notes expected, by fixture directory: zlib files are deflated
	// differently; the tolerance fixture has spellings no writer produces.
	want := map[string][]string{
		"all_records_zlib_smallbuf": {"allrec.0.def.z, allrec.0.marker.z, allrec.1.events.z, allrec.1.snaps.z, allrec.1.stats.z, allrec.2.events.z, allrec.2.snaps.z, allrec.2.stats.z, allrec.3.events.z, allrec.3.snaps.z, allrec.3.stats.z: the same text, compressed differently"},
		"ring_zlib_blocks":          {"ring.0.def.z, ring.1.events.z, ring.2.events.z, ring.3.events.z: the same text, compressed differently"},
		"reader_tolerance":          {`tol.0.def: line 8: input "DP3N\"rank 2\"\n", copy "DP3NM\"rank 2\"\n"`, `tol.1.events: line 4: input " * 3\n", copy "*3\n"`},
	}
	for _, m := range masters {
		dir := filepath.Base(filepath.Dir(m))
		t.Run(dir, func(t *testing.T) {
			out, notes := copyFixture(t, m, &options{})
			stub := strings.TrimSuffix(filepath.Base(m), ".otf")
			ins, outs := otfFiles(filepath.Dir(m), stub), otfFiles(filepath.Dir(out), stub)
			if len(ins) != len(outs) {
				t.Errorf("copy has %d files, input %d", len(outs), len(ins))
			}
			for k, a := range ins {
				b, ok := outs[k]
				if !ok {
					t.Errorf("%s not copied", a)
					continue
				}
				da, _ := os.ReadFile(a)
				db, _ := os.ReadFile(b)
				if !bytes.Equal(da, db) && !strings.Contains(notes, filepath.Base(b)) {
					t.Errorf("%s differs and the notes do not say so:\n%s", filepath.Base(b), notes)
				}
			}
			for _, w := range want[dir] {
				if !strings.Contains(notes, w) {
					t.Errorf("notes lack %q:\n%s", w, notes)
				}
			}
			if want[dir] == nil && notes != "" {
				t.Errorf("notes for an identical copy:\n%s", notes)
			}
		})
	}
}

// TestCopyOlderWriter copies traces as writers before the reference's
// closing state lines leave them (no trailing time and process line in
// events, snapshot and statistics files): the copies are byte-identical,
// and a PICL trace with CRLF line ends and runs of blanks copies with a
// note that shows the first line that differs.
func TestCopyOlderWriter(t *testing.T) {
	for _, fixture := range []string{"all_records_short", "all_records_long", "minimal_ring_short", "otfaux_all", "edge_values_short"} {
		dir := copyTree(t, filepath.Join("../../otf/testdata", fixture))
		stripped := 0
		ents, _ := os.ReadDir(dir)
		var master string
		for _, e := range ents {
			p := filepath.Join(dir, e.Name())
			switch filepath.Ext(e.Name()) {
			case ".otf":
				master = p
			case ".events", ".snaps", ".stats":
				data, _ := os.ReadFile(p)
				lines := strings.SplitAfter(string(data), "\n")
				if len(lines) >= 3 && strings.HasPrefix(lines[len(lines)-2], "*") {
					os.WriteFile(p, []byte(strings.Join(lines[:len(lines)-3], "")), 0o644)
					stripped++
				}
			}
		}
		if stripped == 0 {
			t.Fatalf("%s: no file with closing state lines", fixture)
		}
		out, notes := copyFixture(t, master, &options{})
		if notes != "" {
			t.Errorf("%s without closing state lines: %s", fixture, notes)
		}
		stub := strings.TrimSuffix(filepath.Base(master), ".otf")
		for k, a := range otfFiles(dir, stub) {
			da, _ := os.ReadFile(a)
			db, err := os.ReadFile(otfFiles(filepath.Dir(out), stub)[k])
			if err != nil || !bytes.Equal(da, db) {
				t.Errorf("%s: %s differs (%v)", fixture, filepath.Base(a), err)
			}
		}
	}

	in := filepath.Join(t.TempDir(), "crlf.trf")
	os.WriteFile(in, []byte("-3 -901 0.000010 0 0 0\r\n-3  -901 0.000011 1 0 0\r\n"), 0o644)
	_, notes := copyFixture(t, in, &options{})
	if want := `crlf.trf: line 1: input "-3 -901 0.000010 0 0 0\r\n", copy "-3 -901 0.000010 0 0 0\n"`; !strings.Contains(notes, want) {
		t.Errorf("notes %q lack %q", notes, want)
	}
}

// TestCopyFlagsSaySo: a copy in the other record syntax or compression
// says which files differ.
func TestCopyFlagsSaySo(t *testing.T) {
	m := "../../otf/testdata/minimal_ring_short/mini.otf"
	_, notes := copyFixture(t, m, &options{otf: otfFlags{form: "long", formSet: true}})
	if !strings.Contains(notes, `mini.1.events, mini.2.events: line 3: input "E1\n", copy "ENTER 1\n"`) {
		t.Errorf("-form long: notes %q", notes)
	}
	_, notes = copyFixture(t, m, &options{otf: otfFlags{form: "short", zlib: true, zlibSet: true}})
	if !strings.Contains(notes, "mini.2.events.z: compressed in the copy, uncompressed in the input (-zlib); same text") {
		t.Errorf("-zlib: notes %q", notes)
	}
	_, notes = copyFixture(t, m, &options{otf: otfFlags{form: "short", streams: 1}})
	if !strings.Contains(notes, "mini.2.events: not in the copy") {
		t.Errorf("-streams 1: notes %q", notes)
	}
	// Re-streamed, the thumbnail is still copied.
	out, notes := copyFixture(t, "../../otf/testdata/otfaux_all/aux.otf", &options{otf: otfFlags{form: "short", streams: 1}})
	want, _ := os.ReadFile("../../otf/testdata/otfaux_all/aux.thumb")
	got, err := os.ReadFile(strings.TrimSuffix(out, ".otf") + ".thumb")
	if err != nil || !bytes.Equal(got, want) || strings.Contains(notes, "thumb") {
		t.Errorf("-streams 1: thumbnail not copied (%v); notes %q", err, notes)
	}
}
