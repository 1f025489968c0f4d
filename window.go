package hpctrace

import (
	"fmt"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf2"
)

// window is the filter of a Trace's window.
type window struct {
	from, to model.Time
	keep     func(model.LocID) bool // nil: every location
	stop     bool                   // the source is in time order: end at the first event at To
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
		if w.keep != nil && !w.keep(ev.Loc) {
			if w.to != 0 && tm >= w.to && w.stop {
				w.done = true
				return false
			}
			continue
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
