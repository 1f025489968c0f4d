package inflate

import (
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"
)

// class names the outcome of a decode: "ok", "eof" (input ended early),
// "corrupt" or the other error.
func class(err error) string {
	var ce flate.CorruptInputError
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "eof"
	case errors.Is(err, ErrCorrupt), errors.As(err, &ce):
		return "corrupt"
	}
	return err.Error()
}

var errTooMuch = errors.New("more than 4 MiB of output")

// readAll reads r to the end with reads of the sizes in sizes, in turn.
func readAll(r io.Reader, sizes []int) ([]byte, error) {
	var out []byte
	buf := make([]byte, 1<<17)
	for i := 0; ; i++ {
		n, err := r.Read(buf[:sizes[i%len(sizes)]])
		out = append(out, buf[:n]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if len(out) > 4<<20 {
			return out, errTooMuch
		}
	}
}

// compare decodes data with compress/flate and a Decoder and reports any
// difference in output or outcome.
func compare(t *testing.T, data []byte) string {
	t.Helper()
	want, werr := readAll(flate.NewReader(bytes.NewReader(data)), []int{1 << 17})
	var d Decoder
	sources := []struct {
		name  string
		src   io.Reader
		sizes []int
	}{
		{"whole", bytes.NewReader(data), []int{1 << 17}},
		{"onebyte", iotest.OneByteReader(bytes.NewReader(data)), []int{1, 7, 4096, 100}},
		{"dataerr", iotest.DataErrReader(iotest.HalfReader(bytes.NewReader(data))), []int{300, 65536}},
	}
	for _, s := range sources {
		d.Reset(s.src)
		got, gerr := readAll(&d, s.sizes)
		if gerr == errTooMuch || werr == errTooMuch {
			n := min(len(got), len(want))
			if gerr != werr || !bytes.Equal(got[:n], want[:n]) {
				t.Fatalf("%s: long outputs differ", s.name)
			}
			continue
		}
		if class(gerr) != class(werr) {
			t.Fatalf("%s: outcome %v, compress/flate %v", s.name, gerr, werr)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s (%s): %d bytes differ from compress/flate's %d", s.name, class(gerr), len(got), len(want))
		}
	}
	return class(werr)
}

// otfText returns about n bytes of text that looks like an OTF events file.
func otfText(n int) []byte {
	var b bytes.Buffer
	r := rand.New(rand.NewPCG(1, 2))
	t := uint64(1000)
	for b.Len() < n {
		t += uint64(r.IntN(3000))
		fmt.Fprintf(&b, "%x\n*%x\n", t, r.IntN(8)+1)
		switch r.IntN(5) {
		case 0:
			fmt.Fprintf(&b, "E%x\n", r.IntN(4)+2)
		case 1:
			fmt.Fprintf(&b, "CC%x %x\n", 1, r.Uint64()>>40)
		case 2:
			fmt.Fprintf(&b, "L%x\n", r.IntN(4)+2)
		case 3:
			fmt.Fprintf(&b, "S%x L%x T%x C1\n", r.IntN(8)+1, 8<<r.IntN(10), r.IntN(32))
		default:
			fmt.Fprintf(&b, "COP1 C1 S8 R8 T37\n")
		}
	}
	return b.Bytes()[:n]
}

// texts returns inputs of different kinds for the compressor.
func texts() map[string][]byte {
	r := rand.New(rand.NewPCG(3, 4))
	random := make([]byte, 200_000)
	for i := range random {
		random[i] = byte(r.Uint32())
	}
	skewed := make([]byte, 200_000)
	for i := range skewed {
		skewed[i] = byte(r.ExpFloat64() * 3)
	}
	runs := make([]byte, 0, 300_000)
	for len(runs) < 300_000 {
		c := byte(r.IntN(4))
		runs = append(runs, bytes.Repeat([]byte{c, c + 1, c, c + 2, c}[:r.IntN(5)+1], r.IntN(400)+1)...)
	}
	return map[string][]byte{
		"otf":    otfText(400_000),
		"random": random,
		"skewed": skewed,
		"runs":   runs,
		"empty":  nil,
		"short":  []byte("a"),
	}
}

// deflate compresses text at level, with a Flush every flushEvery bytes
// (0: none); final closes the stream with a final block.
func deflate(t testing.TB, text []byte, level, flushEvery int, final bool) []byte {
	var buf bytes.Buffer
	w, err := flate.NewWriter(&buf, level)
	if err != nil {
		t.Fatal(err)
	}
	for len(text) > 0 {
		n := len(text)
		if flushEvery > 0 {
			n = min(n, flushEvery)
		}
		w.Write(text[:n])
		text = text[n:]
		if flushEvery > 0 {
			w.Flush()
		}
	}
	if final {
		w.Close()
	} else {
		w.Flush()
	}
	return buf.Bytes()
}

func TestCompressed(t *testing.T) {
	for name, text := range texts() {
		for _, level := range []int{flate.HuffmanOnly, 0, 1, 5, 9} {
			for _, flush := range []int{0, 1000, 65536} {
				for _, final := range []bool{true, false} {
					z := deflate(t, text, level, flush, final)
					t.Run(fmt.Sprintf("%s/%d/%d/%v", name, level, flush, final), func(t *testing.T) {
						want := "ok"
						if !final {
							want = "eof"
						}
						if got := compare(t, z); got != want {
							t.Errorf("got %s, want %s", got, want)
						}
						// Truncations and damage agree with compress/flate.
						if len(z) > 10 && level != 0 {
							for _, cut := range []int{1, 2, 3, 5, len(z) / 3, len(z) / 2} {
								compare(t, z[:len(z)-cut])
							}
							d := bytes.Clone(z)
							for i := 3; i < len(d); i += len(d)/7 + 1 {
								d[i] ^= 0x5a
							}
							compare(t, d)
						}
					})
				}
			}
		}
	}
}

// bitWriter writes DEFLATE bits, least significant first.
type bitWriter struct {
	out   []byte
	acc   uint64
	nbits uint
}

func (w *bitWriter) bits(v uint64, n uint) *bitWriter {
	w.acc |= v << w.nbits
	w.nbits += n
	for w.nbits >= 8 {
		w.out = append(w.out, byte(w.acc))
		w.acc >>= 8
		w.nbits -= 8
	}
	return w
}

// code writes a Huffman code of n bits, most significant first.
func (w *bitWriter) code(c uint64, n uint) *bitWriter {
	for i := int(n) - 1; i >= 0; i-- {
		w.bits(c>>i&1, 1)
	}
	return w
}

// align pads to a byte boundary with zero bits.
func (w *bitWriter) align() *bitWriter {
	if w.nbits > 0 {
		w.bits(0, 8-w.nbits)
	}
	return w
}

func (w *bitWriter) bytes() []byte {
	if w.nbits > 0 {
		w.out = append(w.out, byte(w.acc))
		w.acc, w.nbits = 0, 0
	}
	return w.out
}

// fixedLit writes literal/length symbol s with the fixed code.
func (w *bitWriter) fixedLit(s int) *bitWriter {
	switch {
	case s < 144:
		return w.code(uint64(0x30+s), 8)
	case s < 256:
		return w.code(uint64(0x190+s-144), 9)
	case s < 280:
		return w.code(uint64(s-256), 7)
	}
	return w.code(uint64(0xc0+s-280), 8)
}

func TestHandMade(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		want string // output, or "!class"
	}{
		{"empty input", nil, "!eof"},
		{"fixed literal", new(bitWriter).bits(1, 1).bits(1, 2).fixedLit('a').fixedLit(256).bytes(), "a"},
		{"fixed match", new(bitWriter).bits(1, 1).bits(1, 2).fixedLit('a').fixedLit('b').
			fixedLit(258).code(1, 5).fixedLit(256).bytes(), "ababab"},
		{"length 258", new(bitWriter).bits(1, 1).bits(1, 2).fixedLit('x').
			fixedLit(285).code(0, 5).fixedLit(256).bytes(), string(bytes.Repeat([]byte("x"), 259))},
		{"distance too far", new(bitWriter).bits(1, 1).bits(1, 2).fixedLit('a').
			fixedLit(257).code(1, 5).fixedLit(256).bytes(), "!corrupt"},
		{"length symbol 286", new(bitWriter).bits(1, 1).bits(1, 2).fixedLit('a').
			fixedLit(286).bytes(), "!corrupt"},
		{"distance symbol 30", new(bitWriter).bits(1, 1).bits(1, 2).fixedLit('a').
			fixedLit(257).code(30, 5).bits(0, 16).bytes(), "!corrupt"},
		{"block type 3", new(bitWriter).bits(1, 1).bits(3, 2).bits(0, 16).bytes(), "!corrupt"},
		{"stored", append(new(bitWriter).bits(1, 1).bits(0, 2).bytes(), 3, 0, 0xfc, 0xff, 'a', 'b', 'c'), "abc"},
		{"stored bad length", append(new(bitWriter).bits(1, 1).bits(0, 2).bytes(), 3, 0, 0xfc, 0xfe, 'a', 'b', 'c'), "!corrupt"},
		{"stored truncated", append(new(bitWriter).bits(1, 1).bits(0, 2).bytes(), 3, 0, 0xfc, 0xff, 'a', 'b'), "!eof"},
		{"sync markers", append(append(new(bitWriter).bits(0, 1).bits(0, 2).bytes(), 0, 0, 0xff, 0xff),
			new(bitWriter).bits(0, 1).bits(1, 2).fixedLit('z').fixedLit(256).bits(1, 1).bits(0, 2).align().
				bits(0, 16).bits(0xffff, 16).bytes()...), "z"},
		{"no final block", append(new(bitWriter).bits(0, 1).bits(0, 2).bytes(), 0, 0, 0xff, 0xff), "!eof"},
		// Dynamic block whose code length code has a single code of
		// length 1 (accepted), then uses the missing code (rejected).
		{"degenerate code length code", new(bitWriter).bits(1, 1).bits(2, 2).bits(0, 5).bits(0, 5).bits(0, 4).
			bits(0, 3).bits(0, 3).bits(0, 3).bits(1, 3).bits(1, 1).bytes(), "!corrupt"},
		// Over-subscribed code length code.
		{"oversubscribed", new(bitWriter).bits(1, 1).bits(2, 2).bits(0, 5).bits(0, 5).bits(0, 4).
			bits(1, 3).bits(1, 3).bits(1, 3).bits(0, 3).bits(0, 16).bytes(), "!corrupt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var d Decoder
			d.Reset(bytes.NewReader(tc.data))
			got, err := io.ReadAll(&d)
			if want, ok := strings(tc.want); ok {
				if err != nil || string(got) != want {
					t.Errorf("got %q, %v; want %q", got, err, want)
				}
			} else if class(err) != want {
				t.Errorf("got %q, %v; want %s", got, err, want)
			}
			compare(t, tc.data)
		})
	}
}

