package main

import (
	"runtime"
	"strings"
	"testing"
)

// TestMemoryWarning: a trace whose locations need more than the memory
// available gets a warning that names the cause, the estimate and the
// options that bound it; one that fits, or an unknown limit, gets none.
func TestMemoryWarning(t *testing.T) {
	const gb = 1 << 30
	w := memoryWarning("big.otf2", 1_000_000, gb/2)
	for _, want := range []string{"big.otf2 has 1000000 locations", "about 8.6 GiB", "0.5 GiB of memory available", "-shard i/n -save", "-merge", "GOMEMLIMIT"} {
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
