package otf_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing/fstest"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf"
)

// ExampleOpenFS reads a trace from an fs.FS and prints its events merged by time.
func ExampleOpenFS() {
	fsys := fstest.MapFS{
		"run.otf":      {Data: []byte("1:1\n2:2\n")},
		"run.0.def":    {Data: []byte("DTR3e8\nDF1G1NM\"main\"\n")},
		"run.1.events": {Data: []byte("a\n*1\nE1\n14\n*1\nL1\n14\n*1\n")},
		"run.2.events": {Data: []byte("c\n*2\nE1\n14\n*2\nL1\n14\n*2\n")},
	}
	t, err := otf.OpenFS(fsys, "run.otf", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer t.Close()
	r, err := t.NewReader(nil) // all events of all processes
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	for rec, err := range r.All() {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(rec.Time, rec.Process, rec.Kind)
	}
	// Output:
	// 10 1 Enter
	// 12 2 Enter
	// 20 1 Leave
	// 20 2 Leave
}

// ExampleNewModelSource reads the model events of one location in a time
// window: the event file of the other stream is not opened.
func ExampleNewModelSource() {
	fsys := fstest.MapFS{
		"run.otf":      {Data: []byte("1:1\n2:2\n")},
		"run.0.def":    {Data: []byte("DTR3e8\nDP1NM\"rank 0\"\nDP2NM\"rank 1\"\nDF1G1NM\"main\"\n")},
		"run.1.events": {Data: []byte("a\n*1\nE1\n14\n*1\nL1\n")},
		"run.2.events": {Data: []byte("c\n*2\nE1\n14\n*2\nL1\n")},
	}
	t, err := otf.OpenFS(fsys, "run.otf", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer t.Close()
	src, err := otf.NewModelSource(t, &otf.ModelOptions{Selection: model.Selection{
		Locations: model.Only(2),                    // process 2, "rank 1"
		Window:    &model.Window{From: 15, To: 100}, // [15, 100) ticks
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer src.Close() // closes run.2.events, not t
	for ev, err := range src.All() {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(ev.Time, src.Defs().LocationName(ev.Loc), ev.Kind, src.Defs().RegionName(ev.Region))
	}
	// Output:
	// 20 rank 1 leave main
}

// ExampleReader_All reads one events file and sums the bytes sent.
func ExampleReader_All() {
	events := "64\n*1\nE1\nS2L400T0C1\nK1Y6V7\nS3L8T0C1\n6e\n*1\nL1\n"
	r, err := otf.NewReader(strings.NewReader(events), &otf.ReaderOptions{Path: "trace.1.events"})
	if err != nil {
		fmt.Println(err)
		return
	}
	var sent uint32
	for rec, err := range r.All() {
		if err != nil {
			fmt.Println(err)
			return
		}
		if s, ok := rec.Send(); ok {
			sent += s.Length
			fmt.Printf("t=%d send %d bytes to %d, key-values %v\n", rec.Time, s.Length, s.Receiver, rec.KeyValues())
		}
	}
	fmt.Println("sent", sent)
	// Output:
	// t=100 send 1024 bytes to 2, key-values []
	// t=100 send 8 bytes to 3, key-values [{1 UINT32 7 []}]
	// sent 1032
}

// ExampleNewWriter writes one events file in the short and the long form.
func ExampleNewWriter() {
	for _, long := range []bool{false, true} {
		var buf bytes.Buffer
		w, err := otf.NewWriter(&buf, &otf.WriterOptions{Long: long})
		if err != nil {
			fmt.Println(err)
			return
		}
		var rec otf.Record
		rec.Time, rec.Process = 100, 1
		rec.SetEnter(otf.Enter{Function: 2, Source: 0x33})
		rec.SetKeyValues([]otf.KeyValue{{Key: 1, Type: otf.TypeUint32, Value: 7}})
		w.Write(&rec)
		rec.Time = 110
		rec.SetKeyValues(nil)
		rec.SetLeave(otf.Leave{Function: 2})
		w.Write(&rec)
		if err := w.Close(); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Print(buf.String())
	}
	// Output:
	// 64
	// *1
	// K1Y6V7
	// E2X33
	// 6e
	// *1
	// L2
	// 6e
	// *1
	// 64
	// *1
	// KEY 1 TYPE 6 VALUE 7
	// ENTER 2 SCL 33
	// 6e
	// *1
	// LEAVE 2
	// 6e
	// *1
}

// ExampleParseError shows the position a reader reports for a bad line.
func ExampleParseError() {
	r, _ := otf.NewReader(strings.NewReader("1\n*1\nE1\nE2 \n"), &otf.ReaderOptions{Path: "trace.1.events"})
	for r.Next() {
	}
	var pe *otf.ParseError
	if errors.As(r.Err(), &pe) {
		fmt.Println(pe.Path, pe.Line, pe.Offset, pe.Record, errors.Is(r.Err(), otf.ErrSyntax))
		fmt.Println(r.Err())
	}
	// Output:
	// trace.1.events 4 8 1 true
	// otf: trace.1.events:4: offset 8: record 1: syntax error: want no blanks at the end of the line, found " "
}
