package export_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace"
	"github.com/hpctrace/hpctrace/export"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
)

// fixtures are traces of every input format.
var fixtures = []string{
	"../eventjson/testdata/fig12.json",
	"../picl/testdata/appendix_a.trf",
	"../dumpi/testdata/collectives/dumpi-2026.11.22.01.33.17.meta",
	"../dumpi/testdata/p2p_nonblocking/dumpi-2026.11.22.01.33.16-0001.bin",
	"../otf/testdata/minimal_ring_short/mini.otf",
	"../otf/testdata/all_records_short/allrec.otf",
	"../otf2/testdata/minimal/trace/traces.otf2",
	"../otf2/testdata/c_localdefs/trace/traces.otf2",
	"../otf2/testdata/defs_attrs/trace/traces.otf2",
	"../otf2/testdata/threads_rma/trace/traces.otf2",
}

// openTrace opens a fixture through hpctrace.Open; the test closes it at
// its end.
func openTrace(t *testing.T, name string) model.Source {
	t.Helper()
	tr, err := hpctrace.Open(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr
}

// chromeEvent is one element of traceEvents, with the fields the Trace
// Event Format defines that the writer uses.
type chromeEvent struct {
	Ph   *string                    `json:"ph"`
	Name *string                    `json:"name"`
	Cat  *string                    `json:"cat"`
	Pid  *int64                     `json:"pid"`
	Tid  *int64                     `json:"tid"`
	Ts   *float64                   `json:"ts"`
	ID   *uint64                    `json:"id"`
	Bp   *string                    `json:"bp"`
	S    *string                    `json:"s"`
	Args map[string]json.RawMessage `json:"args"`
}

// chromeSummary is what checkChrome learns from a document.
type chromeSummary struct {
	phases  map[string]int
	threads map[[2]int64]string // (pid, tid) -> thread name
	flows   int                 // complete s/f pairs
	names   map[string]int      // B names
}

// checkChrome checks a document against the Trace Event Format, event by
// event: the fields each phase requires and their types, metadata naming
// every thread before its first event, time order and B/E nesting per
// thread, flow starts and ends paired by id and each bound to an open
// slice, counter args numeric, instant scopes valid.
func checkChrome(t *testing.T, doc []byte) chromeSummary {
	t.Helper()
	var top struct {
		TraceEvents     []json.RawMessage `json:"traceEvents"`
		DisplayTimeUnit string            `json:"displayTimeUnit"`
		OtherData       map[string]any    `json:"otherData"`
		Hpctrace        struct {
			TicksPerSecond uint64 `json:"ticks_per_second"`
		} `json:"hpctrace"`
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&top); err != nil {
		t.Fatalf("document: %v", err)
	}
	if top.DisplayTimeUnit != "ns" && top.DisplayTimeUnit != "ms" {
		t.Errorf("displayTimeUnit %q", top.DisplayTimeUnit)
	}
	s := chromeSummary{phases: map[string]int{}, threads: map[[2]int64]string{}, names: map[string]int{}}
	depth := map[[2]int64]int{}
	lastTs := map[[2]int64]float64{}
	starts := map[uint64]int{}
	ends := map[uint64]int{}
	for i, raw := range top.TraceEvents {
		var ev chromeEvent
		d := json.NewDecoder(bytes.NewReader(raw))
		d.DisallowUnknownFields()
		if err := d.Decode(&ev); err != nil {
			t.Fatalf("event %d %s: %v", i, raw, err)
		}
		fail := func(f string, a ...any) { t.Fatalf("event %d %s: %s", i, raw, fmt.Sprintf(f, a...)) }
		if ev.Ph == nil || ev.Pid == nil || ev.Tid == nil {
			fail("ph, pid and tid are required")
		}
		ph := *ev.Ph
		s.phases[ph]++
		th := [2]int64{*ev.Pid, *ev.Tid}
		if ph == "M" {
			if ev.Name == nil || ev.Ts != nil {
				fail("metadata needs a name and no ts")
			}
			switch *ev.Name {
			case "process_name", "thread_name":
				var n string
				if json.Unmarshal(ev.Args["name"], &n) != nil || n == "" {
					fail("args.name must be a non-empty string")
				}
				if *ev.Name == "thread_name" {
					s.threads[th] = n
				}
			case "process_sort_index", "thread_sort_index":
				var n int64
				if json.Unmarshal(ev.Args["sort_index"], &n) != nil {
					fail("args.sort_index must be an integer")
				}
			default:
				fail("unknown metadata %q", *ev.Name)
			}
			continue
		}
		if ev.Ts == nil {
			fail("ts is required")
		}
		if _, ok := s.threads[th]; !ok {
			fail("thread (pid, tid) %v used before its thread_name", th)
		}
		if lt, ok := lastTs[th]; ok && *ev.Ts < lt {
			fail("ts goes back on thread %v: %v after %v", th, *ev.Ts, lt)
		}
		lastTs[th] = *ev.Ts
		switch ph {
		case "B":
			if ev.Name == nil || ev.Cat == nil {
				fail("B needs name and cat")
			}
			s.names[*ev.Name]++
			depth[th]++
		case "E":
			if depth[th] == 0 {
				fail("E without an open B on %v", th)
			}
			depth[th]--
		case "s", "f":
			if ev.ID == nil || ev.Name == nil || ev.Cat == nil {
				fail("flow needs id, name and cat")
			}
			if depth[th] == 0 {
				fail("flow event outside any slice: it binds to nothing")
			}
			if ph == "f" {
				if ev.Bp == nil || *ev.Bp != "e" {
					fail(`flow end needs "bp":"e" to bind to the enclosing slice`)
				}
				ends[*ev.ID]++
			} else {
				starts[*ev.ID]++
			}
			if *ev.ID >= 1<<53 {
				fail("flow id beyond 2^53")
			}
		case "C":
			if ev.Name == nil || len(ev.Args) == 0 {
				fail("C needs name and args")
			}
			for k, v := range ev.Args {
				var f float64
				if json.Unmarshal(v, &f) != nil {
					fail("counter arg %s is not a number", k)
				}
			}
		case "i":
			if ev.Name == nil || ev.S == nil || !strings.Contains("gpt", *ev.S) || len(*ev.S) != 1 {
				fail("i needs a name and s in g, p, t")
			}
		default:
			fail("phase %q not written by the writer", ph)
		}
	}
	for th, d := range depth {
		if d != 0 {
			t.Errorf("thread %v: %d slices never end", th, d)
		}
	}
	for id, n := range starts {
		if n != 1 || ends[id] > 1 {
			t.Errorf("flow id %d: %d starts, %d ends", id, n, ends[id])
		}
		if ends[id] == 1 {
			s.flows++
		}
	}
	return s
}

func chromeOf(t *testing.T, name string) ([]byte, *stats.Report, *model.Defs) {
	t.Helper()
	tr := openTrace(t, name)
	var buf bytes.Buffer
	if err := export.WriteChrome(&buf, tr); err != nil {
		t.Fatal(err)
	}
	tr2 := openTrace(t, name)
	acc := stats.New(tr2.Defs(), nil)
	for tr2.Next() {
		acc.Add(tr2.Event())
	}
	if err := tr2.Err(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), acc.Finalize(), tr2.Defs()
}

// TestChromeFixtures exports a trace of every format and checks the
// documents against the schema, and their contents against the stats
// package: one thread per location named after it, one B per visit, one
// flow per matched message.
func TestChromeFixtures(t *testing.T) {
	for _, name := range fixtures {
		t.Run(name[strings.LastIndex(name, "/")+1:], func(t *testing.T) {
			doc, rep, defs := chromeOf(t, name)
			s := checkChrome(t, doc)
			if len(s.threads) != defs.NumLocations() {
				t.Errorf("%d threads, want %d locations", len(s.threads), defs.NumLocations())
			}
			for _, l := range defs.Locations() {
				if got := s.threads[[2]int64{int64(l.Process) + 1, int64(l.ID)}]; got != defs.LocationName(l.ID) {
					t.Errorf("location %d named %q, want %q", l.ID, got, defs.LocationName(l.ID))
				}
			}
			var visits int64
			for _, f := range rep.Final.Functions {
				visits += f.Visits
			}
			// A visit is a slice, or an instant for a marker of a region;
			// collectives add a slice per location and instance.
			if got := int64(s.phases["B"] + s.phases["i"]); got < visits {
				t.Errorf("%d slices and instants, want at least the %d visits", got, visits)
			}
			if int64(s.flows) != rep.Final.Diagnostics.MatchedMessages {
				t.Errorf("%d flows, want %d matched messages", s.flows, rep.Final.Diagnostics.MatchedMessages)
			}
			t.Logf("%d bytes, phases %v, %d flows", len(doc), s.phases, s.flows)
		})
	}
}

// TestChromeKinds writes each kind of event and checks the JSON written
// for it.
func TestChromeKinds(t *testing.T) {
	d := new(model.Defs)
	d.TimeBase = model.TimeBase{TicksPerSecond: 1e9}
	a := d.AddLocation(model.Location{Name: "rank 0", Process: 0})
	b := d.AddLocation(model.Location{Name: "rank 1", Process: 1})
	th := d.AddLocation(model.Location{Name: "rank 1 thread 1", Process: 1, Thread: 1})
	main := d.AddRegion(model.Region{Name: `main "quoted"`, Kind: model.RegionFunction})
	send := d.AddRegion(model.Region{Name: "MPI_Send", Kind: model.RegionComm})
	recv := d.AddRegion(model.Region{Name: "MPI_Recv", Kind: model.RegionComm})
	bar := d.AddRegion(model.Region{Name: "MPI_Barrier", Kind: model.RegionCollective})
	world := d.AddComm(model.Comm{Name: "MPI_COMM_WORLD", Members: []model.LocID{a, b}})
	ctr := d.AddCounter(model.Counter{Name: "PAPI_FP_OPS"})
	txt := d.Intern("phase 2\n")
	evs := []model.Event{
		{Time: 0, Loc: a, Kind: model.KindEnter, Region: main},
		{Time: 0, Loc: b, Kind: model.KindEnter, Region: main},
		{Time: 1000, Loc: a, Kind: model.KindEnter, Region: send},
		{Time: 1500, Loc: a, Kind: model.KindSend, Peer: b, Tag: 7, Comm: world, Bytes: 64},
		{Time: 1600, Loc: b, Kind: model.KindEnter, Region: recv},
		{Time: 2000, Loc: a, Kind: model.KindLeave, Region: send},
		{Time: 2500, Loc: b, Kind: model.KindRecv, Peer: a, Tag: 7, Comm: world, Bytes: 64},
		{Time: 2600, Loc: b, Kind: model.KindLeave, Region: recv},
		{Time: 3000, Loc: a, Kind: model.KindCollBegin, Region: bar, Comm: world, Class: model.ClassBarrier},
		{Time: 3100, Loc: b, Kind: model.KindCollBegin, Region: bar, Comm: world, Class: model.ClassBarrier},
		{Time: 3200, Loc: a, Kind: model.KindCollEnd},
		{Time: 3200, Loc: b, Kind: model.KindCollEnd},
		{Time: 3300, Loc: th, Kind: model.KindCounter, Counter: ctr, Value: 42},
		{Time: 3400, Loc: a, Kind: model.KindMarker, Text: txt},
		{Time: 3410, Loc: b, Kind: model.KindRecvPost, Peer: a, Tag: 3, Match: 9},
		{Time: 3420, Loc: a, Kind: model.KindSendDone, Match: 4},
		{Time: 3430, Loc: a, Kind: model.KindParameter, Text: d.Intern("mode"), Value: int64(d.Intern("fast")), Flags: model.StringValue},
		{Time: 3440, Loc: a, Kind: model.KindParameter, Text: d.Intern("n"), Value: -5},
		{Time: 3450, Loc: b, Kind: model.KindProgramEnd},
		{Time: 3500, Loc: a, Kind: model.KindLeave}, // region 0: closes main
		{Time: 3600, Loc: a, Kind: model.KindLeave}, // nothing open
		{Time: 3610, Loc: a, Kind: model.KindEnter, Region: bar},
		{Time: 3620, Loc: a, Kind: model.KindCollBegin, Region: bar, Comm: world, Class: model.ClassBarrier},
		{Time: 3630, Loc: a, Kind: model.KindLeave, Region: bar}, // ends the collective inside too
		{Time: 3700, Loc: b, Kind: model.KindEnter},              // region 0
		{Time: 3800, Loc: b, Kind: model.KindEnter, Region: send},
		{Time: 3900, Loc: b, Kind: model.KindLeave, Region: main},  // names main, ends send (main stays open)
		{Time: 4000, Loc: th, Kind: model.KindEnter, Region: main}, // open at the end
		{Time: 4001, Loc: th, Kind: 99},
	}
	var buf bytes.Buffer
	w, err := export.NewChromeWriter(&buf, d)
	if err != nil {
		t.Fatal(err)
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
	s := checkChrome(t, buf.Bytes())
	for _, want := range []string{
		`{"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"rank 0"}}`,
		`{"ph":"M","name":"thread_name","pid":2,"tid":3,"args":{"name":"rank 1 thread 1","process":1,"thread":1}}`,
		`{"ph":"B","pid":1,"tid":1,"ts":0,"name":"main \"quoted\"","cat":"function"}`,
		`{"ph":"s","pid":1,"tid":1,"ts":1.500,"name":"message","cat":"message","id":0,"args":{"bytes":64,"tag":7,"peer":"rank 1","comm":"MPI_COMM_WORLD"}}`,
		`{"ph":"f","pid":2,"tid":2,"ts":2.500,"name":"message","cat":"message","id":0,"bp":"e","args":{"bytes":64,"tag":7,"peer":"rank 0","comm":"MPI_COMM_WORLD"}}`,
		`{"ph":"B","pid":1,"tid":1,"ts":3,"name":"MPI_Barrier","cat":"collective_op","args":{"comm":"MPI_COMM_WORLD","class":"barrier","root":null,"bytes":0,"recvd":0}}`,
		`{"ph":"E","pid":1,"tid":1,"ts":3.200}`,
		`{"ph":"C","pid":2,"tid":3,"ts":3.300,"name":"PAPI_FP_OPS (rank 1 thread 1)","args":{"value":42}}`,
		`{"ph":"i","pid":1,"tid":1,"ts":3.400,"s":"t","cat":"marker","name":"phase 2\u000a"}`,
		`{"ph":"E","pid":2,"tid":3,"ts":4.001}`, // closed at the end, at the last time written
		`{"ph":"E","pid":2,"tid":2,"ts":3.900}`,
		`"dropped_no_region":1,"dropped_unmatched":1,"leave_region_mismatch":1,"closed_early":1,"closed_at_end":2,"dropped_unknown_kind":1,"dropped_flows":0,"dropped_no_peer":0,"not_drawn":5`,
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("document lacks %s", want)
		}
	}
	if s.flows != 1 || s.phases["B"] != 10 || s.phases["E"] != 10 {
		t.Errorf("flows %d, phases %v", s.flows, s.phases)
	}
	want := export.ChromeDropped{NoRegion: 1, Unmatched: 1, Mismatched: 1, ClosedEarly: 1, ClosedAtEnd: 2, UnknownKind: 1, NotDrawn: 5, Comms: 1}
	if got := w.Dropped(); got != want {
		t.Errorf("Dropped() = %+v, want %+v", got, want)
	}
	if err := w.Write(&evs[0]); err == nil {
		t.Error("Write after Close succeeded")
	}
}

// failWriter fails after n bytes.
type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		return f.n, errors.New("disk full")
	}
	f.n -= len(p)
	return len(p), nil
}

