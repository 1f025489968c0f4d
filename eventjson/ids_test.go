package eventjson

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hpctrace/hpctrace/model"
)

// TestWriterNoNatives: regions and counters added without a Native
// (all 0) are written with distinct ids, so the reader accepts the file
// and every event keeps its region and counter.
func TestWriterNoNatives(t *testing.T) {
	d := new(model.Defs)
	d.TimeBase.TicksPerSecond = 1000
	l := d.AddLocation(model.Location{Name: "a"})
	f := d.AddRegion(model.Region{Name: "f", Kind: model.RegionFunction})
	g := d.AddRegion(model.Region{Name: "g", Kind: model.RegionFunction})
	bar := d.AddRegion(model.Region{Name: "bar", Kind: model.RegionCollective})
	bar2 := d.AddRegion(model.Region{Name: "bar", Kind: model.RegionCollective}) // a name two regions share
	c1 := d.AddCounter(model.Counter{Name: "c1"})
	c2 := d.AddCounter(model.Counter{Name: "c2"})
	evs := []model.Event{
		{Time: 1, Loc: l, Kind: model.KindEnter, Region: f},
		{Time: 2, Loc: l, Kind: model.KindEnter, Region: g},
		{Time: 3, Loc: l, Kind: model.KindLeave, Region: g},
		{Time: 4, Loc: l, Kind: model.KindCollBegin, Region: bar2, Class: model.ClassBarrier, Match: 1},
		{Time: 5, Loc: l, Kind: model.KindCollEnd, Match: 1},
		{Time: 6, Loc: l, Kind: model.KindCounter, Counter: c2, Value: 9},
		{Time: 7, Loc: l, Kind: model.KindCounter, Counter: c1, Value: 8},
		{Time: 8, Loc: l, Kind: model.KindMarker, Region: bar},
		{Time: 9, Loc: l, Kind: model.KindLeave, Region: f},
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range evs {
		if err := w.Write(&evs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(bytes.NewReader(buf.Bytes()), nil)
	if err != nil {
		t.Fatalf("reading the writer's output: %v\n%s", err, buf.Bytes())
	}
	type named struct {
		Time            model.Time
		Kind            model.Kind
		Region, Counter string
	}
	name := func(d *model.Defs, ev *model.Event) named {
		n := named{Time: ev.Time, Kind: ev.Kind}
		if ev.Region != 0 {
			n.Region = d.RegionName(ev.Region)
		}
		if c, ok := d.Counter(ev.Counter); ok {
			n.Counter = c.Name
		}
		return n
	}
	var want, got []named
	for i := range evs {
		want = append(want, name(d, &evs[i]))
	}
	var gotIDs []model.RegionID
	for ev, err := range model.All(r) {
		if err != nil {
			t.Fatalf("%v\n%s", err, buf.Bytes())
		}
		got = append(got, name(r.Defs(), ev))
		gotIDs = append(gotIDs, ev.Region)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("write → read (-want +got):\n%s", diff)
	}
	// The two regions named "bar" stay two regions.
	if gotIDs[3] == gotIDs[7] {
		t.Errorf("the collective's region and the marker's region read back as one (%d)", gotIDs[3])
	}
	if n := r.Defs().NumRegions(); n != 4 {
		t.Errorf("%d regions read back, want 4", n)
	}
}
