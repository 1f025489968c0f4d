package model

import "iter"

// Source is a stream of events with its definitions: the pull shape every
// reader in the SDK has (Next, Event, Err), plus Defs. Format packages
// provide adapters that turn their readers into Sources.
//
// A Source delivers the events of one location in that location's order; a
// multi-location Source delivers a merge by (Time, Loc, per-location
// sequence), so ties are deterministic. The order of the events of one
// location is authoritative even where timestamps decrease.
type Source interface {
	// Next advances to the next event. It returns false at the end of the
	// stream or on error; Err tells which.
	Next() bool
	// Event returns the current event, owned by the source. It is valid until
	// the next call to Next; copy the value to keep it. Before the first Next
	// it returns a zero Event.
	Event() *Event
	// Err returns the first error other than io.EOF; nil after a clean end.
	Err() error
	// Defs returns the definitions. They may grow while the stream is read,
	// but a definition always arrives before the first event that uses it.
	Defs() *Defs
}

// A BulkSource is a Source that can also copy a run of its events straight
// into a caller's slice, saving a call of Next and Event and a copy per
// event. A [Prefetcher] uses it when its source has it.
type BulkSource interface {
	Source
	// ReadEvents advances over up to len(dst) events, copying them into
	// dst, and returns their number. It copies only events for which the
	// source changes no definition, and may return fewer than len(dst) at
	// any point, 0 included: the caller then continues with Next, which
	// yields the following event as usual. After ReadEvents, Event returns
	// undefined content until the next call to Next.
	ReadEvents(dst []Event) int
}

// All returns a single-use iterator over the events of src: (event, nil) for
// each event, then at most one (nil, err) if src fails. The event is owned by
// src and valid until the next iteration. After a break, a later Next or All
// continues with the following event.
func All(src Source) iter.Seq2[*Event, error] {
	return func(yield func(*Event, error) bool) {
		for src.Next() {
			if !yield(src.Event(), nil) {
				return
			}
		}
		if err := src.Err(); err != nil {
			yield(nil, err)
		}
	}
}

// SliceSource is a Source over events held in memory, for tests, generated
// workloads and events collected by a program itself.
type SliceSource struct {
	defs   *Defs
	events []Event
	i      int
	cur    Event
}

// NewSliceSource returns a Source that yields a copy of each element of
// events in order. It does not copy the slice; the caller must not modify it
// while the source is in use. A nil defs is replaced by an empty Defs.
func NewSliceSource(defs *Defs, events []Event) *SliceSource {
	if defs == nil {
		defs = new(Defs)
	}
	return &SliceSource{defs: defs, events: events}
}

// Next advances to the next event.
func (s *SliceSource) Next() bool {
	if s.i >= len(s.events) {
		return false
	}
	s.cur = s.events[s.i]
	s.i++
	return true
}

// Event returns the current event. It is valid until the next call to Next
// or Reset.
func (s *SliceSource) Event() *Event { return &s.cur }

// Err returns nil: a slice cannot fail.
func (s *SliceSource) Err() error { return nil }

// Defs returns the definitions given to NewSliceSource.
func (s *SliceSource) Defs() *Defs { return s.defs }

// All returns a single-use iterator over the remaining events; see [All].
func (s *SliceSource) All() iter.Seq2[*Event, error] { return All(s) }

// Reset rewinds the source to the first event.
func (s *SliceSource) Reset() { s.i = 0; s.cur = Event{} }

// A CommReporter is a Source that can say what of the trace's
// communicators it could not map to locations, so that a program tells
// its user without asking which format it read. The DUMPI adapter is
// one; any source whose files may leave a communicator's membership
// unknown may be.
type CommReporter interface {
	Source
	// CommReport returns the report on communicator membership for the
	// events read so far; it is complete at the end of the stream.
	CommReport() CommReport
}

// A CommReport says how a source mapped the ranks of communicators to
// locations (see [CommReporter]). A zero CommReport means that every
// communicator used was mapped and nothing went wrong.
type CommReport struct {
	// Reconstructed is the number of communicators whose membership the
	// source reconstructed from the trace (DUMPI: from the constructor
	// calls of every rank).
	Reconstructed int
	// Unknown is the number of communicators (or communicator handles)
	// of unknown membership that messages or collectives used.
	Unknown int
	// UnknownMessages counts the sends and receives on such
	// communicators: their Peer is 0 (none), so they stay unmatched.
	UnknownMessages int64
	// UnknownCollectives counts the collective calls on such
	// communicators: each location's instance stands alone, under a
	// communicator of its own.
	UnknownCollectives int64
	// Mismatches counts recorded facts that contradict the mapping (DUMPI:
	// MPI_Comm_rank and MPI_Comm_size results).
	Mismatches int64
	// Notes has one line per communicator of unknown membership in use
	// (with its counts and why its membership is unknown) and per problem
	// met while mapping; a problem met again is one line that ends with
	// "(N times)".
	Notes []string
}

// Clean reports whether r has nothing to tell: no message or collective
// on a communicator of unknown membership, no mismatch and no note.
func (r *CommReport) Clean() bool {
	return r.UnknownMessages == 0 && r.UnknownCollectives == 0 && r.Mismatches == 0 && len(r.Notes) == 0
}
