package otf

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// readCompare reads data as file type ft twice, once with the fast paths
// (fast.go) and once with the general path alone, with and without
// StateRecords. The fast reader gets its input in pieces of chunk bytes
// (all at once for 0), so that lines also straddle its buffer's end. The
// records, positions and errors must agree.
func readCompare(t *testing.T, ft FileType, data []byte, chunk int) {
	t.Helper()
	read := func(general, state bool) ([]*Record, error) {
		var src io.Reader = bytes.NewReader(data)
		if chunk > 0 && !general {
			src = &chunkReader{data: data, n: chunk}
		}
		r, err := NewReader(src, &ReaderOptions{File: ft, MaxLine: 4096, StateRecords: state})
		if err != nil {
			t.Fatal(err)
		}
		if general {
			r.generalOnly()
		}
		var recs []*Record
		for r.Next() {
			rec := r.Record().Clone()
			rec.Offset, rec.Line = r.Record().Offset, r.Record().Line
			recs = append(recs, rec)
		}
		return recs, r.Err()
	}
	for _, state := range []bool{false, true} {
		fast, ferr := read(false, state)
		slow, serr := read(true, state)
		if diff := cmp.Diff(slow, fast, cmpRecord); diff != "" {
			t.Fatalf("StateRecords %v: fast paths differ from the general path (-general +fast):\n%s", state, diff)
		}
		var fe, se *ParseError
		if errors.As(ferr, &fe) != errors.As(serr, &se) || fe != nil && (fe.Line != se.Line || fe.Offset != se.Offset || fe.Record != se.Record || !errors.Is(fe.Err, rootErr(se.Err))) {
			t.Fatalf("StateRecords %v: errors differ: fast %v, general %v", state, ferr, serr)
		}
	}
}

// A chunkReader returns data n bytes at a time.
type chunkReader struct {
	data []byte
	n    int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.data)
	c.data = c.data[k:]
	return k, nil
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
				readCompare(t, ft, data, 0)
				readCompare(t, ft, data, 7)
			}
		}
	}
	fsys := genTrace(t, 2, 4, 4000, false)
	readCompare(t, FileEvents, fsys["bench.1.events"].Data, 0)
	readCompare(t, FileEvents, fsys["bench.1.events"].Data, 4093)
	readCompare(t, FileEvents, []byte(fastSample), 0)
	for i := range len(fastSample) {
		readCompare(t, FileEvents, []byte(fastSample[:i]), 0) // every truncation
		readCompare(t, FileEvents, []byte(fastSample[:i]), i%5+1)
	}
	// State lines in the time window of fastNext (at least 32 bytes
	// before the buffer's end): a time of 16 digits, and a time followed
	// by process lines it must not take as "*d\n" of one hex digit.
	for _, st := range []string{"ffffffffffffffff\n*1\n", "123456789abcdef\n*2\n", "5\n*g\n", "5\n*12\n",
		"5\n*1*\n", "5\n+1\n", "5\n*1\r", "5\n\n*1\n", "5*1\n", "5\n*\n\n"} {
		readCompare(t, FileEvents, []byte("1\n*1\nE2\n"+st+"E2\nL2\nE3\nL3\nE4\nL4\nE5\nL5\nE6\nL6\n"), 0)
	}
	// Lines that end after field 0, of kinds whose later fields are
	// optional (a record) or not (an error): the fast path's shortcut
	// for the first must not take the second. (A record comes first:
	// the first of a file is read by the general path.)
	for _, line := range []string{"E2", "L2", "S2", "R2", "CNT1", "COP1", "COPB15", "COPE15", "F1", "FA7", "FF1", "T1"} {
		readCompare(t, FileEvents, []byte("1\n*1\nE2\n"+line+"\nE2\n"), 0)
	}
}

// FuzzFastPath compares the fast paths with the general path, on events,
// snapshot and statistics files, the input given to the fast reader in
// pieces of 1 to 255 bytes or all at once.
func FuzzFastPath(f *testing.F) {
	f.Add(byte(0), byte(0), []byte(fastSample))
	f.Add(byte(0), byte(3), []byte(fastSample))
	f.Add(byte(1), byte(0), []byte("1\n*1\nTS1O2G3T4L5\n2\nTS1O2G3T4\nTCNT5CNT1V6\n"))
	f.Add(byte(2), byte(0), []byte("1\n*1\nSF1N2E3I4\nSF1C2E3I4\n3\n*2\nSF2N2E3I4\n"))
	f.Fuzz(func(t *testing.T, ft, chunk byte, data []byte) {
		readCompare(t, FileEvents+FileType(ft%3), data, int(chunk))
	})
}

// TestFastPathMerged reads a generated trace merged, once as usual (the
// TraceReader calls the readers' fast path itself) and once with every
// reader on the general path: the records, their streams and positions
// must agree, also with a selection of processes.
func TestFastPathMerged(t *testing.T) {
	fsys := genTrace(t, 3, 5, 20000, false)
	for _, opts := range []*TraceReaderOptions{nil, {Processes: []uint32{2, 4}}} {
		read := func(general bool) []*Record {
			tr, err := OpenFS(fsys, "bench.otf", nil)
			if err != nil {
				t.Fatal(err)
			}
			r, err := tr.NewReader(opts)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if general {
				for _, rd := range r.readers {
					rd.generalOnly()
				}
			}
			var recs []*Record
			for r.Next() {
				rec := r.Record().Clone()
				rec.Offset, rec.Line = r.Record().Offset, r.Record().Line
				recs = append(recs, rec)
			}
			if err := r.Err(); err != nil {
				t.Fatal(err)
			}
			return recs
		}
		fast, slow := read(false), read(true)
		if len(fast) == 0 {
			t.Fatal("no records")
		}
		if diff := cmp.Diff(slow, fast, cmpRecord); diff != "" {
			t.Fatalf("%+v: fast paths differ from the general path (-general +fast):\n%s", opts, diff)
		}
	}
}

// TestFastTimeWindow checks fastNext's reading of a time line and the
// process line after it over a window of the buffer, against the general
// parser: times of 1 to 18 digits (17 and more are too long), each
// followed by the shapes a next line can take, with records after them so
// that the window is in the buffer, and again at the end of the input,
// where it is not.
func TestFastTimeWindow(t *testing.T) {
	const tail = "E2\nL2\n1\n*1\nE3\nL3\n2\n*2\nE4\nL4\n"
	for n := 1; n <= 18; n++ {
		for _, digits := range []string{"0123456789abcdef01", "fedcba9876543210ff", "000000000000000000"} {
			tm := digits[:n]
			for _, next := range []string{"*1\nE2\n", "*a\nE2\n", "*12\nE2\n", "*\nE2\n", "*g\nE2\n", "*1 \nE2\n", "E2\n", "*1\n7\nE2\n", "X\n", "\n", " \n", "*1\n*2\nE2\n", "Z1\n"} {
				for _, bad := range []string{"", "g", "A", " ", "\r"} {
					line := tm + bad + "\n" + next
					readCompare(t, FileEvents, []byte("1\n*1\nE2\n"+line+tail+tail+tail), 0)
					readCompare(t, FileEvents, []byte("1\n*1\nE2\n"+line), 0)
				}
			}
		}
	}
}
