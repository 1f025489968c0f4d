package dumpi

import (
	"errors"
	"io"
	"os"
	"path/filepath"
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

// TestBadInput runs every testdata/bad/*.txtar: the input is assembled
// from its text description, written to a file and opened; the stage named
// in want must fail with a ParseError carrying the path, offset and record
// index, after the given number of complete calls.
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
			want := parseWant(t, ar["want"])
			path := filepath.Join(t.TempDir(), "rank.bin")
			if err := os.WriteFile(path, input, 0o644); err != nil {
				t.Fatal(err)
			}
			sentinel, ok := sentinels[want["err"]]
			if !ok {
				t.Fatalf("unknown sentinel %q", want["err"])
			}
			stage := want["stage"]
			calls := int64(0)
			f, err := Open(path, nil)
			if err == nil {
				defer f.Close()
				switch stage {
				case "open":
					t.Fatal("Open succeeded; want an error")
				case "header":
					_, err = f.Header()
				case "footer":
					_, err = f.Footer()
				case "sizes":
					_, err = f.DatatypeSizes()
				case "calls":
					r := f.Calls()
					for r.Next() {
						calls++
					}
					err = r.Err()
					if r.Next() || r.Err() != err {
						t.Error("error is not sticky")
					}
				default:
					t.Fatalf("unknown stage %q", stage)
				}
			} else if stage != "open" {
				t.Fatalf("Open: %v; want success", err)
			}
			if !errors.Is(err, sentinel) {
				t.Fatalf("got error %v, want %v", err, sentinel)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("got %T, want *ParseError", err)
			}
			wantPE := ParseError{Path: path, Err: sentinel}
			if s, ok := want["offset"]; ok {
				wantPE.Offset = atoi64(t, s)
			}
			if s, ok := want["record"]; ok {
				wantPE.Record = atoi64(t, s)
			}
			if diff := cmp.Diff(wantPE, *pe, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("ParseError (-want +got):\n%s", diff)
			}
			if s, ok := want["calls"]; ok && calls != atoi64(t, s) {
				t.Errorf("got %d complete calls before the error, want %s", calls, s)
			}
			if !strings.HasPrefix(err.Error(), "dumpi: ") {
				t.Errorf("message %q lacks the package prefix", err)
			}
		})
	}
}
