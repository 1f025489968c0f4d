package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/hpctrace/hpctrace"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf"
	"github.com/hpctrace/hpctrace/otf2"
	"github.com/hpctrace/hpctrace/waitstate"
)

// mpiRanks is the number of ranks of the generated MPI runs.
const mpiRanks = 16

// mpiWriter is what genMPI writes to: the OTF or the OTF2 model writer.
type mpiWriter interface {
	Write(ev *model.Event) error
	Close() error
}

// genMPI writes a run of an iterative MPI program on mpiRanks ranks with
// about n events in all, in the mix of point-to-point calls, messages and
// collectives that a stencil code's trace has, and the waits such a run
// has: MPI_Init, then iterations of a compute phase whose length varies
// by rank (one rank, drawn anew each iteration, is half as slow again),
// a halo exchange with both neighbours on a ring (MPI_Irecv twice,
// MPI_Isend twice, MPI_Waitall), a short local phase and an MPI_Allreduce,
// with an MPI_Barrier every tenth iteration and a blocking MPI_Send/MPI_Recv
// pair from every even rank to the next every fifth; then MPI_Finalize.
// The calls are nested in main and solve. Times are nanoseconds; the
// sequence is the same for every n and seed.
func genMPI(w mpiWriter, d *model.Defs, n int64) error {
	var locs [mpiRanks]model.LocID
	for i := range locs {
		locs[i] = d.AddLocation(model.Location{Name: fmt.Sprintf("rank %d", i), Native: int64(i), Process: int32(i)})
	}
	fn := func(name string, line int32) model.RegionID {
		return d.AddRegion(model.Region{Name: name, Kind: model.RegionFunction, Paradigm: model.ParadigmUser, File: "stencil.c", Line: line})
	}
	mpi := func(name string, k model.RegionKind) model.RegionID {
		return d.AddRegion(model.Region{Name: name, Kind: k, Paradigm: model.ParadigmMPI, Group: "MPI"})
	}
	mainR, solve, compute, pack := fn("main", 10), fn("solve", 40), fn("compute", 60), fn("pack", 80)
	initR, finalize := mpi("MPI_Init", model.RegionOther), mpi("MPI_Finalize", model.RegionOther)
	irecv, isend, waitall := mpi("MPI_Irecv", model.RegionComm), mpi("MPI_Isend", model.RegionComm), mpi("MPI_Waitall", model.RegionComm)
	send, recv := mpi("MPI_Send", model.RegionComm), mpi("MPI_Recv", model.RegionComm)
	allreduce, barrier := mpi("MPI_Allreduce", model.RegionCollective), mpi("MPI_Barrier", model.RegionCollective)
	world := d.AddComm(model.Comm{Native: 0, Name: "MPI_COMM_WORLD", Members: locs[:]})

	const perIter = 27 // events per rank and iteration, on average
	iters := max(n/(mpiRanks*perIter), 1)
	rng := rand.New(rand.NewPCG(1, 2))
	var evs [mpiRanks][]model.Event
	put := func(r int, e model.Event) { e.Loc = locs[r]; evs[r] = append(evs[r], e) }
	flush := func() error {
		for r := range evs {
			for i := range evs[r] {
				if err := w.Write(&evs[r][i]); err != nil {
					return err
				}
			}
			evs[r] = evs[r][:0]
		}
		return nil
	}
	enter := func(r int, t model.Time, reg model.RegionID) {
		put(r, model.Event{Time: t, Kind: model.KindEnter, Region: reg})
	}
	leave := func(r int, t model.Time, reg model.RegionID) {
		put(r, model.Event{Time: t, Kind: model.KindLeave, Region: reg})
	}

	// MPI_Init: the ranks start apart and leave together.
	var start [mpiRanks]model.Time
	var latest model.Time
	for r := range mpiRanks {
		start[r] = model.Time(1000 + rng.IntN(5000))
		enter(r, start[r], mainR)
		enter(r, start[r]+100, initR)
		latest = max(latest, start[r]+100)
	}
	t0 := latest + 20_000
	for r := range mpiRanks {
		leave(r, t0, initR)
		enter(r, t0+50, solve)
	}
	t0 += 100
	if err := flush(); err != nil {
		return err
	}
	var sendAt, waitEnd [mpiRanks]model.Time
	var sendLeft, sendRight [mpiRanks]model.Time
	for it := range iters {
		slow := rng.IntN(mpiRanks)
		tag := int32(it % 1000)
		// Compute, post the receives, start the sends.
		var waitEnter [mpiRanks]model.Time
		for r := range mpiRanks {
			t := t0 + model.Time(rng.IntN(200))
			work := model.Time(50_000 + rng.IntN(10_000))
			if r == slow {
				work += work / 2
			}
			enter(r, t, compute)
			t += work
			leave(r, t, compute)
			left, right := (r+mpiRanks-1)%mpiRanks, (r+1)%mpiRanks
			for i, peer := range [2]int{left, right} {
				enter(r, t+10, irecv)
				put(r, model.Event{Time: t + 20, Kind: model.KindRecvPost, Peer: locs[peer], Comm: world, Tag: tag, Match: uint64(i + 1)})
				leave(r, t+40, irecv)
				t += 40
			}
			for i, peer := range [2]int{right, left} {
				enter(r, t+10, isend)
				put(r, model.Event{Time: t + 20, Kind: model.KindSend, Peer: locs[peer], Comm: world, Tag: tag, Bytes: 65536, Match: uint64(i + 3)})
				leave(r, t+50, isend)
				if i == 0 {
					sendRight[r] = t + 10
				} else {
					sendLeft[r] = t + 10
				}
				t += 50
			}
			waitEnter[r] = t + 10
			sendAt[r] = t
		}
		// Waitall completes when both neighbours' messages have arrived.
		for r := range mpiRanks {
			left, right := (r+mpiRanks-1)%mpiRanks, (r+1)%mpiRanks
			e := waitEnter[r]
			fromLeft, fromRight := sendRight[left]+3000, sendLeft[right]+3000
			x := max(e+200, fromLeft+100, fromRight+100)
			enter(r, e, waitall)
			put(r, model.Event{Time: x - 60, Kind: model.KindRecv, Peer: locs[left], Comm: world, Tag: tag, Bytes: 65536, Match: 1})
			put(r, model.Event{Time: x - 50, Kind: model.KindRecv, Peer: locs[right], Comm: world, Tag: tag, Bytes: 65536, Match: 2})
			put(r, model.Event{Time: x - 40, Kind: model.KindSendDone, Match: 3})
			put(r, model.Event{Time: x - 30, Kind: model.KindSendDone, Match: 4})
			leave(r, x, waitall)
			waitEnd[r] = x
		}
		// Every fifth iteration, a blocking send from each even rank to
		// the next odd one, which receives it.
		if it%5 == 4 {
			for r := 0; r < mpiRanks; r += 2 {
				s, q := waitEnd[r]+100, waitEnd[r+1]+100
				enter(r, s, send)
				put(r, model.Event{Time: s + 10, Kind: model.KindSend, Peer: locs[r+1], Comm: world, Tag: 5000, Bytes: 1024})
				arrive := s + 2000
				xs := max(s+500, q+500)
				leave(r, xs, send)
				enter(r+1, q, recv)
				xr := max(q+100, arrive+100)
				put(r+1, model.Event{Time: xr - 10, Kind: model.KindRecv, Peer: locs[r], Comm: world, Tag: 5000, Bytes: 1024})
				leave(r+1, xr, recv)
				waitEnd[r], waitEnd[r+1] = xs, xr
			}
		}
		// A short local phase, then the Allreduce (and every tenth
		// iteration a barrier), which all leave together.
		latest = 0
		var collE [mpiRanks]model.Time
		for r := range mpiRanks {
			t := waitEnd[r] + 10
			enter(r, t, pack)
			t += model.Time(2000 + rng.IntN(1000))
			leave(r, t, pack)
			collE[r] = t + 10
			latest = max(latest, collE[r])
		}
		x := latest + 5000
		for r := range mpiRanks {
			enter(r, collE[r], allreduce)
			put(r, model.Event{Time: collE[r] + 5, Kind: model.KindCollBegin, Region: allreduce, Comm: world, Class: model.ClassAllToAll, Bytes: 8, Recvd: 8})
			put(r, model.Event{Time: x - 5, Kind: model.KindCollEnd})
			leave(r, x, allreduce)
		}
		t0 = x + 10
		if it%10 == 9 {
			x := t0 + 3000 + model.Time(mpiRanks)*10
			for r := range mpiRanks {
				e := t0 + model.Time(r*10)
				enter(r, e, barrier)
				put(r, model.Event{Time: e + 5, Kind: model.KindCollBegin, Region: barrier, Comm: world, Class: model.ClassBarrier})
				put(r, model.Event{Time: x - 5, Kind: model.KindCollEnd})
				leave(r, x, barrier)
			}
			t0 = x + 10
		}
		if err := flush(); err != nil {
			return err
		}
	}
	// MPI_Finalize: the ranks enter apart and leave together.
	latest = 0
	for r := range mpiRanks {
		leave(r, t0+model.Time(r), solve)
		enter(r, t0+model.Time(r)+10+model.Time(rng.IntN(3000)), finalize)
		latest = max(latest, evs[r][len(evs[r])-1].Time)
	}
	for r := range mpiRanks {
		leave(r, latest+1000, finalize)
		leave(r, latest+1100, mainR)
	}
	if err := flush(); err != nil {
		return err
	}
	return w.Close()
}

