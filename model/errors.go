package model

import (
	"errors"
	"fmt"
)

// Sentinel errors of the trace-events JSON codec. They may appear in
// [ParseError].Err.
var (
	ErrFormat = errors.New("not a trace-events-json/1 document")
	ErrSyntax = errors.New("syntax error")
	ErrRange  = errors.New("value out of range")
	// ErrLimit reports input beyond a limit of JSONReaderOptions: a string
	// longer than MaxString or more than MaxDepth regions open at once on
	// one location.
	ErrLimit = errors.New("reader limit exceeded")
)

// ErrClosed is returned by a JSONWriter used after Close.
var ErrClosed = errors.New("model: writer closed")

// A ParseError reports malformed trace-events JSON input, or an event a
// JSONWriter cannot encode. Fields that do not apply are zero.
type ParseError struct {
	Path   string // stream name, if known
	Offset int64  // byte offset near the bad value
	Record int64  // 0-based event index, -1 for the header
	Err    error  // a sentinel above, or a wrapped I/O or JSON error
}

// Error formats the error with the package prefix, the position and the record index.
func (e *ParseError) Error() string {
	s := "model: "
	if e.Path != "" {
		s += e.Path + ": "
	}
	s += fmt.Sprintf("offset %d: ", e.Offset)
	if e.Record >= 0 {
		s += fmt.Sprintf("event %d: ", e.Record)
	}
	return s + e.Err.Error()
}

// Unwrap returns e.Err, so errors.Is and errors.As see the sentinel or I/O error.
func (e *ParseError) Unwrap() error { return e.Err }
