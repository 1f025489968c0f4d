package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fixtures are traces of every format.
var fixtures = []string{
	"../../eventjson/testdata/fig12.json",
	"../../eventjson/testdata/appendix_a.json",
	"../../picl/testdata/ring4.trf",
	"../../picl/testdata/appendix_a.trf",
	"../../dumpi/testdata/minimal/*.meta",
	"../../dumpi/testdata/collectives/*.meta",
	"../../dumpi/testdata/p2p_nonblocking/*.meta",
	"../../dumpi/testdata/annotations/*.meta",
	"../../otf/testdata/minimal_ring_short/mini.otf",
	"../../otf/testdata/compat/many_processes/*.otf",
	"../../otf/testdata/all_records_long/*.otf",
	// Collectives on communicators of undefined membership (held to the
	// end: a JSON communicator, PICL's barriers over all processors) and
	// barriers over PICL processor subsets; an intercommunicator.
	"../../eventjson/testdata/otfprofile.json",
	"../../picl/testdata/dropped_fields.trf",
	"../../picl/testdata/subsets_stats.trf",
	"../../dumpi/testdata/derived_comms/*.meta",
	// OTF2: each rank opens only its shards' event files; libotf2's
	// clock offsets, and messages and collectives between 5 ranks.
	"../../otf2/testdata/c_localdefs/trace/traces.otf2",
	"../tracestat/testdata/otf2_mpi/trace/traces.otf2",
}

// build compiles tracestat-mpi and the serial tracestat into a temporary
// directory.
func build(t *testing.T) (mpi, serial string) {
	dir := t.TempDir()
	mpi, serial = filepath.Join(dir, "tracestat-mpi"), filepath.Join(dir, "tracestat")
	for _, c := range [][]string{{"-o", mpi, "."}, {"-o", serial, "github.com/hpctrace/hpctrace/examples/tracestat"}} {
		cmd := exec.Command("go", append([]string{"build"}, c...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %v: %v\n%s", c, err, out)
		}
	}
	return mpi, serial
}

// TestMPIEqualsSerial runs tracestat-mpi under mpiexec with 1 to 4 ranks
// on every fixture format, in long and in short epochs, and compares its
// output with tracestat's.
func TestMPIEqualsSerial(t *testing.T) {
	mpiexec, err := exec.LookPath("mpiexec")
	if err != nil {
		t.Skip("mpiexec not installed (Debian: mpich)")
	}
	mpi, serial := build(t)
	for _, g := range fixtures {
		m, err := filepath.Glob(g)
		if err != nil || len(m) != 1 {
			t.Fatalf("fixture %s: %v %v", g, m, err)
		}
		trace := m[0]
		for _, flags := range [][]string{nil, {"-json"}} {
			want, err := exec.Command(serial, append(flags, trace)...).Output()
			// The JSON runs read in epochs of 50 events, so that
			// much waits for other ranks after each.
			epoch := "524288"
			if len(flags) > 0 {
				epoch = "50"
			}
			if err != nil {
				t.Fatalf("tracestat %v %s: %v", flags, trace, err)
			}
			for p := 1; p <= 4; p++ {
				cmd := exec.Command(mpiexec, append(append([]string{"-n", fmt.Sprint(p), mpi, "-v", "-epoch", epoch}, flags...), trace)...)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				got, err := cmd.Output()
				if err != nil {
					t.Fatalf("mpiexec -n %d tracestat-mpi %v %s: %v\n%s", p, flags, trace, err, stderr.String())
				}
				if !bytes.Equal(want, got) {
					t.Errorf("mpiexec -n %d tracestat-mpi %v %s differs from tracestat (%d and %d bytes)", p, flags, trace, len(got), len(want))
				}
				if n := strings.Count(stderr.String(), "sent "); n != p {
					t.Errorf("-v: %d rank lines for %d ranks:\n%s", n, p, stderr.String())
				}
			}
		}
	}
}

// TestMPIError: a trace that cannot be read aborts the job with a
// failure status and no report. (The ranks' messages reach stderr through
// mpiexec's forwarding, which may lag behind its exit.)
func TestMPIError(t *testing.T) {
	mpiexec, err := exec.LookPath("mpiexec")
	if err != nil {
		t.Skip("mpiexec not installed (Debian: mpich)")
	}
	mpi, _ := build(t)
	out, err := exec.Command(mpiexec, "-n", "2", mpi, filepath.Join(t.TempDir(), "missing.otf")).Output()
	if err == nil {
		t.Fatal("a missing trace did not fail the job")
	}
	if len(out) > 0 {
		t.Errorf("a failed job printed %q", out)
	}
}

// TestMPIWaits: on MPI traces the report of 1 and 2 ranks has the
// wait-state analysis, the same as tracestat's; with -waits=false it is
// tracestat's -waits=false report, without it.
func TestMPIWaits(t *testing.T) {
	mpiexec, err := exec.LookPath("mpiexec")
	if err != nil {
		t.Skip("mpiexec not installed (Debian: mpich)")
	}
	mpi, serial := build(t)
	for _, trace := range []string{
		"../tracestat/testdata/otf2_mpi/trace/traces.otf2",
		"../../dumpi/testdata/collectives/dumpi-2026.11.22.01.33.17.meta",
	} {
		for _, flags := range [][]string{nil, {"-json"}, {"-waits=false"}, {"-json", "-waits=false"}} {
			want, err := exec.Command(serial, append(flags, trace)...).Output()
			if err != nil {
				t.Fatalf("tracestat %v %s: %v", flags, trace, err)
			}
			hasWaits := bytes.Contains(want, []byte("Wait states (")) || bytes.Contains(want, []byte(`"wait_states"`))
			if off := strings.Contains(strings.Join(flags, " "), "-waits=false"); hasWaits == off {
				t.Fatalf("tracestat %v %s: wait states %v", flags, trace, hasWaits)
			}
			for p := 1; p <= 2; p++ {
				cmd := exec.Command(mpiexec, append(append([]string{"-n", fmt.Sprint(p), mpi, "-epoch", "20"}, flags...), trace)...)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				got, err := cmd.Output()
				if err != nil {
					t.Fatalf("mpiexec -n %d tracestat-mpi %v %s: %v\n%s", p, flags, trace, err, stderr.String())
				}
				if !bytes.Equal(want, got) {
					t.Errorf("mpiexec -n %d tracestat-mpi %v %s differs from tracestat (%d and %d bytes)", p, flags, trace, len(got), len(want))
				}
			}
		}
	}
}
