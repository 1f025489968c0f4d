package main

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hpctrace/hpctrace"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
)

// TestGenMPI checks that the generated MPI runs read back in both formats
// with every message matched, every collective complete and every region
// closed, and about as many events as were asked for.
func TestGenMPI(t *testing.T) {
	const n = 40_000
	c := &config{work: t.TempDir()}
	otf2Anchor, err := mpiOTF2Trace(c, n)
	if err != nil {
		t.Fatal(err)
	}
	otfMaster, err := mpiOTFTrace(c, n)
	if err != nil {
		t.Fatal(err)
	}
	var total, posts [2]int64
	for i, name := range []string{otf2Anchor, otfMaster} {
		t.Run(filepath.Base(name), func(t *testing.T) {
			tr, err := hpctrace.Open(name, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			acc := stats.New(tr.Defs(), nil)
			var events int64
			for ev, err := range model.All(tr) {
				if err != nil {
					t.Fatal(err)
				}
				acc.Add(ev)
				events++
				if ev.Kind == model.KindRecvPost || ev.Kind == model.KindSendDone {
					posts[i]++
				}
			}
			d := acc.Finalize().Final.Diagnostics
			if d.MatchedMessages == 0 || d.UnmatchedSend != 0 || d.UnmatchedRecv != 0 {
				t.Errorf("messages: matched %d, unmatched sends %d, receives %d; want all matched", d.MatchedMessages, d.UnmatchedSend, d.UnmatchedRecv)
			}
			if d.UnmatchedLeave != 0 || d.LeaveRegionMismatch != 0 || d.OpenAtEnd != 0 || d.OpenCollectives != 0 || d.NonMonotonic != 0 {
				t.Errorf("diagnostics %+v; want balanced regions and complete collectives", d)
			}
			total[i] = events
		})
	}
	// OTF has no record for receive posts and send completions.
	if total[0] < n*95/100 || total[0] > n*105/100 || posts[0] == 0 {
		t.Errorf("OTF2: %d events, %d posts and send completions; want about %d events, some of them posts", total[0], posts[0], n)
	}
	if total[1] != total[0]-posts[0] || posts[1] != 0 {
		t.Errorf("OTF: %d events; want %d, the OTF2 run's without its %d posts and send completions", total[1], total[0]-posts[0], posts[0])
	}
}

// TestWaitsNote checks that the waits-rate row reads the analysis' own
// CPU time and rate back from every timed run of waits -analyze, and
// gives their medians at the end.
func TestWaitsNote(t *testing.T) {
	line := func(cpu, rate float64) measure {
		return measure{out: fmt.Sprintf(waitsFormat, 10_000_000, 42, cpu, rate)}
	}
	a := []measure{line(2, 5), line(1, 10), line(4, 2.5)}
	if got, want := waitsNote(a, nil, 1), "analysis alone 1.000 s CPU, 10.00 M events/s"; got != want {
		t.Errorf("pair 2: got %q, want %q", got, want)
	}
	if got, want := waitsNote(a, nil, -1), "analysis alone (3 pairs): median 2.000 s CPU, 5.00 M events/s [min 2.50, max 10.00]"; got != want {
		t.Errorf("medians: got %q, want %q", got, want)
	}
	if _, _, err := waitsRate("1000 events read"); err == nil {
		t.Errorf("waitsRate of the read-only output: got no error")
	}
}
