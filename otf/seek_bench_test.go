package otf_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/hpctrace/hpctrace/otf"
)

// Benchmark traces are generated on first use under $HPCTRACE_BENCH_DIR
// (default: the system temporary directory) and reused; they are never
// committed. The ~1 GB traces are built only with HPCTRACE_BENCH_1G=1.
//
//	go test ./otf -run '^$' -bench 'Seek' -count 5 -timeout 1h
//	HPCTRACE_BENCH_1G=1 go test ./otf -run '^$' -bench 'SeekTime/' -count 5 -timeout 2h
//
// HPCTRACE_BENCH_BLOCK sets the text per flush block of the zlib traces in
// bytes (default 16384; the reference writer's default is 1048576).

const (
	benchStreams = 8
	// defaultBenchBlock is the text per full-flush block of the zlib
	// traces: the granularity of a compressed jump. The reference writer's
	// default is 1 MiB; smaller blocks make seeks cheaper and compression
	// slightly worse.
	defaultBenchBlock = 16 << 10
)

func benchBlock() int {
	if n, err := strconv.Atoi(os.Getenv("HPCTRACE_BENCH_BLOCK")); err == nil && n > 0 {
		return n
	}
	return defaultBenchBlock
}

type benchTrace struct {
	dir, stub string
	events    int
	zlib      bool
	last      uint64 // last time stamp
}

// benchSizes are the traces of the scaling table: about 10 MB, 100 MB and
// 1 GB of plain text, and the 10 M event trace of the issue (~180 MB).
func benchSizes() []int {
	s := []int{550_000, 5_500_000, 10_000_000}
	if os.Getenv("HPCTRACE_BENCH_1G") == "1" {
		s = append(s, 55_000_000)
	}
	return s
}

// genBenchTrace writes (or finds) a trace of n events on 8 streams of one
// process each: every process repeatedly enters a function, exchanges a
// message with its ring neighbour, samples a counter and leaves, with
// time steps of 1 to 50 ticks.
func genBenchTrace(b *testing.B, n int, zlib bool) *benchTrace {
	b.Helper()
	root := os.Getenv("HPCTRACE_BENCH_DIR")
	if root == "" {
		root = filepath.Join(os.TempDir(), "hpctrace-bench")
	}
	kind := "plain"
	if zlib {
		kind = "zlib"
		if benchBlock() != defaultBenchBlock {
			kind = fmt.Sprintf("zlib%d", benchBlock())
		}
	}
	bt := &benchTrace{dir: filepath.Join(root, fmt.Sprintf("ring-%d-%s", n, kind)), stub: "ring", events: n, zlib: zlib}
	done := filepath.Join(bt.dir, "complete")
	if data, err := os.ReadFile(done); err == nil {
		bt.last, err = strconv.ParseUint(string(data), 10, 64)
		if err == nil {
			return bt
		}
	}
	if err := os.MkdirAll(bt.dir, 0o755); err != nil {
		b.Fatal(err)
	}
	files := make([]*os.File, benchStreams)
	writers := make([]*otf.Writer, benchStreams)
	var master []otf.Stream
	for s := range benchStreams {
		id := uint32(s + 1)
		f, err := os.Create(filepath.Join(bt.dir, otf.FileName(bt.stub, id, otf.FileEvents, zlib)))
		if err != nil {
			b.Fatal(err)
		}
		files[s] = f
		w, err := otf.NewWriter(f, &otf.WriterOptions{Zlib: zlib, ZlibBlockSize: benchBlock()})
		if err != nil {
			b.Fatal(err)
		}
		writers[s] = w
		master = append(master, otf.Stream{ID: id, Processes: []uint32{id}})
	}
	if err := os.WriteFile(filepath.Join(bt.dir, bt.stub+".otf"), otf.AppendMaster(nil, master), 0o644); err != nil {
		b.Fatal(err)
	}
	rec := new(otf.Record)
	seed := uint64(1)
	rnd := func(k uint64) uint64 { // xorshift: deterministic traces
		seed ^= seed << 13
		seed ^= seed >> 7
		seed ^= seed << 17
		return seed % k
	}
	per := n / benchStreams
	var last uint64
	for s := range benchStreams {
		p := uint32(s + 1)
		peer := uint32((s+1)%benchStreams + 1)
		tm := uint64(1000)
		text := 0
		for i := range per {
			tm += 1 + rnd(50)
			switch i % 6 {
			case 0:
				rec.SetEnter(otf.Enter{Function: uint32(1 + rnd(20))})
			case 1:
				rec.SetSend(otf.Send{Receiver: peer, Length: 1024, Tag: 7, Communicator: 1})
			case 2:
				rec.SetReceive(otf.Receive{Sender: peer, Length: 1024, Tag: 7, Communicator: 1})
			case 3:
				rec.SetCounter(otf.Counter{Counter: 1, Value: rnd(1 << 40)})
			case 4:
				rec.SetEnter(otf.Enter{Function: 21})
			default:
				rec.SetLeave(otf.Leave{})
			}
			rec.Time, rec.Process = tm, p
			if err := writers[s].Write(rec); err != nil {
				b.Fatal(err)
			}
			text += 20
			if zlib && text >= benchBlock() {
				text = 0
				if err := writers[s].Flush(); err != nil {
					b.Fatal(err)
				}
			}
		}
		if err := writers[s].Close(); err != nil {
			b.Fatal(err)
		}
		if err := files[s].Close(); err != nil {
			b.Fatal(err)
		}
		last = max(last, tm)
	}
	bt.last = last
	if err := os.WriteFile(done, []byte(strconv.FormatUint(last, 10)), 0o644); err != nil {
		b.Fatal(err)
	}
	return bt
}

