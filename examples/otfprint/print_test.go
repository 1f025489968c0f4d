package main

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestNumberText: the record numbers and times, formatted from the digits
// of the one before, are those of strconv, whatever the sequence.
func TestNumberText(t *testing.T) {
	var c counter
	var tt timeText
	rng := rand.New(rand.NewPCG(1, 2))
	n, tm := uint64(0), uint64(0)
	for i := range 200000 {
		switch i % 1000 {
		case 0:
			n = rng.Uint64N(100000) // jumps, as with --num
		case 500:
			n = math.MaxUint64 - 3
		default:
			n++
		}
		switch rng.IntN(6) {
		case 0:
			tm = rng.Uint64()
		case 1:
			tm = rng.Uint64N(20000)
		case 2:
			tm = math.MaxUint64 - rng.Uint64N(3)
		default:
			tm += rng.Uint64N(3000)
		}
		if got, want := string(c.append([]byte("x"), n)), "x"+strconv.FormatUint(n, 10); got != want {
			t.Fatalf("record number %d: %q", n, got)
		}
		if got, want := string(tt.append([]byte("x"), tm)), "x"+strconv.FormatUint(tm, 10); got != want {
			t.Fatalf("time %d: %q", tm, got)
		}
	}
	for _, n := range []uint64{9, 10, 99, 100, 999999, 1000000} {
		c = counter{}
		c.append(nil, n-1)
		if got := string(c.append(nil, n)); got != strconv.FormatUint(n, 10) {
			t.Errorf("after %d: %q", n-1, got)
		}
	}
}
