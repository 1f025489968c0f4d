package dumpi

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// The reference decoders of calls_ref_gen_test.go read through the
// decoder's cursor with these helpers, the plain forms of what the
// generated decode methods do inline.

type refDecoder interface {
	decodeRef(d *decoder)
}

func uint16s[T ~uint16](d *decoder, dst []T) []T {
	n, b := d.count(2)
	if n <= 0 {
		return dst[:0]
	}
	dst = grow(dst, n)
	b = b[:2*len(dst)]
	for i := range dst {
		dst[i] = T(binary.BigEndian.Uint16(b[2*i:]))
	}
	return dst
}

func uint8s[T ~uint8](d *decoder, dst []T) []T {
	n, b := d.count(1)
	if n <= 0 {
		return dst[:0]
	}
	dst = grow(dst, n)
	for i := range dst {
		dst[i] = T(b[i])
	}
	return dst
}

// statuses decodes a status list into dst, or returns dst[:0] when the
// record's mask says status lists are absent.
func (d *decoder) statuses(dst []Status) []Status {
	if !d.hasStatus {
		return dst[:0]
	}
	size := 14
	if d.status10 {
		size = 10
	}
	if off := d.Off; off+4 <= len(d.B) && d.B[off]|d.B[off+1]|d.B[off+2]|d.B[off+3] == 0 {
		d.Off += 4 // the common empty list
		return dst[:0]
	}
	n, b := d.count(size)
	if n <= 0 {
		return dst[:0]
	}
	dst = grow(dst, n)
	for i := range dst {
		e := b[i*size : i*size+size]
		s := &dst[i]
		s.Bytes = int32(uint32(e[0])<<24 | uint32(e[1])<<16 | uint32(e[2])<<8 | uint32(e[3]))
		s.Source = int32(uint32(e[4])<<24 | uint32(e[5])<<16 | uint32(e[6])<<8 | uint32(e[7]))
		s.Cancelled = e[8]
		s.Error = int8(e[9])
		if size == 14 {
			s.Tag = int32(uint32(e[10])<<24 | uint32(e[11])<<16 | uint32(e[12])<<8 | uint32(e[13]))
		} else {
			s.Tag = MPI_ANY_TAG
		}
	}
	return dst
}

// decodeFlags are the decoder switches a comparison runs with.
type decodeFlags uint8

func (f decodeFlags) set(d *decoder) {
	d.hasStatus = f&1 != 0
	d.status10 = f&2 != 0
	d.initTwice = f&4 != 0
	d.cartGetScalar = f&8 != 0
	d.typeStructScalar = f&16 != 0
}

// compareDecode decodes data from offset off as label l with both the
// generated decoder and the reference one and reports any difference in
// the error, the bytes consumed or, on success, the arguments. The fast
// decoder runs into a struct already filled by a decode of prev, to
// exercise the reuse of its slices.
func compareDecode(t *testing.T, l Label, f decodeFlags, prev, data []byte, off int) {
	t.Helper()
	if !l.IsCall() {
		return
	}
	off = min(off, len(data))
	var fast, ref decoder
	f.set(&fast)
	f.set(&ref)
	a := newArgs(l)
	fast.Reset(prev)
	a.decode(&fast, prev)
	fast.Reset(data)
	rest := a.decode(&fast, data[off:])
	if fast.Err == nil {
		fast.Off = len(data) - len(rest)
	}
	b := newArgs(l)
	ref.Reset(data)
	ref.Off = off
	b.(refDecoder).decodeRef(&ref)
	if fast.Err != ref.Err {
		t.Fatalf("%v flags %#x, % x from %d: error %v, reference %v", l, f, data, off, fast.Err, ref.Err)
	}
	if fast.Err != nil {
		return
	}
	if fast.Off != ref.Off {
		t.Fatalf("%v flags %#x, % x from %d: consumed %d bytes, reference %d", l, f, data, off, fast.Off, ref.Off)
	}
	if diff := cmp.Diff(b, a, cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("%v flags %#x, % x from %d: arguments differ from the reference (-ref +fast):\n%s", l, f, data, off, diff)
	}
}

// refSeeds returns the argument bytes of every fixture call, with the
// flags they decode under, plus a zero record of every label.
func refSeeds(t testing.TB) (labels []Label, flags []decodeFlags, datas [][]byte) {
	bins, err := filepath.Glob("testdata/*/*-[0-9][0-9][0-9][0-9].bin")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range bins {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		file, err := NewFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		h, err := file.Header()
		if err != nil {
			t.Fatal(err)
		}
		lay := layoutOf(h.Version)
		r := file.Calls()
		for r.Next() {
			c := r.Record()
			var e encoder
			e.setLayout(lay)
			e.hasStatus = c.Mask&0x03 != 0
			c.Args().encode(&e)
			var fl decodeFlags
			if e.hasStatus {
				fl |= 1
			}
			if lay.status10 {
				fl |= 2
			}
			if lay.initTwice {
				fl |= 4
			}
			if lay.cartGetScalar {
				fl |= 8
			}
			if lay.typeStructScalar {
				fl |= 16
			}
			labels, flags, datas = append(labels, c.Label), append(flags, fl), append(datas, e.b)
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
	}
	for l := range Label(NumLabels) {
		if a := newArgs(l); a != nil {
			var e encoder
			e.hasStatus = true
			a.encode(&e)
			labels, flags, datas = append(labels, l), append(flags, 1), append(datas, e.b)
		}
	}
	return labels, flags, datas
}

// TestDecodeMatchesRef compares the generated decoders with the reference
// ones on every fixture call and zero record, on every truncation of
// each, and on random corruptions of them.
func TestDecodeMatchesRef(t *testing.T) {
	labels, flags, datas := refSeeds(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for i, data := range datas {
		l, f := labels[i], flags[i]
		prev := datas[(i+1)%len(datas)]
		compareDecode(t, l, f, prev, data, 0)
		compareDecode(t, l, f^1, prev, data, 0)
		for n := range len(data) {
			compareDecode(t, l, f, prev, data[:n], 0)
		}
		for range 20 {
			m := append([]byte(nil), data...)
			if len(m) > 0 {
				for range 1 + rng.IntN(3) {
					m[rng.IntN(len(m))] = byte(rng.Uint32())
				}
			}
			off := rng.IntN(2)
			compareDecode(t, l, decodeFlags(rng.IntN(32)), prev, append(make([]byte, off), m...), off)
		}
	}
}

// FuzzDecodeMatchesRef compares the generated decoder of any label with
// the reference one on arbitrary bytes and flags.
func FuzzDecodeMatchesRef(f *testing.F) {
	labels, flags, datas := refSeeds(f)
	for i := range datas {
		f.Add(uint16(labels[i]), uint8(flags[i]), datas[i], uint8(0))
	}
	f.Fuzz(func(t *testing.T, label uint16, flags uint8, data []byte, off uint8) {
		l := Label(label % NumLabels)
		h := len(data) / 2
		compareDecode(t, l, decodeFlags(flags&31), data[h:], data, int(off%8))
	})
}
