package picl

import (
	"fmt"
	"io"
	"maps"

	"github.com/hpctrace/hpctrace/model"
)

// PICL event types a ModelWriter writes besides the user events that stand
// for regions.
const (
	mwSend      EventType = -21  // send0: entry with length, type, destination
	mwRecv      EventType = -51  // recv0, the message was there: exit with length, type, source
	mwRecvWait  EventType = -52  // recv0, had to wait
	mwTracing   EventType = -901 // tracenode … traceexit
	mwNoEvent   EventType = -1
	mwAliasInt            = "2" // predefined descriptor alias of %d
	mwAliasChar           = "0" // predefined descriptor alias of %c
)

// ModelWriterOptions configures a ModelWriter. A nil or zero value means
// defaults.
type ModelWriterOptions struct {
	// TimeDigits is the number of decimals of the timestamps (seconds).
	// As in WriterOptions, 0 means the fewest decimals, at least 6 (PICL's
	// microseconds), that resolve one tick of the clock (the definitions'
	// TimeBase); -1 means the shortest decimal that reads back as the same
	// float64.
	TimeDigits int
}

// A ModelWriter writes model events as a PICL trace in the form ParaGraph
// reads ([Validate] finds nothing in the output of a time-ordered source):
//
//   - Each location is a processor, numbered 0 … P-1 in location order
//     (hosts stay 32767), with process 0.
//   - -5 labels name the processors and the regions, at the time of the
//     first event written after their definition.
//   - Each processor's tracing is a -901 entry before the first event
//     after its definition and a -901 exit at the latest time written,
//     both written when the processor first appears and at Close.
//   - Regions become user events (event type = region id - 1) with -3/-4
//     entry and exit records.
//   - A Send becomes a -21 entry (length, type = tag, destination
//     processor) and exit; a Recv a -52 (waited) or -51 (not waited) entry
//     (type) and exit (length, type, source processor); a length of -1
//     stands for an unknown size.
//   - A Marker becomes a -2 mark of its region and a -7 message with its
//     text.
//   - Timestamps are seconds (see ModelWriterOptions.TimeDigits).
//
// What the conversion loses: the process/thread structure (every thread
// is a processor); native ids; communicators; call sites; collective
// operations (the Enter/Leave of their region stays, CollBegin and CollEnd
// do not); counters; the statistics in Defs.Recorded; synchronous mode;
// region groups, kinds and files; and messages without a known peer
// (Peer 0: ParaGraph cannot draw them, and a processor number would claim
// a partner), which [ModelWriter.NoPeer] counts; the RecvPost, SendDone,
// ProgramBegin, ProgramEnd, Parameter, CollPost and CollDone events, which have no PICL record
// (counted by [ModelWriter.Dropped]). An Enter of no region (0) is dropped.
// A Leave closes the innermost open region, whatever region it names
// ([model.ClassifyLeave]), and is written as that region's exit; a Leave
// with nothing open is dropped.
//
// A ModelWriter is not safe for concurrent use.
type ModelWriter struct {
	w      *Writer
	defs   *model.Defs
	err    error
	closed bool
	n      int64
	noPeer int64 // messages dropped for want of a peer

	records int64                // event records written (labels and tracing records aside)
	dropped map[model.Kind]int64 // events that gave no record, by kind

	proc     []int32 // processor by LocID
	nextProc int32
	nloc     int
	nreg     int
	last     model.Time
	started  bool
	open     model.OpenRegions
	rec      Record
	data     [4]Value
}

// NewModelWriter returns a ModelWriter of the events of a trace with the
// definitions defs to w. It writes nothing until the first Write or
// Close, and Close does not close w.
func NewModelWriter(w io.Writer, defs *model.Defs, opts *ModelWriterOptions) (*ModelWriter, error) {
	if defs == nil {
		return nil, fmt.Errorf("picl: NewModelWriter: nil Defs: %w", ErrRange)
	}
	var o ModelWriterOptions
	if opts != nil {
		o = *opts
	}
	digits := o.TimeDigits
	if digits == 0 {
		digits = defaultTimeDigits(defs.TimeBase.TicksPerSecond)
	}
	pw, err := NewWriter(w, &WriterOptions{TimeDigits: digits})
	if err != nil {
		return nil, err
	}
	return &ModelWriter{w: pw, defs: defs}, nil
}

