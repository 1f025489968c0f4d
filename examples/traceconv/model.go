package main

import (
	"io"
	"os"
	"strconv"

	"github.com/hpctrace/hpctrace"
	"github.com/hpctrace/hpctrace/examples/internal/progress"
	"github.com/hpctrace/hpctrace/model"
)

// A modelInput opens a fresh model source over the input and returns it
// with the function that closes what it opened. A conversion opens the
// input twice: once to learn the definitions and the time range, once to
// write the events.
type modelInput func() (model.Source, func() error, error)

// openModel opens the trace in through hpctrace.Open, which detects its
// format. Each pass shows its progress on stderr when it is a terminal;
// a pass after a complete one knows the number of events, so it also
// shows the share done and the time left. For input whose source reports
// on its communicators (model.CommReporter: DUMPI), the first source
// closed tells notes what it could not map (see commNotes); later passes
// over the same input say nothing more. A nil notes says nothing.
func openModel(in string, notes io.Writer) modelInput {
	var pass int
	var events int64 // of the last complete pass
	told := false
	return func() (model.Source, func() error, error) {
		t, err := hpctrace.Open(in, nil)
		if err != nil {
			return nil, nil, err
		}
		closeT := t.Close
		if cr, ok := t.Source().(model.CommReporter); ok {
			closeT = func() error {
				if !told && notes != nil {
					told = true
					commNotes(notes, in, cr.CommReport())
				}
				return t.Close()
			}
		}
		pass++
		m := progress.New(os.Stderr, in+" (pass "+itoa(pass)+")", "events")
		m.SetTotal(events)
		return &metered{Source: t, m: m, done: &events}, closeT, nil
	}
}

// metered counts the events of a source for a progress meter.
type metered struct {
	model.Source
	m    *progress.Meter
	n    int64
	done *int64 // set to n at a clean end
}

// Next advances the source and the meter.
func (s *metered) Next() bool {
	if s.Source.Next() {
		s.n++
		if s.n&0xffff == 0 {
			s.m.Update(s.n)
		}
		return true
	}
	if s.Source.Err() == nil {
		*s.done = s.n
	}
	s.m.Done(s.n)
	return false
}

func itoa(n int) string { return strconv.Itoa(n) }

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
