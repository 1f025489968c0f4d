// Command parquet writes the tables of a trace of any format as Parquet
// files, for pandas, polars, DuckDB and Spark. It lives in a module of its
// own so that the SDK's module does not depend on a Parquet library.
//
// Usage:
//
//	parquet [-rows n] [-waitstates] [-force] -in TRACE -out DIR
//
// DIR receives events.parquet, messages.parquet, regions.parquet,
// locations.parquet and profile.parquet, and with -waitstates
// waitstates.parquet (the wait-state instances of package waitstate, one
// row per instance, joinable with the other tables: see
// export.WaitStateRow), with the columns of the CSV tables (see package
// export: Tables, EventRow, MessageRow, RegionRow, LocationRow,
// ProfileRow, WaitStateRow): the same names, in the same order, as Parquet
// INT32/INT64 (unsigned for ids), DOUBLE, BOOLEAN and UTF-8 strings
// (dictionary-encoded where values repeat), compressed with Snappy.
// Times are in two columns: the raw ticks of the trace's clock (time,
// send_time, recv_time, clock offsets included) and seconds since the
// trace's start, the time of its first event (seconds, send_seconds,
// recv_seconds), so an OTF2 trace whose clock counts from boot starts at
// 0 s; incl_seconds and excl_seconds are durations.
//
// The trace is read once and each table is written as it is read, in row
// groups of at most -rows rows (default 1 Mi): memory holds one row group
// per table, not the trace (about 100 MB in all at the default; a 10 M
// event trace is read and written in about 4 s); with -waitstates, the
// analysis keeps besides a log that grows with the trace's MPI calls and
// messages, and its rows come after the last event. The files are written
// by the rules of package examples/internal/outfile: into a temporary directory
// beside them and moved into place when all are complete, so a failed
// export leaves no file that looks whole; existing tables are replaced
// only with -force, and a file of the trace read never; a
// waitstates.parquet already there belongs to the tables, and a -force
// export without -waitstates removes it. The input is opened with hpctrace.Open,
// which detects its format. On a terminal, progress is shown on stderr.
//
// In DuckDB:
//
//	SELECT region, sum(excl_seconds) FROM 'out/profile.parquet' GROUP BY region ORDER BY 2 DESC;
//
// In pandas:
//
//	ev = pd.read_parquet("out/events.parquet")
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/hpctrace/hpctrace"
	"github.com/hpctrace/hpctrace/examples/internal/outfile"
	"github.com/hpctrace/hpctrace/examples/internal/progress"
	"github.com/hpctrace/hpctrace/export"
	"github.com/hpctrace/hpctrace/model"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/snappy"
)

func main() {
	in := flag.String("in", "", "input trace")
	out := flag.String("out", "", "output directory")
	rows := flag.Int64("rows", 1<<20, "rows per row group")
	force := flag.Bool("force", false, "replace existing tables")
	waitStates := flag.Bool("waitstates", false, "add waitstates.parquet, the wait-state instances")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: parquet [-rows n] [-waitstates] [-force] -in TRACE -out DIR")
		flag.PrintDefaults()
	}
	outfile.CleanUpOnSignal()
	flag.Parse()
	if *in == "" || *out == "" || flag.NArg() != 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := convert(*in, *out, *rows, *force, *waitStates); err != nil {
		fmt.Fprintln(os.Stderr, "parquet:", err)
		os.Exit(1)
	}
}

// tableNames are the files convert writes, profile.parquet last;
// waitstates.parquet only when asked for.
var tableNames = []string{"events.parquet", "messages.parquet", "regions.parquet", "locations.parquet", "waitstates.parquet", "profile.parquet"}

