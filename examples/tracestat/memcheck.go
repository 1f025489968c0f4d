package main

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// locationBytes is the memory a run of tracestat holds per location of a
// trace at its peak (the statistics, Finalize's settled copy of them and
// the report's per-location rows, with the garbage collector's headroom),
// measured as peak RSS over locations on traces whose locations call two
// regions each (internal/benchtrace.Locations); a location that calls
// many regions costs more. It is an estimate, for a warning.
const locationBytes = 9 << 10

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
