//go:build linux

package hostile_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bin is the directory of the programs built by TestMain.
var bin string

var programs = []string{"traceconv", "tracestat", "otfprint", "otfaux", "picldump", "dumpi2ascii"}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "hostile-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = dir
	args := []string{"build", "-o", dir + string(filepath.Separator)}
	for _, p := range programs {
		args = append(args, "../"+p)
	}
	if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// budget is the most a case may cost. The time is CPU time (user and
// system) of the program, not wall-clock time, so that a busy machine
// does not make a case fail: the budgets are set to separate the linear
// cost of the fixed program from the quadratic or claim-driven cost of
// the bug it guards against by a wide margin.
type budget struct {
	cpu time.Duration
	rss int64 // bytes
}

const mb = 1 << 20

// small is the budget of every case not in the package's table.
var small = budget{2 * time.Second, 64 * mb}

// result is what a run produced.
type result struct {
	code   int
	stdout *capture
	stderr string
	wall   time.Duration
	cpu    time.Duration // user and system time of the program
	rss    int64         // bytes
}

// capture keeps the first 1 MiB written to it and counts the rest.
type capture struct {
	head bytes.Buffer
	n    int64
}

func (c *capture) Write(p []byte) (int, error) {
	if room := mb - c.head.Len(); room > 0 {
		c.head.Write(p[:min(room, len(p))])
	}
	c.n += int64(len(p))
	return len(p), nil
}

func (c *capture) String() string { return c.head.String() }

// run runs program prog with args in dir, its standard output captured
// or, if stdout is non-nil, written there.
func run(t *testing.T, dir string, stdout *os.File, prog string, args ...string) result {
	t.Helper()
	// A program that has not ended after this long hangs; the limit is
	// far above any budget, for a machine shared by many jobs.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bin, prog), args...)
	cmd.Dir = dir
	var r result
	r.stdout = new(capture)
	if stdout != nil {
		cmd.Stdout = stdout
	} else {
		cmd.Stdout = r.stdout
	}
	var errb capture
	cmd.Stderr = &errb
	start := time.Now()
	err := cmd.Run()
	r.wall = time.Since(start)
	r.stderr = errb.String()
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("%s %v: killed after %v (a hang)", prog, args, r.wall)
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatalf("%s %v: %v", prog, args, err)
	}
	r.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.rss = int64(ru.Maxrss) * 1024 // KiB on Linux
	}
	return r
}

// check verifies a result's exit status, standard error, cost and the
// absence of a crash, and logs the cost.
func check(t *testing.T, r result, wantCode int, b budget, stderrHas ...string) {
	t.Helper()
	t.Logf("exit %d, %.3f s CPU (%.3f s wall), peak RSS %.1f MB (budget %v CPU, %d MB)", r.code, r.cpu.Seconds(), r.wall.Seconds(), float64(r.rss)/mb, b.cpu, b.rss/mb)
	if r.code != wantCode {
		t.Errorf("exit status %d, want %d; stderr:\n%s", r.code, wantCode, r.stderr)
	}
	if strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "goroutine ") {
		t.Errorf("crashed:\n%s", r.stderr)
	}
	if wantCode != 0 && strings.TrimSpace(r.stderr) == "" {
		t.Error("failed without a message on stderr")
	}
	for _, s := range stderrHas {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("stderr lacks %q:\n%s", s, r.stderr)
		}
	}
	if r.cpu > b.cpu {
		t.Errorf("took %v of CPU time, budget %v", r.cpu, b.cpu)
	}
	if r.rss > b.rss {
		t.Errorf("peak RSS %d MB, budget %d MB", r.rss/mb, b.rss/mb)
	}
}

