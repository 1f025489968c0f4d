package picl_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hpctrace/hpctrace/picl"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// fixtures returns the names of the testdata traces (without .trf).
func fixtures(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob("testdata/*.trf")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".trf"))
	}
	return names
}

// dumpValue formats one value for golden files: integers bare, floats with
// their text and an "f", strings Go-quoted.
func dumpValue(v picl.Value) string {
	switch v.Kind {
	case picl.KindInt:
		return strconv.FormatInt(v.Int, 10)
	case picl.KindFloat:
		return fmt.Sprintf("%sf(%g)", v.Text, v.Float)
	case picl.KindString:
		if v.Quoted {
			return "q" + strconv.Quote(string(v.Text))
		}
		return strconv.Quote(string(v.Text))
	}
	return "invalid"
}

// dump writes the golden text of a trace: one line per record, then the
// Validate findings.
func dump(t testing.TB, name string, in []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	r, err := picl.NewReader(bytes.NewReader(in), &picl.ReaderOptions{Path: name})
	if err != nil {
		t.Fatal(err)
	}
	var v picl.Validator
	for r.Next() {
		rec := r.Record()
		v.Add(rec)
		fmt.Fprintf(&b, "%d: %d/%v %d/%v time=%s(%g) proc=%d process=%d count=%d",
			r.Line(), rec.Type, rec.Type, rec.Event, rec.Event, rec.TimeText, rec.Time, rec.Processor, rec.Process, rec.Count)
		if rec.Count > 0 {
			fmt.Fprintf(&b, " desc=%s control=%q", rec.Descriptor, rec.Control)
		}
		for i, f := range rec.Fields() {
			if i == 0 {
				b.WriteString(" data=")
			} else {
				b.WriteString(" ")
			}
			b.WriteString("[")
			for j, val := range f {
				if j > 0 {
					b.WriteString(" ")
				}
				b.WriteString(dumpValue(val))
			}
			b.WriteString("]")
		}
		if rec.Chars != nil {
			fmt.Fprintf(&b, " chars=%q", rec.Chars)
		}
		if rec.Flags != 0 {
			fmt.Fprintf(&b, " flags=%v raw=%q", rec.Flags, rec.Raw)
		}
		if rec.IsHeader() {
			b.WriteString(" header")
		}
		b.WriteString("\n")
	}
	if err := r.Err(); err != nil {
		fmt.Fprintf(&b, "error: %v\n", err)
	}
	for _, f := range v.Findings() {
		fmt.Fprintf(&b, "finding: %v\n", f)
	}
	return b.Bytes()
}

// TestGolden checks every fixture's dump against testdata/<name>.golden.
// Regenerate with go test ./picl -run TestGolden -update.
func TestGolden(t *testing.T) {
	for _, name := range fixtures(t) {
		t.Run(name, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join("testdata", name+".trf"))
			if err != nil {
				t.Fatal(err)
			}
			got := dump(t, name, in)
			golden := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("dump of %s (-want +got):\n%s", name, diff)
			}
		})
	}
}

// TestFixtureRoundTrip reads every fixture strictly and writes it back: the
// output must be byte-identical and no record may carry flags.
func TestFixtureRoundTrip(t *testing.T) {
	for _, name := range fixtures(t) {
		t.Run(name, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join("testdata", name+".trf"))
			if err != nil {
				t.Fatal(err)
			}
			r, err := picl.NewReader(bytes.NewReader(in), &picl.ReaderOptions{Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			w, err := picl.NewWriter(&out, nil)
			if err != nil {
				t.Fatal(err)
			}
			for rec, err := range r.All() {
				if err != nil {
					t.Fatal(err)
				}
				if rec.Flags != 0 {
					t.Errorf("line %d: flags %v, want none", r.Line(), rec.Flags)
				}
				if err := w.Write(rec); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(in, out.Bytes()) {
				t.Errorf("written trace differs from the input (-want +got):\n%s", cmp.Diff(string(in), out.String()))
			}
		})
	}
}

// badWant is the expectation of a testdata/bad/*.txtar case.
type badWant struct {
	err    error
	strict bool
	pe     picl.ParseError
}

var sentinels = map[string]error{
	"ErrSyntax":        picl.ErrSyntax,
	"ErrRange":         picl.ErrRange,
	"ErrLimit":         picl.ErrLimit,
	"ErrUnexpectedEOF": io.ErrUnexpectedEOF,
}

func parseBadWant(t *testing.T, text string) badWant {
	t.Helper()
	var w badWant
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			t.Fatalf("bad want line %q", line)
		}
		v = strings.TrimSpace(v)
		var err error
		switch k {
		case "err":
			w.err = sentinels[v]
			if w.err == nil {
				t.Fatalf("unknown sentinel %q", v)
			}
			w.pe.Err = w.err
		case "line":
			w.pe.Line, err = strconv.Atoi(v)
		case "offset":
			w.pe.Offset, err = strconv.ParseInt(v, 10, 64)
		case "record":
			w.pe.Record, err = strconv.ParseInt(v, 10, 64)
		case "strict":
			w.strict, err = strconv.ParseBool(v)
		case "path":
			w.pe.Path = v
		default:
			t.Fatalf("unknown want key %q", k)
		}
		if err != nil {
			t.Fatalf("want line %q: %v", line, err)
		}
	}
	return w
}

// TestBadInputs runs every testdata/bad/*.txtar case: the input must yield
// the complete records before the bad line, then the wanted ParseError.
func TestBadInputs(t *testing.T) {
	files, err := filepath.Glob("testdata/bad/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no bad inputs: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			files := parseTxtar(data)
			input := files["input"]
			want := parseBadWant(t, string(files["want"]))
			if strings.Contains(file, "unterminated") || strings.Contains(file, "truncated") {
				input = bytes.TrimSuffix(input, []byte("\n"))
			}
			r, err := picl.NewReader(bytes.NewReader(input), &picl.ReaderOptions{Path: want.pe.Path, Strict: want.strict, MaxLine: 200})
			if err != nil {
				t.Fatal(err)
			}
			var n int64
			for r.Next() {
				n++
			}
			err = r.Err()
			if !errors.Is(err, want.err) {
				t.Fatalf("Err() = %v, want %v", err, want.err)
			}
			var pe *picl.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Err() = %T, want *picl.ParseError", err)
			}
			if diff := cmp.Diff(want.pe, *pe, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("ParseError (-want +got):\n%s", diff)
			}
			if n != want.pe.Record {
				t.Errorf("%d records before the error, want %d", n, want.pe.Record)
			}
			// Errors are sticky.
			if r.Next() || r.Err() != err {
				t.Errorf("after an error: Next true or Err changed to %v", r.Err())
			}
		})
	}
}

// parseTxtar splits a txtar archive into its files ("-- name --" lines).
func parseTxtar(data []byte) map[string][]byte {
	files := make(map[string][]byte)
	name := ""
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i+1], data[i+1:]
		} else {
			data = nil
		}
		s := strings.TrimSpace(string(line))
		if strings.HasPrefix(s, "-- ") && strings.HasSuffix(s, " --") && len(s) > 6 {
			name = strings.TrimSpace(s[3 : len(s)-3])
			files[name] = []byte{}
			continue
		}
		if name != "" {
			files[name] = append(files[name], line...)
		}
	}
	return files
}

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name+".trf"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}
