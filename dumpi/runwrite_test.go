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

// writeRun writes a run with the Writer: one file per element of ranks,
// its calls numbered in time 1 µs apart, MPI_INT of 4 bytes, and the
// .meta file, whose path it returns. hosts, if not nil, names each rank's
// host.
func writeRun(t testing.TB, dir, prefix string, ranks [][]Args, hosts []string) string {
	t.Helper()
	return writeRunOpts(t, dir, prefix, ranks, hosts, nil)
}

// writeRunFooter is writeRun with the given footer in every rank's file.
func writeRunFooter(t testing.TB, dir, prefix string, ranks [][]Args, ft *Footer) string {
	t.Helper()
	return writeRunOpts(t, dir, prefix, ranks, nil, ft)
}

func writeRunOpts(t testing.TB, dir, prefix string, ranks [][]Args, hosts []string, ft *Footer) string {
	t.Helper()
	sizes := make([]int32, 28)
	sizes[MPI_INT] = 4
	sizes[MPI_DOUBLE] = 8
	for r, calls := range ranks {
		var buf bytes.Buffer
		opts := &WriterOptions{DatatypeSizes: sizes, Footer: ft}
		opts.Header.Host = "node0"
		if hosts != nil {
			opts.Header.Host = hosts[r]
		}
		w, err := NewWriter(&buf, opts)
		if err != nil {
			t.Fatal(err)
		}
		for i, a := range calls {
			if err := w.Write(testCall(int64(i+1)*1000_000, a)); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		m := Meta{FilePrefix: prefix}
		if err := os.WriteFile(filepath.Join(dir, m.RankFile(r)), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := &Meta{Hostname: "node0", NumProcs: len(ranks), Username: "u", StartTime: 1, FilePrefix: prefix, Version: Version{13, 0, 0}}
	var b bytes.Buffer
	m.WriteTo(&b)
	meta := filepath.Join(dir, filepath.Base(prefix)+".meta")
	if err := os.WriteFile(meta, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return meta
}
