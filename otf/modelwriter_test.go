package otf

import (
	"errors"
	"maps"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace/model"
)

// modelTrace is a small two-rank trace in the model: a function, MPI
// send and receive, a barrier, a counter, sites and a marker, starting
// before 0.
func modelTrace() (*model.Defs, []model.Event) {
	d := new(model.Defs)
	d.TimeBase.TicksPerSecond = 1_000_000
	r0 := d.AddLocation(model.Location{Native: 0, Name: "rank 0", Process: 0})
	r1 := d.AddLocation(model.Location{Native: 1, Name: "rank 1", Process: 1})
	d.AddLocation(model.Location{Native: 2, Name: "idle", Process: 2})
	main := d.AddRegion(model.Region{Name: "main", Kind: model.RegionFunction, File: "a.c", Line: 3})
	send := d.AddRegion(model.Region{Name: "MPI_Send", Kind: model.RegionComm})
	recv := d.AddRegion(model.Region{Name: "MPI_Recv", Kind: model.RegionComm})
	bar := d.AddRegion(model.Region{Name: "MPI_Barrier", Kind: model.RegionCollective})
	site := d.AddSite(model.Site{File: "a.c", Line: 10})
	world := d.AddComm(model.Comm{Native: 7, Name: "world", Members: []model.LocID{r0, r1}})
	ctr := d.AddCounter(model.Counter{Native: 1, Name: "flops", Unit: "ops"})
	text := d.Intern(`say "hi"`)
	evs := []model.Event{
		{Time: -5, Loc: r0, Kind: model.KindEnter, Region: main},
		{Time: -5, Loc: r1, Kind: model.KindEnter, Region: main},
		{Time: 0, Loc: r0, Kind: model.KindEnter, Region: send, Site: site},
		{Time: 1, Loc: r0, Kind: model.KindSend, Peer: r1, Tag: 3, Comm: world, Bytes: 64},
		{Time: 2, Loc: r0, Kind: model.KindLeave, Region: send},
		{Time: 2, Loc: r1, Kind: model.KindEnter, Region: recv},
		{Time: 4, Loc: r1, Kind: model.KindRecv, Peer: r0, Tag: 3, Comm: world, Bytes: 64},
		{Time: 5, Loc: r1, Kind: model.KindLeave, Region: recv},
		{Time: 6, Loc: r0, Kind: model.KindEnter, Region: bar},
		{Time: 6, Loc: r0, Kind: model.KindCollBegin, Region: bar, Class: model.ClassBarrier, Comm: world, Match: 1},
		{Time: 6, Loc: r1, Kind: model.KindEnter, Region: bar},
		{Time: 6, Loc: r1, Kind: model.KindCollBegin, Region: bar, Class: model.ClassBarrier, Comm: world, Match: 1},
		{Time: 8, Loc: r0, Kind: model.KindCollEnd, Match: 1},
		{Time: 8, Loc: r0, Kind: model.KindLeave, Region: bar},
		{Time: 8, Loc: r1, Kind: model.KindCollEnd, Match: 1},
		{Time: 8, Loc: r1, Kind: model.KindLeave, Region: bar},
		{Time: 9, Loc: r0, Kind: model.KindCounter, Counter: ctr, Value: 1000},
		{Time: 9, Loc: r1, Kind: model.KindMarker, Text: text},
		{Time: 10, Loc: r0, Kind: model.KindLeave}, // region 0: the innermost open one
		{Time: 10, Loc: r1, Kind: model.KindLeave, Region: main},
	}
	return d, evs
}

// named is an event with names for the ids a conversion renumbers.
type named struct {
	Time         model.Time
	Loc, Peer    string
	Kind         model.Kind
	Region, Text string
	Tag          int32
	Bytes        int64
	Class        model.Class
	Value        int64
}

func nameEvents(d *model.Defs, evs []model.Event) []named {
	var out []named
	for _, ev := range evs {
		n := named{Time: ev.Time, Loc: d.LocationName(ev.Loc), Kind: ev.Kind, Tag: ev.Tag, Bytes: ev.Bytes,
			Class: ev.Class, Value: ev.Value, Text: d.String(ev.Text)}
		if ev.Peer != 0 {
			n.Peer = d.LocationName(ev.Peer)
		}
		if ev.Region != 0 {
			n.Region = d.RegionName(ev.Region)
		}
		out = append(out, n)
	}
	return out
}

