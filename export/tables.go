package export

import (
	"strconv"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
	"github.com/hpctrace/hpctrace/waitstate"
)

// The rows of the five tables (the sixth, [WaitStateRow], is in
// waitstates.go). Each field's `csv` tag names its CSV column
// and its `parquet` tag its Parquet column (for writers such as parquet-go
// that read struct tags); the columns appear in field order. Times are in
// ticks of the trace's clock as the source gives them, with a seconds
// column beside them counted from the trace's start (the time of the
// source's first event; see the package documentation); ids are the
// model's (locations numbered from 1, 0 meaning none).
//
// Locations are identified as in every output of the SDK (see package
// stats, "Locations"): a column that holds a model.LocID is named with
// the suffix _id (loc_id, peer_id, sender_id, receiver_id; waiter_id and
// delayer_id in the waitstates table), and "loc" is always the native id
// (MPI rank, PICL processor, OTF process): the locations table maps each
// loc_id to its loc and name, and the profile table carries loc beside
// loc_id. A join of these tables with tracestat's JSON report is on
// loc_id.
type (
	// EventRow is one event (events table). Columns a kind does not use
	// are 0 or empty: see [model.Event] for which kinds use which.
	EventRow struct {
		Time    model.Time  `csv:"time" parquet:"time"`            // ticks of the trace's clock
		Seconds float64     `csv:"seconds" parquet:"seconds"`      // since the trace's start (its first event)
		Loc     model.LocID `csv:"loc_id" parquet:"loc_id"`        // the key of the locations table
		Kind    string      `csv:"kind" parquet:"kind,dict"`       // enter, leave, send, recv, coll_begin, coll_end, counter, marker, recv_post, send_done, program_begin, program_end, parameter, coll_post, coll_done
		Region  string      `csv:"region" parquet:"region,dict"`   // enter, leave, coll_begin, coll_post, coll_done, marker: the region's name
		Peer    model.LocID `csv:"peer_id" parquet:"peer_id"`      // send: destination; recv, recv_post: source; coll_begin, coll_post, coll_done: root
		Bytes   int64       `csv:"bytes" parquet:"bytes"`          // send, recv: payload; coll_begin, coll_post, coll_done: bytes sent
		Recvd   int64       `csv:"recvd" parquet:"recvd"`          // coll_begin, coll_post, coll_done: bytes received
		Tag     int32       `csv:"tag" parquet:"tag"`              // send, recv, recv_post
		Comm    string      `csv:"comm" parquet:"comm,dict"`       // send, recv, recv_post, coll_begin, coll_post, coll_done: the communicator's name
		Counter string      `csv:"counter" parquet:"counter,dict"` // counter: its name
		Value   int64       `csv:"value" parquet:"value"`          // counter: the sample; send, recv, recv_post, send_done, coll_post, coll_done: the request (model.Event.Match, 0 for a blocking operation), as int64 bits; parameter: an integer value
		Text    string      `csv:"text" parquet:"text,dict"`       // marker: its text; parameter: its name, then for a string value "=" and the value
	}

	// MessageRow is one point-to-point message with both ends (messages
	// table). Status is "matched", or "unmatched_send" / "unmatched_recv"
	// for a message whose other end the trace lacks; that end's times are
	// then 0.
	MessageRow struct {
		Sender      model.LocID `csv:"sender_id" parquet:"sender_id"`
		Receiver    model.LocID `csv:"receiver_id" parquet:"receiver_id"`
		Tag         int32       `csv:"tag" parquet:"tag"`
		Comm        string      `csv:"comm" parquet:"comm,dict"`
		Bytes       int64       `csv:"bytes" parquet:"bytes"`               // as sent (as received for unmatched receives)
		SendTime    model.Time  `csv:"send_time" parquet:"send_time"`       // ticks of the trace's clock
		RecvTime    model.Time  `csv:"recv_time" parquet:"recv_time"`       // ticks of the trace's clock
		SendSeconds float64     `csv:"send_seconds" parquet:"send_seconds"` // since the trace's start (its first event)
		RecvSeconds float64     `csv:"recv_seconds" parquet:"recv_seconds"` // since the trace's start
		Status      string      `csv:"status" parquet:"status,dict"`
	}

	// RegionRow is one region definition (regions table).
	RegionRow struct {
		ID     model.RegionID `csv:"id" parquet:"id"`
		Native int64          `csv:"native" parquet:"native"` // the format's own id
		Name   string         `csv:"name" parquet:"name"`
		Kind   string         `csv:"kind" parquet:"kind,dict"` // function, loop, comm, collective, sync, io, tracing, user, other
		Group  string         `csv:"group" parquet:"group,dict"`
		File   string         `csv:"file" parquet:"file,dict"`
		Line   int32          `csv:"line" parquet:"line"`
	}

	// LocationRow is one location definition (locations table).
	LocationRow struct {
		ID      model.LocID `csv:"loc_id" parquet:"loc_id"` // the key the other tables use
		Native  int64       `csv:"loc" parquet:"loc"`       // native id: PICL processor, MPI rank, OTF process token
		Name    string      `csv:"name" parquet:"name"`
		Process int32       `csv:"process" parquet:"process"`
		Thread  int32       `csv:"thread" parquet:"thread"`
		Host    bool        `csv:"host" parquet:"host"`
	}

	// ProfileRow is the flat profile of one region on one location
	// (profile table), as [stats.Function] computes it.
	ProfileRow struct {
		Loc         model.LocID `csv:"loc_id" parquet:"loc_id"`
		Native      int64       `csv:"loc" parquet:"loc"` // the location's native id
		Region      string      `csv:"region" parquet:"region,dict"`
		Visits      int64       `csv:"visits" parquet:"visits"`
		Incl        model.Time  `csv:"incl" parquet:"incl"` // ticks on the stack, outermost activation only
		Excl        model.Time  `csv:"excl" parquet:"excl"`
		InclSeconds float64     `csv:"incl_seconds" parquet:"incl_seconds"` // Incl in seconds (a duration)
		ExclSeconds float64     `csv:"excl_seconds" parquet:"excl_seconds"`
		Min         model.Time  `csv:"min" parquet:"min"` // shortest closed instance, ticks
		Max         model.Time  `csv:"max" parquet:"max"`
	}
)

