package otf

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/hpctrace/hpctrace/model"
)

// TraceWriterOptions configures a TraceWriter. A nil or zero value means
// short format, no compression, and streams assigned on demand with at
// most one stream.
type TraceWriterOptions struct {
	// Stub is the name stub of the files ("trace" → trace.otf,
	// trace.0.def, trace.1.events, …; "run/trace" puts them in the
	// directory run); "" means "trace".
	Stub string
	// WriterOptions sets the format and compression of every record file.
	WriterOptions
	// Streams is an explicit stream → process mapping. When nil, streams
	// are created on demand: the first MaxStreams processes seen get
	// streams 1, 2, ...; each later process joins the stream with the
	// fewest processes (the lowest id among equals), as in the reference
	// writer.
	Streams []Stream
	// MaxStreams bounds the streams created on demand; 0 means 1.
	MaxStreams int
}

type fileKey struct {
	stream uint32
	file   FileType
}

type openFile struct {
	wc io.WriteCloser
	w  *Writer
}

// A TraceWriter writes a whole trace: it routes each record to the file
// of its type and stream (definitions by Record.Stream, events, snapshots
// and summaries by the stream of Record.Process, markers to S.0.marker),
// creates the files on first use and writes the master file on Close.
//
// A TraceWriter is not safe for concurrent use.
type TraceWriter struct {
	c        model.Creator
	stub     string
	opts     TraceWriterOptions
	streams  []Stream
	explicit bool
	byProc   map[uint32]uint32
	files    map[fileKey]*openFile
	order    []fileKey
	err      error
	closed   bool
	n        int64
}

// NewTraceWriter returns a TraceWriter creating the files of the stub
// opts.Stub through c ([model.DirCreator] writes them under a directory,
// [model.CreateFunc] adapts an os.Root or memory). It closes every file it
// created when it is closed, and nothing else.
func NewTraceWriter(c model.Creator, opts *TraceWriterOptions) (*TraceWriter, error) {
	if c == nil {
		return nil, fmt.Errorf("otf: NewTraceWriter: nil Creator: %w", ErrRange)
	}
	w := &TraceWriter{c: c, byProc: map[uint32]uint32{}, files: map[fileKey]*openFile{}}
	if opts != nil {
		w.opts = *opts
	}
	w.stub = cmp.Or(w.opts.Stub, "trace")
	if w.opts.MaxStreams <= 0 {
		w.opts.MaxStreams = 1
	}
	if w.opts.Streams != nil {
		w.explicit = true
		for _, s := range w.opts.Streams {
			if s.ID == 0 {
				return nil, fmt.Errorf("otf: stream 0 cannot hold processes: %w", ErrRange)
			}
			w.streams = append(w.streams, Stream{ID: s.ID, Processes: slices.Clone(s.Processes)})
			for _, p := range s.Processes {
				if _, dup := w.byProc[p]; dup {
					return nil, fmt.Errorf("otf: process %d in two streams: %w", p, ErrRange)
				}
				w.byProc[p] = s.ID
			}
		}
	}
	return w, nil
}

// streamOf returns the stream of process p, assigning one on demand.
func (w *TraceWriter) streamOf(p uint32) (uint32, error) {
	if id, ok := w.byProc[p]; ok {
		return id, nil
	}
	if w.explicit {
		return 0, fmt.Errorf("otf: process %d is not in TraceWriterOptions.Streams: %w", p, ErrRange)
	}
	var idx int
	if len(w.streams) < w.opts.MaxStreams {
		w.streams = append(w.streams, Stream{ID: uint32(len(w.streams) + 1)})
		idx = len(w.streams) - 1
	} else {
		for i := range w.streams {
			if len(w.streams[i].Processes) < len(w.streams[idx].Processes) {
				idx = i
			}
		}
	}
	w.streams[idx].Processes = append(w.streams[idx].Processes, p)
	w.byProc[p] = w.streams[idx].ID
	return w.streams[idx].ID, nil
}

// Write writes rec to the file its kind belongs to. A KindUnknown record
// needs WriteIn.
func (w *TraceWriter) Write(rec *Record) error {
	f := rec.Kind.File()
	if f == FileNone {
		switch rec.Kind {
		case KindTime, KindProcess:
			return nil
		}
		return fmt.Errorf("otf: record %d: kind %v has no file; use WriteIn: %w", w.n, rec.Kind, ErrRange)
	}
	return w.WriteIn(f, rec)
}

// WriteIn writes rec to the file of type f: the definition file of
// rec.Stream, S.0.marker, or the events, snapshot or statistics file of
// the stream holding rec.Process. It writes snapshot records into events
// files (inline snapshots) and unknown records anywhere.
func (w *TraceWriter) WriteIn(f FileType, rec *Record) error {
	if w.closed {
		return ErrClosed
	}
	if w.err != nil {
		return w.err
	}
	var key fileKey
	switch f {
	case FileDef:
		key = fileKey{rec.Stream, FileDef}
	case FileMarker:
		key = fileKey{0, FileMarker}
	case FileEvents, FileSnaps, FileStats:
		if rec.Kind == KindTime || rec.Kind == KindProcess {
			return nil
		}
		id, err := w.streamOf(rec.Process)
		if err != nil {
			return err
		}
		key = fileKey{id, f}
	default:
		return fmt.Errorf("otf: record %d: file type %d: %w", w.n, f, ErrRange)
	}
	of := w.files[key]
	if of == nil {
		wc, err := w.c.Create(FileName(w.stub, key.stream, key.file, w.opts.Zlib))
		if err != nil {
			w.err = err
			return err
		}
		wo := w.opts.WriterOptions
		wo.File = key.file
		fw, err := NewWriter(wc, &wo)
		if err != nil {
			wc.Close()
			w.err = err
			return err
		}
		of = &openFile{wc: wc, w: fw}
		w.files[key] = of
		w.order = append(w.order, key)
	}
	if err := of.w.Write(rec); err != nil {
		return err
	}
	w.n++
	return nil
}

// Streams returns the stream → process mapping so far.
func (w *TraceWriter) Streams() []Stream {
	s := make([]Stream, len(w.streams))
	for i, st := range w.streams {
		s[i] = Stream{ID: st.ID, Processes: slices.Clone(st.Processes)}
	}
	return s
}

// Close closes every record file (writing their closing state lines) and
// writes the master file. A second Close returns nil.
//
// The TraceWriter owns the files it creates through its Creator: it closes
// each of them in Close, also after a failure. The master file, which
// makes the files a trace, is created last and only when every record
// file was written and closed without error; after a failed Close the
// record files created so far are left as they are, without a master
// file, for the caller to remove (a Creator over a temporary directory,
// renamed into place after a successful Close, makes that one step).
func (w *TraceWriter) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	var errs []error
	if w.err != nil {
		errs = append(errs, w.err)
	}
	for _, k := range w.order {
		of := w.files[k]
		errs = append(errs, of.w.Close(), of.wc.Close())
	}
	if errors.Join(errs...) == nil {
		wc, err := w.c.Create(w.stub + ".otf")
		if err == nil {
			streams := w.streams
			if len(streams) == 0 && len(w.byProc) == 0 {
				streams = nil
			}
			_, err = wc.Write(AppendMaster(nil, streams))
			errs = append(errs, err, wc.Close())
		} else {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
