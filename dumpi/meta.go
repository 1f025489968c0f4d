package dumpi

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
)

// Meta is the content of a run's .meta file, written by rank 0.
type Meta struct {
	Hostname   string
	NumProcs   int    // number of ranks, one .bin file each
	Username   string // LOGNAME of rank 0, or "<none>"
	StartTime  int64  // Unix seconds ("startime" in the file)
	FilePrefix string // rank files are FilePrefix-NNNN.bin
	Version    Version
}

var metaKeys = [...]string{"hostname", "numprocs", "username", "startime", "fileprefix", "version", "subversion", "subsubversion"}

// ParseMeta reads a .meta file: the eight key=value lines in the
// reference order. Unknown keys are an error wrapping ErrSyntax; so are
// missing ones.
//
// Input that is not text, such as a rank's .bin file passed by mistake, is
// an error wrapping ErrFormat that says a .meta file was expected, without
// quoting the binary bytes.
func ParseMeta(r io.Reader) (*Meta, error) {
	m := new(Meta)
	br := bufio.NewReader(r)
	if head, _ := br.Peek(512); len(head) > 0 {
		if len(head) >= 8 && be64(head[:8]) == Magic {
			return nil, &ParseError{Line: 1, Err: fmt.Errorf("%w: a rank's binary trace (.bin), not the run's .meta file", ErrFormat)}
		}
		if bytes.IndexByte(head, 0) >= 0 {
			return nil, &ParseError{Line: 1, Err: fmt.Errorf("%w: binary data, not a .meta file (key=value text lines)", ErrFormat)}
		}
	}
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 0, 4096), maxMetaLine)
	seen := 0
	line := 0
	var off, lineOff, rec int64 // byte offsets of the next and the current line; key lines before it
	fail := func(err error) (*Meta, error) {
		return nil, &ParseError{Line: line, Offset: lineOff, Record: rec, Err: err}
	}
	for sc.Scan() {
		line++
		lineOff = off
		off += int64(len(sc.Bytes())) + 1
		text := strings.TrimSuffix(sc.Text(), "\r")
		if text == "" {
			continue
		}
		k, v, ok := strings.Cut(text, "=")
		if !ok {
			return fail(fmt.Errorf("%w: no '=' in %s", ErrSyntax, quote(text)))
		}
		i := -1
		for j, key := range metaKeys {
			if key == k {
				i = j
			}
		}
		if i < 0 {
			return fail(fmt.Errorf("%w: unknown key %s", ErrSyntax, quote(k)))
		}
		if seen&(1<<i) != 0 {
			return fail(fmt.Errorf("%w: repeated key %q", ErrSyntax, k))
		}
		seen |= 1 << i
		bad := false
		num := func(bits int) int64 {
			n, err := strconv.ParseUint(v, 10, bits)
			if err != nil {
				bad = true
			}
			return int64(n)
		}
		switch k {
		case "hostname":
			m.Hostname = v
		case "numprocs":
			m.NumProcs = int(num(31))
		case "username":
			m.Username = v
		case "startime":
			m.StartTime = num(63)
		case "fileprefix":
			m.FilePrefix = v
		case "version":
			m.Version[0] = uint8(num(8))
		case "subversion":
			m.Version[1] = uint8(num(8))
		case "subsubversion":
			m.Version[2] = uint8(num(8))
		}
		if bad {
			return fail(fmt.Errorf("%w: bad number %s for %s", ErrSyntax, quote(v), k))
		}
		rec++
	}
	line++
	lineOff = off
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fail(fmt.Errorf("%w: a .meta line longer than %d bytes", ErrLimit, maxMetaLine))
		}
		return fail(err)
	}
	for i, k := range metaKeys {
		if seen&(1<<i) == 0 {
			line = 0 // a missing key has no line; the offset is the end of the file
			return fail(fmt.Errorf("%w: missing key %q", ErrSyntax, k))
		}
	}
	return m, nil
}

// quote quotes s for an error message, cut to 40 bytes.
func quote(s string) string {
	if len(s) > 40 {
		return strconv.Quote(s[:40]) + "..."
	}
	return strconv.Quote(s)
}

// WriteTo writes m in the reference format.
func (m *Meta) WriteTo(w io.Writer) (int64, error) {
	s := fmt.Sprintf("hostname=%s\nnumprocs=%d\nusername=%s\nstartime=%d\nfileprefix=%s\nversion=%d\nsubversion=%d\nsubsubversion=%d\n",
		m.Hostname, m.NumProcs, m.Username, m.StartTime, m.FilePrefix, m.Version[0], m.Version[1], m.Version[2])
	n, err := io.WriteString(w, s)
	return int64(n), err
}

// RankFile returns the name of rank's file: FilePrefix-NNNN.bin, the rank
// printed with at least four digits.
func (m *Meta) RankFile(rank int) string {
	return fmt.Sprintf("%s-%04d.bin", m.FilePrefix, rank)
}

// RankOf returns the rank in the name of a rank's file, the inverse of
// [Meta.RankFile]: the decimal number between the last '-' and the
// extension of the base name ("dumpi-2026.11.22.01.33.17-0003.bin" is rank
// 3). It reports false for a name without one.
func RankOf(name string) (int, bool) {
	base := filepath.Base(name)
	base = strings.TrimSuffix(base, filepath.Ext(base))
	i := strings.LastIndexByte(base, '-')
	if i < 0 {
		return 0, false
	}
	digits := base[i+1:]
	if digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	return n, err == nil
}
