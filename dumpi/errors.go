package dumpi

import (
	"errors"
	"strconv"
)

// Sentinel errors. ErrFormat, ErrVersion, ErrSyntax and ErrRange may appear
// in ParseError.Err; truncated input wraps io.ErrUnexpectedEOF.
var (
	// ErrFormat reports a wrong magic number (leading or in the index) or
	// a damaged footer magic.
	ErrFormat = errors.New("not a DUMPI trace")
	// ErrVersion reports a version the reader cannot decode.
	ErrVersion = errors.New("unsupported version")
	// ErrSyntax reports a malformed record, such as an unknown label.
	ErrSyntax = errors.New("syntax error")
	// ErrRange reports an offset, length or count out of range: past the
	// end of the file, negative, or larger than the bytes left; or, from a
	// Writer, a value the format cannot encode.
	ErrRange = errors.New("value out of range")
	// ErrClosed is returned by a Writer used after Close.
	ErrClosed = errors.New("dumpi: writer closed")
)

// A ParseError reports malformed input. Fields that do not apply are zero.
type ParseError struct {
	Path   string // file or stream name, if known
	Line   int    // 1-based line (the .meta file)
	Offset int64  // byte offset where the bad record or section starts
	Record int64  // 0-based index of the call record in the stream
	Err    error  // a sentinel from this package, or a wrapped I/O error
}

// Error returns "dumpi: PATH: offset 0xOFF: record N: ERR", leaving out
// the parts that are zero.
func (e *ParseError) Error() string {
	s := "dumpi: "
	if e.Path != "" {
		s += e.Path + ": "
	}
	if e.Line > 0 {
		s += "line " + strconv.Itoa(e.Line) + ": "
	}
	if e.Offset > 0 {
		s += "offset 0x" + strconv.FormatInt(e.Offset, 16) + ": "
	}
	if e.Record > 0 {
		s += "record " + strconv.FormatInt(e.Record, 10) + ": "
	}
	if e.Err != nil {
		s += e.Err.Error()
	}
	return s
}

// Unwrap returns e.Err, so errors.Is and errors.As see the sentinel or I/O error.
func (e *ParseError) Unwrap() error { return e.Err }
