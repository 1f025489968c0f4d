package picl_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hpctrace/hpctrace/picl"
)

// FuzzReader reads arbitrary bytes in lenient and strict mode. It must never
// panic or hang, every accessor must work on every record, and whatever
// parses must write and re-read to an equal stream.
func FuzzReader(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.trf")
	bad, _ := filepath.Glob("testdata/bad/*.txtar")
	for _, name := range append(seeds, bad...) {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		if filepath.Ext(name) == ".txtar" {
			data = parseTxtar(data)["input"]
		}
		f.Add(data)
	}
	f.Add([]byte("-5 1 -1.0 -1 -1 5 0 ab  \r\n-3 1 1e-3 0 0 2 \"%d%s\" 1 \"a b\" +2 c trailing\n"))
	f.Add([]byte("-6 -1 -1 -1 -1 1 \"%d%s\" 0 \"%d\"\n-5 0 0 0 0 2 0 12\n7 1 0 0 0 3 0 x"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// The model adapter must not panic either.
		src := modelSource(t, data)
		for src.Next() {
		}
		for _, strict := range []bool{false, true} {
			r, err := picl.NewReader(bytes.NewReader(data), &picl.ReaderOptions{Strict: strict, MaxLine: 4096})
			if err != nil {
				t.Fatal(err)
			}
			var recs []picl.Record
			for r.Next() {
				rec := r.Record()
				touch(rec)
				recs = append(recs, rec.Clone())
			}
			if err := r.Err(); err != nil {
				if _, ok := err.(*picl.ParseError); !ok {
					t.Fatalf("Err() = %T %v, want *ParseError", err, err)
				}
				_ = err.Error()
			}
			var buf bytes.Buffer
			w, err := picl.NewWriter(&buf, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := range recs {
				if err := w.Write(&recs[i]); err != nil {
					t.Fatalf("strict=%v: Write(record %d %+v): %v", strict, i, recs[i], err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			r2, err := picl.NewReader(bytes.NewReader(buf.Bytes()), &picl.ReaderOptions{Strict: strict})
			if err != nil {
				t.Fatal(err)
			}
			var again []picl.Record
			for r2.Next() {
				again = append(again, r2.Record().Clone())
			}
			if err := r2.Err(); err != nil {
				t.Fatalf("strict=%v: re-reading the written stream: %v\n%s", strict, err, buf.Bytes())
			}
			if equalRecords(recs, again) {
				continue
			}
			if diff := cmp.Diff(recs, again, cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("strict=%v: re-read stream differs (-first +second):\n%s\nwritten:\n%s", strict, diff, buf.Bytes())
			}
		}
	})
}

// touch calls every accessor of a record.
func touch(rec *picl.Record) {
	_ = rec.Type.String() + rec.Event.String() + rec.Flags.String()
	_, _ = rec.Event.Info()
	_ = rec.Event.Category().String()
	_ = rec.Event.FieldName(rec.Type, 0)
	_ = rec.IsHeader()
	_ = rec.PerField()
	for st := range rec.Stats() {
		_ = st.Event.String()
	}
	for i := -1; i <= rec.Count && i < 10; i++ {
		_, _ = rec.Field(i)
	}
	for _, f := range rec.Fields() {
		for _, v := range f {
			_ = v.String() + v.Kind.String()
		}
	}
}

// equalRecords is cmp.Equal with EquateEmpty for record slices, without
// reflection: the fuzzer calls it on every input.
func equalRecords(a, b []picl.Record) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.Type != y.Type || x.Event != y.Event || x.Time != y.Time || !bytes.Equal(x.TimeText, y.TimeText) ||
			x.Processor != y.Processor || x.Process != y.Process || x.Count != y.Count ||
			x.Descriptor != y.Descriptor || x.Control != y.Control || !bytes.Equal(x.Chars, y.Chars) ||
			!bytes.Equal(x.Raw, y.Raw) || x.Flags != y.Flags || len(x.Data) != len(y.Data) {
			return false
		}
		for j := range x.Data {
			v, w := &x.Data[j], &y.Data[j]
			if v.Kind != w.Kind || v.Int != w.Int || v.Float != w.Float || !bytes.Equal(v.Text, w.Text) || v.Quoted != w.Quoted {
				return false
			}
		}
	}
	return true
}
