package dumpi

import (
	"bytes"
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
