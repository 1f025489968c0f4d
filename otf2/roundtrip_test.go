package otf2

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

var cmpOpts = []cmp.Option{cmp.AllowUnexported(Event{}, Def{}), cmpopts.EquateEmpty()}

// propRoundTrip writes random definitions of every kind and random events
// of every kind to an archive with small chunks, reads it back and compares.
func propRoundTrip(t *rapid.T) {
	var global, local []DefKind
	for k := DefKind(1); k < numDefKinds; k++ {
		if localKinds[k.TypeID()] == k {
			local = append(local, k)
		}
		if k.Global() && k != DefKindLocation { // Locations are made below
			global = append(global, k)
		}
	}
	nloc := rapid.IntRange(1, 3).Draw(t, "locations")
	cr := memCreator{}
	w, err := NewArchiveWriter(cr, &WriterOptions{EventChunkSize: 256, DefChunkSize: 512, Description: "rt"})
	if err != nil {
		t.Fatal(err)
	}
	var wantDefs []*Def
	for range rapid.IntRange(0, 30).Draw(t, "defs") {
		d := genDef(t, global)
		if d.Kind == DefKindClockProperties && hasKind(wantDefs, DefKindClockProperties) {
			continue
		}
		wantDefs = append(wantDefs, d)
		if err := w.WriteDef(d); err != nil {
			t.Fatal(err)
		}
	}
	wantEvents := make([][]*Event, nloc)
	wantLocal := make([][]*Def, nloc)
	for loc := range nloc {
		ld := NewDef(DefKindLocation)
		ld.SetValue(0, uint64(loc))
		ld.SetValue(1, Undefined32)
		ew, err := w.EventWriter(uint64(loc))
		if err != nil {
			t.Fatal(err)
		}
		time := rapid.Uint64Range(0, 1<<40).Draw(t, "t0")
		for i := range rapid.IntRange(0, 60).Draw(t, "events") {
			time += rapid.Uint64Range(0, 3).Draw(t, "dt")
			ev := genEvent(t, time)
			if err := ew.Write(ev); err != nil {
				t.Fatal(err)
			}
			ev.Location, ev.Number = uint64(loc), uint64(i+1)
			wantEvents[loc] = append(wantEvents[loc], ev)
		}
		ld.SetValue(3, uint64(len(wantEvents[loc])))
		wantDefs = append(wantDefs, ld)
		if err := w.WriteDef(ld); err != nil {
			t.Fatal(err)
		}
		offsets := 0
		for range rapid.IntRange(0, 4).Draw(t, "localdefs") {
			d := genDef(t, local)
			if d.Kind == DefKindClockOffset {
				if offsets++; offsets > 1 {
					continue // two offsets would change the times read
				}
			}
			if d.Kind == DefKindMappingTable {
				d.SetValue(0, 200) // a type readers do not apply
			}
			wantLocal[loc] = append(wantLocal[loc], d)
			if err := w.WriteLocalDef(uint64(loc), d); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	a, err := OpenFS(cr.fs(), "traces.otf2", nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantDefs, a.Defs.All(), cmpOpts...); diff != "" {
		t.Fatalf("global definitions (-want +got):\n%s", diff)
	}
	for loc := range nloc {
		ld, err := a.LocalDefs(uint64(loc))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(wantLocal[loc], ld.Defs, cmpOpts...); diff != "" {
			t.Fatalf("local definitions of %d (-want +got):\n%s", loc, diff)
		}
		r, err := a.EventReader(uint64(loc))
		if err != nil {
			t.Fatal(err)
		}
		var got []*Event
		for ev, err := range r.All() {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, ev.Clone())
		}
		if diff := cmp.Diff(wantEvents[loc], got, cmpOpts...); diff != "" {
			t.Fatalf("events of %d (-want +got):\n%s", loc, diff)
		}
	}
}

func hasKind(ds []*Def, k DefKind) bool {
	for _, d := range ds {
		if d.Kind == k {
			return true
		}
	}
	return false
}

func TestRoundTrip(t *testing.T) { rapid.Check(t, propRoundTrip) }
