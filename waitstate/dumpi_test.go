package waitstate_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/hpctrace/hpctrace/dumpi"
	"github.com/hpctrace/hpctrace/model"
	"pgregory.net/rapid"
)

// writeDUMPI writes a hand case as a DUMPI run: DUMPI has no model writer,
// so each rank's call records are built from its events. An MPI region
// becomes the call of its name, its arguments from the events inside it
// (the Send for the destination, tag and count in MPI_BYTE, the Recv for
// the source, the RecvPost for an MPI_Irecv, the request ids for MPI_Wait
// and MPI_Waitall, the CollBegin for the root and the counts); any other
// region becomes Function_enter/Function_exit with the region id as
// address, named in the function-address table. No statuses are written:
// the receives' peers come from the arguments. It returns the .meta file.
func writeDUMPI(t rapid.TB, dir string, defs *model.Defs, events []model.Event) string {
	t.Helper()
	var names []dumpi.FunctionName
	for _, r := range defs.Regions() {
		if !r.MPI() {
			names = append(names, dumpi.FunctionName{Addr: uint64(r.ID), Name: r.Name})
		}
	}
	sizes := make([]int32, 28)
	sizes[dumpi.MPI_BYTE] = 1
	meta := &dumpi.Meta{Hostname: "node0", NumProcs: defs.NumLocations(), Username: "hpctrace", StartTime: 1795521600,
		FilePrefix: "run", Version: dumpi.Version{13, 0, 0}}
	for _, l := range defs.Locations() {
		var buf bytes.Buffer
		w, err := dumpi.NewWriter(&buf, &dumpi.WriterOptions{DatatypeSizes: sizes, FunctionNames: names,
			Header: dumpi.Header{Version: dumpi.Version{13, 0, 0}, StartTime: 1795521600, Host: "node0", User: "hpctrace"}})
		if err != nil {
			t.Fatal(err)
		}
		type frame struct {
			region model.RegionID
			enter  model.Time
			inside []model.Event
			skip   bool // a non-blocking collective: DUMPI records no MPI-3 function
		}
		var stack []frame
		write := func(a dumpi.Args, from, to model.Time) {
			c := &dumpi.Call{Mask: dumpi.MaskWallTime}
			c.Wall = dumpi.Span{StartSec: uint16(from / 1e9), StartNsec: uint32(from % 1e9),
				StopSec: uint16(to / 1e9), StopNsec: uint32(to % 1e9)}
			c.SetArgs(a)
			if err := w.Write(c); err != nil {
				t.Fatal(err)
			}
		}
		for _, e := range events {
			if e.Loc != l.ID {
				continue
			}
			switch e.Kind {
			case model.KindEnter:
				r, _ := defs.Region(e.Region)
				if !r.MPI() {
					write(&dumpi.FunctionEnter{Fn: int64(r.ID)}, e.Time, e.Time)
				}
				stack = append(stack, frame{region: e.Region, enter: e.Time, skip: isICollName(r.Name)})
			case model.KindLeave:
				f := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				r, _ := defs.Region(f.region)
				if f.skip {
					break
				}
				if !r.MPI() {
					write(&dumpi.FunctionExit{Fn: int64(r.ID)}, e.Time, e.Time)
					break
				}
				a := dumpiArgs(t, r.Name, f.inside)
				write(a, f.enter, e.Time)
			default:
				if len(stack) > 0 {
					stack[len(stack)-1].inside = append(stack[len(stack)-1].inside, e)
				}
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, meta.RankFile(int(l.ID-1))), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var b bytes.Buffer
	if _, err := meta.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, "run.meta")
	if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// dumpiArgs returns the arguments of the MPI call name holding the events
// inside.
func dumpiArgs(t rapid.TB, name string, inside []model.Event) dumpi.Args {
	t.Helper()
	var send, recv, post, coll *model.Event
	var reqs []dumpi.Request
	for i := range inside {
		e := &inside[i]
		switch e.Kind {
		case model.KindSend:
			send = e
		case model.KindRecv:
			recv = e
			reqs = append(reqs, dumpi.Request(e.Match))
		case model.KindRecvPost:
			post = e
		case model.KindSendDone:
			reqs = append(reqs, dumpi.Request(e.Match))
		case model.KindCollBegin:
			coll = e
		}
	}
	if len(reqs) == 0 {
		// a wait for non-blocking collectives only, whose requests DUMPI
		// never saw: a request no call made
		reqs = append(reqs, dumpi.Request(1<<30))
	}
	const world, byteT = dumpi.MPI_COMM_WORLD, dumpi.MPI_BYTE
	rank := func(l model.LocID) int32 { return int32(l) - 1 }
	root := func() int32 {
		if coll.Peer == 0 {
			return -1
		}
		return rank(coll.Peer)
	}
	switch strings.ToLower(name) {
	case "mpi_send":
		return &dumpi.Send{Count: int32(send.Bytes), Datatype: byteT, Dest: rank(send.Peer), Tag: send.Tag, Comm: world}
	case "mpi_ssend":
		return &dumpi.Ssend{Count: int32(send.Bytes), Datatype: byteT, Dest: rank(send.Peer), Tag: send.Tag, Comm: world}
	case "mpi_isend":
		return &dumpi.Isend{Count: int32(send.Bytes), Datatype: byteT, Dest: rank(send.Peer), Tag: send.Tag, Comm: world,
			Request: dumpi.Request(send.Match)}
	case "mpi_recv":
		return &dumpi.Recv{Count: int32(recv.Bytes), Datatype: byteT, Source: rank(recv.Peer), Tag: recv.Tag, Comm: world}
	case "mpi_irecv":
		return &dumpi.Irecv{Count: 8, Datatype: byteT, Source: rank(post.Peer), Tag: post.Tag, Comm: world,
			Request: dumpi.Request(post.Match)}
	case "mpi_sendrecv":
		return &dumpi.Sendrecv{Sendcount: int32(send.Bytes), Sendtype: byteT, Dest: rank(send.Peer), Sendtag: send.Tag,
			Recvcount: int32(recv.Bytes), Recvtype: byteT, Source: rank(recv.Peer), Recvtag: recv.Tag, Comm: world}
	case "mpi_wait":
		return &dumpi.Wait{Request: reqs[0]}
	case "mpi_test":
		return &dumpi.Test{Request: reqs[0], Flag: 1}
	case "mpi_waitall":
		return &dumpi.Waitall{Count: int32(len(reqs)), Requests: reqs}
	case "mpi_barrier":
		return &dumpi.Barrier{Comm: world}
	case "mpi_bcast":
		return &dumpi.Bcast{Count: int32(max(coll.Bytes, coll.Recvd)), Datatype: byteT, Root: root(), Comm: world}
	case "mpi_reduce":
		return &dumpi.Reduce{Count: 8, Datatype: byteT, Op: dumpi.MPI_SUM, Root: root(), Comm: world}
	case "mpi_allreduce":
		return &dumpi.Allreduce{Count: int32(coll.Bytes), Datatype: byteT, Op: dumpi.MPI_SUM, Comm: world}
	case "mpi_scan":
		return &dumpi.Scan{Count: int32(coll.Bytes), Datatype: byteT, Op: dumpi.MPI_SUM, Comm: world}
	case "mpi_alltoallv":
		// the bytes this rank sends and receives, all to and from rank 0
		return &dumpi.Alltoallv{Commsize: 1, Sendcounts: []int32{int32(coll.Bytes)}, Senddispls: []int32{0}, Sendtype: byteT,
			Recvcounts: []int32{int32(coll.Recvd)}, Recvdispls: []int32{0}, Recvtype: byteT, Comm: world}
	case "mpi_init":
		return &dumpi.Init{}
	case "mpi_init_thread":
		return &dumpi.InitThread{}
	case "mpi_finalize":
		return &dumpi.Finalize{}
	}
	t.Fatalf("no DUMPI call for %s", name)
	return nil
}
