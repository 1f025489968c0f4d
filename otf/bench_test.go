package otf

import (
	"bytes"
	"fmt"
	"github.com/hpctrace/hpctrace/model"
	"io"
	"io/fs"
	"sync"
	"testing"
	"testing/fstest"
	"time"
)

// genTrace writes a ring-like trace of procs processes on streams streams
// with about events events in total into a MapFS.
func genTrace(tb testing.TB, streams, procs, events int, zlib bool) fstest.MapFS {
	tb.Helper()
	fsys := fstest.MapFS{}
	c := model.CreateFunc(func(name string) (io.WriteCloser, error) {
		return &mapFile{name: name, fs: fsys}, nil
	})
	w, err := NewTraceWriter(c, &TraceWriterOptions{Stub: "bench", WriterOptions: WriterOptions{Zlib: zlib}, MaxStreams: streams})
	if err != nil {
		tb.Fatal(err)
	}
	var rec Record
	rec.SetDefTimerResolution(DefTimerResolution{TicksPerSecond: 1e9})
	if err := w.Write(&rec); err != nil {
		tb.Fatal(err)
	}
	per := events / procs
	t := uint64(1000)
	// Interleave processes round by round so every file stays time-sorted.
	for i := 0; i < per; i += 8 {
		t += 1000
		for k := range 8 {
			for p := uint32(1); p <= uint32(procs); p++ {
				rec.Process = p
				peer := p%uint32(procs) + 1
				rec.Time = t + uint64(k)*97 + uint64(p)
				switch k {
				case 0:
					rec.SetEnter(Enter{Function: 2})
				case 1:
					rec.SetCounter(Counter{Counter: 1, Value: uint64(i) * 1234567})
				case 2:
					rec.SetLeave(Leave{Function: 2})
				case 3:
					rec.SetEnter(Enter{Function: 3, Source: 7})
				case 4:
					rec.SetSend(Send{Receiver: peer, Length: 8 << (i % 10), Tag: uint32(i % 32), Communicator: 1})
				case 5:
					rec.SetReceive(Receive{Sender: peer, Length: 8 << (i % 10), Tag: uint32(i % 32), Communicator: 1})
				case 6:
					rec.SetLeave(Leave{Function: 3})
				case 7:
					rec.SetCollOp(CollOp{CollOp: 1, Communicator: 1, Sent: 8, Received: 8, Duration: 55})
				}
				if err := w.Write(&rec); err != nil {
					tb.Fatal(err)
				}
			}
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return fsys
}

// openMerged opens the trace genTrace wrote into fsys and returns a
// merged reader of it, closed when the test ends.
func openMerged(tb testing.TB, fsys fs.FS) *TraceReader {
	tb.Helper()
	tc, err := OpenFS(fsys, "bench.otf", nil)
	if err != nil {
		tb.Fatal(err)
	}
	r, err := tc.NewReader(nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { r.Close() })
	return r
}

type mapFile struct {
	bytes.Buffer
	name string
	fs   fstest.MapFS
}

func (f *mapFile) Close() error {
	f.fs[f.name] = &fstest.MapFile{Data: bytes.Clone(f.Bytes())}
	return nil
}

var (
	benchOnce  [2]sync.Once
	benchFS    [2]fstest.MapFS
	benchBytes [2]int64
)

const benchEvents = 10_000_000

// benchTrace returns the shared 8-stream benchmark trace (plain or zlib)
// and the size of its events text.
func benchTrace(b *testing.B, zlib bool) (fstest.MapFS, int64) {
	i := 0
	if zlib {
		i = 1
	}
	benchOnce[i].Do(func() {
		benchFS[i] = genTrace(b, 8, 8, benchEvents, zlib)
		plain := benchFS[0]
		if zlib {
			plain = genTrace(b, 8, 8, benchEvents, false)
		}
		for name, f := range plain {
			if bytes.HasSuffix([]byte(name), []byte(".events")) {
				benchBytes[i] += int64(len(f.Data))
			}
		}
	})
	return benchFS[i], benchBytes[i]
}

func benchGlobal(b *testing.B, zlib bool) {
	fsys, size := benchTrace(b, zlib)
	tr := openMerged(b, fsys)
	var n int64
	pass := func() {
		if err := tr.Reset(); err != nil {
			b.Fatal(err)
		}
		for tr.Next() {
			n++
		}
		if err := tr.Err(); err != nil {
			b.Fatal(err)
		}
	}
	pass() // warm up: every buffer reaches its size
	n = 0
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		pass()
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkGlobalRead reads every event of a generated 8-stream trace of
// about 10 M events, merged by time, with one TraceReader rewound by
// Reset for each pass. SetBytes is the events text size (also for zlib,
// so MB/s compare).
func BenchmarkGlobalRead(b *testing.B) {
	b.Run("plain", func(b *testing.B) { benchGlobal(b, false) })
	b.Run("zlib", func(b *testing.B) { benchGlobal(b, true) })
}

// BenchmarkParallelStreams reads the 8 streams of the benchmark trace in
// 8 goroutines, one Reader each (no merge).
func BenchmarkParallelStreams(b *testing.B) {
	for _, zlib := range []bool{false, true} {
		b.Run(map[bool]string{false: "plain", true: "zlib"}[zlib], func(b *testing.B) {
			fsys, size := benchTrace(b, zlib)
			t, err := OpenFS(fsys, "bench.otf", nil)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(size)
			b.ReportAllocs()
			var total int64
			start := time.Now()
			for b.Loop() {
				counts := make([]int64, len(t.Streams))
				errs := make([]error, len(t.Streams))
				var wg sync.WaitGroup
				for i, s := range t.Streams {
					wg.Add(1)
					go func() {
						defer wg.Done()
						r, err := t.OpenReader(s.ID, FileEvents, nil)
						if err != nil {
							errs[i] = err
							return
						}
						defer r.Close()
						// Count in a local: goroutines incrementing
						// neighbouring elements of counts would share a
						// cache line and measure its ping-pong.
						var n int64
						for r.Next() {
							n++
						}
						counts[i], errs[i] = n, r.Err()
					}()
				}
				wg.Wait()
				for i := range counts {
					if errs[i] != nil {
						b.Fatal(errs[i])
					}
					total += counts[i]
				}
			}
			b.ReportMetric(float64(total)/time.Since(start).Seconds(), "records/s")
		})
	}
}

// BenchmarkFloor only counts the line feeds of the plain events text: the
// lower bound of any line reader.
func BenchmarkFloor(b *testing.B) {
	fsys, size := benchTrace(b, false)
	var files [][]byte
	for name, f := range fsys {
		if bytes.HasSuffix([]byte(name), []byte(".events")) {
			files = append(files, f.Data)
		}
	}
	b.SetBytes(size)
	b.ReportAllocs()
	var n int
	for b.Loop() {
		for _, d := range files {
			r := bytes.NewReader(d)
			buf := make([]byte, 64<<10)
			for {
				k, err := r.Read(buf)
				n += bytes.Count(buf[:k], []byte{'\n'})
				if err != nil {
					break
				}
			}
		}
	}
	_ = n
}

// BenchmarkReader reads one stream file with a Reader.
func BenchmarkReader(b *testing.B) {
	fsys, _ := benchTrace(b, false)
	data := fsys["bench.1.events"].Data
	src := bytes.NewReader(data)
	r, err := NewReader(src, &ReaderOptions{File: FileEvents})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		src.Reset(data)
		r.Reset(src)
		for r.Next() {
		}
		if r.Err() != nil {
			b.Fatal(r.Err())
		}
	}
}

// BenchmarkWriter writes the events of one stream.
func BenchmarkWriter(b *testing.B) {
	fsys, _ := benchTrace(b, false)
	data := fsys["bench.1.events"].Data
	var recs []*Record
	r, _ := NewReader(bytes.NewReader(data), &ReaderOptions{File: FileEvents})
	for r.Next() && len(recs) < 100000 {
		recs = append(recs, r.Record().Clone())
	}
	b.ReportAllocs()
	var n int64
	for b.Loop() {
		w, _ := NewWriter(io.Discard, nil)
		for _, rec := range recs {
			if err := w.Write(rec); err != nil {
				b.Fatal(err)
			}
		}
		w.Close()
		n += int64(len(recs))
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "records/s")
}

// endless cycles a small valid event stream forever.
type endless struct {
	data []byte
	off  int
}

func (e *endless) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		k := copy(p[n:], e.data[e.off:])
		n += k
		e.off = (e.off + k) % len(e.data)
	}
	return n, nil
}

