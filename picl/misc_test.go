package picl_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace/picl"
)

func TestReaderLifecycle(t *testing.T) {
	if _, err := picl.NewReader(strings.NewReader(""), &picl.ReaderOptions{MaxLine: -1}); err == nil {
		t.Fatal("negative MaxLine accepted")
	}
	data := readFixture(t, "ring4")
	r, _ := picl.NewReader(bytes.NewReader(data), nil)
	if rec := r.Record(); rec.Type != 0 || rec.Count != 0 || rec.TimeText != nil {
		t.Fatalf("Record before Next = %+v, want zero", rec)
	}
	// All after a break continues with the following record.
	n := 0
	for range r.All() {
		if n++; n == 10 {
			break
		}
	}
	if !r.Next() || r.Record().Time != 0.000031 {
		t.Fatalf("after a break at record 10: record at %v, want 0.000031", r.Record().Time)
	}
	for r.Next() {
		n++
	}
	if r.Err() != nil || n != 79 || r.Next() {
		t.Fatalf("end: n=%d err=%v", n, r.Err())
	}
	// Reset reads a new stream and forgets the old one's aliases.
	if err := r.Reset(strings.NewReader("-6 -1 -1 -1 -1 1 \"%d%s\" 6 \"%d\"\n7 1 0 0 0 1 6 5\n")); err != nil {
		t.Fatal(err)
	}
	r.Next()
	r.Next()
	if r.Record().Data[0].Int != 5 {
		t.Fatalf("alias 6 after Reset: %+v", r.Record())
	}
	r.Reset(strings.NewReader("7 1 0 0 0 1 6 5\n"))
	if !r.Next() || r.Record().Flags != picl.FlagUndecoded || r.Line() != 1 {
		t.Fatalf("alias 6 kept across Reset: %+v", r.Record())
	}
}

func TestScopes(t *testing.T) {
	// Process subsets, event subsets (user-defined and predefined), and a
	// subset redefined after an alias definition that uses it.
	in := `-202 -1 -1 -1 -1 2 2 -5 3
-203 -1 -1 -1 -1 3 2 100 -21 -52
-6 100 -1 -1 -1 1 "%d%s" 6 "%lf"
-6 -1012 -1 -1 -5 1 "%d%s" 7 "%s"
7 -21 0 0 0 1 6 0.5
7 -52 0 0 0 1 6 1.5
7 -51 0 0 0 1 6 2
7 -27 0 0 3 1 7 word
7 -27 0 0 4 1 7 word
-202 -1 -1 -1 -1 2 2 -5 4
7 -27 0 0 3 1 7 word
7 -27 0 0 4 1 7 word
`
	recs := readAll(t, []byte(in), nil)
	// Undefined aliases: lenient reading keeps the records undecoded,
	// strict reading stops at the first.
	want := []picl.Flags{0, 0, 0, 0, 0, 0, picl.FlagUndecoded, 0, picl.FlagUndecoded, 0, picl.FlagUndecoded, 0}
	r, _ := picl.NewReader(strings.NewReader(in), &picl.ReaderOptions{Strict: true})
	n := 0
	for r.Next() {
		n++
	}
	var pe *picl.ParseError
	if !errors.As(r.Err(), &pe) || pe.Line != 7 || n != 6 || !errors.Is(r.Err(), picl.ErrSyntax) ||
		!strings.Contains(r.Err().Error(), "descriptor alias 6 is not defined") {
		t.Errorf("strict: %d records, then %v; want an error at line 7 naming alias 6", n, r.Err())
	}
	for i, rec := range recs {
		if rec.Flags != want[i] {
			t.Errorf("record %d (%s): flags %v, want %v (control %q)", i, strings.Split(in, "\n")[i], rec.Flags, want[i], rec.Control)
		}
	}
	if recs[4].Data[0].Kind != picl.KindFloat || recs[7].Data[0].Kind != picl.KindString {
		t.Errorf("kinds: %v %v", recs[4].Data, recs[7].Data)
	}
}