// TestChromeWriteError checks that a failing writer's error is returned
// and stays.
func TestChromeWriteError(t *testing.T) {
	tr, err := hpctrace.Open(fixtures[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if err := export.WriteChrome(&failWriter{n: 100}, tr); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("WriteChrome = %v, want the writer's error", err)
	}
}

// TestChromeNoPeer: a send or receive without a known peer (Peer 0) draws
// no arrow to or from some other thread: it is dropped and counted, in
// Dropped and in the document's otherData.
func TestChromeNoPeer(t *testing.T) {
	d := new(model.Defs)
	a := d.AddLocation(model.Location{Name: "rank 0", Process: 0})
	b := d.AddLocation(model.Location{Name: "rank 1", Process: 1})
	f := d.AddRegion(model.Region{Name: "f", Kind: model.RegionFunction})
	evs := []model.Event{
		{Time: 0, Loc: a, Kind: model.KindEnter, Region: f},
		{Time: 0, Loc: b, Kind: model.KindEnter, Region: f},
		{Time: 1, Loc: a, Kind: model.KindSend, Tag: 1, Bytes: 8},
		{Time: 2, Loc: a, Kind: model.KindSend, Peer: b, Tag: 2, Bytes: 8},
		{Time: 3, Loc: b, Kind: model.KindRecv, Peer: a, Tag: 2, Bytes: 8},
		{Time: 4, Loc: b, Kind: model.KindRecv, Tag: 1, Bytes: 8},
		{Time: 5, Loc: a, Kind: model.KindLeave, Region: f},
		{Time: 5, Loc: b, Kind: model.KindLeave, Region: f},
	}
	var buf bytes.Buffer
	w, err := export.NewChromeWriter(&buf, d)
	if err != nil {
		t.Fatal(err)
	}
	for i := range evs {
		if err := w.Write(&evs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	s := checkChrome(t, buf.Bytes())
	if s.flows != 1 || s.phases["s"] != 1 || s.phases["f"] != 1 {
		t.Errorf("flows %d, phases %v; want one message drawn", s.flows, s.phases)
	}
	if got := w.Dropped(); got != (export.ChromeDropped{NoPeer: 2}) {
		t.Errorf("Dropped() = %+v, want NoPeer 2", got)
	}
	if !strings.Contains(buf.String(), `"dropped_no_peer":2`) {
		t.Error("otherData lacks dropped_no_peer 2")
	}
}

// TestChromeMarkerRegionAndFineClock checks a marker of a region (its
// kind as category, the region in args), the counts of what is written
// without a part, and the decimals written for a clock finer than a
// nanosecond.
func TestChromeMarkerRegionAndFineClock(t *testing.T) {
	d := new(model.Defs)
	d.TimeBase = model.TimeBase{TicksPerSecond: 2_500_000_000} // 0.4 ns ticks
	a := d.AddLocation(model.Location{Name: "rank 0"})
	b := d.AddLocation(model.Location{Name: "rank 1", Process: 1})
	mark := d.AddRegion(model.Region{Name: "mark", Kind: model.RegionUser})
	bar := d.AddRegion(model.Region{Name: "MPI_Barrier", Kind: model.RegionCollective})
	site := d.AddSite(model.Site{File: "a.c", Line: 3})
	evs := []model.Event{
		{Time: 1, Loc: a, Kind: model.KindMarker, Region: mark},
		{Time: 3, Loc: a, Kind: model.KindEnter, Region: bar, Site: site},
		{Time: 3, Loc: a, Kind: model.KindCollBegin, Region: bar, Match: 9},
		{Time: 4, Loc: a, Kind: model.KindSend, Peer: b, Match: 5},
		{Time: 5, Loc: a, Kind: model.KindCollEnd, Match: 9},
		{Time: 5, Loc: a, Kind: model.KindSendDone, Match: 5},
		{Time: 6, Loc: a, Kind: model.KindLeave, Region: bar},
		{Time: -7, Loc: b, Kind: model.KindMarker, Region: mark},
	}
	var buf bytes.Buffer
	w, err := export.NewChromeWriter(&buf, d)
	if err != nil {
		t.Fatal(err)
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
	checkChrome(t, buf.Bytes())
	for _, want := range []string{
		`{"hpctrace":{"ticks_per_second":2500000000},"traceEvents":[`,
		`{"ph":"i","pid":1,"tid":1,"ts":0.0004,"s":"t","cat":"user","name":"mark","args":{"region":"mark"}}`,
		`{"ph":"B","pid":1,"tid":1,"ts":0.0012,"name":"MPI_Barrier","cat":"collective"}`,
		`{"ph":"B","pid":1,"tid":1,"ts":0.0012,"name":"MPI_Barrier","cat":"collective_op","args"`,
		`{"ph":"i","pid":2,"tid":2,"ts":-0.0028,"s":"t","cat":"user","name":"mark","args":{"region":"mark"}}`,
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("document lacks %s", want)
		}
	}
	want := export.ChromeDropped{NotDrawn: 1, Sites: 1, Requests: 1, CollMatch: 2}
	if got := w.Dropped(); got != want {
		t.Errorf("Dropped() = %+v, want %+v", got, want)
	}
}

// TestChromeFloatCounter: a Float counter's samples are written as the
// doubles their bits hold, NaN as null.
func TestChromeFloatCounter(t *testing.T) {
	d := new(model.Defs)
	d.TimeBase = model.TimeBase{TicksPerSecond: 1e9}
	l := d.AddLocation(model.Location{Name: "rank 0"})
	w := d.AddCounter(model.Counter{Name: "watts", Float: true})
	var buf bytes.Buffer
	cw, err := export.NewChromeWriter(&buf, d)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []float64{80.5, math.NaN()} {
		if err := cw.Write(&model.Event{Time: 1000, Loc: l, Kind: model.KindCounter, Counter: w, Value: int64(math.Float64bits(v))}); err != nil {
			t.Fatal(err)
		}
	}
	if err := cw.Close(); err != nil {
		t.Fatal(err)
	}
	checkChrome(t, buf.Bytes())
	for _, want := range []string{`"name":"watts","args":{"value":80.5}`, `"name":"watts","args":{"value":null}`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("document lacks %s:\n%s", want, buf.String())
		}
	}
}

// TestNewChromeWriterNil checks that NewChromeWriter refuses a nil
// io.Writer with an error, as the other writers' constructors fail.
func TestNewChromeWriterNil(t *testing.T) {
	if w, err := export.NewChromeWriter(nil, nil); err == nil || w != nil {
		t.Errorf("NewChromeWriter(nil, nil) = %v, %v; want nil and an error", w, err)
	}
	w, err := export.NewChromeWriter(io.Discard, nil)
	if err != nil || w == nil {
		t.Fatalf("NewChromeWriter(io.Discard, nil) = %v, %v", w, err)
	}
	if err := w.Close(); err != nil {
		t.Error(err)
	}
}
