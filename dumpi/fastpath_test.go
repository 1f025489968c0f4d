package dumpi

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// readAllCalls reads src with NewReader and returns clones of its calls
// (with their time offsets) and the error from NewReader or Err.
func readAllCalls(src io.Reader, opts *ReaderOptions) ([]*Call, string) {
	r, err := NewReader(src, opts)
	if err != nil {
		return nil, err.Error()
	}
	var out []*Call
	for r.Next() {
		out = append(out, r.Record().Clone())
	}
	if err := r.Err(); err != nil {
		return out, err.Error()
	}
	return out, ""
}

// compareFastGeneral reads data once from memory, where Next takes its fast
// path for every call whose head is buffered, and once a byte at a time,
// where almost every call goes through the general path, and reports any
// difference in the calls, their unwrapped times or the error.
func compareFastGeneral(t *testing.T, data []byte, opts *ReaderOptions) {
	t.Helper()
	fast, ferr := readAllCalls(bytes.NewReader(data), opts)
	slow, serr := readAllCalls(iotest.OneByteReader(bytes.NewReader(data)), opts)
	if ferr != serr {
		t.Fatalf("error %q, one byte at a time %q", ferr, serr)
	}
	if diff := cmp.Diff(slow, fast, callOpts...); diff != "" {
		t.Fatalf("calls differ (-general +fast):\n%s", diff)
	}
}

// TestFastPathMatchesGeneral compares the two paths of Next on every
// fixture rank (all record layouts), on a stretch of the benchmark trace,
// and on truncations of them.
func TestFastPathMatchesGeneral(t *testing.T) {
	bins, _ := fixtureRanks(t)
	var inputs [][]byte
	var versions []Version
	for _, bin := range bins {
		data, err := os.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		h, err := memFile(t, data).Header()
		if err != nil {
			t.Fatal(err)
		}
		inputs, versions = append(inputs, data), append(versions, h.Version)
	}
	bench, err := makeBenchTrace(1, 3000)
	if err != nil {
		t.Fatal(err)
	}
	inputs, versions = append(inputs, bench[0]), append(versions, Version{})
	for i, data := range inputs {
		opts := &ReaderOptions{Version: versions[i]}
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			compareFastGeneral(t, data, opts)
			for _, n := range []int{len(data) / 3, len(data) / 2, len(data) - 1} {
				compareFastGeneral(t, data[:n], opts)
			}
		})
	}
}
