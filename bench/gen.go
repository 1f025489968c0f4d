package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/hpctrace/hpctrace/dumpi"
	"github.com/hpctrace/hpctrace/internal/benchtrace"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf"
)

// bufFile is a buffered file whose Close flushes.
type bufFile struct {
	*bufio.Writer
	f *os.File
}

func createBuf(name string) (*bufFile, error) {
	f, err := os.Create(name)
	if err != nil {
		return nil, err
	}
	return &bufFile{bufio.NewWriterSize(f, 1<<20), f}, nil
}

func (b *bufFile) Close() error {
	if err := b.Flush(); err != nil {
		b.f.Close()
		return err
	}
	return b.f.Close()
}

const otfProcs = 8

// genOTF writes dir/bench.otf: 8 streams of one process each, about n
// events in rounds of eight records per process (enter and leave of a
// compute function with a counter sample between, enter of
// MPI_Sendrecv, a send to the next process and a receive from the
// previous one with the same tag, leave, and a barrier as a CollOp
// record), with the definitions the reference tools need and a
// DefTimeRange.
func genOTF(dir string, n int64) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var streams []otf.Stream
	for p := uint32(1); p <= otfProcs; p++ {
		streams = append(streams, otf.Stream{ID: p, Processes: []uint32{p}})
	}
	w, err := otf.NewTraceWriter(model.CreateFunc(func(name string) (io.WriteCloser, error) {
		return createBuf(filepath.Join(dir, name))
	}), &otf.TraceWriterOptions{Stub: "bench", Streams: streams})
	if err != nil {
		return err
	}
	rounds := n / (8 * otfProcs)
	const t0, dt = 1000, 1000
	var rec otf.Record
	defs := []func(*otf.Record){
		func(r *otf.Record) { r.SetDefTimerResolution(otf.DefTimerResolution{TicksPerSecond: 1e9}) },
		func(r *otf.Record) {
			r.SetDefTimeRange(otf.DefTimeRange{MinTime: t0 + dt, MaxTime: uint64(t0 + rounds*dt + 7*97 + otfProcs)})
		},
		func(r *otf.Record) {
			r.SetDefFunctionGroup(otf.DefFunctionGroup{Group: 1, Name: []byte("Application")})
		},
		func(r *otf.Record) { r.SetDefFunctionGroup(otf.DefFunctionGroup{Group: 2, Name: []byte("MPI")}) },
		func(r *otf.Record) { r.SetDefFunction(otf.DefFunction{Function: 2, Group: 1, Name: []byte("compute")}) },
		func(r *otf.Record) {
			r.SetDefFunction(otf.DefFunction{Function: 3, Group: 2, Name: []byte("MPI_Sendrecv")})
		},
		func(r *otf.Record) { r.SetDefCounterGroup(otf.DefCounterGroup{Group: 1, Name: []byte("counters")}) },
		func(r *otf.Record) {
			r.SetDefCounter(otf.DefCounter{Counter: 1, Group: 1, Name: []byte("flops"), Properties: 2, Unit: []byte("#")})
		},
		func(r *otf.Record) {
			r.SetDefProcessGroup(otf.DefProcessGroup{Group: 100, Name: []byte("MPI_COMM_WORLD"), Members: []uint32{1, 2, 3, 4, 5, 6, 7, 8}})
		},
		func(r *otf.Record) { r.SetDefCollOp(otf.DefCollOp{CollOp: 1, Name: []byte("MPI_Barrier"), Type: 1}) },
	}
	for p := uint32(1); p <= otfProcs; p++ {
		defs = append(defs, func(r *otf.Record) {
			r.SetDefProcess(otf.DefProcess{Process: p, Name: []byte("rank " + strconv.Itoa(int(p-1)))})
		})
	}
	for _, set := range defs {
		rec = otf.Record{}
		set(&rec)
		if err := w.Write(&rec); err != nil {
			return err
		}
	}
	rec = otf.Record{}
	t := uint64(t0)
	for i := range rounds {
		t += dt
		tag := uint32(i % 32)
		size := uint32(8 << (i % 10))
		for k := range uint64(8) {
			for p := uint32(1); p <= otfProcs; p++ {
				rec.Process = p
				rec.Time = t + k*97 + uint64(p)
				next, prev := p%otfProcs+1, (p+otfProcs-2)%otfProcs+1
				switch k {
				case 0:
					rec.SetEnter(otf.Enter{Function: 2})
				case 1:
					rec.SetCounter(otf.Counter{Counter: 1, Value: uint64(i) * 1234567})
				case 2:
					rec.SetLeave(otf.Leave{Function: 2})
				case 3:
					rec.SetEnter(otf.Enter{Function: 3})
				case 4:
					rec.SetSend(otf.Send{Receiver: next, Length: size, Tag: tag, Communicator: 100})
				case 5:
					rec.SetReceive(otf.Receive{Sender: prev, Length: size, Tag: tag, Communicator: 100})
				case 6:
					rec.SetLeave(otf.Leave{Function: 3})
				case 7:
					rec.SetCollOp(otf.CollOp{CollOp: 1, Communicator: 100, Sent: 0, Received: 0, Duration: 55})
				}
				if err := w.Write(&rec); err != nil {
					return err
				}
			}
		}
	}
	return w.Close()
}

