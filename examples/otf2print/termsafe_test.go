package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf2"
)

// TestHostileNames: a region name with an escape sequence, a carriage
// return, a bell and a C1 control is printed escaped.
func TestHostileNames(t *testing.T) {
	d := new(model.Defs)
	d.TimeBase = model.TimeBase{TicksPerSecond: 1e9}
	l := d.AddLocation(model.Location{Name: "rank 0"})
	r := d.AddRegion(model.Region{Name: "solve\x1b[31m\a\rFAKE\u009b2J", Kind: model.RegionFunction})
	dir := t.TempDir()
	w, err := otf2.NewModelWriter(model.DirCreator(dir), d, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range []model.Event{
		{Time: 0, Loc: l, Kind: model.KindEnter, Region: r},
		{Time: 10, Loc: l, Kind: model.KindLeave, Region: r},
	} {
		if err := w.Write(&ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{nil, {"-G"}} {
		text := output(t, append(args, filepath.Join(dir, "traces.otf2")))
		for i, c := range text {
			if c != '\n' && c != '\t' && (c < 0x20 || c == 0x7f || c >= 0x80 && c <= 0x9f) {
				t.Errorf("%v: control character %U at byte %d", args, c, i)
			}
		}
		if want := `solve\x1b[31m\x07\x0dFAKE\u009b2J`; !strings.Contains(text, want) {
			t.Errorf("%v: output lacks %s:\n%s", args, want, text)
		}
	}
}
