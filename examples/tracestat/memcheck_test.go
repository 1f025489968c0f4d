package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hpctrace/hpctrace/internal/benchtrace"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf2"
)

// TestMemoryWarning: a trace whose locations need more than the memory
// available gets a warning that names the cause, the estimate and the
// options that bound it; one that fits, or an unknown limit, gets none.
func TestMemoryWarning(t *testing.T) {
	const gb = 1 << 30
	w := memoryWarning("big.otf2", 1_000_000, gb/2)
	for _, want := range []string{"big.otf2 has 1000000 locations", "about 1.9 GiB", "0.5 GiB of memory available", "-shard i/n -save", "-merge", "GOMEMLIMIT"} {
		if !strings.Contains(w, want) {
			t.Errorf("warning lacks %q:\n%s", want, w)
		}
	}
	if w := memoryWarning("small.otf2", 1000, gb/2); w != "" {
		t.Errorf("1000 locations in 0.5 GiB: %q, want no warning", w)
	}
	if w := memoryWarning("big.otf2", 1_000_000, 0); w != "" {
		t.Errorf("unknown memory: %q, want no warning", w)
	}
}

// TestAvailableMemory: on Linux the system says how much memory is
// available.
func TestAvailableMemory(t *testing.T) {
	a := availableMemory()
	if runtime.GOOS == "linux" && a == 0 {
		t.Error("no available memory found on Linux")
	}
	t.Logf("available: %s", gib(a))
}