const dumpiRanks = 4

// genDUMPI writes dir/bench.meta and four rank files of perRank calls
// each: MPI_Init, then rounds of MPI_Send to the next rank and MPI_Recv
// from the previous one (and an MPI_Barrier every 16 rounds), then
// MPI_Finalize. Message i has tag i%32, or tag i if distinctTags (so that
// every message has a channel of its own).
func genDUMPI(dir string, perRank int64, distinctTags bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	sizes := make([]int32, int(dumpi.MPI_DOUBLE)+1)
	sizes[dumpi.MPI_BYTE], sizes[dumpi.MPI_CHAR], sizes[dumpi.MPI_DOUBLE] = 1, 1, 8
	meta := &dumpi.Meta{Hostname: "bench", NumProcs: dumpiRanks, Username: "bench", StartTime: 1795311176, FilePrefix: "bench"}
	for rank := range int32(dumpiRanks) {
		f, err := createBuf(filepath.Join(dir, meta.RankFile(int(rank))))
		if err != nil {
			return err
		}
		w, err := dumpi.NewWriter(f, &dumpi.WriterOptions{WallBase: 800, Header: dumpi.Header{StartTime: uint64(meta.StartTime), Host: "bench", User: "bench"}, DatatypeSizes: sizes})
		if err != nil {
			f.Close()
			return err
		}
		// Round i of every rank starts at i µs; the receive of round i
		// ends after the send of round i on the previous rank.
		span := func(ns int64, d int64) dumpi.Span {
			return dumpi.Span{StartSec: uint16(ns / 1e9), StartNsec: uint32(ns % 1e9), StopSec: uint16((ns + d) / 1e9), StopNsec: uint32((ns + d) % 1e9)}
		}
		var c dumpi.Call
		write := func(a dumpi.Args, ns, d int64) error {
			c = dumpi.Call{Mask: dumpi.MaskThread | dumpi.MaskWallTime, Wall: span(ns, d)}
			c.SetArgs(a)
			return w.Write(&c)
		}
		next, prev := (rank+1)%dumpiRanks, (rank+dumpiRanks-1)%dumpiRanks
		err = write(&dumpi.Init{}, 0, 500)
		rounds := (perRank - 2) * 16 / 33
		for i := int64(0); i < rounds && err == nil; i++ {
			ns := 1000 + i*1000
			tag := int32(i % 32)
			if distinctTags {
				tag = int32(i)
			}
			count := int32(8 << (i % 10))
			if err = write(&dumpi.Send{Count: count, Datatype: dumpi.MPI_BYTE, Dest: next, Tag: tag, Comm: dumpi.MPI_COMM_WORLD}, ns+int64(rank)*10, 100); err != nil {
				break
			}
			err = write(&dumpi.Recv{Count: count, Datatype: dumpi.MPI_BYTE, Source: prev, Tag: tag, Comm: dumpi.MPI_COMM_WORLD}, ns+300+int64(rank)*10, 300)
			if err == nil && i%16 == 15 {
				err = write(&dumpi.Barrier{Comm: dumpi.MPI_COMM_WORLD}, ns+700, 200)
			}
		}
		if err == nil {
			err = write(&dumpi.Finalize{}, 1000+rounds*1000+1000, 500)
		}
		if err == nil {
			err = w.Close()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	mf, err := os.Create(filepath.Join(dir, "bench.meta"))
	if err != nil {
		return err
	}
	if _, err := meta.WriteTo(mf); err != nil {
		mf.Close()
		return err
	}
	return mf.Close()
}

// genPICL writes the PICL benchmark trace of package benchtrace (the
// picl package's benchmarks read the same) of about size bytes to name.
func genPICL(name string, size int64) error {
	f, err := createBuf(name)
	if err != nil {
		return err
	}
	if err := benchtrace.PICL(f, size); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// zlibCopy makes dst a copy of the trace dir/bench.otf whose record files
// are compressed by the reference otfcompress.
func zlibCopy(src, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	files, err := filepath.Glob(filepath.Join(src, "bench.*"))
	if err != nil {
		return err
	}
	var rec []string
	for _, f := range files {
		if filepath.Ext(f) == ".otf" {
			data, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dst, filepath.Base(f)), data, 0o644); err != nil {
				return err
			}
			continue
		}
		rec = append(rec, f)
	}
	if len(rec) == 0 {
		return fmt.Errorf("no record files in %s", src)
	}
	return runQuiet("otfcompress", append([]string{"-o", dst}, rec...)...)
}

// genDUMPIMix writes dir/bench.meta and four rank files of perRank calls
// each with the call mix of the repository's DUMPI fixtures (under
// root/dumpi/testdata): every fixture rank's calls in turn, re-timed so
// that the clocks advance, as the dumpi package's benchmark trace.
func genDUMPIMix(dir, root string, perRank int64) error {
	bins, err := filepath.Glob(filepath.Join(root, "dumpi", "testdata", "*", "*-[0-9][0-9][0-9][0-9].bin"))
	if err != nil {
		return err
	}
	var pool []*dumpi.Call
	for _, b := range bins {
		data, err := os.ReadFile(b)
		if err != nil {
			return err
		}
		f, err := dumpi.NewFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return fmt.Errorf("%s: %w", b, err)
		}
		r := f.Calls()
		for r.Next() {
			pool = append(pool, r.Record().Clone())
		}
		if err := r.Err(); err != nil {
			return fmt.Errorf("%s: %w", b, err)
		}
	}
	if len(pool) == 0 {
		return fmt.Errorf("no DUMPI fixtures under %s", filepath.Join(root, "dumpi", "testdata"))
	}
	meta := &dumpi.Meta{Hostname: "bench", NumProcs: dumpiRanks, Username: "bench", StartTime: 1795311176, FilePrefix: "bench"}
	for rank := range dumpiRanks {
		f, err := createBuf(filepath.Join(dir, meta.RankFile(rank)))
		if err != nil {
			return err
		}
		w, err := dumpi.NewWriter(f, &dumpi.WriterOptions{WallBase: 800, Header: dumpi.Header{Host: "bench", User: "bench"}})
		if err != nil {
			f.Close()
			return err
		}
		ns := uint64(rank) * 1000
		span := func() dumpi.Span {
			s := dumpi.Span{StartSec: uint16(ns / 1e9), StartNsec: uint32(ns % 1e9)}
			ns += 700
			s.StopSec, s.StopNsec = uint16(ns/1e9), uint32(ns%1e9)
			ns += 300
			return s
		}
		for i := range int(perRank) {
			c := *pool[(rank*len(pool)/dumpiRanks+i)%len(pool)]
			if c.Mask.WallTime() {
				c.Wall = span()
			}
			if c.Mask.CPUTime() {
				c.CPU = span()
			}
			if err = w.Write(&c); err != nil {
				break
			}
		}
		if err == nil {
			err = w.Close()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	mf, err := os.Create(filepath.Join(dir, "bench.meta"))
	if err != nil {
		return err
	}
	if _, err := meta.WriteTo(mf); err != nil {
		mf.Close()
		return err
	}
	return mf.Close()
}

// genDUMPIMPI writes dir/bench.meta and four rank files of about perRank
// calls each, the calls of an iterative MPI program with every argument
// set, as the reference tracer records them (thread, CPU and wall times,
// status lists): MPI_Init, MPI_Comm_size, MPI_Comm_rank and MPI_Type_size,
// then iterations of MPI_Wtime, a halo exchange with both neighbours on
// a ring (MPI_Irecv twice, MPI_Isend twice, MPI_Waitall with four
// statuses), MPI_Iprobe and MPI_Get_count with a status each and
// MPI_Allreduce, with an MPI_Barrier every tenth iteration; then
// MPI_Finalize. These are the calls whose every argument the reference's
// undumpi_bench touch reads.
func genDUMPIMPI(dir string, perRank int64) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	sizes := make([]int32, int(dumpi.MPI_DOUBLE)+1)
	sizes[dumpi.MPI_BYTE], sizes[dumpi.MPI_CHAR], sizes[dumpi.MPI_DOUBLE] = 1, 1, 8
	meta := &dumpi.Meta{Hostname: "bench", NumProcs: dumpiRanks, Username: "bench", StartTime: 1795311176, FilePrefix: "bench"}
	const mask = dumpi.MaskThread | dumpi.MaskCPUTime | dumpi.MaskWallTime | dumpi.MaskStatusEnable
	for rank := range int32(dumpiRanks) {
		f, err := createBuf(filepath.Join(dir, meta.RankFile(int(rank))))
		if err != nil {
			return err
		}
		w, err := dumpi.NewWriter(f, &dumpi.WriterOptions{CPUBase: 3, WallBase: 800, Header: dumpi.Header{StartTime: uint64(meta.StartTime), Host: "bench", User: "bench"}, DatatypeSizes: sizes})
		if err != nil {
			f.Close()
			return err
		}
		ns := int64(rank) * 100
		span := func(ns, d int64) dumpi.Span {
			return dumpi.Span{StartSec: uint16(ns / 1e9), StartNsec: uint32(ns % 1e9), StopSec: uint16((ns + d) / 1e9), StopNsec: uint32((ns + d) % 1e9)}
		}
		var c dumpi.Call
		write := func(a dumpi.Args, d int64) error {
			c = dumpi.Call{Mask: mask, Wall: span(ns, d), CPU: span(ns/2, d/2)}
			c.SetArgs(a)
			ns += d + 150
			return w.Write(&c)
		}
		next, prev := (rank+1)%dumpiRanks, (rank+dumpiRanks-1)%dumpiRanks
		world := dumpi.MPI_COMM_WORLD
		for _, a := range []dumpi.Args{
			&dumpi.Init{},
			&dumpi.CommSize{Comm: world, Size: dumpiRanks},
			&dumpi.CommRank{Comm: world, Rank: rank},
			&dumpi.TypeSize{Datatype: dumpi.MPI_DOUBLE, Size: 8},
		} {
			if err == nil {
				err = write(a, 400)
			}
		}
		var req dumpi.Request
		statuses := make([]dumpi.Status, 4)
		for i := int64(0); err == nil && i < (perRank-5)*10/91; i++ {
			tag := int32(i % 64)
			count := int32(64 << (i % 6))
			ns += 2000 + int64(rank)*37 // compute
			r := [4]dumpi.Request{req + 1, req + 2, req + 3, req + 4}
			req += 4
			for j := range statuses {
				peer := prev
				if j%2 == 1 {
					peer = next
				}
				statuses[j] = dumpi.Status{Bytes: count * 8, Source: peer, Tag: tag}
			}
			one := []dumpi.Status{statuses[0]}
			for _, a := range []dumpi.Args{
				&dumpi.Wtime{},
				&dumpi.Irecv{Count: count, Datatype: dumpi.MPI_DOUBLE, Source: prev, Tag: tag, Comm: world, Request: r[0]},
				&dumpi.Irecv{Count: count, Datatype: dumpi.MPI_DOUBLE, Source: next, Tag: tag, Comm: world, Request: r[1]},
				&dumpi.Isend{Count: count, Datatype: dumpi.MPI_DOUBLE, Dest: next, Tag: tag, Comm: world, Request: r[2]},
				&dumpi.Isend{Count: count, Datatype: dumpi.MPI_DOUBLE, Dest: prev, Tag: tag, Comm: world, Request: r[3]},
				&dumpi.Waitall{Count: 4, Requests: r[:], Statuses: statuses},
				&dumpi.Iprobe{Source: dumpi.MPI_ANY_SOURCE, Tag: tag, Comm: world, Flag: 1, Status: one},
				&dumpi.GetCount{Status: one, Datatype: dumpi.MPI_DOUBLE, Count: count},
				&dumpi.Allreduce{Count: 1, Datatype: dumpi.MPI_DOUBLE, Op: dumpi.MPI_SUM, Comm: world},
			} {
				if err = write(a, 300); err != nil {
					break
				}
			}
			if err == nil && i%10 == 9 {
				err = write(&dumpi.Barrier{Comm: world}, 500)
			}
		}
		if err == nil {
			err = write(&dumpi.Finalize{}, 400)
		}
		if err == nil {
			err = w.Close()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	mf, err := os.Create(filepath.Join(dir, "bench.meta"))
	if err != nil {
		return err
	}
	if _, err := meta.WriteTo(mf); err != nil {
		mf.Close()
		return err
	}
	return mf.Close()
}
