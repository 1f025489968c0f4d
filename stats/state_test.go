package stats_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/picl"
	"github.com/hpctrace/hpctrace/stats"
	"pgregory.net/rapid"
)

// shardTrace returns a random trace whose one-pass statistics do not
// depend on how its locations are interleaved: its collectives are
// numbered per location on a communicator of every location, and the
// members of one agree on its class and root. Now and then the
// communicator's members are not defined: its calls are held to the end
// of the run (and saved and joined as such).
func shardTrace(t *rapid.T) (*model.Defs, []model.Event) {
	d, events := genTrace(t)
	all := make([]model.LocID, d.NumLocations())
	for i := range all {
		all[i] = model.LocID(i + 1)
	}
	if rapid.IntRange(0, 3).Draw(t, "unknownMembers") == 0 {
		all = nil
	}
	d.AddComm(model.Comm{Native: 0, Name: "world", Members: all})
	if rapid.Bool().Draw(t, "recorded") {
		d.Recorded = append(d.Recorded, model.Recorded{Kind: model.RecordedCount, Loc: 1, Region: 1, Value: 3})
	}
	// The members of an instance agree on its class and root.
	class := model.Class(rapid.IntRange(0, 4).Draw(t, "class"))
	root := model.LocID(rapid.IntRange(0, d.NumLocations()).Draw(t, "root"))
	for i := range events {
		if k := events[i].Kind; k == model.KindCollBegin || k == model.KindCollEnd {
			events[i].Match = 0
			if k == model.KindCollBegin {
				events[i].Class, events[i].Peer = class, root
			}
		}
	}
	return d, events
}

func feedTree(d *model.Defs, events []model.Event, locs map[model.LocID]bool) *stats.CallTree {
	ct := stats.NewCallTree(d, nil)
	for i := range events {
		if locs == nil || locs[events[i].Loc] {
			ct.Add(&events[i])
		}
	}
	return ct
}

type shardState struct {
	acc  *stats.Accumulator
	tree *stats.CallTree
}

// propJoinTree: the shards of a random partition of the locations, saved,
// read back and joined in a random tree, give the report and call tree of
// one pass over the whole trace, byte for byte.
func propJoinTree(t *rapid.T) {
	d, events := shardTrace(t)
	opts := &stats.Options{MaxPending: 1 << 20, Relative: picl.RelativeStats(-1, 1),
		IdleRegions: []model.RegionID{1}}
	nshard := rapid.IntRange(1, 4).Draw(t, "nshard")
	var parts []shardState
	covered := map[model.LocID]bool{}
	for s := range nshard + 1 { // the last shard is empty
		locs := map[model.LocID]bool{}
		for l := 1; l <= d.NumLocations(); l++ {
			if l%nshard == s {
				locs[model.LocID(l)] = true
			}
		}
		if rapid.Bool().Draw(t, "randomShard") && s < nshard {
			locs = map[model.LocID]bool{}
			for l := 1; l <= d.NumLocations(); l++ {
				if rapid.IntRange(0, nshard-1).Draw(t, "owner") == s {
					locs[model.LocID(l)] = true
				}
			}
		}
		// Locations in two shards would be refused; keep the first.
		for l := range locs {
			if covered[l] {
				delete(locs, l)
			}
		}
		for l := range locs {
			covered[l] = true
		}
		data, err := feed(d, events, locs, opts).MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		tdata, err := feedTree(d, events, locs).MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		acc := new(stats.Accumulator)
		if err := acc.UnmarshalBinary(data); err != nil {
			t.Fatal(err)
		}
		if s == 0 && rapid.Bool().Draw(t, "live") {
			// A live accumulator joins decoded ones, as the root of a
			// reduction does.
			acc = feed(d, events, locs, opts)
		}
		tree := stats.NewCallTree(acc.Defs(), nil)
		if err := tree.UnmarshalBinary(tdata); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, shardState{acc, tree})
	}
	// Locations no shard took are left out of the serial run too.
	var kept []model.Event
	for _, ev := range events {
		if covered[ev.Loc] {
			kept = append(kept, ev)
		}
	}
	for len(parts) > 1 {
		i := rapid.IntRange(0, len(parts)-2).Draw(t, "join")
		a, b := parts[i], parts[i+1]
		if rapid.Bool().Draw(t, "swap") {
			a, b = b, a
		}
		if err := a.acc.Join(b.acc); err != nil {
			t.Fatal(err)
		}
		if err := a.tree.Join(b.tree); err != nil {
			t.Fatal(err)
		}
		parts = append(parts[:i], append([]shardState{a}, parts[i+2:]...)...)
	}
	whole := feed(d, kept, nil, opts)
	jw, jj := reportJSON(t, whole), reportJSON(t, parts[0].acc)
	if !bytes.Equal(jw, jj) {
		t.Fatalf("joined shards differ from one pass:\n%s", firstDiff(jw, jj))
	}
	tw, _ := json.Marshal(feedTree(d, kept, nil).Root())
	tj, _ := json.Marshal(parts[0].tree.Root())
	if !bytes.Equal(tw, tj) {
		t.Fatalf("joined call trees differ from one pass:\n%s", firstDiff(tw, tj))
	}
}

