package textscan

import (
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

func TestScanner(t *testing.T) {
	in := "a b\r\n\nlong line here\r\r\nlast"
	type line struct {
		text       string
		no         int
		off        int64
		terminated bool
	}
	want := []line{{"a b", 1, 0, true}, {"", 2, 5, true}, {"long line here", 3, 6, true}, {"last", 4, 23, false}}
	for _, r := range []io.Reader{strings.NewReader(in), iotest.OneByteReader(strings.NewReader(in))} {
		s := NewScanner(r, 16)
		var got []line
		for s.Scan() {
			got = append(got, line{string(s.Bytes()), s.Line(), s.Offset(), s.Terminated()})
		}
		if s.Err() != nil {
			t.Fatal(s.Err())
		}
		if len(got) != len(want) {
			t.Fatalf("got %d lines %v, want %v", len(got), got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("line %d: got %+v, want %+v", i, got[i], want[i])
			}
		}
	}
}

func TestScannerTooLong(t *testing.T) {
	in := "short\n" + strings.Repeat("x", 100) + "\nafter\n"
	s := NewScanner(strings.NewReader(in), 50)
	if !s.Scan() || string(s.Bytes()) != "short" {
		t.Fatalf("first line: %q", s.Bytes())
	}
	if s.Scan() {
		t.Fatalf("Scan accepted a 100-byte line with limit 50")
	}
	if !errors.Is(s.Err(), ErrLimit) || s.Line() != 2 || s.Offset() != 6 {
		t.Fatalf("Err, Line, Offset = %v, %d, %d; want ErrLimit, 2, 6", s.Err(), s.Line(), s.Offset())
	}
	if b := s.Buffered(); len(b) != 0 {
		t.Fatalf("Buffered after ErrLimit: %q", b)
	}
	// A line of exactly the limit, longer than the bufio buffer, is fine.
	long := strings.Repeat("y", 70<<10)
	s = NewScanner(strings.NewReader(long+"\r\n"), len(long))
	if !s.Scan() || string(s.Bytes()) != long {
		t.Fatalf("a line of exactly MaxLine bytes: len %d, err %v", len(s.Bytes()), s.Err())
	}
	s.Reset(iotest.ErrReader(io.ErrClosedPipe))
	if s.Scan() || !errors.Is(s.Err(), io.ErrClosedPipe) {
		t.Fatalf("after Reset to a failing reader: %v", s.Err())
	}
}

func TestParseInt(t *testing.T) {
	tests := []struct {
		in   string
		bits int
		want int64
		err  error
	}{
		{"0", 32, 0, nil}, {"-1", 32, -1, nil}, {"+7", 32, 7, nil}, {"007", 32, 7, nil},
		{"2147483647", 32, math.MaxInt32, nil}, {"-2147483648", 32, math.MinInt32, nil},
		{"2147483648", 32, 0, ErrRange}, {"-2147483649", 32, 0, ErrRange},
		{"9223372036854775807", 64, math.MaxInt64, nil}, {"-9223372036854775808", 64, math.MinInt64, nil},
		{"9223372036854775808", 64, 0, ErrRange}, {"99999999999999999999999", 64, 0, ErrRange},
		{"", 32, 0, ErrSyntax}, {"-", 32, 0, ErrSyntax}, {"1.5", 32, 0, ErrSyntax}, {"0x10", 32, 0, ErrSyntax},
		{"1_000", 32, 0, ErrSyntax}, {"--1", 32, 0, ErrSyntax},
	}
	for _, tt := range tests {
		got, err := ParseInt([]byte(tt.in), tt.bits)
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("ParseInt(%q, %d) = %d, %v; want %d, %v", tt.in, tt.bits, got, err, tt.want, tt.err)
		}
	}
}

