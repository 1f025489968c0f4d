package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace/otf"
)

// writeCopy writes the fixture trace in dir to out/stub with our writer.
func writeCopy(t *testing.T, dir, out string, wo otf.WriterOptions) string {
	t.Helper()
	masters, _ := filepath.Glob(filepath.Join(dir, "*.otf"))
	tr, err := otf.Open(os.DirFS(dir), filepath.Base(masters[0]))
	if err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(out)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	c := otf.CreateFunc(func(n string) (io.WriteCloser, error) { return root.Create(n) })
	w, err := otf.NewTraceWriter(c, "copy", &otf.TraceWriterOptions{WriterOptions: wo, Streams: tr.Streams})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []otf.FileType{otf.FileDef, otf.FileEvents, otf.FileSnaps, otf.FileStats, otf.FileMarker} {
		r, err := tr.NewReader(&otf.TraceReaderOptions{File: f})
		if err != nil {
			t.Fatal(err)
		}
		for rec, err := range r.All() {
			if err != nil {
				t.Fatal(err)
			}
			if err := w.WriteIn(f, rec); err != nil {
				t.Fatal(err)
			}
		}
		r.Close()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return "copy.otf"
}

// TestReferenceReadsOurFiles runs the reference otfprint on traces our
// writer produced (short, long, zlib) and compares with our otfprint.
// It needs otfprint (Debian otf-trace); CI installs it.
func TestReferenceReadsOurFiles(t *testing.T) {
	ref, err := exec.LookPath("otfprint")
	if err != nil {
		t.Skip("reference otfprint not installed")
	}
	for _, dir := range []string{"all_records_short", "edge_values_short", "otfaux_all", "reader_tolerance"} {
		for name, wo := range map[string]otf.WriterOptions{
			"short": {},
			"long":  {Long: true},
			"zlib":  {Zlib: true, ZlibBlockSize: 512},
		} {
			t.Run(dir+"/"+name, func(t *testing.T) {
				out := t.TempDir()
				master := writeCopy(t, filepath.Join("../../otf/testdata", dir), out, wo)
				cmd := exec.Command(ref, master)
				cmd.Dir = out
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				if err := cmd.Run(); err != nil {
					t.Fatalf("reference otfprint: %v\n%s", err, stderr.String())
				}
				if strings.Contains(stderr.String(), "ERROR") {
					t.Fatalf("reference otfprint complained:\n%s", stderr.String())
				}
				c, _ := parseArgs([]string{master})
				var ours bytes.Buffer
				if err := run(c, os.DirFS(out), master, &ours); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(normalize(stdout.String()), normalize(ours.String())); diff != "" {
					t.Errorf("reference otfprint on our %s files (-reference +ours):\n%s", name, diff)
				}
			})
		}
	}
}

// TestReferenceNum compares --num a b with the reference otfprint on
// ranges that end inside the definitions and the events, at the end of a
// section and past the last record: the reference stops at the first
// record past b and prints no further section header. (Ranges that end
// among records of equal time in different streams are left out: the
// reference's merge orders those otherwise than ties by process.)
func TestReferenceNum(t *testing.T) {
	ref, err := exec.LookPath("otfprint")
	if err != nil {
		t.Skip("reference otfprint not installed")
	}
	dir := "../../otf/testdata/all_records_short"
	for _, r := range [][2]string{{"3", "5"}, {"1", "1"}, {"60", "70"}, {"100", "120"}, {"200", "230"},
		{"360", "365"}, {"365", "400"}, {"1000", "2000"}} {
		t.Run(r[0]+"-"+r[1], func(t *testing.T) {
			args := []string{"--num", r[0], r[1], "allrec.otf"}
			cmd := exec.Command(ref, args...)
			cmd.Dir = dir
			want, err := cmd.Output()
			if err != nil {
				t.Fatalf("reference otfprint: %v", err)
			}
			c, err := parseArgs(args)
			if err != nil {
				t.Fatal(err)
			}
			var ours bytes.Buffer
			if err := run(c, os.DirFS(dir), "allrec.otf", &ours); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(normalize(string(want)), normalize(ours.String())); diff != "" {
				t.Errorf("otfprint %v (-reference +ours):\n%s", args, diff)
			}
		})
	}
}
