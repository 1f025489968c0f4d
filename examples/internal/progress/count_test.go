package progress

import (
	"bytes"
	"io"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// TestReaderInactive checks that an inactive Meter leaves a reader and a
// file system as they are and writes nothing.
func TestReaderInactive(t *testing.T) {
	var buf bytes.Buffer
	m := New(&buf, "x", "bytes")
	clock := time.Unix(0, 0)
	m.now = func() time.Time { clock = clock.Add(5 * time.Second); return clock }
	r := strings.NewReader("abc")
	if got := m.Reader(r); got != io.Reader(r) {
		t.Errorf("Reader wrapped %T in %T", r, got)
	}
	fsys := fstest.MapFS{"f": {Data: []byte("abc")}}
	if got, ok := m.FS(fsys).(fstest.MapFS); !ok || got == nil {
		t.Errorf("FS wrapped the file system: %T", m.FS(fsys))
	}
	if _, err := fs.ReadFile(m.FS(fsys), "f"); err != nil {
		t.Fatal(err)
	}
	m.Done(m.Count())
	if buf.Len() != 0 || m.Count() != 0 {
		t.Errorf("wrote %q, counted %d", buf.String(), m.Count())
	}
}

// TestReaderCounts checks the counts of an active Meter's readers and
// files, and that it reports them.
func TestReaderCounts(t *testing.T) {
	var buf bytes.Buffer
	m := New(&buf, "x", "bytes")
	m.tty = true
	clock := m.start
	m.now = func() time.Time { clock = clock.Add(600 * time.Millisecond); return clock }
	m.SetTotal(10)
	if _, err := io.Copy(io.Discard, m.Reader(strings.NewReader("abcd"))); err != nil {
		t.Fatal(err)
	}
	if m.Count() != 4 {
		t.Fatalf("Count = %d after a reader of 4 bytes", m.Count())
	}
	fsys := m.FS(fstest.MapFS{"d/f": {Data: []byte("efghij")}})
	f, err := fsys.Open("d/f")
	if err != nil {
		t.Fatal(err)
	}
	ra, ok := f.(io.ReaderAt)
	if !ok {
		t.Fatalf("%T lost io.ReaderAt", f)
	}
	var b [2]byte
	if _, err := ra.ReadAt(b[:], 4); err != nil || string(b[:]) != "ij" {
		t.Fatalf("ReadAt = %q, %v", b[:], err)
	}
	if data, err := io.ReadAll(f); err != nil || string(data) != "efghij" {
		t.Fatalf("Read = %q, %v", data, err)
	}
	f.Close()
	if m.Count() != 12 {
		t.Errorf("Count = %d, want 12", m.Count())
	}
	if _, err := fs.ReadDir(fsys, "d"); err != nil {
		t.Errorf("ReadDir: %v", err)
	}
	m.Done(m.Count())
	if !strings.Contains(buf.String(), "of 10 bytes") || !strings.Contains(buf.String(), "\rx: 12 bytes in ") {
		t.Errorf("output %q", buf.String())
	}
}
