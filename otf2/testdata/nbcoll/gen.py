#!/usr/bin/python3
# Non-blocking collectives (OTF2 3.0 records 85 and 86): three MPI ranks
# start an MPI_Iallreduce on MPI_COMM_WORLD and an MPI_Ibcast from rank 1
# on it, and complete both in one MPI_Waitall; rank 2 starts 600 ticks
# late, so ranks 0 and 1 wait 400 in MPI_Waitall [1200, 1910] for it to
# start the MPI_Iallreduce (wait_inxn). The request ids are 100 * rank + 7
# and + 8.
import otf2, os, shutil
from otf2.enums import *
from otf2 import enums
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'trace')
shutil.rmtree(out, ignore_errors=True)
N = 3
UNDEF = 0xFFFFFFFF
with otf2.writer.open(out, timer_resolution=1000000000) as trace:
    trace.machine_name = "fixturehost"; trace.creator = "gen.py"; trace.description = "nbcoll"
    D = trace.definitions
    node = D.system_tree_node("node0", class_name="node")
    procs = [D.location_group("MPI Rank %d" % r, system_tree_parent=node) for r in range(N)]
    locs = [D.location("Master thread", group=procs[r]) for r in range(N)]
    D.group("MPI locations", group_type=GroupType.COMM_LOCATIONS, paradigm=enums.Paradigm.MPI, members=locs)
    world = D.comm("MPI_COMM_WORLD", D.group("world", group_type=GroupType.COMM_GROUP, paradigm=enums.Paradigm.MPI, members=list(range(N))))
    reg = {}
    for name, role, par in [("main", RegionRole.FUNCTION, enums.Paradigm.USER),
                            ("compute", RegionRole.FUNCTION, enums.Paradigm.USER),
                            ("MPI_Iallreduce", RegionRole.COLL_ALL2ALL, enums.Paradigm.MPI),
                            ("MPI_Ibcast", RegionRole.COLL_ONE2ALL, enums.Paradigm.MPI),
                            ("MPI_Waitall", RegionRole.POINT2POINT, enums.Paradigm.MPI)]:
        reg[name] = D.region(name, source_file="nb.c", begin_line_number=10 * (len(reg) + 1), region_role=role, paradigm=par)
    for r in range(N):
        w = trace.event_writer_from_location(locs[r])
        t0 = 1000 + 600 * (r == 2)
        w.enter(1000, reg["main"])
        w.enter(t0, reg["MPI_Iallreduce"])
        w.non_blocking_collective_request(t0 + 5, 100 * r + 7)
        w.leave(t0 + 10, reg["MPI_Iallreduce"])
        w.enter(t0 + 20, reg["MPI_Ibcast"])
        w.non_blocking_collective_request(t0 + 25, 100 * r + 8)
        w.leave(t0 + 30, reg["MPI_Ibcast"])
        w.enter(t0 + 40, reg["compute"])
        w.leave(t0 + 100, reg["compute"])
        w.enter(t0 + 200, reg["MPI_Waitall"])
        w.non_blocking_collective_complete(1900, CollectiveOp.ALLREDUCE, world, UNDEF, 8, 8, 100 * r + 7)
        w.non_blocking_collective_complete(1900, CollectiveOp.BCAST, world, 1, 64 if r == 1 else 0, 0 if r == 1 else 64, 100 * r + 8)
        w.leave(1910, reg["MPI_Waitall"])
        w.leave(2000, reg["main"])
