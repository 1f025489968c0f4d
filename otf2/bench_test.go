package otf2

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"testing"

	"github.com/hpctrace/hpctrace/model"
)

// writeBig writes an archive of nloc locations with n events each (Enter,
// MpiSend, Metric, Leave repeated) into c.
func writeBig(t testing.TB, c model.Creator, nloc, n int) {
	writeKinds(t, c, nloc, n, MinChunkSize, []Kind{KindEnter, KindMpiSend, KindMetric, KindLeave})
}

// writeKinds writes an archive of nloc locations with n events each, of
// the given kinds in turn, 10 ticks apart, in event chunks of the given
// size, into c.
func writeKinds(t testing.TB, c model.Creator, nloc, n int, chunk int64, kinds []Kind) {
	w, err := NewArchiveWriter(c, &WriterOptions{EventChunkSize: chunk})
	if err != nil {
		t.Fatal(err)
	}
	str := NewDef(DefKindString)
	w.WriteDef(str)
	reg := NewDef(DefKindRegion)
	reg.SetValue(4, Undefined32)
	w.WriteDef(reg)
	for loc := range uint64(nloc) {
		l := NewDef(DefKindLocation)
		l.SetValue(0, loc)
		l.SetValue(2, 1)
		w.WriteDef(l)
		ew, _ := w.EventWriter(loc)
		for i := range n {
			ev := NewEvent(kinds[i%len(kinds)], uint64(1000+10*i)+loc)
			if ev.Kind == KindMetric {
				ev.SetElems(2, []uint64{uint64(TypeUint64)})
				ev.SetElems(3, []uint64{uint64(i)})
			}
			if ev.Kind == KindMpiSend {
				ev.SetValue(3, 1024)
			}
			if err := ew.Write(ev); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// openMerged opens the archive traces.otf2 of fsys and a merged reader of
// all its locations.
func openMerged(t testing.TB, fsys fs.FS) *MergedReader {
	a, err := OpenFS(fsys, "traces.otf2", nil)
	if err != nil {
		t.Fatal(err)
	}
	mr, err := a.MergedReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	return mr
}

// TestMergedAllocs pins the merged reader at zero allocations per event
// once its chunk buffers are allocated.
func TestMergedAllocs(t *testing.T) {
	cr := memCreator{}
	writeBig(t, cr, 4, 40000)
	mr := openMerged(t, cr.fs())
	defer mr.Close()
	for range 1000 {
		mr.Next()
	}
	n := testing.AllocsPerRun(100000, func() {
		if !mr.Next() {
			t.Fatal("ran out of events", mr.Err())
		}
	})
	if n != 0 {
		t.Fatalf("MergedReader.Next allocates %.2f times per event; want 0", n)
	}
}

func BenchmarkMergedReader(b *testing.B) {
	cr := memCreator{}
	const nloc, n = 4, 250000
	writeBig(b, cr, nloc, n)
	fsys := cr.fs()
	var size int64
	for _, f := range fsys {
		size += int64(len(f.Data))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		mr := openMerged(b, fsys)
		var k int
		for mr.Next() {
			k++
		}
		if mr.Err() != nil || k != nloc*n {
			b.Fatal(mr.Err(), k)
		}
		mr.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*nloc*n), "ns/event")
}

// TestBatchAllocs pins NextBatch at zero allocations per batch once its
// buffers are allocated, with events that are not compact (attribute
// lists) among them.
func TestBatchAllocs(t *testing.T) {
	cr := memCreator{}
	w, err := NewArchiveWriter(cr, &WriterOptions{EventChunkSize: MinChunkSize})
	if err != nil {
		t.Fatal(err)
	}
	for loc := range uint64(4) {
		l := NewDef(DefKindLocation)
		l.SetValue(0, loc)
		w.WriteDef(l)
		ew, _ := w.EventWriter(loc)
		for i := range 100000 {
			ev := NewEvent(KindEnter, uint64(1000+10*i)+loc)
			if i%7 == 0 {
				ev.Attrs = []Attribute{{ID: 1, Type: TypeUint64, Value: uint64(i)}}
			}
			if err := ew.Write(ev); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	mr := openMerged(t, cr.fs())
	defer mr.Close()
	var b Batch
	for range 10 {
		mr.NextBatch(&b)
	}
	full := 0
	n := testing.AllocsPerRun(50, func() {
		if !mr.NextBatch(&b) {
			t.Fatal("ran out of events", mr.Err())
		}
		for i := range b.Len() {
			if !b.At(i).Compact() {
				full++
			}
		}
	})
	if n != 0 {
		t.Fatalf("MergedReader.NextBatch allocates %.2f times per batch; want 0", n)
	}
	if full == 0 {
		t.Fatal("no event with an attribute list")
	}
}

func BenchmarkMergedBatch(b *testing.B) {
	cr := memCreator{}
	const nloc, n = 4, 250000
	writeBig(b, cr, nloc, n)
	benchBatch(b, cr, nloc*n)
}

// BenchmarkMergedBatchIrregular is BenchmarkMergedBatch on 8 locations
// whose events follow one another at random gaps, so that which
// location comes next is not a pattern a branch predictor learns.
func BenchmarkMergedBatchIrregular(b *testing.B) {
	cr := memCreator{}
	const nloc, n = 8, 125000
	w, err := NewArchiveWriter(cr, &WriterOptions{EventChunkSize: MinChunkSize})
	if err != nil {
		b.Fatal(err)
	}
	reg := NewDef(DefKindRegion)
	reg.SetValue(4, Undefined32)
	w.WriteDef(reg)
	rng := rand.New(rand.NewPCG(1, 2))
	for loc := range uint64(nloc) {
		l := NewDef(DefKindLocation)
		l.SetValue(0, loc)
		l.SetValue(2, 1)
		w.WriteDef(l)
		ew, _ := w.EventWriter(loc)
		tm := uint64(1000)
		for i := range n {
			tm += 1 + rng.Uint64N(100)
			ev := NewEvent([]Kind{KindEnter, KindLeave}[i%2], tm)
			if err := ew.Write(ev); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	benchBatch(b, cr, nloc*n)
}

// BenchmarkMergedBatchLocations is BenchmarkMergedBatch on 1M events of
// 8 to 256 locations: up to 160 (64 without merge4Asm), NextBatch
// merges by windows; past that, with the loser tree.
func BenchmarkMergedBatchLocations(b *testing.B) {
	for _, nloc := range []int{8, 16, 32, 64, 128, 160, 256} {
		b.Run(fmt.Sprint(nloc), func(b *testing.B) {
			cr := memCreator{}
			n := 1000000 / nloc
			writeBig(b, cr, nloc, n)
			benchBatch(b, cr, nloc*n)
		})
	}
}

// benchBatch reads the archive of cr with NextBatch, which must yield
// want events, and reports the time per event.
func benchBatch(b *testing.B, cr memCreator, want int) {
	fsys := cr.fs()
	b.ReportAllocs()
	for b.Loop() {
		mr := openMerged(b, fsys)
		var k int
		var bt Batch
		for mr.NextBatch(&bt) {
			k += bt.Len()
		}
		if mr.Err() != nil || k != want {
			b.Fatal(mr.Err(), k)
		}
		mr.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*want), "ns/event")
}

// BenchmarkDecodeBatch is the tight decoder of NextBatch alone on one
// location's events (Enter, MPI_Send, Metric and Leave in turn), read
// from memory into a buffer of 256 events.
func BenchmarkDecodeBatch(b *testing.B) {
	cr := memCreator{}
	const n = 400000
	writeBig(b, cr, 1, n)
	benchDecode(b, cr, n)
}

// BenchmarkDecodeBatchEnterLeave is BenchmarkDecodeBatch on Enter and
// Leave records only, each after its timestamp.
func BenchmarkDecodeBatchEnterLeave(b *testing.B) {
	cr := memCreator{}
	const n = 400000
	writeKinds(b, cr, 1, n, 1<<20, []Kind{KindEnter, KindLeave})
	benchDecode(b, cr, n)
}

// benchDecode reads location 0 of the archive of cr, which must hold want
// events, through decodeBatch where it can (Next where it cannot), and
// reports the time per event.
func benchDecode(b *testing.B, cr memCreator, want int) {
	a, err := OpenFS(cr.fs(), "traces.otf2", nil)
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]BatchEvent, 256)
	for b.Loop() {
		r, err := a.EventReader(0)
		if err != nil {
			b.Fatal(err)
		}
		k := 0
		for {
			d := r.decodeBatch(buf)
			if k += d; d == len(buf) {
				continue
			}
			if !r.Next() {
				break
			}
			k++
		}
		if r.Err() != nil || k != want {
			b.Fatalf("%d events, %v", k, r.Err())
		}
		r.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(want), "ns/event")
}