// RegionEvent returns the user event type a ModelWriter writes for region
// r: r - 1, so that the first region is event type 0.
func RegionEvent(r model.RegionID) EventType { return EventType(r) - 1 }

// defs writes labels and tracing entries for the definitions added since
// the last call, at time t.
func (w *ModelWriter) writeDefs(t model.Time) error {
	locs := w.defs.Locations()
	for _, l := range locs[w.nloc:] {
		for int(l.ID) >= len(w.proc) {
			w.proc = append(w.proc, 0)
		}
		if l.Host {
			w.proc[l.ID] = Host
		} else {
			w.proc[l.ID] = w.nextProc
			w.nextProc++
		}
		if l.Name != "" {
			if err := w.label(t, mwNoEvent, w.proc[l.ID], 0, l.Name); err != nil {
				return err
			}
		}
	}
	regs := w.defs.Regions()
	for _, r := range regs[w.nreg:] {
		if r.Name != "" {
			if err := w.label(t, RegionEvent(r.ID), -1, -1, r.Name); err != nil {
				return err
			}
		}
	}
	w.nreg = len(regs)
	for _, l := range locs[w.nloc:] {
		if !l.Host {
			if err := w.write(RecordEntry, mwTracing, t, l.ID); err != nil {
				return err
			}
		}
	}
	w.nloc = len(locs)
	return nil
}

func (w *ModelWriter) label(t model.Time, e EventType, proc, process int32, name string) error {
	w.rec = Record{Type: RecordLabel, Event: e, Time: w.seconds(t), Processor: proc, Process: process,
		Count: len(name), Descriptor: mwAliasChar, Chars: []byte(name)}
	return w.w.Write(&w.rec)
}

func (w *ModelWriter) seconds(t model.Time) float64 { return w.defs.TimeBase.Seconds(t) }

// write writes one event record with up to four %d values.
func (w *ModelWriter) write(typ RecordType, e EventType, t model.Time, loc model.LocID, vals ...int64) error {
	w.rec = Record{Type: typ, Event: e, Time: w.seconds(t), Processor: w.proc[loc], Count: len(vals)}
	if len(vals) > 0 {
		w.rec.Descriptor = mwAliasInt
		for i, v := range vals {
			w.data[i] = IntValue(v)
		}
		w.rec.Data = w.data[:len(vals)]
	}
	w.records++
	return w.w.Write(&w.rec)
}

// Write writes the records of one event, after the labels and tracing
// entries of any definitions added since the last Write. An event of an
// undefined location is rejected with an error wrapping ErrRange. Write
// does not retain ev.
func (w *ModelWriter) Write(ev *model.Event) error {
	if w.closed {
		return ErrClosed
	}
	if w.err != nil {
		return w.err
	}
	if !w.started || w.defs.NumLocations() > w.nloc || w.defs.NumRegions() > w.nreg {
		if !w.started {
			w.last = ev.Time
		}
		w.started = true
		if err := w.writeDefs(ev.Time); err != nil {
			w.err = err
			return err
		}
	}
	if ev.Loc == 0 || int(ev.Loc) > w.nloc {
		return fmt.Errorf("picl: event %d: location %d not defined: %w", w.n, ev.Loc, ErrRange)
	}
	written := w.records
	if err := w.body(ev); err != nil {
		w.err = err
		return err
	}
	if w.records == written {
		w.drop(ev.Kind)
	}
	w.last = max(w.last, ev.Time)
	w.n++
	return nil
}

