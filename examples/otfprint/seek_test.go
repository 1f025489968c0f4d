package main

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"testing"
)

// countFS counts the bytes read from the files it opens.
type countFS struct {
	fsys fs.FS
	n    *int64
}

type countFile struct {
	fs.File
	n *int64
}

func (c countFS) Open(name string) (fs.File, error) {
	f, err := c.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	return &countFile{f, c.n}, nil
}

func (f *countFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	*f.n += int64(n)
	return n, err
}

func (f *countFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.File.(io.ReaderAt).ReadAt(p, off)
	*f.n += int64(n)
	return n, err
}

// TestTimeSeeks checks that --time bisects instead of scanning: printing
// the last 1 % of ring_zlib_blocks reads less than half of what a full
// print reads (the output itself is checked against the goldens).
func TestTimeSeeks(t *testing.T) {
	dir := "../../otf/testdata/ring_zlib_blocks"
	var events int64
	for _, s := range []string{"1", "2", "3"} {
		fi, err := os.Stat(dir + "/ring." + s + ".events.z")
		if err != nil {
			t.Fatal(err)
		}
		events += fi.Size()
	}
	read := func(args ...string) int64 {
		c, err := parseArgs(append(args, "--nodef", "--nomarker", "--nostat", "--nosnap", "ring.otf"))
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		var out bytes.Buffer
		if err := run(c, countFS{os.DirFS(dir), &n}, "ring.otf", &out); err != nil {
			t.Fatal(err)
		}
		return n
	}
	all := read()
	tail := read("--time", "2970001", "3001002")
	if all < events {
		t.Fatalf("a full print read %d bytes; want at least the %d bytes of the event files", all, events)
	}
	// Each of the three 24 KB files has 18 flush blocks, and a compressed
	// jump inflates one block: the seek costs about log2(18)+1 blocks per file.
	if tail > all/2 {
		t.Errorf("--time over the last 1%% read %d bytes, a full print %d; want at most half", tail, all)
	}
	t.Logf("full print: %d bytes read; --time last 1%%: %d bytes", all, tail)
}
