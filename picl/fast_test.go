package picl

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
)

// FuzzFastLine checks the one-pass fast path against the general parser:
// whenever the fast path accepts a line, the general parser accepts it too
// and decodes the same record. With defs, both readers first read a -6
// record defining aliases 2 (for event 3 only) and 7.
func FuzzFastLine(f *testing.F) {
	for _, s := range []string{"-3 -901 -0.715036 6 0 0", "-4 -52 0.000516 6 0 3 2 8 0 0", "\t0  1 1e-3 -0 -1 2 x",
		"-3 -1 0.1 2147483647 0 0", "1 2 3 4 5 -6", "-3 -901 0.0 6 0 0x", "+3 1 1 1 1 1",
		`-101 -1 0.000254 0 0 3 "%d%lf" -11 0.000091 -21 0.000046 -901 0.000244`, "0 3 0.000150 0 0 1 5 3.141593",
		`20 5 0.000230 0 0 2 "%s %d" south -1 east 7`, "3 4 0.000190 0 0 2 1 alpha beta", "7 3 1 0 0 1 7 -2.5 -9",
		"1 3 -0.0 0 0 2 2 123456789012345678 -1", "-5 1 -1.000000 -1 -1 14 0 ring broadcast", "1 1 1 1 1 1 -0 5"} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	const defs = `-6 -1 -1 -1 -1 2 "%d%s" 2 "%s%lf" 7 "%lf%d"`
	newReader := func(withDefs bool) *Reader {
		r, err := NewReader(strings.NewReader(""), nil)
		if err != nil {
			f.Fatal(err)
		}
		if withDefs {
			r.rec.Event = 3
			if err := r.parseGeneral([]byte(defs)); err != nil {
				f.Fatal(err)
			}
			r.scope.apply(&r.rec, r.ctl)
		}
		return r
	}
	f.Fuzz(func(t *testing.T, line []byte, withDefs bool) {
		if bytes.IndexByte(line, '\n') >= 0 {
			return
		}
		fast, slow := newReader(withDefs), newReader(withDefs)
		fast.rec, fast.ctl = Record{}, nil
		if !fast.fastLine(line) {
			return
		}
		if err := slow.parseGeneral(line); err != nil {
			t.Fatalf("fast path accepted %q, general parser: %v", line, err)
		}
		if !sameDecoding(fast, slow) {
			t.Fatalf("%q: fast %+v, general %+v", line, fast.rec, slow.rec)
		}
	})
}

// sameDecoding reports whether two readers hold the same record and
// control string, bit for bit.
func sameDecoding(fast, slow *Reader) bool {
	a, b := &fast.rec, &slow.rec
	same := a.Type == b.Type && a.Event == b.Event && math.Float64bits(a.Time) == math.Float64bits(b.Time) &&
		bytes.Equal(a.TimeText, b.TimeText) && a.Processor == b.Processor && a.Process == b.Process &&
		a.Count == b.Count && a.Descriptor == b.Descriptor && a.Control == b.Control && a.Flags == b.Flags &&
		a.Chars == nil && b.Chars == nil && a.Raw == nil && b.Raw == nil && len(a.Data) == len(b.Data) &&
		(a.Data == nil) == (b.Data == nil) &&
		(fast.ctl == nil) == (slow.ctl == nil) && (fast.ctl == nil || fast.ctl.text == slow.ctl.text)
	for i := 0; same && i < len(a.Data); i++ {
		v, w := a.Data[i], b.Data[i]
		same = v.Kind == w.Kind && v.Int == w.Int && math.Float64bits(v.Float) == math.Float64bits(w.Float) &&
			bytes.Equal(v.Text, w.Text) && v.Quoted == w.Quoted
	}
	return same
}

