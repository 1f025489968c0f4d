package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/picl"
)

// convInputs lists the fixtures of the format packages by format.
func convInputs(t *testing.T) map[string][]string {
	t.Helper()
	glob := func(pattern string) []string {
		m, err := filepath.Glob(pattern)
		if err != nil || len(m) == 0 {
			t.Fatalf("no fixtures %s", pattern)
		}
		return m
	}
	return map[string][]string{
		"picl":  glob("../../picl/testdata/*.trf"),
		"dumpi": glob("../../dumpi/testdata/*/*.meta"),
		"otf":   glob("../../otf/testdata/*/*.otf"),
		"json":  glob("../../eventjson/testdata/*.json"),
		"otf2":  glob("../../otf2/testdata/*/trace/*.otf2"),
	}
}

// readModel reads every event of a model input, keeping copies.
func readModel(t *testing.T, in modelInput) (*model.Defs, []model.Event) {
	t.Helper()
	src, closeSrc, err := in()
	if err != nil {
		t.Fatal(err)
	}
	defer closeSrc()
	var evs []model.Event
	for ev, err := range model.All(src) {
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, *ev)
	}
	return src.Defs(), evs
}

// mapped is an event reduced to what a conversion to OTF or JSON keeps,
// with names instead of ids where the ids may change.
type mapped struct {
	Time         model.Time
	Kind         model.Kind
	Region       string
	Peer, Comm   uint32
	Tag          int32
	Bytes, Recvd int64
	Class        model.Class
	Match        uint64
	Counter      string
	Value        int64
	Text         string
}

// mapEvents groups the events by location and maps them; a marker of a
// region is a zero-length Enter and Leave of it followed by its text, as
// the conversion to OTF writes it. Times are relative to the first event.
func mapEvents(d *model.Defs, evs []model.Event, expandMarkers bool, comm func(*model.Defs, model.CommID) uint32) map[model.LocID][]mapped {
	out := map[model.LocID][]mapped{}
	var t0 model.Time
	for i, ev := range evs {
		if i == 0 || ev.Time < t0 {
			t0 = ev.Time
		}
	}
	name := func(r model.RegionID) string {
		reg, _ := d.Region(r)
		return reg.Name
	}
	for _, ev := range evs {
		m := mapped{Time: ev.Time - t0, Kind: ev.Kind}
		switch ev.Kind {
		case model.KindEnter, model.KindLeave:
			m.Region = name(ev.Region)
		case model.KindSend, model.KindRecv:
			m.Peer, m.Comm, m.Tag, m.Bytes, m.Match = uint32(ev.Peer), comm(d, ev.Comm), ev.Tag, ev.Bytes, ev.Match
		case model.KindRecvPost:
			m.Peer, m.Comm, m.Tag, m.Match = uint32(ev.Peer), comm(d, ev.Comm), ev.Tag, ev.Match
		case model.KindSendDone:
			m.Match = ev.Match
		case model.KindParameter:
			m.Text, m.Value = d.String(ev.Text), ev.Value
			if ev.Flags&model.StringValue != 0 {
				m.Text, m.Value = m.Text+"="+d.String(model.StringID(ev.Value)), 0
			}
		case model.KindCollBegin:
			m.Region = name(ev.Region)
			if m.Region == "" {
				m.Region = ev.Class.String()
			}
			m.Peer, m.Comm, m.Bytes, m.Recvd, m.Class, m.Match = uint32(ev.Peer), comm(d, ev.Comm), ev.Bytes, ev.Recvd, ev.Class, ev.Match
		case model.KindCollEnd:
			m.Match = ev.Match
		case model.KindCounter:
			c, _ := d.Counter(ev.Counter)
			m.Counter, m.Value = c.Name, ev.Value
		case model.KindMarker:
			if expandMarkers && ev.Region != 0 {
				out[ev.Loc] = append(out[ev.Loc],
					mapped{Time: m.Time, Kind: model.KindEnter, Region: name(ev.Region)},
					mapped{Time: m.Time, Kind: model.KindLeave, Region: name(ev.Region)})
				if ev.Text == 0 {
					continue
				}
			}
			m.Text = d.String(ev.Text)
			if !expandMarkers {
				m.Region = name(ev.Region)
			}
		}
		out[ev.Loc] = append(out[ev.Loc], m)
	}
	return out
}