// strings splits a want field: an output, or a "!class".
func strings(s string) (string, bool) {
	if len(s) > 0 && s[0] == '!' {
		return s[1:], false
	}
	return s, true
}

func TestInputOffset(t *testing.T) {
	text := otfText(100_000)
	z := deflate(t, text, 6, 10_000, true)
	z = append(z, "trailer"...)
	var d Decoder
	d.Reset(bytes.NewReader(z))
	got, err := io.ReadAll(&d)
	if err != nil || !bytes.Equal(got, text) {
		t.Fatalf("%d bytes, %v", len(got), err)
	}
	if d.InputOffset() != int64(len(z)-len("trailer")) {
		t.Errorf("InputOffset %d, want %d", d.InputOffset(), len(z)-len("trailer"))
	}
	// Input that ends early counts as all consumed.
	z = deflate(t, text, 6, 10_000, false)
	d.Reset(bytes.NewReader(z))
	if _, err := io.ReadAll(&d); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("unfinished stream: %v", err)
	}
	if tail, eof := d.InputTail(); d.InputOffset() != int64(len(z)) || !eof || tail != [4]byte{0, 0, 0xff, 0xff} {
		t.Errorf("InputOffset %d of %d, tail %x, eof %v", d.InputOffset(), len(z), tail, eof)
	}
}

