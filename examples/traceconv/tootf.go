package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf"
)

// toOTF converts in to the OTF trace whose master file is out, and tells
// notes (if not nil) what it dropped; with strict, a dropped event fails
// the conversion and nothing is written.
func toOTF(in modelInput, out string, o *otfFlags, notes io.Writer, strict bool) error {
	if o.form != "short" && o.form != "long" {
		return fmt.Errorf("-form %q: want short or long", o.form)
	}
	return withOTFOutput(out, func(create model.Creator, stub string) error {
		var dropped map[model.Kind]int64
		if err := writeOTF(in, create, stub, o, &dropped); err != nil {
			return err
		}
		return dropNote(notes, out, "OTF", dropped, strict)
	})
}

// dropNote tells notes (if not nil) how many events a conversion did not
// write to out, when there were any: the messages without a known peer
// (the only Sends and Receives the model writers drop), then the others
// by kind. With strict it returns an error saying so instead.
func dropNote(notes io.Writer, out, format string, dropped map[model.Kind]int64, strict bool) error {
	var msgs, n int64
	var kinds []string
	for _, k := range slices.Sorted(maps.Keys(dropped)) {
		if k == model.KindSend || k == model.KindRecv {
			msgs += dropped[k]
			continue
		}
		n += dropped[k]
		kinds = append(kinds, fmt.Sprintf("%d %v", dropped[k], k))
	}
	var what []string
	if msgs > 0 {
		what = append(what, fmt.Sprintf("%d messages without a known peer not written (the format names both ends of a message)", msgs))
	}
	if n > 0 {
		what = append(what, fmt.Sprintf("%d other events not written (%s: %s has no form for them, or they have no region or nothing open)", n, strings.Join(kinds, ", "), format))
	}
	if len(what) == 0 {
		return nil
	}
	if strict {
		return fmt.Errorf("%s: -strict: %s", out, strings.Join(what, "; "))
	}
	if notes != nil {
		for _, w := range what {
			fmt.Fprintf(notes, "traceconv: %s: %s\n", out, w)
		}
	}
	return nil
}

// writeOTF writes in through an otf.ModelWriter: a first pass learns the
// definitions and the earliest time (OTF times are unsigned, so a trace
// starting before 0 is shifted), the second writes the events.
func writeOTF(in modelInput, c model.Creator, stub string, o *otfFlags, dropped *map[model.Kind]int64) error {
	sc, err := scanModel(in)
	if err != nil {
		return err
	}
	opts := &otf.ModelWriterOptions{
		Stub:          stub,
		WriterOptions: otf.WriterOptions{Long: o.form == "long", Zlib: o.zlib, ZlibBlockSize: o.zlibBlock},
		Streams:       o.streams,
		Creator:       "hpctrace traceconv",
		Origin:        min(sc.min, 0),
	}
	w, err := otf.NewModelWriter(c, sc.defs, opts)
	if err != nil {
		return err
	}
	err = writeEvents(in, w.Write, w.Close)
	*dropped = w.Dropped()
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
