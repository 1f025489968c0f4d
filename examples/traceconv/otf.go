package main

import (
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hpctrace/hpctrace/otf"
)

type otfFlags struct {
	form      string
	zlib      bool
	zlibBlock int
	streams   int
}

func (o *otfFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&o.form, "form", "short", "OTF output record syntax: short or long")
	fs.BoolVar(&o.zlib, "zlib", false, "OTF output: zlib-compress the record files")
	fs.IntVar(&o.zlibBlock, "zlib-block", 0, "OTF output: text per zlib full-flush block (0: 1 MiB)")
	fs.IntVar(&o.streams, "streams", 0, "OTF output: re-stream the processes onto this many streams (0: keep)")
}

// convertOTF copies the OTF trace in (a master file path) to out.
func convertOTF(in, out string, o *otfFlags) error {
	if o.form != "short" && o.form != "long" {
		return fmt.Errorf("-form %q: want short or long", o.form)
	}
	dir, name := filepath.Split(in)
	if dir == "" {
		dir = "."
	}
	return withOTFOutput(out, func(create otf.Creator, stub string) error {
		return copyOTF(os.DirFS(dir), name, create, stub, o)
	})
}

// withOTFOutput calls write with a Creator of files beside the master file
// out and the name stub the trace's files share.
func withOTFOutput(out string, write func(create otf.Creator, stub string) error) error {
	odir, oname := filepath.Split(out)
	if odir == "" {
		odir = "."
	}
	root, err := os.OpenRoot(odir)
	if err != nil {
		return err
	}
	defer root.Close()
	create := otf.CreateFunc(func(n string) (io.WriteCloser, error) { return root.Create(n) })
	return write(create, strings.TrimSuffix(oname, ".otf"))
}

// copyOTF copies trace name of fsys to stub through c.
func copyOTF(fsys fs.FS, name string, c otf.Creator, stub string, o *otfFlags) error {
	t, err := otf.Open(fsys, name)
	if err != nil {
		return err
	}
	opts := &otf.TraceWriterOptions{
		WriterOptions: otf.WriterOptions{Long: o.form == "long", Zlib: o.zlib, ZlibBlockSize: o.zlibBlock},
	}
	// local definitions of an input stream go to the output stream of its first process
	defStream := map[uint32]uint32{}
	if o.streams > 0 {
		opts.MaxStreams = o.streams
		// assign processes in ascending order, round robin as the reference writer does
		var procs []uint32
		for _, s := range t.Streams {
			procs = append(procs, s.Processes...)
		}
		slices.Sort(procs)
		n := min(o.streams, max(len(procs), 1))
		streams := make([]otf.Stream, n)
		for i := range streams {
			streams[i].ID = uint32(i + 1)
		}
		where := map[uint32]uint32{}
		for i, p := range procs {
			streams[i%n].Processes = append(streams[i%n].Processes, p)
			where[p] = uint32(i%n + 1)
		}
		opts.Streams = streams
		for _, s := range t.Streams {
			if len(s.Processes) > 0 {
				defStream[s.ID] = where[s.Processes[0]]
			}
		}
	} else {
		opts.Streams = t.Streams
		for _, s := range t.Streams {
			defStream[s.ID] = s.ID
		}
	}
	w, err := otf.NewTraceWriter(c, stub, opts)
	if err != nil {
		return err
	}
	for _, f := range []otf.FileType{otf.FileDef, otf.FileEvents, otf.FileSnaps, otf.FileStats, otf.FileMarker} {
		tr, err := t.NewReader(&otf.TraceReaderOptions{File: f})
		if err != nil {
			w.Close()
			return err
		}
		for rec, err := range tr.All() {
			if err != nil {
				tr.Close()
				w.Close()
				return err
			}
			if f == otf.FileDef && rec.Stream != 0 {
				rec.Stream = defStream[rec.Stream]
			}
			if err := w.WriteIn(f, rec); err != nil {
				tr.Close()
				w.Close()
				return err
			}
		}
		if err := tr.Close(); err != nil {
			w.Close()
			return err
		}
	}
	return w.Close()
}
