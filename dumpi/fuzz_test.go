package dumpi

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// FuzzReader feeds arbitrary bytes to NewFile, every section reader, the
// call stream and the ASCII printer, and to NewReader. Nothing may panic;
// every error must be a *ParseError; and whatever parses completely must
// re-write and re-read to the same calls.
func FuzzReader(f *testing.F) {
	bins, _ := filepath.Glob("testdata/*/*.bin")
	for _, b := range bins {
		data, err := os.ReadFile(b)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	bad, _ := filepath.Glob("testdata/bad/*.txtar")
	for _, b := range bad {
		data, err := os.ReadFile(b)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(assemble(f, txtar(string(data))["input"]))
	}
	c := &Call{Mask: 0xCF, Perf: []PerfValue{{1, 2}}}
	c.SetArgs(&Waitall{Count: 2, Requests: []Request{2, 3}, Statuses: []Status{{Bytes: 1}, {Tag: 4}}})
	f.Add(writeCalls(f, &WriterOptions{PerfLabels: []string{"PAPI_TOT_CYC"}, FunctionNames: []FunctionName{{42, "x"}}}, []*Call{c}))

	f.Fuzz(fuzzReader)
}

func fuzzReader(t *testing.T, data []byte) {
	checkErr := func(err error) {
		t.Helper()
		var pe *ParseError
		if err != nil && !errors.As(err, &pe) {
			t.Fatalf("error %v (%T) is not a *ParseError", err, err)
		}
	}
	if r, err := NewReader(bytes.NewReader(data), nil); err == nil {
		for r.Next() {
			_ = r.Record().AppendASCII(nil, 0, 0, nil)
		}
		checkErr(r.Err())
	} else {
		checkErr(err)
	}

	compareFastGeneral(t, data, nil)

	file, err := NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		checkErr(err)
		return
	}
	clean := true
	note := func(err error) {
		checkErr(err)
		if err != nil {
			clean = false
		}
	}
	_, err = file.Header()
	note(err)
	_, err = file.Footer()
	note(err)
	_, err = file.KeyVals()
	note(err)
	_, err = file.PerfLabels()
	note(err)
	_, err = file.FunctionNames()
	note(err)
	_, err = file.DatatypeSizes()
	note(err)
	var calls []*Call
	r := file.Calls()
	for r.Next() {
		c := r.Record()
		_ = c.AppendASCII(nil, 0, 0, nil)
		_, _, _, _ = c.CPUStart(), c.CPUStop(), c.WallStart(), c.WallStop()
		calls = append(calls, c.Clone())
	}
	note(r.Err())
	note(file.WriteASCII(io.Discard))
	if !clean || file.Index.Header == 0 || file.Index.Footer == 0 {
		return
	}
	// Everything parsed: re-write and re-read.
	opts, err := file.CopyOptions()
	if err != nil {
		t.Fatal(err)
	}
	out := writeCalls(t, opts, calls)
	again, err := NewFile(bytes.NewReader(out), int64(len(out)))
	if err != nil {
		t.Fatal(err)
	}
	var got []*Call
	for c, err := range again.Calls().All() {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, c.Clone())
	}
	if diff := cmp.Diff(views(calls), views(got), cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("re-read differs (-first +second):\n%s", diff)
	}
}
