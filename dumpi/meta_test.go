package dumpi

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRankOf(t *testing.T) {
	m := &Meta{FilePrefix: "dumpi-2026.11.22.01.33.17"}
	for _, rank := range []int{0, 3, 12, 9999, 12345} {
		if got, ok := RankOf("/runs/" + m.RankFile(rank)); !ok || got != rank {
			t.Errorf("RankOf(RankFile(%d)) = %d, %v; want %d, true", rank, got, ok, rank)
		}
	}
	if got, ok := RankOf("dumpi-2026.11.22-0003.bin"); !ok || got != 3 {
		t.Errorf("RankOf = %d, %v; want 3, true", got, ok)
	}
	for _, name := range []string{"trace.bin", "run-x.bin", "run-.bin", "run-+3.bin", "dir-7/trace.bin"} {
		if got, ok := RankOf(name); ok {
			t.Errorf("RankOf(%q) = %d, true; want false", name, got)
		}
	}
}

// TestOpenRunBinary checks that a rank's .bin file (or other binary data)
// passed where a .meta file belongs is refused as ErrFormat, with a short
// message that does not quote the binary bytes.
func TestOpenRunBinary(t *testing.T) {
	bin := "testdata/minimal/dumpi-2026.11.22.01.38.03-0000.bin"
	other := filepath.Join(t.TempDir(), "x.meta")
	if err := os.WriteFile(other, []byte("hostname=a\x00\x01\x02\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{bin, other} {
		_, err := OpenRun(name, nil)
		var pe *ParseError
		if !errors.Is(err, ErrFormat) || !errors.As(err, &pe) || pe.Path != name {
			t.Errorf("OpenRun(%s) = %v; want a ParseError naming the file, wrapping ErrFormat", name, err)
			continue
		}
		if msg := err.Error(); len(msg) > 160 || strings.ContainsRune(msg, '\x00') || strings.Contains(msg, `\x`) {
			t.Errorf("OpenRun(%s): message quotes the binary: %q", name, msg)
		}
	}
	// A long bad line is quoted short.
	long := "x" + strings.Repeat("y", 400)
	_, err := ParseMeta(strings.NewReader(long + "\n"))
	if !errors.Is(err, ErrSyntax) || len(err.Error()) > 160 {
		t.Errorf("ParseMeta(long line) = %v; want a short ErrSyntax", err)
	}
}

// TestParseMetaLimit checks that a .meta line beyond the reader's limit is
// a ParseError wrapping ErrLimit, not a syntax or range error.
func TestParseMetaLimit(t *testing.T) {
	in := "hostname=" + strings.Repeat("h", maxMetaLine) + "\n"
	_, err := ParseMeta(strings.NewReader(in))
	var pe *ParseError
	if !errors.Is(err, ErrLimit) || errors.Is(err, ErrRange) || !errors.As(err, &pe) || pe.Line != 1 {
		t.Errorf("ParseMeta(long line) = %v; want a ParseError at line 1 wrapping ErrLimit", err)
	}
}

// TestParseMetaPosition checks the line, byte offset and record index of a
// bad .meta line: the record index counts the key lines before it.
func TestParseMetaPosition(t *testing.T) {
	in := "hostname=a\nnumprocs=2\n\nusername=x\nstartime=zz\n"
	_, err := ParseMeta(strings.NewReader(in))
	var pe *ParseError
	if !errors.As(err, &pe) || !errors.Is(err, ErrSyntax) {
		t.Fatalf("ParseMeta = %v; want a ParseError wrapping ErrSyntax", err)
	}
	if got, want := [3]int64{int64(pe.Line), pe.Offset, pe.Record}, [3]int64{5, int64(strings.Index(in, "startime")), 3}; got != want {
		t.Errorf("line, offset, record = %v; want %v", got, want)
	}
}
