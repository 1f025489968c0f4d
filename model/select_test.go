package model

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

func TestSelection(t *testing.T) {
	ev := func(l LocID, tm Time) *Event { return &Event{Loc: l, Time: tm} }
	var none *Selection
	if !none.Keep(ev(3, -5)) || !none.KeepsLocation(7) || none.Check() != nil {
		t.Error("a nil Selection must keep everything")
	}
	s := &Selection{Locations: Only(2, 4), Window: &Window{From: 10, To: 20}}
	for _, c := range []struct {
		ev   *Event
		want bool
	}{
		{ev(2, 10), true}, {ev(4, 19), true}, {ev(2, 20), false}, {ev(2, 9), false},
		{ev(3, 15), false}, {ev(0, 15), false},
	} {
		if got := s.Keep(c.ev); got != c.want {
			t.Errorf("Keep(loc %d, time %d) = %v, want %v", c.ev.Loc, c.ev.Time, got, c.want)
		}
	}
	if s.KeepsLocation(3) || !s.KeepsLocation(4) {
		t.Error("KeepsLocation disagrees with Only(2, 4)")
	}
	open := Window{From: math.MinInt64}
	if !open.Contains(-1) || !open.Contains(math.MaxInt64) {
		t.Error("a window with To == 0 has no end")
	}
	if (Window{From: 0}).Contains(-1) {
		t.Error("a window from 0 leaves out negative times")
	}
	for _, w := range []Window{{From: 5, To: 5}, {From: 6, To: 5}} {
		if w.Check() == nil || (&Selection{Window: &w}).Check() == nil {
			t.Errorf("window %v selects nothing: Check must say so", w)
		}
	}
	if (Window{From: 5, To: 6}).Check() != nil {
		t.Error("window [5, 6) is not empty")
	}
}

func TestDirCreator(t *testing.T) {
	dir := t.TempDir()
	var c Creator = DirCreator(dir)
	w, err := c.Create("traces/0.evt")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "traces", "0.evt")); err != nil || string(b) != "x" {
		t.Errorf("file = %q, %v", b, err)
	}
}

func TestSelectionIsZero(t *testing.T) {
	var none *Selection
	if !none.IsZero() || !(&Selection{}).IsZero() {
		t.Error("a nil or zero Selection selects everything")
	}
	if (&Selection{Locations: Only(1)}).IsZero() || (&Selection{Window: &Window{}}).IsZero() {
		t.Error("a Selection with a location filter or a window is not zero")
	}
}
