package zflush

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"
)

func compress(t testing.TB, text []byte, block int, chunk int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, 6, block)
	if err != nil {
		t.Fatal(err)
	}
	for len(text) > 0 {
		n := min(chunk, len(text))
		if _, err := w.Write(text[:n]); err != nil {
			t.Fatal(err)
		}
		text = text[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestRoundTrip(t *testing.T) {
	text := bytes.Repeat([]byte("E1X32\nS3L400T2aC3e8\n4bf\n*1\n"), 5000)
	for _, block := range []int{1, 100, 4096, 1 << 20} {
		z := compress(t, text, block, 37)
		if z[0] != 0x78 || z[1] != 0x9c {
			t.Errorf("header %x", z[:2])
		}
		if !bytes.HasSuffix(z, Marker[:]) {
			t.Errorf("block %d: stream does not end with a flush marker", block)
		}
		r, err := NewReader(bytes.NewReader(z))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if err != nil {
			t.Fatalf("block %d: %v", block, err)
		}
		if !bytes.Equal(got, text) {
			t.Fatalf("block %d: round trip differs", block)
		}
		// Every block starts with an empty dictionary: decoding from the
		// data after any marker works.
		if block == 4096 {
			i := bytes.Index(z[100:], Marker[:]) + 100 + 4
			r.ResetRaw(bytes.NewReader(z[i:]))
			tail, err := io.ReadAll(r)
			if err != nil || !bytes.HasSuffix(text, tail) || len(tail) == 0 {
				t.Fatalf("raw restart: %d bytes, %v", len(tail), err)
			}
		}
		// The standard library reports the unterminated stream as truncated.
		zr, err := zlib.NewReader(bytes.NewReader(z))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadAll(zr); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("compress/zlib: got %v, want io.ErrUnexpectedEOF", err)
		}
	}
}

func TestTruncatedAndBad(t *testing.T) {
	z := compress(t, bytes.Repeat([]byte("abcdefgh\n"), 3000), 1000, 1000)
	for cut := 1; cut < 40; cut++ {
		r, err := NewReader(bytes.NewReader(z[:len(z)-cut]))
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.ReadAll(r)
		if bytes.HasSuffix(z[:len(z)-cut], Marker[:]) {
			// A cut right after a flush marker is a clean end: the
			// reference writer's streams end that way.
			if err != nil {
				t.Errorf("cut %d at a block end: %v", cut, err)
			}
		} else if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("cut %d: got %v, want io.ErrUnexpectedEOF", cut, err)
		}
	}
	// The same with a source that returns one byte per Read, so that the
	// decoder sees the flush marker arrive piecewise.
	for cut := 0; cut < 12; cut++ {
		r, err := NewReader(iotest.OneByteReader(bytes.NewReader(z[:len(z)-cut])))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		clean := bytes.HasSuffix(z[:len(z)-cut], Marker[:])
		if clean && err != nil || !clean && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("one-byte reads, cut %d: %d bytes, %v", cut, len(got), err)
		}
		if clean && r.InputOffset() != int64(len(z)-cut) {
			t.Errorf("one-byte reads, cut %d: InputOffset %d of %d", cut, r.InputOffset(), len(z)-cut)
		}
	}
	if _, err := NewReader(bytes.NewReader([]byte("1\n*1\n"))); !errors.Is(err, ErrHeader) {
		t.Errorf("plain text: got %v", err)
	}
	if _, err := NewReader(bytes.NewReader(nil)); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("empty: got %v", err)
	}
	// A finished stream reads too.
	var buf bytes.Buffer
	zw := zlib.NewWriter(&buf)
	zw.Write([]byte("hello\n"))
	zw.Close()
	finished := buf.Bytes()
	r, _ := NewReader(bytes.NewReader(finished))
	if got, err := io.ReadAll(r); err != nil || string(got) != "hello\n" {
		t.Errorf("finished stream: %q %v", got, err)
	}
	// Without its trailer too; but nothing may follow the trailer, even
	// when it arrives one byte per Read.
	for _, tc := range []struct {
		data []byte
		err  error
	}{
		{finished[:len(finished)-4], nil},
		{append(bytes.Clone(finished), 0), ErrTrailing},
		{append(bytes.Clone(finished), Marker[:]...), ErrTrailing},
		{append(bytes.Clone(finished[:len(finished)-4]), "12345"...), ErrTrailing},
	} {
		for _, src := range []io.Reader{bytes.NewReader(tc.data), iotest.OneByteReader(bytes.NewReader(tc.data))} {
			r, _ := NewReader(src)
			got, err := io.ReadAll(r)
			if err != tc.err || string(got) != "hello\n" {
				t.Errorf("%d bytes after the final block's end: %q, %v; want %v", len(tc.data)-len(finished)+4, got, err, tc.err)
			}
		}
	}
}

// TestReferenceFiles inflates the reference writer's compressed fixtures.
func TestReferenceFiles(t *testing.T) {
	files, _ := filepath.Glob("../../otf/testdata/*/*.z")
	if len(files) < 10 {
		t.Fatalf("found %d .z fixtures", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		text, err := io.ReadAll(r)
		if err != nil || len(text) == 0 || text[len(text)-1] != '\n' {
			t.Errorf("%s: %d bytes, %v", f, len(text), err)
		}
		if r.InputOffset() != int64(len(data)) {
			t.Errorf("%s: consumed %d of %d bytes", f, r.InputOffset(), len(data))
		}
	}
}

func FuzzReader(f *testing.F) {
	files, _ := filepath.Glob("../../otf/testdata/all_records_zlib_smallbuf/*.z")
	for _, file := range files {
		data, _ := os.ReadFile(file)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			return
		}
		buf := make([]byte, 4096)
		total := 0
		for {
			n, err := r.Read(buf)
			total += n
			if err != nil || total > 64<<20 {
				break
			}
		}
	})
}

// TestReaderAllocs pins that a Reader allocates nothing after its first
// Reset, over a stream of many dynamic blocks, and after ResetRaw.
func TestReaderAllocs(t *testing.T) {
	var text []byte
	for i := range 60_000 {
		text = fmt.Appendf(text, "%x\n*%x\nE%x\nCC1 %x\n", 1000+i*37, i%8+1, i%5+2, i*1234567)
	}
	z := compress(t, text, 16<<10, 1000)
	src := bytes.NewReader(z)
	var r Reader
	buf := make([]byte, 64<<10)
	read := func() {
		src.Reset(z)
		if err := r.Reset(src); err != nil {
			t.Fatal(err)
		}
		n := 0
		for {
			k, err := r.Read(buf)
			n += k
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if n != len(text) {
			t.Fatalf("read %d bytes of %d", n, len(text))
		}
		i := bytes.Index(z[len(z)/2:], Marker[:]) + len(z)/2 + 4
		src.Reset(z[i:])
		r.ResetRaw(src)
		if _, err := r.Read(buf); err != nil {
			t.Fatal(err)
		}
	}
	read()
	if n := testing.AllocsPerRun(5, read); n != 0 {
		t.Errorf("%v allocations per stream, want 0", n)
	}
}
