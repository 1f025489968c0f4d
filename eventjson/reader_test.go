package eventjson_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hpctrace/hpctrace/eventjson"
	"github.com/hpctrace/hpctrace/model"
	"pgregory.net/rapid"
)

var update = flag.Bool("update", false, "rewrite golden files")

// resolved is an event with ids replaced by what they stand for, so that
// streams whose dense ids were assigned in a different order compare equal.
type resolved struct {
	Time         model.Time
	Loc          int64
	Kind         model.Kind
	Flags        model.Flags
	Class        model.Class
	Region       string
	Site         int32
	Peer         string
	Comm         string
	Tag          int32
	Counter      string
	Bytes, Recvd int64
	Match        uint64
	Value        int64
	Text         string // a Parameter with a string value: its name, "=" and the value (Value is then 0)
}

func resolve(d *model.Defs, e *model.Event) resolved {
	l, _ := d.Location(e.Loc)
	r := resolved{Time: e.Time, Loc: l.Native, Kind: e.Kind, Flags: e.Flags, Class: e.Class, Tag: e.Tag,
		Bytes: e.Bytes, Recvd: e.Recvd, Match: e.Match, Value: e.Value, Text: d.String(e.Text)}
	if e.Kind == model.KindParameter && e.Flags&model.StringValue != 0 {
		r.Value, r.Text = 0, r.Text+"="+d.String(model.StringID(e.Value))
	}
	if reg, ok := d.Region(e.Region); ok {
		r.Region = fmt.Sprintf("%d %q %v %q %q %d", reg.Native, reg.Name, reg.Kind, reg.Group, reg.File, reg.Line)
		if reg.Paradigm != model.ParadigmUnknown {
			r.Region += " " + reg.Paradigm.String()
		}
	}
	if s, ok := d.Site(e.Site); ok {
		r.Site = s.Line
	}
	if p, ok := d.Location(e.Peer); ok {
		r.Peer = fmt.Sprintf("%d %q %d %d %v", p.Native, p.Name, p.Process, p.Thread, p.Host)
	}
	if c, ok := d.Comm(e.Comm); ok {
		r.Comm = fmt.Sprint(c.Native)
	}
	if c, ok := d.Counter(e.Counter); ok {
		r.Counter = fmt.Sprintf("%d %q %q %v", c.Native, c.Name, c.Unit, c.Accumulating)
	}
	return r
}

func readAll(t rapid.TB, r io.Reader) (*model.Defs, []resolved) {
	t.Helper()
	jr, err := eventjson.NewReader(r, nil)
	if err != nil {
		t.Fatalf("NewReader: %v", err)
	}
	var out []resolved
	for ev, err := range jr.All() {
		if err != nil {
			t.Fatalf("event %d: %v", len(out), err)
		}
		out = append(out, resolve(jr.Defs(), ev))
	}
	return jr.Defs(), out
}

