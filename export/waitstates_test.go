package export_test

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace/export"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/waitstate"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// waitSource is a small MPI run of three ranks with a wait of every kind
// of row: a late sender (rank 2 waits for rank 1's send), a barrier that
// ranks 1 and 2 wait in for rank 3, and MPI_Init and MPI_Finalize, whose
// waits have no delaying call. Its clock has 1000 ticks a second and
// starts at 100 ticks.
func waitSource() *model.SliceSource {
	d := new(model.Defs)
	d.TimeBase = model.TimeBase{TicksPerSecond: 1000}
	var locs []model.LocID
	for i := range 3 {
		locs = append(locs, d.AddLocation(model.Location{Name: "rank " + strconv.Itoa(i), Native: int64(i), Process: int32(i)}))
	}
	world := d.AddComm(model.Comm{Name: "world", Members: locs})
	regs := map[string]model.RegionID{}
	for _, n := range []string{"main", "MPI_Init", "MPI_Send", "MPI_Recv", "MPI_Barrier", "MPI_Finalize"} {
		r := model.Region{Name: n, Paradigm: model.ParadigmMPI}
		if n == "main" {
			r.Paradigm = model.ParadigmUser
		}
		regs[n] = d.AddRegion(r)
	}
	var evs []model.Event
	call := func(loc model.LocID, e, x model.Time, name string, inner ...model.Event) {
		evs = append(evs, model.Event{Kind: model.KindEnter, Loc: loc, Time: e, Region: regs[name]})
		for _, ev := range inner {
			ev.Loc = loc
			evs = append(evs, ev)
		}
		evs = append(evs, model.Event{Kind: model.KindLeave, Loc: loc, Time: x, Region: regs[name]})
	}
	barrier := func(t model.Time) []model.Event {
		return []model.Event{{Kind: model.KindCollBegin, Time: t, Comm: world, Region: regs["MPI_Barrier"], Class: model.ClassBarrier},
			{Kind: model.KindCollEnd, Time: 260}}
	}
	init := []model.Time{110, 130, 105}
	bar := []model.Time{210, 220, 250}
	fin := []model.Time{270, 280, 290}
	for i, l := range locs {
		evs = append(evs, model.Event{Kind: model.KindEnter, Loc: l, Time: 100, Region: regs["main"]})
		call(l, 100, init[i], "MPI_Init")
		switch i {
		case 0:
			call(l, 170, 180, "MPI_Send", model.Event{Kind: model.KindSend, Time: 175, Peer: locs[1], Comm: world, Tag: 7, Bytes: 64})
		case 1:
			call(l, 140, 200, "MPI_Recv", model.Event{Kind: model.KindRecv, Time: 200, Peer: locs[0], Comm: world, Tag: 7, Bytes: 64})
		}
		call(l, bar[i], 260, "MPI_Barrier", barrier(bar[i])...)
		call(l, fin[i], 300, "MPI_Finalize")
		evs = append(evs, model.Event{Kind: model.KindLeave, Loc: l, Time: 310, Region: regs["main"]})
	}
	slices.SortStableFunc(evs, func(a, b model.Event) int { return int(a.Time - b.Time) })
	return model.NewSliceSource(d, evs)
}

// golden compares got with the file testdata/name, or rewrites it with
// -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s: got\n%s\nwant\n%s", name, got, want)
	}
}

