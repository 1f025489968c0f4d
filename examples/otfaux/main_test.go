package main

import (
	"cmp"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf"
)

// copyTrace copies the files of a fixture whose names pass keep into a new
// temporary directory; DEFAUXSAMPLEPOINT lines are dropped from S.0.def.
func copyTrace(t *testing.T, fixture string, keep func(string) bool) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join("../../otf/testdata", fixture)
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		n := e.Name()
		if strings.HasPrefix(n, "golden") || !keep(n) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, n))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(n, ".0.def") {
			var kept []string
			for l := range strings.Lines(string(data)) {
				if !strings.HasPrefix(l, "DAUX") {
					kept = append(kept, l)
				}
			}
			data = []byte(strings.Join(kept, ""))
		}
		if err := os.WriteFile(filepath.Join(dir, n), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func traceFiles(n string) bool {
	return strings.HasSuffix(n, ".otf") || strings.HasSuffix(n, ".def") || strings.HasSuffix(n, ".events") ||
		strings.HasSuffix(n, ".marker")
}

func runArgs(t *testing.T, args ...string) {
	t.Helper()
	c, err := parseArgs(args)
	if err != nil {
		t.Fatal(err)
	}
	if err := run(c, io.Discard); err != nil {
		t.Fatalf("otfaux %v: %v", args, err)
	}
}

func sameFile(t *testing.T, got, want string) {
	t.Helper()
	g, err := os.ReadFile(got)
	if err != nil {
		t.Fatal(err)
	}
	w, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	if string(g) != string(w) {
		t.Errorf("%s differs from %s:\ngot\n%s\nwant\n%s", got, want, g, w)
	}
}

// TestFixture reruns `otfaux --all -n 4 -t 108500` on the otfaux_all trace
// and compares every file it writes with the reference's, byte for byte,
// the thumbnail included.
func TestFixture(t *testing.T) {
	dir := copyTrace(t, "otfaux_all", traceFiles)
	runArgs(t, "--all", "-n", "4", "-t", "108500", filepath.Join(dir, "aux.otf"))
	for _, n := range []string{"aux.0.def", "aux.1.snaps", "aux.2.snaps", "aux.1.stats", "aux.2.stats", "aux.thumb"} {
		sameFile(t, filepath.Join(dir, n), filepath.Join("../../otf/testdata/otfaux_all", n))
	}
	// A second run refuses to overwrite, -F overwrites, -R removes.
	c, _ := parseArgs([]string{"--all", filepath.Join(dir, "aux.otf")})
	if err := run(c, io.Discard); err == nil {
		t.Error("a second run overwrote the snapshot files without -F")
	}
	runArgs(t, "-R", filepath.Join(dir, "aux.otf"))
	if _, err := os.Stat(filepath.Join(dir, "aux.1.snaps")); err == nil {
		t.Error("-R left aux.1.snaps")
	}
}

func TestParseArgs(t *testing.T) {
	c, err := parseArgs([]string{"-p", "100", "-t", "5", "-t", "9", "--statistics", "x.otf"})
	if err != nil || c.period != 100 || len(c.times) != 2 || c.snaps || !c.stats || c.n != 0 {
		t.Errorf("parseArgs: %+v, %v", c, err)
	}
	if c, err := parseArgs([]string{"x.otf"}); err != nil || c.n != 200 || !c.snaps || c.stats {
		t.Errorf("defaults: %+v, %v", c, err)
	}
	for _, bad := range [][]string{{}, {"-n", "1", "x.otf"}, {"--thumbnail-procs", "0", "x.otf"}, {"--bogus", "x.otf"}, {"-n"}, {"a.otf", "b.otf"}} {
		if _, err := parseArgs(bad); err == nil {
			t.Errorf("parseArgs(%q): no error", bad)
		}
	}
}

// TestReference compares with the reference otfaux (skipped when it is not
// installed) on the all_records_short trace, which has file operations,
// begin/end collectives and file operations, counters, key-values and
// messages, for several option sets: the snapshot and statistics files and
// the DEFAUXSAMPLEPOINT records must be the same.
func TestReference(t *testing.T) {
	ref, err := exec.LookPath("otfaux")
	if err != nil {
		t.Skip("reference otfaux not installed")
	}
	for _, opts := range [][]string{
		{"--all", "-n", "5"},
		{"--all", "-n", "7", "--funcgroups", "--filegroups"},
		{"--statistics", "-p", "500", "-t", "3000"},
		{"--snapshots", "-n", "3"},
		{"--thumbnail", "--thumbnail-samples", "500"},
		{"--all", "-n", "4", "--thumbnail-procs", "2"},
		{"--thumbnail", "--thumbnail-procs", "1"},
	} {
		t.Run(strings.Join(opts, " "), func(t *testing.T) {
			keep := traceFiles
			theirs := copyTrace(t, "all_records_short", keep)
			ours := copyTrace(t, "all_records_short", keep)
			cmd := exec.Command(ref, append(opts, "allrec.otf")...)
			cmd.Dir = theirs
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("reference otfaux: %v\n%s", err, out)
			}
			runArgs(t, append(opts, filepath.Join(ours, "allrec.otf"))...)
			for _, id := range []string{"1", "2", "3"} {
				for _, ext := range []string{"snaps", "stats"} {
					n := "allrec." + id + "." + ext
					_, e1 := os.Stat(filepath.Join(theirs, n))
					_, e2 := os.Stat(filepath.Join(ours, n))
					if (e1 == nil) != (e2 == nil) {
						t.Errorf("%s: reference wrote it: %v, we did: %v", n, e1 == nil, e2 == nil)
						continue
					}
					if e1 == nil {
						sameFile(t, filepath.Join(ours, n), filepath.Join(theirs, n))
					}
				}
			}
			if _, err := os.Stat(filepath.Join(theirs, "allrec.thumb")); err == nil {
				sameFile(t, filepath.Join(ours, "allrec.thumb"), filepath.Join(theirs, "allrec.thumb"))
			} else if _, err := os.Stat(filepath.Join(ours, "allrec.thumb")); err == nil {
				t.Error("we wrote a thumbnail, the reference did not")
			}
			if opts[0] == "--thumbnail" {
				if _, err := os.Stat(filepath.Join(theirs, "allrec.thumb")); err != nil {
					t.Fatalf("the reference wrote no thumbnail: %v", err)
				}
				return
			}
			daux := func(dir string) string {
				data, err := os.ReadFile(filepath.Join(dir, "allrec.0.def"))
				if err != nil {
					t.Fatal(err)
				}
				var out []string
				for l := range strings.Lines(string(data)) {
					if strings.HasPrefix(l, "DAUX") {
						out = append(out, l)
					}
				}
				return strings.Join(out, "")
			}
			if g, w := daux(ours), daux(theirs); g != w || g == "" {
				t.Errorf("DEFAUXSAMPLEPOINT records:\ngot\n%s\nwant\n%s", g, w)
			}
		})
	}
}

