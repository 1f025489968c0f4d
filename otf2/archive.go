package otf2

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// An Archive is an opened OTF2 archive: its anchor, its global definitions
// and, loaded on first use, the local definitions of each location.
//
// An Archive holds no file open between calls: Open reads the anchor and
// the global definitions and closes their files, LocalDefs closes the
// local definition file it reads, and each reader an Archive opens
// (EventReader, MergedReader, SnapshotReader, MarkerReader,
// ThumbnailReader) owns its file, which its Close closes. Close ends the
// Archive's use: its methods that open files then fail with ErrClosed.
//
// An Archive is safe for concurrent reads of its Anchor and Defs; its
// methods that load local definitions or open readers are not safe for
// concurrent use.
type Archive struct {
	Anchor *Anchor
	Defs   *Defs

	opts    OpenOptions
	missing map[uint64]uint64 // locations read as empty → the events their definitions declare
	closed  bool

	fsys  fs.FS
	base  string // path of the anchor without ".otf2", inside fsys
	local map[uint64]*LocalDefs
}

// OpenOptions configures Open and OpenFS. A nil or zero value reads an
// archive as libotf2 does.
type OpenOptions struct {
	// AllowMissingEvents makes EventReader read a missing event file of a
	// location whose definition declares events as empty, counting it
	// (Archive.MissingEvents), instead of failing with ErrIntegrity as
	// libotf2 does.
	AllowMissingEvents bool
}

// LocalDefs are the local definitions of one location.
type LocalDefs struct {
	Location uint64
	Mapping  Mapping       // the mapping tables (the last of each type wins)
	Clock    []ClockOffset // clock offsets in file order
	Defs     []*Def        // every local definition record in file order, MappingTable and ClockOffset included
}

// Open opens the archive whose anchor file is name (e.g.
// "trace/traces.otf2") in the operating system's file system; see OpenFS.
// opts may be nil.
func Open(name string, opts *OpenOptions) (*Archive, error) {
	dir, file := filepath.Split(name)
	if dir == "" {
		dir = "."
	}
	return OpenFS(os.DirFS(dir), file, opts)
}

// OpenFS opens the archive whose anchor file is name in fsys. It reads
// the anchor and the global definitions, closing their files, and checks
// the definition count the anchor carries, as libotf2 does. opts may be
// nil. The caller must Close the Archive when done with it and with the
// readers and sources made from it.
func OpenFS(fsys fs.FS, name string, opts *OpenOptions) (*Archive, error) {
	if !strings.HasSuffix(name, ".otf2") {
		return nil, fmt.Errorf("otf2: anchor file %q does not end in .otf2", name)
	}
	f, err := openRegular(fsys, name)
	if err != nil {
		return nil, err
	}
	an, err := ReadAnchor(f, name)
	f.Close()
	if err != nil {
		return nil, err
	}
	a := &Archive{Anchor: an, fsys: fsys, base: strings.TrimSuffix(name, ".otf2"), local: map[uint64]*LocalDefs{}}
	if opts != nil {
		a.opts = *opts
	}
	def := a.base + ".def"
	f, err = openRegular(fsys, def)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dr, err := NewDefReader(f, &DefReaderOptions{Path: def, ChunkSize: int64(an.DefChunkSize)})
	if err != nil {
		return nil, err
	}
	a.Defs, err = ReadDefs(dr)
	if err != nil {
		return nil, err
	}
	if uint64(dr.Count()) != an.NumGlobalDefs {
		return nil, &ParseError{Path: def, Record: dr.Count(), Err: fmt.Errorf("%w: %d global definitions read, the anchor says %d", ErrIntegrity, dr.Count(), an.NumGlobalDefs)}
	}
	return a, nil
}

// Close ends the use of the archive. It holds no file open (see
// [Archive]), so Close closes nothing; the readers and model sources made
// from the archive keep their files until their own Close. After Close,
// the methods that open files return ErrClosed. A second Close returns
// nil.
func (a *Archive) Close() error {
	a.closed = true
	return nil
}

// open opens the file name of the archive, or fails with ErrClosed after
// Close.
func (a *Archive) open(name string) (fs.File, error) {
	if a.closed {
		return nil, ErrClosed
	}
	return openRegular(a.fsys, name)
}

// openRegular opens the file name of fsys and refuses one that is not a
// regular file (a device such as /dev/zero, a pipe, a directory), which
// has no end or no size to bound the reading by.
func openRegular(fsys fs.FS, name string) (fs.File, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, fmt.Errorf("otf2: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("otf2: %w", err)
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &ParseError{Path: name, Err: fmt.Errorf("%w: not a regular file (%v)", ErrFormat, st.Mode().Type())}
	}
	return f, nil
}

// Name returns the path of one of the archive's files inside its file
// system: ext "def" or "evt" or "snap" with a location, or "" for the
// global definitions.
func (a *Archive) fileName(loc uint64, ext string) string {
	return path.Join(a.base, strconv.FormatUint(loc, 10)+"."+ext)
}

// Locations returns the ids of the archive's locations in definition order.
func (a *Archive) Locations() []uint64 { return a.Defs.locations }

