package hpctrace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hpctrace/hpctrace/chrome"
	"github.com/hpctrace/hpctrace/dumpi"
	"github.com/hpctrace/hpctrace/eventjson"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf"
	"github.com/hpctrace/hpctrace/otf2"
	"github.com/hpctrace/hpctrace/picl"
)

// Options configures Open. A nil or zero value detects the format and
// uses each format's default mapping.
type Options struct {
	// Format skips detection and reads the file in this format.
	Format Format
	// PICL configures the PICL mapping (the model's clock). Its
	// Selection must be zero: Open passes Locations and Window.
	PICL *picl.ModelOptions
	// DUMPI configures the DUMPI mapping of a rank file or a run (wall or
	// CPU time): the adapter's knobs. Its Selection must be zero: use
	// Locations and Window, which Open passes to the adapter.
	DUMPI *dumpi.ModelOptions
	// DUMPIRun is the open options of a DUMPI run ([dumpi.RunOptions],
	// given to dumpi.OpenRun or dumpi.OpenRunFS): by default a fileprefix
	// that leaves the metafile's directory is refused, and AllowOutside
	// permits it (a name of an fs.FS cannot leave it all the same, so
	// OpenFS then fails to open the rank files).
	DUMPIRun *dumpi.RunOptions
	// OTF configures the OTF reader (strictness, line bound). Its
	// Selection must be zero: use Locations and Window.
	OTF *otf.ModelOptions
	// OTF2 is the open options of an OTF2 archive ([otf2.OpenOptions],
	// given to otf2.Open or otf2.OpenFS), such as reading a location's
	// missing event file as empty.
	OTF2 *otf2.OpenOptions
	// JSON configures the reader of hpctrace's event JSON (package
	// eventjson); its Path defaults to the file's name. Its Selection
	// must be zero: Open passes Locations and Window.
	JSON *eventjson.ReaderOptions
	// Chrome configures the Chrome Trace Event Format reader (its
	// reorder window, limits and clock); its Path defaults to the
	// file's name. Its Selection must be zero: Open passes Locations and
	// Window.
	Chrome *chrome.ReaderOptions
	// Window, when not nil, selects the events of a time interval of
	// the trace, seeking to its start where the format allows; see
	// [model.Window] for the rule.
	//
	// What a window costs depends on what the format lets a reader skip (the
	// rule of a window is [model.Window]'s, the same in every format):
	//
	//	OTF        seeks: each stream of a file with random access (any file
	//	           Open or OpenFS opens on os.DirFS or fstest.MapFS) is
	//	           bisected to its first record at From (O(log size) reads;
	//	           see otf.ModelOptions.Selection), read up to To, and no
	//	           further. A window with a Leave of function 0 (which
	//	           VampirTrace writes for every Leave) that leaves a function
	//	           entered before From reads, once, the records before it
	//	           too, to know which function that is (see
	//	           otf.NewModelSource). One exception to the rule: OTF's
	//	           deprecated CollOp record gives a collective's begin and its
	//	           duration in one record, from which the adapter makes the
	//	           CollBegin and the CollEnd; a CollOp before From is not
	//	           read, so a window holds no CollEnd of it; and records
	//	           before a file's first time line, whose time is undefined
	//	           (-1), are in no window.
	//	OTF2       seeks (otf2.ModelSource applies the window and the
	//	           locations itself): each location's file is bisected to
	//	           From by its chunks' first times
	//	           (otf2.ModelSource.SeekTime), and the read stops at the
	//	           first event at To. A collective met in the window while
	//	           no region entered in it is open reads its location's
	//	           events before it, once, to name its region.
	//	           Both the bisection and the stop rely on each location's
	//	           clock-corrected times not decreasing: where a location's
	//	           clock offsets correct time backwards or its chunks' start
	//	           times go back (otf2.ModelSource.TimesAscend, checked at
	//	           Open from the local definitions and a few bytes per
	//	           chunk), the window is a filtered read of the whole
	//	           archive, and the rule holds. One case is not seen at
	//	           Open: raw times that go back inside a chunk, which OTF2
	//	           forbids and libotf2's writer refuses (a damaged or
	//	           hand-made file). A time that goes back among the events
	//	           read ends the read with an error wrapping
	//	           otf2.ErrTimeOrder (Trace.Err); one before From's chunk
	//	           goes unseen, and the window may then lack events at From
	//	           or later that the filtered read has.
	//	DUMPI      read from the start and filtered, the whole file: its
	//	           index has no times (calls have variable sizes), and the
	//	           adapter's communicators and requests need every call
	//	           before From.
	//	PICL, JSON,
	//	Chrome     read from the start and filtered, the whole file: none
	//	           has an index, and a PICL file's order is not time order.
	Window *model.Window
	// Interval, when not nil, selects the events of a time interval
	// given as durations from the trace's start, a negative one from its
	// end ("the last 10 ms" is Interval{From: -10 * time.Millisecond}):
	// Open converts it with the trace's clock and bounds
	// ([Trace.Window]) to the model.Window it stands for, which then
	// works as Window does. Learning the bounds costs what
	// [Trace.Bounds] says: for OTF2 and OTF a second conversion of the
	// definitions (and, for an OTF trace without a time range, a
	// bisection of each stream), but a read of the whole trace for
	// DUMPI, PICL, JSON and Chrome, whose window is then two reads of
	// the file (the second filtered, as Window's). An Interval that selects nothing for certain is an error
	// ([Interval.Window]), as is an Interval with a Window.
	Interval *Interval
	// Locations, when not nil, accepts the locations whose events the
	// Trace yields: it yields exactly those, and lets the format's adapter
	// skip reading the others' where it can: an OTF trace reads the event
	// files of only the streams with an accepted process, a DUMPI run the
	// calls of only the ranks with an accepted location, the rank's or
	// a thread's (a selection that may accept a thread's location reads
	// every rank's calls once first to learn them: see
	// dumpi.ModelSource), an OTF2 archive the event and local
	// definition files of only the accepted locations.
	// [model.Only] accepts a list. The definitions are those of the whole
	// trace whatever Locations accepts, so that the shards of one trace
	// agree on them.
	Locations func(model.LocID) bool
}

