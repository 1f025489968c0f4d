package main

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hpctrace/hpctrace/internal/outfile"
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
// out and the name stub the trace's files share. The files are created in
// a temporary directory and moved into place, master file last, when write
// succeeds; otherwise they are removed and nothing beside out changes.
// convert has checked the existing files against -force and the inputs.
func withOTFOutput(out string, write func(create otf.Creator, stub string) error) error {
	dir, stub := otfOutput(out)
	set, err := outfile.NewSet(dir, stub+".otf", otfOwned(stub), &outfile.Options{Force: true})
	if err != nil {
		return err
	}
	if err := write(otf.CreateFunc(set.Create), stub); err != nil {
		set.Abort()
		return err
	}
	return set.Commit()
}

// otfOutput returns the directory and the name stub of the OTF trace whose
// master file is out ("dir/t.otf" → "dir", "t").
func otfOutput(out string) (dir, stub string) {
	dir, name := filepath.Split(out)
	if dir == "" {
		dir = "."
	}
	return dir, strings.TrimSuffix(name, ".otf")
}

// otfOwned reports the names of the files of the OTF trace stub: its
// master file, thumbnail and record files (stub.ID.def, .events, .snaps,
// .stats, .marker, each optionally .z; ID in hex).
func otfOwned(stub string) func(name string) bool {
	return func(name string) bool {
		rest, ok := strings.CutPrefix(name, stub+".")
		if !ok {
			return false
		}
		if rest == "otf" || rest == "thumb" {
			return true
		}
		id, typ, ok := strings.Cut(strings.TrimSuffix(rest, ".z"), ".")
		if !ok || id == "" || strings.Trim(id, "0123456789abcdefABCDEF") != "" {
			return false
		}
		switch typ {
		case "def", "events", "snaps", "stats", "marker":
			return true
		}
		return false
	}
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
