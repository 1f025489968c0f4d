package picl_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hpctrace/hpctrace/picl"
)

// readOne reads a one-record stream.
func readOne(t *testing.T, line string, strict bool) (*picl.Record, error) {
	t.Helper()
	r, err := picl.NewReader(strings.NewReader(line), &picl.ReaderOptions{Strict: strict})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Next() {
		return nil, r.Err()
	}
	rec := r.Record().Clone()
	if r.Next() {
		t.Fatalf("%q: more than one record", line)
	}
	return &rec, r.Err()
}

// TestLenient checks the records lenient reading keeps (doc/picl.md §11: A2, A4, A10,
// A12) and that strict reading rejects the same lines, except undecoded
// ones, which both modes keep.
func TestLenient(t *testing.T) {
	tests := []struct {
		name      string
		line      string
		flags     picl.Flags
		data      []picl.Value
		chars     string
		raw       string
		strictErr error // nil: strict mode keeps the record too
	}{
		{name: "missing values", line: "-3 -21 0.1 0 0 3 2 8 1\n",
			flags: picl.FlagTruncated, data: []picl.Value{ival(8), ival(1)}, strictErr: picl.ErrSyntax},
		{name: "count of values, not fields (A2)", line: "-101 -1 0.1 0 0 4 \"%d%lf\" -11 0.5 -21 0.25\n",
			flags: picl.FlagTruncated, data: []picl.Value{ival(-11), fval("0.5"), ival(-21), fval("0.25")}, strictErr: picl.ErrSyntax},
		{name: "missing descriptor", line: "-3 -21 0.1 0 0 3\n", flags: picl.FlagTruncated, strictErr: picl.ErrSyntax},
		{name: "extra values", line: "-3 -21 0.1 0 0 1 2 8 1 7\n",
			flags: picl.FlagTrailing, data: []picl.Value{ival(8)}, raw: "1 7", strictErr: picl.ErrSyntax},
		{name: "MPICL's value after count 0", line: "-3 1 0.000104 0 0 0 2\n",
			flags: picl.FlagTrailing, raw: "2", strictErr: picl.ErrSyntax},
		{name: "MPICL's trailing blank on statistics", line: "-101 -1 0.0003 0 0 1 \"%d%lf\" -21 0.00002 \n",
			data: []picl.Value{ival(-21), fval("0.00002")}},
		{name: "text after count 0", line: "-4 -901 0.001982 6 0 0 \"\n",
			flags: picl.FlagTrailing, raw: `"`, strictErr: picl.ErrSyntax},
		{name: "stripped trailing blanks (A4)", line: "-5 1 -1.0 -1 -1 16 0 ring broadcast\n",
			flags: picl.FlagTruncated, chars: "ring broadcast", strictErr: picl.ErrSyntax},
		{name: "text after characters", line: "-5 1 -1.0 -1 -1 4 0 ring broadcast\n",
			flags: picl.FlagTrailing, chars: "ring", raw: "broadcast", strictErr: picl.ErrSyntax},
		{name: "bad integer", line: "-3 -21 0.1 0 0 2 2 8 eight\n",
			flags: picl.FlagUndecoded | picl.FlagBadValue, raw: "8 eight", strictErr: picl.ErrSyntax},
		{name: "integer out of range", line: "-3 -21 0.1 0 0 1 2 99999999999999999999\n",
			flags: picl.FlagUndecoded | picl.FlagBadValue, raw: "99999999999999999999", strictErr: picl.ErrRange},
		{name: "quoted number", line: "-3 -21 0.1 0 0 1 2 \"8\"\n",
			flags: picl.FlagUndecoded | picl.FlagBadValue, raw: `"8"`, strictErr: picl.ErrSyntax},
		{name: "field width (A12)", line: "7 1 0.1 0 0 2 \"%5d\" 1 2\n", flags: picl.FlagUndecoded, raw: "1 2"},
		{name: "%c mixed (A12)", line: "7 1 0.1 0 0 1 \"%c%d\" x 2\n", flags: picl.FlagUndecoded, raw: "x 2"},
		{name: "undefined alias", line: "7 1 0.1 0 0 1 6 1 0.5\n", flags: picl.FlagUndecoded, raw: "1 0.5", strictErr: picl.ErrSyntax},
		{name: "quoted strings", line: "20 5 0.1 0 0 2 \"%s %d\" \"south pole\" -1 \"\" 7\n",
			data: []picl.Value{qval("south pole"), ival(-1), qval(""), ival(7)}},
		{name: "tabs and CR LF", line: "\t20\t5 0.1  0 0 1 1\tword \r\n", data: []picl.Value{sval("word")}},
		{name: "chars after a tab, blanks kept", line: "-7 -1 0.1 0 0 4 0\t a \" \n", chars: ` a "`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, err := readOne(t, tt.line, false)
			if err != nil {
				t.Fatalf("lenient: %v", err)
			}
			if rec.Flags != tt.flags {
				t.Errorf("Flags = %v, want %v", rec.Flags, tt.flags)
			}
			if diff := cmp.Diff(tt.data, rec.Data, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Data (-want +got):\n%s", diff)
			}
			if string(rec.Chars) != tt.chars || string(rec.Raw) != tt.raw {
				t.Errorf("Chars, Raw = %q, %q; want %q, %q", rec.Chars, rec.Raw, tt.chars, tt.raw)
			}
			// The kept record writes and re-reads as itself.
			data := writeAll(t, []picl.Record{*rec})
			if back := readAll(t, data, nil); !equalRecords([]picl.Record{*rec}, back) {
				t.Errorf("re-read differs: wrote %q", data)
			}
			_, err = readOne(t, tt.line, true)
			if tt.strictErr == nil {
				if err != nil {
					t.Errorf("strict: %v, want the record kept", err)
				}
				return
			}
			var pe *picl.ParseError
			if !errors.Is(err, tt.strictErr) || !errors.As(err, &pe) || pe.Line != 1 {
				t.Errorf("strict: %v, want a ParseError at line 1 wrapping %v", err, tt.strictErr)
			}
			if err != nil && !strings.Contains(err.Error(), "lenient reading") {
				t.Errorf("strict: %v does not say that lenient reading keeps the record", err)
			}
		})
	}
}

