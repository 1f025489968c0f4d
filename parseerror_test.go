package hpctrace_test

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/hpctrace/hpctrace/chrome"
	"github.com/hpctrace/hpctrace/dumpi"
	"github.com/hpctrace/hpctrace/eventjson"
	"github.com/hpctrace/hpctrace/otf"
	"github.com/hpctrace/hpctrace/otf2"
	"github.com/hpctrace/hpctrace/picl"
)

// parseErrorKind builds one package's *ParseError from its fields, so one
// table checks that every format package reports malformed input the same
// way. This is the one test that compares error strings: the format of the
// message is what it checks. The packages that read text line by line have
// a Line field; the others have none, and make ignores the line for them.
type parseErrorKind struct {
	pkg      string
	lines    bool  // the ParseError has a Line field
	sentinel error // any sentinel of the package that may appear in Err
	make     func(path string, line int, off, rec int64, err error) error
	nilPtr   error // a nil *ParseError of the package, as an error
	as       func(error) bool
}

func parseErrorKinds() []parseErrorKind {
	return []parseErrorKind{
		{"picl", true, picl.ErrSyntax,
			func(p string, l int, o, r int64, e error) error {
				return &picl.ParseError{Path: p, Line: l, Offset: o, Record: r, Err: e}
			}, (*picl.ParseError)(nil),
			func(err error) bool { var pe *picl.ParseError; return errors.As(err, &pe) }},
		{"dumpi", true, dumpi.ErrSyntax,
			func(p string, l int, o, r int64, e error) error {
				return &dumpi.ParseError{Path: p, Line: l, Offset: o, Record: r, Err: e}
			}, (*dumpi.ParseError)(nil),
			func(err error) bool { var pe *dumpi.ParseError; return errors.As(err, &pe) }},
		{"otf", true, otf.ErrSyntax,
			func(p string, l int, o, r int64, e error) error {
				return &otf.ParseError{Path: p, Line: l, Offset: o, Record: r, Err: e}
			}, (*otf.ParseError)(nil),
			func(err error) bool { var pe *otf.ParseError; return errors.As(err, &pe) }},
		{"otf2", false, otf2.ErrSyntax,
			func(p string, _ int, o, r int64, e error) error {
				return &otf2.ParseError{Path: p, Offset: o, Record: r, Err: e}
			}, (*otf2.ParseError)(nil),
			func(err error) bool { var pe *otf2.ParseError; return errors.As(err, &pe) }},
		{"eventjson", false, eventjson.ErrSyntax,
			func(p string, _ int, o, r int64, e error) error {
				return &eventjson.ParseError{Path: p, Offset: o, Record: r, Err: e}
			}, (*eventjson.ParseError)(nil),
			func(err error) bool { var pe *eventjson.ParseError; return errors.As(err, &pe) }},
		{"chrome", false, chrome.ErrSyntax,
			func(p string, _ int, o, r int64, e error) error {
				return &chrome.ParseError{Path: p, Offset: o, Record: r, Err: e}
			}, (*chrome.ParseError)(nil),
			func(err error) bool { var pe *chrome.ParseError; return errors.As(err, &pe) }},
	}
}

func TestParseErrorFormat(t *testing.T) {
	for _, k := range parseErrorKinds() {
		t.Run(k.pkg, func(t *testing.T) {
			msg := k.sentinel.Error()
			tests := []struct {
				path     string
				line     int
				off, rec int64
				err      error
				want     string
			}{
				{"run.trf", 42, 1000, 41, k.sentinel, k.pkg + ": run.trf:42: offset 1000: record 41: " + msg},
				{"rank0.bin", 0, 8000, 17, k.sentinel, k.pkg + ": rank0.bin: offset 8000: record 17: " + msg},
				{"rank0.bin", 0, 0, 0, k.sentinel, k.pkg + ": rank0.bin: offset 0: record 0: " + msg},
				{"", 3, 11, 1, k.sentinel, k.pkg + ": line 3: offset 11: record 1: " + msg},
				{"", 0, 0, 0, nil, k.pkg + ": offset 0: record 0: unknown error"},
				{"t.json", 0, 2, -1, k.sentinel, k.pkg + ": t.json: offset 2: header: " + msg},
				{"t", 0, 5, 2, io.ErrUnexpectedEOF, k.pkg + ": t: offset 5: record 2: unexpected EOF"},
			}
			for _, tt := range tests {
				if tt.line > 0 && !k.lines {
					continue // no Line field to set
				}
				if got := k.make(tt.path, tt.line, tt.off, tt.rec, tt.err).Error(); got != tt.want {
					t.Errorf("got %q, want %q", got, tt.want)
				}
			}
			if got, want := k.nilPtr.Error(), k.pkg+": <nil ParseError>"; got != want {
				t.Errorf("nil receiver: got %q, want %q", got, want)
			}
		})
	}
}

func TestParseErrorUnwrap(t *testing.T) {
	for _, k := range parseErrorKinds() {
		t.Run(k.pkg, func(t *testing.T) {
			err := fmt.Errorf("reading: %w", k.make("f", 1, 2, 3, fmt.Errorf("field x: %w", k.sentinel)))
			if !errors.Is(err, k.sentinel) {
				t.Errorf("errors.Is(%v, sentinel) = false", err)
			}
			if !k.as(err) {
				t.Errorf("errors.As(%v, *ParseError) = false", err)
			}
			if errors.Is(k.make("f", 1, 2, 3, nil), k.sentinel) {
				t.Errorf("a ParseError with a nil Err matches the sentinel")
			}
			if k.as(k.sentinel) {
				t.Errorf("errors.As finds a ParseError in a bare sentinel")
			}
		})
	}
}