// commID and commNative name a communicator by id or by native id.
func commID(_ *model.Defs, c model.CommID) uint32 { return uint32(c) }

func commNative(d *model.Defs, c model.CommID) uint32 {
	cm, _ := d.Comm(c)
	return uint32(cm.Native)
}

// resolveLeaves drops the Enter events of region 0 and names the region
// of every Leave of region 0, dropping those with nothing open, as every
// conversion does.
func resolveLeaves(evs []model.Event) []model.Event {
	var open model.OpenRegions
	var out []model.Event
	for _, ev := range evs {
		switch ev.Kind {
		case model.KindEnter:
			if ev.Region == 0 {
				continue
			}
			open.Enter(ev.Loc, ev.Region)
		case model.KindLeave:
			var out model.LeaveOutcome
			if ev.Region, out = open.Leave(ev.Loc, ev.Region); out == model.LeaveUnmatched && ev.Region == 0 {
				continue
			}
		}
		out = append(out, ev)
	}
	return out
}

// otfKept leaves out of evs what an OTF conversion drops: messages without a
// known peer (an OTF message names its partner), the requests of
// non-blocking messages, and the receive posts, send completions,
// parameters and non-blocking collectives OTF has no record for; program begins and ends read back as
// the markers of BeginProcess and EndProcess.
func otfKept(evs []mapped) []mapped {
	evs = slices.DeleteFunc(evs, func(m mapped) bool {
		switch m.Kind {
		case model.KindSend, model.KindRecv:
			return m.Peer == 0
		case model.KindRecvPost, model.KindSendDone, model.KindParameter, model.KindCollPost, model.KindCollDone:
			return true
		}
		return false
	})
	for i := range evs {
		m := &evs[i]
		switch m.Kind {
		case model.KindSend, model.KindRecv:
			m.Match = 0
		case model.KindProgramBegin:
			*m = mapped{Time: m.Time, Kind: model.KindMarker, Text: "BeginProcess"}
		case model.KindProgramEnd:
			*m = mapped{Time: m.Time, Kind: model.KindMarker, Text: "EndProcess"}
		}
	}
	return evs
}

// TestConvert converts every fixture to every other format and checks that
// the output reads back through the target format's reader, that the
// events survive where the target can hold them, and that the reference
// otfprint reads every OTF output.
func TestConvert(t *testing.T) {
	otfprint, _ := exec.LookPath("otfprint")
	n := 0
	for from, ins := range convInputs(t) {
		for _, in := range ins {
			f, err := hpctrace.Detect(in)
			if err != nil {
				t.Fatal(err)
			}
			if formatName(f) != from {
				t.Fatalf("%s: detected %v, want %s", in, f, from)
			}
			wantDefs, wantEvs := readModel(t, openModel(in, nil))
			wantEvs = resolveLeaves(wantEvs)
			for _, to := range []string{"otf", "picl", "json"} {
				if to == from {
					continue
				}
				name := strings.ReplaceAll(strings.TrimPrefix(filepath.ToSlash(in), "../../"), "/", "_")
				t.Run(name+"/"+to, func(t *testing.T) {
					n++
					out := filepath.Join(t.TempDir(), "out."+map[string]string{"otf": "otf", "picl": "trf", "json": "json"}[to])
					if err := convert(in, out, &options{to: to, otf: otfFlags{form: "short"}}); err != nil {
						t.Fatal(err)
					}
					switch to {
					case "otf":
						gotDefs, gotEvs := readModel(t, openModel(out, nil))
						want := mapEvents(wantDefs, wantEvs, true, commID)
						// OTF strings have no escaping: double quotes become blanks.
						for l, evs := range want {
							evs = otfKept(evs)
							want[l] = evs
							for i := range evs {
								evs[i].Text = strings.ReplaceAll(evs[i].Text, `"`, " ")
							}
						}
						got := mapEvents(gotDefs, gotEvs, true, commNative)
						if diff := cmp.Diff(want, got); diff != "" {
							t.Errorf("%s → OTF → model differs from %s → model (-want +got):\n%s", from, from, diff)
						}
						if otfprint != "" {
							runOTFPrint(t, otfprint, out)
						}
					case "json":
						gotDefs, gotEvs := readModel(t, openModel(out, nil))
						if diff := cmp.Diff(mapEvents(wantDefs, wantEvs, false, commNative), mapEvents(gotDefs, gotEvs, false, commNative)); diff != "" {
							t.Errorf("%s → JSON → model differs from %s → model (-want +got):\n%s", from, from, diff)
						}
					case "picl":
						checkPICL(t, from, out, wantDefs, wantEvs)
					}
				})
			}
		}
	}
	if n < 20 {
		t.Errorf("%d conversions; want at least 20", n)
	}
}

