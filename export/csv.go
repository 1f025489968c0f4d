package export

import (
	"bufio"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/waitstate"
)

// CSVFiles returns the names of the files a [CSVWriter] writes, in the
// order of the tables: events, messages, regions, locations, profile.
func CSVFiles() [5]string { return csvFiles }

var csvFiles = [5]string{"events.csv", "messages.csv", "regions.csv", "locations.csv", "profile.csv"}

// WaitStatesCSV is the name of the file of the waitstates table, which a
// [CSVWriter] writes when asked to ([CSVOptions]).
const WaitStatesCSV = "waitstates.csv"

// CSVOptions configures [NewCSVWriterWith] and [WriteCSVWith]. A nil
// value means the five tables of [CSVFiles] only.
type CSVOptions struct {
	// WaitStates adds the waitstates table ([WaitStateRow]) as
	// waitstates.csv; WriteCSVWith then runs the wait-state analysis in
	// its pass over the events (see [TablesOptions.WaitStates]).
	WaitStates bool
	// Analysis configures the wait-state analysis; nil means
	// waitstate's defaults.
	Analysis *waitstate.Options
}

// CSVWriter is a [TableSink] that writes the five tables as CSV files
// (RFC 4180, as encoding/csv writes them) into a directory, and the
// waitstates table when made with [CSVOptions.WaitStates]: one header
// line with the column names of the row type's `csv` tags, then one line
// per row. Booleans are true/false, floats the shortest decimal that
// reads back exactly.
//
// The files are written under temporary names (NAME.partial) and renamed
// by Close, so a failed export leaves no file that looks whole; Abort
// removes them.
type CSVWriter struct {
	dir   string
	names []string
	files []*csvFile
	err   error
	done  bool
}

type csvFile struct {
	f  *os.File
	bw *bufio.Writer
	w  *csv.Writer
}

// NewCSVWriter creates the directory dir if it does not exist and the
// five files in it, each with its header line.
func NewCSVWriter(dir string) (*CSVWriter, error) { return NewCSVWriterWith(dir, nil) }

// NewCSVWriterWith is [NewCSVWriter] with options: with
// opts.WaitStates, it creates waitstates.csv too.
func NewCSVWriterWith(dir string, opts *CSVOptions) (*CSVWriter, error) {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, err
	}
	w := &CSVWriter{dir: dir, names: csvFiles[:]}
	heads := []any{EventRow{}, MessageRow{}, RegionRow{}, LocationRow{}, ProfileRow{}}
	if opts != nil && opts.WaitStates {
		w.names = append(w.names[:len(w.names):len(w.names)], WaitStatesCSV)
		heads = append(heads, WaitStateRow{})
	}
	for i, name := range w.names {
		f, err := os.Create(filepath.Join(dir, name+".partial"))
		if err != nil {
			w.Abort()
			return nil, err
		}
		bw := bufio.NewWriterSize(f, 1<<16)
		w.files = append(w.files, &csvFile{f: f, bw: bw, w: csv.NewWriter(bw)})
		if err := w.files[i].w.Write(Columns(heads[i])); err != nil {
			w.Abort()
			return nil, err
		}
	}
	return w, nil
}

// Columns returns the column names of a row type (EventRow, MessageRow,
// RegionRow, LocationRow, ProfileRow or WaitStateRow) from its `csv`
// tags, in order.
func Columns(row any) []string {
	t := reflect.TypeOf(row)
	var cols []string
	for i := range t.NumField() {
		cols = append(cols, t.Field(i).Tag.Get("csv"))
	}
	return cols
}

// WriteCSV writes the tables of src into dir (see [Tables] and
// [CSVWriter]).
func WriteCSV(dir string, src model.Source) error { return WriteCSVWith(dir, src, nil) }

// WriteCSVWith is [WriteCSV] with options: with opts.WaitStates, it
// writes the waitstates table too, from the same pass over src.
func WriteCSVWith(dir string, src model.Source, opts *CSVOptions) error {
	w, err := NewCSVWriterWith(dir, opts)
	if err != nil {
		return err
	}
	var topts *TablesOptions
	if opts != nil && opts.WaitStates {
		topts = &TablesOptions{WaitStates: w.WaitState, Analysis: opts.Analysis}
	}
	if err := Tables(src, w, topts); err != nil {
		w.Abort()
		return err
	}
	return w.Close()
}

