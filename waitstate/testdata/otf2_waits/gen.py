#!/usr/bin/python3
# An MPI run of 4 ranks whose waits come through OTF2's request records:
# blocking sends and receives, synchronous sends (late receivers),
# non-blocking exchanges completed by MPI_Waitall, and a ring of
# non-blocking messages that MPI_Test completes when the message is there
# and MPI_Wait otherwise, between compute phases of random length (a fixed
# seed), with barriers, MPI_Init and MPI_Finalize. Times are simulated so
# that every receive completes after its send began (no clock violation).
import otf2, os, random, shutil
from otf2.enums import *
from otf2 import enums

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'trace')
shutil.rmtree(out, ignore_errors=True)
N = 4
LAT = 5  # ticks from a send to the earliest receive
UNDEF = 0xFFFFFFFF
rng = random.Random(26)

ev = [[] for _ in range(N)]  # per rank: (time, method, args)
t = [0] * N


def rec(r, time, what, *args):
    assert not ev[r] or ev[r][-1][0] <= time, (r, time, what)
    ev[r].append((time, what, args))
    t[r] = max(t[r], time)


def call(r, name, enter, leave, inner=()):
    rec(r, enter, 'enter', name)
    for x in inner:
        rec(r, *x)
    rec(r, leave, 'leave', name)


def compute(r, lo=20, hi=300):
    d = rng.randint(lo, hi)
    call(r, 'compute', t[r] + 1, t[r] + 1 + d)


def collective(name, op, extra=10):
    enters = [t[r] + 1 for r in range(N)]
    leave = max(enters) + extra
    for r in range(N):
        inner = []
        if op is not None:
            inner = [(enters[r] + 1, 'mpi_collective_begin'), (leave - 1, 'mpi_collective_end', op, 'world', UNDEF, 0, 0)]
        call(r, name, enters[r], leave, inner)


for r in range(N):
    rec(r, 0, 'enter', 'main')
for r in range(N):
    t[r] = r * 3
collective('MPI_Init', None)
req = [1000 * r for r in range(N)]
for k in range(12):
    for r in range(N):
        compute(r)
    kind = k % 4
    if kind == 0:  # blocking: pairs (0,1), (2,3); the sender alternates
        for a, b in [(0, 1), (2, 3)]:
            s, d = (a, b) if k % 8 == 0 else (b, a)
            ts, tr = t[s] + 1, t[d] + 1
            m = max(tr, ts + 1 + LAT)
            call(s, 'MPI_Send', ts, ts + 3, [(ts + 1, 'mpi_send', d, 'world', k, 256)])
            call(d, 'MPI_Recv', tr, m + 1, [(m, 'mpi_recv', s, 'world', k, 256)])
    elif kind == 1:  # synchronous: pairs (1,2), (3,0)
        for s, d in [(1, 2), (3, 0)]:
            ts, tr = t[s] + 1, t[d] + 1
            m = max(tr, ts + 1 + LAT)
            call(s, 'MPI_Ssend', ts, m + 2, [(ts + 1, 'mpi_send', d, 'world', k, 4096)])
            call(d, 'MPI_Recv', tr, m + 1, [(m, 'mpi_recv', s, 'world', k, 4096)])
    elif kind == 2:  # non-blocking exchange: pairs (0,2), (1,3), MPI_Waitall
        isend = [0] * N
        for r in range(N):
            a = t[r] + 1
            req[r] += 2
            p = (r + 2) % N
            call(r, 'MPI_Irecv', a, a + 2, [(a + 1, 'mpi_irecv_request', req[r])])
            call(r, 'MPI_Isend', a + 3, a + 5, [(a + 4, 'mpi_isend', p, 'world', 100 + k, 64, req[r] + 1)])
            isend[r] = a + 4
        for r in range(N):
            compute(r, 0, 60)
        for r in range(N):
            p = (r + 2) % N
            w = t[r] + 1
            m = max(w + 2, isend[p] + LAT)
            call(r, 'MPI_Waitall', w, m + 1, [(w + 1, 'mpi_isend_complete', req[r] + 1),
                                              (m, 'mpi_irecv', p, 'world', 100 + k, 64, req[r])])
    else:  # a ring of non-blocking messages, completed by MPI_Test or MPI_Wait
        isend = [0] * N
        for r in range(N):
            a = t[r] + 1
            req[r] += 2
            call(r, 'MPI_Irecv', a, a + 2, [(a + 1, 'mpi_irecv_request', req[r])])
            call(r, 'MPI_Isend', a + 3, a + 5, [(a + 4, 'mpi_isend', (r + 1) % N, 'world', 200 + k, 32, req[r] + 1)])
            isend[r] = a + 4
        for r in range(N):
            compute(r, 0, 100)
        for r in range(N):
            p = (r + N - 1) % N
            w = t[r] + 1
            if isend[p] + LAT <= w + 1:  # the message is there: MPI_Test completes it
                call(r, 'MPI_Test', w, w + 3, [(w + 1, 'mpi_irecv', p, 'world', 200 + k, 32, req[r])])
            else:
                call(r, 'MPI_Test', w, w + 2)
                w += 3
                m = max(w + 1, isend[p] + LAT)
                call(r, 'MPI_Wait', w, m + 1, [(m, 'mpi_irecv', p, 'world', 200 + k, 32, req[r])])
            w = t[r] + 1
            call(r, 'MPI_Wait', w, w + 2, [(w + 1, 'mpi_isend_complete', req[r] + 1)])
        collective('MPI_Barrier', CollectiveOp.BARRIER)
