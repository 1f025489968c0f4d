package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace/examples/internal/progtest"
)

var update = flag.Bool("update", false, "rewrite testdata/*.json")

// TestJSONGolden checks picldump -json over every picl fixture against
// testdata/<name>.json. Regenerate with go test ./examples/picldump -update.
func TestJSONGolden(t *testing.T) {
	files, err := filepath.Glob("../../picl/testdata/*.trf")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".trf")
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run([]string{"-json", "-strict", file}, &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			golden := filepath.Join("testdata", name+".json")
			if *update {
				if err := os.WriteFile(golden, stdout.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(want, stdout.Bytes()) {
				t.Errorf("picldump -json %s differs from %s:\n%s", file, golden, stdout.String())
			}
			checkDoc(t, stdout.Bytes(), file)
		})
	}
}

type doc struct {
	RecordCount  int   `json:"record_count"`
	SortedByTime bool  `json:"sorted_by_time"`
	Processors   []int `json:"processors"`
	Records      []rec `json:"records"`
}

type rec struct {
	Line       int      `json:"line"`
	RecordType int      `json:"record_type"`
	Processor  int      `json:"processor"`
	Count      int      `json:"count"`
	Time       string   `json:"time"`
	Descriptor *string  `json:"descriptor"`
	Control    *string  `json:"control"`
	Data       *[][]any `json:"data"`
	Chars      *string  `json:"chars"`
}

// checkDoc checks the document's invariants against the trace text itself.
func checkDoc(t *testing.T, out []byte, file string) {
	t.Helper()
	var d doc
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatalf("invalid JSON: %v", err)
	}
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
	if d.RecordCount != len(lines) || len(d.Records) != len(lines) {
		t.Errorf("record_count %d, %d records; the file has %d lines", d.RecordCount, len(d.Records), len(lines))
	}
	sorted := true
	procs := map[int]bool{}
	prev := -1e300
	for i, r := range d.Records {
		fields := strings.Fields(lines[i])
		if r.Line != i+1 || r.Time != fields[2] || strconv.Itoa(r.Count) != fields[5] {
			t.Errorf("record %d: line %d time %s count %d; file line %q", i, r.Line, r.Time, r.Count, lines[i])
		}
		tm, _ := strconv.ParseFloat(r.Time, 64)
		sorted = sorted && tm >= prev
		prev = tm
		procs[r.Processor] = true
		switch {
		case r.Count == 0:
			if r.Descriptor != nil || r.Control != nil || r.Data == nil || len(*r.Data) != 0 {
				t.Errorf("record %d: count 0 with descriptor %v control %v data %v", i, r.Descriptor, r.Control, r.Data)
			}
		case r.Chars != nil:
			if r.Data != nil || len(*r.Chars) != r.Count || *r.Control != "%c" {
				t.Errorf("record %d: chars %q for count %d", i, *r.Chars, r.Count)
			}
		default:
			if r.Descriptor == nil || !strings.Contains(lines[i], " "+*r.Descriptor+" ") || r.Data == nil || len(*r.Data) != r.Count {
				t.Errorf("record %d: descriptor %v data %v for %q", i, r.Descriptor, r.Data, lines[i])
			}
		}
	}
	if sorted != d.SortedByTime {
		t.Errorf("sorted_by_time %v, want %v", d.SortedByTime, sorted)
	}
	if len(procs) != len(d.Processors) {
		t.Errorf("processors %v, want the %d distinct values", d.Processors, len(procs))
	}
	for i, p := range d.Processors {
		if !procs[p] || (i > 0 && p <= d.Processors[i-1]) {
			t.Errorf("processors %v not sorted distinct values of the records", d.Processors)
		}
	}
}

