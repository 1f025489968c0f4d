package otf

import (
	"errors"
	"strings"
	"testing"
)

// TestSyntaxErrorSaysWhat checks that a syntax error names what the reader
// expected and what it found, on top of the sentinel (which errors.Is still
// finds).
func TestSyntaxErrorSaysWhat(t *testing.T) {
	tests := []struct {
		file FileType
		in   string
		want error
	}{
		{FileEvents, "1\n*1\nE\n", ErrSyntax},
		{FileEvents, "1\n*1\nE 1 2 3 q\n", ErrSyntax},
		{FileEvents, "1g\n", ErrSyntax},
		{FileEvents, "*x\n", ErrSyntax},
		{FileEvents, "1\n*1\nS2L8\n", ErrSyntax},
		{FileEvents, "1\n*1\nE2 \n", ErrSyntax},
		{FileEvents, "1\n*1\nKEY1Y6V7Z\n", ErrSyntax},
		{FileEvents, "1\n*1\nKEY1Yb\n", ErrSyntax},
		{FileEvents, "1\n*1\nE1X9F\n", ErrUpperHex},
		{FileDef, "DP1NMx\n", ErrSyntax},
		{FileDef, "DF1G2\n", ErrSyntax},
		{FileDef, "DPG1M1,2NM\"a\"\n", ErrSyntax},
	}
	for _, tt := range tests {
		r, err := NewReader(strings.NewReader(tt.in), &ReaderOptions{File: tt.file})
		if err != nil {
			t.Fatal(err)
		}
		for r.Next() {
		}
		var pe *ParseError
		if !errors.As(r.Err(), &pe) || !errors.Is(pe, tt.want) {
			t.Errorf("%q: got %v, want a ParseError wrapping %v", tt.in, r.Err(), tt.want)
			continue
		}
		if msg := pe.Err.Error(); !strings.HasPrefix(msg, tt.want.Error()+": want ") || !strings.Contains(msg, ", found ") {
			t.Errorf("%q: message %q does not say what was expected and found", tt.in, msg)
		}
	}
}

// TestMaxLine checks that MaxLine bounds the line length.
func TestMaxLine(t *testing.T) {
	line := "1\n*1\nE1" + strings.Repeat(" ", 150) + "\n"
	for _, tt := range []struct {
		opts ReaderOptions
		long bool
	}{
		{ReaderOptions{MaxLine: 100}, true},
		{ReaderOptions{MaxLine: 1000}, false},
	} {
		r, err := NewReader(strings.NewReader(line), &tt.opts)
		if err != nil {
			t.Fatal(err)
		}
		for r.Next() {
		}
		if got := errors.Is(r.Err(), ErrLongLine); got != tt.long {
			t.Errorf("%+v: Err() = %v; want ErrLongLine: %v", tt.opts, r.Err(), tt.long)
		}
	}
}
