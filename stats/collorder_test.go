package stats_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
	"pgregory.net/rapid"
)

// collReport is the part of a report that collective instances decide.
type collReport struct {
	Diagnostics    stats.Diagnostics
	Collectives    []stats.CollectiveInstance
	CollectiveSums []stats.CollectiveSum
}

func collJSON(t rapid.TB, acc *stats.Accumulator) []byte {
	f := acc.Finalize().Final
	data, err := json.Marshal(collReport{f.Diagnostics, f.Collectives, f.CollectiveSums})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// interleave returns the events of perLoc in a random order that keeps
// each location's own order: a random merge, as readers of different
// files, a sharded reader or a stream sorted by location may deliver
// them.
func interleave(t *rapid.T, perLoc [][]model.Event) []model.Event {
	heads := make([]int, len(perLoc))
	var out []model.Event
	for {
		var open []int
		for l := range perLoc {
			if heads[l] < len(perLoc[l]) {
				open = append(open, l)
			}
		}
		if len(open) == 0 {
			return out
		}
		l := rapid.SampledFrom(open).Draw(t, "next")
		out = append(out, perLoc[l][heads[l]])
		heads[l]++
	}
}

// propCollectiveArrivalOrder: the collective instances, their waits and
// the diagnostics do not depend on the order in which the locations'
// events arrive, on a communicator whose membership is not defined (here
// not defined at all; the collectives drawn with and without match ids)
// and on one that lists every location (numbered per location). The
// members need not agree on the class and root. Now and then every event
// of the trace has one time, so that a time merge orders by location
// alone.
func propCollectiveArrivalOrder(t *rapid.T) {
	d, events := genTrace(t)
	if rapid.Bool().Draw(t, "defined") {
		all := make([]model.LocID, d.NumLocations())
		for i := range all {
			all[i] = model.LocID(i + 1)
		}
		d.AddComm(model.Comm{Native: 0, Name: "world", Members: all}) // comm 1, the events'
		for i := range events {
			if k := events[i].Kind; k == model.KindCollBegin || k == model.KindCollEnd {
				events[i].Match = 0
			}
		}
	}
	if rapid.Bool().Draw(t, "sameTime") {
		for i := range events {
			events[i].Time = 7
		}
	}
	perLoc := make([][]model.Event, d.NumLocations()+1)
	for _, ev := range events {
		perLoc[ev.Loc] = append(perLoc[ev.Loc], ev)
	}
	opts := &stats.Options{MaxPending: 1 << 20}
	want := collJSON(t, feed(d, mergeLocations(perLoc), nil, opts))
	got := collJSON(t, feed(d, interleave(t, perLoc), nil, opts))
	if !bytes.Equal(want, got) {
		t.Fatalf("an interleaving differs from the time merge:\n%s", firstDiff(want, got))
	}
	// Locations one after another, last first.
	var byLoc []model.Event
	for l := len(perLoc) - 1; l > 0; l-- {
		byLoc = append(byLoc, perLoc[l]...)
	}
	if got := collJSON(t, feed(d, byLoc, nil, opts)); !bytes.Equal(want, got) {
		t.Fatalf("the locations one after another differ from the time merge:\n%s", firstDiff(want, got))
	}
}

func TestCollectiveArrivalOrder(t *testing.T) { rapid.Check(t, propCollectiveArrivalOrder) }

// TestCollectiveHeldInstance: on a communicator without members, location
// 1 leaves its barrier before location 2 enters. In time order and in
// location order (and in two shards joined) both calls form one instance
// of two members, location 1 waiting 2 ticks for location 2, and the
// instance is counted as held.
func TestCollectiveHeldInstance(t *testing.T) {
	d := twoRanks()
	unknown := d.AddComm(model.Comm{Native: 7})
	call := func(l model.LocID, t0 model.Time) []model.Event {
		return []model.Event{
			enter(t0, l, 5),
			{Time: t0, Loc: l, Kind: model.KindCollBegin, Region: 5, Comm: unknown, Class: model.ClassBarrier},
			{Time: t0 + 2, Loc: l, Kind: model.KindCollEnd, Region: 5, Comm: unknown},
			leave(t0+2, l, 5),
		}
	}
	one, two := call(1, 1), call(2, 3)
	shards := func() *stats.Accumulator {
		a, b := feed(d, one, nil, nil), feed(d, two, nil, nil)
		if err := a.Join(b); err != nil {
			t.Fatal(err)
		}
		return a
	}
	for name, acc := range map[string]*stats.Accumulator{
		"time":     feed(d, append(append([]model.Event{}, one...), two...), nil, nil),
		"location": feed(d, append(append([]model.Event{}, two...), one...), nil, nil),
		"shards":   shards(),
	} {
		f := acc.Finalize().Final
		if dg := f.Diagnostics; dg.OpenCollectives != 0 || dg.HeldCollectives != 1 {
			t.Errorf("%s: %d open, %d held collectives; want 0 and 1", name, dg.OpenCollectives, dg.HeldCollectives)
		}
		c := f.Collectives
		if len(c) != 2 || c[0].Instance != c[1].Instance || c[0].Wait != 2 || c[1].Wait != 0 {
			t.Errorf("%s: instances %+v, want one of two members, location 1 waiting 2", name, c)
		}
	}
}
