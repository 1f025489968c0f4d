package stats_test

import (
	"bytes"
	"cmp"
	"reflect"
	"runtime"
	"slices"
	"testing"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
)

// lagRound appends round r of a ring in which each location sends one
// message to the next and receives, in the same round, the message its
// predecessor sent lag rounds before; so about synthLocs*lag messages are
// in flight at any time. tag gives the tag of round r's messages.
func lagRound(buf []model.Event, r, lag int64, tag func(int64) int32) []model.Event {
	buf = buf[:0]
	T := model.Time(r * 1000)
	for l := range int64(synthLocs) {
		loc := model.LocID(l + 1)
		at := func(dt int64) model.Time { return T + model.Time(dt) }
		next := model.LocID((l+1)%synthLocs + 1)
		prev := model.LocID((l+synthLocs-1)%synthLocs + 1)
		buf = append(buf,
			model.Event{Time: at(500 + l), Loc: loc, Kind: model.KindEnter, Region: 3},
			model.Event{Time: at(501 + l), Loc: loc, Kind: model.KindSend, Peer: next, Comm: 1, Tag: tag(r), Bytes: 64 + r%7},
			model.Event{Time: at(510 + l), Loc: loc, Kind: model.KindLeave, Region: 3},
		)
		if r >= lag {
			buf = append(buf,
				model.Event{Time: at(520 + l), Loc: loc, Kind: model.KindEnter, Region: 4},
				model.Event{Time: at(560 + l), Loc: loc, Kind: model.KindRecv, Peer: prev, Comm: 1, Tag: tag(r - lag), Bytes: 64 + (r-lag)%7},
				model.Event{Time: at(570 + l), Loc: loc, Kind: model.KindLeave, Region: 4},
			)
		}
	}
	slices.SortStableFunc(buf, func(a, b model.Event) int { return cmp.Compare(a.Time, b.Time) })
	return buf
}

// runLag feeds rounds [from, to) of lagRound to acc.
func runLag(acc *stats.Accumulator, from, to, lag int64, tag func(int64) int32) {
	var buf []model.Event
	for r := from; r < to; r++ {
		buf = lagRound(buf, r, lag, tag)
		for i := range buf {
			acc.Add(&buf[i])
		}
	}
}

func distinctTag(r int64) int32 { return int32(r) }

// TestChannelStateBounded pins that the matching state follows the
// messages in flight, not the channels ever seen: with a new tag for every
// message (so a new channel per message), the live heap after 480,000
// messages is that after 80,000.
func TestChannelStateBounded(t *testing.T) {
	const lag = 100
	acc := stats.New(synthDefs(), nil)
	live := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	runLag(acc, 0, 10_000, lag, distinctTag)
	h1 := live()
	runLag(acc, 10_000, 60_000, lag, distinctTag)
	h2 := live()
	runtime.KeepAlive(acc)
	t.Logf("live heap after 80,000 messages: %d KiB, after 480,000: %d KiB", h1>>10, h2>>10)
	if h2 > h1+2<<20 {
		t.Errorf("live heap grew by %d KiB over 400,000 messages with distinct tags; want < 2 MiB", (h2-h1)>>10)
	}
	// Dropping reuses the storage: the channel state allocates about one
	// queue per new channel, not a new table per drop.
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	runLag(acc, 60_000, 70_000, lag, distinctTag)
	runtime.ReadMemStats(&after)
	perMsg := float64(after.TotalAlloc-before.TotalAlloc) / (10_000 * synthLocs)
	t.Logf("%.1f bytes allocated per message", perMsg)
	if perMsg > 64 {
		t.Errorf("%.0f bytes allocated per message with distinct tags; want ≤ 64", perMsg)
	}
	d := acc.Finalize().Final.Diagnostics
	if want := int64(70_000-lag) * synthLocs; d.MatchedMessages != want {
		t.Errorf("MatchedMessages = %d, want %d", d.MatchedMessages, want)
	}
}

// TestChannelDropSameReport checks that dropping idle channels changes no
// statistic: a run with a new tag per message, which drops channels while
// messages are in flight on others, reports what the same run reports
// with tags reused (lag+1 of them, so that a channel never falls idle for
// long and one message at a time is in flight on it).
func TestChannelDropSameReport(t *testing.T) {
	const lag, rounds = 100, 3000
	distinct := stats.New(synthDefs(), nil)
	runLag(distinct, 0, rounds, lag, distinctTag)
	reused := stats.New(synthDefs(), nil)
	runLag(reused, 0, rounds, lag, func(r int64) int32 { return int32(r % (lag + 1)) })
	a, b := distinct.Finalize(), reused.Finalize()
	if a.Final.Diagnostics.MatchedMessages == 0 || a.Final.Diagnostics.UnmatchedSend != lag*synthLocs {
		t.Fatalf("workload not as designed: %+v", a.Final.Diagnostics)
	}
	if !reflect.DeepEqual(a, b) {
		var ta, tb bytes.Buffer
		if err := a.WriteText(&ta, nil); err != nil {
			t.Fatal(err)
		}
		if err := b.WriteText(&tb, nil); err != nil {
			t.Fatal(err)
		}
		t.Errorf("reports differ\ndistinct tags:\n%s\nreused tags:\n%s", ta.String(), tb.String())
	}
}