for r in range(N):
    compute(r)
collective('MPI_Finalize', None, 20)
for r in range(N):
    rec(r, t[r] + 1, 'leave', 'main')

with otf2.writer.open(out, timer_resolution=1000000) as trace:
    trace.machine_name = "fixturehost"; trace.creator = "gen.py"; trace.description = "otf2_waits"
    D = trace.definitions
    node = D.system_tree_node("node0", class_name="node")
    procs = [D.location_group("MPI Rank %d" % r, system_tree_parent=node) for r in range(N)]
    masters = [D.location("Master thread", group=procs[r]) for r in range(N)]
    D.group("MPI locations", group_type=GroupType.COMM_LOCATIONS, paradigm=enums.Paradigm.MPI, members=masters)
    world_grp = D.group("world", group_type=GroupType.COMM_GROUP, paradigm=enums.Paradigm.MPI, members=list(range(N)))
    comms = {'world': D.comm("MPI_COMM_WORLD", world_grp)}
    reg = {}
    for name, role, par in [("main", RegionRole.FUNCTION, enums.Paradigm.USER),
                            ("compute", RegionRole.FUNCTION, enums.Paradigm.USER),
                            ("MPI_Init", RegionRole.FUNCTION, enums.Paradigm.MPI),
                            ("MPI_Finalize", RegionRole.FUNCTION, enums.Paradigm.MPI),
                            ("MPI_Send", RegionRole.POINT2POINT, enums.Paradigm.MPI),
                            ("MPI_Ssend", RegionRole.POINT2POINT, enums.Paradigm.MPI),
                            ("MPI_Recv", RegionRole.POINT2POINT, enums.Paradigm.MPI),
                            ("MPI_Isend", RegionRole.POINT2POINT, enums.Paradigm.MPI),
                            ("MPI_Irecv", RegionRole.POINT2POINT, enums.Paradigm.MPI),
                            ("MPI_Wait", RegionRole.POINT2POINT, enums.Paradigm.MPI),
                            ("MPI_Waitall", RegionRole.POINT2POINT, enums.Paradigm.MPI),
                            ("MPI_Test", RegionRole.POINT2POINT, enums.Paradigm.MPI),
                            ("MPI_Barrier", RegionRole.BARRIER, enums.Paradigm.MPI)]:
        reg[name] = D.region(name, source_file="waits.c", begin_line_number=10 * (len(reg) + 1), region_role=role, paradigm=par)
    for r in range(N):
        w = trace.event_writer_from_location(masters[r])
        for time, what, args in ev[r]:
            if what in ('enter', 'leave'):
                getattr(w, what)(time, reg[args[0]])
            elif what == 'mpi_collective_end':
                op, comm, root, sent, recvd = args
                w.mpi_collective_end(time, op, comms[comm], root, sent, recvd)
            elif what in ('mpi_send', 'mpi_recv', 'mpi_isend', 'mpi_irecv'):
                peer, comm, tag, size = args[:4]
                getattr(w, what)(time, peer, comms[comm], tag, size, *args[4:])
            else:
                getattr(w, what)(time, *args)
