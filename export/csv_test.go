package export_test

import (
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace/export"
	"github.com/hpctrace/hpctrace/model"
)

func readCSV(t *testing.T, name string) [][]string {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return recs
}

// TestCSVFixtures exports a trace of every format and checks each table
// against the trace and the stats package: one row per event, location,
// region and flat-profile entry, and the matched and unmatched messages
// stats counts.
func TestCSVFixtures(t *testing.T) {
	for _, name := range fixtures {
		t.Run(name[strings.LastIndex(name, "/")+1:], func(t *testing.T) {
			_, rep, defs := chromeOf(t, name)
			tr := openTrace(t, name)
			dir := t.TempDir()
			if err := export.WriteCSV(dir, tr); err != nil {
				t.Fatal(err)
			}
			tables := map[string][][]string{}
			heads := []any{export.EventRow{}, export.MessageRow{}, export.RegionRow{}, export.LocationRow{}, export.ProfileRow{}}
			for i, f := range export.CSVFiles() {
				recs := readCSV(t, filepath.Join(dir, f))
				if !slices.Equal(recs[0], export.Columns(heads[i])) {
					t.Errorf("%s header %v", f, recs[0])
				}
				tables[f] = recs[1:]
			}
			if ents, _ := os.ReadDir(dir); len(ents) != len(export.CSVFiles()) {
				t.Errorf("%d files in the directory, want %d", len(ents), len(export.CSVFiles()))
			}
			tr2 := openTrace(t, name)
			var n int
			for tr2.Next() {
				ev := tr2.Event()
				if n < len(tables["events.csv"]) {
					row := tables["events.csv"][n]
					if row[0] != i64(int64(ev.Time)) || row[2] != u32(uint32(ev.Loc)) || row[3] != ev.Kind.String() {
						t.Fatalf("event %d: row %v for %+v", n, row, *ev)
					}
				}
				n++
			}
			if len(tables["events.csv"]) != n {
				t.Errorf("%d event rows, want %d", len(tables["events.csv"]), n)
			}
			if len(tables["locations.csv"]) != defs.NumLocations() || len(tables["regions.csv"]) != defs.NumRegions() {
				t.Errorf("%d locations, %d regions", len(tables["locations.csv"]), len(tables["regions.csv"]))
			}
			if len(tables["profile.csv"]) != len(rep.Final.Functions) {
				t.Errorf("%d profile rows, want %d", len(tables["profile.csv"]), len(rep.Final.Functions))
			}
			status := map[string]int64{}
			for _, m := range tables["messages.csv"] {
				status[m[9]]++
			}
			d := rep.Final.Diagnostics
			if status["matched"] != d.MatchedMessages || status["unmatched_send"] != d.UnmatchedSend || status["unmatched_recv"] != d.UnmatchedRecv {
				t.Errorf("messages %v, stats matched %d, unmatched sends %d, receives %d", status, d.MatchedMessages, d.UnmatchedSend, d.UnmatchedRecv)
			}
		})
	}
}

func i64(v int64) string  { return strconv.FormatInt(v, 10) }
func u32(v uint32) string { return strconv.FormatUint(uint64(v), 10) }
func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// kindsSource is a small trace with every kind of event.
func kindsSource() *model.SliceSource {
	d := new(model.Defs)
	d.TimeBase = model.TimeBase{TicksPerSecond: 1000}
	a := d.AddLocation(model.Location{Name: "rank 0", Native: 0})
	b := d.AddLocation(model.Location{Name: "rank 1", Native: 1, Process: 1})
	f := d.AddRegion(model.Region{Name: "solve, \"fast\"", Kind: model.RegionFunction, File: "s.c", Line: 3})
	bar := d.AddRegion(model.Region{Name: "MPI_Bcast", Kind: model.RegionCollective})
	w := d.AddComm(model.Comm{Name: "world"})
	c := d.AddCounter(model.Counter{Name: "flops"})
	txt := d.Intern("line1\nline2")
	return model.NewSliceSource(d, []model.Event{
		{Time: 0, Loc: a, Kind: model.KindEnter, Region: f},
		{Time: 4, Loc: b, Kind: model.KindRecvPost, Peer: a, Tag: 3, Comm: w, Match: 2},
		{Time: 5, Loc: b, Kind: model.KindRecv, Peer: a, Tag: 3, Comm: w, Bytes: 8, Match: 2},
		{Time: 10, Loc: a, Kind: model.KindSend, Peer: b, Tag: 3, Comm: w, Bytes: 8},
		{Time: 11, Loc: a, Kind: model.KindSend, Peer: b, Tag: 4, Comm: w, Bytes: 16, Match: 1},
		{Time: 11, Loc: a, Kind: model.KindSendDone, Match: 1},
		{Time: 12, Loc: a, Kind: model.KindCollBegin, Region: bar, Comm: w, Peer: a, Bytes: 100, Recvd: 0, Class: model.ClassOneToAll},
		{Time: 13, Loc: a, Kind: model.KindCollEnd},
		{Time: 14, Loc: b, Kind: model.KindCounter, Counter: c, Value: -7},
		{Time: 15, Loc: b, Kind: model.KindMarker, Text: txt},
		{Time: 16, Loc: b, Kind: model.KindParameter, Text: d.Intern("n"), Value: -3},
		{Time: 17, Loc: b, Kind: model.KindParameter, Text: d.Intern("mode"), Value: int64(d.Intern("fast")), Flags: model.StringValue},
		{Time: 1500, Loc: a, Kind: model.KindLeave, Region: f},
		{Time: 1501, Loc: a, Kind: model.KindProgramEnd},
	})
}

