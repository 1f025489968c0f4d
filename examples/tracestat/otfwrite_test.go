package main

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf"
)

var (
	otfEvents = flag.Int64("otfevents", 1_000_000, "events in the OTF trace of BenchmarkOTFEndToEnd")
	otfDir    = flag.String("otfdir", "", "directory for the OTF trace of BenchmarkOTFEndToEnd (kept); default a temporary one")
)

// writeSynthOTF writes the synthetic trace of about n events as an OTF
// trace dir/synth.otf with one stream per rank, through the otf package.
func writeSynthOTF(tb testing.TB, dir string, n int64) string {
	tb.Helper()
	src := newSynth(n)
	var streams []otf.Stream
	for i := range synthLocs {
		streams = append(streams, otf.Stream{ID: uint32(i + 1), Processes: []uint32{uint32(i + 1)}})
	}
	w, err := otf.NewTraceWriter(model.CreateFunc(func(name string) (io.WriteCloser, error) {
		return os.Create(filepath.Join(dir, name))
	}), &otf.TraceWriterOptions{Stub: "synth", Streams: streams})
	if err != nil {
		tb.Fatal(err)
	}
	d := src.Defs()
	var rec otf.Record
	def := func(set func(*otf.Record)) {
		rec = otf.Record{}
		set(&rec)
		if err := w.Write(&rec); err != nil {
			tb.Fatal(err)
		}
	}
	def(func(r *otf.Record) {
		r.SetDefTimerResolution(otf.DefTimerResolution{TicksPerSecond: d.TimeBase.TicksPerSecond})
	})
	for _, l := range d.Locations() {
		def(func(r *otf.Record) { r.SetDefProcess(otf.DefProcess{Process: uint32(l.Native), Name: []byte(l.Name)}) })
	}
	def(func(r *otf.Record) {
		r.SetDefFunctionGroup(otf.DefFunctionGroup{Group: 1, Name: []byte("Application")})
	})
	def(func(r *otf.Record) { r.SetDefFunctionGroup(otf.DefFunctionGroup{Group: 2, Name: []byte("MPI")}) })
	for _, reg := range d.Regions() {
		g := uint32(1)
		if reg.Kind != model.RegionFunction {
			g = 2
		}
		def(func(r *otf.Record) {
			r.SetDefFunction(otf.DefFunction{Function: uint32(reg.Native), Group: g, Name: []byte(reg.Name)})
		})
	}
	def(func(r *otf.Record) {
		r.SetDefProcessGroup(otf.DefProcessGroup{Group: 100, Name: []byte("world"), Members: []uint32{1, 2, 3, 4, 5, 6, 7, 8}})
	})
	def(func(r *otf.Record) { r.SetDefCollOp(otf.DefCollOp{CollOp: 1, Name: []byte("MPI_Barrier"), Type: 1}) })
	native := func(l model.LocID) uint32 { x, _ := d.Location(l); return uint32(x.Native) }
	for src.Next() {
		e := src.Event()
		rec = otf.Record{Time: uint64(e.Time), Process: native(e.Loc)}
		reg, _ := d.Region(e.Region)
		switch e.Kind {
		case model.KindEnter:
			rec.SetEnter(otf.Enter{Function: uint32(reg.Native)})
		case model.KindLeave:
			rec.SetLeave(otf.Leave{Function: uint32(reg.Native)})
		case model.KindSend:
			rec.SetSend(otf.Send{Receiver: native(e.Peer), Length: uint32(e.Bytes), Tag: uint32(e.Tag), Communicator: 100})
		case model.KindRecv:
			rec.SetReceive(otf.Receive{Sender: native(e.Peer), Length: uint32(e.Bytes), Tag: uint32(e.Tag), Communicator: 100})
		case model.KindCollBegin:
			rec.SetBeginCollOp(otf.BeginCollOp{CollOp: 1, MatchingID: e.Match, Communicator: 100})
		case model.KindCollEnd:
			rec.SetEndCollOp(otf.EndCollOp{MatchingID: e.Match})
		default:
			tb.Fatalf("synthetic event kind %v", e.Kind)
		}
		if err := w.Write(&rec); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return filepath.Join(dir, "synth.otf")
}

// TestOTFMatchesInMemory: the synthetic trace profiled from memory and from
// its OTF files gives the same report.
func TestOTFMatchesInMemory(t *testing.T) {
	name := writeSynthOTF(t, t.TempDir(), 20_000)
	var mem, file, errb bytes.Buffer
	if err := run([]string{"-json", "-synthetic", "20000"}, &mem, &errb); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"-json", name}, &file, &errb); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(mem.String(), file.String()); diff != "" {
		t.Errorf("OTF report differs from the in-memory one (-mem +otf):\n%s", diff)
	}
}

