package otf2

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var sentinels = map[string]error{
	"ErrFormat":        ErrFormat,
	"ErrVersion":       ErrVersion,
	"ErrSyntax":        ErrSyntax,
	"ErrRange":         ErrRange,
	"ErrUnexpectedEOF": io.ErrUnexpectedEOF,
}

// txtar splits an archive into its sections.
func txtar(s string) map[string]string {
	out := map[string]string{}
	name := ""
	for _, line := range strings.SplitAfter(s, "\n") {
		if strings.HasPrefix(line, "-- ") && strings.HasSuffix(strings.TrimSpace(line), " --") {
			name = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(line), "-- "), " --")
			continue
		}
		if name != "" {
			out[name] += line
		}
	}
	return out
}

// assemble turns the text form of a binary file into bytes: lines
// "hex 03 42", "u64 1000" (little-endian), "str text" (NUL-terminated) and
// "# comments".
func assemble(t *testing.T, text string) []byte {
	var b []byte
	for n, line := range strings.Split(text, "\n") {
		op, arg, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch op {
		case "", "#":
		case "hex":
			h, err := hex.DecodeString(strings.ReplaceAll(arg, " ", ""))
			if err != nil {
				t.Fatalf("line %d: %v", n+1, err)
			}
			b = append(b, h...)
		case "u64":
			v, err := strconv.ParseUint(arg, 0, 64)
			if err != nil {
				t.Fatalf("line %d: %v", n+1, err)
			}
			b = binary.LittleEndian.AppendUint64(b, v)
		case "str":
			b = append(append(b, arg...), 0)
		default:
			t.Fatalf("line %d: unknown %q", n+1, op)
		}
	}
	return b
}

// TestBadInput runs every testdata/bad/*.txtar: the input is read as the
// file kind named in want, which must fail with a ParseError carrying the
// offset and record index after the given number of complete records.
func TestBadInput(t *testing.T) {
	files, err := filepath.Glob("testdata/bad/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no bad inputs: %v", err)
	}
	for _, name := range files {
		t.Run(filepath.Base(name), func(t *testing.T) {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			ar := txtar(string(data))
			input := assemble(t, ar["input"])
			want := map[string]string{}
			for _, l := range strings.Split(ar["want"], "\n") {
				if k, v, ok := strings.Cut(l, " "); ok {
					want[k] = v
				}
			}
			num := func(k string) int64 {
				v, err := strconv.ParseInt(want[k], 0, 64)
				if err != nil {
					t.Fatalf("want %s: %v", k, err)
				}
				return v
			}
			sentinel, ok := sentinels[want["err"]]
			if !ok {
				t.Fatalf("unknown sentinel %q", want["err"])
			}
			var n int64
			const path = "x"
			switch want["file"] {
			case "evt":
				r, _ := NewEventReader(bytes.NewReader(input), &EventReaderOptions{Path: path})
				for r.Next() {
					n++
				}
				err = r.Err()
				if r.Next() || r.Err() != err {
					t.Error("error is not sticky")
				}
			case "def", "local":
				file := GlobalDefFile
				if want["file"] == "local" {
					file = LocalDefFile
				}
				r, _ := NewDefReader(bytes.NewReader(input), &DefReaderOptions{Path: path, File: file})
				for r.Next() {
					n++
				}
				err = r.Err()
			case "anchor":
				_, err = ReadAnchor(bytes.NewReader(input), path)
			default:
				t.Fatalf("unknown file kind %q", want["file"])
			}
			if !errors.Is(err, sentinel) {
				t.Fatalf("got error %v, want %v", err, sentinel)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("got %T, want a *ParseError", err)
			}
			wantPE := ParseError{Path: path, Offset: num("offset"), Record: num("record"), Err: sentinel}
			if diff := cmp.Diff(wantPE, *pe, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("ParseError (-want +got):\n%s", diff)
			}
			if n != num("records") {
				t.Errorf("%d complete records before the error, want %s", n, want["records"])
			}
		})
	}
}