func writeAll(t rapid.TB, d *model.Defs, events []model.Event) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := eventjson.NewWriter(&buf, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range events {
		if err := w.Write(&events[i]); err != nil {
			t.Fatalf("Write event %d: %v", i, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func propRoundTrip(t *rapid.T) {
	tc := genTrace().Draw(t, "trace")
	want := make([]resolved, len(tc.events))
	for i := range tc.events {
		want[i] = resolve(tc.defs, &tc.events[i])
	}
	data := writeAll(t, tc.defs, tc.events)
	defs, got := readAll(t, bytes.NewReader(data))
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("round trip (-want +got):\n%s\n%s", diff, data)
	}
	if defs.TimeBase != tc.defs.TimeBase || defs.NumLocations() != tc.defs.NumLocations() || defs.NumRegions() != tc.defs.NumRegions() {
		t.Fatalf("definitions changed: %+v / %d locations, %d regions", defs.TimeBase, defs.NumLocations(), defs.NumRegions())
	}
	for i, l := range tc.defs.Locations() {
		if got := defs.Locations()[i]; got != l {
			t.Fatalf("location %d: got %+v, want %+v", i, got, l)
		}
	}
	for i, r := range tc.defs.Regions() {
		if got := defs.Regions()[i]; got != r {
			t.Fatalf("region %d: got %+v, want %+v", i, got, r)
		}
	}
}

func TestRoundTrip(t *testing.T) { rapid.Check(t, propRoundTrip) }

func FuzzRoundTrip(f *testing.F) { f.Fuzz(rapid.MakeFuzz(propRoundTrip)) }

// dump writes a deterministic text form of a trace for golden files.
func dump(w io.Writer, d *model.Defs, events []resolved) {
	fmt.Fprintf(w, "ticks_per_second %d\n", d.TimeBase.TicksPerSecond)
	for _, l := range d.Locations() {
		fmt.Fprintf(w, "location %d native=%d name=%q process=%d thread=%d host=%v\n", l.ID, l.Native, l.Name, l.Process, l.Thread, l.Host)
	}
	for _, r := range d.Regions() {
		fmt.Fprintf(w, "region %d native=%d name=%q kind=%v group=%q line=%d\n", r.ID, r.Native, r.Name, r.Kind, r.Group, r.Line)
	}
	for _, s := range d.Sites() {
		fmt.Fprintf(w, "site %d line=%d\n", s.ID, s.Line)
	}
	for _, c := range d.Comms() {
		fmt.Fprintf(w, "comm %d native=%d\n", c.ID, c.Native)
	}
	for _, c := range d.Counters() {
		fmt.Fprintf(w, "counter %d native=%d\n", c.ID, c.Native)
	}
	for _, e := range events {
		fmt.Fprintf(w, "%+v\n", e)
	}
}

func TestGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.json")
	if len(files) < 4 {
		t.Fatalf("found %d testdata files; want the 4 expected-report inputs", len(files))
	}
	for _, name := range files {
		t.Run(filepath.Base(name), func(t *testing.T) {
			f, err := os.Open(name)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			d, events := readAll(t, f)
			var buf bytes.Buffer
			dump(&buf, d, events)
			golden := strings.TrimSuffix(name, ".json") + ".golden"
			if *update {
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), buf.String()); diff != "" {
				t.Errorf("dump of %s (-want +got):\n%s", name, diff)
			}
		})
	}
}

func TestExpectedCounts(t *testing.T) {
	tests := []struct {
		file           string
		events, locs   int
		regions, comms int
		first          model.Time
	}{
		{"appendix_a.json", 27, 4, 11, 1, -715036}, // peers 0, 5, 7 are defined on first use
		{"fig12.json", 80, 2, 10, 1, 0},
		{"fig12_vclock.json", 10, 2, 4, 1, 21},
		{"otfprofile.json", 67, 3, 7, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			jr, err := eventjson.NewReader(bytes.NewReader(data), &eventjson.ReaderOptions{Path: tt.file})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			var first model.Time
			for jr.Next() {
				if n == 0 {
					first = jr.Event().Time
				}
				n++
			}
			if err := jr.Err(); err != nil {
				t.Fatal(err)
			}
			d := jr.Defs()
			if n != tt.events || d.NumLocations() != tt.locs || d.NumRegions() != tt.regions || len(d.Comms()) != tt.comms || first != tt.first {
				t.Errorf("got %d events, %d locations, %d regions, %d comms, first t=%d; want %d, %d, %d, %d, %d",
					n, d.NumLocations(), d.NumRegions(), len(d.Comms()), first, tt.events, tt.locs, tt.regions, tt.comms, tt.first)
			}
			if jr.Next() || jr.Err() != nil {
				t.Error("Next after the end returned true or an error")
			}
		})
	}
}

