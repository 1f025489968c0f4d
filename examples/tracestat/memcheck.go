package main

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hpctrace/hpctrace/stats"
)

// locationBytes is the memory a run of tracestat holds per location of a
// trace at its peak (the definitions, the statistics, the text report's
// rows, with the garbage collector's headroom), measured as peak RSS over
// locations on traces whose locations call two regions each
// (internal/benchtrace.Locations, 10^5 and 10^6 locations: 1.8 and 1.6
// KiB, the wait-state analysis on); a location that calls many regions
// costs more, and the JSON report, which builds every location's tables,
// two to three times as much. It is an estimate, for a warning.
const locationBytes = 2 << 10

// memoryWarning returns the warning for a trace whose locations, at
// locationBytes each, need more than avail bytes, or "" if they do not
// or avail is unknown (0).
func memoryWarning(name string, locs int, avail uint64) string {
	need := uint64(locs) * locationBytes
	if avail == 0 || need <= avail {
		return ""
	}
	return fmt.Sprintf("tracestat: warning: %s has %d locations: their statistics and report take about %s (about %d KiB a location), more than the %s of memory available; "+
		"if the run runs out of memory, profile the trace in shards (-shard i/n -save FILE: a shard holds the statistics of its locations only) "+
		"and merge their states (-merge) where more memory is available, or raise the memory limit (GOMEMLIMIT, the container's limit)\n",
		name, locs, gib(need), locationBytes>>10, gib(avail))
}

func gib(b uint64) string { return strconv.FormatFloat(float64(b)/(1<<30), 'f', 1, 64) + " GiB" }

// availableMemory returns the memory the process may still use: the
// least of the memory the system reports available, the room under the
// cgroup's limit and the Go memory limit (GOMEMLIMIT), or 0 if none is
// known.
func availableMemory() uint64 {
	var avail uint64
	least := func(v uint64) {
		if v > 0 && (avail == 0 || v < avail) {
			avail = v
		}
	}
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			if f := strings.Fields(sc.Text()); len(f) >= 2 && f[0] == "MemAvailable:" {
				if kb, err := strconv.ParseUint(f[1], 10, 64); err == nil {
					least(kb << 10)
				}
			}
		}
	}
	if max, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if limit, err := strconv.ParseUint(strings.TrimSpace(string(max)), 10, 64); err == nil {
			var used uint64
			if cur, err := os.ReadFile("/sys/fs/cgroup/memory.current"); err == nil {
				used, _ = strconv.ParseUint(strings.TrimSpace(string(cur)), 10, 64)
			}
			if limit > used {
				least(limit - used)
			}
		}
	}
	if l := debug.SetMemoryLimit(-1); l > 0 && l < math.MaxInt64 {
		least(uint64(l))
	}
	return avail
}

// A memLimit is a limit on the memory of the process, with what it
// bounds and how to measure that.
type memLimit struct {
	what  string        // the limit, for the message: "the address-space limit (ulimit -v)"
	limit uint64        // bytes
	used  func() uint64 // the bytes the limit bounds now; 0 if unknown
}

// memoryLimits returns the limits the process runs under: its
// address-space limit (ulimit -v, which the runtime's "fatal error: out of
// memory" meets), the room the cgroup leaves it, and the Go memory limit
// (GOMEMLIMIT, near which the garbage collector runs without pause).
func memoryLimits() []memLimit {
	var ls []memLimit
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &r); err == nil && r.Cur != math.MaxUint64 && r.Cur > 0 {
		ls = append(ls, memLimit{"the address-space limit (ulimit -v)", r.Cur, virtualSize})
	}
	if max, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if limit, err := strconv.ParseUint(strings.TrimSpace(string(max)), 10, 64); err == nil {
			var used uint64
			if cur, err := os.ReadFile("/sys/fs/cgroup/memory.current"); err == nil {
				used, _ = strconv.ParseUint(strings.TrimSpace(string(cur)), 10, 64)
			}
			if base := runtimeMetric("/memory/classes/total:bytes"); limit > used {
				// The room left now, plus what the runtime holds already.
				ls = append(ls, memLimit{"the container's memory limit", limit - used + base, func() uint64 { return runtimeMetric("/memory/classes/total:bytes") }})
			}
		}
	}
	if l := debug.SetMemoryLimit(-1); l > 0 && l < math.MaxInt64 {
		ls = append(ls, memLimit{"the Go memory limit (GOMEMLIMIT)", uint64(l), func() uint64 { return runtimeMetric("/gc/heap/live:bytes") }})
	}
	return ls
}

