// Picldump prints the records of PICL trace files.
//
// Usage:
//
//	picldump [-json] [-strict] [FILE...]
//
// Without FILE it dumps the embedded sample: the example trace of the PICL
// report's Appendix A (35 records of processor 6 of an 8-processor iPSC/860
// run).
//
// By default each record is printed on one line: its physical line number,
// record type, event type, timestamp as written, processor and process, then
// its data with the field names of the format's event table where it has
// them. Flags of records kept by lenient reading are shown in brackets.
//
// With -json it prints one JSON document per file, written as the
// records are read (memory does not grow with the file):
//
//	{
//	  "records": [                   // in file order
//	    {"line": 2, "record_type": -2, "event_type": -904, "processor": 6, "process": 0,
//	     "count": 3, "time": "-0.715024", "descriptor": "2", "control": "%d",
//	     "data": [[1], [1], [1]]},
//	    ...
//	  ],
//	  "record_count": 35,            // of the records above
//	  "sorted_by_time": true,        // timestamps non-decreasing in file order
//	  "processors": [6],             // sorted distinct processor-field values
//	  "complete": true               // false when reading stopped at an error
//	}
//
// When a read error stops a file partway through, its document is still
// valid JSON: it holds every complete record before the error, its
// summary covers those records, "complete" is false and "error" gives the
// error's text; the error is also printed on standard error.
//
// time is the token as written; descriptor is the token as written (quoted
// descriptors keep their quotes) and control the resolved control string,
// both null when count is 0; data holds one list per data field with one
// value per conversion (numbers for %d and %f conversions, strings for %s),
// and is null for character data, whose exact characters are in chars.
// Records kept by lenient reading carry "flags" (and "raw" when they hold
// undecoded or extra text); their data hold what could be decoded.
//
// With -strict, records lenient reading would keep with flags are errors,
// and so are descriptor aliases used where no earlier -6 record defines
// them. Errors go to standard error, after the records before them; reading
// continues with the next file, and the exit status is 1. An output that
// cannot be written (a full disk, a closed pipe) stops the run with a
// message and exit status 1.
package main

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/hpctrace/hpctrace/examples/internal/outfile"
	"github.com/hpctrace/hpctrace/examples/internal/progress"
	"github.com/hpctrace/hpctrace/internal/termsafe"
	"github.com/hpctrace/hpctrace/picl"
)

//go:embed appendix_a.trf
var sample []byte

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("picldump", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print one JSON document per file")
	strict := fs.Bool("strict", false, "reject records that lenient reading keeps with flags")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: picldump [-json] [-strict] [FILE...]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	// The first write error ends the run: it is reported once, at the end.
	ew := &outfile.ErrWriter{W: stdout}
	out := bufio.NewWriter(ew)
	status := 0
	dump := func(name string, r io.Reader) {
		opts := &picl.ReaderOptions{Path: name, Strict: *strict}
		var err error
		if *asJSON {
			err = dumpJSON(out, r, opts)
		} else {
			err = dumpText(out, r, opts)
		}
		if err != nil {
			// The records before the error come out before its message.
			out.Flush()
			if ew.Err == nil {
				fmt.Fprintln(stderr, termsafe.String(err.Error()))
			}
			status = 1
		}
	}
	finish := func() int {
		if err := out.Flush(); err != nil {
			fmt.Fprintln(stderr, "picldump: writing the output:", err)
			return 1
		}
		return status
	}
	if fs.NArg() == 0 {
		dump("appendix_a.trf", bytes.NewReader(sample))
		return finish()
	}
	for _, name := range fs.Args() {
		f, err := os.Open(name)
		if err != nil {
			out.Flush()
			fmt.Fprintln(stderr, termsafe.String(err.Error()))
			status = 1
			continue
		}
		if fs.NArg() > 1 && !*asJSON {
			fmt.Fprintf(out, "== %s\n", name)
		}
		dump(name, f)
		f.Close()
		if ew.Err != nil {
			break
		}
	}
	return finish()
}

