package picl_test

import (
	"encoding/csv"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace/picl"
)

// TestEventTable checks the package's event table against the
// specification's picl-events.tsv (copied into testdata).
func TestEventTable(t *testing.T) {
	f, err := os.Open("testdata/picl-events.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.Comma = '\t'
	cr.LazyQuotes = true
	rows, err := cr.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	count := func(s string) int {
		switch s {
		case "variable":
			return picl.CountVariable
		case "":
			return picl.CountNone
		}
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("count %q: %v", s, err)
		}
		return n
	}
	desc := func(s string) string {
		if s == "-" {
			return ""
		}
		return s
	}
	checkLayout := func(e picl.EventType, what string, got picl.Layout, row []string, prefix string, hasPICL bool) {
		want := picl.Layout{Count: count(row[col[prefix+"_count"]]), Descriptor: desc(row[col[prefix+"_descriptor"]]), Fields: row[col[prefix+"_fields"]]}
		want.PICLCount = want.Count
		if hasPICL {
			want.PICLCount = count(row[col[prefix+"_picl_count"]])
		}
		if got != want {
			t.Errorf("%d %s: %+v, want %+v", e, what, got, want)
		}
	}
	n := 0
	for _, row := range rows[1:] {
		var e picl.EventType
		if row[0] == ">=0" {
			e = 5
		} else {
			v, err := strconv.Atoi(row[0])
			if err != nil {
				t.Fatal(err)
			}
			e = picl.EventType(v)
		}
		info, ok := e.Info()
		if !ok {
			t.Errorf("%d: not in the table", e)
			continue
		}
		n++
		cmd := row[col["picl_command"]]
		if cmd == "-" {
			cmd = ""
		}
		if info.Type != e || info.Name != row[col["name"]] || info.Command != cmd ||
			info.Category.String() != row[col["category"]] || info.Writes.String() != row[col["picl_writes"]] ||
			info.Notes != row[col["notes"]] {
			t.Errorf("%d: %+v does not match row %q", e, info, row)
		}
		if e.Category() != info.Category {
			t.Errorf("%d: Category() = %v, table says %v", e, e.Category(), info.Category)
		}
		checkLayout(e, "entry", info.Entry, row, "entry", true)
		checkLayout(e, "exit", info.Exit, row, "exit", true)
		checkLayout(e, "mark", info.Mark, row, "mark", false)
		if e < 0 && strings.HasPrefix(e.String(), "EventType(") {
			t.Errorf("%d has no name", e)
		}
	}
	if n != len(rows)-1 {
		t.Errorf("checked %d rows of %d", n, len(rows)-1)
	}
	for _, e := range []picl.EventType{-17, -781, -899} {
		if _, ok := e.Info(); ok {
			t.Errorf("%d (neither the format's nor a documented MPICL event type) has an Info", e)
		}
		if got, want := e.String(), "EventType("+strconv.Itoa(int(e))+")"; got != want {
			t.Errorf("String of %d = %q, want %q", e, got, want)
		}
	}
	// MPICL's event types (see events_table.go for the source).
	for e, want := range map[picl.EventType]struct {
		short string
		cat   picl.Category
	}{
		picl.EventBsend: {"bsend", picl.CategoryIPC}, -785: {"MPI_Bcast", picl.CategoryMPI},
		-782: {"MPI_Allreduce", picl.CategoryMPI}, -812: {"MPI_Comm_split", picl.CategoryMPIContext},
		-781: {"EventType(-781)", picl.CategoryMPI}, -17: {"EventType(-17)", picl.CategoryIPC},
		-950: {"EventType(-950)", picl.CategoryTracing}, -1100: {"EventType(-1100)", picl.CategoryUnknown},
	} {
		if e.String() != want.short || e.Category() != want.cat {
			t.Errorf("%d: %q %v, want %q %v", e, e.String(), e.Category(), want.short, want.cat)
		}
	}
	if got := picl.EventBsend.FieldName(picl.RecordEntry, 2); got != "destination processor id" {
		t.Errorf("-22 entry field 2 = %q", got)
	}
}

