package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace/eventjson"
	"github.com/hpctrace/hpctrace/model"
)

// TestHostileNames: region and location names with escape sequences, a
// carriage return, a bell and a C1 control reach the text report escaped,
// and the JSON report unchanged.
func TestHostileNames(t *testing.T) {
	const region = "solve\x1b[31m\a\rFAKE\u009b2J"
	d := new(model.Defs)
	d.TimeBase = model.TimeBase{TicksPerSecond: 1e9}
	l := d.AddLocation(model.Location{Name: "rank\x1b]0;title\a"})
	r := d.AddRegion(model.Region{Name: region, Kind: model.RegionFunction})
	var trace bytes.Buffer
	w, err := eventjson.NewWriter(&trace, d, nil)
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
	path := filepath.Join(t.TempDir(), "hostile\x1b[2J.json")
	if err := os.WriteFile(path, trace.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if err := run([]string{path}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for i, c := range text {
		if c != '\n' && (c < 0x20 || c == 0x7f || c >= 0x80 && c <= 0x9f) {
			t.Errorf("control character %U at byte %d of the text report", c, i)
		}
	}
	for _, want := range []string{`solve\x1b[31m\x07\x0dFAKE\u009b2J`, `hostile\x1b[2J.json`} {
		if !strings.Contains(text, want) {
			t.Errorf("text report lacks %s:\n%s", want, text)
		}
	}
	out.Reset()
	if err := run([]string{"-json", path}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Final struct {
			Functions []struct {
				Region string `json:"region"`
			} `json:"functions"`
		} `json:"final"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Final.Functions) != 1 || rep.Final.Functions[0].Region != region {
		t.Errorf("JSON functions %+v, want the name %q unchanged", rep.Final.Functions, region)
	}
}
