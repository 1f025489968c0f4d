// Command otfaux adds snapshots and summaries to an existing OTF 1.x trace
// at "break" time stamps, like the reference tool otfaux (OTF 1.12.5),
// using only the otf package.
//
// Usage:
//
//	otfaux [options] <trace.otf>
//
// Options (as the reference tool's):
//
//	-n <n>          number of breaks, distributed regularly over the
//	                trace's time range (default 200 when none of -n, -p,
//	                -t is given)
//	-p <p>          a break every p ticks (with -n, the one giving more
//	                breaks wins)
//	-t <t>          an additional break at time t (repeatable)
//	-F              overwrite existing snapshot and statistics files
//	-R              only delete existing snapshot and statistics files
//	--funcgroups    function group summaries instead of function summaries
//	--filegroups    file group summaries instead of file summaries
//	--snapshots     write snapshots and a thumbnail (the default)
//	--statistics    write summaries only
//	--all           write snapshots, summaries and a thumbnail
//	--thumbnail     write only the thumbnail
//	--thumbnail-samples <n>
//	                sample points of the thumbnail (default 4096)
//	--thumbnail-procs <n>
//	                processes of the thumbnail (default 512), picked
//	                as the reference picks them
//	-l              list the streams and their processes
//	-v              print the break times
//
// At every break time b it writes, for every process, the summaries of the
// events before b to S.<id>.stats and (except at the last break) the
// snapshot of the state before b to S.<id>.snaps, and it appends a
// DEFAUXSAMPLEPOINT record per break and kind to S.0.def. A final summary
// is written at the last event time + 1. The records equal the reference
// otfaux's for the same break times (checked on the otfaux_all fixture).
// The thumbnail S.thumb (for trace viewers, not an OTF record file) holds
// the function on top of each process's stack at regular sample times.
// A Leave of a process with no open function, on which the reference
// aborts, is ignored, and a WARNING line on standard output counts them.
//
// Not supported: inline snapshots, message matching and copies (-o),
// stream selection (-s) and compression of the new
// files (-z); -b and -f (buffer size, file handles) are accepted and
// ignored. Unlike the reference, the definitions of S.0.def are kept as
// they are (the reference rewrites the file with a new DEFUNIQUEID).
//
// When standard error is a terminal, otfaux shows there the bytes of the
// events files read (twice with snapshots, which need a first pass over
// the messages), with the rate and the time left; elsewhere it shows
// none.
//
// The new files are written to temporary files beside the trace and
// replace the old ones only when all of them are complete, S.0.def last:
// a failure (an unreadable trace, a full disk) leaves the trace as it was.
// With -F the old snapshot and statistics files that the new ones do not
// replace are removed after that. An error writing the listing or the
// break times to standard output is an error (exit status 1).
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/hpctrace/hpctrace/examples/internal/outfile"
	"github.com/hpctrace/hpctrace/examples/internal/progress"
	"github.com/hpctrace/hpctrace/internal/termsafe"
	"github.com/hpctrace/hpctrace/otf"
)

type config struct {
	input         string
	n             int
	period        uint64
	times         []uint64
	force, remove bool
	funcGroups    bool
	fileGroups    bool
	snaps, stats  bool
	thumb         bool
	samples       int
	procs         int // thumbnail processes; 0 means the reference's 512
	list, verbose bool
	nSet          bool
}

func parseArgs(args []string) (*config, error) {
	c := &config{snaps: true, thumb: true, samples: 4096}
	num := func(i int) (uint64, error) {
		if i >= len(args) {
			return 0, fmt.Errorf("%s needs an argument", args[i-1])
		}
		return strconv.ParseUint(args[i], 10, 64)
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch a {
		case "-n", "-p", "-t", "-b", "-f", "--thumbnail-samples", "--thumbnail-procs":
			v, err := num(i + 1)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", a, err)
			}
			i++
			switch a {
			case "-n":
				c.n, c.nSet = int(v), true
				if v < 2 {
					return nil, errors.New("-n: there must be at least 2 breaks")
				}
			case "-p":
				c.period = v
			case "-t":
				c.times = append(c.times, v)
			case "--thumbnail-samples":
				c.samples = int(v)
			case "--thumbnail-procs":
				if v == 0 || v > math.MaxInt32 {
					return nil, fmt.Errorf("--thumbnail-procs: invalid argument %d", v)
				}
				c.procs = int(v)
			}
		case "-F":
			c.force = true
		case "-R":
			c.remove = true
		case "--funcgroups":
			c.funcGroups = true
		case "--filegroups":
			c.fileGroups = true
		case "--snapshots":
			c.snaps, c.stats, c.thumb = true, false, true
		case "--statistics":
			c.snaps, c.stats, c.thumb = false, true, false
		case "--all":
			c.snaps, c.stats, c.thumb = true, true, true
		case "--thumbnail":
			c.snaps, c.stats, c.thumb = false, false, true
		case "-l":
			c.list = true
		case "-v":
			c.verbose = true
		default:
			if len(a) > 0 && a[0] == '-' {
				return nil, fmt.Errorf("unknown option %s", a)
			}
			if c.input != "" {
				return nil, errors.New("more than one trace given")
			}
			c.input = a
		}
	}
	if c.input == "" {
		return nil, errors.New("no input trace given")
	}
	if !c.nSet && c.period == 0 && len(c.times) == 0 {
		c.n = 200
	}
	return c, nil
}