// FuzzBufLine checks the buffer path (fastbuf.go) against the general
// parser, as FuzzFastLine does for the line path: the line is read from a
// scanner's buffer, after a first line and followed by filler (digits, or
// blanks) that a token must not run into.
func FuzzBufLine(f *testing.F) {
	for _, s := range []string{"-3 -901 -0.715036 6 0 0", "-4 -52 0.000516 6 0 3 2 8 0 0", "-3 -21 3.123456 17 0 3 2 537 2 18",
		"0 3 10.000150 0 0 1 5 3.141593", "0 3 0.1 0 0 1 5 -7", "0 3 1.5 0 0 1 4 -0.0", "-2 -904 1234567.1234567 63 0 3 2 1 1 1",
		`-101 -1 0.000254 0 0 3 "%d%lf" -11 0.000091 -21 0.000046 -901 0.000244`, "1 1 1 1 1 1 -0 5",
		`20 5 0.000230 0 0 2 "%s %d" south -1 east 7`, "3 4 0.000190 0 0 2 1 alpha beta", "7 3 1 0 0 1 7 -2.5 -9",
		"-3 - 1 0 0 0", "-3 1 - 0 0 0", "-3 1 -. 0 0 0", "-3 1 .5 0 0 0", "-3 1 5. 0 0 0", "12345678 1 1 1 1 0",
		"1 1 1 1 1 1 02 5", "1 1 1 1 1 1 2 00", "1 1 1 1 1 1 2 5\r", "1 1 1 1 1 0 ", "1 1 1 1 1  0", "1 1 1 1 1 1 9 5",
		"-3 1 5.1234567 0 0 0", "-3 1 5.12345 0 0 0", "-3 1 5.12a456 0 0 0", "-3 1 5:123456 0 0 0", "-3 1 9.999999\t0 0 0",
		"-3 1 -5.123456 0 0 0", "-3 1 12.345678 0 0 0", "-3 1 12.3456789 0 0 0", "-3 1 12.34567 0 0 0", "-3 1 12.34567a 0 0 0", "1 1 1 1 1 3 0 -7 12 -0",
		"1 1 1 1 1 1 0 x", "1 1 1 1 1 1 6 5", "1 1 1 1 1 1 8 5", "1 3 1 1 1 1 7 5 6", `1 1 1 1 1 1 "%c" x`,
		"0 3 1.5 0 0 1 5 3.1415926", "0 3 1.5 0 0 1 5 3.141593x", "0 3 1.5 0 0 2 5 3.141593 0.000001", "0 3 1.5 0 0 1 5 3:141593",
		// Integer data at the edges of the buffer path: 8 and 9 digits,
		// doubled and trailing blanks, counts that do not match, signs.
		"1 1 1 1 1 3 2 12345678 1 2", "1 1 1 1 1 3 3 123456789 1 2", "1 1 1 1 1 2 2 1  2", "1 1 1 1 1 2 2 1 2 ", "1 1 1 1 1 1 3 7",
		"1 1 1 1 1 3 2 1 2", "1 1 1 1 1 2 2 -1 5", "1 1 1 1 1 2 2 1 -5", "1 1 1 1 1 3 2 1234 5678 9012", "1 1 1 1 1 3 2 12345 67890 12",
		"1 1 1 1 1 2 2 1:2 3", "1 1 1 1 1 2 2 1 2\t", "1 1 1 1 1 1 2 00000000", "1 1 1 1 1 1 2 12345678",
		// Timestamps one byte off the one-digit form (timeForm1).
		"-3 1 5/123456 0 0 0", "-3 1 5.12345: 0 0 0", "-3 1 ?.123456 0 0 0", "-3 1 5.1~3456 0 0 0", "-3 1 5.123456/0 0 0"} {
		for _, filler := range []byte{'7', ' '} {
			f.Add([]byte(s), false, filler)
			f.Add([]byte(s), true, filler)
		}
	}
	f.Fuzz(func(t *testing.T, line []byte, withDefs bool, filler byte) {
		if bytes.IndexByte(line, '\n') >= 0 {
			return
		}
		var in []byte
		in = append(in, "0 0 0 0 0 0\n"...)
		for range 2 { // the second time through the field caches
			in = append(in, line...)
			in = append(in, '\n')
		}
		in = append(in, bytes.Repeat([]byte{filler}, winSize)...)
		fast, slow := newTestReader(t, withDefs), newTestReader(t, withDefs)
		fast.sc.Reset(bytes.NewReader(in))
		fast.data = make([]Value, 0, 64)
		if !fast.sc.Scan() { // the first line, which fills the buffer
			t.Fatal(fast.sc.Err())
		}
		fast.takeWindow()
		if err := slow.parseGeneral(line); err != nil {
			slow = nil
		}
		for k := range 2 {
			fast.rec, fast.ctl = Record{}, nil
			if !fast.Next() || !readByBuffer(fast) {
				if k == 1 {
					t.Fatalf("%q: buffer path accepted the line once only", line)
				}
				return
			}
			fast.syncScanner()
			off := int64(12 + k*(len(line)+1))
			if fast.sc.Line() != 2+k || !bytes.Equal(fast.sc.Bytes(), line) || fast.sc.Offset() != off || !fast.sc.Terminated() {
				t.Fatalf("%q: buffer path consumed line %d %q at %d", line, fast.sc.Line(), fast.sc.Bytes(), fast.sc.Offset())
			}
			if slow == nil {
				t.Fatalf("buffer path accepted %q, general parser did not", line)
			}
			if !sameDecoding(fast, slow) {
				t.Fatalf("%q (pass %d): buffer path %+v, general %+v", line, k, fast.rec, slow.rec)
			}
		}
	})
}

// newTestReader returns a Reader of nothing; with defs, it has read a -6
// record defining aliases 2 (for event 3 only) and 7.
func newTestReader(t testing.TB, withDefs bool) *Reader {
	const defs = `-6 -1 -1 -1 -1 2 "%d%s" 2 "%s%lf" 7 "%lf%d"`
	r, err := NewReader(strings.NewReader(""), nil)
	if err != nil {
		t.Fatal(err)
	}
	if withDefs {
		r.rec.Event = 3
		if err := r.parseGeneral([]byte(defs)); err != nil {
			t.Fatal(err)
		}
		r.scope.apply(&r.rec, r.ctl)
	}
	return r
}