func ival(n int64) picl.Value  { return picl.Value{Kind: picl.KindInt, Int: n, Text: []byte(itoa(n))} }
func sval(s string) picl.Value { return picl.Value{Kind: picl.KindString, Text: []byte(s)} }
func qval(s string) picl.Value {
	return picl.Value{Kind: picl.KindString, Text: []byte(s), Quoted: true}
}
func fval(s string) picl.Value {
	r, _ := picl.NewReader(strings.NewReader("0 0 0 0 0 1 5 "+s+"\n"), nil)
	r.Next()
	return r.Record().Clone().Data[0]
}
func itoa(n int64) string { return string(picl.IntValue(n).AppendText(nil)) }

// TestDescriptorAliases checks the decodings the descriptor_aliases fixture's
// README lists.
func TestDescriptorAliases(t *testing.T) {
	data := readFixture(t, "descriptor_aliases")
	want := map[float64]string{ // timestamp -> values
		0.000100: "[1.5 2.5] [3.5 4.5]",
		0.000110: "[1 2 3]",
		0.000120: "[2.5]",
		0.000130: "[7]",
		0.000150: "[0.125]",
		0.000160: "[5 five] [6 six]",
		0.000170: "[3 0.75]",
		0.000180: "[label 1 2]",
		0.000190: "[1 2] [3 4]",
		0.000200: "[0]",
		0.000300: "[8] [0] [0]",
		0.000320: "[0.5 3]",
	}
	kinds := map[float64]string{0.000120: "float", 0.000130: "int", 0.000150: "float", 0.000320: "float int"}
	seen := 0
	for _, rec := range readAll(t, data, &picl.ReaderOptions{Strict: true}) {
		w, ok := want[rec.Time]
		if !ok || rec.Type == picl.RecordDescriptor {
			continue
		}
		seen++
		var b bytes.Buffer
		var ks []string
		for i, f := range rec.Fields() {
			if i > 0 {
				b.WriteString(" ")
			}
			b.WriteString("[")
			for j, v := range f {
				if j > 0 {
					b.WriteString(" ")
				}
				b.WriteString(v.String())
				if i == 0 {
					ks = append(ks, v.Kind.String())
				}
			}
			b.WriteString("]")
		}
		if b.String() != w {
			t.Errorf("time %v: data %s, want %s", rec.Time, b.String(), w)
		}
		if k, ok := kinds[rec.Time]; ok && strings.Join(ks, " ") != k {
			t.Errorf("time %v: kinds %v, want %s", rec.Time, ks, k)
		}
	}
	if seen != len(want) {
		t.Errorf("checked %d records, want %d", seen, len(want))
	}
}
