package main

import (
	"bufio"
	"io"
	"math"
	"os"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/picl"
)

// PICL event types the conversion writes besides the user events that
// stand for regions.
const (
	piclSend      picl.EventType = -21  // send0: entry with length, type, destination
	piclRecv      picl.EventType = -51  // recv0, the message was there: exit with length, type, source
	piclRecvWait  picl.EventType = -52  // recv0, had to wait
	piclTracing   picl.EventType = -901 // tracenode … traceexit
	piclNoEvent   picl.EventType = -1
	piclAliasInt                 = "2" // predefined descriptor alias of %d
	piclAliasChar                = "0" // predefined descriptor alias of %c
)

// toPICL converts in to the PICL trace file out.
func toPICL(in modelInput, out string) error {
	return createFile(out, func(w io.Writer) error { return writePICL(in, w) })
}

// piclConv maps model ids to PICL processors and event types.
type piclConv struct {
	w    *picl.Writer
	sc   *scan
	proc []int32 // processor by LocID
	seen []int64 // events written so far by LocID
	open stacks
	rec  picl.Record
	data [4]picl.Value
}

// writePICL writes in as a PICL trace in the form ParaGraph reads: labels
// first, then per processor a -901 entry before its first event and a
// -901 exit after its last (both at the start for a processor without
// events), regions as user events (event type = region
// id - 1), each Send as a -21 entry/exit pair with length, type and
// destination, each Recv as a -51 or -52 entry/exit pair whose exit has
// length, type and source, region markers as -2 marks and marker texts as
// -7 messages.
func writePICL(in modelInput, out io.Writer) error {
	sc, err := scanModel(in)
	if err != nil {
		return err
	}
	d := sc.defs
	// Enough decimals for one tick, at least PICL's microseconds.
	digits := 6
	if tps := d.TimeBase.TicksPerSecond; tps > 1 {
		digits = max(digits, int(math.Ceil(math.Log10(float64(tps)))))
	}
	pw, err := picl.NewWriter(out, &picl.WriterOptions{TimeDigits: digits})
	if err != nil {
		return err
	}
	cv := &piclConv{w: pw, sc: sc, proc: make([]int32, len(sc.count)), seen: make([]int64, len(sc.count))}
	var next int32
	for _, l := range d.Locations() {
		switch {
		case l.Host:
			cv.proc[l.ID] = picl.Host
		default:
			cv.proc[l.ID] = next
			next++
		}
	}
	// Labels: location names, then region names, at the first event time.
	for _, l := range d.Locations() {
		if l.Name != "" && cv.proc[l.ID] >= 0 {
			if err := cv.label(sc.min, piclNoEvent, cv.proc[l.ID], 0, l.Name); err != nil {
				return err
			}
		}
	}
	for _, r := range d.Regions() {
		if r.Name != "" {
			if err := cv.label(sc.min, regionEvent(r.ID), -1, -1, r.Name); err != nil {
				return err
			}
		}
	}
	// Processors that only receive messages take part too: their tracing
	// starts and ends before the first event.
	for _, l := range d.Locations() {
		if sc.count[l.ID] == 0 && !l.Host {
			ev := &model.Event{Time: sc.min, Loc: l.ID}
			if err := cv.write(picl.RecordEntry, piclTracing, ev); err != nil {
				return err
			}
			if err := cv.write(picl.RecordExit, piclTracing, ev); err != nil {
				return err
			}
		}
	}
	src, closeSrc, err := in()
	if err != nil {
		return err
	}
	for src.Next() {
		if err := cv.event(src.Event(), src.Defs()); err != nil {
			return closeAll(err, closeSrc)
		}
	}
	if err := src.Err(); err != nil {
		return closeAll(err, closeSrc)
	}
	return closeAll(pw.Close(), closeSrc)
}

// regionEvent is the user event type that stands for region r.
func regionEvent(r model.RegionID) picl.EventType { return picl.EventType(r) - 1 }

func (cv *piclConv) label(t model.Time, e picl.EventType, proc, process int32, name string) error {
	cv.rec = picl.Record{Type: picl.RecordLabel, Event: e, Time: cv.seconds(t), Processor: proc, Process: process,
		Count: len(name), Descriptor: piclAliasChar, Chars: []byte(name)}
	return cv.w.Write(&cv.rec)
}

