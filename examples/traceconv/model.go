package main

import (
	"io"

	"github.com/hpctrace/hpctrace"
	"github.com/hpctrace/hpctrace/dumpi"
	"github.com/hpctrace/hpctrace/model"
)

// A modelInput opens a fresh model source over the input and returns it
// with the function that closes what it opened. A conversion opens the
// input twice: once to learn the definitions and the time range, once to
// write the events.
type modelInput func() (model.Source, func() error, error)

// openModel opens the trace in through hpctrace.Open, which detects its
// format. For DUMPI input, the first source closed tells notes what it
// could not map (see dumpiNotes); later passes over the same input say
// nothing more. A nil notes says nothing.
func openModel(in string, notes io.Writer) modelInput {
	told := false
	return func() (model.Source, func() error, error) {
		t, err := hpctrace.Open(in, nil)
		if err != nil {
			return nil, nil, err
		}
		closeT := t.Close
		if ds, ok := t.Source().(*dumpi.ModelSource); ok {
			closeT = func() error {
				if !told && notes != nil {
					told = true
					dumpiNotes(notes, in, ds)
				}
				return t.Close()
			}
		}
		return t, closeT, nil
	}
}

// A scan is what a first pass over a model source learns: the complete
// definitions and the time range.
type scan struct {
	defs     *model.Defs
	events   int64
	min, max model.Time
}

// scanModel reads the input once.
func scanModel(in modelInput) (*scan, error) {
	src, closeSrc, err := in()
	if err != nil {
		return nil, err
	}
	defer closeSrc()
	sc := &scan{}
	for src.Next() {
		ev := src.Event()
		if sc.events == 0 || ev.Time < sc.min {
			sc.min = ev.Time
		}
		if sc.events == 0 || ev.Time > sc.max {
			sc.max = ev.Time
		}
		sc.events++
	}
	if err := src.Err(); err != nil {
		return nil, err
	}
	sc.defs = src.Defs()
	return sc, nil
}

// closeAll runs the first non-nil error of err and close().
func closeAll(err error, close func() error) error {
	if cerr := close(); err == nil {
		err = cerr
	}
	return err
}

// stacks tracks the open regions of every location, to name the region of
// a Leave that gives none (region 0, as an OTF LEAVE without a function).
type stacks [][]model.RegionID

func (s *stacks) of(l model.LocID) *[]model.RegionID {
	for int(l) >= len(*s) {
		*s = append(*s, nil)
	}
	return &(*s)[l]
}

func (s *stacks) enter(l model.LocID, r model.RegionID) {
	st := s.of(l)
	*st = append(*st, r)
}

// leave closes the innermost open instance of r (of any region when r is
// 0) and returns its region; it reports false when none is open.
func (s *stacks) leave(l model.LocID, r model.RegionID) (model.RegionID, bool) {
	st := s.of(l)
	for i := len(*st) - 1; i >= 0; i-- {
		if (*st)[i] == r || r == 0 {
			r = (*st)[i]
			*st = (*st)[:i]
			return r, true
		}
	}
	return r, false
}
