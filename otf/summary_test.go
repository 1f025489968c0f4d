package otf_test

import (
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/hpctrace/hpctrace/otf"
)

func openFixture(t *testing.T, dir, master string) *otf.Trace {
	t.Helper()
	tc, err := otf.OpenFS(os.DirFS("testdata/"+dir), master, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tc
}

// statsAt returns the records of the stats files at time ts, sorted like
// Summaries.At.
func statsAt(t *testing.T, tc *otf.Trace, ts uint64) []string {
	tr, err := tc.NewReader(&otf.TraceReaderOptions{File: otf.FileStats, From: ts, To: ts + 1})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	var out []string
	for rec, err := range tr.All() {
		if err != nil {
			t.Fatal(err)
		}
		if rec.Kind != otf.KindSummaryComment {
			out = append(out, rec.String())
		}
	}
	return out
}

func strs(recs []*otf.Record) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.String())
	}
	return out
}

func TestSummariesFixture(t *testing.T) {
	tc := openFixture(t, "otfaux_all", "aux.otf")
	s, err := tc.ReadSummaries(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []uint64{0x1a7d4, 0x1e943, 0x3d285, 0x5bbc7, 0x7a50a}
	if !slices.Equal(s.Times(), want) {
		t.Fatalf("Times() = %x, want %x", s.Times(), want)
	}
	for _, ts := range want {
		got, w := strs(s.At(ts)), statsAt(t, tc, ts)
		slices.Sort(got)
		slices.Sort(w)
		if !slices.Equal(got, w) {
			t.Errorf("At(%#x):\ngot  %q\nwant %q", ts, got, w)
		}
	}
	// Between two sample times: p(b) - p(a). Process 1, function 2
	// (compute): count d -> 19, exclusive = inclusive 11a67 -> 22a5f.
	var found bool
	for _, rec := range s.Interval(0x1e943, 0x3d285) {
		if f, ok := rec.FunctionSummary(); ok && rec.Process == 1 && f.Function == 2 {
			found = true
			if want := (otf.FunctionSummary{Function: 2, Count: 0x19 - 0xd, ExclTime: 0x22a5f - 0x11a67, InclTime: 0x22a5f - 0x11a67}); f != want {
				t.Errorf("Interval: got %+v, want %+v", f, want)
			}
			if rec.Time != 0x3d285 {
				t.Errorf("Interval record time %#x, want 0x3d285", rec.Time)
			}
		}
		if m, ok := rec.MessageSummary(); ok && rec.Process == 3 {
			if want := (otf.MessageSummary{SentCount: 0x19 - 0xc, ReceivedCount: 0x19 - 0xc, BytesSent: 0x17f0 - 0x870, BytesReceived: 0x17f0 - 0x870}); m != want {
				t.Errorf("Interval message summary of process 3: got %+v, want %+v", m, want)
			}
		}
	}
	if !found {
		t.Error("Interval: no function summary of process 1, function 2")
	}
	// Before the first sample nothing; a time between samples takes the
	// sample below it; the whole trace is the last sample.
	if got := s.At(0x1a7d3); len(got) != 0 {
		t.Errorf("At before the first sample: got %d records", len(got))
	}
	if got, w := strs(s.At(0x1e943+5)), strs(s.At(0x1e943)); len(got) != len(w) {
		t.Errorf("At between samples: %d records, want %d", len(got), len(w))
	}
	full, last := strs(s.Interval(0, 0x7a50a)), statsAt(t, tc, 0x7a50a)
	slices.Sort(full)
	slices.Sort(last)
	if !slices.Equal(full, last) {
		t.Errorf("Interval over the whole trace differs from the last sample:\ngot  %q\nwant %q", full, last)
	}
	if p, err := tc.ReadSummaries([]uint32{2}); err != nil || len(p.At(0x7a50a)) != 6 {
		t.Errorf("summaries of process 2: err %v, %d records at the end; want 6", err, len(p.At(0x7a50a)))
	}
}

func TestSummariesDecreasing(t *testing.T) {
	var s otf.Summaries
	rec := new(otf.Record)
	rec.SetFunctionSummary(otf.FunctionSummary{Function: 1, Count: 5})
	rec.Time, rec.Process = 10, 1
	if err := s.Add(rec); err != nil {
		t.Fatal(err)
	}
	rec.SetFunctionSummary(otf.FunctionSummary{Function: 1, Count: 4})
	rec.Time = 20
	if err := s.Add(rec); !errors.Is(err, otf.ErrRange) {
		t.Fatalf("a decreasing count: got %v, want ErrRange", err)
	}
	rec.Time = 5
	rec.SetFunctionSummary(otf.FunctionSummary{Function: 1, Count: 9})
	if err := s.Add(rec); !errors.Is(err, otf.ErrRange) {
		t.Fatalf("a sample before the last one: got %v, want ErrRange", err)
	}
}
