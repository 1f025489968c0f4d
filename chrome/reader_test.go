package chrome_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace/chrome"
	"github.com/hpctrace/hpctrace/export"
	"github.com/hpctrace/hpctrace/model"
)

// readAll reads a document to its end and returns copies of its events.
func readAll(t testing.TB, doc string, opts *chrome.ReaderOptions) ([]model.Event, *chrome.Reader, error) {
	r, err := chrome.NewReader(strings.NewReader(doc), opts)
	if err != nil {
		return nil, nil, err
	}
	var evs []model.Event
	for r.Next() {
		evs = append(evs, *r.Event())
	}
	return evs, r, r.Err()
}

// TestBad checks that malformed documents give a ParseError wrapping the
// right sentinel, at the right element.
func TestBad(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		want      error
		record    int64
	}{
		{"number", `42`, chrome.ErrFormat, -1},
		{"string", `"x"`, chrome.ErrFormat, -1},
		{"empty", ``, io.ErrUnexpectedEOF, -1},
		{"events not array", `{"traceEvents":{}}`, chrome.ErrSyntax, -1},
		{"truncated object", `{"traceEvents":[{"ph":"B","ts":1,"pid":1,"tid":1,"name":"a"}`, io.ErrUnexpectedEOF, 1},
		{"truncated event", `[{"ph":"B","ts":1,"pid":1`, io.ErrUnexpectedEOF, 0},
		{"bad json", `[{"ph":"B","ts":1,,}]`, chrome.ErrSyntax, 0},
		{"element not object", `[{"ph":"i","ts":1,"name":"a"}, 5]`, chrome.ErrSyntax, 1},
		{"ph not string", `[{"ph":5,"ts":1}]`, chrome.ErrSyntax, 0},
		{"ts not number", `[{"ph":"i","ts":"soon"}]`, chrome.ErrSyntax, 0},
		{"no ts", `[{"ph":"B","name":"a","pid":1,"tid":1}]`, chrome.ErrSyntax, 0},
		{"ts beyond int64 ticks", `[{"ph":"i","ts":1e30,"name":"a"}]`, chrome.ErrRange, 0},
		{"negative dur", `[{"ph":"X","ts":1,"dur":-1,"name":"a"}]`, chrome.ErrRange, 0},
		{"huge exponent", `[{"ph":"i","ts":1e999999999,"name":"a"}]`, chrome.ErrRange, 0},
		{"data after", `{"traceEvents":[]} {}`, chrome.ErrSyntax, 0},
		{"data after array", `[{"ph":"i","ts":1,"name":"a"}] x`, chrome.ErrSyntax, 1},
		{"event too large", `[{"ph":"i","ts":1,"name":"` + strings.Repeat("a", 10000) + `"}]`, chrome.ErrLimit, 0},
		{"head value too large", `{"metadata":"` + strings.Repeat("a", 10000) + `","traceEvents":[]}`, chrome.ErrLimit, -1},
		{"too many flows", `[{"ph":"s","id":1,"ts":1,"name":"a"},{"ph":"s","id":2,"ts":1,"name":"a"},{"ph":"s","id":3,"ts":1,"name":"a"}]`, chrome.ErrLimit, 2},
		{"too deep", `[{"ph":"B","ts":1,"name":"a"},{"ph":"B","ts":2,"name":"a"},{"ph":"B","ts":3,"name":"a"},{"ph":"B","ts":4,"name":"a"},{"ph":"B","ts":5,"name":"a"}]`, chrome.ErrLimit, 5},
		{"out of order beyond the window", `[{"ph":"i","ts":5,"name":"a"},{"ph":"i","ts":6,"name":"a"},{"ph":"i","ts":7,"name":"a"},{"ph":"i","ts":1,"name":"a","tid":2}]`, chrome.ErrOrder, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := readAll(t, tc.doc, &chrome.ReaderOptions{Path: "bad.json", ReorderWindow: 2, MaxEvent: 4096, MaxFlows: 2, MaxOpenRegions: 4})
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want an error wrapping %v", err, tc.want)
			}
			var pe *chrome.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("got %T, want a *chrome.ParseError", err)
			}
			if pe.Record != tc.record || pe.Path != "bad.json" {
				t.Errorf("got record %d path %q, want record %d path bad.json", pe.Record, pe.Path, tc.record)
			}
		})
	}
}