// waitCSV writes the tables of src with the waitstates table into a new
// directory and returns it.
func waitCSV(t *testing.T, src model.Source) string {
	t.Helper()
	dir := t.TempDir()
	if err := export.WriteCSVWith(dir, src, &export.CSVOptions{WaitStates: true}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestWaitStatesGolden checks waitstates.csv of the hand-made run and of
// a DUMPI run against golden files.
func TestWaitStatesGolden(t *testing.T) {
	for _, c := range []struct {
		golden string
		src    func(*testing.T) model.Source
	}{
		{"waitstates_hand.csv", func(*testing.T) model.Source { return waitSource() }},
		{"waitstates_collectives.csv", func(t *testing.T) model.Source { return openTrace(t, fixtures[2]) }},
		{"waitstates_p2p_blocking.csv", func(t *testing.T) model.Source {
			return openTrace(t, "../dumpi/testdata/p2p_blocking/dumpi-2026.11.22.01.32.56.meta")
		}},
	} {
		t.Run(c.golden, func(t *testing.T) {
			dir := waitCSV(t, c.src(t))
			b, err := os.ReadFile(filepath.Join(dir, export.WaitStatesCSV))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Count(string(b), "\n") < 2 {
				t.Errorf("no wait states:\n%s", b)
			}
			golden(t, c.golden, string(b))
		})
	}
}

// table is a CSV table read back, with its columns by name.
type table struct {
	col  map[string]int
	rows [][]string
}

func readTable(t *testing.T, dir, name string) table {
	t.Helper()
	recs := readCSV(t, filepath.Join(dir, name))
	tb := table{col: map[string]int{}, rows: recs[1:]}
	for i, c := range recs[0] {
		tb.col[c] = i
	}
	return tb
}

func (tb table) get(row []string, col string) string { return row[tb.index(col)] }

// index returns the index of column col; it panics for a column the
// table lacks, so that a renamed column fails the test instead of reading
// column 0.
func (tb table) index(col string) int {
	i, ok := tb.col[col]
	if !ok {
		panic("no column " + col)
	}
	return i
}

func (tb table) num(row []string, col string) int64 {
	v, err := strconv.ParseInt(row[tb.index(col)], 10, 64)
	if err != nil {
		panic(err)
	}
	return v
}

// TestWaitStatesJoin exports traces of every format with their wait
// states and joins each instance to the other tables on the keys the
// documentation of WaitStateRow gives: its calls' enter and leave rows in
// the events table by (location, time, region), its row of the profile
// table by (location, region) and, for a late sender, its message in the
// messages table. The wait times add up to package waitstate's table.
func TestWaitStatesJoin(t *testing.T) {
	traces := append(slices.Clone(fixtures), "../examples/tracestat/testdata/otf2_mpi/trace/traces.otf2",
		"../dumpi/testdata/p2p_nonblocking/dumpi-2026.11.22.01.33.16.meta", "../dumpi/testdata/p2p_blocking/dumpi-2026.11.22.01.32.56.meta",
		"../waitstate/testdata/otf2_waits/trace/traces.otf2")
	joined := map[string]int{}
	for _, name := range traces {
		t.Run(name[strings.LastIndex(name, "/")+1:], func(t *testing.T) {
			dir := waitCSV(t, openTrace(t, name))
			ev, msgs, prof, ws := readTable(t, dir, "events.csv"), readTable(t, dir, "messages.csv"), readTable(t, dir, "profile.csv"), readTable(t, dir, export.WaitStatesCSV)
			type evKey struct {
				loc, kind, region string
				time              int64
			}
			events := map[evKey]int{}
			for _, r := range ev.rows {
				events[evKey{ev.get(r, "loc_id"), ev.get(r, "kind"), ev.get(r, "region"), ev.num(r, "time")}]++
			}
			profile := map[[2]string]bool{}
			for _, r := range prof.rows {
				profile[[2]string{prof.get(r, "loc_id"), prof.get(r, "region")}] = true
			}
			rep, err := waitstate.Analyze(openTrace(t, name), nil)
			if err != nil {
				t.Fatal(err)
			}
			sums := map[string]int64{}
			for _, w := range ws.rows {
				p, waiter, delayer := ws.get(w, "pattern"), ws.get(w, "waiter_id"), ws.get(w, "delayer_id")
				sums[p+"/"+waiter] += ws.num(w, "wait")
				for _, side := range []struct{ loc, prefix string }{{waiter, "waiter"}, {delayer, "delayer"}} {
					if side.loc == "0" {
						continue
					}
					reg := ws.get(w, side.prefix+"_region")
					if n := events[evKey{side.loc, "enter", reg, ws.num(w, side.prefix+"_enter")}]; n != 1 {
						t.Errorf("%v: %s's enter matches %d event rows, want 1", w, side.prefix, n)
					}
					if rep.Diagnostics.OpenAtEnd == 0 && events[evKey{side.loc, "leave", reg, ws.num(w, side.prefix+"_leave")}] != 1 {
						t.Errorf("%v: %s's leave matches no event row", w, side.prefix)
					}
				}
				if !profile[[2]string{waiter, ws.get(w, "waiter_region")}] {
					t.Errorf("%v: no profile row for (%s, %s)", w, waiter, ws.get(w, "waiter_region"))
				}
				joined["calls"]++
				if p != "late_sender" && p != "late_sender_wrong_order" {
					continue
				}
				n := 0
				for _, m := range msgs.rows {
					if msgs.get(m, "receiver_id") == waiter && msgs.get(m, "sender_id") == delayer && msgs.get(m, "status") == "matched" &&
						msgs.num(m, "recv_time") >= ws.num(w, "waiter_enter") && msgs.num(m, "recv_time") <= ws.num(w, "waiter_leave") &&
						msgs.num(m, "send_time") >= ws.num(w, "delayer_enter") && msgs.num(m, "send_time") <= ws.num(w, "delayer_leave") {
						n++
					}
				}
				if n == 0 {
					t.Errorf("%v: no message joins this late sender", w)
				}
				joined["messages"]++
			}
			want := map[string]int64{}
			for _, w := range rep.WaitStates {
				if w.Pattern <= waitstate.NxNCompletion {
					want[w.Pattern.String()+"/"+strconv.Itoa(int(w.Loc))] += int64(w.Time)
				}
			}
			for k, v := range sums {
				if v == 0 {
					delete(sums, k)
				}
			}
			if len(sums) != len(want) {
				t.Errorf("wait per pattern and location %v, waitstate's table %v", sums, want)
			}
			for k, v := range want {
				if sums[k] != v {
					t.Errorf("%s: waits add up to %d ticks, waitstate's table has %d", k, sums[k], v)
				}
			}
		})
	}
	if joined["calls"] < 20 || joined["messages"] < 5 {
		t.Errorf("joined %d instances to their calls, %d late senders to their messages: too few to test the keys", joined["calls"], joined["messages"])
	}
	t.Logf("joined %d instances to their calls, %d late senders to their messages", joined["calls"], joined["messages"])
}

// TestWaitStatesOnePass: the rows Tables hands over in its pass are those
// of WaitStates alone, and a trace whose clock counts from boot has the
// same seconds and its ticks moved.
func TestWaitStatesOnePass(t *testing.T) {
	var alone []export.WaitStateRow
	if err := export.WaitStates(waitSource(), func(r *export.WaitStateRow) error { alone = append(alone, *r); return nil }, nil); err != nil {
		t.Fatal(err)
	}
	var inTables []export.WaitStateRow
	var sink rows
	opts := &export.TablesOptions{WaitStates: func(r *export.WaitStateRow) error { inTables = append(inTables, *r); return nil }}
	if err := export.Tables(waitSource(), &sink, opts); err != nil {
		t.Fatal(err)
	}
	if len(alone) < 5 || !slices.Equal(alone, inTables) {
		t.Errorf("WaitStates gave\n%v\nTables\n%v", alone, inTables)
	}
	if len(sink.msgs) != 1 {
		t.Errorf("%d messages, want 1", len(sink.msgs))
	}
	const boot = 3_500_000 * 1000
	var moved []export.WaitStateRow
	if err := export.WaitStates(&shifted{Source: waitSource(), d: boot}, func(r *export.WaitStateRow) error { moved = append(moved, *r); return nil }, nil); err != nil {
		t.Fatal(err)
	}
	for i, m := range moved {
		a := alone[i]
		if m.WaiterEnterSeconds != a.WaiterEnterSeconds || m.DelayerLeaveSeconds != a.DelayerLeaveSeconds || m.WaiterEnter != a.WaiterEnter+boot {
			t.Errorf("row %d moved by %d ticks: %+v, want the seconds of %+v", i, int64(boot), m, a)
		}
		if a.Delayer == 0 && (m.DelayerEnter != 0 || m.DelayerLeaveSeconds != 0) {
			t.Errorf("row %d without a delayer has delayer times: %+v", i, m)
		}
	}
}

// TestWaitStatesErrors: an error of the source or of the sink ends the
// export with that error and leaves no files; a writer made without the
// table refuses its rows.
func TestWaitStatesErrors(t *testing.T) {
	dir := t.TempDir()
	err := export.WriteCSVWith(dir, failSource{waitSource()}, &export.CSVOptions{WaitStates: true})
	if err == nil || err.Error() != "read error" {
		t.Errorf("WriteCSVWith = %v, want the source's error", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("%d files left after a failed export", len(ents))
	}
	n := 0
	err = export.WaitStates(waitSource(), func(*export.WaitStateRow) error { n++; return errStop }, nil)
	if err != errStop || n != 1 {
		t.Errorf("WaitStates = %v after %d rows, want the sink's error after 1", err, n)
	}
	var sink rows
	err = export.Tables(&failSink{waitSource(), 3}, &sink, &export.TablesOptions{WaitStates: func(*export.WaitStateRow) error { return nil }})
	if err == nil || err.Error() != "read error" {
		t.Errorf("Tables = %v, want the source's error", err)
	}
	called := false
	err = export.Tables(waitSource(), &failingEvents{}, &export.TablesOptions{WaitStates: func(*export.WaitStateRow) error { called = true; return nil }})
	if err != errStop || called {
		t.Errorf("Tables with a failing sink = %v (wait-state rows handed over: %v), want the sink's error and none", err, called)
	}
	w, err := export.NewCSVWriter(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := w.WaitState(&export.WaitStateRow{}); err == nil {
		t.Error("a writer without the waitstates table took a row")
	}
}

// failingEvents is a sink whose Event fails with errStop.
type failingEvents struct{ rows }

func (*failingEvents) Event(*export.EventRow) error { return errStop }

var errStop = errors.New("stop")

// failSink is a source that fails after n events.
type failSink struct {
	*model.SliceSource
	n int
}

func (f *failSink) Next() bool {
	if f.n == 0 {
		return false
	}
	f.n--
	return f.SliceSource.Next()
}

func (f *failSink) Err() error {
	if f.n == 0 {
		return errors.New("read error")
	}
	return nil
}
