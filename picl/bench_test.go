package picl_test

import (
	"bytes"
	"slices"
	"sync"
	"testing"

	"github.com/hpctrace/hpctrace/internal/benchtrace"
	"github.com/hpctrace/hpctrace/picl"
)

// benchTrace builds (once) the ~100 MB trace the reader benchmarks use.
var benchTrace = sync.OnceValue(func() []byte { return genTrace(100 << 20) })

// genTrace builds a trace of about size bytes in memory, the benchmark
// trace of package benchtrace (also what the side-by-side harness reads).
func genTrace(size int) []byte {
	var buf bytes.Buffer
	buf.Grow(size)
	if err := benchtrace.PICL(&buf, int64(size)); err != nil {
		panic(err) // a bytes.Buffer does not fail
	}
	return buf.Bytes()
}

// BenchmarkReader reads the generated trace with Next, touching every
// record's type.
func BenchmarkReader(b *testing.B) { benchRead(b, benchTrace()) }

// benchRead reads data with one Reader, rewound with Reset before each
// pass, touching every record's type. An untimed first pass grows the
// reader's value buffer and fills its descriptor cache.
func benchRead(b *testing.B, data []byte) {
	src := bytes.NewReader(data)
	r, err := picl.NewReader(src, nil)
	if err != nil {
		b.Fatal(err)
	}
	for r.Next() {
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		src.Reset(data)
		r.Reset(src)
		for r.Next() {
			n += int(r.Record().Type)
		}
		if err := r.Err(); err != nil {
			b.Fatal(err)
		}
	}
	_ = n
}

// BenchmarkReaderOrder reads the records of the benchmark trace in three
// orders: as generated (record kinds at random, as when many processors'
// records are merged by time), cycling through the kinds, and grouped by
// kind. The work per record is the same; the differences are the cost of
// branches that depend on a record's kind (its count, its values' number
// and lengths), which a CPU predicts in the last two orders and not in the
// first.
func BenchmarkReaderOrder(b *testing.B) {
	lines := bytes.SplitAfter(benchTrace(), []byte("\n"))
	lines = lines[:len(lines)-1]    // the empty rest after the last line feed
	kind := func(l []byte) string { // record and event type
		f := bytes.Fields(l)
		return string(f[0]) + " " + string(f[1])
	}
	var kinds []string
	byKind := map[string][][]byte{}
	for _, l := range lines {
		k := kind(l)
		if byKind[k] == nil {
			kinds = append(kinds, k)
		}
		byKind[k] = append(byKind[k], l)
	}
	slices.Sort(kinds)
	var cyclic, grouped [][]byte
	for i := 0; len(cyclic) < len(lines); i++ {
		for _, k := range kinds {
			if i < len(byKind[k]) {
				cyclic = append(cyclic, byKind[k][i])
			}
		}
	}
	for _, k := range kinds {
		grouped = append(grouped, byKind[k]...)
	}
	for _, order := range []struct {
		name  string
		lines [][]byte
	}{{"random", lines}, {"cyclic", cyclic}, {"grouped", grouped}} {
		data := bytes.Join(order.lines, nil)
		b.Run(order.name, func(b *testing.B) { benchRead(b, data) })
	}
}

// BenchmarkScanFloor is the floor BenchmarkReader is measured against: the
// same bytes, in memory, scanned for line feeds with bytes.IndexByte.
func BenchmarkScanFloor(b *testing.B) {
	data := benchTrace()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	lines := 0
	for b.Loop() {
		rest := data
		for {
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				break
			}
			lines++
			rest = rest[i+1:]
		}
	}
	_ = lines
}

// BenchmarkWriter writes the records of a steady mixed stream (the
// fixtures' records, as read), after one warm-up pass.
func BenchmarkWriter(b *testing.B) {
	recs := readAll(b, steadyStream(b), nil)
	var d discard
	w, err := picl.NewWriter(&d, nil)
	if err != nil {
		b.Fatal(err)
	}
	for i := range recs { // warm up the buffers and caches
		if err := w.Write(&recs[i]); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(d.n)
	b.ReportAllocs()
	for b.Loop() {
		for i := range recs {
			if err := w.Write(&recs[i]); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(recs)), "ns/record")
}

// discard counts and drops what is written to it.
type discard struct{ n int64 }

func (d *discard) Write(p []byte) (int, error) {
	d.n += int64(len(p))
	return len(p), nil
}
