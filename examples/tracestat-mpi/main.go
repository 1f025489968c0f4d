// Tracestat-mpi is tracestat under MPI: each rank of the job profiles
// its share of one trace, the ranks' statistics are reduced up a binary
// tree, and rank 0 prints the report, the same, byte for byte, as
// tracestat prints for the whole trace.
//
// Usage:
//
//	mpiexec -n P tracestat-mpi [-json] [-top n] [-scope s] [-waits=false] [-epoch n] [-v] TRACE
//	srun -n P tracestat-mpi [-json] TRACE          # under Slurm
//
// TRACE is any trace tracestat reads (OTF master file, DUMPI .meta,
// PICL .trf, hpctrace event JSON). Rank r of P profiles the r-th of P
// blocks of neighbouring locations (the locations that own a stream, an
// OTF process or a DUMPI rank, in the order of their ids, cut into P runs
// of consecutive ones; a thread goes with its rank: see
// shardstat.Blocks), so that a message between neighbours stays on one
// rank or crosses to the next, where it meets its partner low in the
// reduction tree; under l mod P (tracestat -shard) every neighbour is on
// another rank and the ends between them cross the tree up to its root.
// Each rank reads the trace's definitions itself (twice: once to cut the
// blocks), and of an OTF trace the event files of only its streams. The ranks read in epochs of time, the same for all, adapted
// to hold about n events on the busiest rank (-epoch, by default
// shardstat.EpochEvents: fewer make more and smaller exchanges, and less
// memory). After each epoch, what a rank holds that waits for locations
// of other ranks (message endpoints without their partner, with their
// operations, and pieces of collective instances) goes up a binary tree,
// in which at step s = 1, 2, 4, … the ranks r with r mod 2s == s send
// to rank r - s: each rank adopts what its children sent, matching it
// with its own, and sends on what waits outside its subtree
// (stats.Accumulator.DetachPending and AdoptPending). At the end the
// ranks' states (stats.Accumulator and stats.CallTree, saved with
// MarshalBinary) are joined up the same tree (stats.Accumulator.Join).
// A rank's memory for the statistics is its shard's statistics, their
// keys, and what is in flight between ranks in an epoch: flat in the
// trace's length.
//
// The report has the wait-state analysis, as tracestat's has (see its
// documentation; -waits=false leaves it out): each rank analyses the MPI
// calls of its locations as it reads them, and the analyzers' states
// (waitstate.Analyzer, saved with MarshalBinary) go up the final
// reduction with the statistics' and are joined (waitstate.Analyzer.Join)
// into the analysis of the whole run, which rank 0 prints. The analysis
// has no epochs: it needs to look back over the whole run (delay costs,
// the critical path), so a rank keeps its locations' log of MPI calls and
// message ends to the end, memory that grows with the trace's MPI calls,
// and the final reduction carries it. The epochs of the reading change
// nothing in the report; they are not -at or -every, which tracestat-mpi
// does not have.
//
// With -v every rank writes to stderr the events it profiled, the epochs,
// the bytes it sent (after the epochs, the largest of those, and in the
// final reduction), the seconds it spent reading (with the epochs'
// exchanges) and in the final reduction, and its peak resident memory.
//
// The program is a thin cgo binding over MPICH (MPI_Init, MPI_Comm_rank,
// MPI_Comm_size, MPI_Isend and MPI_Irecv of bytes, MPI_Iallreduce of the
// minimum of integers, MPI_Test, MPI_Finalize, MPI_Abort; a rank that
// waits for another sleeps between tests rather than spinning, which
// matters when ranks outnumber cores); it lives in a module of its own so
// that the SDK stays pure Go. A rank that fails prints the
// error and aborts the job with status 1.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"syscall"

	"github.com/hpctrace/hpctrace/examples/internal/shardstat"
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
	waits := fs.Bool("waits", true, "the wait-state analysis of MPI calls (-waits=false: the statistics only)")
	epoch := fs.Int64("epoch", shardstat.EpochEvents, "events on the busiest rank per epoch to aim at")
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
	st, fig, err := shardstat.Reduce(fs.Arg(0), world{rank, size}, max(*epoch, 1), &shardstat.Options{NoWaits: !*waits})
	if err != nil {
		return fmt.Errorf("rank %d: %w", rank, err)
	}
	if verbose {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		fmt.Fprintf(stderr, "tracestat-mpi: rank %d/%d: %d events, %d epochs, sent %d bytes (%d in epochs, largest %d; %d in the reduction), read %.3fs, reduce %.3fs, peak RSS %d KiB\n",
			rank, size, fig.Events, fig.Epochs, fig.EpochBytes+fig.FinalBytes, fig.EpochBytes, fig.MaxEpoch, fig.FinalBytes,
			fig.Read.Seconds(), fig.Reduce.Seconds(), ru.Maxrss)
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
