package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf2"
)

// otf2Locs is the number of locations of the generated OTF2 archives.
const otf2Locs = 8

// genOTF2 writes the archive dir/bench.otf2 through otf2.ModelWriter:
// 8 locations (MPI ranks) with about n events in all, in rounds of
// sixteen per location (a compute function with a counter sample,
// MPI_Sendrecv with a send to the next rank and a receive from the
// previous one, MPI_Allreduce as a collective), libotf2's default chunk
// sizes.
func genOTF2(dir string, n int64) error {
	d := &model.Defs{TimeBase: model.TimeBase{TicksPerSecond: 1e9}}
	var locs [otf2Locs]model.LocID
	for i := range locs {
		locs[i] = d.AddLocation(model.Location{Name: fmt.Sprintf("rank %d", i), Process: int32(i)})
	}
	compute := d.AddRegion(model.Region{Name: "compute", Kind: model.RegionFunction, File: "bench.c", Line: 10})
	sendrecv := d.AddRegion(model.Region{Name: "MPI_Sendrecv", Kind: model.RegionComm, Group: "MPI"})
	allreduce := d.AddRegion(model.Region{Name: "MPI_Allreduce", Kind: model.RegionCollective, Group: "MPI"})
	world := d.AddComm(model.Comm{Name: "MPI_COMM_WORLD", Members: locs[:]})
	cycles := d.AddCounter(model.Counter{Name: "cycles", Unit: "#", Accumulating: true})
	w, err := otf2.NewModelWriter(model.DirCreator(dir), d, &otf2.ModelWriterOptions{WriterOptions: otf2.WriterOptions{Name: "bench", Creator: "hpctrace bench"}})
	if err != nil {
		return err
	}
	const perRound = 16
	rounds := max(n/(otf2Locs*perRound), 1)
	for i, l := range locs {
		next, prev := locs[(i+1)%otf2Locs], locs[(i+otf2Locs-1)%otf2Locs]
		t := model.Time(1000 + i)
		ev := func(e model.Event) error {
			t += 10
			e.Time, e.Loc = t, l
			return w.Write(&e)
		}
		for r := range rounds {
			tag := int32(r % 64)
			for _, e := range []model.Event{
				{Kind: model.KindEnter, Region: compute},
				{Kind: model.KindCounter, Counter: cycles, Value: r * 1000},
				{Kind: model.KindLeave, Region: compute},
				{Kind: model.KindEnter, Region: sendrecv},
				{Kind: model.KindSend, Peer: next, Comm: world, Tag: tag, Bytes: 4096},
				{Kind: model.KindRecv, Peer: prev, Comm: world, Tag: tag, Bytes: 4096},
				{Kind: model.KindLeave, Region: sendrecv},
				{Kind: model.KindEnter, Region: compute},
				{Kind: model.KindCounter, Counter: cycles, Value: r*1000 + 500},
				{Kind: model.KindLeave, Region: compute},
				{Kind: model.KindEnter, Region: allreduce},
				{Kind: model.KindCollBegin, Region: allreduce, Comm: world, Class: model.ClassAllToAll, Bytes: 8, Recvd: 8},
				{Kind: model.KindCollEnd},
				{Kind: model.KindLeave, Region: allreduce},
				{Kind: model.KindEnter, Region: compute},
				{Kind: model.KindLeave, Region: compute},
			} {
				if err := ev(e); err != nil {
					w.Close()
					return err
				}
			}
		}
	}
	return w.Close()
}

// otf2Trace returns the anchor of the generated archive of n events.
func otf2Trace(c *config, n int64) (string, error) {
	dir := filepath.Join(c.work, fmt.Sprintf("otf2-%d", n))
	err := cached(dir, fmt.Sprintf("an OTF2 archive of %d events", n), func() error { return genOTF2(dir, n) })
	return filepath.Join(dir, "bench.otf2"), err
}

