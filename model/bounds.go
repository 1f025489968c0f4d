package model

import (
	"fmt"
	"math"
)

// Bounds is the interval of time a trace covers, in ticks of its clock:
// Start is the time of its first event and End that of its last (End is
// inclusive, not one past it), so that every event has
// Start ≤ Time ≤ End. Known says that the bounds are set; the zero Bounds
// is unknown.
//
// Where the format records its bounds, they are what the file says,
// which its writer may have set otherwise: OTF2's clock properties are
// the trace's start and length as the measurement system gives them (the
// start from which otf2-print's offset timestamps count), and an
// archive's clock offsets may move events outside them.
//
// An adapter sets [Defs.Bounds] when it makes its definitions, where the
// format records the bounds and reading them costs nothing beside the
// definitions: OTF2's clock properties (the global offset and the trace
// length), OTF's time range definition (DEFTIMERANGE, the first and last
// event times). The others (DUMPI, whose header holds its start in whole
// seconds only; PICL, hpctrace's event JSON, Chrome JSON) leave them
// unknown: only a read of every event tells them. hpctrace's
// Trace.Bounds learns them where the definitions do not tell, and says at
// what cost.
type Bounds struct {
	Start, End Time
	Known      bool
}

// Len returns End − Start, the length of the trace in ticks (0 when the
// bounds are unknown), saturating at the int64 range.
func (b Bounds) Len() Time {
	if !b.Known {
		return 0
	}
	d := b.End - b.Start
	if b.End >= b.Start && d < 0 { // overflow
		return math.MaxInt64
	}
	return d
}

// Add extends b to hold t: a Bounds built by Add from the zero value
// over every event's time is the trace's.
func (b *Bounds) Add(t Time) {
	if !b.Known {
		*b = Bounds{Start: t, End: t, Known: true}
		return
	}
	b.Start = min(b.Start, t)
	b.End = max(b.End, t)
}

// String returns "[Start, End]" in ticks, or "unknown".
func (b Bounds) String() string {
	if !b.Known {
		return "unknown"
	}
	return fmt.Sprintf("[%d, %d]", b.Start, b.End)
}
