package export

import (
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/waitstate"
)

// WaitStateRow is one wait-state instance (waitstates table): a call on
// location Waiter that waited Wait ticks for a call on location Delayer,
// as package waitstate finds them ([waitstate.Instance]; doc/waitstates.md
// defines the patterns). A late_sender instance that is also wrong order
// comes twice, once per pattern.
//
// The waiting call is an MPI call: its region is the MPI function, its
// call path the region names from the outermost open region down to it,
// joined by "/". Its enter and leave times are those of its Enter and
// Leave events, so (Waiter, WaiterEnter, WaiterRegion) is the (loc, time,
// region) of its "enter" row in the events table and (Waiter,
// WaiterLeave, WaiterRegion) that of its "leave" row, and the same for the
// delayer; a call the trace never left ends at its location's last event
// instead. (Waiter, WaiterRegion) is a row of the profile table. A
// late_sender or late_sender_wrong_order instance's waiting call holds the
// receive of a message from Delayer, and its delaying call that message's
// send: a messages row with receiver = Waiter, sender = Delayer,
// recv_time within [WaiterEnter, WaiterLeave] and send_time within
// [DelayerEnter, DelayerLeave].
//
// Patterns without a delaying call (wait_finalize, init_completion) have
// Delayer 0, empty delayer names and the delayer's times 0. Ticks and
// seconds follow the other tables: raw ticks of the trace's clock, and
// seconds since the trace's start (its first event); WaitSeconds is a
// duration.
type WaitStateRow struct {
	Pattern             string      `csv:"pattern" parquet:"pattern,dict"` // late_sender, wait_barrier, … (waitstate.Pattern's names)
	Waiter              model.LocID `csv:"waiter_id" parquet:"waiter_id"`  // the waiting location
	WaiterRegion        string      `csv:"waiter_region" parquet:"waiter_region,dict"`
	WaiterCallPath      string      `csv:"waiter_call_path" parquet:"waiter_call_path,dict"`
	Wait                model.Time  `csv:"wait" parquet:"wait"`                 // ticks
	WaitSeconds         float64     `csv:"wait_seconds" parquet:"wait_seconds"` // Wait in seconds (a duration)
	WaiterEnter         model.Time  `csv:"waiter_enter" parquet:"waiter_enter"` // ticks of the trace's clock
	WaiterLeave         model.Time  `csv:"waiter_leave" parquet:"waiter_leave"`
	WaiterEnterSeconds  float64     `csv:"waiter_enter_seconds" parquet:"waiter_enter_seconds"` // since the trace's start
	WaiterLeaveSeconds  float64     `csv:"waiter_leave_seconds" parquet:"waiter_leave_seconds"`
	Delayer             model.LocID `csv:"delayer_id" parquet:"delayer_id"` // the location waited for; 0: none
	DelayerRegion       string      `csv:"delayer_region" parquet:"delayer_region,dict"`
	DelayerCallPath     string      `csv:"delayer_call_path" parquet:"delayer_call_path,dict"`
	DelayerEnter        model.Time  `csv:"delayer_enter" parquet:"delayer_enter"`
	DelayerLeave        model.Time  `csv:"delayer_leave" parquet:"delayer_leave"`
	DelayerEnterSeconds float64     `csv:"delayer_enter_seconds" parquet:"delayer_enter_seconds"`
	DelayerLeaveSeconds float64     `csv:"delayer_leave_seconds" parquet:"delayer_leave_seconds"`
}

// WaitStates analyses src with [waitstate.Instances] and hands emit one
// row per wait-state instance, in the order the waiting calls were
// entered (ties: location, pattern). All rows come after src's last
// event, since a wait can depend on any later event. The analysis keeps a
// log that grows with the trace's MPI calls and messages (see package
// waitstate). It returns the first error of src or emit. A row is valid
// only during the call.
func WaitStates(src model.Source, emit func(*WaitStateRow) error, opts *waitstate.Options) error {
	var start traceStart
	tee := &teeSource{Source: src, add: func(ev *model.Event) error {
		start.see(ev.Time)
		return nil
	}}
	return waitStates(tee, &start, emit, opts)
}

// waitStates emits the rows of the instances of src, whose seconds count
// from start as src has seen it by its end.
func waitStates(src model.Source, start *traceStart, emit func(*WaitStateRow) error, opts *waitstate.Options) error {
	defs := src.Defs()
	var row WaitStateRow
	for in, err := range waitstate.Instances(src, opts) {
		if err != nil {
			return err
		}
		tb := defs.TimeBase
		w, d := &in.Waiter, &in.Delayer
		row = WaitStateRow{Pattern: in.Pattern.String(), Waiter: w.Loc, WaiterRegion: callRegion(defs, w), WaiterCallPath: w.CallPath,
			Wait: in.Time, WaitSeconds: tb.Seconds(in.Time), WaiterEnter: w.Enter, WaiterLeave: w.Leave,
			WaiterEnterSeconds: start.seconds(tb, w.Enter), WaiterLeaveSeconds: start.seconds(tb, w.Leave)}
		if d.Loc != 0 {
			row.Delayer, row.DelayerRegion, row.DelayerCallPath = d.Loc, callRegion(defs, d), d.CallPath
			row.DelayerEnter, row.DelayerLeave = d.Enter, d.Leave
			row.DelayerEnterSeconds, row.DelayerLeaveSeconds = start.seconds(tb, d.Enter), start.seconds(tb, d.Leave)
		}
		if err := emit(&row); err != nil {
			return err
		}
	}
	return nil
}

// callRegion names a call's region as the events table does.
func callRegion(d *model.Defs, c *waitstate.Call) string {
	if c.Region == 0 {
		return ""
	}
	return d.RegionName(c.Region)
}

// teeSource is a source that hands each event to add as it is read; an
// error of add ends the stream with that error.
type teeSource struct {
	model.Source
	add func(*model.Event) error
	err error
}

func (t *teeSource) Next() bool {
	if t.err != nil || !t.Source.Next() {
		return false
	}
	if err := t.add(t.Source.Event()); err != nil {
		t.err = err
		return false
	}
	return true
}

func (t *teeSource) Err() error {
	if t.err != nil {
		return t.err
	}
	return t.Source.Err()
}
