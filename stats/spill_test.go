package stats_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
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

// lateMessages returns the definitions and events of a run in which
// location 2 receives each of n messages of location 1 lag messages
// late, so that ends wait long for their partner.
func lateMessages(n, lag int) (*model.Defs, []model.Event) {
	d := new(model.Defs)
	d.TimeBase.TicksPerSecond = 1000
	for i := range 2 {
		d.AddLocation(model.Location{Native: int64(i), Process: int32(i)})
	}
	send := d.AddRegion(model.Region{Name: "send", Kind: model.RegionComm})
	recv := d.AddRegion(model.Region{Name: "recv", Kind: model.RegionComm})
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
	return d, evs
}

// TestSpillReadFailure: when the spill file cannot be read back, Add
// goes on (no panic), Err returns the read's error, a saved state fails
// with it, and the reports still come, with every message end counted
// once.
func TestSpillReadFailure(t *testing.T) {
	const n, lag = 5000, 3000
	d, evs := lateMessages(n, lag)
	errRead := errors.New("injected read failure")
	for _, final := range []bool{false, true} {
		a := stats.New(d, &stats.Options{SpillDir: t.TempDir()})
		stats.SpillAt(a, 100)
		half := len(evs) / 2
		for i := range evs[:half] {
			a.Add(&evs[i])
		}
		if spills, _ := stats.Spilled(a); spills == 0 {
			t.Fatal("nothing spilled before the failure")
		}
		if err := a.Err(); err != nil {
			t.Fatalf("Err() = %v before the failure", err)
		}
		stats.FailSpillReads(a, errRead)
		if !final {
			for i := half; i < len(evs); i++ {
				a.Add(&evs[i])
			}
		}
		if err := a.Err(); !final && !errors.Is(err, errRead) {
			t.Fatalf("Err() = %v, want %v", err, errRead)
		}
		if _, err := a.MarshalBinary(); !errors.Is(err, errRead) {
			t.Errorf("MarshalBinary: %v, want %v", err, errRead)
		}
		rep := a.FinalReport()
		if err := a.Err(); !errors.Is(err, errRead) {
			t.Fatalf("after FinalReport: Err() = %v, want %v", err, errRead)
		}
		dg := rep.Final.Diagnostics
		added := evs
		if final {
			added = evs[:half]
		}
		var ends int64
		for _, ev := range added {
			if ev.Kind == model.KindSend || ev.Kind == model.KindRecv {
				ends++
			}
		}
		if got := 2*dg.MatchedMessages + dg.UnmatchedSend + dg.UnmatchedRecv; got != ends {
			t.Errorf("final=%v: %d message ends accounted, want %d", final, got, ends)
		}
	}
}

// TestSpillDir: the spill file goes to Options.SpillDir, whatever
// os.TempDir says; a directory that does not exist keeps the ends in
// memory, with the same report.
func TestSpillDir(t *testing.T) {
	d, evs := lateMessages(2000, 1500)
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	run := func(dir string) (int64, []byte) {
		a := stats.New(d, &stats.Options{SpillDir: dir})
		stats.SpillAt(a, 100)
		for i := range evs {
			a.Add(&evs[i])
		}
		spills, _ := stats.Spilled(a)
		j, err := json.Marshal(a.FinalReport())
		if err != nil || a.Err() != nil {
			t.Fatal(err, a.Err())
		}
		return spills, j
	}
	inDir, want := run(t.TempDir())
	if inDir == 0 {
		t.Errorf("nothing spilled to Options.SpillDir")
	}
	missing, got := run(filepath.Join(t.TempDir(), "missing"))
	if missing != 0 {
		t.Errorf("%d ends spilled to a directory that does not exist", missing)
	}
	if !bytes.Equal(want, got) {
		t.Fatalf("reports differ:\n%s", firstDiff(want, got))
	}
}
