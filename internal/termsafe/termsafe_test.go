package termsafe

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"pgregory.net/rapid"
)

// hostile is a name that would recolour, ring, overwrite and clear a
// terminal if printed raw.
const hostile = "evil\x1b[31mred\x1b[0m\a\rover\x9b2J\x7f\xff\u00e9\u0085\ttab\nline"

func TestString(t *testing.T) {
	want := `evil\x1b[31mred\x1b[0m\x07\x0dover\x9b2J\x7f\xffé\u0085\x09tab\x0aline`
	if got := String(hostile); got != want {
		t.Errorf("String(hostile) = %s, want %s", got, want)
	}
	if s := "plain é ü 漢"; String(s) != s {
		t.Errorf("String(%q) = %q, want it unchanged", s, String(s))
	}
	if n := testing.AllocsPerRun(100, func() { String("plain é") }); n != 0 {
		t.Errorf("String of a clean name allocates %v times, want 0", n)
	}
}

func TestWriterKeepsNewlines(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	if _, err := w.Write([]byte("a\x1bb\n\u0085c\r\t\n")); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "a\\x1bb\n\\u0085c\\x0d\t\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestWriterSplits: the output does not depend on how the text is cut
// into Writes, and holds no control character but newlines.
func TestWriterSplits(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		text := rapid.SliceOf(rapid.SampledFrom([]byte("ab\n\t\x1b\r\x7f\xc2\x85\x9b\xe6\xbc\xa2\xff\xc3\xa9"))).Draw(t, "text")
		var whole, cut bytes.Buffer
		w := NewWriter(&whole)
		w.Write(text)
		w.Flush()
		w = NewWriter(&cut)
		for rest := text; len(rest) > 0; {
			n := rapid.IntRange(1, len(rest)).Draw(t, "n")
			w.Write(rest[:n])
			rest = rest[n:]
		}
		w.Flush()
		if whole.String() != cut.String() {
			t.Fatalf("whole %q, cut %q", whole.String(), cut.String())
		}
		lines := strings.Split(whole.String(), "\n")
		for _, l := range lines {
			if l = strings.ReplaceAll(l, "\t", ""); String(l) != l || !utf8.ValidString(l) {
				t.Fatalf("line %q keeps a character to escape", l)
			}
		}
		if want := strings.Count(string(text), "\n"); len(lines)-1 != want {
			t.Fatalf("%d newlines, want %d", len(lines)-1, want)
		}
	})
}

func TestAppendControls(t *testing.T) {
	got := string(AppendControls(nil, []byte("koi8 \xc7\xcc\xc1\x1b[31m\r\a\x7f\u0085\u00e9\t\n\xc2")))
	want := `koi8 ` + "\xc7\xcc\xc1" + `\x1b[31m\x0d\x07\x7f\u0085é` + "\t" + `\x0a` + "\xc2"
	if got != want {
		t.Errorf("AppendControls = %q, want %q", got, want)
	}
}

// TestPlainLen: the eight-bytes-at-a-time scan finds the first byte that
// is not printable ASCII, newline or tab, as a byte-by-byte scan does.
func TestPlainLen(t *testing.T) {
	plain := func(b byte) bool { return b >= 0x20 && b < 0x7f || b == '\n' || b == '\t' }
	for b := range 256 {
		p := bytes.Repeat([]byte{'a'}, 16)
		for i := range p {
			q := bytes.Clone(p)
			q[i] = byte(b)
			want := len(q)
			if !plain(byte(b)) {
				want = i
			}
			if got := plainLen(q); got != want {
				t.Fatalf("plainLen with %#x at %d = %d, want %d", b, i, got, want)
			}
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		p := rapid.SliceOf(rapid.Byte()).Draw(t, "p")
		want := 0
		for want < len(p) && plain(p[want]) {
			want++
		}
		if got := plainLen(p); got != want {
			t.Fatalf("plainLen(%q) = %d, want %d", p, got, want)
		}
	})
}

// TestWriterPassesPlainText: plain text reaches the underlying writer in
// one Write, unchanged and not copied.
func TestWriterPassesPlainText(t *testing.T) {
	var got [][]byte
	w := NewWriter(writerFunc(func(p []byte) (int, error) {
		got = append(got, p)
		return len(p), nil
	}))
	text := []byte("int count=1\n\tMPI_Send returning at walltime 1.000000000.\n")
	if n, err := w.Write(text); n != len(text) || err != nil {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if len(got) != 1 || string(got[0]) != string(text) || &got[0][0] != &text[0] {
		t.Fatalf("the underlying writer got %q, want the text itself in one Write", got)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestAppendTextAsWriter: AppendText of a text is what a Writer writes
// of it, and pieces escaped one by one between printable ASCII read as
// the whole text through a Writer.
func TestAppendTextAsWriter(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		alphabet := []byte("ab\n\t\x1b\r\x7f\xc2\x85\x9b\xe6\xbc\xa2\xff\xc3\xa9")
		pieces := rapid.SliceOf(rapid.SliceOf(rapid.SampledFrom(alphabet))).Draw(t, "pieces")
		var whole bytes.Buffer
		w := NewWriter(&whole)
		var got []byte
		for _, p := range pieces {
			w.Write(p)
			w.Write([]byte(`"`))
			got = append(AppendText(got, p), '"')
		}
		w.Flush()
		if string(got) != whole.String() {
			t.Fatalf("AppendText %q, Writer %q", got, whole.String())
		}
	})
}
