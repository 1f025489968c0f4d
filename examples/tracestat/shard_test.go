package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace/dumpi"
)

// shardFixtures are traces of every format on which sharded runs must
// print what one run prints.
var shardFixtures = []string{
	"../../eventjson/testdata/fig12.json",
	"../../eventjson/testdata/appendix_a.json",
	"../../picl/testdata/ring4.trf",
	"../../picl/testdata/appendix_a.trf",
	"../../dumpi/testdata/minimal/*.meta",
	"../../dumpi/testdata/collectives/*.meta",
	"../../dumpi/testdata/p2p_nonblocking/*.meta",
	// Its user regions are defined by the events (Function_enter).
	"../../dumpi/testdata/annotations/*.meta",
	// Communicators of every constructor, an intercommunicator barrier.
	"../../dumpi/testdata/derived_comms/*.meta",
	"../../dumpi/testdata/bgp_comm_create/*.meta",
	"../../dumpi/testdata/comm_topo/*.meta",
	"../../dumpi/testdata/cray_empty_arrays/*.meta",
	"../../dumpi/testdata/datatypes/*.meta",
	"../../dumpi/testdata/mpiio/*.meta",
	"../../dumpi/testdata/p2p_blocking/*.meta",
	"../../dumpi/testdata/p2p_cputime_selective/*.meta",
	"../../dumpi/testdata/p2p_nostatus_walltime/*.meta",
	"../../dumpi/testdata/persistent/*.meta",
	"../../otf/testdata/minimal_ring_short/mini.otf",
	"../../otf/testdata/compat/many_processes/*.otf",
	"../../otf/testdata/all_records_long/*.otf",
	// OTF2 archives: a shard opens only its locations' event files.
	"../../otf2/testdata/c_localdefs/trace/traces.otf2",
	"../../otf2/testdata/defs_attrs/trace/traces.otf2",
	"../../otf2/testdata/minimal/trace/traces.otf2",
	"../../otf2/testdata/snapshots_markers/trace/traces.otf2",
	"../../otf2/testdata/threads_rma/trace/traces.otf2",
	"../../otf2/testdata/thumbnail/trace/traces.otf2",
	"../../otf2/testdata/unknown_records/trace/traces.otf2",
	// Messages and collectives between the ranks of an OTF2 archive, one
	// rank with two threads.
	"testdata/otf2_mpi/trace/traces.otf2",
	// Collectives on communicators of undefined membership (held to the
	// end: a JSON communicator, PICL's barriers over all processors) and
	// barriers over PICL processor subsets.
	"../../eventjson/testdata/otfprofile.json",
	"../../picl/testdata/dropped_fields.trf",
	"../../picl/testdata/subsets_stats.trf",
}

func fixturePaths(t *testing.T) []string {
	var out []string
	for _, g := range shardFixtures {
		m, err := filepath.Glob(g)
		if err != nil || len(m) != 1 {
			t.Fatalf("fixture %s: %v %v", g, m, err)
		}
		out = append(out, m[0])
	}
	return out
}

// saveShards runs tracestat -shard i/n -save for each shard of trace and
// returns the state files.
func saveShards(t *testing.T, trace string, n int) []string {
	dir := t.TempDir()
	var parts []string
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("part%d.hps", i))
		var out, errb bytes.Buffer
		if err := run([]string{"-shard", fmt.Sprintf("%d/%d", i, n), "-save", p, trace}, &out, &errb); err != nil {
			t.Fatalf("shard %d/%d of %s: %v", i, n, trace, err)
		}
		if out.Len() > 0 {
			t.Fatalf("-save printed %q", out.String())
		}
		parts = append(parts, p)
	}
	return parts
}

func TestShardMergeEqualsSerial(t *testing.T) {
	for _, trace := range fixturePaths(t) {
		for _, js := range []bool{false, true} {
			var flags []string
			if js {
				flags = []string{"-json"}
			}
			var want, errb bytes.Buffer
			if err := run(append(flags, trace), &want, &errb); err != nil {
				t.Fatalf("%s: %v", trace, err)
			}
			for n := 1; n <= 4; n++ {
				parts := saveShards(t, trace, n)
				// The order of the states does not matter.
				for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
					parts[i], parts[j] = parts[j], parts[i]
				}
				var got bytes.Buffer
				if err := run(append(append(flags, "-merge"), parts...), &got, &errb); err != nil {
					t.Fatalf("%s -merge of %d: %v", trace, n, err)
				}
				if !bytes.Equal(want.Bytes(), got.Bytes()) {
					t.Errorf("%s %v: %d shards merged differ from one run:\n%s", trace, flags, n, firstLineDiff(want.String(), got.String()))
				}
			}
		}
	}
}

func firstLineDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, la[i], lb[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d lines", len(la), len(lb))
}

