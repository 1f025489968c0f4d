package dumpi

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixtureRanks lists every rank file under testdata with its golden.
func fixtureRanks(t testing.TB) (bins, goldens []string) {
	t.Helper()
	bins, err := filepath.Glob("testdata/*/*-[0-9][0-9][0-9][0-9].bin")
	if err != nil || len(bins) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, b := range bins {
		rank := strings.TrimLeft(b[len(b)-8:len(b)-4], "0")
		if rank == "" {
			rank = "0"
		}
		goldens = append(goldens, filepath.Join(filepath.Dir(b), "rank"+rank+".ascii.txt.gz"))
	}
	return bins, goldens
}

func readGz(t testing.TB, name string) []byte {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestASCIIGolden checks WriteASCII against the reference dumpi2ascii -a
// output of every fixture rank, byte for byte.
func TestASCIIGolden(t *testing.T) {
	bins, goldens := fixtureRanks(t)
	for i, bin := range bins {
		t.Run(bin, func(t *testing.T) {
			f, err := Open(bin)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var got bytes.Buffer
			if err := f.WriteASCII(&got); err != nil {
				t.Fatal(err)
			}
			want := readGz(t, goldens[i])
			if !bytes.Equal(got.Bytes(), want) {
				gl := strings.Split(got.String(), "\n")
				wl := strings.Split(string(want), "\n")
				for j := 0; j < len(gl) || j < len(wl); j++ {
					var g, w string
					if j < len(gl) {
						g = gl[j]
					}
					if j < len(wl) {
						w = wl[j]
					}
					if g != w {
						t.Fatalf("line %d:\ngot  %q\nwant %q", j+1, g, w)
					}
				}
			}
		})
	}
}
