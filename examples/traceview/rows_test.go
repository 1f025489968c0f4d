package main

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace/internal/benchtrace"
	"github.com/hpctrace/hpctrace/model"
)

// TestRowsGrouped: a trace of 600 locations (a region of its own each,
// then one they share) in at most 50 rows has them 12 to a row, labelled
// by their ranks; the page names only the regions it draws and keeps the
// profile to the rows and the regions of most time, and the browser draws
// it whole.
func TestRowsGrouped(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "wide.json")
	f, err := os.Create(trace)
	if err != nil {
		t.Fatal(err)
	}
	if err := benchtrace.Locations(f, 600); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	page, b, d := pageOf(t, "-rows", "50", "-detail", "0", "-top", "5", trace)
	tl := d.Timeline
	if tl.RowSize != 12 || len(tl.Locations) != 50 || tl.Locations[0] != "ranks 0–11" || tl.Locations[49] != "ranks 588–599" {
		t.Errorf("row size %d, %d rows (%q … %q); want 12, 50, ranks 0–11 … ranks 588–599", tl.RowSize, len(tl.Locations), tl.Locations[0], tl.Locations[len(tl.Locations)-1])
	}
	if d.Locations != 600 || d.Regions != 601 {
		t.Errorf("%d locations, %d regions; want 600, 601", d.Locations, d.Regions)
	}
	bars := 0
	for _, c := range tl.Cells {
		if c.Loc < 1 || int(c.Loc) > 50 {
			t.Fatalf("cell on row %d of 50", c.Loc)
		}
		if int(c.Region) > len(tl.Regions) {
			t.Fatalf("cell of region %d of %d", c.Region, len(tl.Regions))
		}
		if c.Region != 0 {
			bars++
		}
	}
	if len(tl.Regions) > len(tl.Cells) {
		t.Errorf("%d regions named for %d cells", len(tl.Regions), len(tl.Cells))
	}
	// The shared region's entries on every row, and at most the top 5
	// entries of other regions.
	var main int
	for _, p := range d.Profile {
		if p.Loc < 1 || p.Loc > 50 {
			t.Errorf("profile entry on row %d", p.Loc)
		}
		if p.Region == "main" {
			main++
		}
	}
	if main != 50 || len(d.Profile) > 50+5+4 {
		t.Errorf("%d profile entries, %d of main; want main on each of 50 rows and few others", len(d.Profile), main)
	}
	t.Logf("page %d bytes, %d cells, %d regions named", len(b), len(tl.Cells), len(tl.Regions))
	checkDOM(t, chromium(t, page), d, -1, len(tl.Bundles))
}

// TestWaitsGrouped: with the MPI trace's locations three to a timeline
// row, its waits and critical path move onto the rows, waiting as long
// per row as its locations do, and the most severe instances still name
// their locations.
func TestWaitsGrouped(t *testing.T) {
	_, _, flat := pageOf(t, mpiTrace)
	_, _, d := pageOf(t, "-rows", "2", mpiTrace)
	if d.Timeline.RowSize != 3 || flat.Timeline.RowSize != 1 {
		t.Fatalf("row sizes %d and %d, want 3 and 1", d.Timeline.RowSize, flat.Timeline.RowSize)
	}
	if d.Wait == nil || flat.Wait == nil || len(flat.Wait.Waits) == 0 {
		t.Fatal("no waits")
	}
	perRow := map[model.LocID]model.Time{}
	for _, w := range flat.Wait.Waits {
		perRow[1+(w.Loc-1)/3] += w.End - w.Start
	}
	got := map[model.LocID]model.Time{}
	for _, w := range d.Wait.Waits {
		if w.Loc < 1 || w.Loc > 2 || w.Delayer > 2 {
			t.Fatalf("wait on row %d delayed by row %d, of 2 rows", w.Loc, w.Delayer)
		}
		got[w.Loc] += w.End - w.Start
	}
	for _, c := range d.Wait.Cells {
		got[c.Loc] += c.Time
	}
	if !maps.Equal(got, perRow) {
		t.Errorf("waits per row %v, want %v", got, perRow)
	}
	var sum model.Time
	for i, s := range d.Wait.Critical.Segments {
		if s.Loc < 1 || s.Loc > 2 {
			t.Fatalf("critical segment on row %d of 2", s.Loc)
		}
		if i > 0 && d.Wait.Critical.Segments[i-1].Loc == s.Loc && d.Wait.Critical.Segments[i-1].End == s.Start {
			t.Errorf("segments %d and %d on one row not joined", i-1, i)
		}
		sum += s.End - s.Start
	}
	if sum != flat.Wait.Critical.Length || len(d.Wait.Critical.Segments) > len(flat.Wait.Critical.Segments) {
		t.Errorf("critical path %d in %d segments, want %d in at most %d", sum, len(d.Wait.Critical.Segments), flat.Wait.Critical.Length, len(flat.Wait.Critical.Segments))
	}
	if !slices.EqualFunc(d.Wait.Top, flat.Wait.Top, func(a, b topInst) bool { return a.Waiter == b.Waiter && a.WaiterName == b.WaiterName }) {
		t.Error("the most severe instances differ with grouped rows")
	}
	for _, w := range d.Wait.Top {
		if w.WaiterName == "" || strings.HasPrefix(w.WaiterName, "ranks") {
			t.Errorf("instance's waiter named %q, want its location's name", w.WaiterName)
		}
	}
}
