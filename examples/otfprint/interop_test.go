package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf"
)

// writeCopy writes the fixture trace in dir to out/stub with our writer.
func writeCopy(t *testing.T, dir, out string, wo otf.WriterOptions) string {
	t.Helper()
	masters, _ := filepath.Glob(filepath.Join(dir, "*.otf"))
	tr, err := otf.OpenFS(os.DirFS(dir), filepath.Base(masters[0]), nil)
	if err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(out)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	c := model.CreateFunc(func(n string) (io.WriteCloser, error) { return root.Create(n) })
	w, err := otf.NewTraceWriter(c, &otf.TraceWriterOptions{Stub: "copy", WriterOptions: wo, Streams: tr.Streams})
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
// ranges that end inside each section (among records of equal time in
// different streams too), at the end of a section and past the last
// record: the reference stops at the first record past b and prints no
// further section header.
func TestReferenceNum(t *testing.T) {
	ref, err := exec.LookPath("otfprint")
	if err != nil {
		t.Skip("reference otfprint not installed")
	}
	dir := "../../otf/testdata/all_records_short"
	for _, r := range [][2]string{{"3", "5"}, {"1", "1"}, {"60", "70"}, {"100", "120"}, {"200", "230"},
		{"300", "320"}, {"330", "340"}, {"355", "360"}, {"360", "365"}, {"365", "400"}, {"1000", "2000"}} {
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

// TestReferenceTies compares with the reference otfprint on a trace whose
// streams have many records of equal time, some with key-value lists: the
// reference's merge order among equal times (its heap over the streams)
// must be reproduced, with process selections, time intervals and --num.
func TestReferenceTies(t *testing.T) {
	ref, err := exec.LookPath("otfprint")
	if err != nil {
		t.Skip("reference otfprint not installed")
	}
	dir := t.TempDir()
	var streams []otf.Stream
	for s := range 5 {
		streams = append(streams, otf.Stream{ID: uint32(5 - s)}) // master file not in id order
	}
	for p := range 9 {
		streams[p%5].Processes = append(streams[p%5].Processes, uint32(p+1))
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	w, err := otf.NewTraceWriter(model.CreateFunc(func(n string) (io.WriteCloser, error) { return root.Create(n) }), &otf.TraceWriterOptions{Stub: "ties", Streams: streams})
	if err != nil {
		t.Fatal(err)
	}
	write := func(rec *otf.Record) {
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	def := &otf.Record{}
	def.SetDefKeyValue(otf.DefKeyValue{Key: 1, Type: uint32(otf.TypeUint32), Name: []byte("k")})
	write(def)
	for i := range 400 {
		p := uint32(i*7%9 + 1)
		rec := &otf.Record{Time: uint64(i / 9 / 3), Process: p}
		rec.SetEnter(otf.Enter{Function: uint32(i%4 + 1)})
		if i%5 == 0 {
			rec.SetKeyValues([]otf.KeyValue{{Key: 1, Type: otf.TypeUint32, Value: uint64(i)}})
		}
		write(rec)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{nil, {"--procs", "2", "5", "7"}, {"--time", "3", "9"}, {"--num", "50", "90"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			args := append(slices.Clone(args), "ties.otf")
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
			if err := run(c, os.DirFS(dir), "ties.otf", &ours); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(normalize(string(want)), normalize(ours.String())); diff != "" {
				t.Errorf("otfprint %v (-reference +ours):\n%s", args, diff)
			}
		})
	}
}
