package dumpi

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pgregory.net/rapid"
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
			f, err := Open(bin, nil)
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

// TestASCIIEmptyArrays checks that an array argument with count 0 prints as
// <IGNORED>, as the reference does (its reader leaves an empty array NULL),
// on every array-printing path: int, request, IO request, datatype and
// info lists, status lists and strings.
func TestASCIIEmptyArrays(t *testing.T) {
	for _, tc := range []struct {
		args Args
		want []string
	}{
		{&Waitall{}, []string{"MPI_Request requests[0]=<IGNORED>\n", "MPI_Status statuses[0]=<IGNORED>\n"}},
		{&Startall{}, []string{"MPI_Request requests[0]=<IGNORED>\n"}},
		{&Testsome{}, []string{"MPI_Request requests[0]=<IGNORED>\n", "int indices[0]=<IGNORED>\n"}},
		{&MPIOWaitall{}, []string{"MPIO_Request requests[0]=<IGNORED>\n"}},
		{&TypeStruct{}, []string{"int lengths[0]=<IGNORED>\n", "MPI_Datatype oldtypes[0]=<IGNORED>\n"}},
		{&TypeCreateStruct{}, []string{"MPI_Datatype oldtypes[0]=<IGNORED>\n"}},
		{&Alltoallw{}, []string{"MPI_Datatype sendtypes[0]=<IGNORED>\n", "int sendcounts[0]=<IGNORED>\n"}},
		{&GroupRangeIncl{}, []string{"int ranges[0][3]=<IGNORED>\n"}},
		{&CommSpawnMultiple{}, []string{"string commands[0]=<IGNORED>\n", "string argvs[0][-2]=<IGNORED>\n"}},
		{&Init{}, []string{"string argv[0]=<IGNORED>\n"}},
		// The reference reader stores a list's length into the field that
		// sizes it: MPI_UNDEFINED (-32766) recorded as outcount prints as 0.
		{&Waitsome{Outcount: -32766}, []string{"int outcount=0\nint indices[0]=<IGNORED>\n"}},
		{&Testsome{Count: 3, Outcount: -1}, []string{"int count=0\nMPI_Request requests[0]=<IGNORED>\nint outcount=0\n"}},
	} {
		var c Call
		c.Mask = 0x43
		c.SetArgs(tc.args)
		got := string(c.AppendASCII(nil, 0, 0, nil))
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: no %q in\n%s", c.Label, w, got)
			}
		}
		if strings.Contains(got, "[]") {
			t.Errorf("%s: an empty list printed as []:\n%s", c.Label, got)
		}
	}
}

// TestAppendSecNsec: a time prints as C's "%d.%09d" of the 32-bit
// seconds and the nanoseconds, which may have more than nine digits.
func TestAppendSecNsec(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		base := rapid.Int32().Draw(t, "base")
		sec := rapid.Uint16().Draw(t, "sec")
		nsec := rapid.OneOf(rapid.Uint32Range(0, 1e9-1), rapid.Uint32()).Draw(t, "nsec")
		want := fmt.Sprintf("x%d.%09d", base+int32(sec), nsec)
		if got := string(appendSecNsec([]byte("x"), base, true, sec, nsec)); got != want {
			t.Fatalf("got %s, want %s", got, want)
		}
	})
	if got := string(appendSecNsec(nil, 5, false, 1, 2)); got != "0.000000000" {
		t.Fatalf("time off: got %s", got)
	}
}

// TestWriteASCIIEscaped: every string from the file goes through the
// escape function, and nothing else changes.
func TestWriteASCIIEscaped(t *testing.T) {
	var bin bytes.Buffer
	w, err := NewWriter(&bin, &WriterOptions{
		Header:        Header{Host: "h\x1b", User: "u\x1b"},
		KeyVals:       []KeyValue{{"k\x1b", "v\x1b"}},
		IndexKeyVals:  true,
		PerfLabels:    []string{"p\x1b"},
		FunctionNames: []FunctionName{{Addr: 1, Name: "f\x1b"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var c Call
	c.SetArgs(&Init{Argc: 2, Argv: [][]byte{[]byte("a\x1b"), []byte("b\x1b")}})
	if err := w.Write(&c); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := NewFile(bytes.NewReader(bin.Bytes()), int64(bin.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var plain, escaped bytes.Buffer
	if err := f.WriteASCII(&plain); err != nil {
		t.Fatal(err)
	}
	if err := f.WriteASCIIEscaped(&escaped, func(dst, s []byte) []byte {
		return append(dst, bytes.ReplaceAll(s, []byte("\x1b"), []byte("ESC"))...)
	}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(plain.String(), "\x1b"); n != 8 {
		t.Fatalf("the plain text has %d escapes, want 8:\n%s", n, plain.String())
	}
	if want := strings.ReplaceAll(plain.String(), "\x1b", "ESC"); escaped.String() != want {
		t.Fatalf("escaped:\n%s\nwant:\n%s", escaped.String(), want)
	}
}
