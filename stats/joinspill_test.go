package stats_test

import (
	"bytes"
	"testing"

	"github.com/hpctrace/hpctrace/stats"
	"pgregory.net/rapid"
)

// propJoinSpilled: live shards that spill their waiting message ends
// (those that wait for another shard's locations pile up until the join)
// joined in a random tree give the report of one pass that spills
// nothing, byte for byte: the join reads the spilled ends of both sides
// back (the file in one piece) and the joined state may spill again.
func propJoinSpilled(t *rapid.T) {
	d, events := shardTrace(t)
	opts := &stats.Options{MaxPending: 1 << 20}
	nshard := rapid.IntRange(2, 4).Draw(t, "nshard")
	var parts []*stats.Accumulator
	for s := range nshard {
		acc := stats.New(d, opts)
		stats.SpillAt(acc, rapid.SampledFrom([]int{-1, 1, 2, 3}).Draw(t, "spillAt"))
		for i := range events {
			if ev := &events[i]; (int(ev.Loc)-1)*nshard/d.NumLocations() == s {
				acc.Add(ev)
			}
		}
		parts = append(parts, acc)
	}
	for len(parts) > 1 {
		i := rapid.IntRange(0, len(parts)-2).Draw(t, "join")
		a, b := parts[i], parts[i+1]
		if rapid.Bool().Draw(t, "swap") {
			a, b = b, a
		}
		if err := a.Join(b); err != nil {
			t.Fatal(err)
		}
		parts = append(parts[:i], append([]*stats.Accumulator{a}, parts[i+2:]...)...)
	}
	whole := stats.New(d, opts)
	stats.SpillAt(whole, -1)
	for i := range events {
		whole.Add(&events[i])
	}
	if jw, jj := reportJSON(t, whole), reportJSON(t, parts[0]); !bytes.Equal(jw, jj) {
		t.Fatalf("joined spilling shards differ from one pass:\n%s", firstDiff(jw, jj))
	}
}

func TestJoinSpilled(t *testing.T) { rapid.Check(t, propJoinSpilled) }