// TestSerialMatchesPrefetched: reading in a goroutine of its own (the
// default) and in the accumulator's give the same reports.
func TestSerialMatchesPrefetched(t *testing.T) {
	name := writeSynthOTF(t, t.TempDir(), 30_000)
	for _, args := range [][]string{
		{"-json", name},
		{"-at", "5000,100000,20000000", "-vclock", "3", name},
		{"-json", "-every", "250000", "-synthetic", "20000"},
		{"-json", "-vclock", "2"},
		{},
	} {
		var pre, ser, errb bytes.Buffer
		if err := run(args, &pre, &errb); err != nil {
			t.Fatal(err)
		}
		if err := run(append([]string{"-serial"}, args...), &ser, &errb); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(ser.String(), pre.String()); diff != "" {
			t.Errorf("%q: prefetched report differs from the serial one (-serial +prefetched):\n%s", args, diff)
		}
	}
}

// BenchmarkOTFEndToEnd profiles a generated 8-stream OTF trace (1M events
// by default, -otfevents to change) through the otf reader, the model
// adapter, the accumulator and Finalize, as tracestat does (pipelined:
// reading in a goroutine of its own) and with -serial. The MB/s column is
// millions of events per second.
func BenchmarkOTFEndToEnd(b *testing.B) {
	dir := *otfDir
	if dir == "" {
		dir = b.TempDir()
	}
	name := filepath.Join(dir, "synth.otf")
	if _, err := os.Stat(name); err != nil {
		writeSynthOTF(b, dir, *otfEvents)
	}
	var n int64
	tr, err := otf.OpenFS(os.DirFS(dir), "synth.otf", nil)
	if err != nil {
		b.Fatal(err)
	}
	src, err := otf.NewModelSource(tr, nil)
	if err != nil {
		b.Fatal(err)
	}
	for src.Next() {
		n++
	}
	src.Close()
	for _, mode := range []string{"pipelined", "serial"} {
		b.Run(mode, func(b *testing.B) {
			args := []string{"-json", name}
			if mode == "serial" {
				args = append([]string{"-serial"}, args...)
			}
			b.SetBytes(n)
			b.ReportAllocs()
			for b.Loop() {
				var out, errb bytes.Buffer
				if err := run(args, &out, &errb); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkOTFRead reads the trace of BenchmarkOTFEndToEnd through the
// model adapter only, without statistics: the first stage of the
// pipelined profile, which bounds its throughput.
func BenchmarkOTFRead(b *testing.B) {
	dir := *otfDir
	if dir == "" {
		dir = b.TempDir()
	}
	if _, err := os.Stat(filepath.Join(dir, "synth.otf")); err != nil {
		writeSynthOTF(b, dir, *otfEvents)
	}
	b.ReportAllocs()
	var n int64
	for b.Loop() {
		tr, err := otf.OpenFS(os.DirFS(dir), "synth.otf", nil)
		if err != nil {
			b.Fatal(err)
		}
		src, err := otf.NewModelSource(tr, nil)
		if err != nil {
			b.Fatal(err)
		}
		n = 0
		for src.Next() {
			n++
		}
		if err := src.Err(); err != nil {
			b.Fatal(err)
		}
		src.Close()
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mevents/s")
}

// TestCorruptOTF: a trace that goes bad midway fails with the same error
// whether it is read ahead in a goroutine of its own or not.
func TestCorruptOTF(t *testing.T) {
	dir := t.TempDir()
	name := writeSynthOTF(t, dir, 30_000)
	p := filepath.Join(dir, "synth.3.events")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	mid := len(data) / 2
	mid += bytes.IndexByte(data[mid:], '\n') + 1
	data = append(data[:mid:mid], append([]byte("E\n"), data[mid:]...)...)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	errPre := run([]string{"-json", name}, &out, &errb)
	errSer := run([]string{"-json", "-serial", name}, &out, &errb)
	if errPre == nil || errSer == nil {
		t.Fatalf("errors %v and %v, want a parse error from both", errPre, errSer)
	}
	var pe *otf.ParseError
	if !errors.As(errPre, &pe) {
		t.Fatalf("prefetched error %v is not an otf.ParseError", errPre)
	}
	t.Logf("error: %v", errPre)
	if errPre.Error() != errSer.Error() {
		t.Errorf("prefetched error %q, serial error %q", errPre, errSer)
	}
}
