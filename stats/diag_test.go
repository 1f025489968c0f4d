package stats_test

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
)

// twoRanks defines locations 1, 2 and regions f (1), g (2), MPI_Recv (3),
// MPI_Send (4), MPI_Barrier (5).
func twoRanks() *model.Defs {
	d := new(model.Defs)
	d.AddLocation(model.Location{Native: 0})
	d.AddLocation(model.Location{Native: 1})
	d.AddRegion(model.Region{Native: 1, Name: "f", Kind: model.RegionFunction})
	d.AddRegion(model.Region{Native: 2, Name: "g", Kind: model.RegionFunction})
	d.AddRegion(model.Region{Native: 3, Name: "MPI_Recv", Kind: model.RegionComm})
	d.AddRegion(model.Region{Native: 4, Name: "MPI_Send", Kind: model.RegionComm})
	d.AddRegion(model.Region{Native: 5, Name: "MPI_Barrier", Kind: model.RegionCollective})
	return d
}

func enter(t model.Time, l model.LocID, r model.RegionID) model.Event {
	return model.Event{Time: t, Loc: l, Kind: model.KindEnter, Region: r}
}
func leave(t model.Time, l model.LocID, r model.RegionID) model.Event {
	return model.Event{Time: t, Loc: l, Kind: model.KindLeave, Region: r}
}
func send(t model.Time, l, peer model.LocID, bytes int64, f model.Flags) model.Event {
	return model.Event{Time: t, Loc: l, Kind: model.KindSend, Peer: peer, Bytes: bytes, Flags: f}
}
func recv(t model.Time, l, peer model.LocID, bytes int64, f model.Flags) model.Event {
	return model.Event{Time: t, Loc: l, Kind: model.KindRecv, Peer: peer, Bytes: bytes, Flags: f}
}

