// Tracestat-mpi is tracestat under MPI: each rank of the job profiles
// its share of one trace, the ranks' statistics are reduced up a binary
// tree, and rank 0 prints the report, the same, byte for byte, as
// tracestat prints for the whole trace.
//
// Usage:
//
//	mpiexec -n P tracestat-mpi [-json] [-top n] [-scope s] [-v] TRACE
//	srun -n P tracestat-mpi [-json] TRACE          # under Slurm
//
// TRACE is any trace tracestat reads (OTF master file, DUMPI .meta,
// PICL .trf, trace-events JSON). Rank r of P profiles the locations l
// with l mod P == r (tracestat -shard r/P); each rank reads the trace's
// definitions itself, and of an OTF trace the event files of only its
// streams. In the reduction, at step s = 1, 2, 4, … the
// ranks r with r mod 2s == s send their state (stats.Accumulator and
// stats.CallTree, saved with MarshalBinary) to rank r - s, which joins
// it to its own (stats.Accumulator.Join: messages and collectives
// pending between the two halves match there). A rank's memory is its
// shard's state: the statistics' keys, not the events.
//
// With -v every rank writes to stderr the events it profiled, the bytes
// it sent in the reduction, the seconds it spent reading and reducing,
// and its peak resident memory.
//
// The program is a thin cgo binding over MPICH (MPI_Init, MPI_Comm_rank,
// MPI_Comm_size, MPI_Send and MPI_Recv of bytes, MPI_Finalize,
// MPI_Abort); it lives in a module of its own so that the SDK stays pure
// Go. A rank that fails prints the error and aborts the job with status 1.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"syscall"
	"time"

	"github.com/hpctrace/hpctrace/internal/shardstat"
)

func init() {
	// MPI is initialised for one thread: every MPI call must come from the
	// main thread, which the main goroutine keeps.
	runtime.LockOSThread()
}

func main() {
	if err := mpiInit(); err != nil {
		fmt.Fprintln(os.Stderr, "tracestat-mpi:", err)
		os.Exit(1)
	}
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "tracestat-mpi:", err)
		mpiAbort(1)
		os.Exit(1)
	}
	if err := mpiFinalize(); err != nil {
		fmt.Fprintln(os.Stderr, "tracestat-mpi:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tracestat-mpi", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var opts shardstat.ReportOptions
	var verbose bool
	fs.BoolVar(&opts.JSON, "json", false, "print the report as JSON")
	fs.IntVar(&opts.Top, "top", 15, "rows per table in the text report")
	fs.StringVar(&opts.Scope, "scope", "all", `drill-down scope: "all" or "loc<N>"`)
	fs.BoolVar(&verbose, "v", false, "per-rank figures on stderr")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("want one trace, got %d arguments", fs.NArg())
	}
	rank, err := mpiRank()
	if err != nil {
		return err
	}
	size, err := mpiSize()
	if err != nil {
		return err
	}
	t0 := time.Now()
	st, err := shardstat.Profile(fs.Arg(0), shardstat.Shard{I: rank, N: size})
	if err != nil {
		return fmt.Errorf("rank %d: %w", rank, err)
	}
	events := st.Events
	t1 := time.Now()
	sent, err := reduce(st, rank, size)
	if err != nil {
		return fmt.Errorf("rank %d: %w", rank, err)
	}
	t2 := time.Now()
	if verbose {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		fmt.Fprintf(stderr, "tracestat-mpi: rank %d/%d: %d events, sent %d bytes, read %.3fs, reduce %.3fs, peak RSS %d KiB\n",
			rank, size, events, sent, t1.Sub(t0).Seconds(), t2.Sub(t1).Seconds(), ru.Maxrss)
	}
	if rank != 0 {
		return nil
	}
	out := bufio.NewWriter(stdout)
	if err := st.WriteReport(out, &opts); err != nil {
		return err
	}
	return out.Flush()
}

// reduce joins the states of all ranks into rank 0's, up a binary tree,
// and returns the bytes this rank sent.
func reduce(st *shardstat.State, rank, size int) (int, error) {
	for step := 1; step < size; step *= 2 {
		if rank%(2*step) != 0 {
			data, err := st.MarshalBinary()
			if err != nil {
				return 0, err
			}
			return len(data), sendBytes(data, rank-step)
		}
		from := rank + step
		if from >= size {
			continue
		}
		data, err := recvBytes(from)
		if err != nil {
			return 0, err
		}
		o, err := shardstat.Decode(fmt.Sprintf("the state of rank %d", from), data)
		if err != nil {
			return 0, err
		}
		if err := st.Join(o); err != nil {
			return 0, fmt.Errorf("joining the state of rank %d: %w", from, err)
		}
	}
	return 0, nil
}
