package export_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace/export"
	"github.com/hpctrace/hpctrace/model"
)

// timelineTrace: location 1 runs A over [0, 50) and B over [50, 100)
// and sends at 20; location 2 runs C over [0, 100) and receives at 30.
func timelineTrace() (*model.Defs, []model.Event) {
	d := new(model.Defs)
	l1 := d.AddLocation(model.Location{Name: "p0"})
	l2 := d.AddLocation(model.Location{Name: "p1", Process: 1})
	a := d.AddRegion(model.Region{Name: "A"})
	b := d.AddRegion(model.Region{Name: "B"})
	c := d.AddRegion(model.Region{Name: "C"})
	return d, []model.Event{
		{Time: 0, Loc: l1, Kind: model.KindEnter, Region: a},
		{Time: 0, Loc: l2, Kind: model.KindEnter, Region: c},
		{Time: 20, Loc: l1, Kind: model.KindSend, Peer: l2, Bytes: 8},
		{Time: 30, Loc: l2, Kind: model.KindRecv, Peer: l1, Bytes: 8},
		{Time: 50, Loc: l1, Kind: model.KindLeave, Region: a},
		{Time: 50, Loc: l1, Kind: model.KindEnter, Region: b},
		{Time: 100, Loc: l1, Kind: model.KindLeave, Region: b},
		{Time: 100, Loc: l2, Kind: model.KindLeave, Region: c},
	}
}

func runTimeline(opts *export.TimelineOptions) *export.TimelineData {
	d, evs := timelineTrace()
	tl := export.NewTimeline(d, opts)
	for i := range evs {
		tl.Add(&evs[i])
	}
	return tl.Finish()
}

// TestTimelineWindow checks the cells, bundles and detail of a window of
// ten columns of ten ticks.
func TestTimelineWindow(t *testing.T) {
	got := runTimeline(&export.TimelineOptions{Columns: 10, From: 0, To: 100})
	if got.ColWidth != 10 || got.Start != 0 || got.End != 100 {
		t.Errorf("start %d width %d end %d", got.Start, got.ColWidth, got.End)
	}
	wantCells := []export.Cell{
		{Loc: 1, Col: 0, Span: 5, Region: 1, Msgs: 1},
		{Loc: 1, Col: 5, Span: 5, Region: 2},
		{Loc: 2, Col: 0, Span: 10, Region: 3},
	}
	if diff := cmp.Diff(wantCells, got.Cells); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]export.Bundle{{From: 1, To: 2, FromCol: 2, ToCol: 3, Count: 1, Bytes: 8}}, got.Bundles); diff != "" {
		t.Errorf("bundles (-want +got):\n%s", diff)
	}
	if got.Detail == nil {
		t.Fatal("no detail")
	}
	wantSlices := []export.Slice{
		{Loc: 1, Region: 1, Start: 0, End: 50},
		{Loc: 1, Region: 2, Start: 50, End: 100},
		{Loc: 2, Region: 3, Start: 0, End: 100},
	}
	if diff := cmp.Diff(wantSlices, got.Detail.Slices); diff != "" {
		t.Errorf("slices (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]export.Message{{From: 1, To: 2, Send: 20, Recv: 30, Bytes: 8}}, got.Detail.Messages); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if got.Locations[1] != "p1" || got.Regions[2].Name != "C" {
		t.Errorf("names %v %v", got.Locations, got.Regions)
	}
}

