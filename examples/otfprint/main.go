// Command otfprint prints an OTF 1.x trace in the human-readable form of
// the reference tool otfprint (OTF 1.12.5), using only the otf package.
// Unlike the reference, it escapes the control characters in the trace's
// strings (escape sequences, carriage returns, bells, C1 controls: \x1b),
// so that a hostile name cannot act on the terminal; tabs and bytes that
// are not UTF-8 (names in KOI8-R or Latin-1) are printed as they are, as
// the reference prints them.
//
// Usage:
//
//	otfprint [options] <trace.otf>
//
// Options (as the reference tool's):
//
//	-o <file>       write to file instead of standard output
//	--force         with -o, replace an existing file (not a reference option)
//	--num <a> <b>   print only records number a to b (inclusive)
//	--time <a> <b>  print only events, statistics and snapshots with a ≤ time < b;
//	                each file is bisected for a (otf.TraceReader.SeekTime)
//	--nodef         omit definition records
//	--noevent       omit event records
//	--nostat        omit statistics records
//	--nosnap        omit snapshot records
//	--nomarker      omit marker records
//	--nokeyvalue    omit key-value lists
//	--fullkeyvalue  print byte arrays as hex instead of byte-array(n)
//	--procs <a> ... print only events, statistics and snapshots of these processes
//
// Compressed traces (*.z files) are read directly; the reference otfprint
// built against zlib ≥ 1.2.12 cannot read them.
//
// The output is the reference's, with the same quirks, which are printing
// bugs of the reference tool rather than properties of the trace:
//
//   - SnapCounter lines print the process after the label "otime" and the
//     original time after "process" (labels swapped).
//   - Summary comments (SC/SUMCOMMENT) and file operation summaries
//     (SFL/SUMFILEOPERATION, SFLG/SUMFILEGROUPOPERATION) are not printed
//     and not counted.
//   - A missing process name prints as "(null)"; a CHAR key-value prints
//     the raw byte; floats and doubles print with %.3f; counters of float
//     type print the low 32 bits as a float.
//   - Unknown definition records print time 2^64-1 and the stream id as
//     "process"; unknown markers print time 0.
//   - --time a b prints a ≤ time < b although the reference help says [a,b].
//
// With -o the output replaces the file only once it is complete (it is
// written to a temporary file beside it first), an existing file is
// replaced only with --force (the reference replaces it silently), and a
// file of the trace itself is refused as the output, under any name. An output that cannot be written (a
// full disk, a closed pipe) is an error: exit status 1 with a message,
// and with -o the file is left as it was. After an error reading the
// trace, the records before it have been printed, then the error; the
// exit status is 1.
//
// Records with equal time stamps from different streams come in the
// reference's order, that of its heap over the streams
// (otf.TraceReaderOptions.ReferenceOrder), so that the record numbers and
// --num match too. --num a b stops at the first record past b, printing
// no further section header, as the reference does. The last line gives
// the wall time of the run.
package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/hpctrace/hpctrace/examples/internal/outfile"
	"github.com/hpctrace/hpctrace/examples/internal/progress"
	"github.com/hpctrace/hpctrace/internal/termsafe"
	"github.com/hpctrace/hpctrace/otf"
)

type config struct {
	input    string
	output   string
	force    bool
	minNum   uint64
	maxNum   uint64
	from, to uint64
	timeSet  bool
	procs    []uint32
	skip     [6]bool // by otf.FileType
	noKV     bool
	fullKV   bool
}

func parseArgs(args []string) (*config, error) {
	c := &config{maxNum: math.MaxUint64}
	num := func(i int) (uint64, error) {
		if i >= len(args) {
			return 0, fmt.Errorf("%s needs more arguments", args[i-1])
		}
		return strconv.ParseUint(args[i], 10, 64)
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		var err error
		switch a {
		case "-o":
			if i+1 >= len(args) {
				return nil, errors.New("-o needs a file name")
			}
			i++
			c.output = args[i]
		case "--force", "-force":
			c.force = true
		case "--num":
			if c.minNum, err = num(i + 1); err == nil {
				c.maxNum, err = num(i + 2)
			}
			i += 2
		case "--time":
			if c.from, err = num(i + 1); err == nil {
				c.to, err = num(i + 2)
			}
			c.timeSet = true
			i += 2
		case "--nodef":
			c.skip[otf.FileDef] = true
		case "--noevent":
			c.skip[otf.FileEvents] = true
		case "--nostat":
			c.skip[otf.FileStats] = true
		case "--nosnap":
			c.skip[otf.FileSnaps] = true
		case "--nomarker":
			c.skip[otf.FileMarker] = true
		case "--nokeyvalue":
			c.noKV = true
		case "--fullkeyvalue":
			c.fullKV = true
		case "--procs":
			c.procs = []uint32{}
			for i+1 < len(args) {
				p, perr := strconv.ParseUint(args[i+1], 10, 32)
				if perr != nil {
					break
				}
				c.procs = append(c.procs, uint32(p))
				i++
			}
		default:
			if len(a) > 0 && a[0] == '-' {
				return nil, fmt.Errorf("unknown option %q", a)
			}
			c.input = a
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", a, err)
		}
	}
	if c.input == "" {
		return nil, errors.New("no input trace")
	}
	return c, nil
}

func main() {
	outfile.CleanUpOnSignal()
	os.Exit(command(os.Args[1:], os.Stdout, os.Stderr))
}

