package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hpctrace/hpctrace/examples/internal/outfile"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf2"
)

// otf2Output returns the directory and the archive name of the OTF2
// archive whose anchor file is out ("dir/t.otf2" → "dir", "t").
func otf2Output(out string) (dir, name string) {
	dir, file := filepath.Split(out)
	if dir == "" {
		dir = "."
	}
	return dir, strings.TrimSuffix(file, ".otf2")
}

// otf2Owned reports the names of the files of the OTF2 archive name
// (outfile.OTF2Owned).
func otf2Owned(name string) func(string) bool { return outfile.OTF2Owned(name) }

// otf2Files returns the files of the OTF2 archive of the anchor file
// anchor by their name after the archive's name (".otf2", ".def",
// "/0.evt", ...).
func otf2Files(anchor string) map[string]string {
	dir, name := otf2Output(anchor)
	owned := otf2Owned(name)
	m := map[string]string{}
	for _, sub := range []string{"", name} {
		ents, _ := os.ReadDir(filepath.Join(dir, sub))
		for _, e := range ents {
			f := e.Name()
			if sub != "" {
				f = sub + "/" + f
			}
			if !e.IsDir() && owned(f) {
				m[strings.TrimPrefix(f, name)] = filepath.Join(dir, filepath.FromSlash(f))
			}
		}
	}
	return m
}

// withOTF2Output calls write with a Creator of the archive's files and
// the archive's name. The files are created in a temporary directory
// beside out and moved into place, the anchor last, when write succeeds;
// otherwise they are removed and nothing beside out changes. convert has
// checked the existing files against -force and the inputs.
func withOTF2Output(out string, write func(c model.Creator, name string) error) error {
	dir, name := otf2Output(out)
	set, err := outfile.NewSet(dir, name+".otf2", otf2Owned(name), &outfile.Options{Force: true})
	if err != nil {
		return err
	}
	if err := write(set, name); err != nil {
		set.Abort()
		return err
	}
	return set.Commit()
}

// toOTF2 converts in to the OTF2 archive whose anchor file is out through
// an otf2.ModelWriter: a first pass learns the definitions and the
// earliest time (OTF2 times are unsigned, so a trace starting before 0 is
// shifted), the second writes the events. What the model could not carry
// into OTF2 is counted on notes.
func toOTF2(in modelInput, out string, notes io.Writer, strict bool) error {
	return withOTF2Output(out, func(c model.Creator, name string) error {
		sc, err := scanModel(in)
		if err != nil {
			return err
		}
		w, err := otf2.NewModelWriter(c, sc.defs, &otf2.ModelWriterOptions{
			WriterOptions: otf2.WriterOptions{Name: name, Creator: "hpctrace traceconv"},
			Origin:        min(sc.min, 0),
		})
		if err != nil {
			return err
		}
		if err := writeEvents(in, w.Write, w.Close); err != nil {
			return err
		}
		if n := w.Lost(); n > 0 {
			what := fmt.Sprintf("%d events not written (no region, unmatched or of unknown class; see otf2.ModelWriter)", n)
			if strict {
				return fmt.Errorf("%s: -strict: %s", out, what)
			}
			if notes != nil {
				fmt.Fprintf(notes, "traceconv: %s: %s\n", out, what)
			}
		}
		return nil
	})
}