func TestBad(t *testing.T) {
	const head = `{"format":"trace-events-json/1","ticks_per_second":1,"locations":[{"id":1}],"regions":[{"id":1,"name":"f","kind":"function"}],"events":[`
	tests := []struct {
		name, in string
		want     error
		record   int64 // -1: error from NewReader
	}{
		{"not json", "hello", eventjson.ErrFormat, -1},
		{"wrong format", `{"format":"x","events":[]}`, eventjson.ErrFormat, -1},
		{"no format", `{"events":[]}`, eventjson.ErrFormat, -1},
		{"bad region kind", `{"format":"trace-events-json/1","regions":[{"id":1,"kind":"banana"}]}`, eventjson.ErrSyntax, -1},
		{"bad region paradigm", `{"format":"trace-events-json/1","regions":[{"id":1,"kind":"function","paradigm":"cobol"}]}`, eventjson.ErrSyntax, -1},
		{"string twice in a parameter", head + `{"t":1,"loc":1,"kind":"parameter","text":"n","string":"a","string":"b"}]}`, eventjson.ErrSyntax, 0},
		{"duplicate location", `{"format":"trace-events-json/1","locations":[{"id":1},{"id":1}]}`, eventjson.ErrSyntax, -1},
		{"bad tps", `{"format":"trace-events-json/1","ticks_per_second":-3}`, eventjson.ErrRange, -1},
		{"truncated header", `{"format":"trace-events-json/1","locations":[`, io.ErrUnexpectedEOF, -1},
		{"truncated events", head + `{"t":1,"loc":1,"kind":"enter","region":1}`, io.ErrUnexpectedEOF, 1},
		{"bad kind", head + `{"t":1,"loc":1,"kind":"jump"}]}`, eventjson.ErrSyntax, 0},
		{"no loc", head + `{"t":1,"kind":"leave","region":1}]}`, eventjson.ErrSyntax, 0},
		{"enter without region", head + `{"t":1,"loc":1,"kind":"enter"}]}`, eventjson.ErrSyntax, 0},
		{"bad waited", head + `{"t":1,"loc":1,"kind":"recv","waited":"maybe"}]}`, eventjson.ErrSyntax, 0},
		{"negative bytes", head + `{"t":1,"loc":1,"kind":"send","peer":1,"bytes":-1}]}`, eventjson.ErrSyntax, 0},
		{"negative sent", head + `{"t":1,"loc":1,"kind":"coll_begin","sent":-8}]}`, eventjson.ErrSyntax, 0},
		{"coll_post without match", head + `{"t":1,"loc":1,"kind":"coll_post","op":1}]}`, eventjson.ErrSyntax, 0},
		{"coll_done without match", head + `{"t":1,"loc":1,"kind":"coll_done","class":"barrier"}]}`, eventjson.ErrSyntax, 0},
		{"bad class", head + `{"t":1,"loc":1,"kind":"coll_begin","class":"some"}]}`, eventjson.ErrSyntax, 0},
		{"unknown op name", head + `{"t":1,"loc":1,"kind":"coll_begin","op":"MPI_Nothing"}]}`, eventjson.ErrSyntax, 0},
		{"wrong type", head + `{"t":"soon","loc":1,"kind":"leave","region":1}]}`, eventjson.ErrSyntax, 0},
		{"trailing data", head + `]} {}`, eventjson.ErrSyntax, 0},
		{"key twice in an event", head + `{"t":1,"loc":1,"kind":"leave","region":1},{"t":2,"loc":1,"T":3,"kind":"leave","region":1}]}`, eventjson.ErrSyntax, 1},
		{"key twice in the document", `{"format":"trace-events-json/1","ticks_per_second":1,"ticks_per_second":2,"events":[]}`, eventjson.ErrSyntax, -1},
		{"key twice after the events", head + `],"x":1,"x":2}`, eventjson.ErrSyntax, 0},
		{"key twice in a definition", `{"format":"trace-events-json/1","regions":[{"id":1,"name":"f","kind":"function","Name":"g"}]}`, eventjson.ErrSyntax, -1},
		{"locations twice", `{"format":"trace-events-json/1","locations":[{"id":1}],"locations":[{"id":2}]}`, eventjson.ErrSyntax, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			jr, err := eventjson.NewReader(strings.NewReader(tt.in), &eventjson.ReaderOptions{Path: "in.json"})
			if err == nil {
				for jr.Next() {
				}
				err = jr.Err()
				if jr.Next() || jr.Err() != err {
					t.Error("error is not sticky")
				}
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
			var pe *eventjson.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("got %T, want *ParseError", err)
			}
			if pe.Path != "in.json" || pe.Record != tt.record {
				t.Errorf("got path %q record %d, want in.json %d", pe.Path, pe.Record, tt.record)
			}
		})
	}
}