// runOTFPrint runs the reference otfprint on the master file out.
func runOTFPrint(t *testing.T, otfprint, out string) {
	t.Helper()
	cmd := exec.Command(otfprint, filepath.Base(out))
	cmd.Dir = filepath.Dir(out)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("reference otfprint: %v\n%s", err, stderr.String())
	}
	if s := stdout.String() + stderr.String(); strings.Contains(strings.ToLower(s), "error") {
		t.Errorf("reference otfprint reports an error:\n%s", s)
	}
}

// checkPICL reads a PICL output, checks what ParaGraph expects of it and
// that the regions, messages and markers survive.
func checkPICL(t *testing.T, from, out string, wantDefs *model.Defs, want []model.Event) {
	t.Helper()
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := picl.NewReader(bufio.NewReader(f), &picl.ReaderOptions{Path: out, Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	findings, err := picl.Validate(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		t.Errorf("ParaGraph check: %v", f)
	}
	gotDefs, got := readModel(t, openModel(out, nil))
	if diff := cmp.Diff(mapToPICL(wantDefs, want), mapFromPICL(gotDefs, got, wantDefs.TimeBase.TicksPerSecond == 1_000_000)); diff != "" {
		t.Errorf("%s → PICL → model differs from %s → model (-want +got):\n%s", from, from, diff)
	}
}

// mapToPICL maps the events of a model source to what a conversion to PICL
// keeps, by processor: regions (by name), messages with a known peer
// (processor, tag, size), markers of a region and marker texts. Times are
// compared only when the source's clock is PICL's microseconds.
func mapToPICL(d *model.Defs, evs []model.Event) map[int64][]mapped {
	proc := map[model.LocID]int64{}
	var next int64
	for _, l := range d.Locations() {
		if l.Host {
			proc[l.ID] = int64(picl.Host)
		} else {
			proc[l.ID] = next
			next++
		}
	}
	exact := d.TimeBase.TicksPerSecond == 1_000_000
	out := map[int64][]mapped{}
	for _, ev := range evs {
		m := mapped{Kind: ev.Kind}
		if exact {
			m.Time = ev.Time
		}
		reg, _ := d.Region(ev.Region)
		switch ev.Kind {
		case model.KindEnter, model.KindLeave:
			m.Region = reg.Name
		case model.KindSend, model.KindRecv:
			if ev.Peer == 0 {
				continue
			}
			m.Peer, m.Tag, m.Bytes = uint32(proc[ev.Peer]), ev.Tag, ev.Bytes
		case model.KindMarker:
			if ev.Region != 0 {
				out[proc[ev.Loc]] = append(out[proc[ev.Loc]], mapped{Time: m.Time, Kind: model.KindMarker, Region: reg.Name})
			}
			if m.Text = d.String(ev.Text); m.Text == "" {
				continue
			}
		default:
			continue
		}
		out[proc[ev.Loc]] = append(out[proc[ev.Loc]], m)
	}
	return out
}

// mapFromPICL maps the events of a PICL output like mapToPICL, leaving out
// the PICL events the conversion adds (-901 tracing, -21 and -51/-52
// brackets around messages: every region with a negative event type).
func mapFromPICL(d *model.Defs, evs []model.Event, exact bool) map[int64][]mapped {
	out := map[int64][]mapped{}
	for _, ev := range evs {
		loc, _ := d.Location(ev.Loc)
		reg, _ := d.Region(ev.Region)
		m := mapped{Time: ev.Time, Kind: ev.Kind}
		if !exact {
			m.Time = 0
		}
		switch ev.Kind {
		case model.KindEnter, model.KindLeave:
			if reg.Native < 0 {
				continue
			}
			m.Region = reg.Name
		case model.KindSend, model.KindRecv:
			peer, _ := d.Location(ev.Peer)
			m.Peer, m.Tag, m.Bytes = uint32(peer.Native), ev.Tag, ev.Bytes
		case model.KindMarker:
			m.Region, m.Text = reg.Name, d.String(ev.Text)
		default:
			continue
		}
		out[loc.Native] = append(out[loc.Native], m)
	}
	return out
}

// TestConvertOptions: an unknown -to and a copy of a DUMPI run are errors.
func TestConvertOptions(t *testing.T) {
	dir := t.TempDir()
	if err := convert("../../picl/testdata/appendix_a.trf", filepath.Join(dir, "x"), &options{to: "dumpi"}); err == nil {
		t.Error("-to dumpi succeeded; want an error")
	}
	metas, _ := filepath.Glob("../../dumpi/testdata/p2p_blocking/*.meta")
	if len(metas) == 0 {
		t.Fatal("no run")
	}
	if err := convert(metas[0], filepath.Join(dir, "y"), &options{}); err == nil {
		t.Error("copy of a DUMPI run succeeded; want an error")
	}
}

// TestPICLCopy: a PICL trace without -to is copied byte for byte.
func TestPICLCopy(t *testing.T) {
	in := "../../picl/testdata/appendix_a.trf"
	out := filepath.Join(t.TempDir(), "copy.trf")
	if err := convert(in, out, &options{}); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(in)
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("copy differs (got %d bytes, want %d)", len(got), len(want))
	}
}

// TestKOI8NamesThroughJSON: an OTF trace whose function names are KOI8-R
// converts to JSON and back to OTF with every name byte for byte; the
// JSON document is valid UTF-8 and carries the bytes in "name_bytes".
func TestKOI8NamesThroughJSON(t *testing.T) {
	in := "../../otf/testdata/compat/koi8_names/koi8.otf"
	dir := t.TempDir()
	js, back := filepath.Join(dir, "k.json"), filepath.Join(dir, "k.otf")
	if err := convert(in, js, &options{to: "json"}); err != nil {
		t.Fatal(err)
	}
	if err := convert(js, back, &options{to: "otf", otf: otfFlags{form: "short"}}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if !utf8.Valid(b) || !strings.Contains(string(b), `"name_bytes":`) {
		t.Errorf("JSON document: valid UTF-8 %v, has name_bytes %v", utf8.Valid(b), strings.Contains(string(b), `"name_bytes":`))
	}
	names := func(path string) []string {
		d, _ := readModel(t, openModel(path, nil))
		var out []string
		for _, r := range d.Regions() {
			out = append(out, r.Name)
		}
		slices.Sort(out)
		return out
	}
	want := names(in)
	if !slices.ContainsFunc(want, func(s string) bool { return !utf8.ValidString(s) }) {
		t.Fatalf("fixture has no name that is not UTF-8: %q", want)
	}
	for _, path := range []string{js, back} {
		if got := names(path); !slices.Equal(got, want) {
			t.Errorf("%s: region names %q, want %q", filepath.Base(path), got, want)
		}
	}
}
