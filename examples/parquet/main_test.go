package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace"
	"github.com/hpctrace/hpctrace/export"
	"github.com/parquet-go/parquet-go"
)

// fixtures are traces of every input format.
var fixtures = []string{
	"../../eventjson/testdata/fig12.json",
	"../../picl/testdata/appendix_a.trf",
	"../../dumpi/testdata/collectives/dumpi-2026.11.22.01.33.17.meta",
	"../../otf/testdata/minimal_ring_short/mini.otf",
	"../../otf/testdata/all_records_short/allrec.otf",
	"../../dumpi/testdata/p2p_blocking/dumpi-2026.11.22.01.32.56.meta",
	"../../examples/tracestat/testdata/otf2_mpi/trace/traces.otf2",
}

var tables = []string{"events", "messages", "regions", "locations", "profile", "waitstates"}

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
	waits := 0
	dir := t.TempDir() // the subtests' own would be gone when node runs
	for _, in := range fixtures {
		t.Run(filepath.Base(in), func(t *testing.T) {
			pq := filepath.Join(dir, filepath.Base(in), "pq")
			if err := convert(in, pq, 7, false, true); err != nil {
				t.Fatal(err)
			}
			tr, err := hpctrace.Open(in, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			cs := filepath.Join(dir, filepath.Base(in), "csv")
			if err := export.WriteCSVWith(cs, tr, &export.CSVOptions{WaitStates: true}); err != nil {
				t.Fatal(err)
			}
			for _, tb := range tables {
				want := readCSV(t, filepath.Join(cs, tb+".csv"))
				if tb == "waitstates" {
					waits += len(want) - 1
				}
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
	if waits == 0 {
		t.Error("no wait states in the fixtures: the waitstates table is not compared")
	}
}

// TestRowGroups checks that the events are written in row groups of the
// size asked for, and read back by parquet-go itself.
func TestRowGroups(t *testing.T) {
	out := t.TempDir()
	if err := convert(fixtures[4], out, 10, false, false); err != nil {
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
	if len(ents) != len(tables)-1 { // no waitstates table
		t.Errorf("%d files, want %d", len(ents), len(tables)-1)
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
	if err := convert(in, out, 10, false, false); err == nil {
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
	if err := convert(in, out, 10, true, false); err == nil || !strings.Contains(err.Error(), "input") {
		t.Errorf("input among the tables: got error %v, want one naming the input", err)
	}
	if now, _ := os.ReadFile(in); !bytes.Equal(now, b) {
		t.Errorf("the input changed")
	}
	out = t.TempDir()
	if err := convert(fixtures[4], out, 10, false, false); err != nil {
		t.Fatal(err)
	}
	if err := convert(fixtures[4], out, 10, false, false); err == nil || !strings.Contains(err.Error(), "-force") {
		t.Errorf("existing tables without force: got error %v, want one naming -force", err)
	}
	if err := convert(fixtures[4], out, 10, true, false); err != nil {
		t.Errorf("with force: %v", err)
	}
}

// TestSecondsFromStart: the seconds columns count from the trace's first
// event, the tick columns keep the clock's times. The OTF2 fixture's clock
// has a global offset of 2^62 ns (146 years); with the locations' own
// offsets the trace spans 6.5 µs around it.
func TestSecondsFromStart(t *testing.T) {
	out := t.TempDir()
	if err := convert("../../otf2/testdata/c_localdefs/trace/traces.otf2", out, 0, false, false); err != nil {
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

// TestWaitStatesJoin joins the waitstates table to the events and
// messages tables in DuckDB on the keys export.WaitStateRow documents:
// every instance finds the enter of its waiting call (location, time,
// region, and the same seconds), and every late sender a message between
// its two calls.
func TestWaitStatesJoin(t *testing.T) {
	script := nodeReaders(t)
	out := t.TempDir()
	if err := convert(fixtures[5], out, 0, false, true); err != nil {
		t.Fatal(err)
	}
	ws, err := parquet.ReadFile[export.WaitStateRow](filepath.Join(out, "waitstates.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	late := 0
	for _, w := range ws {
		if w.Pattern == "late_sender" {
			late++
		}
	}
	if len(ws) == 0 || late == 0 {
		t.Fatalf("%d wait states, %d late senders: nothing to join", len(ws), late)
	}
	q := func(name string) string {
		return "read_parquet('" + strings.ReplaceAll(filepath.Join(out, name), "'", "''") + "')"
	}
	enters := `SELECT count(*) FROM ` + q("waitstates.parquet") + ` w JOIN ` + q("events.parquet") + ` e
		ON e.loc_id = w.waiter_id AND e.time = w.waiter_enter AND e.region = w.waiter_region AND e.kind = 'enter'
		AND e.seconds = w.waiter_enter_seconds`
	messages := `SELECT count(*) FROM ` + q("waitstates.parquet") + ` w WHERE w.pattern = 'late_sender' AND EXISTS (
		SELECT 1 FROM ` + q("messages.parquet") + ` m WHERE m.receiver_id = w.waiter_id AND m.sender_id = w.delayer_id
		AND m.recv_time BETWEEN w.waiter_enter AND w.waiter_leave AND m.send_time BETWEEN w.delayer_enter AND w.delayer_leave)`
	got := readNode(t, script, [][2]string{{"duckdb-sql", enters}, {"duckdb-sql", messages}})
	for i, want := range []int{len(ws), late} {
		n := "no answer"
		if len(got[i].Rows) == 1 && got[i].Rows[0][0] != nil {
			n = *got[i].Rows[0][0]
		}
		if n != strconv.Itoa(want) {
			t.Errorf("join %d: DuckDB counts %s rows, want %d", i, n, want)
		}
	}
}

// TestWaitStatesTable: without -waitstates there is no waitstates table,
// and a forced export without it removes the one an earlier export wrote.
func TestWaitStatesTable(t *testing.T) {
	out := t.TempDir()
	if err := convert(fixtures[5], out, 0, false, true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "waitstates.parquet")); err != nil {
		t.Fatal(err)
	}
	if err := convert(fixtures[5], out, 0, false, false); err == nil || !strings.Contains(err.Error(), "-force") {
		t.Errorf("export over the tables without -force: got %v, want an error naming -force", err)
	}
	if err := convert(fixtures[5], out, 0, true, false); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(out)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if len(names) != 5 || slices.Contains(names, "waitstates.parquet") {
		t.Errorf("files %v, want the five tables without waitstates.parquet", names)
	}
}

var update = flag.Bool("update", false, "rewrite testdata/schema.txt")

// TestSchema: the Parquet schema of every table (column names, physical
// and logical types, encodings) is the one in testdata/schema.txt, so a
// change of the row types' Go types (such as uint32 becoming model.LocID)
// cannot change the files silently. Rewrite it with -update.
func TestSchema(t *testing.T) {
	out := t.TempDir()
	if err := convert(fixtures[5], out, 0, false, true); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, name := range tables {
		f, err := os.Open(filepath.Join(out, name+".parquet"))
		if err != nil {
			t.Fatal(err)
		}
		st, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		pf, err := parquet.OpenFile(f, st.Size())
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(name + ": " + pf.Schema().String() + "\n")
		f.Close()
	}
	golden := filepath.Join("testdata", "schema.txt")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("schemas:\n%s\nwant:\n%s", got, want)
	}
}
