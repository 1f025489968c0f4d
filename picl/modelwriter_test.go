package picl

import (
	"bytes"
	"errors"
	"maps"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace/model"
)

// modelTrace is a small trace in the model: two ranks, a host, a function,
// a message each way, a barrier, a counter and markers.
func modelTrace() (*model.Defs, []model.Event) {
	d := new(model.Defs)
	d.TimeBase.TicksPerSecond = 1_000_000
	r0 := d.AddLocation(model.Location{Native: 0, Name: "rank 0"})
	r1 := d.AddLocation(model.Location{Native: 1, Name: "rank 1", Process: 1})
	host := d.AddLocation(model.Location{Native: 9, Name: "host", Host: true})
	work := d.AddRegion(model.Region{Name: "work", Kind: model.RegionFunction})
	bar := d.AddRegion(model.Region{Name: "barrier", Kind: model.RegionCollective})
	ctr := d.AddCounter(model.Counter{Name: "flops"})
	text := d.Intern("phase 2")
	evs := []model.Event{
		{Time: 1, Loc: r0, Kind: model.KindEnter, Region: work},
		{Time: 2, Loc: r0, Kind: model.KindSend, Peer: r1, Tag: 4, Bytes: 80},
		{Time: 3, Loc: r1, Kind: model.KindRecv, Peer: r0, Tag: 4, Bytes: 80, Flags: model.Waited},
		{Time: 4, Loc: r1, Kind: model.KindSend, Peer: r0, Tag: 5, Flags: model.BytesUnknown},
		{Time: 5, Loc: r0, Kind: model.KindRecv, Peer: r1, Tag: 5, Flags: model.NotWaited | model.BytesUnknown},
		{Time: 6, Loc: r0, Kind: model.KindSend, Tag: 6}, // no peer: dropped
		{Time: 7, Loc: r0, Kind: model.KindLeave},
		{Time: 8, Loc: r1, Kind: model.KindEnter, Region: bar},
		{Time: 8, Loc: r1, Kind: model.KindCollBegin, Region: bar, Class: model.ClassBarrier},
		{Time: 9, Loc: r1, Kind: model.KindCollEnd},
		{Time: 9, Loc: r1, Kind: model.KindLeave, Region: bar},
		{Time: 10, Loc: r0, Kind: model.KindCounter, Counter: ctr, Value: 3},
		{Time: 11, Loc: r1, Kind: model.KindMarker, Region: work, Text: text},
		{Time: 12, Loc: host, Kind: model.KindMarker, Text: text},
	}
	return d, evs
}