func TestAllocs(t *testing.T) {
	z := deflate(t, otfText(1<<20), 6, 50_000, false)
	z = append(z, deflate(t, texts()["random"], 1, 30_000, true)...)
	var d Decoder
	r := bytes.NewReader(z)
	buf := make([]byte, 32<<10)
	read := func() {
		r.Reset(z)
		d.Reset(r)
		for {
			if _, err := d.Read(buf); err != nil {
				if err != io.EOF {
					t.Fatal(err)
				}
				return
			}
		}
	}
	read()
	if n := testing.AllocsPerRun(5, read); n != 0 {
		t.Errorf("%v allocations per stream, want 0", n)
	}
}

func FuzzDecoder(f *testing.F) {
	text := otfText(20_000)
	for _, level := range []int{flate.HuffmanOnly, 0, 1, 9} {
		f.Add(deflate(f, text, level, 3000, level != 1))
	}
	f.Add(deflate(f, texts()["runs"][:5000], 6, 0, true))
	f.Fuzz(func(t *testing.T, data []byte) {
		compare(t, data)
	})
}

// FuzzRoundTrip compresses fuzzed text with compress/flate and inflates it.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte("E1X32\nS3L400T2aC3e8\n4bf\n*1\n"), uint8(6), uint16(100))
	f.Fuzz(func(t *testing.T, text []byte, level uint8, flush uint16) {
		z := deflate(t, text, int(level%11)-1, int(flush), flush%2 == 0)
		var d Decoder
		d.Reset(bytes.NewReader(z))
		got, err := io.ReadAll(&d)
		if flush%2 != 0 {
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("unfinished stream: %v", err)
			}
		} else if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, text) {
			t.Fatalf("round trip differs")
		}
	})
}

func BenchmarkInflate(b *testing.B) {
	text := otfText(4 << 20)
	z := deflate(b, text, 6, 1<<20, true)
	buf := make([]byte, 64<<10)
	b.Run("inflate", func(b *testing.B) {
		var d Decoder
		r := bytes.NewReader(z)
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		for b.Loop() {
			r.Reset(z)
			d.Reset(r)
			for {
				if _, err := d.Read(buf); err != nil {
					break
				}
			}
		}
	})
	b.Run("flate", func(b *testing.B) {
		r := bytes.NewReader(z)
		fr := flate.NewReader(r)
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		for b.Loop() {
			r.Reset(z)
			fr.(flate.Resetter).Reset(r, nil)
			for {
				if _, err := fr.Read(buf); err != nil {
					break
				}
			}
		}
	})
}
