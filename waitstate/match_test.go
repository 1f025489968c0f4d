package waitstate

import (
	"testing"

	"github.com/hpctrace/hpctrace/model"
)

// TestMatchWideKeys checks that channels are told apart by their whole
// tag and communicator, whether or not their ids fit the packed key of
// match: a tag that differs only above its low 16 bits, or a negative
// one, is another channel.
func TestMatchWideKeys(t *testing.T) {
	for _, c := range []struct {
		name             string
		sendTag, recvTag int32
		matched          int64
	}{
		{"small", 5, 5, 1},
		{"wide", 5 + 1<<16, 5 + 1<<16, 1},
		{"negative", -3, -3, 1},
		{"wide vs small", 5 + 1<<16, 5, 0},
		{"small vs wide", 5, 5 + 1<<16, 0},
		{"negative vs low bits", -1, 0xffff, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := newTB(2)
			b.call(1, 10, 20, "MPI_Send", send(2, c.sendTag))
			b.call(2, 5, 30, "MPI_Recv", recv(1, c.recvTag))
			d := b.analyze(t, nil).Diagnostics
			if d.MatchedMessages != c.matched || d.UnmatchedSends != 1-c.matched || d.UnmatchedRecvs != 1-c.matched {
				t.Errorf("matched %d, unmatched sends %d, receives %d; want %d, %d, %d",
					d.MatchedMessages, d.UnmatchedSends, d.UnmatchedRecvs, c.matched, 1-c.matched, 1-c.matched)
			}
		})
	}
	// A communicator id past 16 bits: a send on the world and a receive
	// on that communicator, its low 16 bits the world's, do not match.
	b := newTB(2)
	var comm model.CommID
	for range 1 << 16 {
		comm = b.defs.AddComm(model.Comm{Members: []model.LocID{1, 2}})
	}
	r := recv(1, 7)
	r.Comm = comm
	b.call(1, 10, 20, "MPI_Send", send(2, 7))
	b.call(2, 5, 30, "MPI_Recv", r)
	if d := b.analyze(t, nil).Diagnostics; d.MatchedMessages != 0 || d.UnmatchedSends != 1 || d.UnmatchedRecvs != 1 {
		t.Errorf("wide communicator: matched %d, unmatched sends %d, receives %d; want 0, 1, 1", d.MatchedMessages, d.UnmatchedSends, d.UnmatchedRecvs)
	}
}