func TestJoinTree(t *testing.T) { rapid.Check(t, propJoinTree) }

func TestStateErrors(t *testing.T) {
	d := new(model.Defs)
	d.AddLocation(model.Location{Native: 0})
	acc := stats.New(d, nil)
	acc.Add(&model.Event{Kind: model.KindMarker, Loc: 1, Time: 5})
	data, err := acc.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	// Every truncation is an error, never a panic.
	for n := range len(data) {
		if err := new(stats.Accumulator).UnmarshalBinary(data[:n]); !errors.Is(err, stats.ErrState) {
			t.Fatalf("truncated at %d: %v", n, err)
		}
	}
	// Another version is refused.
	bad := bytes.Clone(data)
	bad[len("hpctrace-stats\x00")]++
	if err := new(stats.Accumulator).UnmarshalBinary(bad); !errors.Is(err, stats.ErrState) {
		t.Fatalf("other version: %v", err)
	}
	// A location in two states is refused.
	a, b := new(stats.Accumulator), new(stats.Accumulator)
	if err := a.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	if err := b.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	if err := a.Join(b); err == nil {
		t.Fatal("a location in both states was joined")
	}
	// Samples cannot be saved.
	if _, err := stats.New(d, &stats.Options{SampleTimes: []model.Time{1}}).MarshalBinary(); err == nil {
		t.Fatal("an accumulator with samples was saved")
	}
}

func FuzzDecode(f *testing.F) {
	d, events := genFixed()
	for _, locs := range []map[model.LocID]bool{nil, {1: true}, {2: true}} {
		data, err := feed(d, events, locs, &stats.Options{Relative: picl.RelativeStats()}).MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		tdata, err := feedTree(d, events, locs).MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(tdata)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		acc := new(stats.Accumulator)
		if err := acc.UnmarshalBinary(data); err == nil {
			// A state that decodes can be finalized and joined.
			acc.Finalize()
			if err := acc.Join(stats.New(acc.Defs(), nil)); err != nil && !bytes.Contains([]byte(err.Error()), []byte("options")) {
				t.Fatal(err)
			}
		} else if !errors.Is(err, stats.ErrState) {
			t.Fatalf("error not wrapping ErrState: %v", err)
		}
		tree := stats.NewCallTree(d, nil)
		if err := tree.UnmarshalBinary(data); err == nil {
			tree.Root()
		} else if !errors.Is(err, stats.ErrState) {
			t.Fatalf("error not wrapping ErrState: %v", err)
		}
	})
}

// genFixed is a small trace with messages pending between its two
// locations and an open collective, for the fuzz corpus.
func genFixed() (*model.Defs, []model.Event) {
	d := new(model.Defs)
	d.TimeBase.TicksPerSecond = 1000
	d.AddLocation(model.Location{Native: 0})
	d.AddLocation(model.Location{Native: 1, Process: 1})
	d.AddRegion(model.Region{Native: 1, Name: "main"})
	d.AddRegion(model.Region{Native: 2, Name: "MPI_Send", Kind: model.RegionComm})
	d.AddSite(model.Site{Line: 7})
	d.AddComm(model.Comm{Native: 0, Members: []model.LocID{1, 2}})
	ev := []model.Event{
		{Time: 1, Loc: 1, Kind: model.KindEnter, Region: 1},
		{Time: 1, Loc: 2, Kind: model.KindEnter, Region: 1},
		{Time: 2, Loc: 1, Kind: model.KindEnter, Region: 2, Site: 1},
		{Time: 3, Loc: 1, Kind: model.KindSend, Peer: 2, Bytes: 64},
		{Time: 4, Loc: 1, Kind: model.KindLeave, Region: 2},
		{Time: 5, Loc: 2, Kind: model.KindRecv, Peer: 1, Bytes: 64},
		{Time: 6, Loc: 1, Kind: model.KindCollBegin, Comm: 1, Class: model.ClassBarrier},
		{Time: 7, Loc: 2, Kind: model.KindCollBegin, Comm: 1, Class: model.ClassBarrier},
		{Time: 8, Loc: 1, Kind: model.KindCollEnd},
		{Time: 9, Loc: 2, Kind: model.KindCollEnd},
		{Time: 10, Loc: 1, Kind: model.KindLeave, Region: 1},
	}
	return d, ev
}

