package waitstate

import (
	"iter"

	"github.com/hpctrace/hpctrace/model"
)

// Messages reads src and returns a single-use iterator over its matched
// point-to-point messages, matched as the analysis matches them, with the
// calls on both sides (a side outside any MPI call has the zero Call).
// Each message is yielded as soon as it is determined: once it is
// matched and its send call, send-completion call, posting call and
// receive call have all left (a non-blocking send waits for its SendDone;
// one that never comes completes in its own call, as at the end of the
// stream, where calls still open end at their location's last time). So
// messages come in the order they are determined, and memory holds only
// the messages and calls in flight. A read error is yielded as the last
// pair, with a nil message. The message is valid until the next
// iteration.
func Messages(src model.Source) iter.Seq2[*Message, error] {
	return func(yield func(*Message, error) bool) {
		m := newMsgStream(src.Defs())
		for src.Next() {
			if !m.add(src.Event(), yield) {
				return
			}
		}
		if err := src.Err(); err != nil {
			yield(nil, err)
			return
		}
		m.end(yield)
	}
}

// msgCall is an MPI call that messages in flight refer to.
type msgCall struct {
	loc          model.LocID
	region       model.RegionID
	cp           uint32
	enter, leave model.Time
	left         bool
	msgs         []int32 // messages that refer to it
	refs         int32   // references from messages and the open stack
}

type msgRec struct {
	sender, receiver model.LocID
	tag              int32
	comm             model.CommID
	bytes            int64
	send, done       int32 // calls (-1: none)
	post, recv       int32
	sendSeen         bool // the send side has come
	recvSeen         bool
	waitDone         bool // a SendDone is still to come
	free             bool
}

type msgFrame struct {
	region  model.RegionID
	cp      uint32
	call    int32 // -1: not an MPI call
	inner   int32
	childR  model.RegionID
	childCP uint32
}

type msgLoc struct {
	stack   []msgFrame
	last    model.Time
	posts   map[uint64]int32 // request → posting call
	pending map[uint64]int32 // request → message waiting for its SendDone
}

type msgChan struct{ sends, recvs []int32 }

// msgStream matches messages online.
type msgStream struct {
	a        *Analyzer // for regions and call paths
	locs     []msgLoc
	calls    []msgCall
	freeCall []int32
	msgs     []msgRec
	freeMsg  []int32
	chans    map[chanKey]*msgChan
	names    []string // call path strings by node, built on demand
	cur      Message
}

type chanKey struct {
	s, r model.LocID
	tag  int32
	comm model.CommID
}

func newMsgStream(defs *model.Defs) *msgStream {
	return &msgStream{a: New(defs, nil), chans: map[chanKey]*msgChan{}}
}

func (m *msgStream) loc(id model.LocID) *msgLoc {
	for int(id) >= len(m.locs) {
		m.locs = append(m.locs, msgLoc{})
	}
	return &m.locs[id]
}

func (m *msgStream) newCall(c msgCall) int32 {
	if n := len(m.freeCall); n > 0 {
		i := m.freeCall[n-1]
		m.freeCall = m.freeCall[:n-1]
		c.msgs = m.calls[i].msgs[:0]
		m.calls[i] = c
		return i
	}
	m.calls = append(m.calls, c)
	return int32(len(m.calls) - 1)
}

func (m *msgStream) unref(c int32) {
	if c < 0 {
		return
	}
	if m.calls[c].refs--; m.calls[c].refs == 0 {
		m.freeCall = append(m.freeCall, c)
	}
}

func (m *msgStream) ref(c, msg int32) {
	if c >= 0 {
		m.calls[c].refs++
		m.calls[c].msgs = append(m.calls[c].msgs, msg)
	}
}

func (m *msgStream) newMsg(r msgRec) int32 {
	if n := len(m.freeMsg); n > 0 {
		i := m.freeMsg[n-1]
		m.freeMsg = m.freeMsg[:n-1]
		m.msgs[i] = r
		return i
	}
	m.msgs = append(m.msgs, r)
	return int32(len(m.msgs) - 1)
}