// A Trace is an open trace of any format, read as a [model.Source]: the
// events of all its locations merged by time, and its definitions. It
// owns the files it opened; Close closes them.
//
// A Trace is not safe for concurrent use.
type Trace struct {
	// Name is the name given to Open.
	Name string
	// Format is the format the trace was read as.
	Format Format

	src     model.Source
	closers []io.Closer
	closed  bool

	// source makes a model source of the trace (Bounds makes its own);
	// defsBounds says that the format's definitions may hold the bounds,
	// and timeRange, when not nil, finds them where they do not (OTF).
	source     sourceFunc
	defsBounds bool
	timeRange  func() (first, last uint64, ok bool, err error)
	learnt     bool // bounds and clock are known
	bounds     model.Bounds
	clock      model.TimeBase
}

// Open opens the trace in the file name, detecting its format with
// [Detect] (or taking Options.Format), and returns it ready to read:
//
//	FormatPICL      every processor of the file, in file order
//	FormatDUMPI     one rank's file; its rank is the -NNNN suffix of the name (0 without one)
//	FormatDUMPIRun  the .meta file's run: every rank's file beside it, merged by time
//	FormatOTF       the master file and the record files beside it, merged by time
//	                (a record file's name, "trace.1.events", opens its trace)
//	FormatJSON      a document of hpctrace's event JSON (package eventjson)
//	FormatOTF2      the archive of the anchor file (name.otf2, with name.def and
//	                the directory name beside it): every location merged by time
//	FormatChrome    a Chrome Trace Event Format document (what export.WriteChrome
//	                and traceconv -to perfetto write, and other tools' JSON traces)
//
// Each format's model adapter (picl.ModelSource, dumpi.ModelSource,
// otf.ModelSource, otf2.ModelSource, eventjson.Reader, chrome.Reader) documents how its records become
// events and what it does not map. The caller must Close the Trace.
func Open(name string, opts *Options) (*Trace, error) {
	return open(nil, name, opts)
}

// OpenFS is Open for the file name of fsys (os.DirFS, embed.FS,
// fstest.MapFS, …): name is a slash-separated path within fsys, and the
// files a trace needs beside it (DUMPI ranks, OTF record files, an OTF2
// archive's definition and event files) come from fsys too. A DUMPI
// file's fs.File must implement io.ReaderAt, as those of the file systems
// above do.
func OpenFS(fsys fs.FS, name string, opts *Options) (*Trace, error) {
	if fsys == nil {
		return nil, errors.New("hpctrace: OpenFS: nil fs.FS")
	}
	return open(fsys, name, opts)
}

