package picl_test

import (
	"errors"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/picl"
)

const sample = `-3 -901 -0.715036 6 0 0
-3 -52 0.000128 6 0 1 2 0
-4 -52 0.000516 6 0 3 2 8 0 0
0 0 0.000635 6 0 1 5 0.000124
-5 1 -1.000000 -1 -1 14 0 ring broadcast
-4 -901 0.001982 6 0 0
-101 -1 0.001982 6 0 2 "%d%lf" -52 0.001212 -901 0.717018
`

func ExampleNewReader() {
	r, err := picl.NewReader(strings.NewReader(sample), &picl.ReaderOptions{Path: "sample.trf"})
	if err != nil {
		log.Fatal(err)
	}
	for r.Next() {
		rec := r.Record()
		switch {
		case rec.Type == picl.RecordExit && rec.Event.IsReceive():
			f, _ := rec.Field(0) // length in bytes
			fmt.Printf("%s: received %d bytes at %s\n", rec.Event, f[0].Int, rec.TimeText)
		case rec.Type == picl.RecordLabel:
			fmt.Printf("event %d is called %q\n", rec.Event, rec.Chars)
		case rec.Type == picl.RecordStatTime:
			for _, pair := range rec.Fields() {
				fmt.Printf("time in %v: %.6f s\n", picl.EventType(pair[0].Int), pair[1].Float)
			}
		}
	}
	if err := r.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// recv0-wait: received 8 bytes at 0.000516
	// event 1 is called "ring broadcast"
	// time in recv0-wait: 0.001212 s
	// time in tracing: 0.717018 s
}

func ExampleReader_All() {
	r, err := picl.NewReader(strings.NewReader(sample), nil)
	if err != nil {
		log.Fatal(err)
	}
	events := 0
	for rec, err := range r.All() {
		if err != nil {
			log.Fatal(err)
		}
		if rec.Type == picl.RecordEntry || rec.Type == picl.RecordExit {
			events++
		}
	}
	fmt.Println(events, "entry and exit records")
	// Output: 4 entry and exit records
}

func ExampleWriter() {
	w, err := picl.NewWriter(os.Stdout, nil)
	if err != nil {
		log.Fatal(err)
	}
	recs := []picl.Record{
		{Type: picl.RecordEntry, Event: picl.EventTracing, Time: 0, Processor: 0},
		{Type: picl.RecordEntry, Event: picl.EventSend, Time: 0.000152, Processor: 0, Count: 3, Descriptor: "2",
			Data: []picl.Value{picl.IntValue(8), picl.IntValue(1), picl.IntValue(1)}},
		{Type: picl.RecordLabel, Event: 1, Time: -1, Processor: -1, Process: -1, Count: 4, Descriptor: "0",
			Chars: []byte("ring")},
		{Type: picl.RecordStatTime, Event: picl.EventAll, Time: 0.000254, Processor: 0, Count: 1,
			Descriptor: `"%d%lf"`, Data: []picl.Value{picl.IntValue(int64(picl.EventSend)), picl.FloatValue(0.000046)}},
	}
	for i := range recs {
		if err := w.Write(&recs[i]); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// -3 -901 0.000000 0 0 0
	// -3 -21 0.000152 0 0 3 2 8 1 1
	// -5 1 -1.000000 -1 -1 4 0 ring
	// -101 -1 0.000254 0 0 1 "%d%lf" -21 4.6e-05
}

func ExampleParseError() {
	in := "-3 -901 0.000000 0 0 0\n-4 -401 0.00O005 6 0 0\n"
	r, err := picl.NewReader(strings.NewReader(in), &picl.ReaderOptions{Path: "run.trf"})
	if err != nil {
		log.Fatal(err)
	}
	for r.Next() {
	}
	var pe *picl.ParseError
	if errors.As(r.Err(), &pe) && errors.Is(pe, picl.ErrSyntax) {
		fmt.Println("line", pe.Line, "offset", pe.Offset, "record", pe.Record)
		fmt.Println(pe)
	}
	// Output:
	// line 2 offset 23 record 1
	// picl: run.trf:2: offset 23: record 1: timestamp "0.00O005": syntax error
}

func ExampleModelSource() {
	r, err := picl.NewReader(strings.NewReader(sample), nil)
	if err != nil {
		log.Fatal(err)
	}
	src, err := picl.NewModelSource(r, nil)
	if err != nil {
		log.Fatal(err)
	}
	var received int64
	for ev, err := range src.All() {
		if err != nil {
			log.Fatal(err)
		}
		if ev.Kind == model.KindRecv {
			received += ev.Bytes
		}
	}
	defs := src.Defs()
	fmt.Println(received, "bytes received;", len(defs.Recorded), "recorded statistics")
	for _, rec := range defs.Recorded {
		region, _ := defs.Region(rec.Region)
		fmt.Printf("%s: %v %d ticks\n", region.Name, rec.Kind, rec.Value)
	}
	// Output:
	// 8 bytes received; 2 recorded statistics
	// recv0-wait: time 1212 ticks
	// tracing: time 717018 ticks
}

// ExampleOpen reads a file and counts its records by type. The Reader
// owns the file Open opened: Close closes it.
func ExampleOpen() {
	r, err := picl.Open("testdata/appendix_a.trf", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	entries, exits := 0, 0
	for rec, err := range r.All() {
		if err != nil {
			log.Fatal(err)
		}
		switch rec.Type {
		case picl.RecordEntry:
			entries++
		case picl.RecordExit:
			exits++
		}
	}
	fmt.Println(entries, "entries,", exits, "exits")
	// Output: 10 entries, 10 exits
}

// ExampleNewModelSource reads the events of one location in a time window:
// the source reads the whole file and yields exactly the selected events.
func ExampleNewModelSource() {
	r, err := picl.Open("testdata/ring4.trf", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close() // the ModelSource closes nothing it was given
	src, err := picl.NewModelSource(r, &picl.ModelOptions{Selection: model.Selection{
		Locations: model.Only(2),
		Window:    &model.Window{From: 0, To: 1000},
	}})
	if err != nil {
		log.Fatal(err)
	}
	n := 0
	for _, err := range src.All() {
		if err != nil {
			log.Fatal(err)
		}
		n++
	}
	loc, _ := src.Defs().Location(2)
	fmt.Printf("%d events of %s in [0, 1000) µs\n", n, loc.Name)
	// Output: 15 events of processor 2 in [0, 1000) µs
}