// TestTimelineLeaveMismatch: a Leave naming another region than the
// innermost open one (as APEX writes for a renamed task) ends the
// innermost slice, not nothing.
func TestTimelineLeaveMismatch(t *testing.T) {
	d := new(model.Defs)
	l := d.AddLocation(model.Location{Name: "p0"})
	main := d.AddRegion(model.Region{Name: "main"})
	task := d.AddRegion(model.Region{Name: "task"})
	renamed := d.AddRegion(model.Region{Name: "renamed"})
	evs := []model.Event{
		{Time: 0, Loc: l, Kind: model.KindEnter, Region: main},
		{Time: 10, Loc: l, Kind: model.KindEnter, Region: task},
		{Time: 20, Loc: l, Kind: model.KindLeave, Region: renamed},
		{Time: 30, Loc: l, Kind: model.KindLeave, Region: main},
		{Time: 100, Loc: l, Kind: model.KindMarker},
	}
	tl := export.NewTimeline(d, &export.TimelineOptions{Columns: 10, From: 0, To: 100})
	for i := range evs {
		tl.Add(&evs[i])
	}
	got := tl.Finish()
	want := []export.Slice{
		{Loc: l, Region: task, Start: 10, End: 20, Depth: 1},
		{Loc: l, Region: main, Start: 0, End: 30},
	}
	if diff := cmp.Diff(want, got.Detail.Slices); diff != "" {
		t.Errorf("slices (-want +got):\n%s", diff)
	}
}

// TestTimelineWiden checks that without a window the columns double until
// the trace fits: ten columns of 16 ticks for 100 ticks, the column
// [48, 64) going to B (14 ticks) rather than A (2).
func TestTimelineWiden(t *testing.T) {
	got := runTimeline(&export.TimelineOptions{Columns: 10})
	if got.ColWidth != 16 {
		t.Errorf("width %d, want 16", got.ColWidth)
	}
	wantCells := []export.Cell{
		{Loc: 1, Col: 0, Span: 3, Region: 1, Msgs: 1},
		{Loc: 1, Col: 3, Span: 4, Region: 2},
		{Loc: 2, Col: 0, Span: 7, Region: 3},
	}
	if diff := cmp.Diff(wantCells, got.Cells); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]export.Bundle{{From: 1, To: 2, FromCol: 1, ToCol: 1, Count: 1, Bytes: 8}}, got.Bundles); diff != "" {
		t.Errorf("bundles (-want +got):\n%s", diff)
	}
}

// TestTimelineBounds checks that detail past MaxDetail is dropped, and
// that a window leaves out what lies outside it.
func TestTimelineBounds(t *testing.T) {
	if got := runTimeline(&export.TimelineOptions{Columns: 10, MaxDetail: 2}); got.Detail != nil {
		t.Errorf("detail kept past MaxDetail: %+v", got.Detail)
	}
	got := runTimeline(&export.TimelineOptions{Columns: 10, From: 60, To: 100})
	if got.Detail == nil || len(got.Detail.Slices) != 2 || len(got.Detail.Messages) != 0 || len(got.Bundles) != 0 {
		t.Errorf("window [60, 100]: %+v, bundles %v", got.Detail, got.Bundles)
	}
	for _, c := range got.Cells {
		if c.Region == 1 {
			t.Errorf("region A drawn in a window after it: %+v", c)
		}
	}
}

// TestTimelineJSONLocationIDs checks that the timeline's JSON names its
// model location ids as every output of the SDK does: loc_id, from_id,
// to_id, never loc, from or to (which name native ids).
func TestTimelineJSONLocationIDs(t *testing.T) {
	b, err := json.Marshal(runTimeline(&export.TimelineOptions{Columns: 10, From: 0, To: 100}))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Cells   []map[string]any `json:"cells"`
		Bundles []map[string]any `json:"bundles"`
		Detail  struct {
			Slices   []map[string]any `json:"slices"`
			Messages []map[string]any `json:"messages"`
		} `json:"detail"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	check := func(what string, rows []map[string]any, want ...string) {
		if len(rows) == 0 {
			t.Errorf("no %s", what)
		}
		for _, r := range rows {
			for _, k := range []string{"loc", "from", "to"} {
				if _, ok := r[k]; ok {
					t.Errorf("%s %v has %q", what, r, k)
				}
			}
			for _, k := range want {
				if id, ok := r[k].(float64); !ok || id < 1 || id > 2 {
					t.Errorf("%s %v: %s is not a model location id of the 2 locations", what, r, k)
				}
			}
		}
	}
	check("cell", v.Cells, "loc_id")
	check("bundle", v.Bundles, "from_id", "to_id")
	check("slice", v.Detail.Slices, "loc_id")
	check("message", v.Detail.Messages, "from_id", "to_id")
}