// open opens name from fsys, or from the operating system when fsys is
// nil.
func open(fsys fs.FS, name string, opts *Options) (*Trace, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	fm := o.Format
	if fm == FormatUnknown {
		var err error
		if fm, err = detectIn(fsys, name); err != nil {
			return nil, err
		}
	}
	t := &Trace{Name: name, Format: fm}
	if o.Window != nil && o.Interval != nil {
		return nil, errors.New("hpctrace: Options.Window and Options.Interval are both set: give one")
	}
	if w := o.Window; w != nil {
		if err := w.Check(); err != nil {
			return nil, fmt.Errorf("hpctrace: %w", err)
		}
	}
	var err error
	switch fm {
	case FormatPICL:
		err = t.openPICL(fsys, name, o.PICL)
	case FormatDUMPI:
		err = t.openDUMPI(fsys, name, &o)
	case FormatDUMPIRun:
		err = t.openRun(fsys, name, &o)
	case FormatOTF:
		err = t.openOTF(fsys, name, o.OTF)
	case FormatJSON:
		err = t.openJSON(fsys, name, o.JSON)
	case FormatOTF2:
		err = t.openOTF2(fsys, name, o.OTF2)
	case FormatChrome:
		err = t.openChrome(fsys, name, o.Chrome)
	default:
		return nil, fmt.Errorf("%s: %v: %w", name, fm, ErrUnknownFormat)
	}
	if err == nil {
		sel := o.selection()
		if o.Interval != nil {
			var w model.Window
			if w, err = t.Window(*o.Interval); err == nil {
				sel.Window = &w
			}
		}
		if err == nil {
			err = t.start(sel)
		}
	}
	if err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

// start makes the Trace's source, of the selection sel.
func (t *Trace) start(sel model.Selection) error {
	src, c, err := t.source(sel)
	if err != nil {
		return err
	}
	if c != nil {
		t.closers = append(t.closers, c)
	}
	t.src = src
	return nil
}

// A sourceFunc makes a model source of the opened trace with a
// selection, and returns what closes the files it opened (nil for none).
// The Trace makes its own source with one, and Bounds others, each
// reading from the start and independent of the rest.
type sourceFunc func(sel model.Selection) (model.Source, io.Closer, error)

// withSelection returns a copy of the format's options opts (zero if
// nil) with its Selection, which sel reaches, set to the Trace's: a
// caller selects through Options.Locations and Window, not the format's
// options, so one set there is an error naming field.
func withSelection[T any](opts *T, field string, sel model.Selection, selection func(*T) *model.Selection) (*T, error) {
	var o T
	if opts != nil {
		o = *opts
	}
	s := selection(&o)
	if !s.IsZero() {
		return nil, fmt.Errorf("hpctrace: Options.%s.Selection is set: use Options.Locations and Options.Window", field)
	}
	*s = sel
	return &o, nil
}

// selection is the selection of o's Locations and Window, which every
// format's adapter applies.
func (o *Options) selection() model.Selection {
	return model.Selection{Locations: o.Locations, Window: o.Window}
}

// openFile opens name from fsys, or from the operating system when fsys
// is nil.
func openFile(fsys fs.FS, name string) (fs.File, error) {
	if fsys == nil {
		return os.Open(name)
	}
	return fsys.Open(name)
}

// checkSelection refuses a Selection set in a format's options, as
// withSelection does, before any file is opened.
func checkSelection[T any](opts *T, field string, selection func(*T) *model.Selection) error {
	_, err := withSelection(opts, field, model.Selection{}, selection)
	return err
}

func (t *Trace) openPICL(fsys fs.FS, name string, opts *picl.ModelOptions) error {
	sel := func(o *picl.ModelOptions) *model.Selection { return &o.Selection }
	if err := checkSelection(opts, "PICL", sel); err != nil {
		return err
	}
	t.source = func(s model.Selection) (model.Source, io.Closer, error) {
		o, _ := withSelection(opts, "PICL", s, sel)
		var r *picl.Reader
		var err error
		if fsys == nil {
			r, err = picl.Open(name, nil)
		} else {
			r, err = picl.OpenFS(fsys, name, nil)
		}
		if err != nil {
			return nil, nil, err
		}
		src, err := picl.NewModelSource(r, o)
		if err != nil {
			r.Close()
			return nil, nil, err
		}
		return src, r, nil
	}
	return nil
}

// dumpiSource returns the sourceFunc of a DUMPI run with the adapter's
// options of o.DUMPI.
func dumpiSource(run *dumpi.Run, o *Options) (sourceFunc, error) {
	sel := func(o *dumpi.ModelOptions) *model.Selection { return &o.Selection }
	if err := checkSelection(o.DUMPI, "DUMPI", sel); err != nil {
		return nil, err
	}
	opts := o.DUMPI
	return func(s model.Selection) (model.Source, io.Closer, error) {
		mo, _ := withSelection(opts, "DUMPI", s, sel)
		src, err := dumpi.NewModelSource(run, mo)
		if err != nil {
			return nil, nil, err
		}
		return src, nil, nil
	}, nil
}

func (t *Trace) openDUMPI(fsys fs.FS, name string, o *Options) error {
	if err := checkSelection(o.DUMPI, "DUMPI", func(o *dumpi.ModelOptions) *model.Selection { return &o.Selection }); err != nil {
		return err
	}
	var f *dumpi.File
	var err error
	if fsys == nil {
		f, err = dumpi.Open(name, nil)
	} else {
		f, err = dumpi.OpenFS(fsys, name, nil)
	}
	if err != nil {
		return err
	}
	t.closers = append(t.closers, f)
	rank, _ := dumpi.RankOf(name) // 0 when the name has none
	t.source, err = dumpiSource(dumpi.NewRun(f, rank), o)
	return err
}

func (t *Trace) openRun(fsys fs.FS, name string, o *Options) error {
	if err := checkSelection(o.DUMPI, "DUMPI", func(o *dumpi.ModelOptions) *model.Selection { return &o.Selection }); err != nil {
		return err
	}
	var run *dumpi.Run
	var err error
	if fsys == nil {
		run, err = dumpi.OpenRun(name, o.DUMPIRun)
	} else {
		run, err = dumpi.OpenRunFS(fsys, name, o.DUMPIRun)
	}
	if err != nil {
		return err
	}
	t.closers = append(t.closers, run)
	t.source, err = dumpiSource(run, o)
	return err
}

func (t *Trace) openOTF(fsys fs.FS, name string, opts *otf.ModelOptions) error {
	sel := func(o *otf.ModelOptions) *model.Selection { return &o.Selection }
	if err := checkSelection(opts, "OTF", sel); err != nil {
		return err
	}
	if !strings.EqualFold(filepath.Ext(name), ".otf") {
		if stub, ok := otfStub(name); ok {
			name = stub + ".otf" // a record file stands for its trace
		}
	}
	var tr *otf.Trace
	var err error
	if fsys == nil {
		tr, err = otf.Open(name, nil)
	} else {
		tr, err = otf.OpenFS(fsys, name, nil)
	}
	if err != nil {
		return err
	}
	t.closers = append(t.closers, tr)
	t.defsBounds = true
	t.timeRange = tr.EventTimeRange
	t.source = func(s model.Selection) (model.Source, io.Closer, error) {
		mo, _ := withSelection(opts, "OTF", s, sel)
		src, err := otf.NewModelSource(tr, mo)
		if err != nil {
			return nil, nil, err
		}
		return src, src, nil
	}
	return nil
}

// openOTF2 opens the archive; its model sources apply the selection
// themselves (seeking to the window's From and stopping at its To where
// the archive's times ascend): the Trace does not filter.
func (t *Trace) openOTF2(fsys fs.FS, name string, opts *otf2.OpenOptions) error {
	var a *otf2.Archive
	var err error
	if fsys == nil {
		a, err = otf2.Open(name, opts)
	} else {
		a, err = otf2.OpenFS(fsys, name, opts)
	}
	if err != nil {
		return err
	}
	t.closers = append(t.closers, a)
	t.defsBounds = true
	t.source = func(s model.Selection) (model.Source, io.Closer, error) {
		src, err := otf2.NewModelSource(a, &otf2.ModelOptions{Selection: s})
		if err != nil {
			return nil, nil, err
		}
		return src, src, nil
	}
	return nil
}

func (t *Trace) openJSON(fsys fs.FS, name string, opts *eventjson.ReaderOptions) error {
	sel := func(o *eventjson.ReaderOptions) *model.Selection { return &o.Selection }
	if err := checkSelection(opts, "JSON", sel); err != nil {
		return err
	}
	t.source = func(s model.Selection) (model.Source, io.Closer, error) {
		o, _ := withSelection(opts, "JSON", s, sel)
		var src *eventjson.Reader
		var err error
		if fsys == nil {
			src, err = eventjson.Open(name, o)
		} else {
			src, err = eventjson.OpenFS(fsys, name, o)
		}
		if err != nil {
			return nil, nil, err
		}
		return src, src, nil
	}
	return nil
}

func (t *Trace) openChrome(fsys fs.FS, name string, opts *chrome.ReaderOptions) error {
	sel := func(o *chrome.ReaderOptions) *model.Selection { return &o.Selection }
	if err := checkSelection(opts, "Chrome", sel); err != nil {
		return err
	}
	t.source = func(s model.Selection) (model.Source, io.Closer, error) {
		o, _ := withSelection(opts, "Chrome", s, sel)
		var src *chrome.Reader
		var err error
		if fsys == nil {
			src, err = chrome.Open(name, o)
		} else {
			src, err = chrome.OpenFS(fsys, name, o)
		}
		if err != nil {
			return nil, nil, err
		}
		return src, src, nil
	}
	return nil
}

// Next advances to the next event. It returns false at the end of the
// trace, on error (see Err) and after Close.
func (t *Trace) Next() bool {
	return !t.closed && t.src.Next()
}

// Event returns the current event. It is valid until the next call to Next
// or Close; copy the value to keep it. Before the first Next it is a zero
// Event.
func (t *Trace) Event() *model.Event { return t.src.Event() }

// Err returns the first error other than io.EOF; nil after a clean end.
func (t *Trace) Err() error {
	return t.src.Err()
}

// Defs returns the definitions: locations, regions, the time base and the
// rest. They may grow while the trace is read, but a definition always
// arrives before the first event that uses it.
func (t *Trace) Defs() *model.Defs { return t.src.Defs() }

// ReadEvents copies up to len(dst) events into dst when the format's
// adapter can (see [model.BulkSource]; the OTF adapter, which honours
// the selection there too); otherwise it returns 0 and the caller
// continues with Next.
func (t *Trace) ReadEvents(dst []model.Event) int {
	if b, ok := t.src.(model.BulkSource); ok && !t.closed {
		return b.ReadEvents(dst)
	}
	return 0
}

// All returns a single-use iterator over the remaining events; see
// [model.All].
func (t *Trace) All() iter.Seq2[*model.Event, error] { return model.All(t) }

// Source returns the format's own model adapter (a *picl.ModelSource,
// *dumpi.ModelSource, *otf.ModelSource, *otf2.ModelSource,
// *eventjson.Reader or *chrome.Reader), for what only that format has,
// such as otf.ModelSource.Ignored. Reading from it advances the Trace.
// Every adapter applies Options.Locations and Window itself, so it
// yields exactly the Trace's events.
func (t *Trace) Source() model.Source { return t.src }

// TimeBase returns the trace's clock: ticks per second of every
// model.Time of its events.
func (t *Trace) TimeBase() model.TimeBase { return t.src.Defs().TimeBase }

// Duration converts ticks of the trace's clock to a time.Duration; see
// [model.TimeBase.Duration].
func (t *Trace) Duration(d model.Time) time.Duration { return t.TimeBase().Duration(d) }

// Seconds converts ticks of the trace's clock to seconds; see
// [model.TimeBase.Seconds].
func (t *Trace) Seconds(d model.Time) float64 { return t.TimeBase().Seconds(d) }

// LocationName returns the name of a location; see [model.Defs.LocationName].
func (t *Trace) LocationName(id model.LocID) string { return t.src.Defs().LocationName(id) }

// RegionName returns the name of a region; see [model.Defs.RegionName].
func (t *Trace) RegionName(id model.RegionID) string { return t.src.Defs().RegionName(id) }

// Close closes the files the trace opened. Later calls of Next return
// false; a second Close returns nil.
func (t *Trace) Close() error {
	if t.closed {
		return nil
	}
	t.closed = true
	var errs []error
	for i := len(t.closers) - 1; i >= 0; i-- {
		errs = append(errs, t.closers[i].Close())
	}
	t.closers = nil
	return errors.Join(errs...)
}
