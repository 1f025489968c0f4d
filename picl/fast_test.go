package picl

import (
	"bytes"
	"testing"
)

// FuzzFixedFields checks the one-pass fast path of the fixed fields against
// the general parser: whenever the fast path accepts a line, the general
// parser accepts it too with the same fields and the same rest.
func FuzzFixedFields(f *testing.F) {
	for _, s := range []string{"-3 -901 -0.715036 6 0 0", "-4 -52 0.000516 6 0 3 2 8 0 0", "\t0  1 1e-3 -0 -1 2 x",
		"-3 -1 0.1 2147483647 0 0", "1 2 3 4 5 -6", "-3 -901 0.0 6 0 0x", "+3 1 1 1 1 1"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.IndexByte(line, '\n') >= 0 {
			return
		}
		var r Reader
		i := r.fastFixed(line)
		if i < 0 {
			return
		}
		fast := r.rec
		r.rec = Record{}
		var rest []byte
		if err := r.slowFixed(line, &rest); err != nil {
			t.Fatalf("fast path accepted %q, general parser: %v", line, err)
		}
		slow := r.rec
		if fast.Type != slow.Type || fast.Event != slow.Event || fast.Time != slow.Time ||
			!bytes.Equal(fast.TimeText, slow.TimeText) || fast.Processor != slow.Processor ||
			fast.Process != slow.Process || fast.Count != slow.Count || !bytes.Equal(line[i:], rest) {
			t.Fatalf("%q: fast %+v rest %q, general %+v rest %q", line, fast, line[i:], slow, rest)
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
