package eventjson

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"os"
)

// Open opens the document in the file name and reads its header, as
// [NewReader] does; the Reader reads the file through a 64 KiB buffer and
// its Close closes the file. opts may be nil; a Path left empty is name.
func Open(name string, opts *ReaderOptions) (*Reader, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	return newFileReader(f, name, opts)
}

// OpenFS is [Open] for the file name of fsys (os.DirFS, embed.FS,
// fstest.MapFS, …).
func OpenFS(fsys fs.FS, name string, opts *ReaderOptions) (*Reader, error) {
	if fsys == nil {
		return nil, errors.New("eventjson: OpenFS: nil fs.FS")
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	return newFileReader(f, name, opts)
}

// newFileReader returns a Reader of the file f, which it owns: closed
// here on error, else by the Reader's Close.
func newFileReader(f io.ReadCloser, name string, opts *ReaderOptions) (*Reader, error) {
	var o ReaderOptions
	if opts != nil {
		o = *opts
	}
	if o.Path == "" {
		o.Path = name
	}
	r, err := NewReader(bufio.NewReaderSize(f, 1<<16), &o)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = f
	return r, nil
}
