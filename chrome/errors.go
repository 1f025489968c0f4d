package chrome

import (
	"errors"

	"github.com/hpctrace/hpctrace/internal/perr"
)

// Sentinel errors of the reader. They may appear in [ParseError].Err,
// but for ErrClosed.
var (
	// ErrClosed is what Reader.Err returns once Next is called after
	// Close.
	ErrClosed = errors.New("chrome: reader closed")
	// ErrFormat reports a document that is neither a JSON object nor a
	// JSON array of objects.
	ErrFormat = errors.New("not a Trace Event Format document")
	// ErrSyntax reports malformed JSON, or a field of the wrong type.
	ErrSyntax = errors.New("syntax error")
	// ErrRange reports a number out of range: a timestamp beyond the
	// int64 ticks of the clock, a negative duration.
	ErrRange = errors.New("value out of range")
	// ErrLimit reports input beyond a limit of ReaderOptions: an event
	// larger than MaxEvent bytes, or more flow ends waiting for their
	// other end than MaxFlows.
	ErrLimit = errors.New("reader limit exceeded")
	// ErrOrder reports an event earlier than one already delivered: the
	// document's events are further out of time order than the reorder
	// window (ReaderOptions.ReorderWindow) holds.
	ErrOrder = errors.New("event out of time order beyond the reorder window")
)

// A ParseError reports malformed input. It has the same shape in every
// format package: Path, Offset, Record and Err, plus Line in the packages
// that read text line by line (picl, otf, dumpi), which this one does not;
// a field that does not apply to an error is zero.
type ParseError struct {
	Path   string // stream name, if known
	Offset int64  // byte offset near the bad value
	Record int64  // 0-based index of the element of the event array, -1 for the document's head
	Err    error  // a sentinel above, or a wrapped I/O or JSON error
}

// Error returns "chrome: path: offset N: record R: err", without the path
// when it is unknown. The offset is decimal and the record index is always
// printed ("header" for -1). Error is safe on a nil receiver and on a nil Err.
func (e *ParseError) Error() string {
	if e == nil {
		return perr.Nil("chrome")
	}
	return perr.Format("chrome", e.Path, 0, e.Offset, e.Record, e.Err)
}

// Unwrap returns e.Err, so errors.Is and errors.As see the sentinel or I/O error.
func (e *ParseError) Unwrap() error { return e.Err }