// FuzzFastFloat checks fastFloat against strconv.ParseFloat, bit for bit.
func FuzzFastFloat(f *testing.F) {
	for _, s := range []string{"0.000139", "-0.715036", "-0.0", "5.", ".5", "123456789012345", "0.1234567890123456",
		"9007199254740993", "999999999999999.9", "1e5", "-", ".", "1.2.3", "0.000000000000001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, j, ok := fastFloat([]byte(s), 0)
		if !ok {
			return
		}
		want, err := strconv.ParseFloat(s[:j], 64)
		if err != nil || math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("fastFloat(%q) = %v (%d bytes); strconv: %v, %v", s, got, j, want, err)
		}
	})
}

// FuzzQuickInt checks quickInt against the general integer field parser.
func FuzzQuickInt(f *testing.F) {
	for _, s := range []string{"12 x", "-7", "1234567890", "12a", "-", "0"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 || b[0] == ' ' || b[0] == '\t' {
			return
		}
		j, v := quickInt(b)
		if j == 0 {
			return
		}
		w, tok, rest, err := intField(b, "value")
		if err != nil || w != v || len(tok) != j || !bytes.Equal(rest, b[j:]) {
			t.Fatalf("%q: quickInt %d, %d; intField %d, %q, %q, %v", b, j, v, w, tok, rest, err)
		}
	})
}

// TestFieldCacheInit checks that no unused entry of a new Reader's field
// caches answers a lookup of its own slot.
func TestFieldCacheInit(t *testing.T) {
	r := newTestReader(t, false)
	for _, tab := range []struct {
		entries []fieldEntry
		bits    uint
	}{{r.fields.types[:], 10}, {r.fields.procs[:], 12}} {
		if len(tab.entries) != 1<<tab.bits {
			t.Fatalf("a table of %d entries, not 1<<%d", len(tab.entries), tab.bits)
		}
		for s, e := range tab.entries {
			if fieldHash(e.key)>>(64-tab.bits) == uint64(s) {
				t.Fatalf("slot %d: unused key %#x is looked up there", s, e.key)
			}
		}
	}
	if _, ok := r.fields.types.find(0); ok {
		t.Fatal("key 0 found in a new cache")
	}
	if _, ok := r.fields.procs.find(0); ok {
		t.Fatal("key 0 found in a new cache")
	}
}

// TestBufLineTaken checks that the buffer path reads the plain lines of a
// trace long enough to refill the scanner's buffer many times, and that
// Line and Offset still give every record's position.
func TestBufLineTaken(t *testing.T) {
	lines := []string{
		"-3 -21 1.000001 12 0 3 2 1032 3 13", "-4 -21 1.000002 5 0 0", "-3 -52 12.000003 63 0 1 2 7",
		"0 3 1.000004 0 0 1 5 0.123456", "-2 -904 1.000005 1 0 3 2 1 1 1", "-4 1 1.000006 9 0 2 2 0 0",
	}
	var in []byte
	var offs []int64
	for k := range 20000 {
		offs = append(offs, int64(len(in)))
		in = append(in, lines[k*7%len(lines)]...)
		in = append(in, '\n')
	}
	// A malformed line, then enough plain ones that the buffer path is
	// still reading when the error comes.
	bad := len(offs)
	offs = append(offs, int64(len(in)))
	in = append(in, "-3 -21 x 1 0 0\n"...)
	in = append(in, bytes.Repeat([]byte(lines[0]+"\n"), 10)...)
	r, err := NewReader(bytes.NewReader(in), nil)
	if err != nil {
		t.Fatal(err)
	}
	var n, buffered int
	for ; ; n++ {
		if !r.Next() {
			break
		}
		if readByBuffer(r) {
			buffered++
		}
		// Asking for the position now and then, so that the reader tells
		// the scanner about several lines at once.
		if n%7 == 3 && (r.Line() != n+1 || r.Offset() != offs[n]) {
			t.Fatalf("record %d: line %d, offset %d; want %d, %d", n, r.Line(), r.Offset(), n+1, offs[n])
		}
		if want := lines[n*7%len(lines)]; string(r.Record().TimeText) != strings.Fields(want)[2] {
			t.Fatalf("record %d: time %q; line %q", n, r.Record().TimeText, want)
		}
	}
	var pe *ParseError
	if !errors.As(r.Err(), &pe) || n != bad {
		t.Fatalf("read %d records of %d, then %v; want a ParseError", n, bad, r.Err())
	}
	if pe.Line != bad+1 || pe.Offset != offs[bad] || pe.Record != int64(bad) {
		t.Errorf("error at line %d, offset %d, record %d; want %d, %d, %d", pe.Line, pe.Offset, pe.Record, bad+1, offs[bad], bad)
	}
	if buffered < n*99/100 {
		t.Errorf("the buffer path read %d records of %d", buffered, n)
	}
}

// readByBuffer reports whether the buffer path read the record Next just
// returned: it leaves the records it read since the scanner was last told
// (n-winFrom of them) untold, while nextLine tells the scanner of all.
func readByBuffer(r *Reader) bool { return r.n != r.winFrom }