func TestWriterErrors(t *testing.T) {
	var d model.Defs
	l := d.AddLocation(model.Location{Native: 3})
	r := d.AddRegion(model.Region{Native: 1, Name: "f", Kind: model.RegionFunction})
	var buf bytes.Buffer
	w, err := eventjson.NewWriter(&buf, &d, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eventjson.NewWriter(&buf, nil, nil); err == nil {
		t.Error("NewWriter(nil Defs) succeeded")
	}
	bad := []model.Event{
		{Loc: 9, Kind: model.KindEnter, Region: r},
		{Loc: l, Kind: model.KindEnter, Region: 7},
		{Loc: l, Kind: 99},
		{Loc: l, Kind: model.KindSend, Peer: 5},
		{Loc: l, Kind: model.KindCounter, Counter: 1},
		{Loc: l, Kind: model.KindEnter, Region: r, Site: 4},
		{Loc: l, Kind: model.KindCollBegin, Class: 17},
		{Loc: l, Kind: model.KindCollPost},                            // no request
		{Loc: l, Kind: model.KindCollDone, Class: model.ClassBarrier}, // no request
	}
	for i := range bad {
		before := buf.Len()
		err := w.Write(&bad[i])
		if !errors.Is(err, eventjson.ErrRange) {
			t.Errorf("Write(%+v) = %v, want ErrRange", bad[i], err)
		}
		if pe := (*eventjson.ParseError)(nil); errors.As(err, &pe) {
			t.Errorf("Write(%+v) = %v; a writer's error is not a *ParseError", bad[i], err)
		}
		w.Flush()
		if i > 0 && buf.Len() != before {
			t.Errorf("Write(%+v) wrote bytes before failing", bad[i])
		}
	}
	if err := w.Write(&model.Event{Time: 5, Loc: l, Kind: model.KindEnter, Region: r}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close = %v, want nil", err)
	}
	if err := w.Write(&model.Event{Loc: l, Kind: model.KindLeave, Region: r}); !errors.Is(err, eventjson.ErrClosed) {
		t.Errorf("Write after Close = %v, want ErrClosed", err)
	}
	_, got := readAll(t, &buf)
	if len(got) != 1 || got[0].Time != 5 {
		t.Errorf("read back %+v; want the one valid event", got)
	}

	// A document without events still has a header.
	var empty bytes.Buffer
	w, _ = eventjson.NewWriter(&empty, &d, nil)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if defs, got := readAll(t, &empty); len(got) != 0 || defs.NumLocations() != 1 {
		t.Errorf("empty document: %d events, %d locations", len(got), defs.NumLocations())
	}
}

func FuzzReader(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.json")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"format":"trace-events-json/1","events":[{"t":1,"loc":2,"kind":"coll_begin","op":3,"root":2}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		jr, err := eventjson.NewReader(bytes.NewReader(data), nil)
		if err != nil {
			return
		}
		var events []model.Event
		var want []resolved
		for jr.Next() {
			ev := *jr.Event()
			events = append(events, ev)
			want = append(want, resolve(jr.Defs(), &ev))
		}
		if jr.Err() != nil {
			return
		}
		// What parses must re-write and re-read to an equal stream.
		var buf bytes.Buffer
		w, _ := eventjson.NewWriter(&buf, jr.Defs(), nil)
		for i := range events {
			if err := w.Write(&events[i]); err != nil {
				return // e.g. a coll_begin op whose name is ambiguous; checked by rapid elsewhere
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		_, got := readAll(t, &buf)
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("re-read (-want +got):\n%s", diff)
		}
	})
}