func TestEventPredicates(t *testing.T) {
	if got := picl.EventRecvWait.FieldName(picl.RecordExit, 2); got != "source processor id" {
		t.Errorf("FieldName = %q", got)
	}
	if got := picl.EventSendBegin.FieldName(picl.RecordMark, 4); got != "send request id" {
		t.Errorf("mark FieldName = %q", got)
	}
	if got := picl.EventSend.FieldName(picl.RecordEntry, 4); got != "" {
		t.Errorf("FieldName past the end = %q", got)
	}
	subsets := map[picl.EventType][]picl.EventType{
		picl.SubsetUser:       {0, 1, 1000},
		picl.SubsetSystem:     {-11, -52, -901, -1000},
		picl.SubsetComm:       {-11, -21, -61, -200},
		picl.SubsetSend:       {-21, -27, -31, -50},
		picl.SubsetRecv:       {-51, -52, -61, -80},
		picl.SubsetBlocked:    {-31, -52, -56, -61},
		picl.SubsetFileIO:     {-201, -251, -400},
		picl.SubsetSync:       {-401, -402},
		picl.SubsetResource:   {-501, -503},
		picl.SubsetGeneric:    {-601, -603},
		picl.SubsetTracing:    {-901, -914},
		picl.SubsetTraceFlush: {-911, -912},
	}
	nonMembers := map[picl.EventType][]picl.EventType{
		picl.SubsetUser:       {-1, -11, -1001},
		picl.SubsetSystem:     {-1, 0, -1001, -1012},
		picl.SubsetComm:       {-1, -201, -10},
		picl.SubsetSend:       {-20, -51, -52},
		picl.SubsetRecv:       {-21, -50, -81},
		picl.SubsetBlocked:    {-21, -30, -51, -60},
		picl.SubsetFileIO:     {-200, -401},
		picl.SubsetSync:       {-400, -501},
		picl.SubsetResource:   {-500, -601},
		picl.SubsetGeneric:    {-600, -701},
		picl.SubsetTracing:    {-900, -1001},
		picl.SubsetTraceFlush: {-901, -913},
	}
	for s, members := range subsets {
		if !s.IsPredefinedSubset() || s.Category() != picl.CategorySubset {
			t.Errorf("%v is not a predefined subset", s)
		}
		for _, e := range members {
			if !s.Contains(e) {
				t.Errorf("%v.Contains(%v) = false, want true", s, e)
			}
		}
		for _, e := range nonMembers[s] {
			if s.Contains(e) {
				t.Errorf("%v.Contains(%v) = true, want false", s, e)
			}
		}
	}
	if picl.EventSend.Contains(picl.EventSend) || picl.SubsetSend.Contains(picl.SubsetSend) {
		t.Errorf("Contains on a non-subset or a subset itself")
	}
	if !picl.EventRecvWait.IsBlocked() || picl.EventRecv.IsBlocked() || !picl.EventSend.IsSend() || !picl.EventRecv.IsReceive() {
		t.Errorf("blocked/send/receive predicates")
	}
}

func TestRecordTypeStrings(t *testing.T) {
	tests := map[picl.RecordType]string{picl.RecordEntry: "entry", picl.RecordStatTime: "stat-time",
		picl.RecordEventSubset: "event-subset", 0: "user(0)", -9: "RecordType(-9)"}
	for rt, want := range tests {
		if rt.String() != want {
			t.Errorf("%d.String() = %q, want %q", rt, rt.String(), want)
		}
	}
	if !picl.RecordType(-9).IsReserved() || picl.RecordMark.IsReserved() || !picl.RecordMessage.IsEvent() ||
		!picl.RecordStatVolume.IsStatistics() || !picl.RecordProcessSubset.IsSubsetDefinition() || !picl.RecordType(0).IsUser() {
		t.Errorf("record type predicates")
	}
	if got := (picl.FlagTruncated | picl.FlagTrailing).String(); got != "truncated|trailing" {
		t.Errorf("Flags.String = %q", got)
	}
}

func TestClone(t *testing.T) {
	r, _ := picl.NewReader(strings.NewReader("20 5 0.1 0 0 2 \"%s%lf\" a 1.5 b 2.5\n"), nil)
	r.Next()
	rec := r.Record()
	c := rec.Clone()
	rec.Data[0].Text[0] = 'X'
	rec.TimeText[0] = '9'
	if string(c.Data[0].Text) != "a" || string(c.TimeText) != "0.1" || c.Data[1].Float != 1.5 {
		t.Errorf("Clone shares memory with the original: %+v", c)
	}
	if f, ok := c.Field(1); !ok || string(f[0].Text) != "b" || f[1].Float != 2.5 {
		t.Errorf("Field(1) = %v, %v", f, ok)
	}
	if _, ok := c.Field(2); ok {
		t.Errorf("Field(2) of a 2-field record is ok")
	}
}