// mpiOTF2Trace returns the anchor of the generated MPI run of n events as
// an OTF2 archive.
func mpiOTF2Trace(c *config, n int64) (string, error) {
	dir := filepath.Join(c.work, fmt.Sprintf("mpi-otf2-%d", n))
	err := cached(dir, fmt.Sprintf("an OTF2 MPI run of %d events", n), func() error {
		d := &model.Defs{TimeBase: model.TimeBase{TicksPerSecond: 1e9}}
		w, err := otf2.NewModelWriter(model.DirCreator(dir), d, &otf2.ModelWriterOptions{WriterOptions: otf2.WriterOptions{Name: "mpi", Creator: "hpctrace bench"}})
		if err != nil {
			return err
		}
		return genMPI(w, d, n)
	})
	return filepath.Join(dir, "mpi.otf2"), err
}

// mpiOTFTrace returns the master file of the generated MPI run of n events
// as an OTF trace.
func mpiOTFTrace(c *config, n int64) (string, error) {
	dir := filepath.Join(c.work, fmt.Sprintf("mpi-otf-%d", n))
	err := cached(dir, fmt.Sprintf("an OTF MPI run of %d events", n), func() error {
		d := &model.Defs{TimeBase: model.TimeBase{TicksPerSecond: 1e9}}
		root, err := os.OpenRoot(dir)
		if err != nil {
			return err
		}
		defer root.Close()
		c := model.CreateFunc(func(name string) (io.WriteCloser, error) { return root.Create(name) })
		w, err := otf.NewModelWriter(c, d, &otf.ModelWriterOptions{Stub: "mpi"})
		if err != nil {
			return err
		}
		return genMPI(w, d, n)
	})
	return filepath.Join(dir, "mpi.otf"), err
}