// TableSink receives the rows of the five tables. [Tables] calls Event for
// each event as it reads it and Message as soon as a message's ends are
// paired, then, at the end of the trace, Message for the unpaired ends,
// and Location, Region and Profile for every definition and profile
// entry. A row is valid only during the call.
type TableSink interface {
	Event(*EventRow) error
	Message(*MessageRow) error
	Location(*LocationRow) error
	Region(*RegionRow) error
	Profile(*ProfileRow) error
}

// TablesOptions configures [Tables]. A nil value means defaults.
type TablesOptions struct {
	// MaxPending bounds the message ends kept waiting for their partner.
	// Beyond it the oldest end of the channel that overflows is written
	// as unmatched. 0 means 1<<20.
	MaxPending int
	// WaitStates, if not nil, receives the rows of the waitstates table
	// ([WaitStateRow]): Tables then runs the wait-state analysis in the
	// same pass over the events (see [WaitStates] for its order and
	// memory) and calls WaitStates for every instance after the last
	// event, before the unpaired messages and the definitions.
	WaitStates func(*WaitStateRow) error
	// Analysis configures the wait-state analysis; nil means
	// waitstate's defaults.
	Analysis *waitstate.Options
}

// Tables reads src to its end and hands its rows to sink. It pairs sends
// and receives as the stats package does: the k-th send from A to B with
// tag T on communicator C with the k-th receive on B from A with T on C.
// It keeps the definitions, the flat profile (a [stats.Accumulator]) and
// the message ends waiting for their partner (at most MaxPending), so its
// memory does not grow with the number of events (unless the wait-state
// table is asked for). It returns the first error of src or sink.
func Tables(src model.Source, sink TableSink, opts *TablesOptions) error {
	var o TablesOptions
	if opts != nil {
		o = *opts
	}
	defs := src.Defs()
	r := &tableRun{t: tabler{defs: defs}, sink: sink, pr: NewPairer(defs, &PairerOptions{MaxPending: o.MaxPending}), acc: stats.New(defs, nil)}
	if o.WaitStates != nil {
		if err := waitStates(&teeSource{Source: src, add: r.add}, &r.t.start, o.WaitStates, o.Analysis); err != nil {
			return err
		}
		return r.finish()
	}
	for src.Next() {
		if err := r.add(src.Event()); err != nil {
			return err
		}
	}
	if err := src.Err(); err != nil {
		return err
	}
	return r.finish()
}

// tableRun is the state of one run of Tables.
type tableRun struct {
	t    tabler
	sink TableSink
	pr   *Pairer
	acc  *stats.Accumulator
	row  EventRow
}

// add writes the rows of one event.
func (r *tableRun) add(ev *model.Event) error {
	r.acc.Add(ev)
	r.t.eventRow(ev, &r.row)
	if err := r.sink.Event(&r.row); err != nil {
		return err
	}
	return r.pr.Add(ev, r.sink.Message)
}

