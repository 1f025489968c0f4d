package main

import (
	"io"

	"github.com/hpctrace/hpctrace/dumpi"
)

// copyDUMPI copies one DUMPI rank file call by call; the copy keeps every
// section, so it is byte-identical to a file from the reference tracer. It
// shows the bytes read of the file's size on a terminal.
func copyDUMPI(in, out string) error {
	m := copyMeter(in, sizeOf(in))
	f, err := dumpi.OpenFS(m.FS(osFile(in)), in, nil)
	if err != nil {
		return err
	}
	defer f.Close()
	defer func() { m.Done(m.Count()) }()
	opts, err := f.CopyOptions()
	if err != nil {
		return err
	}
	return createFile(out, func(bw io.Writer) error {
		w, err := dumpi.NewWriter(bw, opts)
		if err != nil {
			return err
		}
		if err := copyCalls(w, f.Calls()); err != nil {
			return err
		}
		return w.Close()
	})
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
