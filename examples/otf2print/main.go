// Command otf2print prints an OTF2 archive in the text of the reference
// tool otf2-print (OTF2 3.0.2), using only the otf2 package.
//
// Usage:
//
//	otf2print [options] <anchor.otf2>
//
// Options (as the reference tool's):
//
//	-A                 print the anchor file, the global definitions and the events
//	-G                 print the global definitions only
//	-I                 print the anchor file only
//	-T                 print the thumbnail headers only
//	-M                 print the mapping tables of every location only
//	-C                 print the clock offsets of every location only
//	-L <loc>           print the events of location loc only
//	--timestamps=offset  print times relative to the global offset
//	--allow-missing-events  read a missing event file as an empty location
//	                   (not a reference option; see below)
//
// The events come in the reference's global order: by clock-corrected time,
// then location id; snapshots follow in the same order when the anchor
// counts any. With -A or -T the "Thumbnail headers:" line comes when the
// anchor counts thumbnails, and nothing under it: the reference (libotf2
// 3.0.2) fails to read the thumbnail files libotf2 writes and lists no
// header on its standard output. The trace identifier and the
// CLOCK_PROPERTIES date are those of the archive (the reference regenerates neither; they differ
// between two runs of a writer).
//
// A location whose definition declares events and whose event file is
// missing is an error (exit status 1), as in the reference; with
// --allow-missing-events it is listed as empty and a warning on standard
// error counts such locations and the events they declare. Definitions
// that repeat an id replace the earlier one (the last wins, as in the
// reference), and a warning on standard error counts them.
//
// Unlike the reference, which prints
// strings raw, control characters in the archive's strings (escape
// sequences, carriage returns, bells, C1 controls) and bytes that are not
// UTF-8 are printed escaped, as \x1b, so a hostile name cannot act on the
// terminal.
package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/hpctrace/hpctrace/examples/internal/progress"
	"github.com/hpctrace/hpctrace/internal/termsafe"
	"github.com/hpctrace/hpctrace/otf2"
)

func float64frombits(v uint64) float64 { return math.Float64frombits(v) }
func float32frombits(v uint32) float32 { return math.Float32frombits(v) }

type options struct {
	anchor, global, info, mapping, clock bool
	thumbs                               bool
	offset                               bool
	loc                                  uint64
	hasLoc                               bool
	allowMissing                         bool
	path                                 string
	stderr                               io.Writer // warnings; nil: none
}

func parseArgs(args []string) (options, error) {
	var o options
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-A":
			o.anchor = true
		case a == "-G":
			o.global = true
		case a == "-I":
			o.info = true
		case a == "-T" || a == "--show-thumbnails":
			o.thumbs = true
		case a == "-M":
			o.mapping = true
		case a == "-C":
			o.clock = true
		case a == "-L" || a == "--location":
			if i+1 >= len(args) {
				return o, errors.New("-L needs a location id")
			}
			i++
			n, err := strconv.ParseUint(args[i], 10, 64)
			if err != nil {
				return o, fmt.Errorf("-L: %w", err)
			}
			o.loc, o.hasLoc = n, true
		case a == "--allow-missing-events":
			o.allowMissing = true
		case strings.HasPrefix(a, "--timestamps="):
			switch v := strings.TrimPrefix(a, "--timestamps="); v {
			case "offset":
				o.offset = true
			case "plain":
			default:
				return o, fmt.Errorf("--timestamps=%s: want plain or offset", v)
			}
		case strings.HasPrefix(a, "-") && a != "-":
			return o, fmt.Errorf("unknown option %s", a)
		default:
			if o.path != "" {
				return o, errors.New("more than one archive")
			}
			o.path = a
		}
	}
	if o.path == "" {
		return o, errors.New("usage: otf2print [-A] [-G] [-I] [-T] [-M] [-C] [-L loc] [--timestamps=offset] [--allow-missing-events] <anchor.otf2>")
	}
	return o, nil
}

func main() {
	o, err := parseArgs(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "otf2print:", termsafe.String(err.Error()))
		os.Exit(2)
	}
	o.stderr = os.Stderr
	w := bufio.NewWriterSize(os.Stdout, 1<<16)
	err = run(w, o)
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "otf2print:", termsafe.String(err.Error()))
		os.Exit(1)
	}
}

const rule = "--------------------------------------------------------------------------------"

func section(w io.Writer, title string) {
	s := "=== " + title + " "
	fmt.Fprintf(w, "%s%s\n", s, strings.Repeat("=", 80-len(s)))
}

