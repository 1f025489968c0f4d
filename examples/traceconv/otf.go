package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hpctrace/hpctrace/examples/internal/outfile"
	"github.com/hpctrace/hpctrace/internal/zflush"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf"
)

type otfFlags struct {
	form      string
	zlib      bool
	zlibBlock int
	streams   int
	// formSet and zlibSet record that -form and -zlib were given: a copy
	// keeps the input's record syntax and compression unless they are.
	formSet, zlibSet bool
}

func (o *otfFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&o.form, "form", "short", "OTF output record syntax: short or long")
	fs.BoolVar(&o.zlib, "zlib", false, "OTF output: zlib-compress the record files")
	fs.IntVar(&o.zlibBlock, "zlib-block", 0, "OTF output: text per zlib full-flush block (0: 1 MiB)")
	fs.IntVar(&o.streams, "streams", 0, "OTF output: re-stream the processes onto this many streams (0: keep)")
}

// convertOTF copies the OTF trace in (a master file path) to out. It shows
// the bytes read of the size of the trace's files on a terminal.
func convertOTF(in, out string, o *otfFlags) error {
	if o.formSet && o.form != "short" && o.form != "long" {
		return fmt.Errorf("-form %q: want short or long", o.form)
	}
	dir, name := filepath.Split(in)
	if dir == "" {
		dir = "."
	}
	m := copyMeter(in, otfSize(dir, strings.TrimSuffix(name, ".otf")))
	defer func() { m.Done(m.Count()) }()
	return withOTFOutput(out, func(create model.Creator, stub string) error {
		return copyOTF(m.FS(os.DirFS(dir)), name, create, stub, o)
	})
}

// withOTFOutput calls write with a Creator of files beside the master file
// out and the name stub the trace's files share. The files are created in
// a temporary directory and moved into place, master file last, when write
// succeeds; otherwise they are removed and nothing beside out changes.
// convert has checked the existing files against -force and the inputs.
func withOTFOutput(out string, write func(create model.Creator, stub string) error) error {
	dir, stub := otfOutput(out)
	set, err := outfile.NewSet(dir, stub+".otf", otfOwned(stub), &outfile.Options{Force: true})
	if err != nil {
		return err
	}
	if err := write(model.CreateFunc(set.Create), stub); err != nil {
		set.Abort()
		return err
	}
	return set.Commit()
}

