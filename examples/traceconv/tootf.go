package main

import (
	"fmt"
	"io"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf"
)

// toOTF converts in to the OTF trace whose master file is out, and tells
// notes (if not nil) how many messages without a known peer, and how many
// events of kinds OTF has no record for, it dropped.
func toOTF(in modelInput, out string, o *otfFlags, notes io.Writer) error {
	if o.form != "short" && o.form != "long" {
		return fmt.Errorf("-form %q: want short or long", o.form)
	}
	var noPeer, unwritten int64
	err := withOTFOutput(out, func(create otf.Creator, stub string) error {
		return writeOTF(in, create, stub, o, &noPeer, &unwritten)
	})
	if err == nil {
		noPeerNote(notes, out, noPeer)
		unwrittenNote(notes, out, unwritten)
	}
	return err
}

// unwrittenNote tells notes (if not nil) that n events of kinds the
// output format has no record for (RecvPost, SendDone, Parameter, …) were
// not written to out, when there were any.
func unwrittenNote(notes io.Writer, out string, n int64) {
	if notes != nil && n > 0 {
		fmt.Fprintf(notes, "traceconv: %s: %d events not written (receive posts, send completions, parameters or program begins and ends: the format has no record for them)\n", out, n)
	}
}

// noPeerNote tells notes (if not nil) that n messages without a known peer
// were not written to out, when there were any.
func noPeerNote(notes io.Writer, out string, n int64) {
	if notes != nil && n > 0 {
		fmt.Fprintf(notes, "traceconv: %s: %d messages without a known peer not written (the format names both ends of a message)\n", out, n)
	}
}

// writeOTF writes in through an otf.ModelWriter: a first pass learns the
// definitions and the earliest time (OTF times are unsigned, so a trace
// starting before 0 is shifted), the second writes the events.
func writeOTF(in modelInput, c otf.Creator, stub string, o *otfFlags, noPeer, unwritten *int64) error {
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
	err = writeEvents(in, w.Write, w.Close)
	*noPeer, *unwritten = w.NoPeer(), w.Unwritten()
	return err
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