// TestCompatManyProcesses reruns `otfaux -n 7 --thumbnail-samples 200` on
// the single-stream trace of 130 processes and compares the snapshots and
// the thumbnail with the reference's, byte for byte: with this many
// processes the reference's process table has collisions, and the order
// of a break's processes follows the order the reference met them.
func TestCompatManyProcesses(t *testing.T) {
	dir := copyTrace(t, "compat/many_processes", traceFiles)
	runArgs(t, "-n", "7", "--thumbnail-samples", "200", filepath.Join(dir, "many.otf"))
	for _, n := range []string{"1.snaps", "thumb"} {
		sameFile(t, filepath.Join(dir, "many."+n), filepath.Join("../../otf/testdata/compat/many_processes", "golden_otfaux."+n))
	}
}

// TestReferenceManyProcesses compares with the reference otfaux (skipped
// when it is not installed) on traces of 600 processes (more than the
// reference's 512 thumbnail processes) in one and in three streams, with
// messages, some never received: snapshots and thumbnails must be the
// same.
func TestReferenceManyProcesses(t *testing.T) {
	ref, err := exec.LookPath("otfaux")
	if err != nil {
		t.Skip("reference otfaux not installed")
	}
	for _, streams := range []int{1, 3} {
		t.Run(strconv.Itoa(streams), func(t *testing.T) {
			theirs, ours := t.TempDir(), t.TempDir()
			writeManyProcesses(t, theirs, 600, streams)
			writeManyProcesses(t, ours, 600, streams)
			cmd := exec.Command(ref, "--all", "-n", "9", "m.otf")
			cmd.Dir = theirs
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("reference otfaux: %v\n%s", err, out)
			}
			runArgs(t, "--all", "-n", "9", filepath.Join(ours, "m.otf"))
			names := []string{"m.thumb"}
			for s := 1; s <= streams; s++ {
				names = append(names, fmt.Sprintf("m.%d.snaps", s), fmt.Sprintf("m.%d.stats", s))
			}
			for _, n := range names {
				sameFile(t, filepath.Join(ours, n), filepath.Join(theirs, n))
			}
		})
	}
}

