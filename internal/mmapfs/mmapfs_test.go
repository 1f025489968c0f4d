package mmapfs

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
)

func TestDir(t *testing.T) {
	dir := t.TempDir()
	data := []byte("hello, mapped world\n")
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "empty"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sub", "b"), data[:5], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := fstest.TestFS(Dir(dir), "a.txt", "empty", "sub/b"); err != nil {
		t.Fatal(err)
	}
	f, err := Dir(dir).Open("a.txt")
	if err != nil {
		t.Fatal(err)
	}
	mf := f.(*File)
	if mf.Size() != int64(len(data)) {
		t.Errorf("Size %d, want %d", mf.Size(), len(data))
	}
	buf := make([]byte, 8)
	if n, err := mf.ReadAt(buf, 15); n != 5 || err != io.EOF || !bytes.Equal(buf[:n], data[15:]) {
		t.Errorf("ReadAt at 15: %d %v %q", n, err, buf[:n])
	}
	if n, err := mf.ReadAt(buf, 100); n != 0 || err != io.EOF {
		t.Errorf("ReadAt past the end: %d %v", n, err)
	}
	if _, err := mf.ReadAt(buf, -1); err == nil {
		t.Error("ReadAt at -1 succeeded")
	}
	if off, err := mf.Seek(-6, io.SeekEnd); err != nil || off != int64(len(data))-6 {
		t.Errorf("Seek: %d %v", off, err)
	}
	if rest, err := io.ReadAll(mf); err != nil || string(rest) != "world\n" {
		t.Errorf("after Seek: %q %v", rest, err)
	}
	if err := mf.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := mf.ReadAt(buf, 0); err == nil {
		t.Error("ReadAt after Close succeeded")
	}
	if err := mf.Close(); err == nil {
		t.Error("second Close succeeded")
	}
	if _, err := Dir(dir).Open("../a.txt"); err == nil {
		t.Error("Open of a path outside the directory succeeded")
	}
	if _, err := Dir(dir).Open("missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open of a missing file: %v", err)
	}
}

var _ fs.FS = Dir("")
