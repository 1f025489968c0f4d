package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hpctrace/hpctrace/export"
)

// toPerfetto writes the events of in in the Chrome Trace Event Format,
// which Perfetto and chrome://tracing open, in one streamed pass (see
// export.ChromeWriter for the mapping). What could not be drawn is
// counted on notes (if not nil), by reason (export.ChromeDropped); with
// strict, events not drawn fail the conversion and nothing is written.
func toPerfetto(in modelInput, out string, notes io.Writer, strict bool) error {
	return createFile(out, func(w io.Writer) error {
		src, closeSrc, err := in()
		if err != nil {
			return err
		}
		cw, err := export.NewChromeWriter(w, src.Defs())
		if err != nil {
			return closeAll(err, closeSrc)
		}
		err = copyModel(src, closeSrc, cw.Write, cw.Close)
		if err != nil {
			return err
		}
		d := cw.Dropped()
		var what []string
		for _, x := range []struct {
			n    int64
			what string
		}{
			{d.NoRegion, "enters of no region"},
			{d.Unmatched, "leaves or collective ends with nothing open"},
			{d.UnknownKind, "events of unknown kinds"},
			{d.NoPeer, "messages without a known peer (no arrow)"},
			{d.Flows, "messages beyond the flow id range (no arrow)"},
		} {
			if x.n > 0 {
				what = append(what, fmt.Sprintf("%d %s", x.n, x.what))
			}
		}
		if len(what) == 0 {
			return nil
		}
		msg := "events not drawn: " + strings.Join(what, ", ")
		if strict {
			return fmt.Errorf("%s: -strict: %s", out, msg)
		}
		if notes != nil {
			fmt.Fprintf(notes, "traceconv: %s: %s\n", out, msg)
		}
		return nil
	})
}

// toCSV writes the tables of in (events, messages, regions, locations,
// flat profile, and with waitStates the wait-state instances) as CSV
// files into the directory out, in one streamed pass (see export.Tables
// for the schema). Without waitStates, a waitstates.csv of an older
// export (which checkOutput let pass only with -force) is removed.
func toCSV(in modelInput, out string, waitStates bool) error {
	src, closeSrc, err := in()
	if err != nil {
		return err
	}
	if err := closeAll(export.WriteCSVWith(out, src, &export.CSVOptions{WaitStates: waitStates}), closeSrc); err != nil {
		return err
	}
	if waitStates {
		return nil
	}
	if err := os.Remove(filepath.Join(out, export.WaitStatesCSV)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
