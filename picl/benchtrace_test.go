package picl_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/hpctrace/hpctrace/picl"
)

// TestBenchTrace checks that the benchmark trace is what BenchmarkReader
// claims to measure: well-formed records (strict reading, no flags) of
// every kind genTrace writes.
func TestBenchTrace(t *testing.T) {
	r, err := picl.NewReader(bytes.NewReader(genTrace(1<<20)), &picl.ReaderOptions{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for r.Next() {
		rec := r.Record()
		if rec.Flags != 0 {
			t.Fatalf("line %d: flags %v", r.Line(), rec.Flags)
		}
		kinds[rec.Type.String()+" "+rec.Descriptor]++
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"label 0", "entry ", "exit ", "entry 2", "exit 2", "mark 2", "user(0) 5", `stat-time "%d%lf"`} {
		if kinds[k] == 0 {
			t.Errorf("no %q records; got %v", k, kinds)
		}
	}
}

// TestCallgrind reads a 4 MB generated trace in readTrace, so that
// instruction counts can be taken on it with a stable metric on a noisy
// machine. It runs only with PICL_CALLGRIND=1:
//
//	go test -c -o picl.test ./picl
//	PICL_CALLGRIND=1 GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 valgrind --tool=callgrind \
//		--toggle-collect='*readTrace*' ./picl.test -test.run '^TestCallgrind$' -test.v
//
// and divide the collected instructions by the records it logs.
func TestCallgrind(t *testing.T) {
	if os.Getenv("PICL_CALLGRIND") == "" {
		t.Skip("set PICL_CALLGRIND=1 to run")
	}
	data := genTrace(4 << 20)
	r, err := picl.NewReader(bytes.NewReader(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	n := readTrace(r)
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d records, %d bytes", n, len(data))
}

// TestCallgrindFloor is TestCallgrind for the scan floor: it counts the
// lines of the same 4 MB trace in scanLines, as BenchmarkScanFloor does,
// so that the reader's instructions per record can be set against the
// floor's instructions per line (toggle-collect '*scanLines*').
func TestCallgrindFloor(t *testing.T) {
	if os.Getenv("PICL_CALLGRIND") == "" {
		t.Skip("set PICL_CALLGRIND=1 to run")
	}
	data := genTrace(4 << 20)
	t.Logf("%d lines, %d bytes", scanLines(data), len(data))
}

// scanLines counts the line feeds in data with bytes.IndexByte.
//
//go:noinline
func scanLines(data []byte) int {
	lines := 0
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return lines
		}
		lines++
		data = data[i+1:]
	}
}

// readTrace reads r to the end and returns the number of records.
//
//go:noinline
func readTrace(r *picl.Reader) int {
	n := 0
	for r.Next() {
		n++
	}
	return n
}