func (cv *piclConv) seconds(t model.Time) float64 { return cv.sc.defs.TimeBase.Seconds(t) }

// write writes one event record with up to four %d values.
func (cv *piclConv) write(typ picl.RecordType, e picl.EventType, ev *model.Event, vals ...int64) error {
	cv.rec = picl.Record{Type: typ, Event: e, Time: cv.seconds(ev.Time), Processor: cv.proc[ev.Loc], Count: len(vals)}
	if len(vals) > 0 {
		cv.rec.Descriptor = piclAliasInt
		for i, v := range vals {
			cv.data[i] = picl.IntValue(v)
		}
		cv.rec.Data = cv.data[:len(vals)]
	}
	return cv.w.Write(&cv.rec)
}

func (cv *piclConv) event(ev *model.Event, d *model.Defs) error {
	loc := ev.Loc
	host := cv.proc[loc] == picl.Host
	if cv.seen[loc] == 0 && !host {
		if err := cv.write(picl.RecordEntry, piclTracing, ev); err != nil {
			return err
		}
	}
	cv.seen[loc]++
	if err := cv.body(ev, d); err != nil {
		return err
	}
	if cv.seen[loc] == cv.sc.count[loc] && !host {
		return cv.write(picl.RecordExit, piclTracing, ev)
	}
	return nil
}

func (cv *piclConv) body(ev *model.Event, d *model.Defs) error {
	switch ev.Kind {
	case model.KindEnter:
		if ev.Region == 0 {
			return nil
		}
		cv.open.enter(ev.Loc, ev.Region)
		return cv.write(picl.RecordEntry, regionEvent(ev.Region), ev)
	case model.KindLeave:
		r, ok := cv.open.leave(ev.Loc, ev.Region)
		if !ok {
			return nil
		}
		return cv.write(picl.RecordExit, regionEvent(r), ev)
	case model.KindSend:
		if ev.Peer == 0 {
			return nil // no destination to draw
		}
		if err := cv.write(picl.RecordEntry, piclSend, ev, cv.bytes(ev), int64(ev.Tag), cv.peer(ev.Peer)); err != nil {
			return err
		}
		return cv.write(picl.RecordExit, piclSend, ev)
	case model.KindRecv:
		if ev.Peer == 0 {
			return nil
		}
		e := piclRecvWait
		if ev.Flags&model.NotWaited != 0 {
			e = piclRecv
		}
		if err := cv.write(picl.RecordEntry, e, ev, int64(ev.Tag)); err != nil {
			return err
		}
		return cv.write(picl.RecordExit, e, ev, cv.bytes(ev), int64(ev.Tag), cv.peer(ev.Peer))
	case model.KindMarker:
		if ev.Region != 0 {
			if err := cv.write(picl.RecordMark, regionEvent(ev.Region), ev); err != nil {
				return err
			}
		}
		if text := d.String(ev.Text); text != "" {
			cv.rec = picl.Record{Type: picl.RecordMessage, Event: piclNoEvent, Time: cv.seconds(ev.Time), Processor: cv.proc[ev.Loc],
				Count: len(text), Descriptor: piclAliasChar, Chars: []byte(text)}
			return cv.w.Write(&cv.rec)
		}
	}
	// Collectives and counters have no PICL form: the region around a
	// collective is kept, the operation itself and counter samples are not.
	return nil
}

// bytes is the message length, -1 when unknown.
func (cv *piclConv) bytes(ev *model.Event) int64 {
	if ev.Flags&model.BytesUnknown != 0 {
		return -1
	}
	return ev.Bytes
}

// peer is the processor of a message's peer, -1 when unknown.
func (cv *piclConv) peer(l model.LocID) int64 {
	if l == 0 || int(l) >= len(cv.proc) {
		return -1
	}
	return int64(cv.proc[l])
}

// copyPICL copies a PICL trace record by record.
func copyPICL(in, out string) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	r, err := picl.NewReader(bufio.NewReaderSize(f, 1<<16), &picl.ReaderOptions{Path: in})
	if err != nil {
		return err
	}
	return createFile(out, func(bw io.Writer) error {
		w, err := picl.NewWriter(bw, nil)
		if err != nil {
			return err
		}
		for rec, err := range r.All() {
			if err != nil {
				return err
			}
			if err := w.Write(rec); err != nil {
				return err
			}
		}
		return w.Close()
	})
}
