package main

import (
	"bufio"
	"os"

	"github.com/hpctrace/hpctrace/dumpi"
)

// copyDUMPI copies one DUMPI rank file call by call; the copy keeps every
// section, so it is byte-identical to a file from the reference tracer.
func copyDUMPI(in, out string) error {
	f, err := dumpi.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	opts, err := f.CopyOptions()
	if err != nil {
		return err
	}
	of, err := os.Create(out)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(of)
	w, err := dumpi.NewWriter(bw, opts)
	if err == nil {
		err = copyCalls(w, f.Calls())
	}
	if err == nil {
		err = w.Close()
	}
	if err == nil {
		err = bw.Flush()
	}
	if cerr := of.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(out)
	}
	return err
}

func copyCalls(w *dumpi.Writer, r *dumpi.Reader) error {
	for c, err := range r.All() {
		if err != nil {
			return err
		}
		if err := w.Write(c); err != nil {
			return err
		}
	}
	return nil
}