// buildOTF2 compiles examples/otf2print and the libotf2 reader benchmark
// bench/c/bench_otf2.c (Debian's libotf2-trace-dev, through otf2-config).
func buildOTF2(c *config) error {
	cmd := exec.Command("go", "build", "-o", filepath.Join(c.bin, "otf2print"), "./examples/otf2print")
	cmd.Dir, cmd.Stderr = c.root, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build ./examples/otf2print: %w", err)
	}
	flags, err := exec.Command("otf2-config", "--cflags", "--libs").Output()
	if err != nil {
		return fmt.Errorf("otf2-config (package libotf2-trace-dev): %w", err)
	}
	args := append([]string{"-O2", "-o", filepath.Join(c.bin, "bench_otf2"), filepath.Join(c.root, "bench", "c", "bench_otf2.c")}, strings.Fields(string(flags))...)
	cmd = exec.Command("cc", args...)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("cc bench_otf2.c: %w", err)
	}
	return nil
}

// otf2Pairs are the OTF2 rows: the merged reader beside libotf2's global
// event reader, and examples/otf2print beside otf2-print.
func otf2Pairs(c *config, anchor string) []pair {
	one := []string{"GOMAXPROCS=1"}
	return []pair{
		{name: "otf2-read", title: "OTF2 full read, every location merged in otf2-print's order, every event decoded ÷ libotf2's OTF2_GlobalEvtReader with no-op callbacks (bench_otf2)",
			a: side{"hpctrace otf2read", []string{c.self, "helper", "otf2read", anchor}, one, c.cpu, true},
			b: side{"bench_otf2", []string{filepath.Join(c.bin, "bench_otf2"), anchor}, nil, c.cpu, true}, target: 0.2, atMost: true},
		{name: "otf2-model", title: "the OTF2 model adapter alone (otf2.NewModelSource: OTF2 → model.Events, every field of each event summed) ÷ bench_otf2; no target",
			a: side{"hpctrace otf2model", []string{c.self, "helper", "otf2model", anchor}, one, c.cpu, true},
			b: side{"bench_otf2", []string{filepath.Join(c.bin, "bench_otf2"), anchor}, nil, c.cpu, true}},
		{name: "otf2print", title: "examples/otf2print ÷ otf2-print, every event to /dev/null (outputs identical)",
			a: side{"examples/otf2print", []string{filepath.Join(c.bin, "otf2print"), anchor}, one, c.cpu, false},
			b: side{"otf2-print", []string{"otf2-print", anchor}, nil, c.cpu, false}, target: 0.25, atMost: true, same: true},
	}
}

// otf2Gen writes the archive of genOTF2 into a directory: otf2gen DIR N.
func otf2Gen(args []string) error {
	if len(args) != 2 {
		return errors.New("otf2gen DIR EVENTS")
	}
	n, err := strconv.ParseInt(args[1], 10, 64)
	if err != nil {
		return err
	}
	return genOTF2(args[0], n)
}

// otf2Read reads every event of an archive through the merged reader's
// batches (with -next, one event at a time through Next), touching each
// event's time, kind, location and first field, and prints the count.
func otf2Read(args []string) error {
	fs := flag.NewFlagSet("otf2read", flag.ContinueOnError)
	next := fs.Bool("next", false, "read through MergedReader.Next instead of NextBatch")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("otf2read [-next] ANCHOR.otf2")
	}
	a, err := otf2.Open(fs.Arg(0), nil)
	if err != nil {
		return err
	}
	defer a.Close()
	mr, err := a.MergedReader(nil)
	if err != nil {
		return err
	}
	defer mr.Close()
	var n, sum uint64
	if *next {
		for mr.Next() {
			ev := mr.Record()
			sum += ev.Time + uint64(ev.Kind) + ev.Location + ev.Value(0)
			n++
		}
	} else {
		var b otf2.Batch
		for mr.NextBatch(&b) {
			k := b.Len()
			for i := range k {
				ev := b.At(i)
				v := ev.Vals[0]
				if !ev.Compact() {
					v = b.Full(i).Value(0)
				}
				sum += ev.Time + uint64(ev.Kind) + ev.Location + v
			}
			n += uint64(k)
		}
	}
	if err := mr.Err(); err != nil {
		return err
	}
	fmt.Printf("%d events, %d locations (checksum %x)\n", n, len(a.Locations()), sum)
	return nil
}
