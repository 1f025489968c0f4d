#!/usr/bin/python3
# The APEX idiom: a Leave naming the task's new name, not its Enter's region.
# Run with /usr/bin/python3 (python3-otf2, OTF2 3.0); see README.md.
import otf2, os, shutil
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'trace')
shutil.rmtree(out, ignore_errors=True)
MS = 1000000  # ticks per millisecond (resolution 1 ns)
with otf2.writer.open(out, timer_resolution=1000000000) as trace:
    trace.machine_name = "localhost"
    trace.creator = "gen.py (imitates APEX's OTF2 listener)"
    trace.description = "apex_renamed"
    d = trace.definitions
    apex_main = d.region("APEX MAIN")
    hpx_main = d.region("hpx_main")
    main_loop = d.region("main_loop")          # hpx_main's name after the rename
    async_ = d.region("async")
    stencil = d.region("stencil_update")       # an async task's name after the rename
    node = d.system_tree_node("localhost")
    lg = d.location_group("process 0", system_tree_parent=node)
    # worker thread 0: APEX MAIN over the whole second; hpx_main renamed
    # main_loop while it runs, so its Leave names main_loop.
    w = trace.event_writer("worker-thread#0", group=lg)
    w.enter(0, apex_main)
    w.enter(1 * MS, hpx_main)
    w.leave(1 * MS + 10500000, main_loop)
    w.leave(1000 * MS, apex_main)
    # worker threads 1 and 2: twenty 5 ms async tasks each; every third is
    # renamed stencil_update after it starts.
    for t in (1, 2):
        w = trace.event_writer("worker-thread#%d" % t, group=lg)
        for i in range(20):
            start = (50 + 40 * i + t) * MS
            w.enter(start, async_)
            w.leave(start + 5 * MS, stencil if i % 3 == 0 else async_)
