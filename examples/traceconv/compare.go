package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hpctrace/hpctrace/internal/zflush"
)

// maxNotes bounds the differences reported for one copy.
const maxNotes = 10

// copyNotes compares a same-format copy with its input and returns one
// line per file that is not byte-identical, saying where and how it
// differs (the first differing line of text files, with both versions;
// the first differing byte of binary ones; files only on one side).
func copyNotes(format, in, out string) []string {
	var ins, outs map[string]string
	switch format {
	case "otf":
		inDir, inStub := otfOutput(in)
		outDir, outStub := otfOutput(out)
		ins, outs = otfFiles(inDir, inStub), otfFiles(outDir, outStub)
	case "otf2":
		ins, outs = otf2Files(in), otf2Files(out)
	default:
		if note := compareFile(in, out, false, false, format == "dumpi"); note != "" {
			return []string{filepath.Base(out) + ": " + note}
		}
		return nil
	}
	// Files that differ in the same way share a note.
	var notes []string
	var order []string
	byNote := map[string][]string{}
	add := func(name, note string) {
		if byNote[note] == nil {
			order = append(order, note)
		}
		byNote[note] = append(byNote[note], name)
	}
	for _, k := range slices.Sorted(keysOf(ins, outs)) {
		a, inOK := ins[k]
		b, outOK := outs[k]
		switch {
		case !outOK:
			add(filepath.Base(a), "not in the copy")
		case !inOK:
			add(filepath.Base(b), "not in the input")
		default:
			za, zb := strings.HasSuffix(a, ".z"), strings.HasSuffix(b, ".z")
			note := compareFile(a, b, za, zb, format == "otf2")
			switch {
			case za && !zb:
				note = "uncompressed in the copy, compressed in the input (-zlib)" + prefixed(note)
			case !za && zb:
				note = "compressed in the copy, uncompressed in the input (-zlib)" + prefixed(note)
			}
			if note != "" {
				add(filepath.Base(b), note)
			}
		}
	}
	for _, note := range order {
		notes = append(notes, strings.Join(byNote[note], ", ")+": "+note)
	}
	if len(notes) > maxNotes {
		notes = append(notes[:maxNotes], fmt.Sprintf("... and %d more differences", len(notes)-maxNotes))
	}
	return notes
}

func prefixed(note string) string {
	if note == "" {
		return "; same text"
	}
	return "; " + note
}

// keysOf returns the keys of both maps.
func keysOf(a, b map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range a {
			if !yield(k) {
				return
			}
		}
		for k := range b {
			if _, ok := a[k]; !ok && !yield(k) {
				return
			}
		}
	}
}

// otfFiles returns the files of the OTF trace stub in dir by their name
// after the stub, without ".z" (".otf", ".0.def", ".thumb", ...).
func otfFiles(dir, stub string) map[string]string {
	owned := otfOwned(stub)
	ents, _ := os.ReadDir(dir)
	m := map[string]string{}
	for _, e := range ents {
		if owned(e.Name()) {
			m[strings.TrimSuffix(strings.TrimPrefix(e.Name(), stub), ".z")] = filepath.Join(dir, e.Name())
		}
	}
	return m
}

// compareFile compares the files a and b (as text inflated where za, zb
// say they are compressed) and returns "" when they are byte-identical,
// otherwise where they differ.
func compareFile(a, b string, za, zb, binary bool) string {
	if za && zb {
		note, err := compareFiles(a, b, false, false, true)
		if err != nil {
			return err.Error()
		}
		if note == "" {
			return ""
		}
	}
	note, err := compareFiles(a, b, za, zb, binary)
	if err != nil {
		return err.Error()
	}
	if note == "" && za && zb {
		return "the same text, compressed differently (the copy's zlib blocks hold -zlib-block bytes of text each, deflated by Go, not by zlib)"
	}
	return note
}

// compareFiles opens a and b, inflating them where za and zb say, and
// compares them.
func compareFiles(a, b string, za, zb, binary bool) (string, error) {
	ra, err := openText(a, za)
	if err != nil {
		return "", err
	}
	defer ra.Close()
	rb, err := openText(b, zb)
	if err != nil {
		return "", err
	}
	defer rb.Close()
	return compareReaders(ra, rb, binary)
}

type readCloser struct {
	io.Reader
	io.Closer
}

// openText opens path, inflating it if z.
func openText(path string, z bool) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil || !z {
		return f, err
	}
	zr, err := zflush.NewReader(bufio.NewReader(f))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return readCloser{zr, f}, nil
}

// compareReaders compares the input a with the copy b. For text it names
// the first differing line and shows both versions of it (at most 100
// bytes each); for binary data the first differing byte.
func compareReaders(a, b io.Reader, binary bool) (string, error) {
	const chunk = 64 << 10
	ba, bb := make([]byte, chunk), make([]byte, chunk)
	var off int64    // bytes compared equal
	line := int64(1) // line of off
	var head []byte  // the start of line, at most 100 bytes
	for {
		na, ea := io.ReadFull(a, ba)
		nb, eb := io.ReadFull(b, bb)
		for _, e := range []error{ea, eb} {
			if e != nil && e != io.EOF && e != io.ErrUnexpectedEOF {
				return "", e
			}
		}
		n := min(na, nb)
		i := 0
		for i < n && ba[i] == bb[i] {
			i++
		}
		if i == n && na == nb {
			if na < chunk {
				return "", nil // both ended
			}
			line += int64(bytes.Count(ba[:na], []byte("\n")))
			head = lineHead(head, ba[:na])
			off += int64(na)
			continue
		}
		line += int64(bytes.Count(ba[:i], []byte("\n")))
		head = lineHead(head, ba[:i])
		at := off + int64(i)
		if binary {
			if i == n {
				if na < nb {
					return fmt.Sprintf("the copy is longer: the input ends at byte %d", at), nil
				}
				return fmt.Sprintf("the copy is shorter: it ends at byte %d", at), nil
			}
			return fmt.Sprintf("first difference at byte %d: input %#02x, copy %#02x", at, ba[i], bb[i]), nil
		}
		ta, tb := lineTail(head, ba[i:na]), lineTail(head, bb[i:nb])
		switch {
		case i == na:
			return fmt.Sprintf("the copy has more text from line %d: %q", line, tb), nil
		case i == nb:
			return fmt.Sprintf("the copy ends at line %d; the input goes on: %q", line, ta), nil
		}
		return fmt.Sprintf("line %d: input %q, copy %q", line, ta, tb), nil
	}
}

// lineHead returns the start of the last line of b, following head if b
// holds no line feed, at most 100 bytes.
func lineHead(head, b []byte) []byte {
	if j := bytes.LastIndexByte(b, '\n'); j >= 0 {
		head, b = head[:0], b[j+1:]
	}
	if room := 100 - len(head); room > 0 {
		head = append(head, b[:min(len(b), room)]...)
	}
	return head
}

// lineTail returns head followed by rest up to its line feed, at most 100
// bytes.
func lineTail(head, rest []byte) string {
	if j := bytes.IndexByte(rest, '\n'); j >= 0 {
		rest = rest[:j+1]
	}
	s := string(head) + string(rest)
	if len(s) > 100 {
		s = s[:100] + "..."
	}
	return s
}
