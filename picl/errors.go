package picl

import (
	"errors"
	"fmt"

	"github.com/hpctrace/hpctrace/internal/perr"
)

// Sentinel errors. ErrSyntax, ErrRange and ErrLimit may appear in
// [ParseError.Err]; a file that ends in the middle of a record gives a
// ParseError wrapping io.ErrUnexpectedEOF. The writer's errors wrap ErrRange
// or are ErrClosed, which a closed Reader or ModelSource gives too.
var (
	// ErrSyntax reports a token that is not what the grammar expects there:
	// a missing field, a non-numeric number, a bad descriptor, or (in strict
	// mode) a count that does not match the data.
	ErrSyntax = errors.New("syntax error")

	// ErrRange reports a number that does not fit its field (a processor id
	// beyond 32 bits, a float beyond float64) or, from the Writer, a record
	// that cannot be written.
	ErrRange = errors.New("value out of range")

	// ErrLimit reports input beyond a limit of ReaderOptions: a line
	// longer than MaxLine bytes. The error wrapping it names the limit.
	ErrLimit = errors.New("reader limit exceeded")

	// ErrClosed is returned by Writer.Write and Writer.Flush after Close,
	// and by Reader.Err and ModelSource.Err once Next is called after
	// their Close.
	ErrClosed = errors.New("picl: closed")
)

// A ParseError reports malformed input. It has the same shape in every
// format package: Path, Offset, Record and Err, plus Line in the packages
// that read text line by line (picl, otf, dumpi); a field that does not
// apply to an error is zero.
type ParseError struct {
	Path   string // file or stream name, if known (ReaderOptions.Path)
	Line   int    // 1-based physical line
	Offset int64  // byte offset where the bad line starts
	Record int64  // 0-based index of the record the line would have been
	Err    error  // a sentinel from this package, io.ErrUnexpectedEOF, or a wrapped I/O error
}

// Error returns "picl: path:line: offset N: record R: err", without the
// path or line when they are unknown (empty or zero). The offset is decimal
// and the record index is always printed. Error is safe on a nil receiver and
// on a nil Err.
func (e *ParseError) Error() string {
	if e == nil {
		return perr.Nil("picl")
	}
	return perr.Format("picl", e.Path, e.Line, e.Offset, e.Record, e.Err)
}

// Unwrap returns e.Err, so errors.Is and errors.As see the sentinel or I/O error.
func (e *ParseError) Unwrap() error { return e.Err }

// fieldErr wraps sentinel with the name of the field at fault and a short
// quote of its token.
func fieldErr(sentinel error, field string, tok []byte) error {
	if len(tok) > 40 {
		return fmt.Errorf("%s %q...: %w", field, tok[:40], sentinel)
	}
	return fmt.Errorf("%s %q: %w", field, tok, sentinel)
}