// listing describes a directory's files: name, size, modification time
// and, for files up to 1 MiB, their content digest.
func listing(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := make(map[string]string)
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		desc := fmt.Sprintf("%v %d %v", info.Mode(), info.Size(), info.ModTime().UnixNano())
		if info.Mode().IsRegular() && info.Size() <= mb {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			desc += fmt.Sprintf(" %x", hash(data))
		}
		m[rel] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func hash(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h
}

// unchanged fails if dir differs from the listing before.
func unchanged(t *testing.T, dir string, before map[string]string) {
	t.Helper()
	after := listing(t, dir)
	for k, v := range after {
		if w, ok := before[k]; !ok {
			t.Errorf("left behind: %s", k)
		} else if w != v {
			t.Errorf("changed: %s", k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			t.Errorf("removed: %s", k)
		}
	}
}

// write creates dir/name from a generator writing through a buffer, so
// that the test process never holds a large input in memory.
func write(t *testing.T, dir, name string, gen func(w *bufio.Writer)) string {
	t.Helper()
	p := filepath.Join(dir, name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 64<<10)
	gen(w)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// repeat writes n copies of c.
func repeat(w *bufio.Writer, c byte, n int) {
	chunk := bytes.Repeat([]byte{c}, 64<<10)
	for n > 0 {
		k := min(n, len(chunk))
		w.Write(chunk[:k])
		n -= k
	}
}

// copyFiles copies the named files of the repository directory src into dir.
func copyFiles(t *testing.T, dir, src string, names ...string) {
	t.Helper()
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(src, n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// damage rewrites dir/name through f.
func damage(t *testing.T, dir, name string, f func([]byte) []byte) {
	t.Helper()
	p := filepath.Join(dir, name)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, f(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

const jsonHead = `{"format":"trace-events-json/1","ticks_per_second":1000,`

// The fixtures the malformed cases start from.
const (
	otfDir   = "../../otf/testdata/minimal_ring_short"
	piclFile = "../../picl/testdata/appendix_a.trf"
	dumpiDir = "../../dumpi/testdata/minimal"
	dumpiRun = "dumpi-2026.11.22.01.38.03"
)

var otfFiles = []string{"mini.otf", "mini.0.def", "mini.1.events", "mini.2.events"}

// TestCost covers inputs whose cost used to be set by what they claim
// rather than by their size.
func TestCost(t *testing.T) {
	t.Run("tracestat/100k-functions", func(t *testing.T) {
		dir := t.TempDir()
		const n = 100_000
		write(t, dir, "wide.json", func(w *bufio.Writer) {
			w.WriteString(jsonHead + `"locations":[{"id":0,"name":"r0"}],"regions":[{"id":0,"name":"main","kind":"function"}`)
			for i := 1; i <= n; i++ {
				fmt.Fprintf(w, `,{"id":%d,"name":"f%d","kind":"function"}`, i, i)
			}
			w.WriteString(`],"events":[{"t":0,"loc":0,"kind":"enter","region":0}`)
			for i := 1; i <= n; i++ {
				fmt.Fprintf(w, `,{"t":%d,"loc":0,"kind":"enter","region":%d},{"t":%d,"loc":0,"kind":"leave","region":%d}`, 2*i-1, i, 2*i, i)
			}
			fmt.Fprintf(w, `,{"t":%d,"loc":0,"kind":"leave","region":0}]}`, 2*n+1)
		})
		r := run(t, dir, nil, "tracestat", "wide.json")
		check(t, r, 0, budget{20 * time.Second, 700 * mb})
		if !strings.Contains(r.stdout.String(), fmt.Sprintf("%d events", 2*n+2)) {
			t.Errorf("report lacks the event count:\n%.2000s", r.stdout)
		}
	})
	t.Run("tracestat/5000-locations-own-region", func(t *testing.T) {
		dir := t.TempDir()
		const n = 5000
		write(t, dir, "diag.json", func(w *bufio.Writer) {
			w.WriteString(jsonHead + `"locations":[`)
			for i := range n {
				if i > 0 {
					w.WriteByte(',')
				}
				fmt.Fprintf(w, `{"id":%d}`, i)
			}
			w.WriteString(`],"regions":[`)
			for i := range n {
				if i > 0 {
					w.WriteByte(',')
				}
				fmt.Fprintf(w, `{"id":%d,"name":"f%d","kind":"function"}`, i+1, i)
			}
			w.WriteString(`],"events":[`)
			for i := range n {
				if i > 0 {
					w.WriteByte(',')
				}
				fmt.Fprintf(w, `{"t":1,"loc":%d,"kind":"enter","region":%d},{"t":2,"loc":%d,"kind":"leave","region":%d}`, i, i+1, i, i+1)
			}
			w.WriteString(`]}`)
		})
		r := run(t, dir, nil, "tracestat", "diag.json")
		check(t, r, 0, budget{4 * time.Second, 250 * mb})
	})
	t.Run("100k-unmatched-leaves", func(t *testing.T) {
		dir := t.TempDir()
		unmatchedLeaves(t, dir, 100_000)
		// Each leave used to search the whole stack of open regions.
		// tracestat holds the wait-state analysis' stack and call paths
		// 100k deep besides.
		check(t, run(t, dir, nil, "tracestat", "unm.json"), 0, budget{3 * time.Second, 96 * mb})
		for _, args := range [][]string{
			{"traceconv", "-to", "otf", "-in", "unm.json", "-out", "out.otf"},
			{"traceconv", "-to", "json", "-in", "unm.json", "-out", "out.json"},
		} {
			check(t, run(t, dir, nil, args[0], args[1:]...), 0, budget{3 * time.Second, 64 * mb})
		}
	})
	t.Run("traceconv-picl/300k-unmatched-leaves", func(t *testing.T) {
		// picl.ModelWriter's leaves searched the whole stack too (100k:
		// 2.5 s); 300k makes the quadratic cost stand far above the budget.
		dir := t.TempDir()
		unmatchedLeaves(t, dir, 300_000)
		r := run(t, dir, nil, "traceconv", "-to", "picl", "-in", "unm.json", "-out", "out.trf")
		check(t, r, 0, budget{4 * time.Second, 64 * mb})
	})
	t.Run("tracestat/every-1-over-2^63", func(t *testing.T) {
		dir := t.TempDir()
		write(t, dir, "span.json", func(w *bufio.Writer) {
			w.WriteString(`{"format":"trace-events-json/1","events":[{"t":1,"loc":0,"kind":"enter","region":1},{"t":9223372036854775807,"loc":0,"kind":"leave","region":1}]}`)
		})
		r := run(t, dir, nil, "tracestat", "-every", "1", "span.json")
		check(t, r, 0, budget{time.Second, 64 * mb})
		if n := strings.Count(r.stdout.String(), "\nInterval ["); n == 0 || n > 4 {
			t.Errorf("%d intervals for 2 events, want 1 to 4:\n%s", n, r.stdout)
		}
	})
	t.Run("otfprint/time-on-128MB-line", func(t *testing.T) {
		dir := t.TempDir()
		longLineTrace(t, dir, 128<<20)
		r := run(t, dir, nil, "otfprint", "--time", "1", "2", "t.otf")
		check(t, r, 1, budget{time.Second, 64 * mb}, "t.1.events", "a line longer than ReaderOptions.MaxLine")
	})
	for _, tc := range []struct {
		name, before, after string
	}{
		{"name", `"regions":[{"id":1,"kind":"function","name":"`, `"}],"events":[]}`},
		{"marker", `"events":[{"t":1,"loc":0,"kind":"marker","text":"`, `"}]}`},
	} {
		t.Run("tracestat/json-64MB-"+tc.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "long.json", func(w *bufio.Writer) {
				w.WriteString(jsonHead + tc.before)
				repeat(w, 'x', 64<<20)
				w.WriteString(tc.after)
			})
			r := run(t, dir, nil, "tracestat", "long.json")
			check(t, r, 1, budget{time.Second, 64 * mb}, "long.json", "string longer than ReaderOptions.MaxString")
		})
	}
	t.Run("tracestat/json-2^20+1-open", func(t *testing.T) {
		dir := t.TempDir()
		write(t, dir, "deep.json", func(w *bufio.Writer) {
			w.WriteString(jsonHead + `"regions":[{"id":1,"name":"f","kind":"function"}],"events":[`)
			for i := range 1<<20 + 1 {
				if i > 0 {
					w.WriteByte(',')
				}
				fmt.Fprintf(w, `{"t":%d,"loc":0,"kind":"enter","region":1}`, i)
			}
			w.WriteString(`]}`)
		})
		// The budget holds, besides the statistics, the wait-state
		// analysis' stack and call-path tree 2^20 deep (waitstate: about
		// 100 bytes a level); a claim-driven allocation beyond MaxOpenRegions
		// would go far above it.
		r := run(t, dir, nil, "tracestat", "deep.json")
		check(t, r, 1, budget{8 * time.Second, 640 * mb}, "deep.json", "record 1048576", "MaxOpenRegions")
	})
}

// longLineTrace writes an OTF trace t.otf whose events file holds a line
// of n bytes after a time and a process line.
func longLineTrace(t *testing.T, dir string, n int) {
	write(t, dir, "t.otf", func(w *bufio.Writer) { w.WriteString("1:1\n") })
	write(t, dir, "t.0.def", func(w *bufio.Writer) { w.WriteString("DTR1\n") })
	write(t, dir, "t.1.events", func(w *bufio.Writer) {
		w.WriteString("\t1\n*1\n")
		repeat(w, 'x', n)
		w.WriteString("\n\t2\n")
	})
}

// TestErrors covers inputs whose errors must name the file and the cause.
func TestErrors(t *testing.T) {
	missing := func(t *testing.T) string {
		dir := t.TempDir()
		copyFiles(t, dir, otfDir, otfFiles...)
		if err := os.Remove(filepath.Join(dir, "mini.2.events")); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	t.Run("tracestat/otf-missing-stream", func(t *testing.T) {
		check(t, run(t, missing(t), nil, "tracestat", "mini.otf"), 1, small, "mini.otf: stream 2", "mini.2.events")
	})
	t.Run("otfprint/otf-missing-stream", func(t *testing.T) {
		check(t, run(t, missing(t), nil, "otfprint", "mini.otf"), 1, small, "mini.otf: stream 2", "mini.2.events")
	})
	t.Run("traceconv/otf-missing-stream", func(t *testing.T) {
		dir := missing(t)
		before := listing(t, dir)
		r := run(t, dir, nil, "traceconv", "-to", "json", "-in", "mini.otf", "-out", "out.json")
		check(t, r, 1, small, "mini.otf: stream 2")
		unchanged(t, dir, before)
	})
	t.Run("otfprint/otf-2MB-line", func(t *testing.T) {
		dir := t.TempDir()
		longLineTrace(t, dir, 2<<20)
		check(t, run(t, dir, nil, "otfprint", "t.otf"), 1, small, "t.1.events:3", "a line longer than ReaderOptions.MaxLine")
	})
	dup := func(t *testing.T) string {
		dir := t.TempDir()
		write(t, dir, "dup.json", func(w *bufio.Writer) {
			w.WriteString(jsonHead + `"events":[{"t":1,"loc":0,"kind":"enter","region":1,"region":2}]}`)
		})
		return dir
	}
	t.Run("tracestat/json-duplicate-key", func(t *testing.T) {
		check(t, run(t, dup(t), nil, "tracestat", "dup.json"), 1, small, "dup.json", `key "region" twice`)
	})
	t.Run("traceconv/json-duplicate-key", func(t *testing.T) {
		dir := dup(t)
		before := listing(t, dir)
		check(t, run(t, dir, nil, "traceconv", "-in", "dup.json", "-out", "out.json"), 1, small, `key "region" twice`)
		unchanged(t, dir, before)
	})
}

// TestMalformed runs every program on damaged inputs of its formats: each
// fails with a message after printing what it could read, within the small
// budget, and leaves nothing behind.
func TestMalformed(t *testing.T) {
	picl := func(f func([]byte) []byte) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			copyFiles(t, dir, filepath.Dir(piclFile), filepath.Base(piclFile))
			damage(t, dir, filepath.Base(piclFile), f)
		}
	}
	dumpi := func(f func([]byte) []byte) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			copyFiles(t, dir, dumpiDir, dumpiRun+".meta", dumpiRun+"-0000.bin", dumpiRun+"-0001.bin")
			damage(t, dir, dumpiRun+"-0000.bin", f)
		}
	}
	otf := func(name string, f func([]byte) []byte) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			copyFiles(t, dir, otfDir, otfFiles...)
			damage(t, dir, name, f)
		}
	}
	cut := func(n int) func([]byte) []byte { // keep n bytes (negative: drop -n)
		return func(b []byte) []byte {
			if n < 0 {
				return b[:len(b)+n]
			}
			return b[:n]
		}
	}
	garbage := func([]byte) []byte {
		b := make([]byte, 4096)
		x := uint32(1)
		for i := range b {
			x = x*1664525 + 1013904223
			b[i] = byte(x >> 24)
		}
		return b
	}
	bin0 := dumpiRun + "-0000.bin"
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string)
		prog  string
		args  []string
		says  []string
	}{
		{"picldump/picl-cut-mid-line", picl(cut(-7)), "picldump", []string{"appendix_a.trf"}, []string{"appendix_a.trf"}},
		{"picldump/picl-garbage", picl(garbage), "picldump", []string{"appendix_a.trf"}, []string{"appendix_a.trf"}},
		{"tracestat/picl-garbage", picl(garbage), "tracestat", []string{"appendix_a.trf"}, []string{"appendix_a.trf"}},
		{"traceconv/picl-cut-to-json", picl(cut(-7)), "traceconv", []string{"-to", "json", "-in", "appendix_a.trf", "-out", "out.json"}, []string{"appendix_a.trf"}},
		{"dumpi2ascii/dumpi-cut", dumpi(cut(-100)), "dumpi2ascii", []string{bin0}, []string{bin0}},
		{"dumpi2ascii/dumpi-garbage", dumpi(garbage), "dumpi2ascii", []string{bin0}, []string{bin0}},
		{"tracestat/dumpi-cut-run", dumpi(cut(-100)), "tracestat", []string{dumpiRun + ".meta"}, []string{bin0}},
		{"traceconv/dumpi-garbage-to-otf", dumpi(garbage), "traceconv", []string{"-to", "otf", "-in", bin0, "-out", "out.otf"}, []string{bin0}},
		{"otfprint/otf-events-cut", otf("mini.1.events", cut(-2)), "otfprint", []string{"mini.otf"}, []string{"mini.1.events"}},
		{"otfprint/otf-master-garbage", otf("mini.otf", garbage), "otfprint", []string{"mini.otf"}, []string{"mini.otf"}},
		{"otfaux/otf-events-garbage", otf("mini.2.events", garbage), "otfaux", []string{"mini.otf"}, []string{"mini.2.events"}},
		{"tracestat/otf-def-garbage", otf("mini.0.def", garbage), "tracestat", []string{"mini.otf"}, []string{"mini.0.def"}},
		{"tracestat/json-cut", func(t *testing.T, dir string) {
			write(t, dir, "cut.json", func(w *bufio.Writer) {
				w.WriteString(jsonHead + `"events":[{"t":1,"loc":0,"kind":"enter","region":1},{"t":2,"loc"`)
			})
		}, "tracestat", []string{"cut.json"}, []string{"cut.json", "record 1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.setup(t, dir)
			before := listing(t, dir)
			r := run(t, dir, nil, tc.prog, tc.args...)
			check(t, r, 1, small, tc.says...)
			unchanged(t, dir, before)
		})
	}
}

