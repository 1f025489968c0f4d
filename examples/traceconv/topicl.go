package main

import (
	"bufio"
	"io"
	"os"

	"github.com/hpctrace/hpctrace/picl"
)

// toPICL converts in to the PICL trace file out through a
// picl.ModelWriter, in one pass: the writer labels locations and regions
// as their definitions appear. It tells notes (if not nil) how many
// messages without a known peer, and how many events of kinds PICL has no
// record for, it dropped.
func toPICL(in modelInput, out string, notes io.Writer) error {
	var noPeer, unwritten int64
	err := createFile(out, func(w io.Writer) error {
		src, closeSrc, err := in()
		if err != nil {
			return err
		}
		pw, err := picl.NewModelWriter(w, src.Defs(), nil)
		if err != nil {
			return closeAll(err, closeSrc)
		}
		err = copyModel(src, closeSrc, pw.Write, pw.Close)
		noPeer, unwritten = pw.NoPeer(), pw.Unwritten()
		return err
	})
	if err == nil {
		noPeerNote(notes, out, noPeer)
		unwrittenNote(notes, out, unwritten)
	}
	return err
}

// copyPICL copies a PICL trace record by record. It shows the bytes read
// of the file's size on a terminal.
func copyPICL(in, out string) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	m := copyMeter(in, sizeOf(in))
	defer func() { m.Done(m.Count()) }()
	r, err := picl.NewReader(bufio.NewReaderSize(m.Reader(f), 1<<16), &picl.ReaderOptions{Path: in})
	if err != nil {
		return err
	}
	return createFile(out, func(bw io.Writer) error {
		w, err := picl.NewWriter(bw, nil)
		if err != nil {
			return err
		}
		for rec, err := range r.All() {
			if err != nil {
				return err
			}
			if err := w.Write(rec); err != nil {
				return err
			}
		}
		return w.Close()
	})
}
