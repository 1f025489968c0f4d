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
	// longer than MaxString or more than MaxDepth regions open at once on
	// one location.
	ErrLimit = errors.New("reader limit exceeded")
)

// ErrClosed is returned by a Writer used after Close.
var ErrClosed = errors.New("eventjson: writer closed")

// A ParseError reports a malformed document. Fields that do not apply are
// zero. (A Writer reports an event it cannot encode with an error
// wrapping [ErrRange], and a failed write with the writer's own error,
// never with a ParseError.)
type ParseError struct {
	Path   string // stream name, if known
	Line   int    // always 0: positions are byte offsets; kept for the shape shared with the format packages
	Offset int64  // byte offset near the bad value
	Record int64  // 0-based event index, -1 for the header (printed as "header")
	Err    error  // a sentinel above, or a wrapped I/O or JSON error
}

// Error returns "eventjson: path:line: offset N: record R: err", without
// the path or line when they are unknown (empty or zero). The offset is
// decimal and the record index is always printed. Error is safe on a nil
// receiver and on a nil Err.
func (e *ParseError) Error() string {
	if e == nil {
		return perr.Nil("eventjson")
	}
	return perr.Format("eventjson", e.Path, e.Line, e.Offset, e.Record, e.Err)
}

// Unwrap returns e.Err, so errors.Is and errors.As see the sentinel or I/O error.
func (e *ParseError) Unwrap() error { return e.Err }
