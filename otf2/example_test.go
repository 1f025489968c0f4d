package otf2_test

import (
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf2"
)

// ExampleOpen prints the regions entered in global time order.
func ExampleOpen() {
	a, err := otf2.Open("testdata/minimal/trace/traces.otf2", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	mr, err := a.MergedReader(nil)
	if err != nil {
		log.Fatal(err)
	}
	defer mr.Close()
	for ev, err := range mr.All() {
		if err != nil {
			log.Fatal(err)
		}
		if e, ok := ev.Enter(); ok {
			r, _ := a.Defs.Region(e.Region)
			name, _ := a.Defs.Str(r.Name)
			fmt.Println(ev.Time, name)
		}
	}
	// Output:
	// 1000 main
	// 1500 foo
}

// ExampleMergedReader_NextBatch reads an archive's events in global order,
// batch by batch.
func ExampleMergedReader_NextBatch() {
	a, err := otf2.Open("testdata/defs_attrs/trace/traces.otf2", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	mr, err := a.MergedReader(nil)
	if err != nil {
		log.Fatal(err)
	}
	defer mr.Close()
	var b otf2.Batch
	for mr.NextBatch(&b) {
		for i := range b.Len() {
			ev := b.At(i)
			switch {
			case ev.Compact() && ev.Kind == otf2.KindLeave:
				// a compact Leave holds its region in Vals[0]
				fmt.Println(ev.Time, ev.Location, "leave region", ev.Vals[0])
			case !ev.Compact() && ev.Kind == otf2.KindEnter:
				// an event with attributes (or of a rarer kind) is
				// read whole
				full := b.Full(i)
				fmt.Println(ev.Time, ev.Location, "enter region", full.Value(0), "with", len(full.Attrs), "attributes")
			}
		}
	}
	if err := mr.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// 1001 0 enter region 0 with 4 attributes
	// 1005 0 enter region 1 with 10 attributes
	// 1019 0 leave region 1
	// 1020 0 leave region 0
}

// ExampleEventReader_SeekTime positions a location's reader at a time.
func ExampleEventReader_SeekTime() {
	a, err := otf2.Open("testdata/minimal/trace/traces.otf2", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	r, err := a.EventReader(0)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	if err := r.SeekTime(1200); err != nil {
		log.Fatal(err)
	}
	for r.Next() {
		fmt.Println(r.Record().Number, r.Record().Kind, r.Record().Time)
	}
	if err := r.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// 2 Enter 1500
	// 3 Leave 1500
	// 4 Leave 300000
}

// ExampleParseError shows the position a malformed file reports.
func ExampleParseError() {
	_, err := otf2.Open("testdata/nonexistent/traces.otf2", nil)
	fmt.Println(err != nil)
	var pe *otf2.ParseError
	_, err = otf2.ReadAnchor(strings.NewReader("\x03\x42OTF3\x00"), "traces.otf2")
	if errors.As(err, &pe) {
		fmt.Println(pe.Path, pe.Offset, errors.Is(err, otf2.ErrFormat))
	}
	// Output:
	// true
	// traces.otf2 2 true
}

// ExampleNewArchiveWriter writes a one-location archive and reads it back.
func ExampleNewArchiveWriter() {
	dir, err := os.MkdirTemp("", "otf2example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	w, err := otf2.NewArchiveWriter(model.DirCreator(dir), &otf2.WriterOptions{Creator: "example"})
	if err != nil {
		log.Fatal(err)
	}
	name := otf2.NewDef(otf2.DefKindString)
	name.SetBytes([]byte("main"))
	w.WriteDef(name) // String 0
	region := otf2.NewDef(otf2.DefKindRegion)
	region.SetValue(4, otf2.Undefined32) // no source file
	w.WriteDef(region)                   // Region 0 named String 0
	loc := otf2.NewDef(otf2.DefKindLocation)
	w.WriteDef(loc) // Location 0; its event count is filled in by Close
	ew, err := w.EventWriter(0)
	if err != nil {
		log.Fatal(err)
	}
	for i, k := range []otf2.Kind{otf2.KindEnter, otf2.KindLeave} {
		if err := ew.Write(otf2.NewEvent(k, uint64(100*(i+1)))); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	a, err := otf2.Open(filepath.Join(dir, "traces.otf2"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	l, _ := a.Defs.Location(0)
	fmt.Println(a.Anchor.NumGlobalDefs, "definitions,", l.NumberOfEvents, "events")
	// Output:
	// 3 definitions, 2 events
}

// ExampleNewModelSource reads the model events of one location of an
// archive in a time window: the source opens only that location's event
// file and seeks to the window's start.
func ExampleNewModelSource() {
	a, err := otf2.Open("testdata/c_localdefs/trace/traces.otf2", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	s, err := otf2.NewModelSource(a, &otf2.ModelOptions{Selection: model.Selection{
		Locations: model.Only(2),
		Window:    &model.Window{From: 4611686018427388500, To: 4611686018427390000},
	}})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	d := s.Defs()
	for ev, err := range s.All() {
		if err != nil {
			log.Fatal(err)
		}
		l, _ := d.Location(ev.Loc)
		fmt.Println(ev.Time, l.Native, ev.Kind)
	}
	// Output:
	// 4611686018427388511 1 send
	// 4611686018427388611 1 recv
	// 4611686018427389411 1 leave
	// 4611686018427389911 1 program_end
}
