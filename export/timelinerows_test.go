package export_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace/export"
	"github.com/hpctrace/hpctrace/model"
)

// TestTimelineRows: ten locations in at most three rows share them four
// to a row; a row's cell holds the region that occupied most of the
// column over its locations, its messages are summed, and the bundles
// name rows while the detail names locations.
func TestTimelineRows(t *testing.T) {
	d := new(model.Defs)
	var locs []model.LocID
	for i := range 10 {
		locs = append(locs, d.AddLocation(model.Location{Native: int64(100 + i)}))
	}
	a := d.AddRegion(model.Region{Name: "A"})
	b := d.AddRegion(model.Region{Name: "B"})
	// Row 1: locations 0 and 1 run A over [0, 100), 2 runs B over
	// [0, 100): A dominates. Row 3: location 9 runs B and sends to 0.
	var evs []model.Event
	for _, x := range []struct {
		loc int
		r   model.RegionID
	}{{0, a}, {1, a}, {2, b}, {9, b}} {
		evs = append(evs, model.Event{Time: 0, Loc: locs[x.loc], Kind: model.KindEnter, Region: x.r})
	}
	evs = append(evs,
		model.Event{Time: 10, Loc: locs[9], Kind: model.KindSend, Peer: locs[0], Bytes: 8},
		model.Event{Time: 20, Loc: locs[0], Kind: model.KindRecv, Peer: locs[9], Bytes: 8})
	for _, x := range []struct {
		loc int
		r   model.RegionID
	}{{0, a}, {1, a}, {2, b}, {9, b}} {
		evs = append(evs, model.Event{Time: 100, Loc: locs[x.loc], Kind: model.KindLeave, Region: x.r})
	}
	tl := export.NewTimeline(d, &export.TimelineOptions{Columns: 1, From: 0, To: 100, MaxRows: 3})
	for i := range evs {
		tl.Add(&evs[i])
	}
	got := tl.Finish()
	if got.RowSize != 4 {
		t.Errorf("row size %d, want 4", got.RowSize)
	}
	if diff := cmp.Diff([]string{"ranks 100–103", "ranks 104–107", "ranks 108–109"}, got.Locations); diff != "" {
		t.Errorf("row names (-want +got):\n%s", diff)
	}
	wantCells := []export.Cell{{Loc: 1, Col: 0, Span: 1, Region: a}, {Loc: 3, Col: 0, Span: 1, Region: b, Msgs: 1}}
	if diff := cmp.Diff(wantCells, got.Cells); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]export.Bundle{{From: 3, To: 1, FromCol: 0, ToCol: 0, Count: 1, Bytes: 8}}, got.Bundles); diff != "" {
		t.Errorf("bundles (-want +got):\n%s", diff)
	}
	if got.Detail == nil || len(got.Detail.Slices) != 4 || len(got.Detail.Messages) != 1 {
		t.Fatalf("detail %+v, want 4 slices and a message", got.Detail)
	}
	var on []model.LocID
	for _, s := range got.Detail.Slices {
		on = append(on, s.Loc)
	}
	slices.Sort(on)
	if want := []model.LocID{locs[0], locs[1], locs[2], locs[9]}; !slices.Equal(on, want) {
		t.Errorf("slices on %v, want the locations %v", on, want)
	}
	if m := got.Detail.Messages[0]; m.From != locs[9] || m.To != locs[0] {
		t.Errorf("message from %d to %d, want location %d to %d", m.From, m.To, locs[9], locs[0])
	}
}

// TestTimelineRowsUngrouped: within MaxRows, every location has its row.
func TestTimelineRowsUngrouped(t *testing.T) {
	got := runTimeline(&export.TimelineOptions{Columns: 10, From: 0, To: 100, MaxRows: 2})
	if got.RowSize != 1 || len(got.Locations) != 2 || got.Locations[1] != "p1" {
		t.Errorf("row size %d, rows %v; want 1 and the locations' names", got.RowSize, got.Locations)
	}
}
