package dumpi

import (
	"errors"
	"io/fs"
	"os"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// TestOpenRunFS: a run opened through an fs.FS reads the calls of the run
// opened by path.
func TestOpenRunFS(t *testing.T) {
	const meta = "testdata/p2p_blocking/dumpi-2026.11.22.01.32.56.meta"
	byPath, err := OpenRun(meta, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer byPath.Close()
	byFS, err := OpenRunFS(os.DirFS("."), meta, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer byFS.Close()
	calls := func(r *Run) []string {
		var out []string
		for c, err := range r.Calls().All() {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, c.Label.String())
		}
		return out
	}
	want := calls(byPath)
	if len(want) == 0 {
		t.Fatal("no calls")
	}
	if diff := cmp.Diff(want, calls(byFS)); diff != "" {
		t.Errorf("OpenRunFS differs from OpenRun (-want +got):\n%s", diff)
	}
}

func TestOpenFSErrors(t *testing.T) {
	m := fstest.MapFS{
		"bad.bin":  {Data: []byte("not a dumpi file at all, but long enough")},
		"run.meta": {Data: []byte("hostname=h\nnumprocs=1\nusername=u\nstartime=1\nfileprefix=../x\nversion=1\nsubversion=0\nsubsubversion=0\n")},
	}
	_, err := OpenFS(m, "bad.bin", nil)
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Path != "bad.bin" {
		t.Errorf("OpenFS of a bad file: %v; want a ParseError naming bad.bin", err)
	}
	if _, err := OpenFS(m, "missing.bin", nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenFS of a missing file: %v; want fs.ErrNotExist", err)
	}
	if _, err := OpenRunFS(m, "run.meta", nil); !errors.Is(err, ErrRange) {
		t.Errorf("OpenRunFS with a prefix outside the directory: %v; want ErrRange", err)
	}
}