// finish writes the rows of the end of the trace: the unpaired messages,
// the definitions and the profile.
func (r *tableRun) finish() error {
	sink, defs := r.sink, r.t.defs
	if err := r.pr.Flush(sink.Message); err != nil {
		return err
	}
	for _, l := range defs.Locations() {
		if err := sink.Location(&LocationRow{ID: l.ID, Native: l.Native, Name: l.Name, Process: l.Process, Thread: l.Thread, Host: l.Host}); err != nil {
			return err
		}
	}
	for _, r := range defs.Regions() {
		if err := sink.Region(&RegionRow{ID: r.ID, Native: r.Native, Name: r.Name, Kind: r.Kind.String(), Group: r.Group, File: r.File, Line: r.Line}); err != nil {
			return err
		}
	}
	tb := defs.TimeBase
	for _, f := range r.acc.Finalize().Final.Functions {
		if err := sink.Profile(&ProfileRow{Loc: f.LocID, Native: f.Loc, Region: f.Region, Visits: f.Visits, Incl: f.Incl, Excl: f.Excl,
			InclSeconds: tb.Seconds(f.Incl), ExclSeconds: tb.Seconds(f.Excl), Min: f.Min, Max: f.Max}); err != nil {
			return err
		}
	}
	return nil
}

// tabler turns events into rows.
type tabler struct {
	defs  *model.Defs
	start traceStart
}

// traceStart is the trace's start: the time of the first event seen.
type traceStart struct {
	t       model.Time
	started bool
}

// see takes the time of an event; the first one is the start.
func (s *traceStart) see(t model.Time) {
	if !s.started {
		s.t, s.started = t, true
	}
}

// seconds converts t to seconds since the start.
func (s *traceStart) seconds(tb model.TimeBase, t model.Time) float64 {
	d := t - s.t
	if (t >= s.t) != (d >= 0) { // overflow: the difference leaves int64
		return tb.Seconds(t) - tb.Seconds(s.t)
	}
	return tb.Seconds(d)
}

func (t *tabler) eventRow(ev *model.Event, row *EventRow) {
	d := t.defs
	t.start.see(ev.Time)
	*row = EventRow{Time: ev.Time, Seconds: t.start.seconds(d.TimeBase, ev.Time), Loc: ev.Loc, Kind: ev.Kind.String()}
	switch ev.Kind {
	case model.KindEnter, model.KindLeave, model.KindCollBegin, model.KindCollPost, model.KindCollDone, model.KindMarker:
		if ev.Region != 0 {
			row.Region = d.RegionName(ev.Region)
		}
	}
	switch ev.Kind {
	case model.KindSend, model.KindRecv:
		row.Peer, row.Bytes, row.Tag, row.Comm = ev.Peer, ev.Bytes, ev.Tag, commName(d, ev.Comm)
		row.Value = int64(ev.Match)
	case model.KindRecvPost:
		row.Peer, row.Tag, row.Comm, row.Value = ev.Peer, ev.Tag, commName(d, ev.Comm), int64(ev.Match)
	case model.KindSendDone:
		row.Value = int64(ev.Match)
	case model.KindParameter:
		row.Text = d.String(ev.Text)
		if ev.Flags&model.StringValue != 0 {
			row.Text += "=" + d.String(model.StringID(ev.Value))
		} else {
			row.Value = ev.Value
		}
	case model.KindCollBegin:
		row.Peer, row.Bytes, row.Recvd, row.Comm = ev.Peer, ev.Bytes, ev.Recvd, commName(d, ev.Comm)
	case model.KindCollPost, model.KindCollDone:
		row.Peer, row.Bytes, row.Recvd, row.Comm = ev.Peer, ev.Bytes, ev.Recvd, commName(d, ev.Comm)
		row.Value = int64(ev.Match)
	case model.KindCounter:
		row.Counter, row.Value = counterName(d, ev.Counter), ev.Value
	case model.KindMarker:
		row.Text = d.String(ev.Text)
	}
}

// commName names a communicator; "" for none.
func commName(d *model.Defs, id model.CommID) string {
	if id == 0 {
		return ""
	}
	if c, ok := d.Comm(id); ok && c.Name != "" {
		return c.Name
	}
	return "comm " + itoa(int64(id))
}

// counterName names a counter.
func counterName(d *model.Defs, id model.CounterID) string {
	if c, ok := d.Counter(id); ok && c.Name != "" {
		return c.Name
	}
	return "counter " + itoa(int64(id))
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
