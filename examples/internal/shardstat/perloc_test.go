package shardstat

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/hpctrace/hpctrace/internal/benchtrace"
)

// TestJSONBytesPerLocation pins what a location costs the JSON report,
// and the text report, the wait-state analysis on: n locations that each call a region of
// their own and one they share (internal/benchtrace.Locations) allocate,
// from the report's start (the analysis' and the statistics' Finalize,
// the report's tables, the writing) to its end, a bounded number of bytes
// per location, the same at 10^3 and 10^4 locations. The report is about
// 3.6 KB of text per location; with json.Encoder, which built it whole,
// compact and then indented, in buffers that grew by copies, it allocated
// about 43 KB a location; writeJSON holds a row at a time, and what is
// left (about 6 KB) is the statistics' tables (stats.Accumulator's
// FinalReport). The text report allocates under 2 KB a location: it
// allocated 2.6 KB with a row of every (location, region) value sorted
// for the load imbalance, a map of every call edge for the drill-down's
// graph and an Imbalance row per region.
func TestJSONBytesPerLocation(t *testing.T) {
	perLoc := func(n int, json bool) uint64 {
		name := filepath.Join(t.TempDir(), "wide.json")
		f, err := os.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := benchtrace.Locations(f, n); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		st, err := Profile(name, Shard{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if st.Waits == nil {
			t.Fatal("no wait-state analysis")
		}
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		if err := st.WriteReport(io.Discard, &ReportOptions{JSON: json, Top: 15, Scope: "all"}); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&m1)
		return (m1.TotalAlloc - m0.TotalAlloc) / uint64(n)
	}
	const maxJSON, maxText = 8 << 10, 2 << 10 // bytes per location
	small, big := perLoc(1000, true), perLoc(10000, true)
	smallText, bigText := perLoc(1000, false), perLoc(10000, false)
	t.Logf("bytes per location in the JSON report: %d at 10^3 locations, %d at 10^4; text: %d, %d", small, big, smallText, bigText)
	for _, c := range []struct {
		what       string
		small, big uint64
		bound      uint64
	}{{"JSON report", small, big, maxJSON}, {"text report", smallText, bigText, maxText}} {
		if c.small > c.bound || c.big > c.bound {
			t.Errorf("%s: %d and %d bytes per location at 10^3 and 10^4 locations, want at most %d", c.what, c.small, c.big, c.bound)
		}
		if c.big > 2*c.small {
			t.Errorf("%s: %d bytes per location at 10^4 locations, %d at 10^3: grows with the locations", c.what, c.big, c.small)
		}
	}
}