func (m *msgStream) add(ev *model.Event, yield func(*Message, error) bool) bool {
	if ev.Loc == 0 || int(ev.Loc) > m.a.defs.NumLocations() {
		return true
	}
	l := m.loc(ev.Loc)
	l.last = ev.Time
	inner := int32(-1)
	if n := len(l.stack); n > 0 {
		inner = l.stack[n-1].inner
	}
	switch ev.Kind {
	case model.KindEnter:
		f := msgFrame{region: ev.Region, call: -1, inner: inner}
		if n := len(l.stack); n > 0 {
			p := &l.stack[n-1]
			if p.childR == ev.Region && p.childCP != 0 {
				f.cp = p.childCP
			} else {
				f.cp = m.a.child(p.cp, ev.Region)
				p.childR, p.childCP = ev.Region, f.cp
			}
		} else {
			f.cp = m.a.child(0, ev.Region)
		}
		if m.a.region(ev.Region).op != opNone {
			f.call = m.newCall(msgCall{loc: ev.Loc, region: ev.Region, cp: f.cp, enter: ev.Time, refs: 1})
			if f.inner < 0 { // events belong to the outermost open MPI call
				f.inner = f.call
			}
		}
		l.stack = append(l.stack, f)
	case model.KindLeave:
		j := len(l.stack) - 1
		for j >= 0 && l.stack[j].region != ev.Region {
			j--
		}
		if j < 0 {
			return true
		}
		for len(l.stack) > j {
			if !m.pop(l, ev.Time, yield) {
				return false
			}
		}
	case model.KindSend:
		if ev.Peer == 0 {
			return true
		}
		k := chanKey{ev.Loc, ev.Peer, ev.Tag, ev.Comm}
		q := m.chanOf(k)
		var mi int32
		if len(q.recvs) > 0 {
			mi = q.recvs[0]
			q.recvs = q.recvs[1:]
		} else {
			mi = m.newMsg(msgRec{sender: ev.Loc, receiver: ev.Peer, tag: ev.Tag, comm: ev.Comm, send: -1, done: -1, post: -1, recv: -1})
			q.sends = append(q.sends, mi)
		}
		r := &m.msgs[mi]
		r.sendSeen, r.bytes, r.send, r.done = true, ev.Bytes, inner, inner
		m.ref(inner, mi)
		m.ref(inner, mi) // as the completion call
		if len(q.sends) == 0 && len(q.recvs) == 0 {
			delete(m.chans, k)
		}
		if ev.Match != 0 {
			if l.pending == nil {
				l.pending = map[uint64]int32{}
			}
			if old, ok := l.pending[ev.Match]; ok {
				m.msgs[old].waitDone = false
				if !m.check(old, yield) {
					return false
				}
			}
			r.waitDone = true
			l.pending[ev.Match] = mi
		}
		return m.check(mi, yield)
	case model.KindSendDone:
		mi, ok := l.pending[ev.Match]
		if !ok || inner < 0 {
			return true
		}
		delete(l.pending, ev.Match)
		r := &m.msgs[mi]
		m.unref(r.done)
		r.waitDone, r.done = false, inner
		m.ref(inner, mi)
		return m.check(mi, yield)
	case model.KindRecvPost:
		if ev.Match != 0 && inner >= 0 {
			if l.posts == nil {
				l.posts = map[uint64]int32{}
			}
			if old, ok := l.posts[ev.Match]; ok {
				m.unref(old)
			}
			l.posts[ev.Match] = inner
			m.calls[inner].refs++
		}
	case model.KindRecv:
		if ev.Peer == 0 {
			return true
		}
		post, posted := inner, false
		if ev.Match != 0 {
			if c, ok := l.posts[ev.Match]; ok {
				post, posted = c, true
				delete(l.posts, ev.Match)
			}
		}
		k := chanKey{ev.Peer, ev.Loc, ev.Tag, ev.Comm}
		q := m.chanOf(k)
		var mi int32
		if len(q.sends) > 0 {
			mi = q.sends[0]
			q.sends = q.sends[1:]
		} else {
			mi = m.newMsg(msgRec{sender: ev.Peer, receiver: ev.Loc, tag: ev.Tag, comm: ev.Comm, send: -1, done: -1, post: -1, recv: -1})
			q.recvs = append(q.recvs, mi)
		}
		r := &m.msgs[mi]
		r.recvSeen, r.post, r.recv = true, post, inner
		m.ref(post, mi)
		m.ref(inner, mi)
		if posted {
			m.unref(post) // the message's reference replaces the map's
		}
		if len(q.sends) == 0 && len(q.recvs) == 0 {
			delete(m.chans, k)
		}
		return m.check(mi, yield)
	}
	return true
}

