package hpctrace

import (
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/hpctrace/hpctrace/model"
)

// An Interval is a time window of a trace given as durations from its
// start, as a person gives one: the first 10 ms are
// Interval{To: 10 * time.Millisecond}, 2 s to 3 s
// Interval{From: 2 * time.Second, To: 3 * time.Second}. A negative
// duration counts back from the trace's end: the last 10 ms are
// Interval{From: -10 * time.Millisecond}. To == 0 means the end of the
// trace (there is no "0 before the end"), so the zero Interval is the
// whole trace.
//
// The start and the end are the trace's [model.Bounds]: the times of its
// first and its last event, or those its format records (OTF2's clock
// properties). [Interval.Window] converts an Interval to the
// [model.Window] in ticks that it stands for; Options.Interval and
// [Trace.Window] do it with the trace's bounds and clock.
type Interval struct {
	From, To time.Duration
}

// String returns the interval as "[From, To)" with Go durations, To
// "end" when it is 0: "[2s, 3s)", "[-10ms, end)".
func (iv Interval) String() string {
	to := "end"
	if iv.To != 0 {
		to = iv.To.String()
	}
	return "[" + iv.From.String() + ", " + to + ")"
}

// Window returns the window in ticks that iv stands for on a trace of
// clock tb and bounds b: a duration d ≥ 0 is the time b.Start + d, a
// negative one b.End + d (b.End is the time of the last event, so
// From = -10ms keeps the events of the last 10 ms and the last one),
// each converted with [model.TimeBase.FromDuration] (to the nearest
// tick) and the sum saturating at the int64 range; To == 0 gives a
// window with no end, which keeps the last event. A From before the
// trace's start selects from its start.
//
// It returns an error when b is not known, and when the window selects
// nothing for certain, judged by b: To not after From once converted
// (Interval{From: 3 * time.Second, To: 2 * time.Second}, or From: -5ms
// and To: 2ms on a trace of 10 ms), From after the trace's end, or To at
// or before its start. It also refuses a window whose end falls on
// tick 0, which a model.Window cannot express (its To == 0 means no end);
// that needs a trace with negative times, as PICL's may be.
func (iv Interval) Window(tb model.TimeBase, b model.Bounds) (model.Window, error) {
	if !b.Known {
		return model.Window{}, fmt.Errorf("hpctrace: interval %v: the trace's bounds are unknown", iv)
	}
	at := func(d time.Duration) model.Time {
		if d < 0 {
			return addTime(b.End, tb.FromDuration(d))
		}
		return addTime(b.Start, tb.FromDuration(d))
	}
	w := model.Window{From: at(iv.From)}
	if iv.To != 0 {
		w.To = at(iv.To)
		if w.To == 0 {
			return model.Window{}, fmt.Errorf("hpctrace: interval %v ends at tick 0, which a model.Window cannot express (To == 0 means no end)", iv)
		}
		if w.To <= w.From {
			return model.Window{}, fmt.Errorf("hpctrace: interval %v is empty: ticks [%d, %d)", iv, w.From, w.To)
		}
		if w.To <= b.Start {
			return model.Window{}, fmt.Errorf("hpctrace: interval %v ends at tick %d, at or before the trace's start (tick %d)", iv, w.To, b.Start)
		}
	}
	if w.From > b.End {
		return model.Window{}, fmt.Errorf("hpctrace: interval %v starts at tick %d, after the trace's end (tick %d)", iv, w.From, b.End)
	}
	return w, nil
}

// addTime returns a + d, saturating at the int64 range.
func addTime(a, d model.Time) model.Time {
	s := a + d
	switch {
	case d > 0 && s < a:
		return math.MaxInt64
	case d < 0 && s > a:
		return math.MinInt64
	}
	return s
}

// Bounds returns the trace's bounds (see [model.Bounds]): the times of
// its first and its last event, or those its format records, of the
// whole trace whatever Options.Locations and Window select. A trace
// without events has unknown bounds (Known false) and no error.
//
// What it costs depends on what the format records; the Trace keeps the
// result, so only the first call pays:
//
//	OTF2       nothing: the clock properties of the definitions (an
//	           archive without them is read as DUMPI is)
//	OTF        nothing where the definitions hold a time range
//	           (DEFTIMERANGE, as VampirTrace writes it); else a second
//	           read of the definitions, each stream's first record and
//	           a bisection to its end (otf.Trace.EventTimeRange)
//	DUMPI, PICL,
//	JSON,
//	Chrome     a read of every event of the whole trace: none records
//	           its end (a DUMPI header holds its start in whole seconds)
//
// It reads through sources of its own, from the files the Trace opened
// (PICL, JSON and Chrome open the file again), so it does not move the
// Trace's read; it fails after Close.
func (t *Trace) Bounds() (model.Bounds, error) {
	if err := t.learn(); err != nil {
		return model.Bounds{}, err
	}
	return t.bounds, nil
}

// Window returns the window in ticks that iv stands for on this trace:
// [Interval.Window] with the trace's clock and bounds (see
// [Trace.Bounds] for what learning them costs). Options.Interval opens
// a trace in one; Window converts one for a trace already open, to open
// it again in that window or to give a source of the same trace.
func (t *Trace) Window(iv Interval) (model.Window, error) {
	if err := t.learn(); err != nil {
		return model.Window{}, err
	}
	return iv.Window(t.clock, t.bounds)
}

// learn sets the Trace's bounds and clock, once.
func (t *Trace) learn() error {
	if t.learnt {
		return nil
	}
	if t.closed {
		return errors.New("hpctrace: Bounds: trace closed")
	}
	if t.src != nil && t.src.Defs().Bounds.Known {
		t.bounds, t.clock, t.learnt = t.src.Defs().Bounds, t.src.Defs().TimeBase, true
		return nil
	}
	var b model.Bounds
	var tb model.TimeBase
	probed := false
	if t.defsBounds {
		// The definitions alone: a source that accepts no location opens
		// no event file.
		src, c, err := t.source(model.Selection{Locations: func(model.LocID) bool { return false }})
		if err != nil {
			return err
		}
		b, tb = src.Defs().Bounds, src.Defs().TimeBase
		if err := closeSource(c); err != nil {
			return err
		}
		if !b.Known && t.timeRange != nil {
			first, last, ok, err := t.timeRange()
			if err != nil {
				return err
			}
			if ok && last <= math.MaxInt64 {
				b = model.Bounds{Start: model.Time(first), End: model.Time(last), Known: true}
			}
			probed = true // no events (!ok) is an answer too
		}
	}
	if !b.Known && !probed {
		src, c, err := t.source(model.Selection{})
		if err != nil {
			return err
		}
		for src.Next() {
			b.Add(src.Event().Time)
		}
		err = src.Err()
		tb = src.Defs().TimeBase
		if cerr := closeSource(c); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	t.bounds, t.clock, t.learnt = b, tb, true
	return nil
}

// closeSource closes c if it is not nil.
func closeSource(c io.Closer) error {
	if c == nil {
		return nil
	}
	return c.Close()
}
