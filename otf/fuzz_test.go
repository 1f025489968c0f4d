package otf

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzReader reads arbitrary input as each type of record file, calls
// every accessor, and re-writes what parsed: the re-read stream must be
// equal.
func FuzzReader(f *testing.F) {
	for _, file := range recordFiles(f) {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		if bytes.HasSuffix([]byte(file), []byte(".z")) {
			continue // the same text as the plain fixtures
		}
		if len(data) > 4096 {
			data = data[:4096]
		}
		for ft := FileDef; ft <= FileMarker; ft++ {
			if bytes.Contains([]byte(file), []byte("."+ft.String())) {
				f.Add(byte(ft-1), data)
			}
		}
	}
	f.Add(byte(FileEvents), []byte("1\n*1\nK1YbV00L3\nK1YbV0000L2\nE1\nL X5\nTS1O2G3T4X5\n"))
	f.Fuzz(func(t *testing.T, ft byte, data []byte) {
		file := FileType(ft%5 + 1)
		opts := &ReaderOptions{File: file, MaxLine: 4096}
		r, err := NewReader(bytes.NewReader(data), opts)
		if err != nil {
			t.Fatal(err)
		}
		var recs []*Record
		for r.Next() {
			rec := r.Record()
			_ = rec.String()
			_ = rec.KeyValues()
			for _, kv := range rec.KeyValues() {
				_, _ = kv.Int(), kv.Float()
			}
			recs = append(recs, canon(rec))
		}
		if len(recs) > len(data) {
			t.Fatalf("%d records from %d bytes", len(recs), len(data))
		}
		var buf bytes.Buffer
		w, _ := NewWriter(&buf, &WriterOptions{File: file, Long: len(data)%2 == 0})
		for _, rec := range recs {
			if err := w.Write(rec); err != nil {
				if errors.Is(err, ErrTimeOrder) {
					return // the reader accepts decreasing times, the writer does not
				}
				t.Fatalf("re-write %v: %v", rec, err)
			}
		}
		w.Close()
		again := readAll(t, buf.Bytes(), &ReaderOptions{File: file})
		if len(recs) == 0 {
			recs = nil
		}
		if diff := cmp.Diff(recs, again, cmpRecord); diff != "" {
			t.Fatalf("re-read differs (-first +second):\n%s\n%q", diff, buf.Bytes())
		}
	})
}

// FuzzZlib inflates arbitrary input through the reader's zlib path.
func FuzzZlib(f *testing.F) {
	for _, file := range recordFiles(f) {
		if bytes.HasSuffix([]byte(file), []byte(".z")) {
			data, _ := os.ReadFile(file)
			f.Add(data)
			f.Add(data[:len(data)/2])
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data), &ReaderOptions{File: FileEvents, Zlib: true, MaxLine: 4096})
		if err != nil {
			return
		}
		n := 0
		for r.Next() {
			n++
		}
		if n > 0 && len(data) == 0 {
			t.Fatal("records from nothing")
		}
	})
}
