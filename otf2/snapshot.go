package otf2

import (
	"io"
	"iter"
)

// A Snapshot is one record of a location's snapshot file: SnapshotStart,
// SnapshotEnd, or the copy of an event that was active at the snapshot
// time, with its original time as the first field (clock-corrected). Ids
// are translated and times corrected as for events.
type Snapshot struct {
	Kind SnapKind
	Event
}

// A SnapshotReader reads a location's snapshot file (.snap).
//
// It is checked against the snapshot files libotf2's otf2-snapshots
// writes.
//
// A SnapshotReader is not safe for concurrent use.
type SnapshotReader struct {
	r    *EventReader
	snap Snapshot
}

// NewSnapshotReader returns a reader of the snapshot file r; the options
// are those of an event reader (the chunk size is the event chunk size).
func NewSnapshotReader(r io.Reader, opts *EventReaderOptions) (*SnapshotReader, error) {
	er, err := NewEventReader(r, opts)
	if err != nil {
		return nil, err
	}
	er.lay, er.fast = &snapLayouts, false
	return &SnapshotReader{r: er}, nil
}

// Next advances to the next record; false at the end or on an error.
func (s *SnapshotReader) Next() bool {
	if !s.r.Next() {
		return false
	}
	s.snap.Event = s.r.ev
	s.snap.Event.snap = true
	s.snap.Event.Kind = KindUnknown
	s.snap.Kind = 0
	if snapLayouts[s.r.ev.TypeID] != nil {
		s.snap.Kind = SnapKind(s.r.ev.TypeID)
	}
	return true
}

// Record returns the current record, valid until the next Next.
func (s *SnapshotReader) Record() *Snapshot { return &s.snap }

// Err returns the first error; nil after a clean end.
func (s *SnapshotReader) Err() error { return s.r.Err() }

// All returns a single-use iterator over the remaining records.
func (s *SnapshotReader) All() iter.Seq2[*Snapshot, error] {
	return func(yield func(*Snapshot, error) bool) {
		for s.Next() {
			if !yield(&s.snap, nil) {
				return
			}
		}
		if err := s.Err(); err != nil {
			yield(nil, err)
		}
	}
}