func TestShardMergeErrors(t *testing.T) {
	trace := "../../eventjson/testdata/fig12.json"
	parts := saveShards(t, trace, 3)
	other := saveShards(t, "../../picl/testdata/ring4.trf", 3)
	bad := filepath.Join(t.TempDir(), "bad.hps")
	data, err := os.ReadFile(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-merge", parts[0], parts[1]}, "shards missing: 2/3"},
		{[]string{"-merge", parts[0], parts[1], parts[1]}, "given twice"},
		{[]string{"-merge", parts[0], other[1], parts[2]}, "another trace"},
		{[]string{"-merge", parts[0], bad, parts[2]}, "bad.hps"},
		{[]string{"-shard", "3/3", "-save", "x", trace}, "0 <= i < n"},
		{[]string{"-shard", "0/2", trace}, "-shard needs -save"},
		{[]string{"-at", "5", "-shard", "0/2", "-save", "x", trace}, "cannot be sharded"},
	} {
		var out, errb bytes.Buffer
		err := run(c.args, &out, &errb)
		if err == nil || !strings.Contains(err.Error()+errb.String(), c.want) {
			t.Errorf("%v: got %v, want an error with %q", c.args, err, c.want)
		}
	}
}

// writeDUMPIRun writes a DUMPI run of 4 ranks to a temporary directory and
// returns its .meta file: each rank sends to the next and receives from
// the previous, then, when threaded(rank), makes a call on thread 1, a
// send and a barrier on communicator handle 9, which no recorded call
// created (as after MPI_Comm_split_type, which DUMPI does not record).
func writeDUMPIRun(t *testing.T, threaded func(rank int) bool) string {
	t.Helper()
	dir := t.TempDir()
	meta := &dumpi.Meta{Hostname: "node", NumProcs: 4, Username: "user", StartTime: 1795521600, FilePrefix: "run"}
	for rank := range 4 {
		var b bytes.Buffer
		w, err := dumpi.NewWriter(&b, &dumpi.WriterOptions{DatatypeSizes: []int32{dumpi.MPI_INT: 4}})
		if err != nil {
			t.Fatal(err)
		}
		ns := int64(1000 * (4 - rank)) // later ranks start first
		write := func(thread uint16, a dumpi.Args) {
			c := &dumpi.Call{Mask: dumpi.MaskThread | dumpi.MaskWallTime, Thread: thread,
				Wall: dumpi.Span{StartNsec: uint32(ns), StopNsec: uint32(ns + 500)}}
			c.SetArgs(a)
			if err := w.Write(c); err != nil {
				t.Fatal(err)
			}
			ns += 1000
		}
		r := int32(rank)
		write(0, &dumpi.Init{})
		for i := range 3 {
			write(0, &dumpi.Send{Count: 4, Datatype: dumpi.MPI_INT, Dest: (r + 1) % 4, Tag: int32(i), Comm: dumpi.MPI_COMM_WORLD})
			write(0, &dumpi.Recv{Count: 4, Datatype: dumpi.MPI_INT, Source: (r + 3) % 4, Tag: int32(i), Comm: dumpi.MPI_COMM_WORLD})
		}
		if threaded(rank) {
			write(1, &dumpi.Allreduce{Count: 1, Datatype: dumpi.MPI_INT, Comm: dumpi.MPI_COMM_SELF})
			write(0, &dumpi.Send{Count: 1, Datatype: dumpi.MPI_INT, Dest: 0, Tag: 9, Comm: 9})
			write(0, &dumpi.Barrier{Comm: 9})
		}
		write(0, &dumpi.Barrier{Comm: dumpi.MPI_COMM_WORLD})
		write(0, &dumpi.Finalize{})
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, meta.RankFile(rank)), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var m bytes.Buffer
	meta.WriteTo(&m)
	name := filepath.Join(dir, "run.meta")
	if err := os.WriteFile(name, m.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// TestShardMergeDUMPIRevealed: a DUMPI run whose calls reveal definitions
// (threads, a communicator of unknown membership), on every rank or on
// rank 1 only (then the shards without rank 1 do not define them, and
// Join extends their definitions), merges to one run's report for 1 to 4
// shards.
func TestShardMergeDUMPIRevealed(t *testing.T) {
	for _, c := range []struct {
		name     string
		threaded func(rank int) bool
		locs     string
	}{
		{"every rank", func(int) bool { return true }, "8 locations"},
		{"rank 1", func(rank int) bool { return rank == 1 }, "5 locations"},
	} {
		trace := writeDUMPIRun(t, c.threaded)
		for _, js := range []bool{false, true} {
			var flags []string
			if js {
				flags = []string{"-json"}
			}
			var want, errb bytes.Buffer
			if err := run(append(flags, trace), &want, &errb); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(want.String(), c.locs) && !js {
				t.Fatalf("%s: one run: want %s:\n%s", c.name, c.locs, want.String())
			}
			for n := 1; n <= 4; n++ {
				var got bytes.Buffer
				if err := run(append(append(flags, "-merge"), saveShards(t, trace, n)...), &got, &errb); err != nil {
					t.Fatalf("%s: -merge of %d: %v", c.name, n, err)
				}
				if !bytes.Equal(want.Bytes(), got.Bytes()) {
					t.Errorf("%s %v: %d shards merged differ from one run:\n%s", c.name, flags, n, firstLineDiff(want.String(), got.String()))
				}
			}
		}
	}
}
