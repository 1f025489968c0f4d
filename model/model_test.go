package model_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/hpctrace/hpctrace/model"
)

func TestEventIsFixedSize(t *testing.T) {
	typ := reflect.TypeFor[model.Event]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		switch f.Type.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.String, reflect.Map, reflect.Interface, reflect.Func, reflect.Chan:
			t.Errorf("Event.%s is a %s; events must hold only fixed-size numbers", f.Name, f.Type.Kind())
		}
	}
	if got := typ.Size(); got > 80 {
		t.Errorf("Event is %d bytes; want at most 80", got)
	}
}

func TestStrings(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{model.KindEnter.String(), "enter"},
		{model.KindCollBegin.String(), "coll_begin"},
		{model.KindMarker.String(), "marker"},
		{model.Kind(200).String(), "Kind(200)"},
		{model.ClassOneToAll.String(), "one2all"},
		{model.Class(9).String(), "Class(9)"},
		{model.RegionLoop.String(), "loop"},
		{model.RegionKind(99).String(), "RegionKind(99)"},
		{model.Flags(0).String(), "0"},
		{(model.SyncMode | model.BytesUnknown).String(), "sync|bytes_unknown"},
		{(model.Waited | 0x80).String(), "waited|0x80"},
		{model.RecordedVolume.String(), "volume"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestTimeBase(t *testing.T) {
	us := model.TimeBase{TicksPerSecond: 1_000_000}
	if got := us.Seconds(1_500_000); got != 1.5 {
		t.Errorf("Seconds(1500000) = %v, want 1.5", got)
	}
	if got := us.FromSeconds(-0.715036); got != -715036 {
		t.Errorf("FromSeconds(-0.715036) = %v, want -715036", got)
	}
	if got := (model.TimeBase{}).Seconds(7); got != 7 {
		t.Errorf("zero TimeBase Seconds(7) = %v, want 7", got)
	}
	if got := us.FromSeconds(1e300); got != 1<<63-1 {
		t.Errorf("FromSeconds(1e300) = %v, want saturation", got)
	}
}

func TestDefs(t *testing.T) {
	var d model.Defs
	if _, ok := d.Location(0); ok {
		t.Error("Location(0) exists in an empty Defs")
	}
	if d.NumLocations() != 0 || d.Locations() != nil {
		t.Error("empty Defs has locations")
	}
	l6 := d.AddLocation(model.Location{Native: 6, Name: "processor 6", Process: 6})
	l7 := d.AddLocation(model.Location{Native: 7, Name: "processor 7", Process: 7})
	if l6 != 1 || l7 != 2 {
		t.Fatalf("location ids %d, %d; want 1, 2", l6, l7)
	}
	if got, ok := d.Location(l7); !ok || got.Name != "processor 7" || got.ID != l7 {
		t.Errorf("Location(%d) = %+v, %v", l7, got, ok)
	}
	if id, ok := d.LocationByNative(6); !ok || id != l6 {
		t.Errorf("LocationByNative(6) = %d, %v; want %d, true", id, ok, l6)
	}
	if _, ok := d.LocationByNative(5); ok {
		t.Error("LocationByNative(5) found a location")
	}
	if _, ok := d.Location(3); ok {
		t.Error("Location(3) exists")
	}
	if n := d.NumLocations(); n != 2 || d.Locations()[1].ID != l7 {
		t.Errorf("NumLocations = %d, Locations = %+v", n, d.Locations())
	}

	r := d.AddRegion(model.Region{Native: -52, Name: "recv0_blocked", Kind: model.RegionComm})
	if got, ok := d.Region(r); !ok || got.Native != -52 || got.Kind != model.RegionComm {
		t.Errorf("Region(%d) = %+v, %v", r, got, ok)
	}
	if id, ok := d.RegionByNative(-52); !ok || id != r {
		t.Errorf("RegionByNative(-52) = %d, %v", id, ok)
	}
	if d.NumRegions() != 1 || len(d.Regions()) != 1 {
		t.Errorf("NumRegions = %d", d.NumRegions())
	}

	s1 := d.AddSite(model.Site{File: "a.f", Line: 3})
	s2 := d.AddSite(model.Site{File: "a.f", Line: 7})
	if again := d.AddSite(model.Site{ID: 99, File: "a.f", Line: 3}); again != s1 || s1 == s2 {
		t.Errorf("AddSite ids %d %d %d; want equal sites to share an id", s1, s2, again)
	}
	if got, ok := d.Site(s2); !ok || got.Line != 7 || got.ID != s2 {
		t.Errorf("Site(%d) = %+v, %v", s2, got, ok)
	}
	if len(d.Sites()) != 2 {
		t.Errorf("Sites() = %v", d.Sites())
	}

	c := d.AddComm(model.Comm{Native: 91, Name: "world", Members: []model.LocID{l6, l7}})
	if got, ok := d.Comm(c); !ok || len(got.Members) != 2 {
		t.Errorf("Comm(%d) = %+v, %v", c, got, ok)
	}
	if id, ok := d.CommByNative(91); !ok || id != c || len(d.Comms()) != 1 {
		t.Errorf("CommByNative(91) = %d, %v", id, ok)
	}
	k := d.AddCounter(model.Counter{Native: 1, Name: "flops", Accumulating: true})
	if got, ok := d.Counter(k); !ok || !got.Accumulating {
		t.Errorf("Counter(%d) = %+v, %v", k, got, ok)
	}
	if id, ok := d.CounterByNative(1); !ok || id != k || len(d.Counters()) != 1 {
		t.Errorf("CounterByNative(1) = %d, %v", id, ok)
	}
	sub := d.AddSubset(model.Subset{Native: -1013, Members: []int64{-51, -52}})
	if got, ok := d.Subset(sub); !ok || got.Native != -1013 || len(d.Subsets()) != 1 {
		t.Errorf("Subset(%d) = %+v, %v", sub, got, ok)
	}
	if _, ok := d.Subset(0); ok {
		t.Error("Subset(0) exists")
	}

	if d.Intern("") != 0 || d.String(0) != "" {
		t.Error("empty string is not id 0")
	}
	a := d.Intern("alpha")
	if d.Intern("alpha") != a || d.InternBytes([]byte("alpha")) != a || d.String(a) != "alpha" {
		t.Error("Intern is not idempotent")
	}
	b := d.InternBytes([]byte("beta"))
	if b == a || d.String(b) != "beta" || d.String(1000) != "" {
		t.Error("InternBytes did not add a new string")
	}
	buf := []byte("alpha")
	if n := testing.AllocsPerRun(100, func() { d.InternBytes(buf) }); n != 0 {
		t.Errorf("InternBytes of a known string allocates %.1f times; want 0", n)
	}
}

type failing struct {
	model.SliceSource
	err error
}

func (f *failing) Err() error { return f.err }

func TestAll(t *testing.T) {
	events := []model.Event{{Time: 1, Kind: model.KindEnter}, {Time: 2, Kind: model.KindLeave}, {Time: 3, Kind: model.KindMarker}}
	src := model.NewSliceSource(nil, events)
	if src.Defs() == nil {
		t.Fatal("nil Defs")
	}
	if *src.Event() != (model.Event{}) {
		t.Error("Event before Next is not zero")
	}
	var times []model.Time
	for ev, err := range src.All() {
		if err != nil {
			t.Fatal(err)
		}
		times = append(times, ev.Time)
		if ev.Time == 1 {
			break
		}
	}
	for ev, err := range model.All(src) {
		if err != nil {
			t.Fatal(err)
		}
		times = append(times, ev.Time)
	}
	if !reflect.DeepEqual(times, []model.Time{1, 2, 3}) {
		t.Errorf("times %v; want [1 2 3] across a break", times)
	}

	boom := errors.New("boom")
	f := &failing{SliceSource: *model.NewSliceSource(nil, events[:1]), err: boom}
	var n int
	var gotErr error
	for ev, err := range model.All(f) {
		if err != nil {
			if ev != nil {
				t.Error("error pair carries an event")
			}
			gotErr = err
			continue
		}
		n++
	}
	if n != 1 || !errors.Is(gotErr, boom) {
		t.Errorf("got %d events and error %v; want 1 and boom", n, gotErr)
	}

	src.Reset()
	if n := testing.AllocsPerRun(1000, func() {
		if !src.Next() {
			src.Reset()
		}
	}); n != 0 {
		t.Errorf("SliceSource.Next allocates %.1f times per event; want 0", n)
	}
}

func TestByNativeDenseAndSparse(t *testing.T) {
	var d model.Defs
	natives := []int64{0, 7, -52, 1 << 16, 1<<16 - 1, 1 << 40, -1 << 40}
	ids := make(map[int64]model.RegionID)
	for _, n := range natives {
		ids[n] = d.AddRegion(model.Region{Native: n})
	}
	for _, n := range natives {
		if got, ok := d.RegionByNative(n); !ok || got != ids[n] {
			t.Errorf("RegionByNative(%d) = %d, %v; want %d, true", n, got, ok, ids[n])
		}
	}
	for _, n := range []int64{1, 6, 8, -1, 1<<16 + 1, 1<<40 + 1} {
		if got, ok := d.RegionByNative(n); ok {
			t.Errorf("RegionByNative(%d) = %d, true; want none", n, got)
		}
	}
	again := d.AddRegion(model.Region{Native: 7})
	if got, _ := d.RegionByNative(7); got != again {
		t.Errorf("after redefinition RegionByNative(7) = %d, want %d", got, again)
	}
}

// TestByNativeMany: the natives of a run of many ranks, 0 to past the
// first slice's bound, are found, those defined beyond the slice before
// it grew to them too, and a redefinition replaces the mapping wherever
// the first one was kept.
func TestByNativeMany(t *testing.T) {
	var d model.Defs
	const n = 200_000
	early := d.AddLocation(model.Location{Native: n - 10}) // beyond the slice when defined
	moved := d.AddLocation(model.Location{Native: n - 20})
	ids := make([]model.LocID, n)
	for i := range int64(n) {
		if i != n-10 && i != n-20 {
			ids[i] = d.AddLocation(model.Location{Native: i})
		}
	}
	ids[n-10] = early
	ids[n-20] = d.AddLocation(model.Location{Native: n - 20}) // replaces moved
	for i := range int64(n) {
		if got, ok := d.LocationByNative(i); !ok || got != ids[i] {
			t.Fatalf("LocationByNative(%d) = %d, %v; want %d, true", i, got, ok, ids[i])
		}
	}
	if got, _ := d.LocationByNative(n - 20); got == moved {
		t.Errorf("LocationByNative(%d) = %d, the replaced location", n-20, got)
	}
	if got, ok := d.LocationByNative(n); ok {
		t.Errorf("LocationByNative(%d) = %d, true; want none", n, got)
	}
}