// mpiGen writes the MPI run of genMPI in both formats under a directory:
// mpigen DIR N (DIR/mpi-otf2-N/mpi.otf2 and DIR/mpi-otf-N/mpi.otf).
func mpiGen(args []string) error {
	if len(args) != 2 {
		return errors.New("mpigen DIR EVENTS")
	}
	n, err := strconv.ParseInt(args[1], 10, 64)
	if err != nil {
		return err
	}
	c := &config{work: args[0]}
	if _, err := mpiOTF2Trace(c, n); err != nil {
		return err
	}
	_, err = mpiOTFTrace(c, n)
	return err
}

// waits reads every event of a trace into memory and then, with
// -analyze, runs the wait-state analysis over them, printing the events,
// the CPU time of the analysis alone (rusage of this process around it)
// and the events it processes per CPU second: waits [-analyze] FILE.
// Without -analyze it reads only, the floor of the pair.
func waits(args []string) error {
	fs := flag.NewFlagSet("waits", flag.ContinueOnError)
	analyze := fs.Bool("analyze", false, "run the analysis over the events read")
	prof := fs.String("cpuprofile", "", "write a CPU profile of the analysis to `file`")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("waits [-analyze] [-cpuprofile file] FILE")
	}
	t, err := hpctrace.Open(fs.Arg(0), nil)
	if err != nil {
		return err
	}
	defer t.Close()
	var evs []model.Event
	for ev, err := range model.All(t) {
		if err != nil {
			return err
		}
		evs = append(evs, *ev)
	}
	if !*analyze {
		fmt.Printf("%d events read\n", len(evs))
		return nil
	}
	var stop func()
	if *prof != "" {
		if stop, err = cpuProfile(*prof); err != nil {
			return err
		}
	}
	before := cpuSeconds()
	rep, err := waitstate.Analyze(model.NewSliceSource(t.Defs(), evs), nil)
	cpu := cpuSeconds() - before
	if stop != nil {
		stop()
	}
	if err != nil {
		return err
	}
	fmt.Printf(waitsFormat+"\n", len(evs), len(rep.WaitStates), cpu, float64(len(evs))/cpu/1e6)
	return nil
}

