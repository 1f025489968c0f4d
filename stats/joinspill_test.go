package stats_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/hpctrace/hpctrace/model"
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

// TestJoinSpilledFile: two shards, one of a sender and one of its
// receiver, whose ends all wait for the other and spill to their files
// (well past the write-behind block, so the join reads the files
// themselves), join to the report of one pass that spills nothing, in
// either order.
func TestJoinSpilledFile(t *testing.T) {
	d := new(model.Defs)
	d.TimeBase.TicksPerSecond = 1000
	for i := range 2 {
		d.AddLocation(model.Location{Native: int64(i), Process: int32(i)})
	}
	send := d.AddRegion(model.Region{Name: "send", Kind: model.RegionComm})
	recv := d.AddRegion(model.Region{Name: "recv", Kind: model.RegionComm})
	const n = 3000
	var evs []model.Event
	for i := range n {
		tm := model.Time(4 * i)
		evs = append(evs,
			model.Event{Time: tm, Loc: 1, Kind: model.KindEnter, Region: send},
			model.Event{Time: tm, Loc: 1, Kind: model.KindSend, Peer: 2, Tag: int32(i % 7), Bytes: int64(i)},
			model.Event{Time: tm + 1, Loc: 1, Kind: model.KindLeave, Region: send},
			model.Event{Time: tm + 2, Loc: 2, Kind: model.KindEnter, Region: recv},
			model.Event{Time: tm + 2, Loc: 2, Kind: model.KindRecv, Peer: 1, Tag: int32(i % 7), Bytes: int64(i)},
			model.Event{Time: tm + 3, Loc: 2, Kind: model.KindLeave, Region: recv})
	}
	whole := stats.New(d, nil)
	stats.SpillAt(whole, -1)
	for i := range evs {
		whole.Add(&evs[i])
	}
	want := reportJSON(t, whole)
	for _, swap := range []bool{false, true} {
		shard := func(l model.LocID) *stats.Accumulator {
			a := stats.New(d, nil)
			stats.SpillAt(a, 10)
			for i := range evs {
				if evs[i].Loc == l {
					a.Add(&evs[i])
				}
			}
			if spills, _ := stats.Spilled(a); spills < n/2 {
				t.Fatalf("location %d: %d ends spilled, want most of %d", l, spills, n)
			}
			return a
		}
		a, b := shard(1), shard(2)
		if swap {
			a, b = b, a
		}
		if err := a.Join(b); err != nil {
			t.Fatal(err)
		}
		if got := reportJSON(t, a); !bytes.Equal(want, got) {
			t.Fatalf("swap %v: joined shards differ from one pass:\n%s", swap, firstDiff(want, got))
		}
	}
}

// TestJoinSpillWritesBack: a join whose side a has spilled ends, which
// the other side's ends match (freeing their slots in a's file), and
// which then spills the other side's ends that still wait into those
// slots, rewrites them in the file read in one piece and writes them
// back at once, not a write per slot; if that write fails, the records
// stay in memory, and the report is one pass's either way.
func TestJoinSpillWritesBack(t *testing.T) {
	d := new(model.Defs)
	d.TimeBase.TicksPerSecond = 1000
	for i := range 3 {
		d.AddLocation(model.Location{Native: int64(i), Process: int32(i)})
	}
	send := d.AddRegion(model.Region{Name: "send", Kind: model.RegionComm})
	recv := d.AddRegion(model.Region{Name: "recv", Kind: model.RegionComm})
	const n = 2000
	var evs []model.Event
	for i := range n {
		tm := model.Time(6 * i)
		evs = append(evs,
			model.Event{Time: tm, Loc: 1, Kind: model.KindEnter, Region: send},
			model.Event{Time: tm, Loc: 1, Kind: model.KindSend, Peer: 2, Tag: 1, Bytes: int64(i)},
			model.Event{Time: tm + 1, Loc: 1, Kind: model.KindLeave, Region: send},
			model.Event{Time: tm + 2, Loc: 2, Kind: model.KindEnter, Region: recv},
			model.Event{Time: tm + 2, Loc: 2, Kind: model.KindRecv, Peer: 1, Tag: 1, Bytes: int64(i)},
			model.Event{Time: tm + 3, Loc: 2, Kind: model.KindLeave, Region: recv},
			// Location 3 has no events: these wait to the end.
			model.Event{Time: tm + 4, Loc: 2, Kind: model.KindEnter, Region: send},
			model.Event{Time: tm + 4, Loc: 2, Kind: model.KindSend, Peer: 3, Tag: 2, Bytes: int64(i)},
			model.Event{Time: tm + 5, Loc: 2, Kind: model.KindLeave, Region: send})
	}
	whole := stats.New(d, nil)
	stats.SpillAt(whole, -1)
	for i := range evs {
		whole.Add(&evs[i])
	}
	want := reportJSON(t, whole)
	errWrite := errors.New("injected write failure")
	for _, fail := range []error{nil, errWrite} {
		dir := t.TempDir()
		shard := func(l model.LocID, at int) *stats.Accumulator {
			a := stats.New(d, &stats.Options{SpillDir: dir})
			stats.SpillAt(a, at)
			for i := range evs {
				if evs[i].Loc == l {
					a.Add(&evs[i])
				}
			}
			return a
		}
		a, b := shard(1, 10), shard(2, -1)
		if spills, _ := stats.Spilled(a); spills < n/2 {
			t.Fatalf("%d ends spilled, want most of %d", spills, n)
		}
		writes := stats.CountSpillWrites(a, fail)
		before, _ := stats.Spilled(a)
		if err := a.JoinFrom(b); err != nil {
			t.Fatal(err)
		}
		spills, _ := stats.Spilled(a)
		if fail == nil && spills-before < n/2 {
			t.Fatalf("the join spilled %d ends, want most of %d", spills-before, n)
		}
		// The slots are rewritten in a block read whole, written back
		// once; new records past the file go through the write-behind
		// tail (a write each 64 KiB).
		if got, most := writes(), 1+int(spills-before)*200/(64<<10)+1; got > most {
			t.Errorf("fail %v: the join wrote the spill file %d times for %d spilled ends, want at most %d", fail, got, spills-before, most)
		}
		if got := reportJSON(t, a); !bytes.Equal(want, got) {
			t.Fatalf("fail %v: joined shards differ from one pass:\n%s", fail, firstDiff(want, got))
		}
		if err := a.Err(); err != nil {
			t.Fatalf("fail %v: Err() = %v", fail, err)
		}
	}
}
