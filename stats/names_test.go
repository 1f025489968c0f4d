package stats

import (
	"testing"
	"unicode/utf8"

	"github.com/hpctrace/hpctrace/model"
	"pgregory.net/rapid"
)

// TestRawName: a name that is not UTF-8 is escaped to valid UTF-8 and
// RawName gives its bytes back; a UTF-8 name is left as it is.
func TestRawName(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := string(rapid.SliceOf(rapid.SampledFrom([]byte{'a', '\\', 'x', '4', 0xc7, 0xd0, 0xb8, 0xff})).Draw(t, "name"))
		e := escapeName(s)
		if !utf8.ValidString(e) {
			t.Fatalf("escapeName(%q) = %q, not UTF-8", s, e)
		}
		if utf8.ValidString(s) {
			if e != s {
				t.Fatalf("escapeName(%q) = %q, want it unchanged", s, e)
			}
			return
		}
		if got := RawName(e); got != s {
			t.Fatalf("RawName(%q) = %q, want %q", e, got, s)
		}
	})
	if got := escapeName("\xc7\xcc-\\"); got != `\xc7\xcc-\\` {
		t.Errorf("escapeName = %q", got)
	}
}

// TestLocationTable: the report lists every location with its kind.
func TestLocationTable(t *testing.T) {
	var d model.Defs
	d.AddLocation(model.Location{Native: 5, Name: "Process 0"})
	d.AddLocation(model.Location{Native: 6, Name: "Process 0:1", Thread: 1})
	d.AddLocation(model.Location{Native: 32767, Name: "host", Host: true})
	d.AddLocation(model.Location{Native: 7, Name: "\xd2\xc5"})
	rep := New(&d, nil).Finalize()
	want := []LocationInfo{
		{1, 5, "Process 0", "process", 0, 0},
		{2, 6, "Process 0:1", "thread", 0, 1},
		{3, 32767, "host", "host", 0, 0},
		{4, 7, `\xd2\xc5`, "process", 0, 0},
	}
	if len(rep.Locations) != len(want) {
		t.Fatalf("locations %+v, want %+v", rep.Locations, want)
	}
	for i := range want {
		if rep.Locations[i] != want[i] {
			t.Errorf("location %d: %+v, want %+v", i, rep.Locations[i], want[i])
		}
	}
}
