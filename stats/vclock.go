package stats

import (
	"iter"

	"github.com/hpctrace/hpctrace/model"
)

// VClockOptions configures the virtual-clock correction.
type VClockOptions struct {
	// Overhead is the cost of one probe in ticks.
	Overhead model.Time
	// PerKind, if non-nil, overrides Overhead for the probe kinds it lists
	// (Enter, Leave, Marker, CollBegin, CollEnd).
	PerKind map[model.Kind]model.Time
}

// VClock is a model.Source that removes monitoring intrusion from another
// source with the virtual clock of Li and Zhang (doc/stats.md §10). Probe records
// (Enter, Leave, Marker, CollBegin, CollEnd) each carry their own cost: the
// k-th probe of a location, which follows probes costing I in total, gets
// t - I - o(k). Send, Recv and Counter records belong to the enclosing probe
// and get t - I. A corrected time below the location's previous one is
// clamped to it and counted (Clamped).
//
// The correction is per location and streaming: events come out in the
// order they went in, so the order of the events of one location is kept
// but the global order is the input's, not the corrected times' order.
type VClock struct {
	src     model.Source
	opts    VClockOptions
	ev      model.Event
	intr    []model.Time // accumulated intrusion per location
	prev    []model.Time
	seen    []bool
	clamped int64
}

// NewVClock wraps src. opts is copied; nil means zero overhead.
func NewVClock(src model.Source, opts *VClockOptions) *VClock {
	v := &VClock{src: src}
	if opts != nil {
		v.opts = *opts
	}
	return v
}

// Next advances to the next corrected event.
func (v *VClock) Next() bool {
	if !v.src.Next() {
		return false
	}
	v.ev = *v.src.Event()
	l := int(v.ev.Loc)
	if l >= len(v.intr) {
		n := max(l+1, 2*len(v.intr))
		v.intr = append(v.intr, make([]model.Time, n-len(v.intr))...)
		v.prev = append(v.prev, make([]model.Time, n-len(v.prev))...)
		v.seen = append(v.seen, make([]bool, n-len(v.seen))...)
	}
	switch v.ev.Kind {
	case model.KindEnter, model.KindLeave, model.KindMarker, model.KindCollBegin, model.KindCollEnd:
		o := v.opts.Overhead
		if po, ok := v.opts.PerKind[v.ev.Kind]; ok {
			o = po
		}
		v.intr[l] += o
	}
	t := v.ev.Time - v.intr[l]
	if v.seen[l] && t < v.prev[l] {
		t = v.prev[l]
		v.clamped++
	}
	v.seen[l], v.prev[l] = true, t
	v.ev.Time = t
	return true
}

// Event returns the current corrected event, valid until the next Next.
func (v *VClock) Event() *model.Event { return &v.ev }

// Err returns the error of the underlying source.
func (v *VClock) Err() error { return v.src.Err() }

// Defs returns the definitions of the underlying source.
func (v *VClock) Defs() *model.Defs { return v.src.Defs() }

// All returns a single-use iterator over the corrected events; see [model.All].
func (v *VClock) All() iter.Seq2[*model.Event, error] { return model.All(v) }

// Clamped returns how many corrected times were clamped so far; report it as
// Diagnostics.VClockClamped.
func (v *VClock) Clamped() int64 { return v.clamped }