func (m *msgStream) chanOf(k chanKey) *msgChan {
	q := m.chans[k]
	if q == nil {
		q = &msgChan{}
		m.chans[k] = q
	}
	return q
}

// pop closes the innermost frame of l at t.
func (m *msgStream) pop(l *msgLoc, t model.Time, yield func(*Message, error) bool) bool {
	f := l.stack[len(l.stack)-1]
	l.stack = l.stack[:len(l.stack)-1]
	if f.call < 0 {
		return true
	}
	c := &m.calls[f.call]
	c.leave, c.left = t, true
	msgs := c.msgs
	for _, mi := range msgs {
		if !m.check(mi, yield) {
			return false
		}
	}
	m.unref(f.call)
	return true
}

func (m *msgStream) leftOrNone(c int32) bool { return c < 0 || m.calls[c].left }

// check yields message mi if it is determined, and frees it.
func (m *msgStream) check(mi int32, yield func(*Message, error) bool) bool {
	r := &m.msgs[mi]
	if r.free || !r.sendSeen || !r.recvSeen || r.waitDone ||
		!m.leftOrNone(r.send) || !m.leftOrNone(r.done) || !m.leftOrNone(r.post) || !m.leftOrNone(r.recv) {
		return true
	}
	m.cur = Message{Sender: r.sender, Receiver: r.receiver, Tag: r.tag, Comm: r.comm, Bytes: r.bytes,
		Send: m.callOf(r.send), SendComplete: m.callOf(r.done), Post: m.callOf(r.post), Recv: m.callOf(r.recv)}
	r.free = true
	for _, c := range []int32{r.send, r.done, r.post, r.recv} {
		if c >= 0 {
			ms := m.calls[c].msgs
			for i, x := range ms {
				if x == mi {
					m.calls[c].msgs = append(ms[:i], ms[i+1:]...)
					break
				}
			}
		}
		m.unref(c)
	}
	m.freeMsg = append(m.freeMsg, mi)
	return yield(&m.cur, nil)
}

func (m *msgStream) callOf(c int32) Call {
	if c < 0 {
		return Call{}
	}
	x := &m.calls[c]
	return Call{Loc: x.loc, Region: x.region, CallPath: m.path(x.cp), Enter: x.enter, Leave: x.leave}
}

// path returns the call path string of node n.
func (m *msgStream) path(n uint32) string {
	for int(n) >= len(m.names) {
		m.names = append(m.names, "")
	}
	if n == 0 || m.names[n] != "" {
		return m.names[n]
	}
	k := m.a.nodes[n]
	name := ""
	if r, ok := m.a.defs.Region(k.region); ok {
		name = r.Name
	}
	if p := m.path(k.parent); p != "" || k.parent != 0 {
		name = p + "/" + name
	}
	m.names[n] = name
	return name
}

// end closes the streams: open calls leave at their location's last time,
// sends still waiting for a SendDone complete in their own call.
func (m *msgStream) end(yield func(*Message, error) bool) {
	for li := range m.locs {
		l := &m.locs[li]
		for _, mi := range l.pending {
			m.msgs[mi].waitDone = false
		}
		l.pending = nil
	}
	for li := range m.locs {
		l := &m.locs[li]
		for len(l.stack) > 0 {
			if !m.pop(l, l.last, yield) {
				return
			}
		}
	}
	// Messages whose calls all left earlier but waited for a SendDone.
	for mi := range m.msgs {
		if !m.check(int32(mi), yield) {
			return
		}
	}
}