// command runs otfprint with args and returns the exit status: 0, 1 for
// an unreadable trace or an output that cannot be written, 2 for a usage
// error.
func command(args []string, stdout, stderr io.Writer) int {
	c, err := parseArgs(args)
	if err != nil {
		fmt.Fprintln(stderr, "otfprint:", termsafe.String(err.Error()))
		fmt.Fprintln(stderr, "usage: otfprint [--nodef --noevent --nostat --nosnap --nomarker --nokeyvalue --fullkeyvalue --num a b --time a b --procs p...] [-o file [--force]] trace.otf")
		return 2
	}
	dir, name := filepath.Split(c.input)
	if dir == "" {
		dir = "."
	}
	if c.output == "" {
		if err := run(c, os.DirFS(dir), name, stdout); err != nil {
			fmt.Fprintln(stderr, "otfprint:", termsafe.String(err.Error()))
			return 1
		}
		return 0
	}
	f, err := outfile.Create(c.output, &outfile.Options{Force: c.force, Inputs: traceFiles(dir, name)})
	if err != nil {
		fmt.Fprintln(stderr, "otfprint:", termsafe.String(err.Error()))
		return 1
	}
	err = run(c, os.DirFS(dir), name, f)
	var werr *writeError
	if errors.As(err, &werr) {
		f.Abort() // the old file stays
		fmt.Fprintln(stderr, "otfprint:", termsafe.String(err.Error()))
		return 1
	}
	// After a read error the text before it is the output, as on stdout.
	if cerr := f.Commit(); cerr != nil {
		fmt.Fprintln(stderr, "otfprint:", cerr)
		return 1
	}
	if err != nil {
		fmt.Fprintln(stderr, "otfprint:", termsafe.String(err.Error()))
		return 1
	}
	return 0
}

// traceFiles lists the files of the OTF trace name in dir that exist:
// its master file and every record file of its streams.
func traceFiles(dir, name string) []string {
	files := []string{filepath.Join(dir, name)}
	t, err := otf.OpenFS(os.DirFS(dir), name, nil)
	if err != nil {
		return files
	}
	defer t.Close()
	ids := []uint32{0}
	for _, s := range t.Streams {
		ids = append(ids, s.ID)
	}
	for _, id := range ids {
		for _, ft := range []otf.FileType{otf.FileDef, otf.FileEvents, otf.FileSnaps, otf.FileStats, otf.FileMarker} {
			for _, z := range []bool{false, true} {
				p := filepath.Join(dir, otf.FileName(t.Stub, id, ft, z))
				if _, err := os.Stat(p); err == nil {
					files = append(files, p)
				}
			}
		}
	}
	return files
}

// A writeError is an error of the output, as opposed to one of the trace.
type writeError struct{ err error }

func (e *writeError) Error() string { return "writing the output: " + e.err.Error() }
func (e *writeError) Unwrap() error { return e.err }

type printer struct {
	c     *config
	w     io.Writer
	out   []byte // text not yet written to w
	num   uint64
	count counter // formats num
	time  timeText
	props map[uint32]uint32
	sec   otf.FileType
	past  bool // a record past --num's range was met: print nothing more
}

// outSize is the size of printer.out: it is written out when it holds
// more than outSize-outSlack bytes, so a line seldom makes it grow.
const outSize, outSlack = 256 << 10, 16 << 10

// flush writes out the text in p.out.
func (p *printer) flush() error {
	_, err := p.w.Write(p.out)
	p.out = p.out[:0]
	return err
}

func run(c *config, fsys fs.FS, name string, out io.Writer) error {
	start := time.Now()
	t, err := otf.OpenFS(fsys, name, nil)
	if err != nil {
		return err
	}
	defer t.Close()
	ew := &outfile.ErrWriter{W: out}
	p := &printer{c: c, w: ew, out: make([]byte, 0, outSize), props: map[uint32]uint32{}}
	sections := []struct {
		f     otf.FileType
		title string
	}{
		{otf.FileDef, "definitions"}, {otf.FileEvents, "events"}, {otf.FileStats, "statistics"},
		{otf.FileSnaps, "snapshots"}, {otf.FileMarker, "markers"},
	}
	for _, s := range sections {
		if c.skip[s.f] {
			continue
		}
		if p.past {
			break
		}
		p.out = append(p.out, '\n')
		p.out = append(p.out, s.title...)
		p.out = append(p.out, ":\n\n"...)
		p.sec = s.f
		opts := &otf.TraceReaderOptions{File: s.f, Processes: c.procs, ReferenceOrder: true}
		if s.f != otf.FileDef && s.f != otf.FileMarker {
			if c.timeSet {
				opts.From, opts.To = c.from, c.to
				if opts.To == 0 {
					opts.From, opts.To = 1, 1 // empty interval
				}
			}
		}
		tr, err := t.NewReader(opts)
		if err != nil {
			return err
		}
		if opts.From > 0 {
			// Bisect each stream for the start of the interval instead of
			// scanning up to it; files without random access are scanned.
			if err := tr.SeekTime(opts.From); err != nil && !errors.Is(err, otf.ErrNotSeekable) {
				tr.Close()
				return err
			}
		}
		meter := progress.ForOutput(os.Stderr, out, name+" "+s.title, "records")
		var n int64
		for rec, err := range tr.All() {
			if err != nil {
				tr.Close()
				p.flush()
				return err
			}
			if n++; n&0xffff == 0 {
				meter.Update(n)
			}
			p.print(rec)
			if len(p.out) > outSize-outSlack {
				p.flush()
			}
			if ew.Err != nil {
				tr.Close()
				return &writeError{ew.Err}
			}
			if p.past {
				break
			}
		}
		meter.Done(n)
		tr.Close()
	}
	p.out = append(p.out, "\ndone\nprocessing time: "...)
	p.out = strconv.AppendInt(p.out, int64(time.Since(start).Seconds()), 10)
	p.out = append(p.out, " s\n"...)
	if err := p.flush(); err != nil {
		return &writeError{err}
	}
	return nil
}