func TestModelWriter(t *testing.T) {
	d, evs := modelTrace()
	var buf bytes.Buffer
	w, err := NewModelWriter(&buf, d, nil)
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
	r, err := NewReader(bytes.NewReader(buf.Bytes()), &ReaderOptions{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	findings, err := Validate(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		t.Errorf("ParaGraph check: %v", f)
	}
	r, _ = NewReader(bytes.NewReader(buf.Bytes()), nil)
	src, err := NewModelSource(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	type ev struct {
		Time       model.Time
		Loc        string
		Kind       model.Kind
		Region     string
		Peer       string
		Tag        int32
		Bytes      int64
		Flags      model.Flags
		Text       string
		RegionType int64
	}
	var got []ev
	for e, err := range src.All() {
		if err != nil {
			t.Fatal(err)
		}
		sd := src.Defs()
		reg, _ := sd.Region(e.Region)
		if e.Kind == model.KindEnter || e.Kind == model.KindLeave {
			if reg.Native < 0 {
				continue // the brackets of messages and tracing
			}
		}
		g := ev{Time: e.Time, Loc: sd.LocationName(e.Loc), Kind: e.Kind, Tag: e.Tag, Bytes: e.Bytes, Flags: e.Flags, Text: sd.String(e.Text)}
		if e.Region != 0 {
			g.Region = reg.Name
		}
		if e.Peer != 0 {
			g.Peer = sd.LocationName(e.Peer)
		}
		got = append(got, g)
	}
	want := []ev{
		{Time: 1, Loc: "rank 0", Kind: model.KindEnter, Region: "work"},
		{Time: 2, Loc: "rank 0", Kind: model.KindSend, Peer: "rank 1", Tag: 4, Bytes: 80},
		{Time: 3, Loc: "rank 1", Kind: model.KindRecv, Peer: "rank 0", Tag: 4, Bytes: 80, Flags: model.Waited},
		{Time: 4, Loc: "rank 1", Kind: model.KindSend, Peer: "rank 0", Tag: 5, Flags: model.BytesUnknown},
		{Time: 5, Loc: "rank 0", Kind: model.KindRecv, Peer: "rank 1", Tag: 5, Flags: model.NotWaited | model.BytesUnknown},
		{Time: 7, Loc: "rank 0", Kind: model.KindLeave, Region: "work"},
		{Time: 8, Loc: "rank 1", Kind: model.KindEnter, Region: "barrier"},
		{Time: 9, Loc: "rank 1", Kind: model.KindLeave, Region: "barrier"},
		{Time: 11, Loc: "rank 1", Kind: model.KindMarker, Region: "work"},
		{Time: 11, Loc: "rank 1", Kind: model.KindMarker, Text: "phase 2"},
		{Time: 12, Loc: "host", Kind: model.KindMarker, Text: "phase 2"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("model → PICL → model (-want +got):\n%s", diff)
	}
}

func TestModelWriterRejects(t *testing.T) {
	d, evs := modelTrace()
	var buf bytes.Buffer
	w, err := NewModelWriter(&buf, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(&model.Event{Time: 1, Loc: 42, Kind: model.KindMarker}); !errors.Is(err, ErrRange) {
		t.Errorf("undefined location: %v; want ErrRange", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(&evs[0]); !errors.Is(err, ErrClosed) {
		t.Errorf("Write after Close: %v; want ErrClosed", err)
	}
	if _, err := NewModelWriter(&buf, nil, nil); err == nil {
		t.Error("nil Defs accepted")
	}
}

// TestModelWriterGrowingDefs converts a PICL trace in one pass, with the
// definitions growing as the source reads them, and checks that every
// region visit and message reads back.
func TestModelWriterGrowingDefs(t *testing.T) {
	// count counts the visits of every region, by name, and the messages.
	// In the output the input's regions are user events (type >= 0); the
	// negative types are the brackets the writer adds.
	count := func(src *ModelSource, written bool) map[string]int {
		n := map[string]int{}
		for ev, err := range src.All() {
			if err != nil {
				t.Fatal(err)
			}
			reg, _ := src.Defs().Region(ev.Region)
			switch {
			case ev.Kind == model.KindEnter && (!written || reg.Native >= 0):
				n["enter "+reg.Name]++
			case ev.Kind == model.KindSend, ev.Kind == model.KindRecv:
				if ev.Peer != 0 {
					n[ev.Kind.String()]++
				}
			}
		}
		return n
	}
	data, err := os.ReadFile("testdata/ring4.trf")
	if err != nil {
		t.Fatal(err)
	}
	r, _ := NewReader(bytes.NewReader(data), nil)
	src, _ := NewModelSource(r, nil)
	var buf bytes.Buffer
	w, err := NewModelWriter(&buf, src.Defs(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for ev, err := range src.All() {
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, _ = NewReader(bytes.NewReader(data), nil)
	src, _ = NewModelSource(r, nil)
	want := count(src, false)
	r, _ = NewReader(bytes.NewReader(buf.Bytes()), nil)
	back, _ := NewModelSource(r, nil)
	got := count(back, true)
	if len(want) == 0 || want["send"] == 0 {
		t.Fatalf("fixture has no messages: %v", want)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("PICL → model → PICL in one pass (-want +got):\n%s", diff)
	}
}

// TestModelWriterNoPeer: a Send or Recv without a known peer (Peer 0)
// gives no record naming some processor as its partner: it is dropped and
// counted by NoPeer.
func TestModelWriterNoPeer(t *testing.T) {
	d := new(model.Defs)
	a := d.AddLocation(model.Location{Native: 0, Name: "a"})
	b := d.AddLocation(model.Location{Native: 1, Name: "b"})
	var buf bytes.Buffer
	w, err := NewModelWriter(&buf, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range []model.Event{
		{Time: 1, Loc: a, Kind: model.KindSend, Tag: 1, Bytes: 8},
		{Time: 2, Loc: a, Kind: model.KindSend, Peer: b, Tag: 2, Bytes: 8},
		{Time: 3, Loc: b, Kind: model.KindRecv, Peer: a, Tag: 2, Bytes: 8, Flags: model.Waited},
		{Time: 4, Loc: b, Kind: model.KindRecv, Tag: 1, Bytes: 8},
	} {
		if err := w.Write(&ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if n := w.NoPeer(); n != 2 {
		t.Errorf("NoPeer %d, want 2", n)
	}
	r, err := NewReader(&buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	tags := 0
	for rec, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		if rec.Event == -21 || rec.Event == -52 || rec.Event == -51 {
			tags++
		}
	}
	if tags != 4 { // entry and exit of one send and one receive
		t.Errorf("%d send and receive records, want 4", tags)
	}
}

// TestModelWriterUnwritten: RecvPost, SendDone, ProgramBegin, ProgramEnd
// and Parameter events have no PICL record: they write nothing and
// Unwritten counts them; the non-blocking message itself is written.
func TestModelWriterUnwritten(t *testing.T) {
	d := new(model.Defs)
	a := d.AddLocation(model.Location{Native: 0, Name: "a"})
	b := d.AddLocation(model.Location{Native: 1, Name: "b"})
	var buf bytes.Buffer
	w, err := NewModelWriter(&buf, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range []model.Event{
		{Time: 0, Loc: a, Kind: model.KindProgramBegin},
		{Time: 1, Loc: b, Kind: model.KindRecvPost, Peer: a, Tag: 2, Match: 1},
		{Time: 2, Loc: a, Kind: model.KindSend, Peer: b, Tag: 2, Bytes: 8, Match: 1},
		{Time: 3, Loc: a, Kind: model.KindSendDone, Match: 1},
		{Time: 4, Loc: b, Kind: model.KindRecv, Peer: a, Tag: 2, Bytes: 8, Match: 1},
		{Time: 5, Loc: a, Kind: model.KindParameter, Text: d.Intern("n"), Value: 1},
		{Time: 5, Loc: a, Kind: model.KindCollPost, Match: 2},
		{Time: 5, Loc: a, Kind: model.KindCollDone, Class: model.ClassBarrier, Match: 2},
		{Time: 6, Loc: a, Kind: model.KindProgramEnd},
	} {
		if err := w.Write(&ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := w.Dropped(), map[model.Kind]int64{model.KindProgramBegin: 1, model.KindRecvPost: 1, model.KindSendDone: 1, model.KindParameter: 1, model.KindProgramEnd: 1,
		model.KindCollPost: 1, model.KindCollDone: 1}; !maps.Equal(got, want) {
		t.Errorf("Dropped %v, want %v", got, want)
	}
	r, err := NewReader(&buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	src, err := NewModelSource(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[model.Kind]int{}
	for ev, err := range src.All() {
		if err != nil {
			t.Fatal(err)
		}
		kinds[ev.Kind]++
	}
	if kinds[model.KindSend] != 1 || kinds[model.KindRecv] != 1 {
		t.Errorf("kinds read back %v, want one send and one receive", kinds)
	}
}

// TestDefaultTimeDigits checks the one meaning of a zero TimeDigits in
// WriterOptions and ModelWriterOptions: the fewest decimals, at least 6,
// that resolve one tick of the clock.
func TestDefaultTimeDigits(t *testing.T) {
	for tps, want := range map[uint64]int{0: 6, 1: 6, 1000: 6, 1_000_000: 6, 10_000_000: 7, 1_000_000_000: 9, 3_000_000_000: 10} {
		if got := defaultTimeDigits(tps); got != want {
			t.Errorf("defaultTimeDigits(%d) = %d, want %d", tps, got, want)
		}
	}
}