// TestForms reads the object form, the bare array, the bare array
// unterminated after an event and after a comma, and an object without
// events, and checks the same events come out.
func TestForms(t *testing.T) {
	events := `{"ph":"B","ts":1,"pid":1,"tid":1,"name":"a"},{"ph":"E","ts":2.5,"pid":1,"tid":1}`
	want, _, err := readAll(t, `{"displayTimeUnit":"ms","traceEvents":[`+events+`],"otherData":{"x":[1,2]}}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 2 || want[1].Time != 2500 || want[1].Kind != model.KindLeave {
		t.Fatalf("got %+v, want an enter at 1000 and a leave at 2500 ns", want)
	}
	for _, doc := range []string{"[" + events + "]", "\n [" + events, "[" + events + ",\n"} {
		got, _, err := readAll(t, doc, nil)
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
			t.Errorf("%s: got %+v, want %+v", doc, got, want)
		}
	}
	if got, _, err := readAll(t, `{"otherData":{}}`, nil); err != nil || len(got) != 0 {
		t.Errorf("an object without events: got %d events, %v; want none, nil", len(got), err)
	}
}

// TestWindowOrder feeds events in reverse time order on two threads: with
// a window large enough they come out per thread in time order and merged
// by time; a window too small is an ErrOrder.
func TestWindowOrder(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	for i := 99; i >= 0; i-- {
		if i != 99 {
			b.WriteString(",")
		}
		b.WriteString(`{"ph":"X","name":"f","ts":` + itoa(i*10) + `,"dur":5,"pid":1,"tid":` + itoa(1+i%2) + `}`)
	}
	b.WriteString("]")
	evs, r, err := readAll(t, b.String(), &chrome.ReaderOptions{ReorderWindow: 200})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 200 {
		t.Fatalf("got %d events, want 200", len(evs))
	}
	for i := 1; i < len(evs); i++ {
		if evs[i].Time < evs[i-1].Time {
			t.Fatalf("event %d at %d after one at %d", i, evs[i].Time, evs[i-1].Time)
		}
	}
	if d := r.Diagnostics(); d != (chrome.Diagnostics{}) {
		t.Errorf("Diagnostics() = %+v, want zero", d)
	}
	if _, _, err := readAll(t, b.String(), &chrome.ReaderOptions{ReorderWindow: 10}); !errors.Is(err, chrome.ErrOrder) {
		t.Errorf("window 10: got %v, want ErrOrder", err)
	}
}

// TestPointOrder checks that a thread's B/E events keep their document
// order where their times decrease.
func TestPointOrder(t *testing.T) {
	evs, _, err := readAll(t, `[{"ph":"B","ts":10,"name":"a"},{"ph":"B","ts":8,"name":"b"},{"ph":"E","ts":9},{"ph":"E","ts":12}]`, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []model.Time{10000, 8000, 9000, 12000}
	for i, ev := range evs {
		if ev.Time != want[i] {
			t.Errorf("event %d at %d, want %d", i, ev.Time, want[i])
		}
	}
	if evs[1].Kind != model.KindEnter || evs[2].Kind != model.KindLeave || evs[2].Region != evs[1].Region {
		t.Errorf("got %+v, want b entered and left inside a", evs)
	}
}

// TestTicks checks exact conversions of decimal microseconds.
func TestTicks(t *testing.T) {
	for _, tc := range []struct {
		ts   string
		tps  uint64
		want model.Time
	}{
		{"1", 1e9, 1000},
		{"1.0005", 1e9, 1001}, // half away from zero
		{"-1.0005", 1e9, -1001},
		{"0.0004", 2_500_000_000, 1},
		{"1e3", 1e6, 1000},
		{"1.5E-3", 1e9, 2},
		{"9223372036854775.807", 1e9, 9223372036854775807},
		{"0.000000000000000000001", 1e9, 0},
	} {
		doc := `{"hpctrace":{"ticks_per_second":` + itoa(int(tc.tps)) + `},"traceEvents":[{"ph":"i","ts":` + tc.ts + `,"name":"a"}]}`
		evs, _, err := readAll(t, doc, nil)
		if err != nil {
			t.Errorf("%s: %v", tc.ts, err)
			continue
		}
		if evs[0].Time != tc.want {
			t.Errorf("ts %s at %d ticks/s: got %d, want %d", tc.ts, tc.tps, evs[0].Time, tc.want)
		}
	}
}

func itoa(i int) string {
	return strings.TrimSpace(strings.Replace(string(rune('0'))+"", "0", "", 1)) + formatInt(i)
}

func formatInt(i int) string {
	if i < 0 {
		return "-" + formatInt(-i)
	}
	if i < 10 {
		return string(rune('0' + i))
	}
	return formatInt(i/10) + string(rune('0'+i%10))
}

// FuzzReader reads arbitrary documents: it must never panic and must keep
// within its limits; a document that reads must write (export) and read
// back with the same regions entered, markers, counter samples and
// messages.
func FuzzReader(f *testing.F) {
	names, _ := filepath.Glob("testdata/*.json")
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`[{"ph":"X","ts":1,"dur":2,"name":"a","pid":1,"tid":1},{"ph":"C","ts":1,"name":"c","args":{"v":1.5}}`))
	opts := &chrome.ReaderOptions{ReorderWindow: 64, MaxEvent: 1 << 12, MaxFlows: 64}
	f.Fuzz(func(t *testing.T, data []byte) {
		evs, r, err := readAll(t, string(data), opts)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := export.WriteChrome(&buf, model.NewSliceSource(r.Defs(), evs)); err != nil {
			t.Fatal(err)
		}
		again, _, err := readAll(t, buf.String(), &chrome.ReaderOptions{ReorderWindow: len(evs) + 1, MaxEvent: 1 << 20, MaxFlows: 1 << 20})
		if err != nil {
			t.Fatalf("re-reading the export: %v\n%s", err, buf.Bytes())
		}
		if a, b := census(evs), census(again); a != b {
			t.Fatalf("census %+v, after writing and reading back %+v\n%s", a, b, buf.Bytes())
		}
	})
}

type tally struct{ enters, markers, counters, sends, recvs int }

func census(evs []model.Event) tally {
	var c tally
	for _, ev := range evs {
		switch ev.Kind {
		case model.KindEnter:
			c.enters++
		case model.KindMarker:
			c.markers++
		case model.KindCounter:
			c.counters++
		case model.KindSend:
			if ev.Peer != 0 {
				c.sends++
			}
		case model.KindRecv:
			if ev.Peer != 0 {
				c.recvs++
			}
		}
	}
	return c
}

// TestFlowsAndLateMetadata pairs a flow whose end comes first in the
// document, counts a flow end that never finds its start, and counts a
// thread's name that arrives after its location was defined.
func TestFlowsAndLateMetadata(t *testing.T) {
	doc := `[
{"ph":"f","bp":"e","cat":"c","name":"m","id":"0x1","ts":2,"pid":1,"tid":2},
{"ph":"s","cat":"c","name":"m","id":"0x1","ts":1,"pid":1,"tid":1},
{"ph":"f","cat":"c","name":"m","id":7,"ts":3,"pid":1,"tid":2},
{"ph":"s","cat":"other","name":"m","id":"0x1","ts":4,"pid":1,"tid":1},
{"ph":"i","ts":5,"pid":1,"tid":1,"name":"x"},
{"ph":"i","ts":6,"pid":1,"tid":1,"name":"x"},
{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"late"}}]`
	evs, r, err := readAll(t, doc, &chrome.ReaderOptions{ReorderWindow: 3})
	if err != nil {
		t.Fatal(err)
	}
	var send, recv model.Event
	for _, ev := range evs {
		if ev.Kind == model.KindSend && ev.Time == 1000 {
			send = ev
		}
		if ev.Kind == model.KindRecv && ev.Time == 2000 {
			recv = ev
		}
	}
	if send.Peer != recv.Loc || recv.Peer != send.Loc || send.Loc == 0 || recv.Loc == 0 {
		t.Errorf("send %+v and receive %+v are not each other's partners", send, recv)
	}
	want := chrome.Diagnostics{UnpairedFlows: 2, LateMetadata: 1}
	if got := r.Diagnostics(); got != want {
		t.Errorf("Diagnostics() = %+v, want %+v", got, want)
	}
	if name := r.Defs().LocationName(send.Loc); name != "pid 1 tid 1" {
		t.Errorf("location named %q, want its first name, pid 1 tid 1", name)
	}
}

// BenchmarkReader reads the export of an OTF trace of six ranks.
func BenchmarkReader(b *testing.B) {
	var buf bytes.Buffer
	if err := export.WriteChrome(&buf, open(b, "../otf/testdata/ring_zlib_blocks/ring.otf")); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	var n int
	for b.Loop() {
		r, err := chrome.NewReader(bytes.NewReader(buf.Bytes()), nil)
		if err != nil {
			b.Fatal(err)
		}
		for r.Next() {
			n++
		}
		if err := r.Err(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)/float64(b.N), "events/op")
}

// TestFlowBindings reads Perfetto's flow bindings of slices: a flow_out
// slice sends to the next flow_in slice of the same bind_id.
func TestFlowBindings(t *testing.T) {
	doc := `[
{"ph":"X","name":"post","ts":1,"dur":2,"pid":1,"tid":1,"bind_id":"0xa","flow_out":true},
{"ph":"B","name":"run","ts":5,"pid":1,"tid":2,"bind_id":"0xa","flow_in":true,"flow_out":true},
{"ph":"E","ts":6,"pid":1,"tid":2},
{"ph":"X","name":"done","ts":7,"dur":0,"pid":1,"tid":1,"bind_id":"0xa","flow_in":true}]`
	evs, r, err := readAll(t, doc, nil)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, ev := range evs {
		s := fmt.Sprintf("%d %s %v", ev.Time, r.Defs().LocationName(ev.Loc), ev.Kind)
		if ev.Peer != 0 {
			s += " " + r.Defs().LocationName(ev.Peer)
		}
		kinds = append(kinds, s)
	}
	want := []string{
		"1000 pid 1 tid 1 enter", "1000 pid 1 tid 1 send pid 1 tid 2", "3000 pid 1 tid 1 leave",
		"5000 pid 1 tid 2 enter", "5000 pid 1 tid 2 recv pid 1 tid 1", "5000 pid 1 tid 2 send pid 1 tid 1", "6000 pid 1 tid 2 leave",
		"7000 pid 1 tid 1 enter", "7000 pid 1 tid 1 recv pid 1 tid 2", "7000 pid 1 tid 1 leave",
	}
	if diff := gocmp.Diff(want, kinds); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if d := r.Diagnostics(); d != (chrome.Diagnostics{}) {
		t.Errorf("Diagnostics() = %+v, want zero", d)
	}
}
