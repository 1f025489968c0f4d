package eventjson_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/hpctrace/hpctrace/eventjson"
)

// countedFile counts its Close calls in *n.
type countedFile struct {
	fs.File
	n *int
}

func (f countedFile) Close() error { *f.n++; return f.File.Close() }

const openDoc = `{"format":"trace-events-json/1","ticks_per_second":10,"locations":[{"id":3,"name":"a"}],"events":[{"t":1,"loc":3,"kind":"marker","text":"x"}]}`

// TestOpenFSOwnsFile: a Reader from OpenFS closes the file it opened, once;
// one that fails to read the header closes it before returning; a Path left
// empty is the file's name.
func TestOpenFSOwnsFile(t *testing.T) {
	closed := map[string]*int{}
	fsys := fsFunc(func(name string) (fs.File, error) {
		f, err := fstest.MapFS{
			"t.json":   {Data: []byte(openDoc)},
			"bad.json": {Data: []byte(`{"format":"chrome"}`)},
		}.Open(name)
		if err != nil {
			return nil, err
		}
		n := new(int)
		closed[name] = n
		return countedFile{f, n}, nil
	})

	r, err := eventjson.OpenFS(fsys, "t.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 1 || r.Defs().TimeBase.TicksPerSecond != 10 {
		t.Errorf("got %d events at %d ticks/s, want 1 at 10", n, r.Defs().TimeBase.TicksPerSecond)
	}
	if *closed["t.json"] != 0 {
		t.Fatalf("file closed %d times before Close", *closed["t.json"])
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("second Close: %v, want nil", err)
	}
	if got := *closed["t.json"]; got != 1 {
		t.Errorf("file closed %d times, want 1", got)
	}
	if r.Next() {
		t.Error("Next after Close returned true")
	}

	_, err = eventjson.OpenFS(fsys, "bad.json", nil)
	var pe *eventjson.ParseError
	if !errors.Is(err, eventjson.ErrFormat) || !errors.As(err, &pe) || pe.Path != "bad.json" {
		t.Errorf("OpenFS(bad.json) = %v; want an ErrFormat ParseError with Path bad.json", err)
	}
	if got := *closed["bad.json"]; got != 1 {
		t.Errorf("bad.json closed %d times, want 1", got)
	}

	_, err = eventjson.OpenFS(fsys, "bad.json", &eventjson.ReaderOptions{Path: "given"})
	if !errors.As(err, &pe) || pe.Path != "given" {
		t.Errorf("OpenFS with Path: %v; want Path \"given\"", err)
	}
	if _, err := eventjson.OpenFS(fsys, "missing.json", nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenFS(missing) = %v, want fs.ErrNotExist", err)
	}
	if _, err := eventjson.OpenFS(nil, "t.json", nil); err == nil {
		t.Error("OpenFS(nil fs) succeeded")
	}
}

type fsFunc func(string) (fs.File, error)

func (f fsFunc) Open(name string) (fs.File, error) { return f(name) }

// TestOpen reads a file of the operating system and closes it.
func TestOpen(t *testing.T) {
	name := filepath.Join(t.TempDir(), "t.json")
	if err := os.WriteFile(name, []byte(openDoc), 0o666); err != nil {
		t.Fatal(err)
	}
	r, err := eventjson.Open(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Next() || r.Next() || r.Err() != nil {
		t.Fatalf("want one event and a clean end; err %v", r.Err())
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := eventjson.Open(filepath.Join(t.TempDir(), "none.json"), nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open(missing) = %v, want fs.ErrNotExist", err)
	}
}

// TestNewReaderClosesNothing: Close of a Reader from NewReader leaves the
// caller's reader open.
func TestNewReaderClosesNothing(t *testing.T) {
	name := filepath.Join(t.TempDir(), "t.json")
	if err := os.WriteFile(name, []byte(openDoc), 0o666); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := eventjson.NewReader(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Seek(0, 0); err != nil {
		t.Errorf("the caller's file was closed: %v", err)
	}
}