// TestDefault runs picldump without arguments: the embedded Appendix A trace.
func TestDefault(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(nil, &stdout, &stderr); code != 0 || stderr.Len() != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if len(lines) != 35 {
		t.Fatalf("%d lines, want 35", len(lines))
	}
	if !strings.Contains(lines[12], "recv0-wait(-52)") || !strings.Contains(lines[12], "source processor id=0") {
		t.Errorf("line 13: %q", lines[12])
	}
	stdout.Reset()
	if code := run([]string{"-json"}, &stdout, &stderr); code != 0 {
		t.Fatalf("-json exit %d: %s", code, stderr.String())
	}
	want, err := os.ReadFile("testdata/appendix_a.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(stdout.Bytes(), want) {
		t.Errorf("embedded sample's JSON differs from testdata/appendix_a.json")
	}
}

// TestErrors: a malformed file gives exit status 1 and a positioned error,
// and the files after it are still dumped.
func TestErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.trf")
	if err := os.WriteFile(bad, []byte("-3 -901 0.0 0 0 0\n-3 -21 0.1 0 0 3 2 8 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{bad}, &stdout, &stderr); code != 0 {
		t.Fatalf("lenient: exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "[truncated]") {
		t.Errorf("lenient output lacks the truncated flag:\n%s", stdout.String())
	}
	stdout.Reset()
	code := run([]string{"-strict", bad, "../../picl/testdata/user_records.trf"}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "bad.trf:2: offset ") || !strings.Contains(stderr.String(), ": record 1: ") {
		t.Errorf("strict: exit %d, stderr %q", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "== ../../picl/testdata/user_records.trf") {
		t.Errorf("the second file was not dumped:\n%s", stdout.String())
	}
	// An alias used before its -6 definition: lenient reading keeps the
	// record undecoded, -strict rejects it.
	alias := filepath.Join(t.TempDir(), "alias.trf")
	if err := os.WriteFile(alias, []byte("-3 -901 0.0 0 0 0\n-3 -21 0.1 0 0 3 7 8 1 1\n-6 -1 -1 -1 -1 1 \"%d%s\" 7 \"%d\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{alias}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "[undecoded") {
		t.Errorf("lenient undefined alias: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	stderr.Reset()
	if code := run([]string{"-strict", alias}, &stdout, &stderr); code != 1 ||
		!strings.Contains(stderr.String(), "alias.trf:2: offset 18: record 1: descriptor alias 7 is not defined") {
		t.Errorf("strict undefined alias: exit %d, stderr %q", code, stderr.String())
	}
	if code := run([]string{"-nosuchflag"}, &stdout, &stderr); code != 2 {
		t.Errorf("bad flag: exit %d", code)
	}
}

// TestJSONLarge dumps a generated trace of several MiB, far more than the
// reader's buffer holds, and checks every record's values against the
// line they came from: the JSON form must not keep memory the reader
// reuses.
func TestJSONLarge(t *testing.T) {
	var text bytes.Buffer
	const n = 120000
	for i := range n {
		// Distinct values per record, so a value read from a reused buffer
		// shows up as a wrong number.
		fmt.Fprintf(&text, "-3 -21 %d.%06d %d 0 3 2 %d %d %d\n", i/1000, i%1000*1000, i%7, 1000000+i, i%97, (i+1)%7)
	}
	if text.Len() < 4<<20 {
		t.Fatalf("generated only %d bytes", text.Len())
	}
	file := filepath.Join(t.TempDir(), "large.trf")
	if err := os.WriteFile(file, text.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-json", "-strict", file}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	checkDoc(t, stdout.Bytes(), file)
	var d doc
	if err := json.Unmarshal(stdout.Bytes(), &d); err != nil {
		t.Fatal(err)
	}
	for i, r := range d.Records {
		want := []any{float64(1000000 + i), float64(i % 97), float64((i + 1) % 7)}
		if r.Data == nil || len(*r.Data) != 3 {
			t.Fatalf("record %d: data %v", i, r.Data)
		}
		for k, f := range *r.Data {
			if len(f) != 1 || f[0] != want[k] {
				t.Fatalf("record %d field %d: %v, want %v", i, k, f, want[k])
			}
		}
	}
}

// TestWriteErrors: an output that fails gives exit status 1 and one
// message, wherever it fails, in both modes and with several files.
func TestWriteErrors(t *testing.T) {
	for _, args := range [][]string{
		{"../../picl/testdata/ring4.trf"},
		{"-json", "../../picl/testdata/ring4.trf"},
		{"../../picl/testdata/ring4.trf", "../../picl/testdata/fileio.trf"},
		nil,
	} {
		var full bytes.Buffer
		if code := run(args, &full, io.Discard); code != 0 {
			t.Fatalf("%v: exit status %d", args, code)
		}
		for _, n := range []int{0, 100, full.Len() / 2, full.Len() - 1} {
			var stderr bytes.Buffer
			if code := run(args, &progtest.FailWriter{N: n}, &stderr); code != 1 {
				t.Errorf("%v, writer failing after %d bytes: exit status %d, want 1", args, n, code)
			}
			if c := strings.Count(stderr.String(), progtest.ErrFull.Error()); c != 1 {
				t.Errorf("%v, writer failing after %d bytes: stderr %q names the error %d times", args, n, stderr.String(), c)
			}
		}
	}
}

// TestRecordsBeforeError: the records before a bad one are printed, then
// the error.
func TestRecordsBeforeError(t *testing.T) {
	good, err := os.ReadFile("../../picl/testdata/ring4.trf")
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad.trf")
	if err := os.WriteFile(bad, append(bytes.Clone(good), "-3 -21 garbage\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	var want, got, stderr bytes.Buffer
	if code := run([]string{"../../picl/testdata/ring4.trf"}, &want, io.Discard); code != 0 {
		t.Fatal(code)
	}
	if code := run([]string{"-strict", bad}, &got, &stderr); code != 1 || stderr.Len() == 0 {
		t.Fatalf("exit status %d, stderr %q", code, stderr.String())
	}
	if got.String() != want.String() {
		t.Errorf("output before the error differs from the good file's (%d bytes, want %d)", got.Len(), want.Len())
	}
}

// TestDevFull runs the program with its output on /dev/full.
func TestDevFull(t *testing.T) {
	exe := progtest.Build(t)
	for _, args := range [][]string{{"../../picl/testdata/ring4.trf"}, {"-json", "../../picl/testdata/ring4.trf"}, nil} {
		code, stderr := progtest.DevFull(t, exe, args...)
		if code != 1 || !strings.Contains(stderr, "no space left") {
			t.Errorf("%v: exit status %d, stderr %q; want 1 and the error", args, code, stderr)
		}
	}
}

// TestJSONRecordsBeforeError: with -json, a file that fails partway
// through gives a valid document with every record before the error,
// "complete": false and the error's text; the error goes to stderr too,
// and the next file's document follows.
func TestJSONRecordsBeforeError(t *testing.T) {
	good, err := os.ReadFile("../../picl/testdata/ring4.trf")
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad.trf")
	if err := os.WriteFile(bad, append(bytes.Clone(good), "-3 -21 garbage\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-json", "-strict", bad, "../../picl/testdata/user_records.trf"}, &stdout, &stderr); code != 1 {
		t.Fatalf("exit status %d, stderr %q", code, stderr.String())
	}
	msg := strings.TrimSpace(stderr.String())
	if !strings.Contains(msg, "bad.trf:81") {
		t.Errorf("stderr %q: want the error at line 81", msg)
	}
	dec := json.NewDecoder(&stdout)
	var first struct {
		doc
		Complete bool   `json:"complete"`
		Error    string `json:"error"`
	}
	if err := dec.Decode(&first); err != nil {
		t.Fatalf("the failed file's document: %v", err)
	}
	if first.RecordCount != 80 || len(first.Records) != 80 || first.Records[79].Line != 80 || first.Complete || first.Error != msg {
		t.Errorf("failed file: %d records (count %d), complete %v, error %q (stderr %q)",
			len(first.Records), first.RecordCount, first.Complete, first.Error, msg)
	}
	var second struct {
		doc
		Complete bool `json:"complete"`
	}
	if err := dec.Decode(&second); err != nil {
		t.Fatalf("the next file's document: %v", err)
	}
	if !second.Complete || second.RecordCount == 0 || len(second.Records) != second.RecordCount {
		t.Errorf("next file: complete %v, %d records, count %d", second.Complete, len(second.Records), second.RecordCount)
	}
}