// TestCSVKinds checks the rows written for each kind of event, quoting,
// and both orders of a message's ends.
func TestCSVKinds(t *testing.T) {
	dir := t.TempDir()
	if err := export.WriteCSV(dir, kindsSource()); err != nil {
		t.Fatal(err)
	}
	read := func(f string) string {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	want := map[string]string{
		"events.csv": `time,seconds,loc_id,kind,region,peer_id,bytes,recvd,tag,comm,counter,value,text
0,0,1,enter,"solve, ""fast""",0,0,0,0,,,0,
4,0.004,2,recv_post,,1,0,0,3,world,,2,
5,0.005,2,recv,,1,8,0,3,world,,2,
10,0.01,1,send,,2,8,0,3,world,,0,
11,0.011,1,send,,2,16,0,4,world,,1,
11,0.011,1,send_done,,0,0,0,0,,,1,
12,0.012,1,coll_begin,MPI_Bcast,1,100,0,0,world,,0,
13,0.013,1,coll_end,,0,0,0,0,,,0,
14,0.014,2,counter,,0,0,0,0,,flops,-7,
15,0.015,2,marker,,0,0,0,0,,,0,"line1
line2"
16,0.016,2,parameter,,0,0,0,0,,,-3,n
17,0.017,2,parameter,,0,0,0,0,,,0,mode=fast
1500,1.5,1,leave,"solve, ""fast""",0,0,0,0,,,0,
1501,1.501,1,program_end,,0,0,0,0,,,0,
`,
		"messages.csv": `sender_id,receiver_id,tag,comm,bytes,send_time,recv_time,send_seconds,recv_seconds,status
1,2,3,world,8,10,5,0.01,0.005,matched
1,2,4,world,16,11,0,0.011,0,unmatched_send
`,
		"regions.csv": `id,native,name,kind,group,file,line
1,0,"solve, ""fast""",function,,s.c,3
2,0,MPI_Bcast,collective,,,0
`,
		"locations.csv": `loc_id,loc,name,process,thread,host
1,0,rank 0,0,0,false
2,1,rank 1,1,0,false
`,
	}
	for f, w := range want {
		if got := read(f); got != w {
			t.Errorf("%s:\n%s\nwant\n%s", f, got, w)
		}
	}
	if p := read("profile.csv"); !strings.Contains(p, "\n1,0,\"solve, \"\"fast\"\"\",1,1500,1500,1.5,1.5,1500,1500\n") {
		t.Errorf("profile.csv:\n%s", p)
	}
}

// TestCSVMaxPending checks that ends beyond MaxPending are written as
// unmatched, oldest first.
func TestCSVMaxPending(t *testing.T) {
	d := new(model.Defs)
	a := d.AddLocation(model.Location{Name: "a"})
	b := d.AddLocation(model.Location{Name: "b"})
	var evs []model.Event
	for i := range 5 {
		evs = append(evs, model.Event{Time: model.Time(i), Loc: a, Kind: model.KindSend, Peer: b})
	}
	evs = append(evs, model.Event{Time: 9, Loc: b, Kind: model.KindRecv, Peer: a})
	var sink rows
	if err := export.Tables(model.NewSliceSource(d, evs), &sink, &export.TablesOptions{MaxPending: 2}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range sink.msgs {
		got = append(got, m.Status+"@"+itoa(int64(m.SendTime)))
	}
	want := []string{"unmatched_send@0", "unmatched_send@1", "unmatched_send@2", "matched@3", "unmatched_send@4"}
	if !slices.Equal(got, want) {
		t.Errorf("messages %v, want %v", got, want)
	}
}

// rows is a TableSink that keeps the messages.
type rows struct{ msgs []export.MessageRow }

func (r *rows) Event(*export.EventRow) error       { return nil }
func (r *rows) Message(m *export.MessageRow) error { r.msgs = append(r.msgs, *m); return nil }
func (r *rows) Location(*export.LocationRow) error { return nil }
func (r *rows) Region(*export.RegionRow) error     { return nil }
func (r *rows) Profile(*export.ProfileRow) error   { return nil }

// failSource fails after its events.
type failSource struct{ *model.SliceSource }

func (failSource) Err() error { return errors.New("read error") }

// TestCSVFailure checks that a failed export leaves no files.
func TestCSVFailure(t *testing.T) {
	dir := t.TempDir()
	err := export.WriteCSV(dir, failSource{kindsSource()})
	if err == nil || err.Error() != "read error" {
		t.Fatalf("WriteCSV = %v, want the source's error", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("%d files left after a failed export", len(ents))
	}
}

// TestCSVNoPeer: a message end without a known peer (Peer 0) is an
// unmatched message at once, with 0 (none) on its other side, and takes no
// place among the ends waiting for a partner.
func TestCSVNoPeer(t *testing.T) {
	d := new(model.Defs)
	a := d.AddLocation(model.Location{Name: "a"})
	b := d.AddLocation(model.Location{Name: "b"})
	evs := []model.Event{
		{Time: 1, Loc: a, Kind: model.KindSend, Peer: b},
		{Time: 2, Loc: a, Kind: model.KindSend},
		{Time: 3, Loc: b, Kind: model.KindRecv},
		{Time: 4, Loc: b, Kind: model.KindRecv, Peer: a},
	}
	var sink rows
	if err := export.Tables(model.NewSliceSource(d, evs), &sink, &export.TablesOptions{MaxPending: 1}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range sink.msgs {
		got = append(got, m.Status+" "+itoa(int64(m.Sender))+"->"+itoa(int64(m.Receiver)))
	}
	want := []string{"unmatched_send 1->0", "unmatched_recv 0->2", "matched 1->2"}
	if !slices.Equal(got, want) {
		t.Errorf("messages %v, want %v", got, want)
	}
}

// shifted moves every event of a source later by d ticks.
type shifted struct {
	model.Source
	d  model.Time
	ev model.Event
}

func (s *shifted) Event() *model.Event {
	s.ev = *s.Source.Event()
	s.ev.Time += s.d
	return &s.ev
}

// TestCSVSecondsFromStart: the seconds columns count from the trace's
// first event, the tick columns keep the clock's own times. A clock that
// counts from boot (here 3.5·10^6 s before the trace) changes the ticks,
// not the seconds.
func TestCSVSecondsFromStart(t *testing.T) {
	const boot = 3_500_000 * 1000 // 3.5·10^6 s of a 1 ms clock
	plain, moved := t.TempDir(), t.TempDir()
	if err := export.WriteCSV(plain, kindsSource()); err != nil {
		t.Fatal(err)
	}
	if err := export.WriteCSV(moved, &shifted{Source: kindsSource(), d: boot}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		file    string
		ticks   []int // tick columns: moved by boot unless 0 (no such end)
		seconds []int // seconds columns: the same
	}{
		{"events.csv", []int{0}, []int{1}},
		{"messages.csv", []int{5, 6}, []int{7, 8}},
	} {
		p, m := readCSV(t, filepath.Join(plain, c.file)), readCSV(t, filepath.Join(moved, c.file))
		if len(p) != len(m) || len(p) < 2 {
			t.Fatalf("%s: %d and %d rows", c.file, len(p), len(m))
		}
		for i := 1; i < len(p); i++ {
			for _, j := range c.seconds {
				if p[i][j] != m[i][j] {
					t.Errorf("%s row %d %s: got %s, want %s (seconds from the start)", c.file, i, p[0][j], m[i][j], p[i][j])
				}
			}
			for _, j := range c.ticks {
				pv, _ := strconv.ParseInt(p[i][j], 10, 64)
				mv, _ := strconv.ParseInt(m[i][j], 10, 64)
				want := pv + boot
				if pv == 0 && p[i][j+2] == "0" && j != 0 {
					want = 0 // the missing end of an unmatched message
				}
				if mv != want {
					t.Errorf("%s row %d %s: got %d ticks, want %d", c.file, i, p[0][j], mv, want)
				}
			}
		}
	}
}
