package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace"
	"github.com/hpctrace/hpctrace/export"
	"github.com/parquet-go/parquet-go"
)

// fixtures are traces of every input format.
var fixtures = []string{
	"../../model/testdata/fig12.json",
	"../../picl/testdata/appendix_a.trf",
	"../../dumpi/testdata/collectives/dumpi-2026.11.22.01.33.17.meta",
	"../../otf/testdata/minimal_ring_short/mini.otf",
	"../../otf/testdata/all_records_short/allrec.otf",
}

var tables = []string{"events", "messages", "regions", "locations", "profile"}

// nodeReaders returns the path of read.mjs, or skips the test when node
// or the readers it uses are not installed (CI installs them with
// "npm ci --prefix examples/parquet/testdata/node").
func nodeReaders(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	for _, m := range []string{"hyparquet", "@duckdb/node-api"} {
		if _, err := os.Stat(filepath.Join("testdata/node/node_modules", m)); err != nil {
			t.Skipf("%s is not installed: npm ci --prefix testdata/node", m)
		}
	}
	return "testdata/node/read.mjs"
}

type nodeTable struct {
	Columns []string    `json:"columns"`
	Rows    [][]*string `json:"rows"`
}

// readNode reads each file with its reader ("duckdb-parquet",
// "duckdb-csv" or "hyparquet") in one run of node.
func readNode(t *testing.T, script string, specs [][2]string) []nodeTable {
	t.Helper()
	args := []string{script}
	for _, s := range specs {
		args = append(args, s[0]+"="+s[1])
	}
	out, err := exec.Command("node", args...).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("node: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	var nt []nodeTable
	if err := json.Unmarshal(out, &nt); err != nil || len(nt) != len(specs) {
		t.Fatalf("node: %v (%d tables for %d files)", err, len(nt), len(specs))
	}
	return nt
}

func readCSV(t *testing.T, name string) [][]string {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// sameCell compares a value read back with the CSV's text: numbers by
// value (readers print floats their own way), the rest as text. With
// emptyNull, an empty cell may read as null, as DuckDB reads CSV.
func sameCell(got *string, want string, emptyNull bool) bool {
	if got == nil {
		return emptyNull && want == ""
	}
	if *got == want {
		return true
	}
	g, err1 := strconv.ParseFloat(*got, 64)
	w, err2 := strconv.ParseFloat(want, 64)
	return err1 == nil && err2 == nil && g == w
}

// compare checks a table read by an independent reader against the CSV
// table the SDK writes for the same trace.
func compare(t *testing.T, what string, got nodeTable, want [][]string) {
	emptyNull := strings.HasSuffix(what, "csv by DuckDB")
	t.Helper()
	if strings.Join(got.Columns, ",") != strings.Join(want[0], ",") {
		t.Errorf("%s: columns %v, want %v", what, got.Columns, want[0])
		return
	}
	if len(got.Rows) != len(want)-1 {
		t.Errorf("%s: %d rows, want %d", what, len(got.Rows), len(want)-1)
		return
	}
	for i, row := range got.Rows {
		for j, cell := range row {
			if !sameCell(cell, want[i+1][j], emptyNull) {
				g := "null"
				if cell != nil {
					g = *cell
				}
				t.Errorf("%s: row %d column %s = %q, want %q", what, i, got.Columns[j], g, want[i+1][j])
				return
			}
		}
	}
}

// TestCrossCheck converts a trace of every format to Parquet in small row
// groups and to CSV, then reads the Parquet files with two independent
// readers, DuckDB and hyparquet, and the CSV files with DuckDB, and
// checks that all of them hold the same tables, value by value.
func TestCrossCheck(t *testing.T) {
	script := nodeReaders(t)
	type check struct {
		what string
		want [][]string
	}
	var specs [][2]string
	var checks []check
	dir := t.TempDir() // the subtests' own would be gone when node runs
	for _, in := range fixtures {
		t.Run(filepath.Base(in), func(t *testing.T) {
			pq := filepath.Join(dir, filepath.Base(in), "pq")
			if err := convert(in, pq, 7, false); err != nil {
				t.Fatal(err)
			}
			tr, err := hpctrace.Open(in, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			cs := filepath.Join(dir, filepath.Base(in), "csv")
			if err := export.WriteCSV(cs, tr); err != nil {
				t.Fatal(err)
			}
			for _, tb := range tables {
				want := readCSV(t, filepath.Join(cs, tb+".csv"))
				pf := filepath.Join(pq, tb+".parquet")
				name := filepath.Base(in) + ": " + tb
				specs = append(specs, [2]string{"duckdb-parquet", pf}, [2]string{"hyparquet", pf}, [2]string{"duckdb-csv", filepath.Join(cs, tb+".csv")})
				checks = append(checks, check{name + ".parquet by DuckDB", want}, check{name + ".parquet by hyparquet", want}, check{name + ".csv by DuckDB", want})
			}
		})
	}
	got := readNode(t, script, specs)
	for i, c := range checks {
		compare(t, c.what, got[i], c.want)
	}
}

// TestRowGroups checks that the events are written in row groups of the
// size asked for, and read back by parquet-go itself.
func TestRowGroups(t *testing.T) {
	out := t.TempDir()
	if err := convert(fixtures[4], out, 10, false); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(out, "events.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, rg := range pf.RowGroups() {
		if rg.NumRows() > 10 {
			t.Errorf("row group of %d rows, want at most 10", rg.NumRows())
		}
		n += rg.NumRows()
	}
	if len(pf.RowGroups()) < 2 || n != pf.NumRows() {
		t.Errorf("%d row groups, %d of %d rows", len(pf.RowGroups()), n, pf.NumRows())
	}
	rows, err := parquet.Read[export.EventRow](f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(rows)) != n || rows[0].Kind == "" {
		t.Errorf("read %d rows, first %+v", len(rows), rows[0])
	}
	ents, _ := os.ReadDir(out)
	if len(ents) != len(tables) {
		t.Errorf("%d files, want %d", len(ents), len(tables))
	}
}

// TestFailure checks that a trace that fails part-way leaves no files.
func TestFailure(t *testing.T) {
	b, err := os.ReadFile(fixtures[0])
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(t.TempDir(), "cut.json")
	if err := os.WriteFile(in, b[:len(b)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := convert(in, out, 10, false); err == nil {
		t.Fatal("convert of a truncated trace succeeded")
	}
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Errorf("%d files left after a failed export", len(ents))
	}
}

// TestOutputRules checks that existing tables are replaced only with
// force and that a file of the trace read is never one of the tables.
func TestOutputRules(t *testing.T) {
	out := t.TempDir()
	b, err := os.ReadFile(fixtures[4])
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(out, "events.parquet") // the input, named as a table
	if err := os.WriteFile(in, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := convert(in, out, 10, true); err == nil || !strings.Contains(err.Error(), "input") {
		t.Errorf("input among the tables: got error %v, want one naming the input", err)
	}
	if now, _ := os.ReadFile(in); !bytes.Equal(now, b) {
		t.Errorf("the input changed")
	}
	out = t.TempDir()
	if err := convert(fixtures[4], out, 10, false); err != nil {
		t.Fatal(err)
	}
	if err := convert(fixtures[4], out, 10, false); err == nil || !strings.Contains(err.Error(), "-force") {
		t.Errorf("existing tables without force: got error %v, want one naming -force", err)
	}
	if err := convert(fixtures[4], out, 10, true); err != nil {
		t.Errorf("with force: %v", err)
	}
}

// TestSecondsFromStart: the seconds columns count from the trace's first
// event, the tick columns keep the clock's times. The OTF2 fixture's clock
// has a global offset of 2^62 ns (146 years); with the locations' own
// offsets the trace spans 6.5 µs around it.
func TestSecondsFromStart(t *testing.T) {
	out := t.TempDir()
	if err := convert("../../otf2/testdata/c_localdefs/trace/traces.otf2", out, 0, false); err != nil {
		t.Fatal(err)
	}
	rows, err := parquet.ReadFile[export.EventRow](filepath.Join(out, "events.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 || rows[0].Seconds != 0 {
		t.Fatalf("%d rows, the first at %v s; want it at 0 s", len(rows), rows)
	}
	for _, r := range rows {
		if r.Time < 1<<62-1000 || r.Seconds < 0 || r.Seconds > 1e-5 {
			t.Errorf("event at %d ticks, %g s; want ticks near 2^62 and seconds within the trace's 6.5 µs", r.Time, r.Seconds)
		}
	}
	msgs, err := parquet.ReadFile[export.MessageRow](filepath.Join(out, "messages.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if m.SendSeconds < 0 || m.SendSeconds > 1e-5 || m.RecvSeconds < 0 || m.RecvSeconds > 1e-5 {
			t.Errorf("message sent at %g s, received at %g s; want both within the trace's 6.5 µs", m.SendSeconds, m.RecvSeconds)
		}
	}
}