// TestWriterSharedNatives: locations that share a Native (the processes
// of one PICL processor) are written with their indices as ids, so the
// document reads back with every location distinct.
func TestWriterSharedNatives(t *testing.T) {
	var d model.Defs
	d.TimeBase.TicksPerSecond = 1000
	a := d.AddLocation(model.Location{Native: 6, Name: "p6.0", Process: 6})
	b := d.AddLocation(model.Location{Native: 6, Name: "p6.1", Process: 6, Thread: 1})
	var buf bytes.Buffer
	w, err := eventjson.NewWriter(&buf, &d, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []model.Event{
		{Time: 1, Loc: a, Kind: model.KindSend, Peer: b, Tag: 3, Bytes: 8},
		{Time: 2, Loc: b, Kind: model.KindRecv, Peer: a, Tag: 3, Bytes: 8, Flags: model.Waited},
	}
	for i := range want {
		if err := w.Write(&want[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	jr, err := eventjson.NewReader(&buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []model.Event
	for ev, err := range jr.All() {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, *ev)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if n := jr.Defs().NumLocations(); n != 2 {
		t.Errorf("got %d locations, want 2", n)
	}
}

// TestLimits checks MaxString and MaxOpenRegions: the defaults, options, and
// the error, which names the limit, wraps ErrLimit and comes after every
// event before the one over the limit.
func TestLimits(t *testing.T) {
	const head = `{"format":"trace-events-json/1","locations":[{"id":1}],"regions":[{"id":1,"name":"f","kind":"function"}],"events":[`
	long := strings.Repeat("x", 1<<20+1)
	ok := `{"t":1,"loc":1,"kind":"marker","text":"ok"}`
	enter := `{"t":1,"loc":1,"kind":"enter","region":1}`
	deep := strings.Repeat(enter+",", 100) + enter + "]}"
	tests := []struct {
		name   string
		in     string
		opts   eventjson.ReaderOptions
		events int   // events before the error
		record int64 // -1: error from NewReader
		want   string
	}{
		{"header string", `{"format":"trace-events-json/1","regions":[{"id":1,"name":"` + long + `","kind":"function"}],"events":[]}`, eventjson.ReaderOptions{}, 0, -1, "MaxString (1048576 bytes)"},
		{"header number", `{"format":"trace-events-json/1","ticks_per_second":` + strings.Repeat("1", 100) + `}`, eventjson.ReaderOptions{MaxString: 64}, 0, -1, "MaxString (64 bytes)"},
		{"unknown header key", `{"format":"trace-events-json/1","x":"` + long + `"}`, eventjson.ReaderOptions{}, 0, -1, "MaxString"},
		{"first event", head + `{"t":1,"loc":1,"kind":"marker","text":"` + long[:100] + `"}]}`, eventjson.ReaderOptions{MaxString: 99}, 0, 0, "MaxString (99 bytes)"},
		{"marker text", head + ok + "," + ok + `,{"t":1,"loc":1,"kind":"marker","text":"` + long + `"}]}`, eventjson.ReaderOptions{}, 2, 2, "MaxString"},
		{"escaped", head + ok + `,{"t":1,"loc":1,"kind":"marker","text":"` + strings.Repeat(`\u00e9`, 40) + `"}]}`, eventjson.ReaderOptions{MaxString: 64}, 1, 1, "MaxString"},
		{"unknown key", head + ok + `,{"t":1,"loc":1,"kind":"marker","other":["` + long + `"]}]}`, eventjson.ReaderOptions{}, 1, 1, "MaxString"},
		{"after the events", head + ok + `],"x":"` + long + `"}`, eventjson.ReaderOptions{}, 1, 1, "MaxString"},
		{"depth", head + deep, eventjson.ReaderOptions{MaxOpenRegions: 100}, 100, 100, "MaxOpenRegions (100) regions open on location 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Path = "in.json"
			n := 0
			jr, err := eventjson.NewReader(strings.NewReader(tt.in), &tt.opts)
			if err == nil {
				for jr.Next() {
					n++
				}
				err = jr.Err()
			}
			var pe *eventjson.ParseError
			if !errors.Is(err, eventjson.ErrLimit) || !errors.As(err, &pe) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want ErrLimit saying %q", err, tt.want)
			}
			if n != tt.events || pe.Record != tt.record || pe.Path != "in.json" {
				t.Errorf("%d events, then the error at record %d; want %d and %d", n, pe.Record, tt.events, tt.record)
			}
		})
	}
	// Within the limits, and with no limit.
	for _, o := range []eventjson.ReaderOptions{{MaxOpenRegions: 101}, {MaxOpenRegions: -1, MaxString: -1}} {
		jr, err := eventjson.NewReader(strings.NewReader(head+deep), &o)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for jr.Next() {
			n++
		}
		if jr.Err() != nil || n != 101 {
			t.Errorf("%+v: %d events, %v", o, n, jr.Err())
		}
	}
	jr, err := eventjson.NewReader(strings.NewReader(head+`{"t":1,"loc":1,"kind":"marker","text":"`+long+`"}]}`), &eventjson.ReaderOptions{MaxString: -1})
	if err != nil || !jr.Next() {
		t.Fatalf("no limit: %v %v", err, jr.Err())
	}
}

// TestRawNames: names that are not valid UTF-8 (KOI8-R here) come back
// from a JSON document byte for byte through their "_bytes" fields, and
// the document stays valid JSON with U+FFFD in the plain fields. A
// collective on such a region names it by id.
func TestRawNames(t *testing.T) {
	koi := "\xc7\xcc\xc1\xd7\xce\xc1\xd1" // "главная" in KOI8-R
	var d model.Defs
	d.TimeBase.TicksPerSecond = 1000
	a := d.AddLocation(model.Location{Native: 0, Name: "узел " + "\xd5\xda\xc5\xcc"})
	f := d.AddRegion(model.Region{Native: 1, Name: koi, Kind: model.RegionCollective, Group: "\xf0\xd2\xc9\xcc", File: "a\xff.c", Line: 3})
	g := d.AddRegion(model.Region{Native: 2, Name: `back\slash "q" ok`, Kind: model.RegionFunction})
	d.AddCounter(model.Counter{Native: 1, Name: "\xd3\xde\xc5\xd4", Unit: "\xb5s"})
	var buf bytes.Buffer
	w, err := eventjson.NewWriter(&buf, &d, nil)
	if err != nil {
		t.Fatal(err)
	}
	evs := []model.Event{
		{Time: 1, Loc: a, Kind: model.KindEnter, Region: g},
		{Time: 2, Loc: a, Kind: model.KindCollBegin, Region: f, Class: model.ClassBarrier},
		{Time: 3, Loc: a, Kind: model.KindCollEnd},
		{Time: 4, Loc: a, Kind: model.KindLeave, Region: g},
	}
	for i := range evs {
		if err := w.Write(&evs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	doc := buf.String()
	if !json.Valid(buf.Bytes()) || !utf8.ValidString(doc) {
		t.Fatalf("not valid JSON in UTF-8:\n%s", doc)
	}
	for _, want := range []string{`"name_bytes":"x8zB187B0Q=="`, `"op":1`} {
		if !strings.Contains(doc, want) {
			t.Errorf("document lacks %s:\n%s", want, doc)
		}
	}
	jr, err := eventjson.NewReader(strings.NewReader(doc), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []model.Event
	for ev, err := range jr.All() {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, *ev)
	}
	if diff := cmp.Diff(evs, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(d.Locations(), jr.Defs().Locations()); diff != "" {
		t.Errorf("locations (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(d.Regions(), jr.Defs().Regions()); diff != "" {
		t.Errorf("regions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(d.Counters(), jr.Defs().Counters()); diff != "" {
		t.Errorf("counters (-want +got):\n%s", diff)
	}
}

// TestDuplicateKeys: a key twice in one object of the definitions is
// a syntax error (compared case-insensitively, in objects of few and of
// many keys, at any depth); the same key in sibling objects is not.
func TestDuplicateKeys(t *testing.T) {
	many := func(dup string) string {
		var b strings.Builder
		for i := range 40 {
			fmt.Fprintf(&b, `"k%d":%d,`, i, i)
		}
		return `{` + b.String() + dup + `"id":1}`
	}
	head := `{"format":"trace-events-json/1","locations":[{"id":0},{"id":1}],"regions":[`
	for _, c := range []struct {
		regions string
		dup     bool
	}{
		{`{"id":1,"name":"a"},{"id":2,"name":"b"}`, false},
		{`{"id":1,"name":"a","Name":"b"}`, true},
		{`{"id":1,"name":"a","id":2}`, true},
		{many(``), false},
		{many(`"K7":1,`), true},
		// Escapes and non-ASCII in keys, brackets, commas and quotes
		// inside strings.
		{`{"id":1,"n\u0061me":"a","name":"b"}`, true},
		{`{"id":1,"N\u0041ME":"a","name":"b"}`, true},
		{`{"id":1,"name":"a,\"id\":2,{[","file":"}]\\"}`, false},
		{`{"id":1,"name":"a","\u00e9":1,"\u00c9":2}`, true},
		{`{"id":1,"name":"a","é":1}`, false},
		{`{"id":1,"name":"a"},{"id":2,"name":"b","Id":3}`, true},
	} {
		_, err := eventjson.NewReader(strings.NewReader(head+c.regions+`],"events":[]}`), nil)
		if got := errors.Is(err, eventjson.ErrSyntax) && strings.Contains(fmt.Sprint(err), "twice in an object"); got != c.dup {
			t.Errorf("regions %.60s…: error %v, want a duplicate key error: %v", c.regions, err, c.dup)
		}
	}
}
