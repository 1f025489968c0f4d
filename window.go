package hpctrace

import (
	"fmt"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf"
	"github.com/hpctrace/hpctrace/otf2"
)

// A Window selects the events of a trace with From ≤ Time < To, in ticks
// of the trace's clock (the model.Time of its events). To == 0 means no
// end; From has no such exception, so that a window from 0 leaves out the
// negative times some traces have (PICL's clock may start below 0): give
// math.MinInt64 for no start. To give a window as durations, convert them
// with the trace's TimeBase ([model.TimeBase.FromDuration]): a Trace
// opened without a window tells its TimeBase after reading only the
// definitions.
//
// The rule is the same for every format: the events of a window are
// those a read of the whole trace yields with From ≤ Time < To, in the
// same order and with the same values; definitions are not filtered.
// Each event is kept or dropped by its own time alone, so a region
// entered before From and left in the window gives its Leave without an
// Enter (resolved to its region as in the whole read), one entered in the
// window and left at To or later its Enter alone; a message or a
// collective whose other end lies outside the window appears by the end
// inside it. Nothing is synthesized at From or To. One exception: OTF's
// deprecated CollOp record gives a collective's begin and its duration in
// one record, from which the adapter makes the CollBegin and the CollEnd;
// a CollOp before From is not read, so a window holds no CollEnd of it.
//
// What a window costs depends on what the format lets a reader skip:
//
//	OTF        seeks: each stream of a file with random access (any file
//	           Open or OpenFS opens on os.DirFS or fstest.MapFS) is
//	           bisected to its first record at From (O(log size) reads;
//	           see otf.TraceReaderOptions.From), read up to To, and no
//	           further. A window with a Leave of function 0 (which
//	           VampirTrace writes for every Leave) that leaves a function
//	           entered before From reads, once, the records before it
//	           too, to know which function that is (see
//	           otf.NewModelSource).
//	OTF2       seeks: each location's file is bisected to From by its
//	           chunks' first times (otf2.ModelSource.SeekTime), and the
//	           read stops at the first event at To. A collective met in
//	           the window while no region entered in it is open reads its
//	           location's events before it, once, to name its region.
//	           Both the bisection and the stop rely on each location's
//	           clock-corrected times not decreasing: where a location's
//	           clock offsets correct time backwards or its chunks' start
//	           times go back (otf2.ModelSource.TimesAscend, checked at
//	           Open from the local definitions and a few bytes per
//	           chunk), the window is a filtered read of the whole
//	           archive, and the rule holds. One case is not seen at
//	           Open: raw times that go back inside a chunk, which OTF2
//	           forbids and libotf2's writer refuses (a damaged or
//	           hand-made file). A time that goes back among the events
//	           read ends the read with an error wrapping
//	           otf2.ErrTimeOrder (Trace.Err); one before From's chunk
//	           goes unseen, and the window may then lack events at From
//	           or later that the filtered read has.
//	DUMPI      read from the start and filtered, the whole file: its
//	           index has no times (calls have variable sizes), and the
//	           adapter's communicators and requests need every call
//	           before From.
//	PICL, JSON read from the start and filtered, the whole file: neither
//	           has an index, and a PICL file's order is not time order.
type Window struct {
	From, To model.Time
}

// check reports a window that selects nothing at all.
func (w *Window) check() error {
	if w.To != 0 && w.To <= w.From {
		return fmt.Errorf("hpctrace: window [%d, %d) is empty", w.From, w.To)
	}
	return nil
}

// window is the filter of a Trace's window.
type window struct {
	from, to model.Time
	stop     bool // the source is in time order: end at the first event at To
	done     bool
	last     []model.Time // with stop: each location's last time read (by LocID), +1; 0 none yet
	err      error        // with stop: a location's time went back
}

// next advances src to its next event in the window. With stop it checks
// that each location's times do not decrease, on which seeking to From
// and stopping at To rely, and fails (err) at the first that does.
func (w *window) next(src model.Source) bool {
	if w.done {
		return false
	}
	for src.Next() {
		ev := src.Event()
		tm := ev.Time
		if w.stop {
			l := int(ev.Loc)
			if l >= len(w.last) {
				w.last = append(w.last, make([]model.Time, l+1-len(w.last))...)
			}
			if p := w.last[l]; p != 0 && tm < p-1 {
				w.done = true
				w.err = fmt.Errorf("hpctrace: window [%d, %d): location %d: time %d after %d: its times go back, so a window (which seeks to From and ends at To) may miss events; read the trace without a window and filter it: %w", w.from, w.to, ev.Loc, tm, p-1, otf2.ErrTimeOrder)
				return false
			}
			w.last[l] = tm + 1
		}
		if w.to != 0 && tm >= w.to {
			if w.stop {
				w.done = true
				return false
			}
			continue
		}
		if tm >= w.from {
			return true
		}
	}
	return false
}

// otfWindow returns opts with its interval narrowed to w.
func otfWindow(opts *otf.TraceReaderOptions, w *Window) *otf.TraceReaderOptions {
	var o otf.TraceReaderOptions
	if opts != nil {
		o = *opts
	}
	o.From = max(o.From, uint64(max(w.From, 0)))
	if w.To != 0 && (o.To == 0 || uint64(w.To) < o.To) {
		o.To = uint64(w.To)
	}
	return &o
}