func TestParseFloat(t *testing.T) {
	good := []string{"0", "-0.715036", "0.000005", "12.5", "1.5e-05", "-.25", "1.", "+3", "6.02e+23", "1E5",
		"0.1", "123456789012345678901234567890", "1e-320", "4.9e-324", "1.7976931348623157e308",
		"0.30000000000000004", "9007199254740993", "1e22", "1e23", "-0", "00012.500", "3.141592653589793238462643"}
	for _, s := range good {
		want, _ := strconv.ParseFloat(s, 64)
		got, err := ParseFloat([]byte(s))
		if err != nil || got != want || math.Signbit(got) != math.Signbit(want) {
			t.Errorf("ParseFloat(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	bad := map[string]error{"": ErrSyntax, "-": ErrSyntax, ".": ErrSyntax, "e5": ErrSyntax, "1e": ErrSyntax,
		"1e+": ErrSyntax, "inf": ErrSyntax, "NaN": ErrSyntax, "0x1p3": ErrSyntax, "1..2": ErrSyntax,
		"1_0": ErrSyntax, "1.5x": ErrSyntax, "0.00O005": ErrSyntax, "1e400": ErrRange, "-1e400": ErrRange}
	for s, want := range bad {
		if _, err := ParseFloat([]byte(s)); !errors.Is(err, want) {
			t.Errorf("ParseFloat(%q) error %v, want %v", s, err, want)
		}
	}
}

func FuzzParseFloat(f *testing.F) {
	for _, s := range []string{"0.000124", "-1.5e-05", "1e23", "123456789012345678901"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseFloat([]byte(s))
		if err != nil {
			return
		}
		want, err2 := strconv.ParseFloat(s, 64)
		if err2 != nil || got != want {
			t.Fatalf("ParseFloat(%q) = %v; strconv gives %v, %v", s, got, want, err2)
		}
	})
}

func TestFieldAndTrim(t *testing.T) {
	f, rest := Field([]byte(" \tab c"))
	if string(f) != "ab" || string(rest) != " c" {
		t.Errorf("Field = %q, %q", f, rest)
	}
	if f, _ := Field([]byte(" \t ")); len(f) != 0 {
		t.Errorf("Field of blanks = %q", f)
	}
	if got := TrimBlanks([]byte("\t a b \t")); string(got) != "a b" {
		t.Errorf("TrimBlanks = %q", got)
	}
}

func TestIntField(t *testing.T) {
	tests := []struct {
		in, field, rest string
		bits            int
		v               int64
		err             error
	}{
		{" 12 x", "12", " x", 32, 12, nil},
		{"\t-7", "-7", "", 32, -7, nil},
		{"+123456789012 y", "+123456789012", " y", 64, 123456789012, nil},
		{"2147483648", "2147483648", "", 32, 0, ErrRange},
		{"12a b", "12a", " b", 32, 0, ErrSyntax},
		{"- 1", "-", " 1", 32, 0, ErrSyntax},
		{"   ", "", "", 32, 0, nil},
		{"1.5", "1.5", "", 64, 0, ErrSyntax},
	}
	for _, tt := range tests {
		f, v, rest, err := IntField([]byte(tt.in), tt.bits)
		if string(f) != tt.field || string(rest) != tt.rest || v != tt.v || !errors.Is(err, tt.err) {
			t.Errorf("IntField(%q) = %q, %d, %q, %v; want %q, %d, %q, %v", tt.in, f, v, rest, err, tt.field, tt.v, tt.rest, tt.err)
		}
	}
}

func TestTrimLineEnd(t *testing.T) {
	for in, want := range map[string]string{
		"a":        "a",
		"a  ":      "a  ",
		"a\r":      "a",
		"a\r\r":    "a",
		"a \r":     "a ",
		"a\r ":     "a",
		"a\r \r\t": "a",
		"a\rb":     "a\rb",
		"\r ":      "",
		"":         "",
	} {
		if got := string(trimLineEnd([]byte(in))); got != want {
			t.Errorf("trimLineEnd(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestAdvance checks that consuming lines with Buffered and Advance leaves
// the scanner where Scan would: same lines, numbers and offsets after.
func TestAdvance(t *testing.T) {
	s := NewScanner(strings.NewReader("ab\ncd\nef\n"), 0)
	if !s.Scan() || string(s.Bytes()) != "ab" {
		t.Fatalf("first line: %q, %v", s.Bytes(), s.Err())
	}
	b := s.Buffered()
	if got := string(b); got != "cd\nef\n" {
		t.Fatalf("Buffered = %q, want %q", got, "cd\nef\n")
	}
	s.Advance(3, 1, 0)
	if string(s.Bytes()) != "cd" || s.Line() != 2 || s.Offset() != 3 || !s.Terminated() {
		t.Fatalf("after Advance: %q, line %d, offset %d, terminated %v; want \"cd\", 2, 3, true",
			s.Bytes(), s.Line(), s.Offset(), s.Terminated())
	}
	if !s.Scan() || string(s.Bytes()) != "ef" || s.Line() != 3 || s.Offset() != 6 {
		t.Fatalf("third line: %q, line %d, offset %d; want \"ef\", 3, 6", s.Bytes(), s.Line(), s.Offset())
	}
	if s.Scan() || s.Err() != nil || len(s.Buffered()) != 0 || s.Bytes() != nil {
		t.Fatalf("at the end: Err %v, Buffered %q, Bytes %q", s.Err(), s.Buffered(), s.Bytes())
	}

	// Several lines at once.
	s = NewScanner(strings.NewReader("ab\ncd\nef\ngh"), 0)
	if !s.Scan() {
		t.Fatal(s.Err())
	}
	s.Advance(6, 2, 3)
	if string(s.Bytes()) != "ef" || s.Line() != 3 || s.Offset() != 6 || !s.Terminated() {
		t.Fatalf("after Advance of two lines: %q, line %d, offset %d, terminated %v; want \"ef\", 3, 6, true",
			s.Bytes(), s.Line(), s.Offset(), s.Terminated())
	}
	if !s.Scan() || string(s.Bytes()) != "gh" || s.Line() != 4 || s.Offset() != 9 || s.Terminated() {
		t.Fatalf("last line: %q, line %d, offset %d, terminated %v; want \"gh\", 4, 9, false",
			s.Bytes(), s.Line(), s.Offset(), s.Terminated())
	}
}
