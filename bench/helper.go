package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"

	"github.com/hpctrace/hpctrace/otf"
	"github.com/hpctrace/hpctrace/picl"
)

// helper runs one of the hpctrace sides of the pairs that have no program
// under examples/ and returns the exit status.
func helper(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "helper: otfread|otfmodel|otf2model|dumpiread|piclread|nlscan|otf2read|otf2gen|mpigen|waits ...")
		return 2
	}
	var err error
	switch args[0] {
	case "otfread":
		err = otfRead(args[1:])
	case "otfmodel":
		err = otfModel(args[1:])
	case "otf2model":
		err = otf2Model(args[1:])
	case "dumpiread":
		err = dumpiRead(args[1:])
	case "piclread":
		err = piclRead(args[1:])
	case "nlscan":
		err = nlScan(args[1:])
	case "otf2read":
		err = otf2Read(args[1:])
	case "otf2gen":
		err = otf2Gen(args[1:])
	case "mpigen":
		err = mpiGen(args[1:])
	case "waits":
		err = waits(args[1:])
	default:
		err = fmt.Errorf("unknown helper %q", args[0])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1
	}
	return 0
}

// otfRead reads the definitions and then the events of a trace merged by
// time, as the reference's bench_read does, and touches every field of
// every record (touchOTF): what libotf decodes for its handlers. With -tail f it reads only the events of the last
// fraction f of the DefTimeRange, through TraceReaderOptions.From.
func otfRead(args []string) error {
	fs := flag.NewFlagSet("otfread", flag.ContinueOnError)
	tail := fs.Float64("tail", 0, "read only the last `fraction` of the time range")
	prof := fs.String("cpuprofile", "", "write a CPU profile of the read to `file`")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *prof != "" {
		stop, err := cpuProfile(*prof)
		if err != nil {
			return err
		}
		defer stop()
	}
	if fs.NArg() != 1 {
		return errors.New("otfread [-tail f] [-cpuprofile file] TRACE.otf")
	}
	name := fs.Arg(0)
	t, err := otf.OpenFS(os.DirFS(filepath.Dir(name)), filepath.Base(name), nil)
	if err != nil {
		return err
	}
	defer t.Close()
	var sum, n uint64
	var lo, hi uint64
	var bytesRead int64
	read := func(opts *otf.TraceReaderOptions) error {
		tr, err := t.NewReader(opts)
		if err != nil {
			return err
		}
		defer tr.Close()
		for tr.Next() {
			rec := tr.Record()
			sum += touchOTF(rec)
			n++
			if v, ok := rec.DefTimeRange(); ok {
				lo, hi = v.MinTime, v.MaxTime
			}
		}
		bytesRead += tr.BytesRead()
		return tr.Err()
	}
	if err := read(&otf.TraceReaderOptions{File: otf.FileDef}); err != nil {
		return err
	}
	defs := n
	opts := &otf.TraceReaderOptions{File: otf.FileEvents}
	if *tail > 0 {
		if hi == 0 {
			return errors.New("the trace has no DefTimeRange")
		}
		opts.From = lo + uint64(float64(hi-lo)*(1-*tail))
	}
	if err := read(opts); err != nil {
		return err
	}
	fmt.Printf("defs=%d events=%d from=%d bytes_read=%d sum=%d\n", defs, n-defs, opts.From, bytesRead, sum)
	return nil
}

// piclRead reads a PICL trace to the end, touching every record's type.
func piclRead(args []string) error {
	if len(args) != 1 {
		return errors.New("piclread FILE")
	}
	f, err := os.Open(args[0])
	if err != nil {
		return err
	}
	defer f.Close()
	r, err := picl.NewReader(f, nil)
	if err != nil {
		return err
	}
	n, sum := 0, 0
	for r.Next() {
		sum += int(r.Record().Type)
		n++
	}
	if err := r.Err(); err != nil {
		return err
	}
	fmt.Printf("records=%d sum=%d\n", n, sum)
	return nil
}

// nlScan is the floor of piclRead: the same file read in 64 KiB pieces
// and scanned for line feeds with bytes.IndexByte, line by line.
func nlScan(args []string) error {
	if len(args) != 1 {
		return errors.New("nlscan FILE")
	}
	f, err := os.Open(args[0])
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	lines := 0
	for {
		k, err := f.Read(buf)
		rest := buf[:k]
		for {
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				break
			}
			lines++
			rest = rest[i+1:]
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	fmt.Printf("lines=%d\n", lines)
	return nil
}

// cpuProfile starts a CPU profile to the file name and returns the
// function that stops it and closes the file.
func cpuProfile(name string) (func(), error) {
	f, err := os.Create(name)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