func (w *CSVWriter) write(i int, fields ...string) error {
	if w.err != nil {
		return w.err
	}
	if w.done {
		return errClosed
	}
	w.err = w.files[i].w.Write(fields)
	return w.err
}

// i64 and u32 format an integer column (a count, a model.Time, a
// model.LocID …) in decimal.
func i64[T ~int64](v T) string  { return strconv.FormatInt(int64(v), 10) }
func u32[T ~uint32](v T) string { return strconv.FormatUint(uint64(v), 10) }
func f64(v float64) string      { return strconv.FormatFloat(v, 'g', -1, 64) }

// Event writes a row of events.csv.
func (w *CSVWriter) Event(r *EventRow) error {
	return w.write(0, i64(r.Time), f64(r.Seconds), u32(r.Loc), r.Kind, r.Region, u32(r.Peer), i64(r.Bytes), i64(r.Recvd),
		i64(int64(r.Tag)), r.Comm, r.Counter, i64(r.Value), r.Text)
}

// Message writes a row of messages.csv.
func (w *CSVWriter) Message(r *MessageRow) error {
	return w.write(1, u32(r.Sender), u32(r.Receiver), i64(int64(r.Tag)), r.Comm, i64(r.Bytes), i64(r.SendTime), i64(r.RecvTime),
		f64(r.SendSeconds), f64(r.RecvSeconds), r.Status)
}

// Region writes a row of regions.csv.
func (w *CSVWriter) Region(r *RegionRow) error {
	return w.write(2, u32(r.ID), i64(r.Native), r.Name, r.Kind, r.Group, r.File, i64(int64(r.Line)))
}

// Location writes a row of locations.csv.
func (w *CSVWriter) Location(r *LocationRow) error {
	return w.write(3, u32(r.ID), i64(r.Native), r.Name, i64(int64(r.Process)), i64(int64(r.Thread)), strconv.FormatBool(r.Host))
}

// Profile writes a row of profile.csv.
func (w *CSVWriter) Profile(r *ProfileRow) error {
	return w.write(4, u32(r.Loc), i64(r.Native), r.Region, i64(r.Visits), i64(r.Incl), i64(r.Excl), f64(r.InclSeconds), f64(r.ExclSeconds),
		i64(r.Min), i64(r.Max))
}

// WaitState writes a row of waitstates.csv; it fails if the writer was
// not created with [CSVOptions.WaitStates].
func (w *CSVWriter) WaitState(r *WaitStateRow) error {
	if len(w.files) <= 5 {
		return errors.New("export: CSV writer without the waitstates table")
	}
	return w.write(5, r.Pattern, u32(r.Waiter), r.WaiterRegion, r.WaiterCallPath, i64(r.Wait), f64(r.WaitSeconds),
		i64(r.WaiterEnter), i64(r.WaiterLeave), f64(r.WaiterEnterSeconds), f64(r.WaiterLeaveSeconds),
		u32(r.Delayer), r.DelayerRegion, r.DelayerCallPath, i64(r.DelayerEnter), i64(r.DelayerLeave),
		f64(r.DelayerEnterSeconds), f64(r.DelayerLeaveSeconds))
}

// Close flushes the files and gives them their final names. After an
// error it removes them and returns the error.
func (w *CSVWriter) Close() error {
	if w.done {
		return w.err
	}
	for _, f := range w.files {
		if w.err != nil {
			break
		}
		f.w.Flush()
		if w.err = f.w.Error(); w.err == nil {
			w.err = f.bw.Flush()
		}
		if err := f.f.Close(); w.err == nil {
			w.err = err
		}
	}
	if w.err != nil {
		err := w.err
		w.Abort()
		return err
	}
	w.done = true
	for i, name := range w.names {
		if err := os.Rename(w.files[i].f.Name(), filepath.Join(w.dir, name)); err != nil && w.err == nil {
			w.err = err
		}
	}
	return w.err
}

// Abort closes and removes the files not yet renamed by Close.
func (w *CSVWriter) Abort() {
	if w.done {
		return
	}
	w.done = true
	if w.err == nil {
		w.err = errors.New("export: CSV export aborted")
	}
	for _, f := range w.files {
		if f != nil {
			f.f.Close()
			os.Remove(f.f.Name())
		}
	}
}