// TestMemoryGuard runs tracestat, in a process of its own, on a trace of
// many locations under a Go memory limit far below what they need: it
// must end with status 1 and a message that names the cause and the
// options that bound it, not collect garbage without end or die with the
// runtime's dump of goroutines.
func TestMemoryGuard(t *testing.T) {
	if trace := os.Getenv("TRACESTAT_MEMGUARD_TRACE"); trace != "" {
		// The child: tracestat itself.
		if err := run([]string{trace}, io.Discard, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, "tracestat:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	trace := filepath.Join(t.TempDir(), "wide.json")
	f, err := os.Create(trace)
	if err != nil {
		t.Fatal(err)
	}
	if err := benchtrace.Locations(f, 30000); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestMemoryGuard$")
	cmd.Env = append(os.Environ(), "TRACESTAT_MEMGUARD_TRACE="+trace, "GOMEMLIMIT=16MiB")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("tracestat under GOMEMLIMIT=16MiB: %v, want exit status 1; stderr:\n%s", err, stderr.String())
	}
	msg := stderr.String()
	for _, want := range []string{"tracestat: out of memory: " + trace + " has 30000 locations", "the Go memory limit (GOMEMLIMIT)", "-shard i/n -save", "-merge"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "goroutine ") {
		t.Errorf("the runtime's dump, not only the message:\n%s", msg)
	}
}

// TestGuardMemoryLimits: the guard fails once a limit is nine tenths
// used, naming it, and not before; stop ends it.
func TestGuardMemoryLimits(t *testing.T) {
	var used atomic.Uint64
	failed := make(chan string, 1)
	g := startGuard("big.otf2", []memLimit{{"the address-space limit (ulimit -v)", 1000 << 20, func() uint64 { return used.Load() }}},
		func(msg string) {
			select {
			case failed <- msg:
			default:
			}
			runtime.Goexit() // tracestat exits here
		})
	defer g.stop()
	g.setLocations(1000)
	used.Store(890 << 20)
	time.Sleep(10 * guardPeriod)
	select {
	case msg := <-failed:
		t.Fatalf("failed at 89%%: %s", msg)
	default:
	}
	used.Store(910 << 20)
	msg := <-failed
	for _, want := range []string{"big.otf2 has 1000 locations", "910.0 MiB of 1000.0 MiB", "the address-space limit (ulimit -v)", "-shard i/n -save", "-merge"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
}

// TestMemoryGuardDefinitions runs tracestat, in a process of its own,
// under an address-space limit (ulimit -v, set by the child on itself)
// that its definitions do not fit in: the guard must already watch while
// the trace is opened and its definitions read, and end with status 1
// and a message that names that cause and the options, not the runtime's
// "fatal error: out of memory" and its dump of goroutines.
func TestMemoryGuardDefinitions(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the address space is measured from /proc/self/statm")
	}
	if raceEnabled {
		// The detector maps its shadow memory under the same limit, in
		// 32 MiB pieces, and exits (status 66) when one fails: the limit
		// then tests the detector, not tracestat. The test runs in every
		// build without it.
		t.Skip("ulimit -v limits the race detector's own shadow memory")
	}
	if memGuardChild() {
		return
	}
	trace := filepath.Join(t.TempDir(), "wide.json")
	f, err := os.Create(trace)
	if err != nil {
		t.Fatal(err)
	}
	// The definitions of 400,000 locations take over 100 MiB of heap,
	// more than the runtime reserves at a time (64 MiB arenas): the
	// address space grows while they are read whatever was reserved
	// before. (Those of 100,000 could fit in reserved space, and the
	// limit was then crossed only by the locations' statistics.)
	if err := benchtrace.Locations(f, 400000); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	checkGuardDefinitions(t, "^TestMemoryGuardDefinitions$", trace, "")
}

// TestMemoryGuardDefinitionsParallel: as TestMemoryGuardDefinitions, with
// -j 2 on an OTF2 archive of 200000 regions (whose definitions a
// parallel run reads before it shares the locations out): the guard watches from before the archive is opened, as the
// serial path's does.
func TestMemoryGuardDefinitionsParallel(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the address space is measured from /proc/self/statm")
	}
	if raceEnabled {
		// The detector maps its shadow memory under the same limit, in
		// 32 MiB pieces, and exits (status 66) when one fails: the limit
		// then tests the detector, not tracestat. The test runs in every
		// build without it.
		t.Skip("ulimit -v limits the race detector's own shadow memory")
	}
	if memGuardChild() {
		return
	}
	d := new(model.Defs)
	d.TimeBase.TicksPerSecond = 1e9
	for i := range 2 {
		d.AddLocation(model.Location{Name: "rank " + strconv.Itoa(i), Process: int32(i)})
	}
	for i := range 200000 {
		d.AddRegion(model.Region{Name: "f" + strconv.Itoa(i), Kind: model.RegionFunction})
	}
	dir := t.TempDir()
	w, err := otf2.NewModelWriter(model.DirCreator(dir), d, &otf2.ModelWriterOptions{WriterOptions: otf2.WriterOptions{Name: "wide"}})
	if err != nil {
		t.Fatal(err)
	}
	for l := range model.LocID(2) {
		for k, kind := range []model.Kind{model.KindEnter, model.KindLeave} {
			if err := w.Write(&model.Event{Time: model.Time(k + 1), Loc: l + 1, Kind: kind, Region: model.RegionID(l + 1)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	trace := filepath.Join(dir, "wide.otf2")
	if c := (&config{jobs: 2}); c.shardsFor(trace) != 2 {
		t.Fatalf("%s is not profiled in shards with -j 2", trace)
	}
	checkGuardDefinitions(t, "^TestMemoryGuardDefinitionsParallel$", trace, "-j=2")
}

// memGuardChild is the child of checkGuardDefinitions: tracestat itself,
// limited to nine tenths of the address space it has now plus 16 MiB,
// which the definitions of the traces of its callers take before any
// event is read. It exits; in the parent it returns false.
func memGuardChild() bool {
	trace := os.Getenv("TRACESTAT_MEMGUARD_DEFS")
	if trace == "" {
		return false
	}
	vs := virtualSize()
	limit := (vs + 16<<20) / 9 * 10
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
		fmt.Fprintln(os.Stderr, "setrlimit:", err)
		os.Exit(2)
	}
	args := []string{trace}
	if flag := os.Getenv("TRACESTAT_MEMGUARD_FLAG"); flag != "" {
		args = []string{flag, trace}
	}
	if err := run(args, io.Discard, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "tracestat:", err)
		os.Exit(1)
	}
	os.Exit(0)
	return true
}

// checkGuardDefinitions runs the test named by the pattern test in a
// child process, which runs tracestat with flag (if not "") on trace, and
// checks that it ends with the guard's message about the definitions.
func checkGuardDefinitions(t *testing.T, test, trace, flag string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", test)
	cmd.Env = append(os.Environ(), "TRACESTAT_MEMGUARD_DEFS="+trace, "TRACESTAT_MEMGUARD_FLAG="+flag)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("tracestat under ulimit -v: %v, want exit status 1; stderr:\n%s", err, stderr.String())
	}
	msg := stderr.String()
	for _, want := range []string{"tracestat: out of memory: reading the definitions of " + trace, "the address-space limit (ulimit -v)", "-shard i/n -save", "-merge"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "goroutine ") || strings.Contains(msg, "fatal error") {
		t.Errorf("the runtime's dump, not only the message:\n%s", msg)
	}
}

// TestSoftMemoryLimit: once softened, the guard keeps a Go memory limit
// near the live heap, unless the user set one, and stop restores the
// limit before.
func TestSoftMemoryLimit(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	g := startGuard("big.otf2", nil, func(msg string) { t.Errorf("failed: %s", msg) })
	if before != math.MaxInt64 {
		// GOMEMLIMIT is set: the user's limit stays.
		g.soften()
		time.Sleep(5 * guardPeriod)
		g.stop()
		if l := debug.SetMemoryLimit(-1); l != before {
			t.Errorf("limit %d with GOMEMLIMIT %d, want it kept", l, before)
		}
		return
	}
	time.Sleep(5 * guardPeriod)
	if l := debug.SetMemoryLimit(-1); l != before {
		g.stop()
		t.Fatalf("limit %d before soften, want %d", l, before)
	}
	g.soften()
	deadline := time.Now().Add(10 * time.Second)
	for debug.SetMemoryLimit(-1) == before && time.Now().Before(deadline) {
		time.Sleep(guardPeriod)
	}
	l := debug.SetMemoryLimit(-1)
	g.stop()
	if live := runtimeMetric("/gc/heap/live:bytes"); l == before || l < int64(live) || l > softLimit(live)+64<<20 {
		t.Errorf("soft limit %d with %d bytes live, want about %d", l, live, softLimit(live))
	}
	if l := debug.SetMemoryLimit(-1); l != before {
		t.Errorf("limit %d after stop, want %d restored", l, before)
	}
}
