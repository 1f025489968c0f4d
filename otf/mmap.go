package otf

import (
	"io/fs"

	"github.com/hpctrace/hpctrace/internal/mmapfs"
)

// MmapDir returns the files below the directory dir as a file system for
// Open, like os.DirFS, but with every regular file opened as a read-only
// memory mapping (golang.org/x/exp/mmap). A TraceReader or Reader seeks
// through ReadAt, which is then a copy instead of a system call, so that
// SeekTime followed by a short read is faster, on uncompressed files most
// (BenchmarkSeekTimeMmap against BenchmarkSeekTime). Reading straight
// through gains little.
//
// It is opt-in, for files no one writes while they are read: a file
// truncated by another process while it is mapped makes the next access
// to the lost pages crash the whole process (SIGBUS), which no error can
// report. Each open file holds its mapping until it is closed.
func MmapDir(dir string) fs.FS { return mmapfs.Dir(dir) }
