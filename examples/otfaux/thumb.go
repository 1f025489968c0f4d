package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/hpctrace/hpctrace/examples/internal/outfile"
	"github.com/hpctrace/hpctrace/otf"
)

// writeThumbnail writes S.thumb as the reference otfaux does: width
// sample times spread over [first, last], and for each of the processes
// the reference picks (otf.ThumbnailProcesses: at most nprocs of the
// defined ones, 512 if nprocs is 0) the function on top of its stack at each sample time (0 for an
// empty stack), after the enters and leaves at or before that time. The
// format is "0:<width>,<processes>" and then one line
// "<process>:<f>,<f>,...," per process, all in hex, the processes in the
// order of the reference's hash table (otf.ReferenceOrder), which depends
// on the order the reference met them: with snapshots (withSnaps) the
// senders of receives first, in the order of their first receive, then
// the others in the order it picked them. It writes nothing if the time
// range is narrower than width ticks, like the reference.
func writeThumbnail(t *otf.Trace, path string, first, last uint64, width, nprocs int, withSnaps bool) error {
	if last-first <= uint64(width) {
		width = int(last - first) // one sample per tick, as the reference
	}
	if width <= 0 || last <= first {
		return nil
	}
	defined, err := definedProcesses(t)
	if err != nil {
		return err
	}
	procs := otf.ThumbnailProcesses(defined, nprocs)
	var order []uint32
	if withSnaps {
		if order, err = senders(t); err != nil {
			return err
		}
	}
	order = append(order, procs...)
	picked := map[uint32]bool{}
	for _, p := range procs {
		picked[p] = true
	}
	seen := map[uint32]bool{}
	order = slices.DeleteFunc(order, func(p uint32) bool {
		dup := seen[p]
		seen[p] = true
		return dup || !picked[p]
	})
	step := float64(last-first) / float64(width)
	ts := make([]uint64, width)
	for i := range ts {
		ts[i] = uint64(float64(first) + float64(i)*step)
	}
	stacks := map[uint32][]uint32{}
	samples := map[uint32][]uint32{}
	for _, p := range procs {
		samples[p] = make([]uint32, width)
	}
	pos := 0
	update := func(tm uint64) {
		for ; pos < width && ts[pos] < tm; pos++ {
			for _, p := range procs {
				if s := stacks[p]; len(s) > 0 {
					samples[p][pos] = s[len(s)-1]
				}
			}
		}
	}
	ev, err := t.NewReader(nil)
	if err != nil {
		return err
	}
	defer ev.Close()
	for rec, err := range ev.All() {
		if err != nil {
			return err
		}
		switch rec.Kind {
		case otf.KindEnter:
			update(rec.Time)
			e, _ := rec.Enter()
			stacks[rec.Process] = append(stacks[rec.Process], e.Function)
		case otf.KindLeave:
			update(rec.Time)
			if s := stacks[rec.Process]; len(s) > 0 {
				stacks[rec.Process] = s[:len(s)-1]
			}
		}
	}
	update(ts[width-1] + 1)
	otf.ReferenceOrder(order)
	return outfile.Write(path, &outfile.Options{Force: true}, func(w io.Writer) error {
		fmt.Fprintf(w, "0:%x,%x\n", width, len(procs))
		for _, p := range order {
			fmt.Fprintf(w, "%x:", p)
			for _, v := range samples[p] {
				fmt.Fprintf(w, "%x,", v)
			}
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		return nil
	})
}

func thumbPath(dir string, t *otf.Trace) string {
	return filepath.Join(dir, filepath.Base(t.Stub)+".thumb")
}

// definedProcesses returns the processes of t's DEFPROCESS records, in
// definition order, without repeats.
func definedProcesses(t *otf.Trace) ([]uint32, error) {
	defs, err := t.NewReader(&otf.TraceReaderOptions{File: otf.FileDef})
	if err != nil {
		return nil, err
	}
	defer defs.Close()
	var procs []uint32
	seen := map[uint32]bool{}
	for rec, err := range defs.All() {
		if err != nil {
			return nil, err
		}
		if d, ok := rec.DefProcess(); ok && !seen[d.Process] {
			seen[d.Process] = true
			procs = append(procs, d.Process)
		}
	}
	return procs, nil
}

// senders returns the senders of t's receive records, in the order of
// their first receive.
func senders(t *otf.Trace) ([]uint32, error) {
	ev, err := t.NewReader(&otf.TraceReaderOptions{ReferenceOrder: true})
	if err != nil {
		return nil, err
	}
	defer ev.Close()
	var out []uint32
	seen := map[uint32]bool{}
	for rec, err := range ev.All() {
		if err != nil {
			return nil, err
		}
		if m, ok := rec.Receive(); ok && !seen[m.Sender] {
			seen[m.Sender] = true
			out = append(out, m.Sender)
		}
	}
	return out, nil
}