// dumpText prints one line per record.
func dumpText(w *bufio.Writer, src io.Reader, opts *picl.ReaderOptions) error {
	r, err := picl.NewReader(src, opts)
	if err != nil {
		return err
	}
	var b []byte
	meter := progress.ForOutput(os.Stderr, w, opts.Path, "records")
	var n int64
	defer func() { meter.Done(n) }()
	for r.Next() {
		if n++; n&0xffff == 0 {
			meter.Update(n)
		}
		rec := r.Record()
		b = b[:0]
		event := rec.Event.String()
		if rec.Event < 0 {
			event += "(" + strconv.Itoa(int(rec.Event)) + ")"
		}
		b = fmt.Appendf(b, "%5d %-16s %-22s %10s  p%d/%d", r.Line(), rec.Type, event, rec.TimeText, rec.Processor, rec.Process)
		b = appendData(b, rec)
		if rec.Flags != 0 {
			b = fmt.Appendf(b, "  [%v", rec.Flags)
			if rec.Raw != nil {
				b = fmt.Appendf(b, " %q", rec.Raw)
			}
			b = append(b, ']')
		}
		b = append(b, '\n')
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return r.Err()
}

// appendData appends a record's data: characters quoted, statistics as
// event=value pairs, single-value fields with their names from the event
// table, other fields as [a b] lists.
func appendData(b []byte, rec *picl.Record) []byte {
	if rec.Count == 0 {
		return b
	}
	if rec.Chars != nil {
		return fmt.Appendf(b, "  %q", rec.Chars)
	}
	for i, f := range rec.Fields() {
		b = append(b, "  "...)
		switch {
		case rec.Type.IsStatistics() && len(f) == 2 && f[0].Kind == picl.KindInt:
			b = fmt.Appendf(b, "%v=%s", picl.EventType(f[0].Int), f[1].String())
		case len(f) == 1 && rec.Event < 0 && rec.Event.FieldName(rec.Type, i) != "":
			b = fmt.Appendf(b, "%s=%s", rec.Event.FieldName(rec.Type, i), f[0].String())
		default:
			b = append(b, '[')
			for j, v := range f {
				if j > 0 {
					b = append(b, ' ')
				}
				if v.Kind == picl.KindString {
					b = strconv.AppendQuote(b, string(v.Text))
				} else {
					b = v.AppendText(b)
				}
			}
			b = append(b, ']')
		}
	}
	return b
}

// jsonRecord is the JSON form of one record.
type jsonRecord struct {
	Line       int                  `json:"line"`
	RecordType int32                `json:"record_type"`
	EventType  int32                `json:"event_type"`
	Processor  int32                `json:"processor"`
	Process    int32                `json:"process"`
	Count      int                  `json:"count"`
	Time       string               `json:"time"`
	Descriptor *string              `json:"descriptor"`
	Control    *string              `json:"control"`
	Data       *[][]json.RawMessage `json:"data"`
	Chars      *string              `json:"chars,omitempty"`
	Flags      []string             `json:"flags,omitempty"`
	Raw        *string              `json:"raw,omitempty"`
}

// dumpJSON prints the JSON document of one trace, streaming: each record
// is written as it is read (not kept: its values point into the reader's
// buffer and are valid only until the next Next), and the summary of the
// records follows them. On a read error the document is closed after the
// records before it, with "complete": false and the error's text, and the
// error is returned for standard error.
func dumpJSON(w *bufio.Writer, src io.Reader, opts *picl.ReaderOptions) error {
	r, err := picl.NewReader(src, opts)
	if err != nil {
		return err
	}
	var (
		count  int
		sorted = true
		procs  = []int32{}
		last   float64
	)
	var line bytes.Buffer // one record's JSON
	enc := json.NewEncoder(&line)
	enc.SetEscapeHTML(false)
	w.WriteString("{\n  \"records\": [")
	for r.Next() {
		rec := r.Record()
		if count > 0 && rec.Time < last {
			sorted = false
		}
		last = rec.Time
		if i, found := slices.BinarySearch(procs, rec.Processor); !found {
			procs = slices.Insert(procs, i, rec.Processor)
		}
		if count > 0 {
			w.WriteByte(',')
		}
		w.WriteString("\n    ")
		j := toJSON(r.Line(), rec)
		line.Reset()
		if err := enc.Encode(&j); err != nil {
			return err
		}
		w.Write(line.Bytes()[:line.Len()-1]) // without Encode's newline
		count++
	}
	rerr := r.Err()
	if count > 0 {
		w.WriteString("\n  ")
	}
	procsJSON, err := json.Marshal(procs)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "],\n  \"record_count\": %d,\n  \"sorted_by_time\": %v,\n  \"processors\": %s,\n  \"complete\": %v",
		count, sorted, procsJSON, rerr == nil)
	if rerr != nil {
		msg, err := json.Marshal(rerr.Error())
		if err != nil {
			return err
		}
		fmt.Fprintf(w, ",\n  \"error\": %s", msg)
	}
	if _, err := w.WriteString("\n}\n"); err != nil {
		return err
	}
	return rerr
}

func toJSON(line int, rec *picl.Record) jsonRecord {
	j := jsonRecord{
		Line: line, RecordType: int32(rec.Type), EventType: int32(rec.Event),
		Processor: rec.Processor, Process: rec.Process, Count: rec.Count, Time: string(rec.TimeText),
	}
	if rec.Count > 0 {
		if rec.Descriptor != "" {
			d := rec.Descriptor
			j.Descriptor = &d
		}
		if rec.Control != "" {
			c := rec.Control
			j.Control = &c
		}
	}
	switch {
	case rec.Chars != nil:
		c := string(rec.Chars)
		j.Chars = &c
	case rec.Flags&picl.FlagUndecoded != 0:
	default:
		data := [][]json.RawMessage{}
		if k := rec.PerField(); k > 0 {
			for i := 0; i < len(rec.Data); i += k {
				field := []json.RawMessage{}
				for _, v := range rec.Data[i:min(i+k, len(rec.Data))] {
					field = append(field, jsonValue(v))
				}
				data = append(data, field)
			}
		}
		j.Data = &data
	}
	if rec.Flags != 0 {
		j.Flags = strings.Split(rec.Flags.String(), "|")
	}
	if rec.Raw != nil {
		raw := string(rec.Raw)
		j.Raw = &raw
	}
	return j
}

// jsonValue returns a value's JSON form: numbers as written when the token is
// a valid JSON number, canonically otherwise; strings as JSON strings. A
// number's form may share the record's memory, so it must be encoded before
// the reader's next Next.
func jsonValue(v picl.Value) json.RawMessage {
	switch v.Kind {
	case picl.KindInt:
		if json.Valid(v.Text) && v.Text[0] != '+' {
			return json.RawMessage(v.Text)
		}
		return json.RawMessage(strconv.FormatInt(v.Int, 10))
	case picl.KindFloat:
		if json.Valid(v.Text) {
			if _, err := strconv.ParseFloat(string(v.Text), 64); err == nil {
				return json.RawMessage(v.Text)
			}
		}
		return json.RawMessage(strconv.FormatFloat(v.Float, 'g', -1, 64))
	}
	s, _ := json.Marshal(string(v.Text))
	return s
}