// copyOTF2 copies the OTF2 archive of the anchor file in to out record by
// record, with the stored ids and times, the local definitions (mapping
// tables, clock offsets) and every event and attribute list: the anchor's
// texts, properties and trace id, and the chunk sizes, are kept, so a copy
// of an archive libotf2 wrote is byte-identical. Records of kinds unknown
// to the reader cannot be written back and are left out. Snapshot,
// marker and thumbnail files, which refer to the definitions by the ids
// the copy keeps, are copied byte for byte. It shows the bytes read of
// the size of the files read record by record on a terminal.
func copyOTF2(in, out string) error {
	var recFiles []string // the files read record by record
	for k, p := range otf2Files(in) {
		if !strings.HasSuffix(k, ".snap") && !strings.HasSuffix(k, ".thumb") && k != ".marker" {
			recFiles = append(recFiles, p)
		}
	}
	m := copyMeter(in, sizeOf(recFiles...))
	defer func() { m.Done(m.Count()) }()
	dir, file := filepath.Split(in)
	if dir == "" {
		dir = "."
	}
	a, err := otf2.OpenFS(m.FS(os.DirFS(dir)), file, nil)
	if err != nil {
		return err
	}
	defer a.Close()
	return withOTF2Output(out, func(c model.Creator, name string) error {
		an := a.Anchor
		w, err := otf2.NewArchiveWriter(c, &otf2.WriterOptions{
			Name: name, EventChunkSize: int64(an.EventChunkSize), DefChunkSize: int64(an.DefChunkSize),
			MachineName: an.MachineName, Creator: an.Creator, Description: an.Description,
			Properties: an.Properties, TraceID: an.TraceID,
			NumSnapshots: an.NumSnapshots, NumThumbnails: an.NumThumbnails,
		})
		if err != nil {
			return err
		}
		files := otf2Files(in)
		for _, loc := range a.Locations() {
			if _, ok := files["/"+strconv.FormatUint(loc, 10)+".def"]; !ok {
				w.OmitLocalDefFile(loc)
			}
		}
		if err := copyOTF2Records(a, w); err != nil {
			w.Abort()
			return err
		}
		for k, p := range otf2Files(in) {
			if strings.HasSuffix(k, ".snap") || strings.HasSuffix(k, ".thumb") || k == ".marker" {
				if err := copyFileTo(c, name+k, p); err != nil {
					w.Abort()
					return err
				}
			}
		}
		return w.Close()
	})
}

// copyFileTo copies the file path to name created through c.
func copyFileTo(c model.Creator, name, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	wc, err := c.Create(name)
	if err != nil {
		return err
	}
	_, err = io.Copy(wc, f)
	if cerr := wc.Close(); err == nil {
		err = cerr
	}
	return err
}

// copyOTF2Records writes the definitions and events of a through w.
func copyOTF2Records(a *otf2.Archive, w *otf2.ArchiveWriter) error {
	for _, d := range a.Defs.All() {
		if d.Kind == otf2.DefKindUnknown {
			continue
		}
		if err := w.WriteDef(d); err != nil {
			return err
		}
	}
	for _, loc := range a.Locations() {
		ld, err := a.LocalDefs(loc)
		if err != nil {
			return err
		}
		for _, d := range ld.Defs {
			if err := w.WriteLocalDef(loc, d); err != nil {
				return err
			}
		}
		if err := copyOTF2Events(a, loc, w); err != nil {
			return err
		}
	}
	return nil
}

// copyOTF2Events copies the events of location loc with their stored
// values.
func copyOTF2Events(a *otf2.Archive, loc uint64, w *otf2.ArchiveWriter) error {
	r, err := a.EventReader(loc)
	if err != nil {
		return err
	}
	defer r.Close()
	ew, err := w.EventWriter(loc)
	if err != nil {
		return err
	}
	raw := map[otf2.Kind]*otf2.Event{}
	for ev, err := range r.All() {
		if err != nil {
			return err
		}
		if ev.Kind == otf2.KindUnknown {
			continue
		}
		e := raw[ev.Kind]
		if e == nil {
			e = otf2.NewEvent(ev.Kind, 0)
			raw[ev.Kind] = e
		}
		e.Time, e.RawTime = ev.RawTime, ev.RawTime
		for i, f := range ev.Kind.Fields() {
			if f.Element() {
				e.SetElems(i, ev.RawElems(i))
			} else {
				e.SetValue(i, ev.RawValue(i))
			}
		}
		e.Attrs = e.Attrs[:0]
		for _, at := range ev.Attrs {
			e.Attrs = append(e.Attrs, otf2.Attribute{ID: at.RawID, Type: at.Type, Value: at.RawValue})
		}
		if err := ew.Write(e); err != nil {
			return err
		}
	}
	return nil
}
