package dumpi

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func pingRun() [][]Args {
	return [][]Args{
		{&Init{}, &Send{Count: 1, Datatype: MPI_INT, Dest: 1, Tag: 7, Comm: MPI_COMM_WORLD}, &Finalize{}},
		{&Init{}, &Recv{Count: 1, Datatype: MPI_INT, Source: 0, Tag: 7, Comm: MPI_COMM_WORLD}, &Finalize{}},
	}
}

// TestModelBrokenHeader: through the model adapter, a rank file whose
// header is damaged reports the format's positioned error (file and
// offset), as the file's own reader does.
func TestModelBrokenHeader(t *testing.T) {
	dir := t.TempDir()
	meta := writeRun(t, dir, "run", pingRun(), nil)
	bin := filepath.Join(dir, "run-0001.bin")
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	hdr := binary.BigEndian.Uint64(b[len(b)-64+4*8:])
	binary.BigEndian.PutUint16(b[hdr+11:], 60000) // host name longer than the file
	if err := os.WriteFile(bin, b, 0o644); err != nil {
		t.Fatal(err)
	}
	run, err := OpenRun(meta, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	src, err := NewModelSource(run, nil)
	if err != nil {
		checkPositioned(t, err, bin, int64(hdr))
		return
	}
	for src.Next() {
	}
	checkPositioned(t, src.Err(), bin, int64(hdr))
}

func checkPositioned(t *testing.T, err error, path string, off int64) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is no ParseError", err, err)
	}
	if pe.Path != path || pe.Offset != off {
		t.Errorf("error %q at %s offset %d, want %s offset %d", err, pe.Path, pe.Offset, path, off)
	}
	if strings.Contains(err.Error(), "longer than 0") {
		t.Errorf("error %q", err)
	}
}

// TestOpenRunMissingRank: a missing rank file's error names the .meta
// file that refers to it and the rank, and still matches fs.ErrNotExist.
func TestOpenRunMissingRank(t *testing.T) {
	dir := t.TempDir()
	meta := writeRun(t, dir, "run", pingRun(), nil)
	if err := os.Remove(filepath.Join(dir, "run-0001.bin")); err != nil {
		t.Fatal(err)
	}
	_, err := OpenRun(meta, nil)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err %v, want not-exist", err)
	}
	for _, s := range []string{meta, "rank 1 of 2", "run-0001.bin"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not name %q", err, s)
		}
	}
}

// TestOpenRunOutside: a fileprefix that leaves the metafile's directory is
// refused unless RunOptions.AllowOutside is set.
func TestOpenRunOutside(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "meta")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	writeRun(t, dir, "run", pingRun(), nil)
	for _, prefix := range []string{"../run", filepath.Join(dir, "run"), "a/../../run"} {
		m := &Meta{Hostname: "h", NumProcs: 2, Username: "u", StartTime: 1, FilePrefix: prefix, Version: Version{13, 0, 0}}
		var b strings.Builder
		m.WriteTo(&b)
		meta := filepath.Join(sub, "x.meta")
		if err := os.WriteFile(meta, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := OpenRun(meta, nil)
		var pe *ParseError
		if !errors.Is(err, ErrRange) || !errors.As(err, &pe) || pe.Path != meta {
			t.Errorf("prefix %q: err %v, want a refusal naming %s", prefix, err, meta)
		}
		run, err := OpenRun(meta, &RunOptions{AllowOutside: true})
		if err != nil {
			t.Errorf("prefix %q with AllowOutside: %v", prefix, err)
			continue
		}
		if len(run.Files) != 2 {
			t.Errorf("prefix %q: %d files", prefix, len(run.Files))
		}
		run.Close()
	}
	// A prefix in a subdirectory stays inside.
	inner := filepath.Join(sub, "in")
	if err := os.Mkdir(inner, 0o755); err != nil {
		t.Fatal(err)
	}
	writeRun(t, inner, "run", pingRun(), nil)
	m := &Meta{Hostname: "h", NumProcs: 2, Username: "u", StartTime: 1, FilePrefix: "in/run", Version: Version{13, 0, 0}}
	var b strings.Builder
	m.WriteTo(&b)
	if err := os.WriteFile(filepath.Join(sub, "y.meta"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	run, err := OpenRun(filepath.Join(sub, "y.meta"), nil)
	if err != nil {
		t.Fatalf("prefix in/run: %v", err)
	}
	run.Close()
}