// writeManyProcesses writes dir/m.otf: n processes defined in a shuffled
// order, assigned to the streams in another, random nesting of 4
// functions with Leaves of function 0, and messages, a fifth of them
// never received; about four records a tick.
func writeManyProcesses(t *testing.T, dir string, n, streams int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	ss := make([]otf.Stream, streams)
	for i := range ss {
		ss[i].ID = uint32(i + 1)
	}
	for i, p := range rng.Perm(n) {
		ss[i%streams].Processes = append(ss[i%streams].Processes, uint32(p+1))
	}
	w, err := otf.NewTraceWriter(model.CreateFunc(func(name string) (io.WriteCloser, error) {
		return os.Create(filepath.Join(dir, name))
	}), &otf.TraceWriterOptions{Stub: "m", Streams: ss})
	if err != nil {
		t.Fatal(err)
	}
	write := func(set func(*otf.Record)) {
		var r otf.Record
		set(&r)
		if err := w.Write(&r); err != nil {
			t.Fatal(err)
		}
	}
	write(func(r *otf.Record) { r.SetDefTimerResolution(otf.DefTimerResolution{TicksPerSecond: 1000000}) })
	for _, p := range rng.Perm(n) {
		write(func(r *otf.Record) {
			r.SetDefProcess(otf.DefProcess{Process: uint32(p + 1), Name: fmt.Appendf(nil, "Process %d", p)})
		})
	}
	for f := uint32(1); f <= 4; f++ {
		write(func(r *otf.Record) { r.SetDefFunction(otf.DefFunction{Function: f, Name: fmt.Appendf(nil, "f%d", f)}) })
	}
	type msg struct {
		t        uint64
		from, to uint32
	}
	var pending []msg
	depth := make([]int, n)
	end := 100 + uint64(n)*20
	// Every process starts at time 100, so that the reference meets the
	// processes it did not declare for its thumbnail in the order of its
	// merge among equal times.
	for p := range n {
		write(func(r *otf.Record) { r.Time, r.Process = 100, uint32(p+1); r.SetEnter(otf.Enter{Function: 1}) })
		depth[p]++
	}
	for i := range 4 * (end - 100) {
		tm := 100 + i/4 // four records a tick: ties across streams
		for len(pending) > 0 && pending[0].t <= tm {
			m := pending[0]
			pending = pending[1:]
			write(func(r *otf.Record) {
				r.Time, r.Process = tm, m.to
				r.SetReceive(otf.Receive{Sender: m.from, Length: 8, Tag: 1})
			})
		}
		p := rng.IntN(n)
		switch {
		case rng.IntN(8) == 0:
			q := uint32(rng.IntN(n) + 1)
			write(func(r *otf.Record) {
				r.Time, r.Process = tm, uint32(p+1)
				r.SetSend(otf.Send{Receiver: q, Length: 8, Tag: 1})
			})
			if rng.IntN(5) > 0 {
				m := msg{tm + uint64(rng.IntN(30)+1), uint32(p + 1), q}
				i, _ := slices.BinarySearchFunc(pending, m.t+1, func(a msg, t uint64) int { return cmp.Compare(a.t, t) })
				pending = slices.Insert(pending, i, m)
			}
		case depth[p] == 0 || depth[p] < 4 && rng.IntN(2) == 0:
			f := uint32(rng.IntN(4) + 1)
			write(func(r *otf.Record) { r.Time, r.Process = tm, uint32(p+1); r.SetEnter(otf.Enter{Function: f}) })
			depth[p]++
		default:
			write(func(r *otf.Record) { r.Time, r.Process = tm, uint32(p+1); r.SetLeave(otf.Leave{}) })
			depth[p]--
		}
	}
	for p := range depth {
		for ; depth[p] > 0; depth[p]-- {
			write(func(r *otf.Record) { r.Time, r.Process = end, uint32(p+1); r.SetLeave(otf.Leave{}) })
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestReferenceCompat compares with the reference otfaux (skipped when it
// is not installed) on the compat fixtures it can read, whose Leaves all
// name function 0 as VampirTrace writes them: snapshots (the stack of
// each process), summaries (exclusive and inclusive times) and the
// thumbnail must be the same. (The reference aborts on the fixture whose
// process starts with a Leave.)
func TestReferenceCompat(t *testing.T) {
	ref, err := exec.LookPath("otfaux")
	if err != nil {
		t.Skip("reference otfaux not installed")
	}
	for _, fx := range []string{"vt_leaves", "koi8_names", "many_processes"} {
		t.Run(fx, func(t *testing.T) {
			theirs := copyTrace(t, "compat/"+fx, traceFiles)
			ours := copyTrace(t, "compat/"+fx, traceFiles)
			masters, _ := filepath.Glob(filepath.Join(theirs, "*.otf"))
			master := filepath.Base(masters[0])
			stub := strings.TrimSuffix(master, ".otf")
			cmd := exec.Command(ref, "--all", "-n", "6", master)
			cmd.Dir = theirs
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("reference otfaux: %v\n%s", err, out)
			}
			runArgs(t, "--all", "-n", "6", filepath.Join(ours, master))
			files, _ := filepath.Glob(filepath.Join(theirs, stub+".*"))
			n := 0
			for _, f := range files {
				base := filepath.Base(f)
				if strings.HasSuffix(base, ".snaps") || strings.HasSuffix(base, ".stats") || strings.HasSuffix(base, ".thumb") {
					sameFile(t, filepath.Join(ours, base), f)
					n++
				}
			}
			if n < 3 {
				t.Errorf("compared %d files", n)
			}
		})
	}
}

// TestLeadingLeave: on a trace whose process starts with a Leave and no
// Enter (the reference otfaux aborts on it), otfaux ignores that Leave,
// says so with a count, and writes the snapshots and summaries of the
// rest.
func TestLeadingLeave(t *testing.T) {
	dir := copyTrace(t, "compat/leading_leave", traceFiles)
	c, err := parseArgs([]string{"--all", "-n", "4", filepath.Join(dir, "lead.otf")})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := run(c, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "WARNING: 1 Leave records") {
		t.Errorf("output %q does not report the stray Leave", out.String())
	}
	for _, n := range []string{"lead.1.snaps", "lead.2.stats"} {
		if fi, err := os.Stat(filepath.Join(dir, n)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", n, err)
		}
	}
}

// TestReferenceTie compares with the reference otfaux (skipped when it is
// not installed) where its order depends on its merge among equal times:
// senders 0x57 and 0x123 share a bucket of its process table and stream
// 1; their receives, in streams 2 and 3, have the same time, and the
// reference meets the senders in the order it reads those receives.
func TestReferenceTie(t *testing.T) {
	ref, err := exec.LookPath("otfaux")
	if err != nil {
		t.Skip("reference otfaux not installed")
	}
	write := func(dir string) {
		w, err := otf.NewTraceWriter(model.CreateFunc(func(name string) (io.WriteCloser, error) {
			return os.Create(filepath.Join(dir, name))
		}), &otf.TraceWriterOptions{Stub: "tie", Streams: []otf.Stream{
			{ID: 1, Processes: []uint32{0x57, 0x123}}, {ID: 2, Processes: []uint32{9}}, {ID: 3, Processes: []uint32{8}}}})
		if err != nil {
			t.Fatal(err)
		}
		rec := func(tm uint64, p uint32, set func(*otf.Record)) {
			r := &otf.Record{Time: tm, Process: p}
			set(r)
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		for _, p := range []uint32{0x57, 0x123, 8, 9} {
			rec(0, 0, func(r *otf.Record) { r.SetDefProcess(otf.DefProcess{Process: p, Name: []byte("p")}) })
		}
		rec(5, 0x57, func(r *otf.Record) { r.SetSend(otf.Send{Receiver: 8, Length: 4}) })
		rec(5, 0x123, func(r *otf.Record) { r.SetSend(otf.Send{Receiver: 9, Length: 4}) })
		rec(10, 9, func(r *otf.Record) { r.SetReceive(otf.Receive{Sender: 0x123, Length: 4}) })
		rec(10, 8, func(r *otf.Record) { r.SetReceive(otf.Receive{Sender: 0x57, Length: 4}) })
		rec(12, 0x57, func(r *otf.Record) { r.SetEnter(otf.Enter{Function: 1}) })
		rec(12, 0x123, func(r *otf.Record) { r.SetEnter(otf.Enter{Function: 1}) })
		rec(20, 0x57, func(r *otf.Record) { r.SetLeave(otf.Leave{}) })
		rec(20, 0x123, func(r *otf.Record) { r.SetLeave(otf.Leave{}) })
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	theirs, ours := t.TempDir(), t.TempDir()
	write(theirs)
	write(ours)
	args := []string{"--snapshots", "-t", "15", "-t", "21"}
	cmd := exec.Command(ref, append(args, "tie.otf")...)
	cmd.Dir = theirs
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("reference otfaux: %v\n%s", err, out)
	}
	runArgs(t, append(args, filepath.Join(ours, "tie.otf"))...)
	for _, n := range []string{"tie.1.snaps", "tie.thumb"} {
		sameFile(t, filepath.Join(ours, n), filepath.Join(theirs, n))
	}
}
