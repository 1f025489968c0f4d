package otf

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyWithState reads data (a record file of type f) with state records
// and writes it back with them.
func copyWithState(t *testing.T, data []byte, f FileType, long bool) []byte {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data), &ReaderOptions{File: f, StateRecords: true})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	w, err := NewWriter(&out, &WriterOptions{File: f, Long: long, StateRecords: true})
	if err != nil {
		t.Fatal(err)
	}
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
	return out.Bytes()
}

// TestWriterStateRecords copies every events, snapshot and statistics
// file of the fixtures through a Reader and a Writer with StateRecords:
// the copy is byte-identical, with the closing state lines of the
// reference writer and without them (as older writers leave files).
func TestWriterStateRecords(t *testing.T) {
	files, _ := filepath.Glob("testdata/*/*.*")
	n := 0
	for _, path := range files {
		var f FileType
		switch filepath.Ext(path) {
		case ".events":
			f = FileEvents
		case ".snaps":
			f = FileSnaps
		case ".stats":
			f = FileStats
		default:
			continue
		}
		if strings.Contains(path, "reader_tolerance") {
			continue // blanks and forms a writer does not produce
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		long := strings.Contains(path, "_long")
		if got := copyWithState(t, data, f, long); !bytes.Equal(got, data) {
			t.Errorf("%s: copy differs:\n%s\nwant\n%s", path, got, data)
		}
		// Without the closing pair of state lines.
		lines := strings.SplitAfter(string(data), "\n")
		if len(lines) < 3 || !strings.HasPrefix(lines[len(lines)-2], "*") {
			continue
		}
		cut := []byte(strings.Join(lines[:len(lines)-3], ""))
		if got := copyWithState(t, cut, f, long); !bytes.Equal(got, cut) {
			t.Errorf("%s without closing state lines: copy differs:\n%s\nwant\n%s", path, got, cut)
		}
		n++
	}
	if n < 10 {
		t.Fatalf("only %d files checked", n)
	}
	// State lines a writer never repeats are kept too: a process line
	// first, the same time twice.
	in := []byte("*1\n10\nE1\n10\n*1\nL1\n*2\nE2\n")
	if got := copyWithState(t, in, FileEvents, false); !bytes.Equal(got, in) {
		t.Errorf("copy of %q: %q", in, got)
	}
}