// convert writes the tables of the trace in into the directory out, with
// waitStates the waitstates table too, replacing existing tables only
// with force.
func convert(in, out string, rows int64, force, waitStates bool) error {
	if err := os.MkdirAll(out, 0o777); err != nil {
		return err
	}
	owned := func(name string) bool { return slices.Contains(tableNames, name) }
	set, err := outfile.NewSet(out, "profile.parquet", owned, &outfile.Options{Force: force, Inputs: outfile.TraceFiles(in)})
	if err != nil {
		return err
	}
	defer set.Abort() // after Commit, nothing
	t, err := hpctrace.Open(in, nil)
	if err != nil {
		return err
	}
	defer t.Close()
	s := &sink{}
	opts := []parquet.WriterOption{parquet.MaxRowsPerRowGroup(rows), parquet.Compression(&snappy.Codec{}), parquet.CreatedBy("hpctrace", "", "")}
	s.events = newTable[export.EventRow](set, "events.parquet", opts, &s.tables)
	s.messages = newTable[export.MessageRow](set, "messages.parquet", opts, &s.tables)
	s.regions = newTable[export.RegionRow](set, "regions.parquet", opts, &s.tables)
	s.locations = newTable[export.LocationRow](set, "locations.parquet", opts, &s.tables)
	var topts *export.TablesOptions
	if waitStates {
		ws := newTable[export.WaitStateRow](set, "waitstates.parquet", opts, &s.tables)
		topts = &export.TablesOptions{WaitStates: ws.add}
	}
	s.profile = newTable[export.ProfileRow](set, "profile.parquet", opts, &s.tables)
	err = s.err()
	if err == nil {
		m := &metered{Source: t, m: progress.New(os.Stderr, in, "events")}
		err = export.Tables(m, s, topts)
		m.m.Done(m.n)
	}
	for _, tb := range s.tables {
		if cerr := tb.close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return err
	}
	return set.Commit()
}

// metered counts the events of a source for a progress meter.
type metered struct {
	model.Source
	m *progress.Meter
	n int64
}

// Next advances the source and the meter.
func (s *metered) Next() bool {
	ok := s.Source.Next()
	if ok {
		s.n++
		if s.n&0xffff == 0 {
			s.m.Update(s.n)
		}
	}
	return ok
}

// sink is an export.TableSink writing one Parquet file per table.
type sink struct {
	tables    []closer
	events    *table[export.EventRow]
	messages  *table[export.MessageRow]
	regions   *table[export.RegionRow]
	locations *table[export.LocationRow]
	profile   *table[export.ProfileRow]
}

func (s *sink) err() error {
	for _, t := range s.tables {
		if err := t.failed(); err != nil {
			return err
		}
	}
	return nil
}

func (s *sink) Event(r *export.EventRow) error       { return s.events.add(r) }
func (s *sink) Message(r *export.MessageRow) error   { return s.messages.add(r) }
func (s *sink) Region(r *export.RegionRow) error     { return s.regions.add(r) }
func (s *sink) Location(r *export.LocationRow) error { return s.locations.add(r) }
func (s *sink) Profile(r *export.ProfileRow) error   { return s.profile.add(r) }

type closer interface {
	failed() error
	close() error
}

// batch is the number of rows handed to the Parquet writer at once.
const batch = 4096

// table writes the rows of one table to the file name of a set.
type table[T any] struct {
	f   io.WriteCloser
	w   *parquet.GenericWriter[T]
	buf []T
	err error
}

func newTable[T any](set *outfile.Set, name string, opts []parquet.WriterOption, all *[]closer) *table[T] {
	t := &table[T]{}
	*all = append(*all, t)
	t.f, t.err = set.Create(name)
	if t.err == nil {
		t.w = parquet.NewGenericWriter[T](t.f, opts...)
	}
	return t
}

func (t *table[T]) failed() error { return t.err }

func (t *table[T]) add(r *T) error {
	if t.err != nil {
		return t.err
	}
	t.buf = append(t.buf, *r)
	if len(t.buf) == batch {
		t.flush()
	}
	return t.err
}

func (t *table[T]) flush() {
	if t.err == nil && len(t.buf) > 0 {
		_, t.err = t.w.Write(t.buf)
	}
	clear(t.buf) // drop the strings the rows hold
	t.buf = t.buf[:0]
}

func (t *table[T]) close() error {
	if t.f == nil {
		return t.err
	}
	t.flush()
	if t.err == nil {
		t.err = t.w.Close()
	}
	if err := t.f.Close(); t.err == nil {
		t.err = err
	}
	return t.err
}
