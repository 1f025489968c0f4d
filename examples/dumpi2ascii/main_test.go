package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace/dumpi"
	"github.com/hpctrace/hpctrace/examples/internal/progtest"
)

// TestGoldens runs the program on every fixture rank and compares its
// output with the reference dumpi2ascii -a golden.
func TestGoldens(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "dumpi2ascii")
	if out, err := exec.Command("go", "build", "-o", exe, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	bins, _ := filepath.Glob("../../dumpi/testdata/*/*-[0-9][0-9][0-9][0-9].bin")
	if len(bins) == 0 {
		t.Fatal("no fixtures")
	}
	for _, bin := range bins {
		rank := strings.TrimLeft(bin[len(bin)-8:len(bin)-4], "0")
		if rank == "" {
			rank = "0"
		}
		golden := filepath.Join(filepath.Dir(bin), "rank"+rank+".ascii.txt.gz")
		t.Run(bin, func(t *testing.T) {
			got, err := exec.Command(exe, bin).Output()
			if err != nil {
				t.Fatal(err)
			}
			gf, err := os.Open(golden)
			if err != nil {
				t.Fatal(err)
			}
			defer gf.Close()
			z, err := gzip.NewReader(gf)
			if err != nil {
				t.Fatal(err)
			}
			want, err := io.ReadAll(z)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("output differs from %s (got %d bytes, want %d)", golden, len(got), len(want))
			}
		})
	}
}

// damaged writes a rank file of n MPI_Send calls whose call number bad
// (0-based) has an unknown label, and returns its path.
func damaged(t *testing.T, n, bad int) string {
	t.Helper()
	var buf bytes.Buffer
	w, err := dumpi.NewWriter(&buf, &dumpi.WriterOptions{Header: dumpi.Header{StartTime: 1795311483, Host: "node1", User: "me"}})
	if err != nil {
		t.Fatal(err)
	}
	at := -1
	for i := range n {
		if i == bad {
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			at = buf.Len()
		}
		c := &dumpi.Call{Mask: dumpi.MaskThread | dumpi.MaskWallTime, Wall: dumpi.Span{StartSec: 1, StartNsec: uint32(2 * i), StopSec: 1, StopNsec: uint32(2*i + 1)}}
		c.SetArgs(&dumpi.Send{Count: int32(i), Datatype: dumpi.MPI_DOUBLE, Dest: 1, Tag: 7, Comm: dumpi.MPI_COMM_WORLD})
		if err := w.Write(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	data[at], data[at+1] = 0xff, 0x7f
	path := filepath.Join(t.TempDir(), "damaged-0000.bin")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDamagedPrintsEveryCompleteCall prints a file whose call 501 is
// damaged: all 500 calls before it come out, whole, then the error.
func TestDamagedPrintsEveryCompleteCall(t *testing.T) {
	path := damaged(t, 600, 500)
	var out, errOut bytes.Buffer
	if code := run([]string{path}, &out, &errOut); code != 1 {
		t.Fatalf("exit status %d, want 1 (stderr %q)", code, errOut.String())
	}
	if !strings.Contains(errOut.String(), "dumpi2ascii:") {
		t.Errorf("no error message: %q", errOut.String())
	}
	text := out.String()
	if n := strings.Count(text, "MPI_Send returning"); n != 500 {
		t.Errorf("%d calls printed, want 500", n)
	}
	if !strings.HasSuffix(text, "MPI_Send returning at walltime 1.000000999, cputime 0.000000000 seconds in thread 0.\n") {
		t.Errorf("output does not end with call 500's last line: ...%q", text[max(0, len(text)-200):])
	}
}

// TestWriteErrors reports a failing output with status 1 and a message,
// wherever the output fails.
func TestWriteErrors(t *testing.T) {
	bin := "../../dumpi/testdata/minimal/dumpi-2026.11.22.01.38.03-0000.bin"
	var full bytes.Buffer
	if code := run([]string{bin}, &full, io.Discard); code != 0 {
		t.Fatalf("exit status %d", code)
	}
	for _, n := range []int{0, 100, full.Len() - 1} {
		var errOut bytes.Buffer
		if code := run([]string{bin}, &progtest.FailWriter{N: n}, &errOut); code != 1 {
			t.Errorf("writer failing after %d bytes: exit status %d, want 1", n, code)
		}
		if !strings.Contains(errOut.String(), progtest.ErrFull.Error()) {
			t.Errorf("writer failing after %d bytes: stderr %q does not name the error", n, errOut.String())
		}
	}
}

// TestDevFull runs the program with its output on /dev/full.
func TestDevFull(t *testing.T) {
	code, stderr := progtest.DevFull(t, progtest.Build(t), "../../dumpi/testdata/minimal/dumpi-2026.11.22.01.38.03-0000.bin")
	if code != 1 || !strings.Contains(stderr, "no space left") {
		t.Errorf("exit status %d, stderr %q; want 1 and the error", code, stderr)
	}
}

// TestHostileHeader: a host and user name with an escape sequence, a
// carriage return and a bell are printed escaped.
func TestHostileHeader(t *testing.T) {
	var bin bytes.Buffer
	w, err := dumpi.NewWriter(&bin, &dumpi.WriterOptions{Header: dumpi.Header{Host: "node\x1b[2J\r1", User: "me\a"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "hostile-0000.bin")
	if err := os.WriteFile(name, bin.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{name}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for i, c := range stdout.String() {
		if c != '\n' && c != '\t' && (c < 0x20 || c == 0x7f || c >= 0x80 && c <= 0x9f) {
			t.Errorf("control character %U at byte %d of the output", c, i)
		}
	}
	for _, want := range []string{`hostname=node\x1b[2J\x0d1`, `username=me\x07`} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %s:\n%s", want, stdout.String())
		}
	}
}
