#!/usr/bin/python3
# An MPI run of 5 ranks for sharded statistics: rank 1 has a second
# (OpenMP) thread, so model locations and ranks differ; a ring of blocking
# sends and receives, non-blocking ones two ranks on, MPI_Allreduce and
# MPI_Barrier on MPI_COMM_WORLD, MPI_Bcast on a communicator of the even
# ranks, and a counter on every location. Every message and collective
# crosses the locations of a shard i/n for n = 2, 3, 4.
import otf2, os, shutil
from otf2.enums import *
from otf2 import enums
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'trace')
shutil.rmtree(out, ignore_errors=True)
N = 5
UNDEF = 0xFFFFFFFF
with otf2.writer.open(out, timer_resolution=1000000000) as trace:
    trace.machine_name = "fixturehost"; trace.creator = "gen.py"; trace.description = "otf2_mpi"
    D = trace.definitions
    node = D.system_tree_node("node0", class_name="node")
    procs = [D.location_group("MPI Rank %d" % r, system_tree_parent=node) for r in range(N)]
    masters, thread = [], None
    for r in range(N):
        masters.append(D.location("Master thread", group=procs[r]))
        if r == 1:
            thread = D.location("OMP thread 1", group=procs[r])
    locs = D.group("MPI locations", group_type=GroupType.COMM_LOCATIONS, paradigm=enums.Paradigm.MPI, members=masters)
    world_grp = D.group("world", group_type=GroupType.COMM_GROUP, paradigm=enums.Paradigm.MPI, members=list(range(N)))
    even_grp = D.group("even", group_type=GroupType.COMM_GROUP, paradigm=enums.Paradigm.MPI, members=list(range(0, N, 2)))
    world = D.comm("MPI_COMM_WORLD", world_grp)
    even = D.comm("even ranks", even_grp, parent=world)
    reg = {}
    for name, role, par in [("main", RegionRole.FUNCTION, enums.Paradigm.USER),
                            ("compute", RegionRole.FUNCTION, enums.Paradigm.USER),
                            ("MPI_Send", RegionRole.POINT2POINT, enums.Paradigm.MPI),
                            ("MPI_Recv", RegionRole.POINT2POINT, enums.Paradigm.MPI),
                            ("MPI_Isend", RegionRole.POINT2POINT, enums.Paradigm.MPI),
                            ("MPI_Irecv", RegionRole.POINT2POINT, enums.Paradigm.MPI),
                            ("MPI_Wait", RegionRole.POINT2POINT, enums.Paradigm.MPI),
                            ("MPI_Allreduce", RegionRole.COLL_ALL2ALL, enums.Paradigm.MPI),
                            ("MPI_Bcast", RegionRole.COLL_ONE2ALL, enums.Paradigm.MPI),
                            ("MPI_Barrier", RegionRole.BARRIER, enums.Paradigm.MPI),
                            ("!$omp parallel", RegionRole.PARALLEL, enums.Paradigm.OPENMP)]:
        reg[name] = D.region(name, source_file="ring.c", begin_line_number=10 * (len(reg) + 1), region_role=role, paradigm=par)
    cycles = D.metric_member("cycles", "CPU cycles", MetricType.PAPI, MetricMode.ACCUMULATED_START, Type.UINT64, Base.DECIMAL, 0, "#")
    mc = D.metric_class([cycles], MetricOccurrence.SYNCHRONOUS_STRICT, RecorderKind.CPU)
    for r in range(N):
        w = trace.event_writer_from_location(masters[r])
        t = 1000 + 7 * r
        def tick(d=10):
            global t
            t += d
            return t
        def call(name, *evs):
            w.enter(tick(), reg[name])
            for f in evs:
                f(tick(3))
            w.leave(tick(), reg[name])
        w.enter(t, reg["main"])
        for i in range(3):
            w.enter(tick(), reg["compute"])
            w.metric(tick(), mc, 1000 * (i + 1) * (r + 1))
            w.leave(tick(100 + 13 * r), reg["compute"])
            call("MPI_Send", lambda x: w.mpi_send(x, (r + 1) % N, world, i, 1024 * (r + 1)))
            call("MPI_Recv", lambda x: w.mpi_recv(x, (r + N - 1) % N, world, i, 1024 * ((r + N - 1) % N + 1)))
            req = 100 * r + i
            call("MPI_Isend", lambda x: w.mpi_isend(x, (r + 2) % N, world, 100 + i, 64, req))
            call("MPI_Irecv", lambda x: w.mpi_irecv_request(x, req + 50))
            call("MPI_Wait", lambda x: w.mpi_irecv(x, (r + N - 2) % N, world, 100 + i, 64, req + 50),
                 lambda x: w.mpi_isend_complete(x, req))
            call("MPI_Allreduce", lambda x: w.mpi_collective_begin(x),
                 lambda x: w.mpi_collective_end(x, CollectiveOp.ALLREDUCE, world, UNDEF, 8, 8))
        if r % 2 == 0:
            call("MPI_Bcast", lambda x: w.mpi_collective_begin(x),
                 lambda x: w.mpi_collective_end(x, CollectiveOp.BCAST, even, 0, 4096 * (N // 2) if r == 0 else 0, 0 if r == 0 else 4096))
        call("MPI_Barrier", lambda x: w.mpi_collective_begin(x),
             lambda x: w.mpi_collective_end(x, CollectiveOp.BARRIER, world, UNDEF, 0, 0))
        w.leave(tick(), reg["main"])
    w = trace.event_writer_from_location(thread)
    w.enter(1200, reg["!$omp parallel"])
    w.metric(1300, mc, 777)
    w.leave(1900, reg["!$omp parallel"])
