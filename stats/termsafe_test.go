package stats_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
)

// hostileName would recolour the terminal, ring, return to the start of
// the line and overwrite it, and start a C1 CSI, if printed raw.
const hostileName = "solve\x1b[31m\a\rFAKE\u009b2J\nline"

// checkTerminalSafe fails if text holds a control character other than
// the newlines of its lines, or bytes that are not UTF-8.
func checkTerminalSafe(t *testing.T, text string) {
	t.Helper()
	if !utf8.ValidString(text) {
		t.Errorf("text is not UTF-8")
	}
	for i, r := range text {
		if r != '\n' && (r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f) {
			t.Errorf("control character %U at byte %d of the text", r, i)
		}
	}
}

func TestWriteTextEscapesControls(t *testing.T) {
	d := new(model.Defs)
	d.TimeBase = model.TimeBase{TicksPerSecond: 1e9}
	l := d.AddLocation(model.Location{Name: "rank\x1b]0;title\a"})
	r := d.AddRegion(model.Region{Name: hostileName, Kind: model.RegionFunction})
	a := stats.New(d, nil)
	a.Add(&model.Event{Time: 0, Loc: l, Kind: model.KindEnter, Region: r})
	a.Add(&model.Event{Time: 10, Loc: l, Kind: model.KindLeave, Region: r})
	ct := stats.NewCallTree(d, nil)
	ct.Add(&model.Event{Time: 0, Loc: l, Kind: model.KindEnter, Region: r})
	ct.Add(&model.Event{Time: 10, Loc: l, Kind: model.KindLeave, Region: r})
	rep := a.Finalize()
	var buf bytes.Buffer
	if err := rep.WriteText(&buf, &stats.TextOptions{CallTree: ct.Root()}); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	checkTerminalSafe(t, text)
	if want := `solve\x1b[31m\x07\x0dFAKE\u009b2J\x0aline`; !strings.Contains(text, want) {
		t.Errorf("text lacks the escaped name %s:\n%s", want, text)
	}
	// JSON escapes by itself: the name comes back as it was.
	js, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Final struct {
			Functions []struct {
				Region string `json:"region"`
			} `json:"functions"`
		} `json:"final"`
	}
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Final.Functions) != 1 || back.Final.Functions[0].Region != hostileName {
		t.Errorf("JSON functions %+v, want the name %q unchanged", back.Final.Functions, hostileName)
	}
}
