package otf

import (
	"bytes"
	"flag"
	"fmt"
	"github.com/hpctrace/hpctrace/model"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

var updateCompat = flag.Bool("update-compat", false, "regenerate the testdata/compat fixtures and their goldens from the reference tools")

// A compatFixture is a trace of the compatibility corpus: a generator
// that writes it in the idiom of a real producer, and the reference tools
// whose output is kept as goldens.
type compatFixture struct {
	dir, stub string
	streams   int // streams of the master file
	gen       func(w func(*Record))
	// goldens: name → reference command (run in the fixture's directory
	// on a copy of the trace, "$stub" replaced by the master file's name).
	goldens map[string][]string
	// refGen, if set, writes the trace the goldens are made from instead
	// of gen (when the reference tools cannot read the fixture itself).
	refGen func(w func(*Record))
}

// vtProcesses writes VampirTrace's definitions of n MPI processes:
// creator, timer resolution, processes "Process i" with tokens 1..n, the
// function groups and functions, MPI_COMM_WORLD.
func vtDefs(w func(*Record), n int, funcs []string) {
	def := func(set func(*Record)) {
		var r Record
		set(&r)
		w(&r)
	}
	def(func(r *Record) { r.SetDefCreator(DefCreator{Creator: []byte("VampirTrace 5.14.4")}) })
	def(func(r *Record) { r.SetDefTimerResolution(DefTimerResolution{TicksPerSecond: 1_000_000_000}) })
	var world []uint32
	for p := range n {
		def(func(r *Record) {
			r.SetDefProcess(DefProcess{Process: uint32(p + 1), Name: fmt.Appendf(nil, "Process %d", p)})
		})
		world = append(world, uint32(p+1))
	}
	def(func(r *Record) { r.SetDefFunctionGroup(DefFunctionGroup{Group: 1, Name: []byte("Application")}) })
	def(func(r *Record) { r.SetDefFunctionGroup(DefFunctionGroup{Group: 2, Name: []byte("MPI")}) })
	for i, f := range funcs {
		g := uint32(1)
		if strings.HasPrefix(f, "MPI_") {
			g = 2
		}
		def(func(r *Record) { r.SetDefFunction(DefFunction{Function: uint32(i + 1), Group: g, Name: []byte(f)}) })
	}
	def(func(r *Record) {
		r.SetDefProcessGroup(DefProcessGroup{Group: 1000, Name: []byte("MPI_COMM_WORLD"), Members: world})
	})
}

// vtEvents writes, for n processes, a run in VampirTrace's style: every
// Leave names function 0. Each process enters main (1), then per step a
// recursion of solve (2) two or three deep with a compute (3) at the
// bottom, and an MPI_Send (4) to the next process or an MPI_Recv (5) from
// the previous one, then leaves main. Times are distinct across processes
// (the process index is the low digit of every time) so that no two
// streams tie.
func vtEvents(w func(*Record), n, steps int, skew func(p int) uint64) {
	type ev struct {
		t    uint64
		p    int
		kind Kind
		f    uint32
		peer uint32
	}
	var evs []ev
	for p := range n {
		t := uint64(1000 + p)
		add := func(dt uint64, k Kind, f, peer uint32) {
			t += dt * 16
			evs = append(evs, ev{t, p, k, f, peer})
		}
		add(0, KindEnter, 1, 0)
		for s := range steps {
			depth := 2 + (s+p)%2
			for range depth {
				add(3+uint64(s%5), KindEnter, 2, 0)
			}
			add(2, KindEnter, 3, 0)
			add(40+uint64((p*7+s*3)%23)+skew(p), KindLeave, 0, 0)
			for d := range depth {
				add(1+uint64(d), KindLeave, 0, 0)
			}
			if p%2 == 0 && p+1 < n {
				add(5, KindEnter, 4, 0)
				add(1, KindSend, 0, uint32(p+2))
				add(9, KindLeave, 0, 0)
			} else if p%2 == 1 {
				add(5, KindEnter, 5, 0)
				add(60, KindReceive, 0, uint32(p))
				add(2, KindLeave, 0, 0)
			}
		}
		add(7, KindLeave, 0, 0)
	}
	slices.SortStableFunc(evs, func(a, b ev) int {
		if a.t != b.t {
			if a.t < b.t {
				return -1
			}
			return 1
		}
		return 0
	})
	for _, e := range evs {
		var r Record
		r.Time, r.Process = e.t, uint32(e.p+1)
		switch e.kind {
		case KindEnter:
			r.SetEnter(Enter{Function: e.f})
		case KindLeave:
			r.SetLeave(Leave{})
		case KindSend:
			r.SetSend(Send{Receiver: e.peer, Length: 4096, Tag: 7, Communicator: 1000})
		case KindReceive:
			r.SetReceive(Receive{Sender: e.peer, Length: 4096, Tag: 7, Communicator: 1000})
		}
		w(&r)
	}
}

var vtFuncs = []string{"main", "solve", "compute", "MPI_Send", "MPI_Recv"}

func compatFixtures() []compatFixture {
	noSkew := func(int) uint64 { return 0 }
	return []compatFixture{
		{
			dir: "vt_leaves", stub: "vt", streams: 4,
			gen: func(w func(*Record)) {
				vtDefs(w, 4, vtFuncs)
				vtEvents(w, 4, 6, func(p int) uint64 { return uint64(p) * 3 })
			},
			goldens: map[string][]string{
				"golden_otfprint.txt":   {"otfprint", "$stub"},
				"golden_otfprofile.csv": {"otfprofile", "-i", "$stub", "--csv", "--notex", "-o", "golden_otfprofile"},
			},
		},
		{
			dir: "many_processes", stub: "many", streams: 1,
			gen: func(w func(*Record)) {
				vtDefs(w, 130, vtFuncs)
				vtEvents(w, 130, 2, noSkew)
			},
			goldens: map[string][]string{
				"golden_otfaux": {"otfaux", "-n", "7", "--thumbnail-samples", "200", "$stub"},
			},
		},
		{
			dir: "koi8_names", stub: "koi8", streams: 2,
			gen: func(w func(*Record)) {
				// "главная", "решить", "счёт" in KOI8-R.
				vtDefs(w, 2, []string{"\xc7\xcc\xc1\xd7\xce\xc1\xd1", "\xd2\xc5\xdb\xc9\xd4\xd8", "\xd3\xde\xa3\xd4", "MPI_Send", "MPI_Recv"})
				vtEvents(w, 2, 3, noSkew)
			},
			goldens: map[string][]string{
				"golden_otfprint.txt":   {"otfprint", "$stub"},
				"golden_otfprofile.csv": {"otfprofile", "-i", "$stub", "--csv", "--notex", "-o", "golden_otfprofile"},
			},
		},
		{
			dir: "leading_leave", stub: "lead", streams: 2,
			gen: func(w func(*Record)) {
				vtDefs(w, 2, vtFuncs)
				var r Record
				r.Time, r.Process = 500, 2
				r.SetLeave(Leave{})
				w(&r)
				vtEvents(w, 2, 3, noSkew)
			},
			goldens: map[string][]string{
				"golden_otfprint.txt":   {"otfprint", "$stub"},
				"golden_otfprofile.csv": {"otfprofile", "-i", "$stub", "--csv", "--notex", "-o", "golden_otfprofile"},
			},
			// otfprofile aborts on the leading Leave: its golden is the
			// profile of the trace without it.
			refGen: func(w func(*Record)) {
				vtDefs(w, 2, vtFuncs)
				vtEvents(w, 2, 3, noSkew)
			},
		},
		{
			// A Leave naming another function than the innermost open
			// one (solve instead of compute), as a tracer that renames a
			// task after its Enter writes (APEX does so in OTF2).
			dir: "renamed_leave", stub: "renamed", streams: 1,
			gen: func(w func(*Record)) {
				vtDefs(w, 1, vtFuncs)
				for _, e := range []struct {
					t     uint64
					enter bool
					f     uint32
				}{{100, true, 1}, {200, true, 3}, {300, false, 2}, {400, true, 3}, {500, false, 3}, {1000, false, 1}} {
					r := Record{Time: e.t, Process: 1}
					if e.enter {
						r.SetEnter(Enter{Function: e.f})
					} else {
						r.SetLeave(Leave{Function: e.f})
					}
					w(&r)
				}
			},
			goldens: map[string][]string{
				"golden_otfprint.txt":   {"otfprint", "$stub"},
				"golden_otfprofile.csv": {"otfprofile", "-i", "$stub", "--csv", "--notex", "-o", "golden_otfprofile"},
			},
		},
	}
}

// writeCompat writes the fixture's trace into a map of file names to
// contents.
func writeCompat(t *testing.T, f compatFixture, gen func(func(*Record))) map[string][]byte {
	t.Helper()
	files := map[string]*bytes.Buffer{}
	c := model.CreateFunc(func(name string) (io.WriteCloser, error) {
		b := &bytes.Buffer{}
		files[name] = b
		return nopCloser{b}, nil
	})
	var streams []Stream
	for s := range f.streams {
		streams = append(streams, Stream{ID: uint32(s + 1)})
	}
	// Processes go to the streams round robin, in definition order.
	n := 0
	gen(func(rec *Record) {
		if d, ok := rec.DefProcess(); ok {
			streams[n%len(streams)].Processes = append(streams[n%len(streams)].Processes, d.Process)
			n++
		}
	})
	w, err := NewTraceWriter(c, &TraceWriterOptions{Stub: f.stub, Streams: streams})
	if err != nil {
		t.Fatal(err)
	}
	gen(func(rec *Record) {
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for n, b := range files {
		out[n] = b.Bytes()
	}
	return out
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// TestCompatCorpus checks that every fixture of testdata/compat is what its
// generator writes, so that the README's description holds. With
// -update-compat it rewrites the fixtures and runs the reference tools for
// their goldens.
func TestCompatCorpus(t *testing.T) {
	for _, f := range compatFixtures() {
		t.Run(f.dir, func(t *testing.T) {
			files := writeCompat(t, f, f.gen)
			dir := filepath.Join("testdata", "compat", f.dir)
			if *updateCompat {
				updateCompatFixture(t, f, dir, files)
			}
			for name, want := range files {
				got, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s differs from what the generator writes (go test ./otf -run TestCompatCorpus -update-compat)", name)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
				t.Errorf("no README: %v", err)
			}
			// The trace reads back.
			tr, err := OpenFS(fstest.MapFS(mapFS(files)), f.stub+".otf", nil)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(collect(t, tr, nil)); n == 0 {
				t.Error("no events")
			}
		})
	}
}

func mapFS(files map[string][]byte) fstest.MapFS {
	m := fstest.MapFS{}
	for n, b := range files {
		m[n] = &fstest.MapFile{Data: b}
	}
	return m
}

func updateCompatFixture(t *testing.T, f compatFixture, dir string, files map[string][]byte) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for n, b := range files {
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for golden, args := range f.goldens {
		tmp := t.TempDir()
		ref := files
		if f.refGen != nil && args[0] != "otfprint" {
			ref = writeCompat(t, f, f.refGen)
		}
		for n, b := range ref {
			if err := os.WriteFile(filepath.Join(tmp, n), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		args = slices.Clone(args)
		for i := range args {
			args[i] = strings.ReplaceAll(args[i], "$stub", f.stub+".otf")
		}
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = tmp
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		switch args[0] {
		case "otfprint":
			err = os.WriteFile(filepath.Join(dir, golden), out, 0o644)
		case "otfprofile":
			var data []byte
			if data, err = os.ReadFile(filepath.Join(tmp, "golden_otfprofile.csv")); err == nil {
				err = os.WriteFile(filepath.Join(dir, golden), data, 0o644)
			}
		case "otfaux":
			// Keep what it adds: snapshots and the thumbnail.
			added, _ := filepath.Glob(filepath.Join(tmp, "*"))
			for _, a := range added {
				base := filepath.Base(a)
				if _, orig := files[base]; orig || strings.HasSuffix(base, ".def") {
					continue
				}
				data, err := os.ReadFile(a)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, golden+"."+strings.TrimPrefix(base, f.stub+".")), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}
