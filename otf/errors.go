package otf

import (
	"errors"

	"github.com/hpctrace/hpctrace/internal/perr"
)

// A ParseError reports malformed input. It has the same shape in every
// format package: Path, Offset, Record and Err, plus Line in the packages
// that read text line by line (picl, otf, dumpi); a field that does not
// apply to an error is zero.
type ParseError struct {
	Path   string // file or stream name, if known (e.g. "trace.1a.events")
	Line   int    // 1-based line
	Offset int64  // byte offset where the bad line starts (in decompressed text)
	Record int64  // 0-based record index in the file
	Err    error  // one of the package's Err sentinels, or a wrapped I/O error
}

// Error returns "otf: path:line: offset N: record R: err", without the
// path or line when they are unknown (empty or zero). The offset is decimal
// and the record index is always printed. Error is safe on a nil receiver and
// on a nil Err.
func (e *ParseError) Error() string {
	if e == nil {
		return perr.Nil("otf")
	}
	return perr.Format("otf", e.Path, e.Line, e.Offset, e.Record, e.Err)
}

// Unwrap returns e.Err, so errors.Is and errors.As see the sentinel or I/O error.
func (e *ParseError) Unwrap() error { return e.Err }

// Sentinel errors. Those without the "otf:" prefix may appear in ParseError.Err.
var (
	// ErrSyntax reports a line the reference reader rejects: a known
	// keyword with missing or malformed fields, trailing blanks, a CR
	// before the LF, a bad string or list.
	ErrSyntax = errors.New("syntax error")
	// ErrRange reports a number too large for its field. Writers wrap it
	// for values they cannot encode.
	ErrRange = errors.New("value out of range")
	// ErrLimit reports input beyond a limit of ReaderOptions: a line
	// longer than MaxLine bytes or, after a seek into the middle of a
	// line, no line feed within that many bytes. The error wrapping it
	// names the limit.
	ErrLimit = errors.New("reader limit exceeded")
	// ErrUpperHex reports an upper-case hexadecimal digit, which the
	// reference reader silently misreads (it stops the number there).
	ErrUpperHex = errors.New("upper-case hex digit (the reference reader misreads it)")
	// ErrUnknownRecord reports an unknown keyword in strict mode.
	ErrUnknownRecord = errors.New("unknown record")
	// ErrFormat reports a file that is not OTF: a bad zlib header or master file line.
	ErrFormat = errors.New("not an OTF file")
	// ErrTimeOrder reports a writer asked to write a time stamp smaller
	// than the previous one of the same file.
	ErrTimeOrder = errors.New("time stamps must not decrease within a file")
	// ErrClosed is returned by writers after Close, and by the methods of
	// a closed Trace that would open a file.
	ErrClosed = errors.New("otf: use of a closed writer or trace")
)
