// Package mmapfs is a file system whose regular files open as read-only
// memory mappings (golang.org/x/exp/mmap), for readers that seek through
// io.ReaderAt: a ReadAt is then a copy, not a system call.
//
// A mapping is opt-in, never a default: a file truncated by another
// process while it is mapped makes the next access to the lost pages
// crash the whole process (SIGBUS), which no error can report.
package mmapfs

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/exp/mmap"
)

// Dir is the file system of the files below a directory, like os.DirFS:
// regular files open as mappings (*File), directories as os.DirFS opens
// them.
type Dir string

// Open opens name, a slash-separated path valid for fs.ValidPath.
func (d Dir) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	p := filepath.Join(string(d), filepath.FromSlash(name))
	fi, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return os.DirFS(string(d)).Open(name)
	}
	m, err := mmap.Open(p)
	if err != nil {
		return nil, &fs.PathError{Op: "mmap", Path: name, Err: err}
	}
	return &File{m: m, fi: fi}, nil
}

// A File is a mapped file: an fs.File that is also an io.ReaderAt and
// io.Seeker with a Size. Its methods return an error after Close.
type File struct {
	m   *mmap.ReaderAt
	fi  fs.FileInfo
	off int64
}

var errClosed = errors.New("mmapfs: file closed")

// Size returns the size of the mapping.
func (f *File) Size() int64 { return int64(f.m.Len()) }

// Stat returns the file's information at Open.
func (f *File) Stat() (fs.FileInfo, error) { return f.fi, nil }

// ReadAt reads len(p) bytes at off; fewer only at the end, with io.EOF.
func (f *File) ReadAt(p []byte, off int64) (int, error) {
	if f.m == nil {
		return 0, errClosed
	}
	if off < 0 {
		return 0, &fs.PathError{Op: "readat", Path: f.fi.Name(), Err: fs.ErrInvalid}
	}
	if off >= f.Size() {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	return f.m.ReadAt(p, off)
}

// Read reads from the current offset.
func (f *File) Read(p []byte) (int, error) {
	n, err := f.ReadAt(p, f.off)
	f.off += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

// Seek sets the offset of the next Read.
func (f *File) Seek(offset int64, whence int) (int64, error) {
	if f.m == nil {
		return 0, errClosed
	}
	switch whence {
	case io.SeekCurrent:
		offset += f.off
	case io.SeekEnd:
		offset += f.Size()
	}
	if offset < 0 {
		return 0, &fs.PathError{Op: "seek", Path: f.fi.Name(), Err: fs.ErrInvalid}
	}
	f.off = offset
	return offset, nil
}

// Close unmaps the file.
func (f *File) Close() error {
	if f.m == nil {
		return errClosed
	}
	err := f.m.Close()
	f.m = nil
	return err
}