func TestSortAndHeader(t *testing.T) {
	recs := readAll(t, readFixture(t, "subsets_stats"), nil)
	if n := picl.HeaderLen(recs); n != 5 {
		t.Errorf("HeaderLen = %d, want 5", n)
	}
	// Reverse the per-processor order of a sorted trace, then sort back.
	shuffled := make([]picl.Record, 0, len(recs))
	for p := int32(3); p >= -2; p-- {
		for _, r := range recs {
			if r.Processor == p {
				shuffled = append(shuffled, r)
			}
		}
	}
	if len(shuffled) != len(recs) {
		t.Fatalf("lost records: %d of %d", len(shuffled), len(recs))
	}
	if ok, _ := picl.IsSorted(shuffled); ok {
		t.Fatal("shuffled trace is sorted")
	}
	picl.SortByTimeProcessor(shuffled)
	if ok, i := picl.IsSorted(shuffled); !ok {
		t.Fatalf("not sorted at %d", i)
	}
	// Stability: within a processor and time, file order is kept.
	for i := 1; i < len(shuffled); i++ {
		a, b := shuffled[i-1], shuffled[i]
		if a.Time == b.Time && a.Processor > b.Processor {
			t.Errorf("records %d and %d: processor tie-break broken", i-1, i)
		}
	}
	picl.Sort(shuffled)
	if ok, _ := picl.IsSorted(shuffled); !ok {
		t.Fatal("Sort did not sort")
	}
	// Stability: each processor's records keep their file order.
	for p := int32(-2); p <= 3; p++ {
		var before, after []picl.Record
		for _, r := range recs {
			if r.Processor == p {
				before = append(before, r)
			}
		}
		for _, r := range shuffled {
			if r.Processor == p {
				after = append(after, r)
			}
		}
		if !equalRecords(before, after) {
			t.Errorf("processor %d: records reordered by the sort", p)
		}
	}
}

func TestValidate(t *testing.T) {
	clean := []string{"ring4", "subsets_stats", "labels_messages", "fileio", "host_negative", "user_records", "descriptor_aliases"}
	for _, name := range clean {
		r, _ := picl.NewReader(bytes.NewReader(readFixture(t, name)), nil)
		findings, err := picl.Validate(r)
		if err != nil || len(findings) != 0 {
			t.Errorf("%s: findings %v, err %v; want none", name, findings, err)
		}
	}
	in := `-3 -901 0.0 1 0 0
-3 -21 0.2 1 0 2 2 8 1
-3 -901 0.1 2 0 0
-3 -11 0.3 2 1 0
-4 -901 0.4 1 0 0
-3 -52 0.5 1 0 0
-4 -52 0.6 2 0 1 2 8
-3 -11 0.7 3 0 0
-4 -901 0.8 3 0 0
`
	r, _ := picl.NewReader(strings.NewReader(in), nil)
	findings, err := picl.Validate(r)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range findings {
		got = append(got, f.Check.String()+"@"+itoa(f.Record))
	}
	want := "sorted@2 tracing-entry@7 tracing-exit@5 tracing-exit@6 processors@-1 one-process@3 message-data@1 message-data@6"
	if strings.Join(got, " ") != want {
		t.Errorf("findings %v\nwant %s", findings, want)
	}
}

// TestMaxLineBufferPath checks that a short MaxLine also bounds the lines
// the buffer path reads straight from the scanner's buffer.
func TestMaxLineBufferPath(t *testing.T) {
	line := "-3 -21 0.000123 17 0 0\n" // 22 bytes
	in := strings.Repeat(line, 20)
	for _, max := range []int{21, 22} {
		r, err := picl.NewReader(strings.NewReader(in), &picl.ReaderOptions{MaxLine: max})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for r.Next() {
			n++
		}
		if max == 22 && (n != 20 || r.Err() != nil) {
			t.Fatalf("MaxLine 22: %d records, %v", n, r.Err())
		}
		if max == 21 && (n != 0 || !errors.Is(r.Err(), picl.ErrLimit)) {
			t.Fatalf("MaxLine 21: %d records, %v", n, r.Err())
		}
	}
}