// otfSize returns the size in bytes of the files of the OTF trace stub
// in dir (see otfOwned).
func otfSize(dir, stub string) int64 {
	ents, _ := os.ReadDir(dir)
	owned := otfOwned(stub)
	var paths []string
	for _, e := range ents {
		if !e.IsDir() && owned(e.Name()) {
			paths = append(paths, filepath.Join(dir, e.Name()))
		}
	}
	return sizeOf(paths...)
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

// otfOwned reports the names of the files of the OTF trace stub
// (outfile.OTFOwned).
func otfOwned(stub string) func(name string) bool { return outfile.OTFOwned(stub) }

// copyOTF copies trace name of fsys to stub through c: file by file,
// unless -streams re-streams it.
func copyOTF(fsys fs.FS, name string, c model.Creator, stub string, o *otfFlags) error {
	t, err := otf.OpenFS(fsys, name, nil)
	if err != nil {
		return err
	}
	defer t.Close()
	if o.streams == 0 {
		return copyOTFFiles(fsys, t, c, stub, o)
	}
	long, z := o.form == "long", o.zlib
	if !o.formSet {
		long = otfLongForm(t)
	}
	if !o.zlibSet {
		z = otfZlib(t)
	}
	opts := &otf.TraceWriterOptions{
		WriterOptions: otf.WriterOptions{Long: long, Zlib: z, ZlibBlockSize: o.zlibBlock},
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
	opts.Stub = stub
	w, err := otf.NewTraceWriter(c, opts)
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
	if err := w.Close(); err != nil {
		return err
	}
	return copyThumb(fsys, t, c, stub)
}

// otfFileTypes lists the record file types in the order they are copied.
var otfFileTypes = []otf.FileType{otf.FileDef, otf.FileEvents, otf.FileSnaps, otf.FileStats, otf.FileMarker}

// copyOTFFiles copies each record file of t to the file of the same
// stream and type, record by record with the state lines as they are
// (otf.WriterOptions.StateRecords), in the input's record syntax and
// compression unless -form or -zlib say otherwise; then the master file
// and the thumbnail (S.thumb, not a record file: copied byte for byte).
func copyOTFFiles(fsys fs.FS, t *otf.Trace, c model.Creator, stub string, o *otfFlags) error {
	long := o.form == "long"
	if !o.formSet {
		long = otfLongForm(t)
	}
	ids := []uint32{0}
	for _, s := range t.Streams {
		if !slices.Contains(ids, s.ID) {
			ids = append(ids, s.ID)
		}
	}
	for _, id := range ids {
		for _, ft := range otfFileTypes {
			f, _, z, err := t.OpenFile(id, ft)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return err
			}
			f.Close()
			if o.zlibSet {
				z = o.zlib
			}
			wo := &otf.WriterOptions{Long: long, Zlib: z, ZlibBlockSize: o.zlibBlock, File: ft, StateRecords: true}
			if err := copyOTFFile(t, id, ft, c, otf.FileName(stub, id, ft, z), wo); err != nil {
				return err
			}
		}
	}
	if err := createWith(c, stub+".otf", func(w io.Writer) error {
		_, err := w.Write(otf.AppendMaster(nil, t.Streams))
		return err
	}); err != nil {
		return err
	}
	return copyThumb(fsys, t, c, stub)
}

// copyThumb copies the thumbnail of t (S.thumb, for trace viewers; not a
// record file), if it has one, byte for byte. It shows the function on top
// of each process's stack over time, so re-streaming does not change it.
func copyThumb(fsys fs.FS, t *otf.Trace, c model.Creator, stub string) error {
	thumb, err := fsys.Open(t.Stub + ".thumb")
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer thumb.Close()
	return createWith(c, stub+".thumb", func(w io.Writer) error {
		_, err := io.Copy(w, thumb)
		return err
	})
}

// copyOTFFile copies stream id's file of type ft to the file name created
// through c.
func copyOTFFile(t *otf.Trace, id uint32, ft otf.FileType, c model.Creator, name string, wo *otf.WriterOptions) error {
	r, err := t.OpenReader(id, ft, &otf.ReaderOptions{StateRecords: true})
	if err != nil {
		return err
	}
	defer r.Close()
	return createWith(c, name, func(out io.Writer) error {
		w, err := otf.NewWriter(out, wo)
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

// createWith creates name through c, lets write fill it and closes it.
func createWith(c model.Creator, name string, write func(io.Writer) error) error {
	wc, err := c.Create(name)
	if err != nil {
		return err
	}
	err = write(wc)
	if cerr := wc.Close(); err == nil {
		err = cerr
	}
	return err
}

// otfZlib reports whether the trace's first record file is compressed.
func otfZlib(t *otf.Trace) bool {
	ids := []uint32{0}
	for _, s := range t.Streams {
		ids = append(ids, s.ID)
	}
	for _, id := range ids {
		for _, ft := range otfFileTypes {
			if f, _, z, err := t.OpenFile(id, ft); err == nil {
				f.Close()
				return z
			}
		}
	}
	return false
}

// otfLongForm reports whether the trace is written in the long record
// syntax, judged by the first record line of its first record file: a
// long keyword has five letters or more (or is SEND or KEY), a short one
// at most four.
func otfLongForm(t *otf.Trace) bool {
	ids := []uint32{0}
	for _, s := range t.Streams {
		ids = append(ids, s.ID)
	}
	for _, id := range ids {
		for _, ft := range otfFileTypes {
			f, _, z, err := t.OpenFile(id, ft)
			if err != nil {
				continue
			}
			long, ok := firstKeywordLong(f, z)
			f.Close()
			if ok {
				return long
			}
		}
	}
	return false
}

// firstKeywordLong reads the first record line of a record file (within
// its first 64 KiB of text) and reports whether its keyword is long.
func firstKeywordLong(f io.Reader, z bool) (long, ok bool) {
	if z {
		zr, err := zflush.NewReader(f)
		if err != nil {
			return false, false
		}
		f = zr
	}
	sc := bufio.NewScanner(io.LimitReader(f, 64<<10))
	for sc.Scan() {
		line := strings.TrimLeft(sc.Text(), " \t")
		if line == "" || line[0] == '*' || strings.IndexByte("0123456789abcdef", line[0]) >= 0 {
			continue // a state line
		}
		i := 0
		if line[0] == '#' {
			i++
		}
		for i < len(line) && line[i] >= 'A' && line[i] <= 'Z' {
			i++
		}
		kw := line[:i]
		return len(kw) >= 5 || kw == "SEND" || kw == "KEY", true
	}
	return false, false
}
