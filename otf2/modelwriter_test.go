package otf2

import (
	"errors"
	"math"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace/model"
)

// writeModel writes evs with defs through a ModelWriter into dir and
// reads the archive back through a ModelSource.
func writeModel(t *testing.T, dir string, defs *model.Defs, evs []model.Event, opts *ModelWriterOptions) (*ModelWriter, *ModelSource, []model.Event) {
	t.Helper()
	w, err := NewModelWriter(model.DirCreator(dir), defs, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range evs {
		if err := w.Write(&evs[i]); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	a, err := Open(filepath.Join(dir, "traces.otf2"), nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewModelSource(a, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	var got []model.Event
	for ev, err := range s.All() {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, *ev)
	}
	return w, s, got
}

// synthetic is a small MPI trace of three locations (two threads of
// process 0, one of process 1) with messages on the default and on a
// sub-communicator, a non-blocking message, collectives, counters,
// parameters, program begins and ends and a marker.
func synthetic() (*model.Defs, []model.Event) {
	d := &model.Defs{TimeBase: model.TimeBase{TicksPerSecond: 1e6}}
	l1 := d.AddLocation(model.Location{Name: "rank 0", Process: 0})
	l2 := d.AddLocation(model.Location{Name: "rank 0 thread 1", Process: 0, Thread: 1})
	l3 := d.AddLocation(model.Location{Name: "rank 1", Process: 1})
	main := d.AddRegion(model.Region{Name: "main", Kind: model.RegionFunction, File: "app.c", Line: 7})
	send := d.AddRegion(model.Region{Name: "MPI_Send", Kind: model.RegionComm, Group: "MPI"})
	recv := d.AddRegion(model.Region{Name: "MPI_Recv", Kind: model.RegionComm, Group: "MPI"})
	ag := d.AddRegion(model.Region{Name: "MPI_Allgather", Kind: model.RegionCollective, Group: "MPI"})
	bar := d.AddRegion(model.Region{Name: "sync", Kind: model.RegionCollective})
	loop := d.AddRegion(model.Region{Name: "omp loop", Kind: model.RegionLoop, Group: "OPENMP"})
	iar := d.AddRegion(model.Region{Name: "MPI_Iallreduce", Kind: model.RegionCollective, Group: "MPI"})
	sub := d.AddComm(model.Comm{Name: "sub", Members: []model.LocID{l3, l1}})
	cyc := d.AddCounter(model.Counter{Name: "cycles", Unit: "#", Accumulating: true})
	temp := d.AddCounter(model.Counter{Name: "temp", Unit: "C"})
	var evs []model.Event
	at := func(tm model.Time, e model.Event) { e.Time = tm; evs = append(evs, e) }
	for _, l := range []model.LocID{l1, l2, l3} {
		at(5, model.Event{Loc: l, Kind: model.KindProgramBegin})
		at(10, model.Event{Loc: l, Kind: model.KindEnter, Region: main})
	}
	at(11, model.Event{Loc: l1, Kind: model.KindParameter, Text: d.Intern("mode"), Value: int64(d.Intern("fast")), Flags: model.StringValue})
	at(11, model.Event{Loc: l3, Kind: model.KindParameter, Text: d.Intern("n"), Value: -7})
	at(11, model.Event{Loc: l2, Kind: model.KindEnter, Region: loop})
	at(12, model.Event{Loc: l1, Kind: model.KindEnter, Region: send})
	at(13, model.Event{Loc: l1, Kind: model.KindSend, Peer: l3, Tag: 5, Bytes: 800})
	at(13, model.Event{Loc: l3, Kind: model.KindEnter, Region: recv})
	at(14, model.Event{Loc: l1, Kind: model.KindLeave, Region: send})
	at(15, model.Event{Loc: l2, Kind: model.KindLeave, Region: loop})
	at(16, model.Event{Loc: l3, Kind: model.KindRecv, Peer: l1, Tag: 5, Bytes: 800})
	at(17, model.Event{Loc: l3, Kind: model.KindLeave, Region: recv})
	at(18, model.Event{Loc: l3, Kind: model.KindSend, Peer: l1, Comm: sub, Tag: -1, Bytes: 8})
	at(19, model.Event{Loc: l1, Kind: model.KindRecv, Peer: l3, Comm: sub, Tag: -1, Bytes: 8})
	at(20, model.Event{Loc: l1, Kind: model.KindCounter, Counter: cyc, Value: 1000})
	at(20, model.Event{Loc: l1, Kind: model.KindCounter, Counter: temp, Value: -3})
	at(20, model.Event{Loc: l3, Kind: model.KindRecvPost, Peer: l1, Tag: 6, Match: 5})
	at(20, model.Event{Loc: l1, Kind: model.KindSend, Peer: l3, Tag: 6, Bytes: 4, Match: 1})
	at(20, model.Event{Loc: l1, Kind: model.KindSendDone, Match: 1})
	at(20, model.Event{Loc: l3, Kind: model.KindRecv, Peer: l1, Tag: 6, Bytes: 4, Match: 5})
	for _, l := range []model.LocID{l1, l3} {
		at(21, model.Event{Loc: l, Kind: model.KindEnter, Region: ag})
		at(22, model.Event{Loc: l, Kind: model.KindCollBegin, Region: ag, Comm: sub, Class: model.ClassAllToAll, Bytes: 4, Recvd: 8})
		at(23, model.Event{Loc: l, Kind: model.KindCollEnd})
		at(24, model.Event{Loc: l, Kind: model.KindLeave, Region: ag})
		at(25, model.Event{Loc: l, Kind: model.KindEnter, Region: bar})
		at(25, model.Event{Loc: l, Kind: model.KindCollBegin, Region: bar, Class: model.ClassOneToAll, Peer: l3, Bytes: 16})
		at(26, model.Event{Loc: l, Kind: model.KindCollEnd})
		at(26, model.Event{Loc: l, Kind: model.KindLeave, Region: bar})
		at(27, model.Event{Loc: l, Kind: model.KindEnter, Region: iar})
		at(27, model.Event{Loc: l, Kind: model.KindCollPost, Region: iar, Match: 3})
		at(27, model.Event{Loc: l, Kind: model.KindLeave, Region: iar})
		at(28, model.Event{Loc: l, Kind: model.KindCollDone, Region: iar, Comm: sub, Class: model.ClassAllToAll, Bytes: 4, Recvd: 8, Match: 3})
	}
	at(27, model.Event{Loc: l2, Kind: model.KindMarker, Region: loop, Text: d.Intern("note")})
	for _, l := range []model.LocID{l1, l2, l3} {
		at(30, model.Event{Loc: l, Kind: model.KindLeave, Region: main})
		at(31, model.Event{Loc: l, Kind: model.KindProgramEnd})
	}
	return d, evs
}

// expected returns what the events read back as: merged by (time,
// location), communicators shifted by one (world comes first), a marker
// as a visit of its region, flags other than StringValue and marker texts
// gone, a RecvPost's envelope gone.
func expected(evs []model.Event) []model.Event {
	var out []model.Event
	for _, e := range evs {
		if e.Kind == model.KindMarker {
			out = append(out, model.Event{Time: e.Time, Loc: e.Loc, Kind: model.KindEnter, Region: e.Region},
				model.Event{Time: e.Time, Loc: e.Loc, Kind: model.KindLeave, Region: e.Region})
			continue
		}
		e.Flags &= model.StringValue
		e.Site = 0
		if e.Kind == model.KindRecvPost {
			e.Peer, e.Tag, e.Comm = 0, 0, 0
		}
		if e.Kind == model.KindSend || e.Kind == model.KindRecv || e.Kind == model.KindCollBegin || e.Kind == model.KindCollDone {
			e.Comm++
		}
		if e.Kind == model.KindCollPost {
			e.Comm, e.Peer, e.Bytes, e.Recvd, e.Class = 0, 0, 0, 0, 0 // NonBlockingCollectiveRequest has the request only
		}
		out = append(out, e)
	}
	// a stable merge by time, then location, as ModelSource yields them
	for i := 1; i < len(out); i++ {
		for j := i; j > 0; j-- {
			a, b := out[j-1], out[j]
			if a.Time < b.Time || a.Time == b.Time && a.Loc <= b.Loc {
				break
			}
			out[j-1], out[j] = b, a
		}
	}
	return out
}

// withStrings returns evs with the name and string value of every
// Parameter as strings of a table of its own, so that the events of two
// string tables compare.
func withStrings(d *model.Defs, evs []model.Event) []model.Event {
	var own model.Defs
	out := slices.Clone(evs)
	for i := range out {
		e := &out[i]
		if e.Kind != model.KindParameter {
			continue
		}
		e.Text = own.Intern(d.String(e.Text))
		if e.Flags&model.StringValue != 0 {
			e.Value = int64(own.Intern(d.String(model.StringID(e.Value))))
		}
	}
	return out
}

// TestModelWriterRoundTrip: a synthetic trace written through the
// ModelWriter reads back through the ModelSource as the same events and
// definitions, and the reference otf2-print reads it.
func TestModelWriterRoundTrip(t *testing.T) {
	defs, evs := synthetic()
	self := defs.AddComm(model.Comm{Native: 99, Name: "self", Self: true})
	dir := t.TempDir()
	w, s, got := writeModel(t, dir, defs, evs, &ModelWriterOptions{WriterOptions: WriterOptions{EventChunkSize: MinChunkSize}})
	if w.Lost() != 0 {
		t.Errorf("Lost() = %d, want 0", w.Lost())
	}
	if diff := cmp.Diff(withStrings(defs, expected(evs)), withStrings(s.Defs(), got)); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	d := s.Defs()
	if d.TimeBase != defs.TimeBase {
		t.Errorf("time base %v, want %v", d.TimeBase, defs.TimeBase)
	}
	for _, l := range defs.Locations() {
		g, _ := d.Location(l.ID)
		if g.Name != l.Name || g.Process != l.Process || g.Thread != l.Thread {
			t.Errorf("location %d reads back as %+v, want %+v", l.ID, g, l)
		}
	}
	for _, r := range defs.Regions() {
		g, _ := d.Region(r.ID)
		want := r
		want.Native = int64(r.ID - 1)
		if want.Group == "" {
			want.Group = map[model.RegionKind]string{model.RegionCollective: "MPI"}[r.Kind]
			if want.Group == "" {
				want.Group = "USER"
			}
		}
		want.Paradigm = map[string]model.Paradigm{"MPI": model.ParadigmMPI, "USER": model.ParadigmUser, "OPENMP": model.ParadigmOpenMP}[want.Group]
		if g != want {
			t.Errorf("region %d reads back as %+v, want %+v", r.ID, g, want)
		}
	}
	if c, _ := d.Comm(2); c.Name != "sub" || len(c.Members) != 2 || c.Members[0] != 3 || c.Members[1] != 1 {
		t.Errorf("communicator sub reads back as %+v", c)
	}
	// The archive's world communicator comes first, so a communicator
	// reads back with its id + 1.
	if c, _ := d.Comm(self + 1); c.Name != "self" || !c.Self || len(c.Members) != 0 {
		t.Errorf("communicator self (MPI_COMM_SELF) reads back as %+v", c)
	}
	for _, c := range defs.Counters() {
		g, _ := d.Counter(c.ID)
		if g.Name != c.Name || g.Unit != c.Unit || g.Accumulating != c.Accumulating {
			t.Errorf("counter %d reads back as %+v, want %+v", c.ID, g, c)
		}
	}
	if _, err := exec.LookPath("otf2-print"); err != nil {
		return
	}
	out, err := exec.Command("otf2-print", filepath.Join(dir, "traces.otf2")).CombinedOutput()
	if err != nil {
		t.Fatalf("otf2-print: %v\n%s", err, out)
	}
	for _, s := range []string{"MPI_SEND", "MPI_RECV", "MPI_COLLECTIVE_END", "Operation: ALLGATHER", "METRIC", "ENTER",
		"MPI_ISEND ", "MPI_ISEND_COMPLETE", "MPI_IRECV_REQUEST", "MPI_IRECV ", "Request: 4", "PROGRAM_BEGIN", "PROGRAM_END",
		"NON_BLOCKING_COLLECTIVE_REQUEST .* Request: 2", `NON_BLOCKING_COLLECTIVE_COMPLETE .* Operation: ALLREDUCE, Communicator: "sub" <1>, Root: NONE, Sent: 4, Received: 8, Request: 2`,
		`PARAMETER_STRING .* Parameter: "mode" <0>, Value: "fast"`, `PARAMETER_INT64 .* Parameter: "n" <1>, Value: -7`} {
		if !regexp.MustCompile(s).Match(out) {
			t.Errorf("otf2-print output lacks %q:\n%s", s, out)
		}
	}
	if n := strings.Count(string(out), "\n") - 5; n != len(expected(evs)) {
		t.Errorf("otf2-print prints %d event lines, want %d:\n%s", n, len(expected(evs)), out)
	}
}

// TestModelWriterFixtures: the model events of every fixture written
// through the ModelWriter read back alike.
func TestModelWriterFixtures(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx, func(t *testing.T) {
			s, evs := modelEvents(t, fx)
			w, s2, got := writeModel(t, t.TempDir(), s.Defs(), evs, nil)
			if w.Lost() != 0 {
				t.Errorf("Lost() = %d", w.Lost())
			}
			if diff := cmp.Diff(withStrings(s.Defs(), expected(evs)), withStrings(s2.Defs(), got)); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

// TestModelWriterLost: what the writer cannot write is counted, and an
// event before the origin fails without leaving an anchor.
func TestModelWriterLost(t *testing.T) {
	d := &model.Defs{}
	l := d.AddLocation(model.Location{Name: "a"})
	r := d.AddRegion(model.Region{Name: "f"})
	evs := []model.Event{
		{Time: 1, Loc: l, Kind: model.KindEnter},                                // no region
		{Time: 2, Loc: l, Kind: model.KindLeave, Region: r},                     // nothing open
		{Time: 3, Loc: l, Kind: model.KindCollEnd},                              // no begin
		{Time: 4, Loc: l, Kind: model.KindCollBegin, Region: r},                 // unknown class
		{Time: 5, Loc: l, Kind: model.KindMarker, Text: d.Intern("x")},          // no region
		{Time: 6, Loc: l, Kind: model.KindCollBegin, Class: model.ClassBarrier}, // never ended
	}
	w, _, got := writeModel(t, t.TempDir(), d, evs, nil)
	if w.Lost() != 6 {
		t.Errorf("Lost() = %d, want 6", w.Lost())
	}
	if len(got) != 0 {
		t.Errorf("read back %v", got)
	}

	dir := t.TempDir()
	w, err := NewModelWriter(model.DirCreator(dir), d, &ModelWriterOptions{Origin: 10})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(&model.Event{Time: 9, Loc: l, Kind: model.KindEnter, Region: r}); !errors.Is(err, ErrRange) {
		t.Errorf("event before the origin: %v", err)
	}
	if err := w.Close(); !errors.Is(err, ErrRange) {
		t.Errorf("Close after a failed Write: %v", err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*.otf2")); len(m) != 0 {
		t.Errorf("anchor written after a failure: %v", m)
	}
	if _, err := NewModelWriter(model.DirCreator(dir), nil, nil); !errors.Is(err, ErrRange) {
		t.Errorf("nil Defs: %v", err)
	}
}

// TestModelWriterFloatCounter: a Float counter is written as a DOUBLE
// metric member with DOUBLE values, and reads back Float with its bits.
func TestModelWriterFloatCounter(t *testing.T) {
	d := &model.Defs{TimeBase: model.TimeBase{TicksPerSecond: 1e6}}
	l := d.AddLocation(model.Location{Name: "rank 0"})
	f := d.AddCounter(model.Counter{Name: "watts", Float: true})
	i := d.AddCounter(model.Counter{Name: "ins", Accumulating: true})
	evs := []model.Event{
		{Time: 1, Loc: l, Kind: model.KindCounter, Counter: f, Value: int64(math.Float64bits(-2.5))},
		{Time: 2, Loc: l, Kind: model.KindCounter, Counter: i, Value: 42},
	}
	dir := t.TempDir()
	_, s, got := writeModel(t, dir, d, evs, nil)
	cf, _ := s.Defs().Counter(got[0].Counter)
	ci, _ := s.Defs().Counter(got[1].Counter)
	if !cf.Float || ci.Float || cf.Name != "watts" {
		t.Errorf("counters read back %+v and %+v, want watts Float and ins not", cf, ci)
	}
	if got[0].Value != evs[0].Value || got[1].Value != 42 {
		t.Errorf("values %d and %d, want %d and 42", got[0].Value, got[1].Value, evs[0].Value)
	}
	if _, err := exec.LookPath("otf2-print"); err != nil {
		return
	}
	out, err := exec.Command("otf2-print", filepath.Join(dir, "traces.otf2")).CombinedOutput()
	if err != nil {
		t.Fatalf("otf2-print: %v\n%s", err, out)
	}
	for _, want := range []string{`("watts" <0>; DOUBLE; -2.5)`, `("ins" <1>; INT64; 42)`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("otf2-print output lacks %s:\n%s", want, out)
		}
	}
}
