package dumpi_test

import (
	"bytes"
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/hpctrace/hpctrace/dumpi"
	"github.com/hpctrace/hpctrace/model"
)

func ExampleOpen() {
	f, err := dumpi.Open("testdata/minimal/dumpi-2026.11.22.01.38.03-0000.bin", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	h, err := f.Header()
	if err != nil {
		log.Fatal(err)
	}
	ft, err := f.Footer()
	if err != nil {
		log.Fatal(err)
	}
	sizes, err := f.DatatypeSizes()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("version", h.Version, "host", h.Host, "user", h.User)
	fmt.Println("started", h.Start())
	fmt.Println("calls", ft.Called[dumpi.LabelAllFunctions], "sends", ft.Called[dumpi.LabelSend])
	fmt.Println("sizeof", dumpi.MPI_DOUBLE, sizes[dumpi.MPI_DOUBLE])
	// Output:
	// version 13.0.0 host vm user dumpiuser
	// started 2026-11-22 01:38:03 +0000 UTC
	// calls 4 sends 1
	// sizeof MPI_DOUBLE 8
}

func ExampleFile_Calls() {
	f, err := dumpi.Open("testdata/minimal/dumpi-2026.11.22.01.38.03-0000.bin", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	r := f.Calls()
	for r.Next() {
		c := r.Record()
		fmt.Printf("%-14s wall %.6f s\n", c.Label, float64(c.WallStart())/1e9)
		switch a := c.Args().(type) {
		case *dumpi.Send:
			fmt.Println("  count", a.Count, "of", a.Datatype, "to", a.Dest, "tag", a.Tag, "in", a.Comm)
		case *dumpi.Init:
			fmt.Printf("  argv %q\n", a.Argv)
		}
	}
	if err := r.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// MPI_Init       wall 840.672788 s
	//   argv ["./minimal"]
	// MPI_Comm_rank  wall 840.672814 s
	// MPI_Send       wall 840.672820 s
	//   count 1 of MPI_INT to 1 tag 5 in MPI_COMM_WORLD
	// MPI_Finalize   wall 840.672836 s
}

func ExampleOpenRun() {
	run, err := dumpi.OpenRun("testdata/minimal/dumpi-2026.11.22.01.38.03.meta", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer run.Close()
	fmt.Println(run.Meta.NumProcs, "ranks on", run.Meta.Hostname)
	m := run.Calls()
	for c, err := range m.All() {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%.9f rank %d %s\n", float64(c.WallStart())/1e9, m.Rank(), c.Label)
	}
	// Output:
	// 2 ranks on vm
	// 840.672788345 rank 0 MPI_Init
	// 840.672814246 rank 0 MPI_Comm_rank
	// 840.672819935 rank 0 MPI_Send
	// 840.672836346 rank 0 MPI_Finalize
	// 840.673589146 rank 1 MPI_Init
	// 840.673611056 rank 1 MPI_Comm_rank
	// 840.673615536 rank 1 MPI_Recv
	// 840.673631496 rank 1 MPI_Finalize
}

func ExampleWriter() {
	var buf bytes.Buffer
	w, err := dumpi.NewWriter(&buf, &dumpi.WriterOptions{
		WallBase: 100,
		Header:   dumpi.Header{StartTime: 1795311483, Host: "node1", User: "me"},
	})
	if err != nil {
		log.Fatal(err)
	}
	c := &dumpi.Call{Mask: dumpi.MaskThread | dumpi.MaskWallTime, Wall: dumpi.Span{StartSec: 1, StartNsec: 5, StopSec: 1, StopNsec: 900}}
	c.SetArgs(&dumpi.Send{Count: 8, Datatype: dumpi.MPI_DOUBLE, Dest: 1, Tag: 7, Comm: dumpi.MPI_COMM_WORLD})
	if err := w.Write(c); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	f, err := dumpi.NewFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		log.Fatal(err)
	}
	ft, err := f.Footer()
	if err != nil {
		log.Fatal(err)
	}
	r := f.Calls()
	for r.Next() {
		cpu, wall := r.Bases()
		os.Stdout.Write(r.Record().AppendASCII(nil, cpu, wall, nil))
	}
	if err := r.Err(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(buf.Len(), "bytes;", ft.Called[dumpi.LabelSend], "send counted")
	// Output:
	// MPI_Send entering at walltime 101.000000005, cputime 0.000000000 seconds in thread 0.
	// int count=8
	// MPI_Datatype datatype=14 (MPI_DOUBLE)
	// int dest=1
	// int tag=7
	// MPI_Comm comm=2 (MPI_COMM_WORLD)
	// MPI_Send returning at walltime 101.000000900, cputime 0.000000000 seconds in thread 0.
	// 2497 bytes; 1 send counted
}

func ExampleParseError() {
	data := []byte("this is not a DUMPI trace, though it is long enough to have an index")
	_, err := dumpi.NewFile(bytes.NewReader(data), int64(len(data)))
	var pe *dumpi.ParseError
	if errors.As(err, &pe) {
		fmt.Println("offset", pe.Offset, "wrong magic:", errors.Is(err, dumpi.ErrFormat))
	}
	fmt.Println(err)
	// Output:
	// offset 0 wrong magic: true
	// dumpi: offset 0: record 0: not a DUMPI trace
}

func ExampleNewModelSource() {
	run, err := dumpi.OpenRun("testdata/p2p_blocking/dumpi-2026.11.22.01.32.56.meta", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer run.Close()
	src, err := dumpi.NewModelSource(run, nil)
	if err != nil {
		log.Fatal(err)
	}
	var sent, recvd int64
	var sends, recvs int
	for ev, err := range src.All() {
		if err != nil {
			log.Fatal(err)
		}
		switch ev.Kind {
		case model.KindSend:
			sends++
			sent += ev.Bytes
		case model.KindRecv:
			recvs++
			recvd += ev.Bytes
		}
	}
	fmt.Println(src.Defs().NumLocations(), "locations,", src.Defs().NumRegions(), "regions")
	fmt.Println(sends, "sends,", sent, "bytes;", recvs, "receives,", recvd, "bytes")
	// Output:
	// 2 locations, 18 regions
	// 11 sends, 162 bytes; 11 receives, 162 bytes
}
