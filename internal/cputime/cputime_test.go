package cputime

import (
	"testing"
	"time"
)

// TestOf: busy work shows as CPU time, and sleeping does not.
func TestOf(t *testing.T) {
	if _, ok := Process(); !ok {
		t.Skip("no CPU clock on this system")
	}
	x := uint64(1)
	busy, _ := Of(func() {
		for start, _ := Process(); ; {
			for range 1 << 16 {
				x = x*6364136223846793005 + 1
			}
			if now, _ := Process(); now-start >= 50*time.Millisecond {
				return
			}
		}
	})
	if busy < 50*time.Millisecond {
		t.Errorf("busy loop: %v of CPU time, want at least 50ms", busy)
	}
	idle, _ := Of(func() { time.Sleep(200 * time.Millisecond) })
	if idle >= 100*time.Millisecond {
		t.Errorf("sleep of 200ms: %v of CPU time, want well under 100ms", idle)
	}
	_ = x
}
