// Package perr formats the ParseError of every format package (picl,
// dumpi, otf, otf2, chrome and eventjson), so that a malformed file is reported the same
// way whatever its format:
//
//	pkg: path:line: offset N: record R: message
//
// The path and line are left out when they are unknown (empty or zero; a
// line without a path prints as "line N"). The byte offset is decimal and
// always printed, as is the 0-based record index; a negative record index
// means the error lies before the first record (a file header) and prints
// as "header". A nil Err prints as "unknown error", so formatting never
// panics.
package perr

import "strconv"

// Format returns the message of a ParseError of package pkg with the
// given fields. It never panics.
func Format(pkg, path string, line int, offset, record int64, err error) string {
	b := make([]byte, 0, 64)
	b = append(b, pkg...)
	b = append(b, ": "...)
	switch {
	case path != "" && line > 0:
		b = append(b, path...)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(line), 10)
		b = append(b, ": "...)
	case path != "":
		b = append(b, path...)
		b = append(b, ": "...)
	case line > 0:
		b = append(b, "line "...)
		b = strconv.AppendInt(b, int64(line), 10)
		b = append(b, ": "...)
	}
	b = append(b, "offset "...)
	b = strconv.AppendInt(b, offset, 10)
	if record < 0 {
		b = append(b, ": header: "...)
	} else {
		b = append(b, ": record "...)
		b = strconv.AppendInt(b, record, 10)
		b = append(b, ": "...)
	}
	if err == nil {
		b = append(b, "unknown error"...)
	} else {
		b = append(b, err.Error()...)
	}
	return string(b)
}

// Nil is the message of a nil *ParseError of package pkg.
func Nil(pkg string) string { return pkg + ": <nil ParseError>" }
