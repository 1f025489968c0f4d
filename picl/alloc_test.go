package picl_test

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/hpctrace/hpctrace/picl"
)

// endless is an io.Reader that repeats data forever.
type endless struct {
	data []byte
	off  int
}

func (e *endless) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], e.data[e.off:])
		n += c
		e.off = (e.off + c) % len(e.data)
	}
	return n, nil
}

// steadyStream is a mix of every record shape without definitions: event
// records, statistics with quoted descriptors, labels, user records with
// strings and floats.
func steadyStream(t testing.TB) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, name := range []string{"ring4", "labels_messages", "user_records", "fileio"} {
		data, err := os.ReadFile("testdata/" + name + ".trf")
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	}
	return b.Bytes()
}

func newEndlessReader(t testing.TB) *picl.Reader {
	t.Helper()
	r, err := picl.NewReader(&endless{data: steadyStream(t)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Warm up: grow the value buffer and fill the descriptor caches.
	for range 1000 {
		if !r.Next() {
			t.Fatalf("Next: %v", r.Err())
		}
	}
	return r
}

func TestNextAllocs(t *testing.T) {
	r := newEndlessReader(t)
	if n := testing.AllocsPerRun(10000, func() {
		if !r.Next() {
			t.Fatalf("Next: %v", r.Err())
		}
	}); n != 0 {
		t.Fatalf("Next allocates %.2f times per record; want 0", n)
	}
}

func TestAllAllocs(t *testing.T) {
	r := newEndlessReader(t)
	if n := testing.AllocsPerRun(100, func() {
		i := 0
		for _, err := range r.All() {
			if err != nil {
				t.Fatal(err)
			}
			if i++; i == 1000 {
				break
			}
		}
	}); n > 1 {
		t.Fatalf("1000 records through All allocate %.2f times; want at most 1 (the iterator)", n)
	}
}

func TestWriteAllocs(t *testing.T) {
	recs := readAll(t, steadyStream(t), nil)
	w, err := picl.NewWriter(io.Discard, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs { // warm up the buffers
		if err := w.Write(&recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	i := 0
	if n := testing.AllocsPerRun(10000, func() {
		if err := w.Write(&recs[i%len(recs)]); err != nil {
			t.Fatal(err)
		}
		i++
	}); n != 0 {
		t.Fatalf("Write allocates %.2f times per record; want 0", n)
	}
}