func TestDiagnosticsAndFallbacks(t *testing.T) {
	type fn struct {
		loc                model.LocID
		region             model.RegionID
		visits, incl, excl int64
	}
	tests := []struct {
		name   string
		opts   *stats.Options
		events []model.Event
		diag   stats.Diagnostics
		funcs  []fn        // checked when non-nil
		com    []stats.Com // checked when non-nil (ids, counts and times)
	}{
		{
			// The request, program and parameter events are known: they
			// are not counted as ignored, and a non-blocking message
			// matches like a blocking one (a RecvPost is not a receive).
			name: "requests, program begins and ends and parameters are not ignored",
			events: []model.Event{
				{Time: 0, Loc: 1, Kind: model.KindProgramBegin}, {Time: 0, Loc: 2, Kind: model.KindProgramBegin},
				enter(1, 1, 1), {Time: 1, Loc: 1, Kind: model.KindParameter, Text: 0, Value: 3},
				{Time: 1, Loc: 2, Kind: model.KindRecvPost, Peer: 1, Match: 1},
				{Time: 2, Loc: 1, Kind: model.KindSend, Peer: 2, Bytes: 8, Match: 1},
				{Time: 3, Loc: 1, Kind: model.KindSendDone, Match: 1},
				{Time: 4, Loc: 2, Kind: model.KindRecv, Peer: 1, Bytes: 8, Match: 1},
				leave(5, 1, 1), {Time: 6, Loc: 1, Kind: model.KindProgramEnd}, {Time: 6, Loc: 2, Kind: model.KindProgramEnd},
			},
			diag:  stats.Diagnostics{MatchedMessages: 1},
			funcs: []fn{{1, 1, 1, 4, 4}},
		},
		{
			name:   "a leave naming another region closes the innermost; one with nothing open is ignored",
			events: []model.Event{enter(0, 1, 1), leave(5, 1, 2), leave(10, 1, 1)},
			diag:   stats.Diagnostics{LeaveRegionMismatch: 1, UnmatchedLeave: 1},
			funcs:  []fn{{1, 1, 1, 5, 5}},
		},
		{
			name:   "a leave of an outer region closes the innermost only",
			events: []model.Event{enter(0, 1, 1), enter(2, 1, 2), leave(10, 1, 1), leave(12, 1, 2)},
			diag:   stats.Diagnostics{LeaveRegionMismatch: 2},
			funcs:  []fn{{1, 1, 1, 12, 4}, {1, 2, 1, 8, 8}},
		},
		{
			name:   "a leave of region 0 closes the innermost",
			events: []model.Event{enter(0, 1, 1), enter(2, 1, 2), leave(10, 1, 0), leave(12, 1, 0)},
			funcs:  []fn{{1, 1, 1, 12, 4}, {1, 2, 1, 8, 8}},
		},
		{
			name:   "open frames close at the location's last time",
			events: []model.Event{enter(0, 1, 1), enter(3, 1, 2), {Time: 12, Loc: 1, Kind: model.KindMarker}, enter(1, 2, 1), leave(4, 2, 1)},
			diag:   stats.Diagnostics{OpenAtEnd: 2, NonMonotonic: 0},
			funcs:  []fn{{1, 1, 1, 12, 3}, {1, 2, 1, 9, 9}, {2, 1, 1, 3, 3}},
		},
		{
			name:   "decreasing time is counted and durations clamp at 0",
			events: []model.Event{enter(10, 1, 1), leave(5, 1, 1)},
			diag:   stats.Diagnostics{NonMonotonic: 1},
			funcs:  []fn{{1, 1, 1, 0, 0}},
		},
		{
			name: "events with undefined ids are ignored",
			events: []model.Event{{Time: 1, Kind: model.KindEnter, Region: 1}, enter(1, 9, 1), enter(1, 1, 99), enter(1, 1, 0),
				{Time: 2, Loc: 1, Kind: model.Kind(77)}},
			diag:  stats.Diagnostics{Ignored: 5},
			funcs: []fn{},
		},
		{
			name: "unmatched receive: waited is all sync, not waited all transmission",
			events: []model.Event{
				enter(0, 1, 3), recv(10, 1, 2, 8, model.Waited), leave(10, 1, 3),
				enter(20, 1, 3), recv(25, 1, 2, 8, model.NotWaited), leave(25, 1, 3),
				enter(30, 1, 4), send(31, 1, 2, 8, model.SyncMode), leave(33, 1, 4),
			},
			diag: stats.Diagnostics{UnmatchedRecv: 2, UnmatchedSend: 1},
			com: []stats.Com{
				{LocID: 1, OpID: 3, PeerID: 2, Dir: "recv", Count: 2, Bytes: 16, SyncDelay: 10, TransTime: 5},
				{LocID: 1, OpID: 4, PeerID: 2, Dir: "send", Count: 1, Bytes: 8, SyncDelay: 0, TransTime: 3},
			},
		},
		{
			name: "late sender and late receiver",
			events: []model.Event{
				enter(0, 2, 3),                                      // receiver waits from 0
				enter(10, 1, 4), send(11, 1, 2, 64, model.SyncMode), // synchronous send enters at 10
				recv(30, 2, 1, 64, 0), leave(30, 2, 3), leave(40, 1, 4), // receive ends at 30
			},
			diag: stats.Diagnostics{MatchedMessages: 1},
			com: []stats.Com{
				{LocID: 1, OpID: 4, PeerID: 2, Dir: "send", Count: 1, Bytes: 64, SyncDelay: 0, TransTime: 30, Matched: 1},
				{LocID: 2, OpID: 3, PeerID: 1, Dir: "recv", Count: 1, Bytes: 64, SyncDelay: 10, TransTime: 20, Matched: 1},
			},
		},
		{
			name: "receive before send in the stream still matches",
			events: []model.Event{
				enter(0, 2, 3), recv(5, 2, 1, 4, 0), leave(6, 2, 3),
				enter(7, 1, 4), send(8, 1, 2, 4, 0), leave(9, 1, 4),
			},
			diag: stats.Diagnostics{MatchedMessages: 1, Backward: 1},
		},
		{
			name: "an operation with two messages charges its time to the longest wait",
			events: []model.Event{
				enter(0, 1, 4), send(1, 1, 2, 4, 0), leave(2, 1, 4),
				enter(0, 2, 3), enter(3, 1, 4), send(4, 1, 2, 8, 0), leave(5, 1, 4),
				recv(6, 2, 1, 4, 0), recv(6, 2, 1, 8, 0), leave(7, 2, 3),
			},
			diag: stats.Diagnostics{MatchedMessages: 2},
			com: []stats.Com{
				{LocID: 1, OpID: 4, PeerID: 2, Dir: "send", Count: 2, Bytes: 12, TransTime: 4, Matched: 2},
				{LocID: 2, OpID: 3, PeerID: 1, Dir: "recv", Count: 2, Bytes: 12, SyncDelay: 3, TransTime: 4, Matched: 2},
			},
		},
		{
			name:   "pending endpoints beyond MaxPending are evicted",
			opts:   &stats.Options{MaxPending: 1},
			events: []model.Event{send(1, 1, 2, 1, 0), send(2, 1, 2, 1, 0), send(3, 1, 2, 1, 0), recv(4, 2, 1, 1, 0)},
			diag:   stats.Diagnostics{UnmatchedSend: 2, PendingEvicted: 2, MatchedMessages: 1},
		},
		{
			name: "collective end without a begin, and an instance left open",
			events: []model.Event{
				{Time: 1, Loc: 1, Kind: model.KindCollEnd},
				{Time: 2, Loc: 1, Kind: model.KindCollBegin, Region: 5, Class: model.ClassBarrier, Match: 7},
				{Time: 3, Loc: 2, Kind: model.KindCollEnd, Match: 7},
			},
			diag: stats.Diagnostics{UnmatchedCollEnd: 2, OpenCollectives: 1, HeldCollectives: 1}, // no communicator: held to the end
		},
		{
			name:   "sums saturate and count an overflow",
			events: []model.Event{enter(math.MinInt64+1, 1, 1), leave(0, 1, 1), enter(0, 1, 1), leave(math.MaxInt64, 1, 1)},
			diag:   stats.Diagnostics{Overflow: 5}, // activation sum, excl, incl, edge incl, edge excl
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			acc := stats.New(twoRanks(), tt.opts)
			for i := range tt.events {
				acc.Add(&tt.events[i])
			}
			rep := acc.Finalize()
			if diff := cmp.Diff(tt.diag, rep.Final.Diagnostics); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
			if tt.funcs != nil {
				var got []fn
				for _, f := range rep.Final.Functions {
					got = append(got, fn{f.LocID, f.RegionID, f.Visits, int64(f.Incl), int64(f.Excl)})
				}
				if diff := cmp.Diff(tt.funcs, got, cmpopts.EquateEmpty(), cmp.AllowUnexported(fn{})); diff != "" {
					t.Errorf("functions (-want +got):\n%s", diff)
				}
			}
			if tt.com != nil {
				got := rep.Final.Com
				for i := range got {
					c := got[i]
					got[i] = stats.Com{LocID: c.LocID, OpID: c.OpID, PeerID: c.PeerID, Dir: c.Dir, Count: c.Count, Bytes: c.Bytes, SyncDelay: c.SyncDelay, TransTime: c.TransTime, Matched: c.Matched}
				}
				if diff := cmp.Diff(tt.com, got); diff != "" {
					t.Errorf("COM (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestFinalizeKeepsStreaming checks that Add may continue after Finalize.
func TestFinalizeKeepsStreaming(t *testing.T) {
	acc := stats.New(twoRanks(), nil)
	for _, ev := range []model.Event{enter(0, 1, 1), enter(2, 1, 2)} {
		acc.Add(&ev)
	}
	mid := acc.Finalize()
	if mid.Final.Diagnostics.OpenAtEnd != 2 {
		t.Fatalf("open at end %d, want 2", mid.Final.Diagnostics.OpenAtEnd)
	}
	for _, ev := range []model.Event{leave(5, 1, 2), leave(9, 1, 1)} {
		acc.Add(&ev)
	}
	end := acc.Finalize()
	if d := end.Final.Diagnostics; d != (stats.Diagnostics{}) {
		t.Fatalf("diagnostics after the stream closed: %+v", d)
	}
	if f := end.Final.Functions[0]; f.Incl != 9 || f.Excl != 6 {
		t.Fatalf("f: incl %d excl %d, want 9 and 6", f.Incl, f.Excl)
	}
}

// TestUnknownPeer: message ends without a known partner (Peer 0, as a
// DUMPI communicator of unknown membership gives) are unmatched at once,
// counted in UnknownPeer, and named by no matrix, transfer or COM record
// as a partner: nothing says "location 0" or native 0 for them.
func TestUnknownPeer(t *testing.T) {
	evs := []model.Event{
		enter(0, 1, 4), send(1, 1, 0, 8, 0), send(2, 1, 2, 16, 0), leave(3, 1, 4),
		enter(0, 2, 3), recv(4, 2, 0, 8, 0), recv(5, 2, 1, 16, 0), leave(6, 2, 3),
	}
	acc := stats.New(twoRanks(), nil)
	for i := range evs {
		acc.Add(&evs[i])
	}
	rep := acc.Finalize()
	d := rep.Final.Diagnostics
	if d.UnknownPeer != 2 || d.UnmatchedSend != 1 || d.UnmatchedRecv != 1 || d.MatchedMessages != 1 || d.PendingEvicted != 0 {
		t.Errorf("diagnostics %+v", d)
	}
	for _, m := range append(rep.Final.MatrixSend, rep.Final.MatrixRecv...) {
		if m.SenderID == 0 || m.ReceiverID == 0 || m.Count != 1 || m.Bytes != 16 {
			t.Errorf("matrix entry %+v", m)
		}
	}
	for _, x := range rep.Final.TransferTime {
		if x.SenderID == 0 || x.ReceiverID == 0 {
			t.Errorf("transfer %+v", x)
		}
	}
	unknown := 0
	for _, c := range rep.Final.Com {
		if c.PeerID == 0 {
			unknown++
			if c.Peer != -1 || c.Count != 1 || c.Bytes != 8 || c.Matched != 0 {
				t.Errorf("COM record of an unknown peer %+v", c)
			}
		} else if c.Peer == -1 || c.Matched != 1 {
			t.Errorf("COM record %+v", c)
		}
	}
	if unknown != 2 {
		t.Errorf("%d COM records of unknown peers, want 2", unknown)
	}
}
