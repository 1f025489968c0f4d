package model

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// A Window selects the events of a trace with From ≤ Time < To, in ticks
// of the trace's clock. To == 0 means no end; From has no such
// exception, so that a window from 0 leaves out the negative times some
// traces have (PICL's clock may start below 0): give math.MinInt64 for no
// start. [TimeBase.FromDuration] converts a duration to ticks.
//
// The rule is the same in every format's model source: the events of a
// window are those a read of the whole trace yields with
// From ≤ Time < To, in the same order and with the same values;
// definitions are not filtered. Each event is kept or dropped by its own
// time alone, so a region entered before From and left in the window
// gives its Leave without an Enter (resolved to its region as in the
// whole read), one entered in the window and left at To or later its
// Enter alone; a message or a collective whose other end lies outside the
// window appears by the end inside it. Nothing is synthesized at From or
// To. Each format's package says what a window costs there (which
// formats seek to From, which read from the start and filter) and any
// exception its records force.
type Window struct {
	From, To Time
}

// Contains reports whether t lies in the window.
func (w Window) Contains(t Time) bool {
	return t >= w.From && (w.To == 0 || t < w.To)
}

// Check returns an error for a window that selects nothing at all.
func (w Window) Check() error {
	if w.To != 0 && w.To <= w.From {
		return fmt.Errorf("model: window [%d, %d) is empty", w.From, w.To)
	}
	return nil
}

// A Selection chooses the part of a trace a model source yields: the
// events of some locations, in a time window. Every format's
// NewModelSource takes one in its options and honours it exactly: the
// source yields the events of the whole trace that Keep accepts, in the
// same order and with the same values, and no other. A zero Selection
// selects everything.
//
// The definitions are those of the whole trace whatever the selection,
// so that the sources of one trace's parts (its shards) agree on them.
// What a selection lets a source skip reading, rather than read and
// drop, depends on the format; each package says.
type Selection struct {
	// Locations, when not nil, accepts the locations whose events the
	// source yields ([Only] accepts a list).
	Locations func(LocID) bool
	// Window, when not nil, selects the events of a time interval.
	Window *Window
}

// Keep reports whether ev is selected. A nil Selection keeps every
// event.
func (s *Selection) Keep(ev *Event) bool {
	if s == nil {
		return true
	}
	if s.Window != nil && !s.Window.Contains(ev.Time) {
		return false
	}
	return s.Locations == nil || s.Locations(ev.Loc)
}

// IsZero reports whether s selects everything: no location filter and
// no window.
func (s *Selection) IsZero() bool {
	return s == nil || s.Locations == nil && s.Window == nil
}

// KeepsLocation reports whether the selection accepts location l (a
// source uses it to skip the files of locations it does not need).
func (s *Selection) KeepsLocation(l LocID) bool {
	return s == nil || s.Locations == nil || s.Locations(l)
}

// Check returns an error for a selection whose window is empty.
func (s *Selection) Check() error {
	if s == nil || s.Window == nil {
		return nil
	}
	return s.Window.Check()
}

// Only returns a location filter that accepts exactly ids.
func Only(ids ...LocID) func(LocID) bool {
	set := make(map[LocID]struct{}, len(ids))
	for _, id := range ids {
		set[id] = struct{}{}
	}
	return func(l LocID) bool {
		_, ok := set[l]
		return ok
	}
}

// A TimeSeeker is a source that can move to the first event at or after
// a time of its clock without reading what lies before it; the formats
// whose files are indexed by time implement it on their model sources.
type TimeSeeker interface {
	SeekTime(t Time) error
}

// A Creator creates the files of a trace that a writer of a format with
// several files (OTF, OTF2) writes. Names use '/' and may have a
// directory part ("traces/0.evt") that the Creator must make. A writer
// closes every file it created before its Close returns.
type Creator interface {
	Create(name string) (io.WriteCloser, error)
}

// CreateFunc adapts a function to the Creator interface, for example over
// an os.Root:
//
//	model.CreateFunc(func(name string) (io.WriteCloser, error) { return root.Create(name) })
type CreateFunc func(name string) (io.WriteCloser, error)

// Create calls f(name).
func (f CreateFunc) Create(name string) (io.WriteCloser, error) { return f(name) }

// DirCreator creates files under a directory of the operating system.
type DirCreator string

// Create creates name under the directory, making its parent directories.
func (d DirCreator) Create(name string) (io.WriteCloser, error) {
	p := filepath.Join(string(d), filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, err
	}
	return os.Create(p)
}
