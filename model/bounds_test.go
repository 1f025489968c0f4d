package model

import (
	"math"
	"testing"
)

func TestBounds(t *testing.T) {
	var b Bounds
	if b.Known || b.Len() != 0 || b.String() != "unknown" {
		t.Errorf("zero Bounds = %+v, Len %d, %q; want unknown", b, b.Len(), b.String())
	}
	for _, tm := range []Time{50, -20, 30, 70} {
		b.Add(tm)
	}
	if want := (Bounds{Start: -20, End: 70, Known: true}); b != want {
		t.Errorf("Add: %+v, want %+v", b, want)
	}
	if b.Len() != 90 || b.String() != "[-20, 70]" {
		t.Errorf("Len %d, String %q; want 90, [-20, 70]", b.Len(), b.String())
	}
	wide := Bounds{Start: math.MinInt64, End: math.MaxInt64, Known: true}
	if wide.Len() != math.MaxInt64 {
		t.Errorf("Len of %v = %d, want it saturated", wide, wide.Len())
	}
}
