package hpctrace

import (
	"github.com/hpctrace/hpctrace/model"
)

// window is the filter of a Trace's window.
type window struct {
	from, to model.Time
	keep     func(model.LocID) bool // nil: every location
}

// next advances src to its next event in the window.
func (w *window) next(src model.Source) bool {
	for src.Next() {
		ev := src.Event()
		tm := ev.Time
		if w.keep != nil && !w.keep(ev.Loc) {
			continue
		}
		if w.to != 0 && tm >= w.to {
			continue
		}
		if tm >= w.from {
			return true
		}
	}
	return false
}