// waitsFormat is the line waits -analyze prints: the events, the
// wait-state rows, the CPU seconds of the analysis alone and its millions
// of events per CPU second. waitsRate reads it back.
const waitsFormat = "%d events, %d wait-state rows: analysis %.3f s CPU, %.2f M events/s"

// waitsRate returns the CPU seconds and the millions of events per CPU
// second of the analysis alone from the output of waits -analyze.
func waitsRate(out string) (cpu, rate float64, err error) {
	var events, rows int64
	_, err = fmt.Sscanf(out, strings.NewReplacer("%.3f", "%f", "%.2f", "%f").Replace(waitsFormat), &events, &rows, &cpu, &rate)
	return cpu, rate, err
}

// waitsNote is the note of the waits-rate row: the analysis' own CPU time
// and rate in pair i (the A side's output), or with i == -1 their medians
// over the pairs.
func waitsNote(a, _ []measure, i int) string {
	if i >= 0 {
		cpu, rate, err := waitsRate(a[i].out)
		if err != nil {
			return fmt.Sprintf("analysis alone: unreadable output %q", a[i].out)
		}
		return fmt.Sprintf("analysis alone %.3f s CPU, %.2f M events/s", cpu, rate)
	}
	var cpus, rates []float64
	for _, m := range a {
		if cpu, rate, err := waitsRate(m.out); err == nil {
			cpus, rates = append(cpus, cpu), append(rates, rate)
		}
	}
	if len(rates) == 0 {
		return "analysis alone: no readable output"
	}
	return fmt.Sprintf("analysis alone (%d pairs): median %.3f s CPU, %.2f M events/s [min %.2f, max %.2f]",
		len(rates), median(cpus), median(rates), slices.Min(rates), slices.Max(rates))
}

// cpuSeconds returns the user and system CPU time of this process.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}

// mpiPairs are the rows of the wait-state analysis on the generated MPI
// runs: the analysis over events in memory beside reading them (its
// output gives the analysis' events per CPU second), and tracestat with
// the analysis beside tracestat without it, on the OTF2 and the OTF run.
func mpiPairs(c *config, otf2Run, otfRun string) []pair {
	one := []string{"GOMAXPROCS=1"}
	ts := filepath.Join(c.bin, "tracestat")
	return []pair{
		{name: "waits-rate", title: "the wait-state analysis over the OTF2 MPI run's events in memory (read + analyse) ÷ reading them (read); the CPU time and events per CPU second of the analysis alone are what A says, per pair and their median",
			a:    side{"hpctrace waits -analyze", []string{c.self, "helper", "waits", "-analyze", otf2Run}, one, c.cpu, true},
			b:    side{"hpctrace waits (read only)", []string{c.self, "helper", "waits", otf2Run}, one, c.cpu, true},
			note: waitsNote},
		{name: "tracestat-waits-otf2", title: "examples/tracestat with the wait-state analysis ÷ without it (-waits=false), the OTF2 MPI run, one core",
			a: side{"examples/tracestat", []string{ts, otf2Run}, one, c.cpu, false},
			b: side{"examples/tracestat -waits=false", []string{ts, "-waits=false", otf2Run}, one, c.cpu, false}, target: 1.5, atMost: true},
		{name: "tracestat-waits-otf", title: "the same on the OTF MPI run",
			a: side{"examples/tracestat", []string{ts, otfRun}, one, c.cpu, false},
			b: side{"examples/tracestat -waits=false", []string{ts, "-waits=false", otfRun}, one, c.cpu, false}, target: 1.5, atMost: true},
	}
}
