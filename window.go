package hpctrace

import (
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf"
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

// otfWindow returns opts with its interval narrowed to w.
func otfWindow(opts *otf.TraceReaderOptions, w *model.Window) *otf.TraceReaderOptions {
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
