package dumpi

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

const (
	benchRanks        = 4
	benchCallsPerRank = 400_000 // 1.6 M calls in all
)

var benchTrace = sync.OnceValues(func() ([][]byte, error) { return makeBenchTrace(benchRanks, benchCallsPerRank) })

// makeBenchTrace builds a run of ranks files in memory with the call mix
// of the fixtures: every fixture rank's calls, in turn, re-timed so the
// clocks advance, until each rank has perRank calls.
func makeBenchTrace(ranks, perRank int) ([][]byte, error) {
	bins, err := filepath.Glob("testdata/*/*-[0-9][0-9][0-9][0-9].bin")
	if err != nil {
		return nil, err
	}
	var pool []*Call
	for _, b := range bins {
		data, err := os.ReadFile(b)
		if err != nil {
			return nil, err
		}
		f, err := NewFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return nil, err
		}
		r := f.Calls()
		for r.Next() {
			pool = append(pool, r.Record().Clone())
		}
		if err := r.Err(); err != nil {
			return nil, err
		}
	}
	if len(pool) == 0 {
		return nil, errors.New("no fixture calls under testdata")
	}
	out := make([][]byte, ranks)
	for rank := range ranks {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, &WriterOptions{WallBase: 800, Header: Header{Host: "bench", User: "bench"}})
		if err != nil {
			return nil, err
		}
		ns := uint64(rank) * 1000
		for i := range perRank {
			c := *pool[(rank*len(pool)/ranks+i)%len(pool)]
			span := func() Span {
				s := Span{uint16(ns / 1e9), uint32(ns % 1e9), 0, 0}
				ns += 700
				s.StopSec, s.StopNsec = uint16(ns/1e9), uint32(ns%1e9)
				ns += 300
				return s
			}
			if c.Mask.WallTime() {
				c.Wall = span()
			}
			if c.Mask.CPUTime() {
				c.CPU = span()
			}
			if err := w.Write(&c); err != nil {
				return nil, err
			}
		}
		if err := w.Close(); err != nil {
			return nil, err
		}
		out[rank] = buf.Bytes()
	}
	return out, nil
}

func benchBytes(b *testing.B) ([][]byte, int64) {
	files, err := benchTrace()
	if err != nil {
		b.Fatal(err)
	}
	var n int64
	for _, f := range files {
		n += int64(len(f))
	}
	return files, n
}

// BenchmarkReadFileCalls reads every call of the trace through NewFile
// and File.Calls, opening the four rank files on each iteration (a few
// allocations per file, none per call).
func BenchmarkReadFileCalls(b *testing.B) {
	files, size := benchBytes(b)
	b.SetBytes(size)
	b.ReportAllocs()
	var calls, sink int64
	for b.Loop() {
		for _, data := range files {
			f, err := NewFile(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				b.Fatal(err)
			}
			r := f.Calls()
			for r.Next() {
				c := r.Record()
				sink += int64(c.Label) + c.WallStart()
				calls++
			}
			if err := r.Err(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(calls)/b.Elapsed().Seconds(), "calls/s")
	b.ReportMetric(float64(calls)/float64(b.N), "calls/op")
	_ = sink
}

// BenchmarkReadCalls reads every call of a 4-rank, 1.6 M-call trace with
// the call mix of the fixtures, decoding every argument, with one Reader
// per rank reused through Reset: the steady state, zero allocations.
func BenchmarkReadCalls(b *testing.B) {
	files, size := benchBytes(b)
	b.SetBytes(size)
	b.ReportAllocs()
	brs := make([]*bytes.Reader, len(files))
	rs := make([]*Reader, len(files))
	for i, data := range files {
		brs[i] = bytes.NewReader(data)
		r, err := NewReader(brs[i], nil)
		if err != nil {
			b.Fatal(err)
		}
		rs[i] = r
	}
	var calls, sink int64
	pass := func() {
		for i, data := range files {
			brs[i].Reset(data)
			r := rs[i]
			if err := r.Reset(brs[i]); err != nil {
				b.Fatal(err)
			}
			for r.Next() {
				c := r.Record()
				sink += int64(c.Label) + c.WallStart()
				calls++
			}
			if err := r.Err(); err != nil {
				b.Fatal(err)
			}
		}
	}
	pass() // warm up: every argument struct and slice reaches its size
	calls = 0
	for b.Loop() {
		pass()
	}
	b.ReportMetric(float64(calls)/b.Elapsed().Seconds(), "calls/s")
	b.ReportMetric(float64(calls)/float64(b.N), "calls/op")
	_ = sink
}

// BenchmarkReadRunMerged reads the same trace through the k-way merge.
func BenchmarkReadRunMerged(b *testing.B) {
	files, size := benchBytes(b)
	b.SetBytes(size)
	b.ReportAllocs()
	var calls int64
	for b.Loop() {
		rs := make([]*Reader, len(files))
		for i, data := range files {
			f, err := NewFile(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				b.Fatal(err)
			}
			rs[i] = f.Calls()
		}
		m := NewMergedReader(rs)
		for m.Next() {
			calls++
		}
		if err := m.Err(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(calls)/b.Elapsed().Seconds(), "calls/s")
}

// BenchmarkFloorScan is the floor: it only reads every byte of the same
// trace once, eight at a time (a sum of 64-bit words), with no decoding.
func BenchmarkFloorScan(b *testing.B) {
	files, size := benchBytes(b)
	b.SetBytes(size)
	b.ReportAllocs()
	var sink uint64
	for b.Loop() {
		for _, data := range files {
			var s uint64
			for len(data) >= 8 {
				s += binary.LittleEndian.Uint64(data)
				data = data[8:]
			}
			for _, c := range data {
				s += uint64(c)
			}
			sink += s
		}
	}
	_ = sink
}

// BenchmarkWriteCalls writes the trace's calls again.
func BenchmarkWriteCalls(b *testing.B) {
	files, size := benchBytes(b)
	var calls []*Call
	f, err := NewFile(bytes.NewReader(files[0]), int64(len(files[0])))
	if err != nil {
		b.Fatal(err)
	}
	for c, err := range f.Calls().All() {
		if err != nil {
			b.Fatal(err)
		}
		calls = append(calls, c.Clone())
	}
	b.SetBytes(size / int64(len(files)))
	b.ReportAllocs()
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		w, _ := NewWriter(&buf, nil)
		for _, c := range calls {
			if err := w.Write(c); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(calls))*float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}
