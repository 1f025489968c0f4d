package main

import (
	"io"
	"os"

	"github.com/hpctrace/hpctrace/eventjson"
	"github.com/hpctrace/hpctrace/examples/internal/outfile"
	"github.com/hpctrace/hpctrace/model"
)

// toJSON writes the events of in as a document of hpctrace's event JSON
// (package eventjson) named out.
func toJSON(in modelInput, out string) error {
	return createFile(out, func(w io.Writer) error { return writeJSON(in, w) })
}

// copyJSON copies a document of hpctrace's event JSON: it reads the whole
// document through eventjson.Reader, which checks every event, and
// then copies its bytes. (Written back through eventjson.Writer, the
// layout would change, and the content too: the writer lists every
// defined location and region and leaves out fields at their zero value,
// such as the root of a barrier.) Both passes show their progress on a
// terminal: the events read, then the bytes copied of the file's size.
func copyJSON(in, out string) error {
	src, closeSrc, err := openModel(in, nil)()
	if err != nil {
		return err
	}
	for src.Next() {
	}
	if err := closeAll(src.Err(), closeSrc); err != nil {
		return err
	}
	return createFile(out, func(w io.Writer) error {
		f, err := os.Open(in)
		if err != nil {
			return err
		}
		defer f.Close()
		m := copyMeter(in, sizeOf(in))
		_, err = io.Copy(w, m.Reader(f))
		m.Done(m.Count())
		return err
	})
}

// writeJSON writes in to w. The JSON writer needs every definition before
// the first event, so the definitions come from a first pass; the second
// pass assigns the same ids, since the sources are deterministic.
func writeJSON(in modelInput, w io.Writer) error {
	sc, err := scanModel(in)
	if err != nil {
		return err
	}
	src, closeSrc, err := in()
	if err != nil {
		return err
	}
	jw, err := eventjson.NewWriter(w, sc.defs, nil)
	if err != nil {
		return closeAll(err, closeSrc)
	}
	var open model.OpenRegions
	for src.Next() {
		ev := *src.Event()
		switch ev.Kind {
		case model.KindEnter:
			if ev.Region == 0 {
				continue // an undefined region: nothing to enter
			}
			open.Enter(ev.Loc, ev.Region)
		case model.KindLeave:
			var out model.LeaveOutcome
			if ev.Region, out = open.Leave(ev.Loc, ev.Region); out == model.LeaveUnmatched && ev.Region == 0 {
				continue // nothing open to leave
			}
		}
		if err := jw.Write(&ev); err != nil {
			return closeAll(err, closeSrc)
		}
	}
	if err := src.Err(); err != nil {
		return closeAll(err, closeSrc)
	}
	return closeAll(jw.Close(), closeSrc)
}

// createFile lets write fill out through a buffer, in a temporary file
// that replaces out only when everything is written (see package outfile);
// on failure out is left as it was. convert has checked out against -force
// and the inputs.
func createFile(out string, write func(io.Writer) error) error {
	return outfile.Write(out, &outfile.Options{Force: true}, write)
}