func (w *ModelWriter) body(ev *model.Event) error {
	switch ev.Kind {
	case model.KindEnter:
		if ev.Region == 0 {
			return nil
		}
		w.open.Enter(ev.Loc, ev.Region)
		return w.write(RecordEntry, RegionEvent(ev.Region), ev.Time, ev.Loc)
	case model.KindLeave:
		r, out := w.open.Leave(ev.Loc, ev.Region)
		if out == model.LeaveUnmatched {
			return nil
		}
		return w.write(RecordExit, RegionEvent(r), ev.Time, ev.Loc)
	case model.KindSend:
		if ev.Peer == 0 {
			w.noPeer++
			return nil // no destination to draw
		}
		if err := w.write(RecordEntry, mwSend, ev.Time, ev.Loc, msgBytes(ev), int64(ev.Tag), w.peer(ev.Peer)); err != nil {
			return err
		}
		return w.write(RecordExit, mwSend, ev.Time, ev.Loc)
	case model.KindRecv:
		if ev.Peer == 0 {
			w.noPeer++
			return nil
		}
		e := mwRecvWait
		if ev.Flags&model.NotWaited != 0 {
			e = mwRecv
		}
		if err := w.write(RecordEntry, e, ev.Time, ev.Loc, int64(ev.Tag)); err != nil {
			return err
		}
		return w.write(RecordExit, e, ev.Time, ev.Loc, msgBytes(ev), int64(ev.Tag), w.peer(ev.Peer))
	case model.KindMarker:
		if ev.Region != 0 {
			if err := w.write(RecordMark, RegionEvent(ev.Region), ev.Time, ev.Loc); err != nil {
				return err
			}
		}
		if text := w.defs.String(ev.Text); text != "" {
			w.rec = Record{Type: RecordMessage, Event: mwNoEvent, Time: w.seconds(ev.Time), Processor: w.proc[ev.Loc],
				Count: len(text), Descriptor: mwAliasChar, Chars: []byte(text)}
			w.records++
			return w.w.Write(&w.rec)
		}
	case model.KindRecvPost, model.KindSendDone, model.KindProgramBegin, model.KindProgramEnd, model.KindParameter, model.KindCollPost, model.KindCollDone:
	}
	// Collectives and counters have no PICL form: the region around a
	// collective is kept, the operation itself and counter samples are not.
	return nil
}

// NoPeer returns the number of Send and Recv events written so far that
// gave no record because their peer is unknown (Peer 0).
func (w *ModelWriter) NoPeer() int64 { return w.noPeer }

// drop counts an event of kind k that gave no record.
func (w *ModelWriter) drop(k model.Kind) {
	if w.dropped == nil {
		w.dropped = map[model.Kind]int64{}
	}
	w.dropped[k]++
}

// Dropped returns the number of events written so far that gave no record,
// by kind: collectives and counters (no PICL form), an Enter of no region,
// a Leave with nothing open, a Marker of no region and no text, messages
// without a peer (NoPeer counts them too), and kinds PICL has no form for.
// The map is a copy, nil when nothing was dropped.
func (w *ModelWriter) Dropped() map[model.Kind]int64 { return maps.Clone(w.dropped) }

// msgBytes is the message length, -1 when unknown.
func msgBytes(ev *model.Event) int64 {
	if ev.Flags&model.BytesUnknown != 0 {
		return -1
	}
	return ev.Bytes
}

// peer is the processor of a message's peer, -1 when unknown.
func (w *ModelWriter) peer(l model.LocID) int64 {
	if l == 0 || int(l) >= len(w.proc) {
		return -1
	}
	return int64(w.proc[l])
}

// Close writes the labels and tracing entries of definitions not yet
// written and every processor's -901 exit at the latest time written,
// then flushes the output. It does not close the io.Writer: the caller
// owns it, and the file under it. A second Close returns nil.
//
// After a failed Write or Close the io.Writer holds what was flushed
// before the failure: a trace without its closing records that a Reader
// may still read without error. A caller writing a file should write to a
// temporary file and rename it into place only after Close and the file's
// own Close succeed, and remove it otherwise.
func (w *ModelWriter) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	err := w.err
	if err == nil {
		err = w.writeDefs(w.last)
	}
	for _, l := range w.defs.Locations()[:w.nloc] {
		if err != nil {
			break
		}
		if !l.Host {
			err = w.write(RecordExit, mwTracing, w.last, l.ID)
		}
	}
	if cerr := w.w.Close(); err == nil {
		err = cerr
	}
	return err
}
