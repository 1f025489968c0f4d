package otf

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// readCompare reads data twice, as file type ft: with the fast path, and
// with StateRecords set, which disables it (the state records are dropped
// again). The records, positions and errors must agree.
func readCompare(t *testing.T, ft FileType, data []byte) {
	t.Helper()
	read := func(state bool) ([]*Record, error) {
		r, err := NewReader(bytes.NewReader(data), &ReaderOptions{File: ft, MaxLine: 4096, StateRecords: state})
		if err != nil {
			t.Fatal(err)
		}
		var recs []*Record
		for r.Next() {
			rec := r.Record()
			if rec.Kind == KindTime || rec.Kind == KindProcess {
				continue
			}
			recs = append(recs, rec.Clone())
		}
		return recs, r.Err()
	}
	fast, ferr := read(false)
	slow, serr := read(true)
	if diff := cmp.Diff(slow, fast, cmpRecord); diff != "" {
		t.Fatalf("fast path differs from the general path (-general +fast):\n%s", diff)
	}
	var fe, se *ParseError
	if errors.As(ferr, &fe) != errors.As(serr, &se) || fe != nil && (fe.Line != se.Line || fe.Offset != se.Offset || !errors.Is(fe.Err, rootErr(se.Err))) {
		t.Fatalf("errors differ: fast %v, general %v", ferr, serr)
	}
}

// rootErr returns the innermost error err wraps (the sentinel under the
// reader's description of what it expected).
func rootErr(err error) error {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err
		}
		err = u
	}
}

const fastSample = "1\n*1\nE2\nE3X7\nL\nL2\nLX5\nS2L800T8C1\nS2L8T0C1X9\nR2L800T8C1\nCNT1V96b438\nCOP1C1RT0S8R8D37\n" +
	"COP1C1RT0S8R8D37X2\nCOPB15H65C3e8RTffffffffS0R0\nCOPE15\nF1H2OP3B4D5\nFA7\nFF1MI2H3OP4B5X6\nT1P2C3T4L5\n" +
	"1a\n*ffffffff\nffffffffffffffff\nE123456789\nCNT1V11112222333344445\nE1X\nS2L8T0\nE 2\nE2 \nKEY1Y6V7\nE2\n"

// TestFastPath checks the fast path against the general parser on the
// fixtures, a generated trace and samples of every numeric event shape.
func TestFastPath(t *testing.T) {
	for _, file := range recordFiles(t) {
		if strings.HasSuffix(file, ".z") {
			continue
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for ft := FileEvents; ft <= FileStats; ft++ {
			if strings.Contains(file, "."+ft.String()) {
				readCompare(t, ft, data)
			}
		}
	}
	fsys := genTrace(t, 2, 4, 4000, false)
	readCompare(t, FileEvents, fsys["bench.1.events"].Data)
	readCompare(t, FileEvents, []byte(fastSample))
	for i := range len(fastSample) {
		readCompare(t, FileEvents, []byte(fastSample[:i])) // every truncation
	}
}

// FuzzFastPath compares the fast path with the general parser.
func FuzzFastPath(f *testing.F) {
	f.Add(byte(0), []byte(fastSample))
	f.Fuzz(func(t *testing.T, ft byte, data []byte) {
		readCompare(t, FileEvents+FileType(ft%3), data)
	})
}