func (bt *benchTrace) size(b *testing.B) int64 {
	var n int64
	for s := range benchStreams {
		fi, err := os.Stat(filepath.Join(bt.dir, otf.FileName(bt.stub, uint32(s+1), otf.FileEvents, bt.zlib)))
		if err != nil {
			b.Fatal(err)
		}
		n += fi.Size()
	}
	return n
}

func benchName(bt *benchTrace, size int64) string {
	kind := "plain"
	if bt.zlib {
		kind = fmt.Sprintf("zlib/block=%d", benchBlock())
	}
	return fmt.Sprintf("%s/events=%d/MB=%d", kind, bt.events, size>>20)
}

// BenchmarkSeekTime measures one SeekTime of the merged reader of an
// 8-stream trace to a random time, without reading records: time and
// bytes read per seek (B/seek), for the log-scaling table.
func BenchmarkSeekTime(b *testing.B) { benchSeekTime(b, nil) }

// BenchmarkSeekTimeMmap is BenchmarkSeekTime with the files mapped
// (OpenOptions.Mmap).
func BenchmarkSeekTimeMmap(b *testing.B) { benchSeekTime(b, &otf.OpenOptions{Mmap: true}) }

func benchSeekTime(b *testing.B, o *otf.OpenOptions) {
	for _, zlib := range []bool{false, true} {
		for _, n := range benchSizes() {
			bt := genBenchTrace(b, n, zlib)
			size := bt.size(b)
			b.Run(benchName(bt, size), func(b *testing.B) {
				tc, err := otf.Open(filepath.Join(bt.dir, bt.stub+".otf"), o)
				if err != nil {
					b.Fatal(err)
				}
				tr, err := tc.NewReader(nil)
				if err != nil {
					b.Fatal(err)
				}
				defer tr.Close()
				b.ReportAllocs()
				seed := uint64(12345)
				var seeks, read int64
				for b.Loop() {
					seed = seed*6364136223846793005 + 1442695040888963407
					t := 1000 + (seed>>11)%(bt.last-1000)
					before := tr.BytesRead()
					if err := tr.SeekTime(t); err != nil {
						b.Fatal(err)
					}
					read += tr.BytesRead() - before
					seeks++
				}
				b.ReportMetric(float64(read)/float64(seeks), "B/seek")
			})
		}
	}
}

// BenchmarkSeekTail is the scenario: seek the merged reader of an
// 8-stream trace of about 10 M events to the last 1 % of its time range and
// read to the end. It reports the bytes read by the seek (B/seek) and in
// total (B/op-read); SetBytes is the total, so MB/s is the read rate.
func BenchmarkSeekTail(b *testing.B) {
	for _, zlib := range []bool{false, true} {
		bt := genBenchTrace(b, 10_000_000, zlib)
		size := bt.size(b)
		b.Run(benchName(bt, size), func(b *testing.B) {
			tc, err := otf.OpenFS(os.DirFS(bt.dir), bt.stub+".otf", nil)
			if err != nil {
				b.Fatal(err)
			}
			t := 1000 + (bt.last-1000)/100*99
			var seekBytes, total, records int64
			b.ReportAllocs()
			for b.Loop() {
				tr, err := tc.NewReader(nil)
				if err != nil {
					b.Fatal(err)
				}
				if err := tr.SeekTime(t); err != nil {
					b.Fatal(err)
				}
				seekBytes = tr.BytesRead()
				records = 0
				for tr.Next() {
					records++
				}
				if err := tr.Err(); err != nil {
					b.Fatal(err)
				}
				total = tr.BytesRead()
				tr.Close()
			}
			if records < int64(bt.events)/200 {
				b.Fatalf("read %d records after the seek; want about 1 %% of %d", records, bt.events)
			}
			b.SetBytes(total)
			b.ReportMetric(float64(seekBytes), "B/seek")
			b.ReportMetric(float64(total), "B/op-read")
		})
	}
}