// LocalDefs reads (once) and returns the local definitions of location
// loc. A location without a local definition file has none.
func (a *Archive) LocalDefs(loc uint64) (*LocalDefs, error) {
	if ld, ok := a.local[loc]; ok {
		return ld, nil
	}
	if a.closed {
		return nil, ErrClosed
	}
	ld := &LocalDefs{Location: loc}
	name := a.fileName(loc, "def")
	f, err := a.open(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			a.local[loc] = ld
			return ld, nil
		}
		return nil, err
	}
	defer f.Close()
	dr, err := NewDefReader(f, &DefReaderOptions{Path: name, File: LocalDefFile, ChunkSize: int64(a.Anchor.DefChunkSize)})
	if err != nil {
		return nil, err
	}
	for dr.Next() {
		d := dr.Record().Clone()
		ld.Defs = append(ld.Defs, d)
		switch d.Kind {
		case DefKindMappingTable:
			mt, _ := d.MappingTable()
			m := d.idMap
			ld.Mapping.Set(mt.MappingType, &m)
		case DefKindClockOffset:
			co, _ := d.ClockOffset()
			ld.Clock = append(ld.Clock, ClockOffset(co))
		}
	}
	if err := dr.Err(); err != nil {
		return nil, err
	}
	for i := 1; i < len(ld.Clock); i++ {
		if ld.Clock[i].Time == ld.Clock[i-1].Time {
			return nil, &ParseError{Path: name, Err: fmt.Errorf("%w: two clock offsets at time %d", ErrIntegrity, ld.Clock[i].Time)}
		}
	}
	a.local[loc] = ld
	return ld, nil
}

// EventReader opens the event file of location loc with its mapping tables
// and clock offsets applied. A location without an event file has no
// events if its definition declares none (NumberOfEvents 0); if it
// declares some, a missing event file is an ErrIntegrity error, unless
// OpenOptions.AllowMissingEvents. Close the reader to close the file.
func (a *Archive) EventReader(loc uint64) (*EventReader, error) {
	if _, ok := a.Defs.Lookup(DefKindLocation, loc); !ok {
		return nil, fmt.Errorf("%w: %d", ErrNoLocation, loc)
	}
	ld, err := a.LocalDefs(loc)
	if err != nil {
		return nil, err
	}
	name := a.fileName(loc, "evt")
	opts := &EventReaderOptions{Path: name, Location: loc, ChunkSize: int64(a.Anchor.EventChunkSize), Mapping: &ld.Mapping, Clock: ld.Clock}
	f, err := a.open(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if n := a.declaredEvents(loc); n > 0 {
				if !a.opts.AllowMissingEvents {
					return nil, &ParseError{Path: name, Err: fmt.Errorf("%w: the event file is missing, and the definition of location %d declares %d events", ErrIntegrity, loc, n)}
				}
				if a.missing == nil {
					a.missing = map[uint64]uint64{}
				}
				a.missing[loc] = n
			}
			r, err := NewEventReader(emptyEvents{}, opts)
			return r, err
		}
		return nil, err
	}
	if st, err := f.Stat(); err == nil {
		opts.Size = st.Size()
	}
	r, err := NewEventReader(f, opts)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = f
	return r, nil
}

// declaredEvents returns the number of events the definition of location
// loc declares.
func (a *Archive) declaredEvents(loc uint64) uint64 {
	d, ok := a.Defs.Lookup(DefKindLocation, loc)
	if !ok {
		return 0
	}
	l, _ := d.Location()
	return l.NumberOfEvents
}

// MissingEvents returns the number of locations whose missing event file
// EventReader read as empty under OpenOptions.AllowMissingEvents, and the
// number of events their definitions declare.
func (a *Archive) MissingEvents() (locations int, events uint64) {
	for _, n := range a.missing {
		events += n
	}
	return len(a.missing), events
}

// SnapshotReader opens the snapshot file of location loc, if it has one.
func (a *Archive) SnapshotReader(loc uint64) (*SnapshotReader, error) {
	ld, err := a.LocalDefs(loc)
	if err != nil {
		return nil, err
	}
	name := a.fileName(loc, "snap")
	f, err := a.open(name)
	if err != nil {
		return nil, err
	}
	r, err := NewSnapshotReader(f, &EventReaderOptions{Path: name, Location: loc, ChunkSize: int64(a.Anchor.EventChunkSize), Mapping: &ld.Mapping, Clock: ld.Clock})
	if err != nil {
		f.Close()
		return nil, err
	}
	r.r.closer = f
	return r, nil
}

// Close closes the snapshot file if the reader was opened by an Archive.
func (s *SnapshotReader) Close() error { return s.r.Close() }

// emptyEvents is the event file of a location that has none: an empty
// chunk and the end marker.
type emptyEvents struct{}

func (emptyEvents) Read(p []byte) (int, error) { return 0, io.EOF }

// MarkerReader opens the archive's marker file (<name>.marker, written by
// otf2-marker): MarkerDef and Marker records. Close the reader to close
// the file. The records follow the record table; the marker time is
// stored compressed and is not clock-corrected.
func (a *Archive) MarkerReader() (*DefReader, error) {
	return a.defFile(a.base+".marker", MarkerFile, int64(a.Anchor.DefChunkSize))
}

// ThumbnailReader opens thumbnail n (<name>.<n>.thumb): a ThumbHeader and
// ThumbSample records. Close the reader to close the file.
func (a *Archive) ThumbnailReader(n uint32) (*DefReader, error) {
	return a.defFile(a.base+"."+strconv.FormatUint(uint64(n), 10)+".thumb", ThumbnailFile, 1<<20)
}

func (a *Archive) defFile(name string, file DefFile, chunk int64) (*DefReader, error) {
	f, err := a.open(name)
	if err != nil {
		return nil, err
	}
	r, err := NewDefReader(f, &DefReaderOptions{Path: name, File: file, ChunkSize: chunk})
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = f
	return r, nil
}