func main() {
	outfile.CleanUpOnSignal()
	c, err := parseArgs(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "otfaux:", termsafe.String(err.Error()))
		fmt.Fprintln(os.Stderr, "usage: otfaux [-n n] [-p ticks] [-t time]... [-F] [-R] [--funcgroups] [--filegroups] [--snapshots|--statistics|--all] [-l] [-v] trace.otf")
		os.Exit(2)
	}
	if err := run(c, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "otfaux:", termsafe.String(err.Error()))
		os.Exit(1)
	}
}

// run does what c asks and prints the listing or the break times to
// stdout; a write error there is an error.
func run(c *config, stdout io.Writer) error {
	ew := &outfile.ErrWriter{W: stdout}
	err := aux(c, ew)
	if ew.Err != nil {
		return fmt.Errorf("writing the output: %w", ew.Err)
	}
	return err
}

// aux adds the auxiliary files to the trace. Every new file is written to
// a temporary file first; none replaces an existing file until all are
// complete, the global definitions last, so a failure leaves the trace
// as it was.
func aux(c *config, stdout io.Writer) error {
	dir, name := filepath.Split(c.input)
	if dir == "" {
		dir = "."
	}
	t, err := otf.OpenFS(os.DirFS(dir), name, nil)
	if err != nil {
		return err
	}
	defer t.Close()
	if c.list {
		fmt.Fprintln(stdout, "stream ID : process IDs ...")
		for _, s := range t.Streams {
			fmt.Fprintf(stdout, "%x : ", s.ID)
			for _, p := range s.Processes {
				fmt.Fprintf(stdout, " %x", p)
			}
			fmt.Fprintln(stdout)
		}
		return nil
	}
	// Existing auxiliary files: removed now with -R, after the new files
	// are in place with -F.
	var old []string
	for _, s := range t.Streams {
		for _, f := range []otf.FileType{otf.FileSnaps, otf.FileStats} {
			for _, z := range []bool{false, true} {
				p := filepath.Join(dir, otf.FileName(t.Stub, s.ID, f, z))
				fi, err := os.Lstat(p)
				if err != nil {
					continue
				}
				if !c.force && !c.remove {
					return fmt.Errorf("will not overwrite existing file %s (use -F)", p)
				}
				if !fi.Mode().IsRegular() {
					return fmt.Errorf("will not replace %s: not a regular file", p)
				}
				old = append(old, p)
			}
		}
	}
	if c.remove {
		for _, p := range old {
			if err := os.Remove(p); err != nil {
				return err
			}
		}
		return nil
	}
	if !c.snaps && !c.stats {
		first, last, ok, err := t.EventTimeRange()
		if err != nil || !ok {
			return err
		}
		return writeThumbnail(t, thumbPath(dir, t), first, last, c.samples, c.procs, false)
	}
	first, last, ok, err := t.EventTimeRange()
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("the trace has no events")
	}
	times := otf.AuxTimes(first, last, c.n, c.period, c.times)
	if c.verbose {
		for _, b := range times {
			fmt.Fprintf(stdout, "[%x]\n", b)
		}
	}
	defs, defName, defZ, hasRange, err := readGlobalDefs(t, dir)
	if err != nil {
		return err
	}
	// Write the snapshot and statistics files of each stream.
	type out struct {
		f *outfile.File
		w *otf.Writer
	}
	outs := map[string]*out{}
	var order []*out // in order of creation
	abort := func() {
		for _, o := range order {
			o.f.Abort()
		}
	}
	var aux []*otf.Record
	emit := func(f otf.FileType, rec *otf.Record) error {
		if f == otf.FileDef {
			aux = append(aux, rec)
			return nil
		}
		id, ok := t.StreamOf(rec.Process)
		if !ok {
			return fmt.Errorf("process %d is in no stream of the master file", rec.Process)
		}
		fn := otf.FileName(t.Stub, id, f, false)
		o := outs[fn]
		if o == nil {
			file, err := outfile.Create(filepath.Join(dir, fn), &outfile.Options{Force: true})
			if err != nil {
				return err
			}
			w, err := otf.NewWriter(file, nil)
			if err != nil {
				file.Abort()
				return err
			}
			o = &out{file, w}
			outs[fn] = o
			order = append(order, o)
		}
		return o.w.Write(rec)
	}
	var declared []uint32
	if c.snaps && c.thumb {
		// The reference declares its thumbnail's processes before it
		// replays the events, which orders its snapshots.
		procs, err := definedProcesses(t)
		if err != nil {
			return err
		}
		declared = otf.ThumbnailProcesses(procs, c.procs)
	}
	var stray int64
	m := progress.New(os.Stderr, c.input, "bytes")
	var done int64
	if progress.IsTerminal(os.Stderr) {
		passes := int64(1)
		if c.snaps {
			passes = 2 // Aux reads the events twice for snapshots
		}
		m.SetTotal(passes * eventsSize(t))
	}
	err = t.Aux(&otf.AuxOptions{Times: times, Snapshots: c.snaps, Summaries: c.stats,
		FunctionGroups: c.funcGroups, FileGroups: c.fileGroups, Declared: declared, StrayLeaves: &stray,
		Progress: func(_, bytes int64) { done = bytes; m.Update(bytes) }}, emit)
	m.Done(done)
	if stray > 0 {
		// The reference aborts on such a Leave; say what was done instead.
		fmt.Fprintf(stdout, "WARNING: %d Leave records of processes with no open function were ignored\n", stray)
	}
	for _, o := range order {
		if e := o.w.Close(); e != nil && err == nil {
			err = e
		}
	}
	if err != nil {
		abort()
		return err
	}
	// Rewrite the global definitions with the sample points (and the time
	// range, if there was none).
	if !hasRange {
		r := &otf.Record{}
		r.SetDefTimeRange(otf.DefTimeRange{MinTime: first, MaxTime: last})
		defs = append(defs, r)
	}
	defs = append(defs, aux...)
	var buf bytes.Buffer
	w, err := otf.NewWriter(&buf, &otf.WriterOptions{Zlib: defZ})
	if err == nil {
		for _, r := range defs {
			if err = w.Write(r); err != nil {
				break
			}
		}
	}
	if err == nil {
		err = w.Close()
	}
	if err == nil && c.thumb {
		err = writeThumbnail(t, thumbPath(dir, t), first, last, c.samples, c.procs, c.snaps)
	}
	if err != nil {
		abort()
		return err
	}
	// Everything is written: move it into place, the definitions last.
	replaced := map[string]bool{}
	for _, o := range order {
		if err := o.f.Commit(); err != nil {
			abort()
			return err
		}
		replaced[o.f.Name()] = true
	}
	for _, p := range old {
		if !replaced[p] {
			if err := os.Remove(p); err != nil {
				return err
			}
		}
	}
	return outfile.Write(filepath.Join(dir, defName), &outfile.Options{Force: true}, func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	})
}

