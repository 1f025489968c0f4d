package dumpi

import (
	"bytes"
	"errors"
	"os"
	"testing"
)

// TestCopyIdentical reads every fixture rank and writes it back: the
// bytes must equal the original.
func TestCopyIdentical(t *testing.T) {
	bins, _ := fixtureRanks(t)
	for _, bin := range bins {
		t.Run(bin, func(t *testing.T) {
			want, err := os.ReadFile(bin)
			if err != nil {
				t.Fatal(err)
			}
			got := copyFile(t, want)
			if !bytes.Equal(got, want) {
				n := 0
				for n < len(got) && n < len(want) && got[n] == want[n] {
					n++
				}
				t.Fatalf("copy differs at byte %#x (got %d bytes, want %d)", n, len(got), len(want))
			}
		})
	}
}

func copyFile(t testing.TB, data []byte) []byte {
	t.Helper()
	f, err := NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	opts, err := f.CopyOptions()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, opts)
	if err != nil {
		t.Fatal(err)
	}
	for c, err := range f.Calls().All() {
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestWriterErrors checks the writer's contract: bad calls are rejected
// with ErrRange before any byte is written, Write after Close gives
// ErrClosed, a second Close returns nil.
func TestWriterErrors(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	n := buf.Len()
	for _, c := range []*Call{
		{Label: LabelEndOfStream},
		{Label: LabelSend},
		func() *Call { c := &Call{}; c.SetArgs(&Recv{}); c.Label = LabelSend; return c }(),
		func() *Call {
			c := &Call{Mask: MaskPerf, Perf: make([]PerfValue, 256)}
			c.SetArgs(&Barrier{})
			return c
		}(),
	} {
		err := w.Write(c)
		if !errors.Is(err, ErrRange) {
			t.Errorf("Write(%v) = %v; want ErrRange", c.Label, err)
		}
		if pe := (*ParseError)(nil); errors.As(err, &pe) {
			t.Errorf("Write(%v) = %v; a writer's error is not a *ParseError", c.Label, err)
		}
	}
	if err := w.Flush(); err != nil || buf.Len() != n {
		t.Errorf("rejected calls wrote %d bytes", buf.Len()-n)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	c := &Call{}
	c.SetArgs(&Barrier{Comm: MPI_COMM_WORLD})
	if err := w.Write(c); !errors.Is(err, ErrClosed) {
		t.Errorf("Write after Close = %v; want ErrClosed", err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close = %v; want nil", err)
	}
	f := memFile(t, buf.Bytes())
	if calls := collect(t, f.Calls()); len(calls) != 0 {
		t.Errorf("%d calls in an empty file", len(calls))
	}
}
