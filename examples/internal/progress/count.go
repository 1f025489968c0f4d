package progress

import (
	"io"
	"io/fs"
)

// Reader returns r counting the bytes read through it: each Read adds
// its bytes to the Meter's count (see Count) and calls Update with the
// count. An inactive Meter (not on a terminal) returns r itself and
// counts nothing, so that the count costs nothing off a terminal.
func (m *Meter) Reader(r io.Reader) io.Reader {
	if !m.tty {
		return r
	}
	return &countReader{r: r, m: m}
}

// FS returns fsys with its regular files counting the bytes read from
// them (Read and ReadAt) as Reader does. A file that implements both
// io.ReaderAt and io.Seeker (as those of os.DirFS do) keeps them;
// directories are fsys's own. An inactive Meter returns fsys itself.
func (m *Meter) FS(fsys fs.FS) fs.FS {
	if !m.tty {
		return fsys
	}
	return countFS{fsys: fsys, m: m}
}

// Count returns the bytes counted by the readers and files of Reader and
// FS.
func (m *Meter) Count() int64 { return m.count }

func (m *Meter) add(n int) {
	m.count += int64(n)
	m.Update(m.count)
}

type countReader struct {
	r io.Reader
	m *Meter
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.m.add(n)
	return n, err
}

type countFS struct {
	fsys fs.FS
	m    *Meter
}

func (c countFS) Open(name string) (fs.File, error) {
	f, err := c.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil || st.IsDir() {
		return f, nil // the caller meets the error again at its own Stat
	}
	cf := &countFile{File: f, m: c.m}
	ra, okRA := f.(io.ReaderAt)
	sk, okSk := f.(io.Seeker)
	if okRA && okSk {
		return &countFileAt{countFile: cf, ra: ra, sk: sk}, nil
	}
	return cf, nil
}

type countFile struct {
	fs.File
	m *Meter
}

func (c *countFile) Read(p []byte) (int, error) {
	n, err := c.File.Read(p)
	c.m.add(n)
	return n, err
}

type countFileAt struct {
	*countFile
	ra io.ReaderAt
	sk io.Seeker
}

func (c *countFileAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.ra.ReadAt(p, off)
	c.m.add(n)
	return n, err
}

func (c *countFileAt) Seek(off int64, whence int) (int64, error) { return c.sk.Seek(off, whence) }
