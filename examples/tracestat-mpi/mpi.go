package main

/*
#cgo pkg-config: mpich
#include <mpi.h>
#include <stdlib.h>
#include <time.h>

static int world_rank(int *r) { return MPI_Comm_rank(MPI_COMM_WORLD, r); }
static int world_size(int *s) { return MPI_Comm_size(MPI_COMM_WORLD, s); }
// wait completes r, sleeping 20 µs between tests instead of spinning,
// so that a rank waiting for another leaves it the processor (ranks may
// outnumber cores).
static int wait(MPI_Request *r) {
	struct timespec ts = {0, 20000};
	int done = 0;
	for (;;) {
		int rc = MPI_Test(r, &done, MPI_STATUS_IGNORE);
		if (rc != MPI_SUCCESS || done) {
			return rc;
		}
		nanosleep(&ts, NULL);
	}
}
static int send_bytes(void *buf, int n, int dest, int tag) {
	MPI_Request r;
	int rc = MPI_Isend(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &r);
	return rc != MPI_SUCCESS ? rc : wait(&r);
}
static int recv_bytes(void *buf, int n, int src, int tag) {
	MPI_Request r;
	int rc = MPI_Irecv(buf, n, MPI_BYTE, src, tag, MPI_COMM_WORLD, &r);
	return rc != MPI_SUCCESS ? rc : wait(&r);
}
static int allreduce_min(long long *v, int n) {
	MPI_Request r;
	int rc = MPI_Iallreduce(MPI_IN_PLACE, v, n, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD, &r);
	return rc != MPI_SUCCESS ? rc : wait(&r);
}
static int init(void) { return MPI_Init(NULL, NULL); }
static void abort_world(int code) { MPI_Abort(MPI_COMM_WORLD, code); }
*/
import "C"

import (
	"encoding/binary"
	"fmt"
)

// The binding: the few MPI calls the reduction needs, on MPI_COMM_WORLD.
// MPI is initialised with MPI_THREAD_SINGLE, so every call must come from
// the thread that called mpiInit: main locks its goroutine to the main
// thread (see init in main.go).

func mpiErr(what string, rc C.int) error {
	if rc != 0 { // MPI_SUCCESS
		return fmt.Errorf("%s: MPI error %d", what, int(rc))
	}
	return nil
}

func mpiInit() error { return mpiErr("MPI_Init", C.init()) }

func mpiFinalize() error { return mpiErr("MPI_Finalize", C.MPI_Finalize()) }

// mpiAbort ends every rank of the job with the exit status code.
func mpiAbort(code int) { C.abort_world(C.int(code)) }

func mpiRank() (int, error) {
	var r C.int
	err := mpiErr("MPI_Comm_rank", C.world_rank(&r))
	return int(r), err
}

func mpiSize() (int, error) {
	var s C.int
	err := mpiErr("MPI_Comm_size", C.world_size(&s))
	return int(s), err
}

// chunk bounds one MPI message, whose count is a C int. Each goes
// through a C buffer (C.CBytes, C.GoBytes), so that no Go pointer is
// handed to C.
const chunk = 64 << 20

const tagState = 1

func send(b []byte, dest int) error {
	p := C.CBytes(b)
	defer C.free(p)
	return mpiErr("MPI_Send", C.send_bytes(p, C.int(len(b)), C.int(dest), tagState))
}

func recv(n, src int) ([]byte, error) {
	p := C.malloc(C.size_t(max(n, 1)))
	defer C.free(p)
	if err := mpiErr("MPI_Recv", C.recv_bytes(p, C.int(n), C.int(src), tagState)); err != nil {
		return nil, err
	}
	return C.GoBytes(p, C.int(n)), nil
}

// sendBytes sends b to rank dest: its length in 8 bytes, then b in
// chunks.
func sendBytes(b []byte, dest int) error {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(b)))
	if err := send(n[:], dest); err != nil {
		return err
	}
	for len(b) > 0 {
		k := min(len(b), chunk)
		if err := send(b[:k], dest); err != nil {
			return err
		}
		b = b[k:]
	}
	return nil
}

// recvBytes receives what sendBytes sent from rank src.
func recvBytes(src int) ([]byte, error) {
	n, err := recv(8, src)
	if err != nil {
		return nil, err
	}
	size := binary.LittleEndian.Uint64(n)
	if size > 1<<40 {
		return nil, fmt.Errorf("rank %d announces a state of %d bytes", src, size)
	}
	b := make([]byte, 0, size)
	for uint64(len(b)) < size {
		k := int(min(size-uint64(len(b)), chunk))
		part, err := recv(k, src)
		if err != nil {
			return nil, err
		}
		b = append(b, part...)
	}
	return b, nil
}

// allreduceMin replaces each element of v with its minimum over the
// ranks, through a copy of C integers.
func allreduceMin(v []int64) error {
	if len(v) == 0 {
		return nil
	}
	c := make([]C.longlong, len(v))
	for i, x := range v {
		c[i] = C.longlong(x)
	}
	if err := mpiErr("MPI_Allreduce", C.allreduce_min(&c[0], C.int(len(c)))); err != nil {
		return err
	}
	for i := range v {
		v[i] = int64(c[i])
	}
	return nil
}

// world is MPI_COMM_WORLD as a shardstat.Comm.
type world struct{ rank, size int }

func (w world) Rank() int                     { return w.rank }
func (w world) Size() int                     { return w.size }
func (w world) Send(b []byte, dest int) error { return sendBytes(b, dest) }
func (w world) Recv(src int) ([]byte, error)  { return recvBytes(src) }
func (w world) AllreduceMin(v []int64) error  { return allreduceMin(v) }
