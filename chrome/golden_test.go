package chrome_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace/chrome"
	"github.com/hpctrace/hpctrace/model"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// dump reads a document to its end and prints its locations, regions and
// events, one a line, with names for ids, then the diagnostics.
func dump(t *testing.T, name string) string {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := chrome.NewReader(f, &chrome.ReaderOptions{Path: name})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	var events []string
	for ev, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, eventLine(r.Defs(), ev))
	}
	d := r.Defs()
	fmt.Fprintf(&b, "time base: %v\n", d.TimeBase)
	for _, l := range d.Locations() {
		fmt.Fprintf(&b, "location %d: %q process %d thread %d native %d host %v\n", l.ID, l.Name, l.Process, l.Thread, l.Native, l.Host)
	}
	for _, g := range d.Regions() {
		fmt.Fprintf(&b, "region %d: %q %v group %q\n", g.ID, g.Name, g.Kind, g.Group)
	}
	for _, c := range d.Counters() {
		fmt.Fprintf(&b, "counter %d: %q\n", c.ID, c.Name)
	}
	for _, c := range d.Comms() {
		fmt.Fprintf(&b, "comm %d: %q\n", c.ID, c.Name)
	}
	for _, e := range events {
		b.WriteString(e)
	}
	fmt.Fprintf(&b, "diagnostics: %+v\n", r.Diagnostics())
	return b.String()
}

func eventLine(d *model.Defs, ev *model.Event) string {
	s := fmt.Sprintf("%d %s %v", ev.Time, d.LocationName(ev.Loc), ev.Kind)
	if ev.Region != 0 {
		s += " region=" + d.RegionName(ev.Region)
	}
	if ev.Peer != 0 {
		s += " peer=" + d.LocationName(ev.Peer)
	}
	if ev.Text != 0 {
		s += fmt.Sprintf(" text=%q", d.String(ev.Text))
	}
	switch ev.Kind {
	case model.KindSend, model.KindRecv:
		s += fmt.Sprintf(" tag=%d comm=%d bytes=%d flags=%v", ev.Tag, ev.Comm, ev.Bytes, ev.Flags)
	case model.KindCollBegin:
		s += fmt.Sprintf(" comm=%d class=%v bytes=%d recvd=%d", ev.Comm, ev.Class, ev.Bytes, ev.Recvd)
	case model.KindCounter:
		s += fmt.Sprintf(" counter=%d value=%d", ev.Counter, ev.Value)
	}
	return s + "\n"
}

// TestGolden reads each testdata/*.json and compares its dump with
// testdata/*.golden (go test ./chrome -run TestGolden -update rewrites them).
func TestGolden(t *testing.T) {
	names, err := filepath.Glob("testdata/*.json")
	if err != nil || len(names) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, name := range names {
		t.Run(filepath.Base(name), func(t *testing.T) {
			got := dump(t, name)
			golden := strings.TrimSuffix(name, ".json") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("dump of %s (-want +got):\n%s", name, diff)
			}
		})
	}
}
