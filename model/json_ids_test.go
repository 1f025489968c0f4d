package model

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestJSONWriterNoNatives: regions and counters added without a Native
// (all 0) are written with distinct ids, so the reader accepts the file
// and every event keeps its region and counter.
func TestJSONWriterNoNatives(t *testing.T) {
	d := new(Defs)
	d.TimeBase.TicksPerSecond = 1000
	l := d.AddLocation(Location{Name: "a"})
	f := d.AddRegion(Region{Name: "f", Kind: RegionFunction})
	g := d.AddRegion(Region{Name: "g", Kind: RegionFunction})
	bar := d.AddRegion(Region{Name: "bar", Kind: RegionCollective})
	bar2 := d.AddRegion(Region{Name: "bar", Kind: RegionCollective}) // a name two regions share
	c1 := d.AddCounter(Counter{Name: "c1"})
	c2 := d.AddCounter(Counter{Name: "c2"})
	evs := []Event{
		{Time: 1, Loc: l, Kind: KindEnter, Region: f},
		{Time: 2, Loc: l, Kind: KindEnter, Region: g},
		{Time: 3, Loc: l, Kind: KindLeave, Region: g},
		{Time: 4, Loc: l, Kind: KindCollBegin, Region: bar2, Class: ClassBarrier, Match: 1},
		{Time: 5, Loc: l, Kind: KindCollEnd, Match: 1},
		{Time: 6, Loc: l, Kind: KindCounter, Counter: c2, Value: 9},
		{Time: 7, Loc: l, Kind: KindCounter, Counter: c1, Value: 8},
		{Time: 8, Loc: l, Kind: KindMarker, Region: bar},
		{Time: 9, Loc: l, Kind: KindLeave, Region: f},
	}
	var buf bytes.Buffer
	w, err := NewJSONWriter(&buf, d)
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
	r, err := NewJSONReader(bytes.NewReader(buf.Bytes()), nil)
	if err != nil {
		t.Fatalf("reading the writer's output: %v\n%s", err, buf.Bytes())
	}
	type named struct {
		Time            Time
		Kind            Kind
		Region, Counter string
	}
	name := func(d *Defs, ev *Event) named {
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
	var gotIDs []RegionID
	for ev, err := range All(r) {
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
