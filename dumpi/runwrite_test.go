package dumpi

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// testCall builds a call of args at wall time ns … ns+1000 (with statuses,
// wall time and a thread index in the mask).
func testCall(ns int64, args Args) *Call {
	c := &Call{Mask: 0x4B}
	c.Wall = Span{StartSec: uint16(ns / 1e9), StartNsec: uint32(ns % 1e9),
		StopSec: uint16((ns + 1000) / 1e9), StopNsec: uint32((ns + 1000) % 1e9)}
	c.SetArgs(args)
	return c
}

// A runSpec describes a run to write with the Writer.
type runSpec struct {
	prefix string
	ranks  [][]Args              // each rank's calls, 1 ms apart
	header func(rank int) Header // nil: version 13.0.0 on host node0
	footer *Footer               // nil: counted by the Writer
	names  []FunctionName        // every rank's function-address table
	tweak  func(rank int, c *Call)
}

// writeRun writes a run with the Writer: one file per element of ranks,
// its calls numbered in time 1 ms apart, MPI_INT of 4 bytes, MPI_DOUBLE of
// 8, and the .meta file, whose path it returns.
func writeRun(t testing.TB, dir, prefix string, ranks [][]Args, _ []string) string {
	t.Helper()
	return writeSpec(t, dir, &runSpec{prefix: prefix, ranks: ranks})
}

// writeRunFooter is writeRun with the given footer in every rank's file.
func writeRunFooter(t testing.TB, dir, prefix string, ranks [][]Args, ft *Footer) string {
	t.Helper()
	return writeSpec(t, dir, &runSpec{prefix: prefix, ranks: ranks, footer: ft})
}

func writeSpec(t testing.TB, dir string, spec *runSpec) string {
	t.Helper()
	sizes := make([]int32, 28)
	sizes[MPI_INT] = 4
	sizes[MPI_DOUBLE] = 8
	var h0 Header
	for r, calls := range spec.ranks {
		var buf bytes.Buffer
		opts := &WriterOptions{DatatypeSizes: sizes, Footer: spec.footer, FunctionNames: spec.names}
		opts.Header = Header{Version: Version{13, 0, 0}, StartTime: 1795521600, Host: "node0", User: "dumpiuser"}
		if spec.header != nil {
			opts.Header = spec.header(r)
		}
		if r == 0 {
			h0 = opts.Header
		}
		w, err := NewWriter(&buf, opts)
		if err != nil {
			t.Fatal(err)
		}
		for i, a := range calls {
			c := testCall(int64(i+1)*1000_000, a)
			if spec.tweak != nil {
				spec.tweak(r, c)
			}
			if err := w.Write(c); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		m := Meta{FilePrefix: spec.prefix}
		if err := os.WriteFile(filepath.Join(dir, m.RankFile(r)), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := &Meta{Hostname: h0.Host, NumProcs: len(spec.ranks), Username: h0.User, StartTime: int64(h0.StartTime),
		FilePrefix: spec.prefix, Version: h0.Version}
	var b bytes.Buffer
	m.WriteTo(&b)
	meta := filepath.Join(dir, filepath.Base(spec.prefix)+".meta")
	if err := os.WriteFile(meta, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return meta
}