func TestModelWriterRoundTrip(t *testing.T) {
	for _, opts := range []ModelWriterOptions{
		{Origin: -5},
		{Origin: -10, WriterOptions: WriterOptions{Long: true, Zlib: true}, Streams: 1},
	} {
		d, evs := modelTrace()
		m, c := memFS()
		opts.Stub = "conv"
		w, err := NewModelWriter(c, d, &opts)
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
		tr, err := OpenFS(m, "conv.otf", nil)
		if err != nil {
			t.Fatal(err)
		}
		want := 2 // the ranks with events; the idle location has no stream
		if opts.Streams != 0 {
			want = opts.Streams
		}
		if len(tr.Streams) != want {
			t.Errorf("%d streams, want %d", len(tr.Streams), want)
		}
		src, err := NewModelSource(tr, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []model.Event
		for ev, err := range src.All() {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, *ev)
		}
		src.Close()
		// What OTF keeps: times shift by -Origin, the leave of region 0
		// names main, the quote becomes a blank.
		wantEvs := nameEvents(d, evs)
		for i := range wantEvs {
			wantEvs[i].Time -= opts.Origin
		}
		wantEvs[18].Region = "main"
		wantEvs[17].Text = `say  hi `
		if diff := cmp.Diff(wantEvs, nameEvents(src.Defs(), got)); diff != "" {
			t.Errorf("%+v: model → OTF → model (-want +got):\n%s", opts, diff)
		}
		if tps := src.Defs().TimeBase.TicksPerSecond; tps != 1_000_000 {
			t.Errorf("ticks per second %d, want 1000000", tps)
		}
		if len(src.Defs().Sites()) == 0 {
			t.Error("no sites read back")
		}
	}
}