func run(w *bufio.Writer, o options) error {
	a, err := otf2.Open(o.path, &otf2.OpenOptions{AllowMissingEvents: o.allowMissing})
	if err != nil {
		return err
	}
	defer a.Close()
	if n := a.Defs.Duplicates(); n > 0 && o.stderr != nil {
		fmt.Fprintf(o.stderr, "otf2print: warning: %d global definitions repeat the id of an earlier one of their kind; the last of each is used\n", n)
	}
	defer func() {
		if locs, evs := a.MissingEvents(); locs > 0 && o.stderr != nil {
			fmt.Fprintf(o.stderr, "otf2print: warning: %d locations listed as empty: their event files are missing, their definitions declare %d events\n", locs, evs)
		}
	}()
	p, err := newPrinter(w, a)
	if err != nil {
		return err
	}
	p.offsetMode = o.offset
	fmt.Fprint(w, "\n=== OTF2-PRINT ===\n")
	if o.anchor || o.info {
		an := a.Anchor
		fmt.Fprint(w, "\nContent of OTF2 anchor file:\n")
		kv := func(k, v string) { fmt.Fprintf(w, "%-30s %s\n", k, v) }
		kv("Version", fmt.Sprintf("%d.%d.%d", an.Version[0], an.Version[1], an.Version[2]))
		kv("Chunk size events", strconv.FormatUint(an.EventChunkSize, 10))
		kv("Chunk size definitions", strconv.FormatUint(an.DefChunkSize, 10))
		kv("File substrate", an.Substrate.String())
		kv("Compression", an.Compression.String())
		kv("Number of locations", strconv.FormatUint(an.NumLocations, 10))
		kv("Number of global definitions", strconv.FormatUint(an.NumGlobalDefs, 10))
		kv("Machine name", an.MachineName)
		kv("Creator", an.Creator)
		kv("Description", an.Description)
		kv("Number of properties", strconv.Itoa(len(an.Properties)))
		for _, pr := range an.Properties {
			kv("Property name", pr.Name)
			kv("Property value", pr.Value)
		}
		kv("Trace identifier", strconv.FormatUint(an.TraceID, 16))
		kv("Number of snapshots", strconv.FormatUint(uint64(an.NumSnapshots), 10))
		kv("Number of thumbnails", strconv.FormatUint(uint64(an.NumThumbnails), 10))
	}
	if (o.anchor || o.thumbs) && a.Anchor.NumThumbnails > 0 {
		// otf2-print would list the thumbnail headers here, but libotf2
		// 3.0.2 rejects the thumbnail files it writes itself ("Expected
		// thumbnail header record", on standard error) and lists none.
		fmt.Fprint(w, "\nThumbnail headers:\n")
	}
	if !o.anchor && (o.info || o.thumbs) {
		return nil
	}
	if o.anchor || o.global {
		fmt.Fprint(w, "\n")
		section(w, "Global Definitions")
		fmt.Fprintf(w, "\n%-27s %12s  Attributes\n%s\n", "Definition", "ID", rule)
		for _, d := range a.Defs.All() {
			p.def(d)
		}
		if !o.anchor {
			return nil
		}
	}
	if !o.anchor && (o.mapping || o.clock) {
		fmt.Fprint(w, "\n")
		section(w, "Per Location Definitions")
		fmt.Fprintf(w, "\n%-27s %12s  Attributes\n%s\n", "Definition", "Location", rule)
		for _, loc := range a.Locations() {
			ld, err := a.LocalDefs(loc)
			if err != nil {
				return err
			}
			for _, d := range ld.Defs {
				if (d.Kind == otf2.DefKindMappingTable && o.mapping) || (d.Kind == otf2.DefKindClockOffset && o.clock) {
					p.localDef(loc, d)
				}
			}
		}
		return nil
	}
	section(w, "Events")
	fmt.Fprintf(w, "%-32s %15s %20s  Attributes\n%s\n", "Event", "Location", "Timestamp", rule)
	var locs []uint64
	if o.hasLoc {
		locs = []uint64{o.loc}
	}
	mr, err := a.MergedReader(locs)
	if err != nil {
		return err
	}
	defer mr.Close()
	meter := progress.ForOutput(os.Stderr, os.Stdout, o.path, "events")
	var n int64
	for mr.Next() {
		if n++; n&0xffff == 0 {
			meter.Update(n)
		}
		p.event(mr.Record())
	}
	meter.Done(n)
	if err := mr.Err(); err != nil {
		return err
	}
	if a.Anchor.NumSnapshots == 0 {
		return nil
	}
	return snapshots(w, p, a, locs)
}

// snapshots prints the snapshot records of every location merged by
// (time, location), as otf2-print does after the events.
func snapshots(w *bufio.Writer, p *printer, a *otf2.Archive, locs []uint64) error {
	section(w, "Snapshots")
	fmt.Fprintf(w, "%-32s %15s %20s  Attributes\n%s\n", "Snapshot", "Location", "Timestamp", rule)
	if locs == nil {
		locs = a.Locations()
	}
	var rs []*otf2.SnapshotReader
	defer func() {
		for _, r := range rs {
			r.Close()
		}
	}()
	for _, l := range locs {
		r, err := a.SnapshotReader(l)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if r.Next() {
			rs = append(rs, r)
		} else if err := r.Err(); err != nil {
			return err
		}
	}
	for len(rs) > 0 {
		best := 0
		for i, r := range rs[1:] {
			s, b := r.Record(), rs[best].Record()
			if s.Time < b.Time || (s.Time == b.Time && s.Location < b.Location) {
				best = i + 1
			}
		}
		p.snapshot(rs[best].Record())
		if !rs[best].Next() {
			if err := rs[best].Err(); err != nil {
				return err
			}
			rs[best].Close()
			rs = append(rs[:best], rs[best+1:]...)
		}
	}
	return nil
}
