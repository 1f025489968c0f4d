package dumpi

import (
	"errors"

	"github.com/hpctrace/hpctrace/internal/perr"
)

// Sentinel errors. ErrFormat, ErrVersion, ErrSyntax, ErrRange and ErrLimit
// may appear in ParseError.Err; truncated input wraps io.ErrUnexpectedEOF.
var (
	// ErrFormat reports a wrong magic number (leading or in the index), a
	// damaged footer magic or, from ParseMeta and OpenRun, input that is
	// not a .meta file (a rank's .bin file, other binary data).
	ErrFormat = errors.New("not a DUMPI trace")
	// ErrVersion reports a version the reader cannot decode.
	ErrVersion = errors.New("unsupported version")
	// ErrSyntax reports a malformed record, such as an unknown label.
	ErrSyntax = errors.New("syntax error")
	// ErrRange reports an offset, length or count out of range: past the
	// end of the file, negative, or larger than the bytes left; or, from a
	// Writer, a value the format cannot encode.
	ErrRange = errors.New("value out of range")
	// ErrLimit reports input beyond a limit of the reader: a line of a
	// .meta file longer than 1 MiB. The error wrapping it names the limit.
	ErrLimit = errors.New("reader limit exceeded")
	// ErrClosed is returned by a Writer used after Close and by the
	// section reads and Readers of a File made after its Close.
	ErrClosed = errors.New("dumpi: closed")
)

// maxMetaLine is the longest line of a .meta file accepted, in bytes.
const maxMetaLine = 1 << 20

// A ParseError reports malformed input. It has the same shape in every
// format package: Path, Offset, Record and Err, plus Line in the packages
// that read text line by line (picl, otf, dumpi); a field that does not
// apply to an error is zero.
type ParseError struct {
	Path   string // file or stream name, if known
	Line   int    // 1-based line (the .meta file)
	Offset int64  // byte offset where the bad record or section starts
	Record int64  // 0-based index of the call record in the stream
	Err    error  // a sentinel from this package, or a wrapped I/O error
}

// Error returns "dumpi: path:line: offset N: record R: err", without the
// path or line when they are unknown (empty or zero). The offset is decimal
// and the record index is always printed. Error is safe on a nil receiver and
// on a nil Err.
func (e *ParseError) Error() string {
	if e == nil {
		return perr.Nil("dumpi")
	}
	return perr.Format("dumpi", e.Path, e.Line, e.Offset, e.Record, e.Err)
}

// Unwrap returns e.Err, so errors.Is and errors.As see the sentinel or I/O error.
func (e *ParseError) Unwrap() error { return e.Err }
