package stats_test

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
	"pgregory.net/rapid"
)

// propSpillSameReport: an accumulator that spills message ends as soon as
// more than one or a few wait gives the reports of one that keeps them
// in memory, byte for byte: on a copy in the middle of the stream
// (Finalize), after a saved state is read back, and settled in place at
// the end (FinalReport), also when MaxPending evicts spilled ends.
func propSpillSameReport(t *rapid.T) {
	d, events := genTrace(t)
	opts := &stats.Options{MaxPending: rapid.SampledFrom([]int{1 << 20, 1, 3}).Draw(t, "maxPending")}
	want, got := stats.New(d, opts), stats.New(d, opts)
	stats.SpillAt(want, -1)
	stats.SpillAt(got, rapid.IntRange(1, 3).Draw(t, "spillAt"))
	mid := rapid.IntRange(0, len(events)).Draw(t, "mid")
	for i := range events[:mid] {
		want.Add(&events[i])
		got.Add(&events[i])
	}
	if rapid.Bool().Draw(t, "finalizeMid") {
		if w, g := reportJSON(t, want), reportJSON(t, got); !bytes.Equal(w, g) {
			t.Fatalf("mid-stream reports differ (spilling second):\n%s", firstDiff(w, g))
		}
	}
	for i := mid; i < len(events); i++ {
		want.Add(&events[i])
		got.Add(&events[i])
	}
	if rapid.Bool().Draw(t, "save") {
		w, g := saveLoad(t, want), saveLoad(t, got)
		if jw, jg := reportJSON(t, w), reportJSON(t, g); !bytes.Equal(jw, jg) {
			t.Fatalf("reports of the saved states differ (spilling second):\n%s", firstDiff(jw, jg))
		}
		return
	}
	w, err := json.Marshal(want.FinalReport())
	if err != nil {
		t.Fatal(err)
	}
	g, err := json.Marshal(got.FinalReport())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(w, g) {
		t.Fatalf("final reports differ (spilling second):\n%s", firstDiff(w, g))
	}
}

func TestSpillSameReport(t *testing.T) { rapid.Check(t, propSpillSameReport) }

func saveLoad(t *rapid.T, a *stats.Accumulator) *stats.Accumulator {
	data, err := a.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	b := new(stats.Accumulator)
	if err := b.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSpillReadsBack: on a long stream whose messages find their partner
// late, ends spill and are read back when the partner comes, the spill
// file leaves no name behind, and the report is the one of an
// accumulator that spills nothing.
func TestSpillReadsBack(t *testing.T) {
	d := new(model.Defs)
	d.TimeBase.TicksPerSecond = 1000
	for i := range 2 {
		d.AddLocation(model.Location{Native: int64(i), Process: int32(i)})
	}
	send := d.AddRegion(model.Region{Name: "send", Kind: model.RegionComm})
	recv := d.AddRegion(model.Region{Name: "recv", Kind: model.RegionComm})
	const n, lag = 5000, 3000 // location 2 receives each message lag messages late
	var evs []model.Event
	tm := model.Time(0)
	add := func(loc model.LocID, r model.RegionID, k model.Kind, peer model.LocID, tag int32) {
		tm++
		evs = append(evs, model.Event{Time: tm, Loc: loc, Kind: model.KindEnter, Region: r},
			model.Event{Time: tm, Loc: loc, Kind: k, Peer: peer, Tag: tag, Bytes: int64(tag)},
			model.Event{Time: tm + 1, Loc: loc, Kind: model.KindLeave, Region: r})
		tm++
	}
	for i := range n + lag {
		if i < n {
			add(1, send, model.KindSend, 2, int32(i%7))
		}
		if j := i - lag; j >= 0 {
			add(2, recv, model.KindRecv, 1, int32(j%7))
		}
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // the spill file's directory
	want, got := stats.New(d, nil), stats.New(d, nil)
	stats.SpillAt(want, -1)
	stats.SpillAt(got, 100)
	for i := range evs {
		want.Add(&evs[i])
		got.Add(&evs[i])
	}
	if left, err := os.ReadDir(tmp); err != nil || len(left) != 0 {
		t.Errorf("the spill file's name is not removed while it is open: %v %v", left, err)
	}
	spills, reloads := stats.Spilled(got)
	if spills < n-lag || reloads != spills {
		t.Errorf("%d ends spilled and %d read back, want at least %d, all read back", spills, reloads, n-lag)
	}
	w, _ := json.Marshal(want.FinalReport())
	g, _ := json.Marshal(got.FinalReport())
	if !bytes.Equal(w, g) {
		t.Fatalf("reports differ (spilling second):\n%s", firstDiff(w, g))
	}
}
