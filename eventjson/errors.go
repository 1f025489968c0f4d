package eventjson

import (
	"errors"

	"github.com/hpctrace/hpctrace/internal/perr"
)

// Sentinel errors of the reader and writer. They may appear in
// [ParseError].Err.
var (
	ErrFormat = errors.New("not a " + Format + " document")
	ErrSyntax = errors.New("syntax error")
	ErrRange  = errors.New("value out of range")
	// ErrLimit reports input beyond a limit of ReaderOptions: a string
	// longer than MaxString or more than MaxOpenRegions regions open at once on
	// one location.
	ErrLimit = errors.New("reader limit exceeded")
)

// ErrClosed is returned by a Writer used after Close.
var ErrClosed = errors.New("eventjson: writer closed")

// A ParseError reports malformed input. It has the same shape in every
// format package: Path, Offset, Record and Err, plus Line in the packages
// that read text line by line (picl, otf, dumpi), which this one does not;
// a field that does not apply to an error is zero.
// (A Writer reports an event it cannot encode with an error
// wrapping [ErrRange], and a failed write with the writer's own error,
// never with a ParseError.)
type ParseError struct {
	Path   string // stream name, if known
	Offset int64  // byte offset near the bad value
	Record int64  // 0-based event index, -1 for the header (printed as "header")
	Err    error  // a sentinel above, or a wrapped I/O or JSON error
}

// Error returns "eventjson: path: offset N: record R: err", without the
// path when it is unknown. The offset is decimal and the record index is
// always printed ("header" for -1). Error is safe on a nil
// receiver and on a nil Err.
func (e *ParseError) Error() string {
	if e == nil {
		return perr.Nil("eventjson")
	}
	return perr.Format("eventjson", e.Path, 0, e.Offset, e.Record, e.Err)
}

// Unwrap returns e.Err, so errors.Is and errors.As see the sentinel or I/O error.
func (e *ParseError) Unwrap() error { return e.Err }
