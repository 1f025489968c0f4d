package otf

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace/internal/zflush"
	"pgregory.net/rapid"
)

func inflate(t testing.TB, data []byte) []byte {
	t.Helper()
	z, err := zflush.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// canon returns a comparable copy of rec: positions cleared, empty lists
// and key-value lists nil.
func canon(rec *Record) *Record {
	c := rec.Clone()
	c.Offset, c.Line = 0, 0
	if len(c.list) == 0 {
		c.list = nil
	}
	if len(c.kvs) == 0 {
		c.kvs = nil
	}
	for i := range c.kvs {
		if c.kvs[i].Type == TypeByteArray && c.kvs[i].Bytes == nil {
			c.kvs[i].Bytes = []byte{}
		}
	}
	return c
}

var cmpRecord = cmp.AllowUnexported(Record{})

func readAll(t rapid.TB, data []byte, opts *ReaderOptions) []*Record {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data), opts)
	if err != nil {
		t.Fatal(err)
	}
	var recs []*Record
	for rec, err := range r.All() {
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		recs = append(recs, canon(rec))
	}
	return recs
}

func writeAll(t rapid.TB, recs []*Record, opts *WriterOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i, rec := range recs {
		if err := w.Write(rec); err != nil {
			t.Fatalf("write record %d: %v", i, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if len(recs) > 0 {
		if err := w.Write(recs[0]); !errors.Is(err, ErrClosed) {
			t.Fatalf("Write after Close: got %v, want ErrClosed", err)
		}
	}
	return buf.Bytes()
}

func propRoundTrip(t *rapid.T) {
	f, stream, want := genFile(t)
	if len(want) == 0 {
		return
	}
	wo := &WriterOptions{
		Long:          rapid.Bool().Draw(t, "long"),
		Zlib:          rapid.Bool().Draw(t, "zlib"),
		ZlibBlockSize: rapid.IntRange(1, 2000).Draw(t, "block"),
	}
	data := writeAll(t, want, wo)
	got := readAll(t, data, &ReaderOptions{File: f, Stream: stream, Zlib: wo.Zlib, Strict: true})
	for i := range want {
		want[i] = canon(want[i])
	}
	if diff := cmp.Diff(want, got, cmpRecord); diff != "" {
		t.Fatalf("round trip (-want +got):\n%s\n%s", diff, data)
	}
}

func TestRoundTrip(t *testing.T) { rapid.Check(t, propRoundTrip) }

func FuzzRoundTrip(f *testing.F) { f.Fuzz(rapid.MakeFuzz(propRoundTrip)) }

// recordFiles lists the record files of the fixtures (not goldens, not
// master files).
func recordFiles(t testing.TB) []string {
	var out []string
	files, err := filepath.Glob("testdata/*/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		base := strings.TrimSuffix(filepath.Base(f), ".z")
		for ft := FileDef; ft <= FileMarker; ft++ {
			if strings.HasSuffix(base, "."+ft.String()) {
				out = append(out, f)
			}
		}
	}
	return out
}

// TestFixturesRewrite reads every reference record file and writes it back
// in the same form: plain files are byte-identical, compressed ones give
// the same text.
func TestFixturesRewrite(t *testing.T) {
	files := recordFiles(t)
	if len(files) < 60 {
		t.Fatalf("found %d fixture files", len(files))
	}
	for _, f := range files {
		if strings.Contains(f, "reader_tolerance") {
			continue // edited by hand, not writer output
		}
		t.Run(f, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			z := strings.HasSuffix(f, ".z")
			r, err := NewReader(bytes.NewReader(data), &ReaderOptions{Path: filepath.Base(f), Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			w, _ := NewWriter(&out, &WriterOptions{Long: strings.Contains(f, "_long"), Zlib: z, ZlibBlockSize: 512})
			for rec, err := range r.All() {
				if err != nil {
					t.Fatal(err)
				}
				if err := w.Write(rec); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			want, got := data, out.Bytes()
			if z {
				want, got = inflate(t, want), inflate(t, got)
			}
			if !bytes.Equal(want, got) {
				t.Errorf("rewritten file differs (-reference +ours):\n%s", cmp.Diff(string(want), string(got)))
			}
		})
	}
}
