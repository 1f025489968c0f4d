package picl_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace/picl"
)

// TestWriterCanonical: records built in code, without token text, are
// written canonically.
func TestWriterCanonical(t *testing.T) {
	recs := []picl.Record{
		{Type: picl.RecordEntry, Event: picl.EventTracing, Time: -0.715036, Processor: 6},
		{Type: picl.RecordEntry, Event: picl.EventSend, Time: 0.0016649999, Processor: 6, Count: 3, Descriptor: "2",
			Data: []picl.Value{picl.IntValue(8), picl.IntValue(1), picl.IntValue(7)}},
		{Type: picl.RecordStatTime, Event: picl.EventAll, Time: 0.001982, Processor: 6, Count: 1, Descriptor: `"%d%lf"`,
			Data: []picl.Value{picl.IntValue(-11), picl.FloatValue(0.000098)}},
		{Type: picl.RecordLabel, Event: 1, Time: -1, Processor: -1, Process: -1, Count: 14, Descriptor: "0", Chars: []byte("ring broadcast")},
		{Type: 20, Event: 5, Time: 1e-7, Count: 2, Descriptor: `"%s %d"`,
			Data: []picl.Value{picl.StringValue("south pole"), picl.IntValue(-1), picl.StringValue("east"), picl.IntValue(7)}},
		{Type: picl.RecordDescriptor, Event: -1, Time: -1, Processor: -1, Process: -1, Count: 1, Descriptor: `"%d%s"`,
			Data: []picl.Value{picl.IntValue(6), {Kind: picl.KindString, Text: []byte("%d%lf"), Quoted: true}}},
		{Type: 2, Event: 41, Time: 0.5, Count: 1, Descriptor: "6", Control: "%d%lf",
			Data: []picl.Value{picl.IntValue(3), picl.FloatValue(0.75)}},
	}
	want := `-3 -901 -0.715036 6 0 0
-3 -21 0.001665 6 0 3 2 8 1 7
-101 -1 0.001982 6 0 1 "%d%lf" -11 9.8e-05
-5 1 -1.000000 -1 -1 14 0 ring broadcast
20 5 0.000000 0 0 2 "%s %d" "south pole" -1 east 7
-6 -1 -1.000000 -1 -1 1 "%d%s" 6 "%d%lf"
2 41 0.500000 0 0 1 6 3 0.75
`
	var buf bytes.Buffer
	w, err := picl.NewWriter(&buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		if err := w.Write(&recs[i]); err != nil {
			t.Fatalf("Write(%d): %v", i, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}

	buf.Reset()
	w, _ = picl.NewWriter(&buf, &picl.WriterOptions{TimeDigits: -1})
	if err := w.Write(&recs[4]); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if !strings.HasPrefix(buf.String(), "20 5 0.0000001 ") {
		t.Errorf("TimeDigits -1: %q", buf.String())
	}
	// A changed Time wins over the stale TimeText.
	rec := readAll(t, []byte("-3 -901 0.000010 0 0 0\n"), nil)[0]
	rec.Time += 1
	buf.Reset()
	w, _ = picl.NewWriter(&buf, nil)
	w.Write(&rec)
	w.Close()
	if buf.String() != "-3 -901 1.000010 0 0 0\n" {
		t.Errorf("changed Time written as %q", buf.String())
	}
}

// TestWriterRejects: records the format cannot carry are rejected before
// any byte is written, with an error wrapping ErrRange.
func TestWriterRejects(t *testing.T) {
	bad := map[string]picl.Record{
		"negative count":       {Count: -1},
		"data with count 0":    {Data: []picl.Value{picl.IntValue(1)}},
		"no descriptor":        {Count: 1, Data: []picl.Value{picl.IntValue(1)}},
		"bad descriptor":       {Count: 1, Descriptor: "%d", Data: []picl.Value{picl.IntValue(1)}},
		"undefined alias":      {Count: 1, Descriptor: "6", Data: []picl.Value{picl.IntValue(1)}},
		"wrong control":        {Count: 1, Descriptor: "2", Control: "%lf", Data: []picl.Value{picl.IntValue(1)}},
		"too few values":       {Count: 2, Descriptor: "2", Data: []picl.Value{picl.IntValue(1)}},
		"wrong kind":           {Count: 1, Descriptor: "2", Data: []picl.Value{picl.FloatValue(1)}},
		"NaN time":             {Time: nan()},
		"infinite value":       {Count: 1, Descriptor: "5", Data: []picl.Value{picl.FloatValue(inf())}},
		"chars count":          {Count: 3, Descriptor: "0", Chars: []byte("ab")},
		"line feed in chars":   {Count: 2, Descriptor: "0", Chars: []byte("a\n")},
		"CR at line end":       {Count: 2, Descriptor: "0", Chars: []byte("a\r")},
		"quote and blank":      {Count: 1, Descriptor: "1", Data: []picl.Value{picl.StringValue(`a "b`)}},
		"leading quote":        {Count: 1, Descriptor: "1", Data: []picl.Value{picl.StringValue(`"a`)}},
		"trailing without raw": {Flags: picl.FlagTrailing},
		"raw with blanks":      {Flags: picl.FlagTrailing, Raw: []byte(" x")},
		"raw without flag":     {Raw: []byte("x")},
		"unknown flag":         {Flags: 1 << 7},
	}
	for name, rec := range bad {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			w, _ := picl.NewWriter(&buf, nil)
			err := w.Write(&rec)
			if !errors.Is(err, picl.ErrRange) {
				t.Fatalf("Write = %v, want ErrRange", err)
			}
			if err := w.Close(); err != nil || buf.Len() != 0 {
				t.Fatalf("after a rejected record: Close %v, wrote %q", err, buf.Bytes())
			}
		})
	}
}

func nan() float64 { var z float64; return z / z }
func inf() float64 { var z float64; return 1 / z }

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

func TestWriterLifecycle(t *testing.T) {
	w, _ := picl.NewWriter(failWriter{}, nil)
	rec := picl.Record{Type: picl.RecordEntry, Event: picl.EventTracing}
	if err := w.Write(&rec); err != nil {
		t.Fatalf("buffered Write: %v", err)
	}
	if err := w.Flush(); !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("Flush = %v", err)
	}
	if err := w.Write(&rec); !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("Write after a failed Flush = %v (errors are sticky)", err)
	}
	w2, _ := picl.NewWriter(io.Discard, nil)
	if err := w2.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w2.Write(&rec); !errors.Is(err, picl.ErrClosed) {
		t.Fatalf("Write after Close = %v", err)
	}
	if err := w2.Close(); err != nil {
		t.Fatalf("second Close = %v", err)
	}
	if _, err := picl.NewWriter(io.Discard, &picl.WriterOptions{TimeDigits: -2}); err == nil {
		t.Fatal("TimeDigits -2 accepted")
	}
}
