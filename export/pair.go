package export

import (
	"cmp"
	"maps"
	"slices"

	"github.com/hpctrace/hpctrace/model"
)

// Pairer pairs the sends and receives of a stream of events into
// messages, as the stats package pairs them: the k-th send from A to B
// with tag T on communicator C with the k-th receive on B from A with T
// on C, whichever comes first in the stream. It keeps the ends waiting
// for their partner, at most a bound; beyond it the oldest end of the
// channel that overflows is given up as unmatched. An end without a known
// peer (Peer 0, as on a DUMPI communicator of unknown membership) can
// match nothing: it is emitted at once as unmatched, with 0 (none) as its
// other side, and never kept. The rows' seconds count from the time of
// the first event given to Add, of any kind (the trace's start when the
// stream is in time order); their ticks are the events' own.
type Pairer struct {
	defs  *model.Defs
	max   int
	n     int // ends pending
	chans map[chanKey]*pending
	row   MessageRow // handed to emit, reused
	start traceStart // the first event's time: seconds count from it
}

// pending holds the ends of one channel waiting for their partner: all
// sends or all receives (recvs), in order.
type pending struct {
	recvs bool
	ends  []msgEnd
	head  int
}

type msgEnd struct {
	time  model.Time
	bytes int64
}

// PairerOptions configures a Pairer. A nil or zero value means defaults.
type PairerOptions struct {
	// MaxPending bounds the message ends kept waiting for their partner,
	// as TablesOptions.MaxPending does. Beyond it the oldest end of the
	// channel that overflows is given up as unmatched. 0 means 1<<20.
	MaxPending int
}

// NewPairer returns a Pairer for events whose definitions are defs.
func NewPairer(defs *model.Defs, opts *PairerOptions) *Pairer {
	maxPending := 0
	if opts != nil {
		maxPending = opts.MaxPending
	}
	if maxPending <= 0 {
		maxPending = 1 << 20
	}
	return &Pairer{defs: defs, max: maxPending, chans: make(map[chanKey]*pending)}
}

// Add takes one event; other kinds than Send and Recv are ignored. When
// the event completes a message, or pushes out an end as unmatched, Add
// calls emit with that message and returns emit's error. The row is
// valid only during the call.
func (t *Pairer) Add(ev *model.Event, emit func(*MessageRow) error) error {
	t.start.see(ev.Time)
	if ev.Kind != model.KindSend && ev.Kind != model.KindRecv {
		return nil
	}
	recv := ev.Kind == model.KindRecv
	k := chanKey{from: ev.Loc, to: ev.Peer, tag: ev.Tag, comm: ev.Comm}
	if recv {
		k.from, k.to = ev.Peer, ev.Loc
	}
	if ev.Peer == 0 {
		return t.unmatched(k, msgEnd{ev.Time, ev.Bytes}, recv, emit)
	}
	p := t.chans[k]
	if p == nil {
		p = &pending{recvs: recv}
		t.chans[k] = p
	}
	if p.head < len(p.ends) && p.recvs != recv {
		other := p.ends[p.head]
		p.head++
		t.n--
		if p.head == len(p.ends) {
			p.ends, p.head = p.ends[:0], 0
		}
		s, r := other, msgEnd{ev.Time, ev.Bytes}
		if !recv {
			s, r = r, s
		}
		tb := t.defs.TimeBase
		t.row = MessageRow{Sender: k.from, Receiver: k.to, Tag: k.tag, Comm: commName(t.defs, k.comm),
			Bytes: s.bytes, SendTime: s.time, RecvTime: r.time, SendSeconds: t.start.seconds(tb, s.time), RecvSeconds: t.start.seconds(tb, r.time), Status: "matched"}
		return emit(&t.row)
	}
	p.recvs = recv
	if t.n >= t.max && p.head < len(p.ends) {
		e := p.ends[p.head]
		p.head++
		t.n--
		if err := t.unmatched(k, e, recv, emit); err != nil {
			return err
		}
	}
	if p.head > 0 && p.head == len(p.ends) {
		p.ends, p.head = p.ends[:0], 0
	}
	p.ends = append(p.ends, msgEnd{ev.Time, ev.Bytes})
	t.n++
	return nil
}

// Flush emits every end still waiting as an unmatched message, ordered by
// channel (sender, receiver, communicator, tag) and then by time, and
// forgets them.
func (t *Pairer) Flush(emit func(*MessageRow) error) error {
	keys := slices.SortedFunc(maps.Keys(t.chans), func(a, b chanKey) int {
		return cmp.Or(cmp.Compare(a.from, b.from), cmp.Compare(a.to, b.to), cmp.Compare(a.comm, b.comm), cmp.Compare(a.tag, b.tag))
	})
	for _, k := range keys {
		p := t.chans[k]
		for _, e := range p.ends[p.head:] {
			if err := t.unmatched(k, e, p.recvs, emit); err != nil {
				return err
			}
		}
	}
	clear(t.chans)
	t.n = 0
	return nil
}

// unmatched emits a message of which only one end is in the trace.
func (t *Pairer) unmatched(k chanKey, e msgEnd, recv bool, emit func(*MessageRow) error) error {
	t.row = MessageRow{Sender: k.from, Receiver: k.to, Tag: k.tag, Comm: commName(t.defs, k.comm), Bytes: e.bytes}
	row := &t.row
	if recv {
		row.RecvTime, row.RecvSeconds, row.Status = e.time, t.start.seconds(t.defs.TimeBase, e.time), "unmatched_recv"
	} else {
		row.SendTime, row.SendSeconds, row.Status = e.time, t.start.seconds(t.defs.TimeBase, e.time), "unmatched_send"
	}
	return emit(row)
}
