// Package termsafe escapes the characters of text bound for a terminal
// that would act on it instead of being shown: the C0 controls (escape
// sequences that recolour or move the cursor, carriage returns that
// overwrite a line, bells), DEL, the C1 controls (U+0080 to U+009F, among
// them the one-character CSI) and the bytes that are not UTF-8. Trace
// names come from files and reach the programs' text output; JSON output
// escapes them already and must not use this package.
//
// A control byte becomes \xNN (ESC is \x1b), a C1 control \u00NN, and a
// byte that does not start a valid UTF-8 sequence \xNN, as Go's %q writes
// them. Backslashes are not escaped: the result is for reading, not for
// parsing back.
package termsafe

import (
	"encoding/binary"
	"io"
	"math/bits"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// safe reports whether the rune r, of size bytes, needs no escape.
func safe(r rune, size int) bool {
	switch {
	case r == utf8.RuneError && size <= 1:
		return false
	case r < 0x20, r == 0x7f:
		return false
	case r >= 0x80 && r <= 0x9f:
		return false
	}
	return true
}

// appendEscape appends the escape of the first character of p, of size
// bytes, decoded as r.
func appendEscape(dst []byte, r rune, size int, b byte) []byte {
	if r >= 0x80 && r <= 0x9f && size == 2 {
		return append(dst, '\\', 'u', '0', '0', hexDigits[r>>4], hexDigits[r&0xf])
	}
	return append(dst, '\\', 'x', hexDigits[b>>4], hexDigits[b&0xf])
}

// Append appends s to dst with every control character escaped, newlines
// and tabs included, and returns the extended slice.
func Append(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if safe(r, size) {
			dst = append(dst, s[i:i+size]...)
		} else {
			dst = appendEscape(dst, r, size, s[i])
		}
		i += size
	}
	return dst
}

// String returns s with every control character escaped, newlines and
// tabs included. It returns s itself, without allocating, when nothing
// needs an escape.
func String(s string) string {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !safe(r, size) {
			return string(Append(make([]byte, 0, len(s)+8), s))
		}
		i += size
	}
	return s
}

// A Writer escapes the text written through it to an underlying writer,
// keeping newlines and tabs (the lines and columns of the text itself)
// and escaping everything else [String] escapes. A character split between two
// Writes is held until the next Write or Flush. A name holding a newline
// still breaks its line: callers that print names in line-oriented
// output pass them through [String] as well.
//
// A Writer is not safe for concurrent use.
type Writer struct {
	w    io.Writer
	held []byte // the start of a character cut by the end of a Write
	buf  []byte
}

// NewWriter returns a Writer escaping to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Unwrap returns the underlying writer (for callers that ask whether the
// output is a terminal).
func (w *Writer) Unwrap() io.Writer { return w.w }

// Write escapes p to the underlying writer. It returns len(p) when the
// escaped text was written, else 0 and the underlying writer's error.
func (w *Writer) Write(p []byte) (int, error) {
	n := len(p)
	if len(w.held) > 0 {
		w.held = append(w.held, p...)
		p = w.held
	} else if plainLen(p) == len(p) {
		// Nothing to escape, the usual case: pass p on as it is.
		if len(p) == 0 {
			return 0, nil
		}
		_, err := w.w.Write(p)
		return n, err
	}
	w.buf = w.buf[:0]
	for i := 0; i < len(p); {
		if j := i + plainLen(p[i:]); j > i {
			// Printable ASCII, the bulk of any text: copy the run.
			w.buf = append(w.buf, p[i:j]...)
			i = j
			continue
		}
		r, size := utf8.DecodeRune(p[i:])
		if r == utf8.RuneError && size <= 1 && !utf8.FullRune(p[i:]) {
			// Cut by the end of p: wait for the rest.
			rest := append([]byte(nil), p[i:]...)
			w.held = append(w.held[:0], rest...)
			return n, w.flushBuf()
		}
		if r == '\n' || r == '\t' || safe(r, size) {
			w.buf = append(w.buf, p[i:i+size]...)
		} else {
			w.buf = appendEscape(w.buf, r, size, p[i])
		}
		i += size
	}
	w.held = w.held[:0]
	return n, w.flushBuf()
}

// AppendText appends s to dst escaped as a Writer escapes it when s is
// written whole and flushed: newlines and tabs are kept, everything else
// [String] escapes is escaped. Text whose pieces are each passed through
// AppendText, between bytes of printable ASCII, reads the same as the
// whole text written through a Writer.
func AppendText(dst, s []byte) []byte {
	for i := 0; i < len(s); {
		if j := i + plainLen(s[i:]); j > i {
			dst = append(dst, s[i:j]...)
			i = j
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		if r == '\n' || r == '\t' || safe(r, size) {
			dst = append(dst, s[i:i+size]...)
		} else {
			dst = appendEscape(dst, r, size, s[i])
		}
		i += size
	}
	return dst
}

// plainLen returns the length of the run of plain bytes (printable ASCII,
// newline and tab) that p starts with, testing eight bytes at a time.
func plainLen(p []byte) int {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	i := 0
	for i+8 <= len(p) {
		x := binary.LittleEndian.Uint64(p[i:])
		// The top bit of a byte of t is set if the byte is below 0x20 or
		// at or above 0x7f. A carry or borrow crosses only from such a
		// byte into the next (higher, later) one, so the first byte
		// flagged is exact.
		t := (x | (x + lo) | (x-0x20*lo)&^x) & hi
		if t == 0 {
			i += 8
			continue
		}
		k := i + bits.TrailingZeros64(t)/8
		if b := p[k]; b != '\n' && b != '\t' {
			return k
		}
		i = k + 1
	}
	for ; i < len(p); i++ {
		if b := p[i]; !(b >= 0x20 && b < 0x7f || b == '\n' || b == '\t') {
			break
		}
	}
	return i
}

func (w *Writer) flushBuf() error {
	if len(w.buf) == 0 {
		return nil
	}
	_, err := w.w.Write(w.buf)
	return err
}

// Flush writes the bytes held from the last Write, escaped as bytes that
// are not UTF-8: the text ended inside a character.
func (w *Writer) Flush() error {
	w.buf = w.buf[:0]
	for _, b := range w.held {
		w.buf = append(w.buf, '\\', 'x', hexDigits[b>>4], hexDigits[b&0xf])
	}
	w.held = w.held[:0]
	return w.flushBuf()
}

// AppendControls appends s to dst with the C0 controls (newlines included,
// tabs excepted), DEL and the UTF-8 encoded C1 controls escaped, but keeps the
// bytes that are not UTF-8 as they are: for output that shows names in a
// legacy encoding (KOI8-R, Latin-1) byte for byte, as the reference tools
// print them. It returns the extended slice.
func AppendControls(dst, s []byte) []byte {
	for i := 0; i < len(s); {
		b := s[i]
		switch {
		case b < 0x20 && b != '\t' || b == 0x7f:
			dst = append(dst, '\\', 'x', hexDigits[b>>4], hexDigits[b&0xf])
			i++
		case b == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9f:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[s[i+1]>>4], hexDigits[s[i+1]&0xf])
			i += 2
		default:
			dst = append(dst, b)
			i++
		}
	}
	return dst
}