func TestAllocs(t *testing.T) {
	data := []byte("1\n*1\nK1Y6V7\nK2YbV0102L2\nE1X2\nS3L400T2aC3e8X34\nCNT1fV1e8480\n2\n*2\nL\nCOPB15H65C3e8RTffffffffS0R0\n")
	r, err := NewReader(&endless{data: data}, &ReaderOptions{File: FileEvents})
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		r.Next()
	}
	if n := testing.AllocsPerRun(1000, func() { r.Next() }); n != 0 {
		t.Fatalf("Reader.Next allocates %.1f times per record; want 0", n)
	}
	zdata := compressForTest(t, bytes.Repeat(data, 2000))
	zr, err := NewReader(bytes.NewReader(zdata), &ReaderOptions{File: FileEvents, Zlib: true})
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		zr.Next()
	}
	if n := testing.AllocsPerRun(1000, func() { zr.Next() }); n != 0 {
		t.Fatalf("zlib Reader.Next allocates %.1f times per record; want 0", n)
	}
	w, _ := NewWriter(io.Discard, nil)
	var rec Record
	rec.SetSend(Send{Receiver: 3, Length: 1024})
	rec.SetKeyValues([]KeyValue{{Key: 1, Type: TypeUint32, Value: 5}, {Key: 2, Type: TypeByteArray, Bytes: make([]byte, 150)}})
	if n := testing.AllocsPerRun(1000, func() { rec.Time++; w.Write(&rec) }); n != 0 {
		t.Fatalf("Writer.Write allocates %.1f times per record; want 0", n)
	}
	g := openMerged(t, genTrace(t, 3, 5, 50000, false))
	for range 100 {
		g.Next()
	}
	if n := testing.AllocsPerRun(1000, func() { g.Next() }); n != 0 {
		t.Fatalf("TraceReader.Next allocates %.1f times per record; want 0", n)
	}
	if !g.Next() {
		t.Fatal(fmt.Errorf("trace too short: %v", g.Err()))
	}
}
