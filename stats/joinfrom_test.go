package stats_test

import (
	"bytes"
	"testing"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
	"pgregory.net/rapid"
)

// propJoinFrom: the shards of a random partition of the locations, live
// (some spilling their waiting message ends) or saved and read back, some
// with statistics merged in, joined with JoinFrom or Join at random, in a
// random order and tree shape, give the report of one pass over the
// whole trace, byte for byte; a state JoinFrom used up holds nothing but
// its definitions.
func propJoinFrom(t *rapid.T) {
	d, events := shardTrace(t)
	opts := &stats.Options{MaxPending: 1 << 20}
	nshard := rapid.IntRange(2, 5).Draw(t, "nshard")
	owner := make([]int, d.NumLocations()+1)
	for l := 1; l <= d.NumLocations(); l++ {
		owner[l] = rapid.IntRange(0, nshard-1).Draw(t, "owner")
	}
	var parts []*stats.Accumulator
	for s := range nshard {
		acc := stats.New(d, opts)
		stats.SpillAt(acc, rapid.SampledFrom([]int{-1, 1, 2}).Draw(t, "spillAt"))
		for i := range events {
			if ev := &events[i]; owner[ev.Loc] == s {
				acc.Add(ev)
			}
		}
		if rapid.Bool().Draw(t, "saved") {
			data, err := acc.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			acc = new(stats.Accumulator)
			if err := acc.UnmarshalBinary(data); err != nil {
				t.Fatal(err)
			}
		}
		parts = append(parts, acc)
	}
	// Any order of the leaves, then any tree over them.
	parts = rapid.Permutation(parts).Draw(t, "order")
	for len(parts) > 1 {
		i := rapid.IntRange(0, len(parts)-2).Draw(t, "join")
		a, b := parts[i], parts[i+1]
		if rapid.Bool().Draw(t, "use") {
			defs := b.Defs()
			if err := a.JoinFrom(b); err != nil {
				t.Fatal(err)
			}
			if b.Defs() != defs {
				t.Fatalf("a used-up state's definitions: got %p, want %p", b.Defs(), defs)
			}
		} else if err := a.Join(b); err != nil {
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
		t.Fatalf("shards joined with JoinFrom differ from one pass:\n%s", firstDiff(jw, jj))
	}
}

func TestJoinFrom(t *testing.T) { rapid.Check(t, propJoinFrom) }

// TestJoinFromError: a JoinFrom that fails (a location in both, a state
// joined with itself) leaves both states as they were: each still
// reports its own events.
func TestJoinFromError(t *testing.T) {
	d := new(model.Defs)
	d.AddLocation(model.Location{Native: 0})
	d.AddLocation(model.Location{Native: 1})
	d.AddRegion(model.Region{Name: "f"})
	newAcc := func(locs ...model.LocID) *stats.Accumulator {
		acc := stats.New(d, nil)
		for _, l := range locs {
			acc.Add(&model.Event{Kind: model.KindEnter, Loc: l, Time: 1, Region: 1})
			acc.Add(&model.Event{Kind: model.KindSend, Loc: l, Time: 2, Peer: 3 - l, Tag: 7, Bytes: 8})
		}
		return acc
	}
	a, b := newAcc(1), newAcc(1, 2)
	wantA, wantB := reportJSON(t, newAcc(1)), reportJSON(t, newAcc(1, 2))
	if err := a.JoinFrom(b); err == nil {
		t.Fatal("JoinFrom of a state with a location in common: got no error")
	}
	if err := a.JoinFrom(a); err == nil {
		t.Fatal("JoinFrom of a state with itself: got no error")
	}
	if got := reportJSON(t, a); !bytes.Equal(got, wantA) {
		t.Errorf("a after the failed joins:\n%s", firstDiff(wantA, got))
	}
	if got := reportJSON(t, b); !bytes.Equal(got, wantB) {
		t.Errorf("b after the failed join:\n%s", firstDiff(wantB, got))
	}
}