// TestJoinExtendsDefs: states whose definitions extend one another (a
// shard that did not need a thread's location and region has not defined
// them) join, in either order, to the report and call tree of one pass,
// the receiver's Defs taking the extra definitions; definitions that
// differ otherwise are refused.
func TestJoinExtendsDefs(t *testing.T) {
	defs := func(extra bool) *model.Defs {
		d := new(model.Defs)
		d.TimeBase = model.TimeBase{TicksPerSecond: 1e9}
		l1 := d.AddLocation(model.Location{Native: 0, Name: "rank 0"})
		l2 := d.AddLocation(model.Location{Native: 1, Name: "rank 1", Process: 1})
		d.AddRegion(model.Region{Native: 1, Name: "MPI_Send"})
		d.AddComm(model.Comm{Native: 0, Name: "world", Members: []model.LocID{l1, l2}})
		if extra {
			d.AddLocation(model.Location{Native: 0, Name: "rank 0 thread 1", Thread: 1})
			d.AddRegion(model.Region{Native: -8, Name: "f"})
			d.AddComm(model.Comm{Native: 1 << 32, Name: "unknown"})
		}
		return d
	}
	events := []model.Event{
		{Time: 1, Loc: 1, Kind: model.KindEnter, Region: 1},
		{Time: 1, Loc: 2, Kind: model.KindEnter, Region: 1},
		{Time: 1, Loc: 3, Kind: model.KindEnter, Region: 2},
		{Time: 2, Loc: 1, Kind: model.KindSend, Peer: 2, Comm: 1, Tag: 1, Bytes: 8},
		{Time: 3, Loc: 2, Kind: model.KindRecv, Peer: 1, Comm: 1, Tag: 1, Bytes: 8},
		{Time: 4, Loc: 1, Kind: model.KindLeave, Region: 1},
		{Time: 4, Loc: 2, Kind: model.KindLeave, Region: 1},
		{Time: 5, Loc: 3, Kind: model.KindLeave, Region: 2},
	}
	opts := &stats.Options{MaxPending: 1 << 20}
	// state saves and reads back the statistics of locs on definitions
	// with or without the extra ones, as a shard's saved state.
	state := func(extra bool, locs map[model.LocID]bool) shardState {
		d := defs(extra)
		data, err := feed(d, events, locs, opts).MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		tdata, err := feedTree(d, events, locs).MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		acc := new(stats.Accumulator)
		if err := acc.UnmarshalBinary(data); err != nil {
			t.Fatal(err)
		}
		tree := stats.NewCallTree(acc.Defs(), nil)
		if err := tree.UnmarshalBinary(tdata); err != nil {
			t.Fatal(err)
		}
		return shardState{acc, tree}
	}
	wantR := reportJSON(t, feed(defs(true), events, nil, opts))
	wantT, _ := json.Marshal(feedTree(defs(true), events, nil).Root())
	for _, first := range []bool{false, true} {
		a := state(first, map[model.LocID]bool{1: !first, 2: !first, 3: first})
		b := state(!first, map[model.LocID]bool{1: first, 2: first, 3: !first})
		if err := a.acc.Join(b.acc); err != nil {
			t.Fatalf("receiver with the extra definitions %v: %v", first, err)
		}
		if err := a.tree.Join(b.tree); err != nil {
			t.Fatal(err)
		}
		if n := a.acc.Defs().NumLocations(); n != 3 {
			t.Errorf("receiver with the extra definitions %v: %d locations after Join, want 3", first, n)
		}
		if got := reportJSON(t, a.acc); !bytes.Equal(got, wantR) {
			t.Errorf("receiver with the extra definitions %v: joined report differs from one pass:\n%s", first, firstDiff(wantR, got))
		}
		if got, _ := json.Marshal(a.tree.Root()); !bytes.Equal(got, wantT) {
			t.Errorf("receiver with the extra definitions %v: joined call tree differs from one pass:\n%s", first, firstDiff(wantT, got))
		}
	}
	// Other definitions, not an extension: refused, the receiver unchanged.
	a := state(false, map[model.LocID]bool{1: true, 2: true})
	d := defs(false)
	d.AddRegion(model.Region{Native: -9, Name: "g"})
	other := feed(d, nil, nil, opts) // region 2 is "g" where b's is "f"
	b := state(true, map[model.LocID]bool{3: true})
	if err := other.Join(b.acc); err == nil {
		t.Error("definitions that are no extension joined")
	}
	if err := a.acc.Join(other); err != nil {
		t.Errorf("an extension by one region: %v", err)
	}
	if n := a.acc.Defs().NumRegions(); n != 2 {
		t.Errorf("%d regions after joining an extension by one region, want 2", n)
	}
}

// TestStateKeepsParadigm: a saved state gives back its regions' paradigms,
// so that shards of a trace whose adapter sets them join.
func TestStateKeepsParadigm(t *testing.T) {
	d := new(model.Defs)
	l := d.AddLocation(model.Location{Name: "a"})
	r := d.AddRegion(model.Region{Name: "send", Kind: model.RegionComm, Paradigm: model.ParadigmMPI})
	u := d.AddRegion(model.Region{Name: "work", Paradigm: model.ParadigmUser})
	acc := stats.New(d, nil)
	for _, ev := range []model.Event{
		{Time: 1, Loc: l, Kind: model.KindEnter, Region: u},
		{Time: 2, Loc: l, Kind: model.KindEnter, Region: r},
		{Time: 3, Loc: l, Kind: model.KindLeave, Region: r},
		{Time: 4, Loc: l, Kind: model.KindLeave, Region: u},
	} {
		acc.Add(&ev)
	}
	b, err := acc.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var back stats.Accumulator
	if err := back.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	for _, want := range d.Regions() {
		if got, _ := back.Defs().Region(want.ID); got != want {
			t.Errorf("region %d reads back as %+v, want %+v", want.ID, got, want)
		}
	}
}