// readGlobalDefs reads S.0.def (or S.0.def.z) whole. A missing file is
// empty and will be written plain.
func readGlobalDefs(t *otf.Trace, dir string) (recs []*otf.Record, name string, zlib, hasRange bool, err error) {
	r, err := t.OpenReader(0, otf.FileDef, nil)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, otf.FileName(t.Stub, 0, otf.FileDef, false), false, false, nil
	}
	if err != nil {
		return nil, "", false, false, err
	}
	defer r.Close()
	for r.Next() {
		rec := r.Record()
		if rec.Kind == otf.KindDefTimeRange {
			hasRange = true
		}
		recs = append(recs, rec.Clone())
	}
	if err := r.Err(); err != nil {
		return nil, "", false, false, err
	}
	name = otf.FileName(t.Stub, 0, otf.FileDef, false)
	if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
		name += ".z"
		zlib = true
	}
	return recs, name, zlib, hasRange, nil
}

// eventsSize returns the size in bytes of the events files of t (as
// stored: compressed for zlib files), or 0 if one cannot be measured.
func eventsSize(t *otf.Trace) int64 {
	var n int64
	for _, s := range t.Streams {
		f, _, _, err := t.OpenFile(s.ID, otf.FileEvents)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0
		}
		st, err := f.Stat()
		f.Close()
		if err != nil {
			return 0
		}
		n += st.Size()
	}
	return n
}