// virtualSize returns the process's virtual memory size (VmSize), which
// the address-space limit bounds, or 0 if unknown.
func virtualSize() uint64 {
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return 0
	}
	pages, err := strconv.ParseUint(f[0], 10, 64)
	if err != nil {
		return 0
	}
	return pages * uint64(os.Getpagesize())
}

// runtimeMetric returns a runtime/metrics value in bytes, or 0.
func runtimeMetric(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// guardPeriod is how often the guard looks at the memory in use.
const guardPeriod = 10 * time.Millisecond

// A memGuard watches the memory of the process under its limits while a
// trace is read and profiled. When one limit is nine tenths used, it
// calls fail with a message that names the cause (the trace's
// definitions while they are read, then its locations, at about
// locationBytes each) and the options that bound it, before the runtime
// meets the limit itself and dies with a bare "out of memory" and a dump
// of every goroutine (or, at the Go memory limit, collects garbage
// without end). fail must not return (tracestat exits).
//
// Once soften is called, and unless the user set a Go memory limit
// (GOMEMLIMIT), the guard also keeps a soft Go memory limit near the live
// heap (softLimit): the garbage collector then collects before the heap
// doubles and returns what it frees to the system, so that the memory a
// run of many locations takes stays near what it holds, not twice that.
type memGuard struct {
	name string
	locs atomic.Int64 // the trace's locations; 0 while its definitions are read
	soft atomic.Bool  // keep the soft memory limit
	stop func()       // waits until the guard has stopped; may be called again
	// check compares the memory in use with the limits, calling fail
	// if one is nine tenths used.
	check func()
}

// softLimit is the soft Go memory limit the guard keeps for a live heap
// of live bytes: half as much again, and 64 MiB.
func softLimit(live uint64) int64 { return int64(live + live/2 + 64<<20) }

// startGuard starts the guard of the trace name, before it is opened:
// reading the definitions of a trace of many locations (its locations'
// and regions' names and ids) takes memory in proportion too.
func startGuard(name string, limits []memLimit, fail func(msg string)) *memGuard {
	g := &memGuard{name: name}
	g.check = func() {
		for _, l := range limits {
			if u := l.used(); u > l.limit/10*9 {
				fail(memoryExhausted(name, int(g.locs.Load()), l.what, u, l.limit))
			}
		}
	}
	user := debug.SetMemoryLimit(-1) // the user's, or math.MaxInt64
	var once sync.Once
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(guardPeriod)
		defer tick.Stop()
		set := user // the limit in force
		defer func() {
			if set != user {
				debug.SetMemoryLimit(user)
			}
		}()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			if user == math.MaxInt64 && g.soft.Load() {
				if l := softLimit(runtimeMetric("/gc/heap/live:bytes")); l != set {
					debug.SetMemoryLimit(l)
					set = l
				}
			}
			g.check()
		}
	}()
	g.stop = func() { once.Do(func() { close(done); <-stopped }) }
	return g
}

// setLocations tells the guard the number of locations of the trace,
// once its definitions are read. It first looks at the memory itself: a
// limit crossed while the definitions were read, between two of the
// guard's looks, is blamed on them, not on the locations' statistics.
func (g *memGuard) setLocations(n int) {
	g.check()
	g.locs.Store(int64(n))
}

// soften starts the soft memory limit; stop ends it, restoring the limit
// before.
func (g *memGuard) soften() { g.soft.Store(true) }

// memoryExhausted is the guard's message: used bytes of the limit what
// (limit bytes) are taken, by a trace of locs locations, or, with locs 0,
// while its definitions are read.
func memoryExhausted(name string, locs int, what string, used, limit uint64) string {
	const shards = "Profile the trace in shards (-shard i/n -save FILE: a shard holds the statistics of its locations only) " +
		"and merge their states (-merge) where more memory is available, or raise the limit\n"
	if locs == 0 {
		return fmt.Sprintf("tracestat: out of memory: reading the definitions of %s (the names and ids of its locations and regions, which every shard reads too): "+
			"%s of %s is used, over nine tenths of %s. The trace defines more locations or regions than fit. "+shards,
			name, stats.FormatBytes(int64(used)), stats.FormatBytes(int64(limit)), what)
	}
	return fmt.Sprintf("tracestat: out of memory: %s has %d locations, whose statistics and report take about %d KiB each (%s in all); "+
		"%s of %s is used, over nine tenths of %s. "+shards,
		name, locs, locationBytes>>10, stats.FormatBytes(int64(locs)*locationBytes), stats.FormatBytes(int64(used)), stats.FormatBytes(int64(limit)), what)
}