// TestOutputs checks that the programs never destroy or half-write files.
func TestOutputs(t *testing.T) {
	json := func(t *testing.T) string {
		dir := t.TempDir()
		write(t, dir, "in.json", func(w *bufio.Writer) {
			w.WriteString(jsonHead + `"locations":[{"id":0,"name":"r0"}],"regions":[{"id":1,"name":"main","kind":"function"}],` +
				`"events":[{"t":1,"loc":0,"kind":"enter","region":1},{"t":2,"loc":0,"kind":"leave","region":1}]}`)
		})
		return dir
	}
	t.Run("traceconv/in-is-out", func(t *testing.T) {
		dir := json(t)
		before := listing(t, dir)
		check(t, run(t, dir, nil, "traceconv", "-in", "in.json", "-out", "in.json"), 1, small, "in.json")
		check(t, run(t, dir, nil, "traceconv", "-force", "-in", "in.json", "-out", "./in.json"), 1, small, "in.json")
		unchanged(t, dir, before)
	})
	t.Run("traceconv/in-is-out-through-link", func(t *testing.T) {
		dir := json(t)
		if err := os.Symlink("in.json", filepath.Join(dir, "link.json")); err != nil {
			t.Fatal(err)
		}
		before := listing(t, dir)
		check(t, run(t, dir, nil, "traceconv", "-force", "-in", "in.json", "-out", "link.json"), 1, small, "link.json")
		unchanged(t, dir, before)
	})
	t.Run("traceconv/otf-out-over-input-trace", func(t *testing.T) {
		dir := t.TempDir()
		copyFiles(t, dir, otfDir, otfFiles...)
		before := listing(t, dir)
		// The stub "mini" names the input's own files.
		check(t, run(t, dir, nil, "traceconv", "-to", "otf", "-force", "-in", "mini.otf", "-out", "mini"), 1, small, "output is one of the input files")
		unchanged(t, dir, before)
	})
	t.Run("traceconv/dev-full", func(t *testing.T) {
		if _, err := os.Stat("/dev/full"); err != nil {
			t.Skip("no /dev/full")
		}
		dir := json(t)
		before := listing(t, dir)
		check(t, run(t, dir, nil, "traceconv", "-to", "picl", "-in", "in.json", "-out", "/dev/full"), 1, small)
		unchanged(t, dir, before)
		if _, err := os.Stat("/dev/full"); err != nil {
			t.Errorf("/dev/full: %v", err)
		}
	})
	t.Run("traceconv/failed-keeps-old-output", func(t *testing.T) {
		dir := json(t)
		damage(t, dir, "in.json", func(b []byte) []byte { return b[:len(b)-20] })
		write(t, dir, "out.trf", func(w *bufio.Writer) { w.WriteString("the user's file\n") })
		before := listing(t, dir)
		check(t, run(t, dir, nil, "traceconv", "-force", "-to", "picl", "-in", "in.json", "-out", "out.trf"), 1, small, "in.json")
		unchanged(t, dir, before)
	})
	t.Run("traceconv/existing-output-needs-force", func(t *testing.T) {
		dir := json(t)
		write(t, dir, "out.json", func(w *bufio.Writer) { w.WriteString("the user's file\n") })
		before := listing(t, dir)
		check(t, run(t, dir, nil, "traceconv", "-in", "in.json", "-out", "out.json"), 1, small, "out.json")
		unchanged(t, dir, before)
		check(t, run(t, dir, nil, "traceconv", "-force", "-in", "in.json", "-out", "out.json"), 0, small)
		data, err := os.ReadFile(filepath.Join(dir, "out.json"))
		if err != nil || !bytes.Contains(data, []byte("trace-events-json/1")) {
			t.Errorf("out.json after -force: %q, %v", data, err)
		}
	})
	devFull := func(t *testing.T, dir, prog string, args ...string) {
		f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
		if err != nil {
			t.Skip("no /dev/full")
		}
		defer f.Close()
		before := listing(t, dir)
		check(t, run(t, dir, f, prog, args...), 1, small)
		unchanged(t, dir, before)
	}
	t.Run("picldump/stdout-dev-full", func(t *testing.T) {
		dir := t.TempDir()
		copyFiles(t, dir, filepath.Dir(piclFile), filepath.Base(piclFile))
		devFull(t, dir, "picldump", "appendix_a.trf")
	})
	t.Run("tracestat/stdout-dev-full", func(t *testing.T) {
		devFull(t, json(t), "tracestat", "in.json")
	})
	t.Run("otfprint/stdout-dev-full", func(t *testing.T) {
		dir := t.TempDir()
		copyFiles(t, dir, otfDir, otfFiles...)
		devFull(t, dir, "otfprint", "mini.otf")
	})
	t.Run("dumpi2ascii/stdout-dev-full", func(t *testing.T) {
		dir := t.TempDir()
		copyFiles(t, dir, dumpiDir, dumpiRun+"-0000.bin")
		devFull(t, dir, "dumpi2ascii", dumpiRun+"-0000.bin")
	})
	t.Run("otfprint/o-is-trace-file", func(t *testing.T) {
		dir := t.TempDir()
		copyFiles(t, dir, otfDir, otfFiles...)
		before := listing(t, dir)
		check(t, run(t, dir, nil, "otfprint", "-o", "mini.0.def", "mini.otf"), 1, small, "mini.0.def")
		unchanged(t, dir, before)
	})
}

// unmatchedLeaves writes unm.json in dir: n Enters of region f on one
// location, then n Leaves of region g, which is never open.
func unmatchedLeaves(t *testing.T, dir string, n int) {
	t.Helper()
	write(t, dir, "unm.json", func(w *bufio.Writer) {
		w.WriteString(jsonHead + `"regions":[{"id":1,"name":"f","kind":"function"},{"id":2,"name":"g","kind":"function"}],"events":[`)
		for i := range n {
			fmt.Fprintf(w, `{"t":%d,"loc":0,"kind":"enter","region":1},`, i)
		}
		for i := range n {
			if i > 0 {
				w.WriteByte(',')
			}
			fmt.Fprintf(w, `{"t":%d,"loc":0,"kind":"leave","region":2}`, n+i)
		}
		w.WriteString(`]}`)
	})
}
