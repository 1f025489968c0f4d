package main

import (
	"path/filepath"
	"testing"

	"github.com/hpctrace/hpctrace"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
)

// TestGenMPI checks that the generated MPI runs read back in both formats
// with every message matched, every collective complete and every region
// closed, and as many events as were asked for, within an iteration.
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
	for _, name := range []string{otf2Anchor, otfMaster} {
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
			}
			d := acc.Finalize().Final.Diagnostics
			if d.MatchedMessages == 0 || d.UnmatchedSend != 0 || d.UnmatchedRecv != 0 {
				t.Errorf("messages: matched %d, unmatched sends %d, receives %d; want all matched", d.MatchedMessages, d.UnmatchedSend, d.UnmatchedRecv)
			}
			if d.UnmatchedLeave != 0 || d.ImplicitlyClosed != 0 || d.OpenAtEnd != 0 || d.OpenCollectives != 0 || d.NonMonotonic != 0 {
				t.Errorf("diagnostics %+v; want balanced regions and complete collectives", d)
			}
			if events < n*9/10 || events > n*11/10 {
				t.Errorf("%d events; want about %d", events, n)
			}
		})
	}
}
