package main

import (
	"io/fs"
	"os"

	"github.com/hpctrace/hpctrace/examples/internal/progress"
)

// copyMeter returns the Meter of a copy of in: the bytes read from the
// input, of total (0: unknown). It shows on stderr when that is a
// terminal; otherwise it counts nothing and its readers and file systems
// are the ones it is given.
func copyMeter(in string, total int64) *progress.Meter {
	m := progress.New(os.Stderr, in, "bytes")
	m.SetTotal(total)
	return m
}

// sizeOf returns the sizes of the files paths in bytes, added up; files
// that cannot be measured count 0.
func sizeOf(paths ...string) int64 {
	var n int64
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil {
			n += st.Size()
		}
	}
	return n
}

// osFile is a file system that holds the one operating-system file at
// path osFile, under that path, so that a reader opened through it (with
// a Meter's FS) names the file as the operating-system path, as the
// reader's Open would.
type osFile string

// Open opens the file if name is its path.
func (p osFile) Open(name string) (fs.File, error) {
	if name != string(p) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return os.Open(name)
}
