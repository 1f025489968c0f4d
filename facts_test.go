package hpctrace

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace/model"
)

// TestLocationFacts: every format's adapter says in the model what
// programs used to learn by asking which format they had (model.Location's
// MPI and Stream, model.Defs.ByRank, model.CommReporter), from fixtures of
// each format package's testdata.
func TestLocationFacts(t *testing.T) {
	type loc struct {
		Name            string
		Process, Thread int32
		MPI             bool
		Stream          model.LocID
	}
	for _, c := range []struct {
		file     string
		locs     []loc
		byRank   bool
		reporter bool // the source is a model.CommReporter
	}{
		// DUMPI: every location is an MPI rank in its own stream.
		{"dumpi/testdata/p2p_blocking/dumpi-2026.11.22.01.32.56.meta",
			[]loc{{"rank 0", 0, 0, true, 1}, {"rank 1", 1, 0, true, 2}}, true, true},
		{"dumpi/testdata/p2p_blocking/dumpi-2026.11.22.01.32.56-0001.bin",
			[]loc{{"rank 1", 1, 0, true, 1}}, true, true},
		// OTF2: the MPI world's location groups at their rank, with their
		// threads; events in a file per location.
		{"otf2/testdata/nbcoll/trace/traces.otf2",
			[]loc{{"Master thread", 0, 0, true, 0}, {"Master thread", 1, 0, true, 0}, {"Master thread", 2, 0, true, 0}}, false, false},
		{"otf2/testdata/threads_rma/trace/traces.otf2",
			[]loc{{"OMP thread 0", 0, 0, true, 0}, {"OMP thread 1", 0, 1, true, 0}, {"OMP thread 2", 0, 2, true, 0}, {"OMP thread 3", 0, 3, true, 0},
				{"OMP thread 0", 1, 0, true, 0}}, false, false},
		// An archive of threads and no MPI.
		{"otf2/testdata/compat/apex_renamed/trace/traces.otf2",
			[]loc{{"worker-thread#0", 0, 0, false, 0}, {"worker-thread#1", 0, 1, false, 0}, {"worker-thread#2", 0, 2, false, 0}}, false, false},
		// OTF: the processes MPI_COMM_WORLD lists, with their threads.
		{"otf/testdata/all_records_short/allrec.otf",
			[]loc{{"Process 0", 0, 0, true, 0}, {"Process 1", 1, 0, true, 0}, {"Process 2", 2, 0, true, 0}, {"Process 3", 3, 0, true, 0},
				{"Process 3 / Thread 1", 3, 1, true, 0}}, false, false},
		// No process group names the world.
		{"otf/testdata/edge_values_short/edge.otf",
			[]loc{{"", 0, 0, false, 0}, {"", 0, 1, false, 0}, {"", 1, 0, false, 0}, {"big token", 2, 0, false, 0}}, false, false},
		// PICL: processors (in the order they first record), not MPI ranks.
		{"picl/testdata/ring4.trf",
			[]loc{{"processor 0", 0, 0, false, 0}, {"processor 2", 2, 0, false, 0}, {"processor 1", 1, 0, false, 0}, {"processor 3", 3, 0, false, 0}}, false, false},
	} {
		tr, err := Open(c.file, nil)
		if err != nil {
			t.Fatal(err)
		}
		for tr.Next() {
		}
		if err := tr.Err(); err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		d := tr.Defs()
		var got []loc
		for _, l := range d.Locations() {
			got = append(got, loc{l.Name, l.Process, l.Thread, l.MPI, l.Stream})
		}
		if diff := cmp.Diff(c.locs, got); diff != "" {
			t.Errorf("%s: locations (-want +got):\n%s", c.file, diff)
		}
		if d.ByRank() != c.byRank {
			t.Errorf("%s: ByRank() = %v, want %v", c.file, d.ByRank(), c.byRank)
		}
		if _, ok := tr.Source().(model.CommReporter); ok != c.reporter {
			t.Errorf("%s: source %T is a model.CommReporter: %v, want %v", c.file, tr.Source(), ok, c.reporter)
		}
		tr.Close()
	}
}