func TestModelWriterRejects(t *testing.T) {
	d, evs := modelTrace()
	_, c := memFS()
	w, err := NewModelWriter(c, d, &ModelWriterOptions{Stub: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(&evs[0]); !errors.Is(err, ErrRange) {
		t.Errorf("time before Origin: %v; want ErrRange", err)
	}
	if err := w.Write(&model.Event{Time: 1, Loc: 99, Kind: model.KindMarker}); !errors.Is(err, ErrRange) {
		t.Errorf("undefined location: %v; want ErrRange", err)
	}
	if err := w.Write(&evs[2]); err != nil {
		t.Errorf("a valid event after rejected ones: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(&evs[2]); !errors.Is(err, ErrClosed) {
		t.Errorf("Write after Close: %v; want ErrClosed", err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := NewModelWriter(c, nil, &ModelWriterOptions{Stub: "x"}); err == nil {
		t.Error("nil Defs accepted")
	}
}

// TestModelWriterGrowingDefs: definitions added after events were written
// (as a source adds them while it is read) are written before the event
// that uses them, and a collective operation is defined on first use.
func TestModelWriterGrowingDefs(t *testing.T) {
	d := new(model.Defs)
	d.TimeBase.TicksPerSecond = 1000
	l1 := d.AddLocation(model.Location{Name: "a"})
	f := d.AddRegion(model.Region{Name: "f"})
	m, c := memFS()
	w, err := NewModelWriter(c, d, &ModelWriterOptions{Stub: "g"})
	if err != nil {
		t.Fatal(err)
	}
	write := func(ev model.Event) {
		t.Helper()
		if err := w.Write(&ev); err != nil {
			t.Fatal(err)
		}
	}
	write(model.Event{Time: 1, Loc: l1, Kind: model.KindEnter, Region: f})
	l2 := d.AddLocation(model.Location{Name: "b"})
	g := d.AddRegion(model.Region{Name: "MPI_Allreduce", Kind: model.RegionCollective})
	write(model.Event{Time: 2, Loc: l2, Kind: model.KindEnter, Region: g})
	write(model.Event{Time: 2, Loc: l2, Kind: model.KindCollBegin, Region: g, Class: model.ClassAllToAll, Bytes: 8, Recvd: 8})
	write(model.Event{Time: 3, Loc: l2, Kind: model.KindCollEnd})
	write(model.Event{Time: 3, Loc: l2, Kind: model.KindLeave, Region: g})
	write(model.Event{Time: 4, Loc: l1, Kind: model.KindLeave, Region: f})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	tr, err := OpenFS(m, "g.otf", nil)
	if err != nil {
		t.Fatal(err)
	}
	src, err := NewModelSource(tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var got []named
	for ev, err := range src.All() {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, nameEvents(src.Defs(), []model.Event{*ev})...)
	}
	want := []named{
		{Time: 1, Loc: "a", Kind: model.KindEnter, Region: "f"},
		{Time: 2, Loc: "b", Kind: model.KindEnter, Region: "MPI_Allreduce"},
		{Time: 2, Loc: "b", Kind: model.KindCollBegin, Region: "MPI_Allreduce", Class: model.ClassAllToAll, Bytes: 8},
		{Time: 3, Loc: "b", Kind: model.KindCollEnd},
		{Time: 3, Loc: "b", Kind: model.KindLeave, Region: "MPI_Allreduce"},
		{Time: 4, Loc: "a", Kind: model.KindLeave, Region: "f"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("growing definitions (-want +got):\n%s", diff)
	}
}

// TestModelWriterNoPeer: a Send or Recv without a known peer (Peer 0) is
// not written as a message to or from some process: it is dropped and
// counted by NoPeer, and the trace reads back with only the known one.
func TestModelWriterNoPeer(t *testing.T) {
	d := new(model.Defs)
	a := d.AddLocation(model.Location{Native: 0, Name: "a"})
	b := d.AddLocation(model.Location{Native: 1, Name: "b"})
	m, c := memFS()
	w, err := NewModelWriter(c, d, &ModelWriterOptions{Stub: "p"})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range []model.Event{
		{Time: 1, Loc: a, Kind: model.KindSend, Tag: 1, Bytes: 8},
		{Time: 2, Loc: a, Kind: model.KindSend, Peer: b, Tag: 2, Bytes: 8},
		{Time: 3, Loc: b, Kind: model.KindRecv, Peer: a, Tag: 2, Bytes: 8},
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
	tr, err := OpenFS(m, "p.otf", nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := tr.NewReader(&TraceReaderOptions{File: FileEvents})
	if err != nil {
		t.Fatal(err)
	}
	var msgs [][2]uint32
	for rec, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		if s, ok := rec.Send(); ok {
			msgs = append(msgs, [2]uint32{rec.Process, s.Receiver})
		}
		if v, ok := rec.Receive(); ok {
			msgs = append(msgs, [2]uint32{v.Sender, rec.Process})
		}
	}
	if want := [][2]uint32{{uint32(a), uint32(b)}, {uint32(a), uint32(b)}}; !cmp.Equal(msgs, want) {
		t.Errorf("messages (sender, receiver) %v, want %v", msgs, want)
	}
}

// TestModelWriterNoRoot: a collective without a root (Peer 0) is written
// with root 0xffffffff, as VampirTrace writes a barrier, which names no
// process; a rooted one names its root's process. Both read back as they
// were.
func TestModelWriterNoRoot(t *testing.T) {
	d := new(model.Defs)
	a := d.AddLocation(model.Location{Native: 0, Name: "a"})
	b := d.AddLocation(model.Location{Native: 1, Name: "b"})
	bar := d.AddRegion(model.Region{Name: "MPI_Barrier", Kind: model.RegionCollective})
	bc := d.AddRegion(model.Region{Name: "MPI_Bcast", Kind: model.RegionCollective})
	m, c := memFS()
	w, err := NewModelWriter(c, d, &ModelWriterOptions{Stub: "r"})
	if err != nil {
		t.Fatal(err)
	}
	evs := []model.Event{
		{Time: 1, Loc: a, Kind: model.KindCollBegin, Region: bar, Class: model.ClassBarrier, Match: 1},
		{Time: 2, Loc: a, Kind: model.KindCollEnd, Match: 1},
		{Time: 3, Loc: a, Kind: model.KindCollBegin, Region: bc, Class: model.ClassOneToAll, Peer: b, Bytes: 8, Match: 2},
		{Time: 4, Loc: a, Kind: model.KindCollEnd, Match: 2},
	}
	for i := range evs {
		if err := w.Write(&evs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	tr, err := OpenFS(m, "r.otf", nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := tr.NewReader(&TraceReaderOptions{File: FileEvents})
	if err != nil {
		t.Fatal(err)
	}
	var roots []uint32
	for rec, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := rec.BeginCollOp(); ok {
			roots = append(roots, v.Root)
		}
	}
	if want := []uint32{^uint32(0), uint32(b)}; !cmp.Equal(roots, want) {
		t.Errorf("roots %x, want %x", roots, want)
	}
	src, err := NewModelSource(tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var peers []string
	for ev, err := range src.All() {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind == model.KindCollBegin {
			peers = append(peers, src.Defs().LocationName(ev.Peer))
		}
	}
	if want := []string{"loc 0", "b"}; !cmp.Equal(peers, want) {
		t.Errorf("roots read back %q, want %q", peers, want)
	}
	if n := src.Defs().NumLocations(); n != 2 {
		t.Errorf("%d locations read back, want 2", n)
	}
}

// TestModelWriterNewKinds: ProgramBegin and ProgramEnd become BeginProcess
// and EndProcess records; RecvPost, SendDone and Parameter have no OTF
// record and are counted by Unwritten; a region without a group is put in
// the group its paradigm names, and reads back with that paradigm.
func TestModelWriterNewKinds(t *testing.T) {
	d := new(model.Defs)
	a := d.AddLocation(model.Location{Native: 0, Name: "a"})
	b := d.AddLocation(model.Location{Native: 1, Name: "b"})
	omp := d.AddRegion(model.Region{Name: "!$omp parallel", Kind: model.RegionOther, Paradigm: model.ParadigmOpenMP})
	init := d.AddRegion(model.Region{Name: "MPI_Init", Kind: model.RegionFunction})
	m, c := memFS()
	w, err := NewModelWriter(c, d, &ModelWriterOptions{Stub: "k"})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range []model.Event{
		{Time: 1, Loc: a, Kind: model.KindProgramBegin},
		{Time: 2, Loc: a, Kind: model.KindEnter, Region: init},
		{Time: 3, Loc: a, Kind: model.KindLeave, Region: init},
		{Time: 4, Loc: a, Kind: model.KindEnter, Region: omp},
		{Time: 5, Loc: a, Kind: model.KindParameter, Text: d.Intern("n"), Value: 3},
		{Time: 6, Loc: b, Kind: model.KindRecvPost, Peer: a, Match: 1},
		{Time: 7, Loc: a, Kind: model.KindSend, Peer: b, Bytes: 8, Match: 1},
		{Time: 8, Loc: a, Kind: model.KindSendDone, Match: 1},
		{Time: 9, Loc: b, Kind: model.KindRecv, Peer: a, Bytes: 8, Match: 1},
		{Time: 9, Loc: a, Kind: model.KindCollPost, Match: 2},
		{Time: 9, Loc: a, Kind: model.KindCollDone, Class: model.ClassBarrier, Match: 2},
		{Time: 10, Loc: a, Kind: model.KindLeave, Region: omp},
		{Time: 11, Loc: a, Kind: model.KindProgramEnd},
	} {
		if err := w.Write(&ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := w.Dropped(), map[model.Kind]int64{model.KindParameter: 1, model.KindRecvPost: 1, model.KindSendDone: 1,
		model.KindCollPost: 1, model.KindCollDone: 1}; !maps.Equal(got, want) {
		t.Errorf("Dropped %v, want %v", got, want)
	}
	tr, err := OpenFS(m, "k.otf", nil)
	if err != nil {
		t.Fatal(err)
	}
	src, err := NewModelSource(tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var got []string
	for ev, err := range src.All() {
		if err != nil {
			t.Fatal(err)
		}
		s := ev.Kind.String()
		if ev.Kind == model.KindMarker {
			s += " " + src.Defs().String(ev.Text)
		}
		got = append(got, s)
	}
	want := []string{"marker BeginProcess", "enter", "leave", "enter", "send", "recv", "leave", "marker EndProcess"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	for _, r := range src.Defs().Regions() {
		want := map[string]string{"!$omp parallel": "OMP openmp", "MPI_Init": "MPI mpi"}[r.Name]
		if g := r.Group + " " + r.Paradigm.String(); g != want {
			t.Errorf("region %q: group and paradigm %q, want %q", r.Name, g, want)
		}
	}
}
