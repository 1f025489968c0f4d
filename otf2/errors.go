package otf2

import (
	"errors"

	"github.com/hpctrace/hpctrace/internal/perr"
)

// A ParseError reports malformed input. It has the same shape in every
// format package: Path, Offset, Record and Err, plus Line in the packages
// that read text line by line (picl, otf, dumpi), which this one does not;
// a field that does not apply to an error is zero.
type ParseError struct {
	Path   string // file name inside the archive, if known (e.g. "traces/0.evt")
	Offset int64  // byte offset where the bad record starts
	Record int64  // 0-based record index in the file (events: event number - 1)
	Err    error  // one of the package's Err sentinels, or a wrapped I/O error
}

// Error returns "otf2: path: offset N: record R: err", without the path
// when it is unknown. The offset is decimal and the record index is always
// printed. Error is safe on a nil receiver and
// on a nil Err.
func (e *ParseError) Error() string {
	if e == nil {
		return perr.Nil("otf2")
	}
	return perr.Format("otf2", e.Path, 0, e.Offset, e.Record, e.Err)
}

// Unwrap returns e.Err, so errors.Is and errors.As see the sentinel or I/O error.
func (e *ParseError) Unwrap() error { return e.Err }

// Sentinel errors. Those without the "otf2:" prefix may appear in ParseError.Err.
var (
	// ErrFormat reports bytes that are not OTF2: a bad magic, chunk header
	// or endianness byte, a special byte where a record must start.
	ErrFormat = errors.New("not an OTF2 file")
	// ErrVersion reports an anchor format this package does not read
	// (0 or above 3), or a substrate or compression it does not support.
	ErrVersion = errors.New("unsupported OTF2 version, substrate or compression")
	// ErrSyntax reports a malformed record: a bad compressed integer, a
	// record whose fields do not fit its length, a missing string end.
	ErrSyntax = errors.New("malformed record")
	// ErrRange reports a length or count larger than the bytes that hold
	// it, or a value a writer cannot encode.
	ErrRange = errors.New("value out of range")
	// ErrIntegrity reports counts that disagree: the anchor's number of
	// global definitions, a chunk header's event numbers, clock offsets
	// with equal times.
	ErrIntegrity = errors.New("integrity fault")
	// ErrTimeOrder reports a writer asked to write an event earlier than
	// the previous one of the same location, and a ModelSource with a
	// window that reads such an event (see [ModelSource]).
	ErrTimeOrder = errors.New("time stamps must not decrease within a location")
	// ErrClosed is returned by writers after Close, by an Archive's
	// methods that open files after its Close, and by a ModelSource
	// read after its Close.
	ErrClosed = errors.New("otf2: closed")
	// ErrNoLocation reports a location id the archive does not define.
	ErrNoLocation = errors.New("otf2: no such location")
)
