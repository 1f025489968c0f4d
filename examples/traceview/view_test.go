package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/hpctrace/hpctrace/model"
)

// TestHugeTicksOrigin: a trace whose ticks pass 2^53 (2^60 ns) gets a
// page whose times are offsets from its origin, given as a decimal
// string, so that every time is exact in the page.
func TestHugeTicksOrigin(t *testing.T) {
	const base = int64(1) << 60
	p := filepath.Join(t.TempDir(), "huge.json")
	ev := func(dt int64, loc int, body string) string {
		return fmt.Sprintf(`{"t":%d,"loc":%d,%s}`, base+dt, loc, body)
	}
	trace := `{"format":"trace-events-json/1","ticks_per_second":1000000000,"locations":[{"id":0,"name":"rank 0"},{"id":1,"name":"rank 1"}],` +
		`"regions":[{"id":1,"name":"main","kind":"function","paradigm":"user"},{"id":2,"name":"MPI_Recv","kind":"function","paradigm":"mpi"}],"events":[` +
		ev(0, 0, `"kind":"enter","region":1`) + "," + ev(0, 1, `"kind":"enter","region":1`) + "," +
		ev(3, 1, `"kind":"enter","region":2`) + "," + ev(5, 0, `"kind":"send","peer":1,"tag":1,"bytes":8`) + "," +
		ev(9, 1, `"kind":"recv","peer":0,"tag":1,"bytes":8`) + "," + ev(10, 1, `"kind":"leave","region":2`) + "," +
		ev(20, 0, `"kind":"leave","region":1`) + "," + ev(20, 1, `"kind":"leave","region":1`) + "]}\n"
	if err := os.WriteFile(p, []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, d := pageOf(t, p)
	if d.Origin != strconv.FormatInt(base, 10) || d.Timeline.Start != 0 || d.Timeline.End != 20 || d.Mix.Start != 0 {
		t.Errorf("origin %q, timeline %d–%d, mix from %d; want %d and offsets 0–20", d.Origin, d.Timeline.Start, d.Timeline.End, d.Mix.Start, base)
	}
	var recv []model.Time
	for _, s := range d.Timeline.Detail.Slices {
		if d.Timeline.Regions[s.Region-1].Name == "MPI_Recv" {
			recv = append(recv, s.Start, s.End)
		}
	}
	if len(recv) != 2 || recv[0] != 3 || recv[1] != 10 {
		t.Errorf("MPI_Recv at %v, want [3 10]", recv)
	}
	if m := d.Timeline.Detail.Messages; len(m) != 1 || m[0].Send != 5 || m[0].Recv != 9 {
		t.Errorf("messages %+v, want one sent at 5, received at 9", m)
	}
	if d.Wait == nil || len(d.Wait.Critical.Segments) != 1 || d.Wait.Critical.Segments[0].Start != 0 || d.Wait.Critical.Segments[0].End != 20 {
		t.Errorf("wait data %+v, want the critical path over 0–20", d.Wait)
	}
	// Within 2^52 ticks the origin is 0 and the times are the trace's.
	if _, _, d := pageOf(t); d.Origin != "0" || d.Timeline.End != 1915 {
		t.Errorf("sample: origin %q, end %d", d.Origin, d.Timeline.End)
	}
}

// TestMembers: where locations share rows, the page holds each
// location's name and its own mix, so that a row can be expanded.
func TestMembers(t *testing.T) {
	_, _, d := pageOf(t, "-rows", "4", synthTrace(t, 40, 5))
	if d.Timeline.RowSize != 10 || d.Members == nil || len(d.Members.Names) != 40 || d.Members.Names[3] != "rank 3" {
		t.Fatalf("row size %d, members %+v", d.Timeline.RowSize, d.Members)
	}
	mx := d.Members.Mix
	if mx.Columns != memberColumns(1200, 4, 40) || mx.Columns != 120 {
		t.Errorf("members' mix at %d columns, want 120", mx.Columns)
	}
	per := map[int64]int64{} // location -> thousandths over its columns
	for _, c := range mx.Cells {
		if c[0] < 1 || c[0] > 40 {
			t.Fatalf("member cell on location %d of 40", c[0])
		}
		for k := 3; k+1 < len(c); k += 2 {
			if c[k] < 0 || int(c[k]) > len(d.Timeline.Regions) {
				t.Fatalf("member cell of region %d of %d", c[k], len(d.Timeline.Regions))
			}
			per[c[0]] += c[k+1] * c[2]
		}
	}
	// Every location is in main from the first event to the last: about
	// 1000 thousandths a column of the trace's span.
	cols := float64(d.Timeline.End-mx.Start) / float64(mx.ColWidth)
	for l := int64(1); l <= 40; l++ {
		if got := float64(per[l]) / cols; got < 950 || got > 1050 {
			t.Errorf("location %d: %.0f thousandths a column, want about 1000", l, got)
		}
	}
	if _, _, d := pageOf(t, synthTrace(t, 8, 5)); d.Members != nil {
		t.Errorf("a row per location: members %+v, want none", d.Members)
	}
}
