package main

import (
	"fmt"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf"
)

// toOTF converts in to the OTF trace whose master file is out.
func toOTF(in modelInput, out string, o *otfFlags) error {
	if o.form != "short" && o.form != "long" {
		return fmt.Errorf("-form %q: want short or long", o.form)
	}
	return withOTFOutput(out, func(create otf.Creator, stub string) error {
		return writeOTF(in, create, stub, o)
	})
}

// writeOTF writes in through an otf.ModelWriter: a first pass learns the
// definitions and the earliest time (OTF times are unsigned, so a trace
// starting before 0 is shifted), the second writes the events.
func writeOTF(in modelInput, c otf.Creator, stub string, o *otfFlags) error {
	sc, err := scanModel(in)
	if err != nil {
		return err
	}
	opts := &otf.ModelWriterOptions{
		WriterOptions: otf.WriterOptions{Long: o.form == "long", Zlib: o.zlib, ZlibBlockSize: o.zlibBlock},
		Streams:       o.streams,
		Creator:       "hpctrace traceconv",
		Origin:        min(sc.min, 0),
	}
	w, err := otf.NewModelWriter(c, stub, sc.defs, opts)
	if err != nil {
		return err
	}
	return writeEvents(in, w.Write, w.Close)
}

// writeEvents writes every event of a fresh pass over in with write,
// then calls closeW.
func writeEvents(in modelInput, write func(*model.Event) error, closeW func() error) error {
	src, closeSrc, err := in()
	if err != nil {
		closeW()
		return err
	}
	return copyModel(src, closeSrc, write, closeW)
}

// copyModel writes every event of src with write, then calls closeW and
// closeSrc; it returns the first error.
func copyModel(src model.Source, closeSrc func() error, write func(*model.Event) error, closeW func() error) error {
	for src.Next() {
		if err := write(src.Event()); err != nil {
			closeW()
			return closeAll(err, closeSrc)
		}
	}
	if err := src.Err(); err != nil {
		closeW()
		return closeAll(err, closeSrc)
	}
	return closeAll(closeW(), closeSrc)
}
