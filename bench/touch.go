package main

//go:generate go run ./gentouch

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hpctrace/hpctrace/dumpi"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf"
	"github.com/hpctrace/hpctrace/otf2"
)

// touchEvent returns the sum of every field of ev.
func touchEvent(ev *model.Event) uint64 {
	return uint64(ev.Time) + uint64(ev.Loc) + uint64(ev.Kind) + uint64(ev.Flags) + uint64(ev.Class) +
		uint64(ev.Region) + uint64(ev.Site) + uint64(ev.Peer) + uint64(ev.Comm) + uint64(ev.Tag) +
		uint64(ev.Counter) + uint64(ev.Bytes) + uint64(ev.Recvd) + ev.Match + uint64(ev.Value) + uint64(ev.Text)
}

// readModel reads src to the end as the SDK's tools do (through
// ReadEvents in runs of 1024 where the source has it, else Next), sums
// every field of every event and returns the number of events and the
// sum.
func readModel(src model.Source) (n, sum uint64, err error) {
	bulk, _ := src.(model.BulkSource)
	buf := make([]model.Event, 1024)
	for {
		if bulk != nil {
			if k := bulk.ReadEvents(buf); k > 0 {
				for i := range buf[:k] {
					sum += touchEvent(&buf[i])
				}
				n += uint64(k)
				continue
			}
		}
		if !src.Next() {
			break
		}
		sum += touchEvent(src.Event())
		n++
	}
	return n, sum, src.Err()
}

// otfModel reads an OTF trace through the model adapter
// (otf.NewModelSource) and sums every field of every event.
func otfModel(args []string) error {
	if len(args) != 1 {
		return errors.New("otfmodel TRACE.otf")
	}
	t, err := otf.OpenFS(os.DirFS(filepath.Dir(args[0])), filepath.Base(args[0]), nil)
	if err != nil {
		return err
	}
	defer t.Close()
	src, err := otf.NewModelSource(t, nil)
	if err != nil {
		return err
	}
	defer src.Close()
	n, sum, err := readModel(src)
	if err != nil {
		return err
	}
	fmt.Printf("events=%d locations=%d sum=%d\n", n, len(src.Defs().Locations()), sum)
	return nil
}

// otf2Model reads an OTF2 archive through the model adapter
// (otf2.NewModelSource) and sums every field of every event.
func otf2Model(args []string) error {
	fs := flag.NewFlagSet("otf2model", flag.ContinueOnError)
	prof := fs.String("cpuprofile", "", "write a CPU profile of the read to `file`")
	if err := fs.Parse(args); err != nil {
		return err
	}
	args = fs.Args()
	if len(args) != 1 {
		return errors.New("otf2model [-cpuprofile file] ANCHOR.otf2")
	}
	if *prof != "" {
		stop, err := cpuProfile(*prof)
		if err != nil {
			return err
		}
		defer stop()
	}
	a, err := otf2.Open(args[0], nil)
	if err != nil {
		return err
	}
	defer a.Close()
	src, err := otf2.NewModelSource(a, nil)
	if err != nil {
		return err
	}
	defer src.Close()
	n, sum, err := readModel(src)
	if err != nil {
		return err
	}
	fmt.Printf("events=%d locations=%d sum=%d\n", n, len(src.Defs().Locations()), sum)
	return nil
}

// dumpiRead reads DUMPI rank files one after the other, as the
// reference's undumpi_bench does, and touches every argument of every
// call (touchDUMPI).
func dumpiRead(args []string) error {
	fs := flag.NewFlagSet("dumpiread", flag.ContinueOnError)
	prof := fs.String("cpuprofile", "", "write a CPU profile of the read to `file`")
	if err := fs.Parse(args); err != nil {
		return err
	}
	args = fs.Args()
	if len(args) == 0 {
		return errors.New("usage: dumpiread [-cpuprofile file] FILE.bin [FILE.bin ...]")
	}
	if *prof != "" {
		stop, err := cpuProfile(*prof)
		if err != nil {
			return err
		}
		defer stop()
	}
	var n, sum uint64
	var size int64
	for _, name := range args {
		f, err := dumpi.Open(name, nil)
		if err != nil {
			return err
		}
		r := f.Calls()
		for r.Next() {
			sum += touchDUMPI(r.Record())
			n++
		}
		err = r.Err()
		if fi, serr := os.Stat(name); serr == nil {
			size += fi.Size()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	fmt.Printf("records=%d bytes=%d sum=%d\n", n, size, sum)
	return nil
}
