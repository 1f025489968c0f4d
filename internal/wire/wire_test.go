package wire

import (
	"errors"
	"testing"
)

func TestDec(t *testing.T) {
	var d Dec
	d.Reset([]byte{1, 0, 2, 0, 0, 3, 0xff, 0xff, 0xfe, 0, 0, 0, 0, 0, 0, 0, 9, 'h', 'i'})
	if v := d.U8(); v != 1 {
		t.Fatalf("U8 = %d", v)
	}
	if v := d.U16(); v != 2 {
		t.Fatalf("U16 = %d", v)
	}
	if v := d.U32(); v != 3<<8|0xff {
		t.Fatalf("U32 = %#x", v)
	}
	if v := d.U16(); v != 0xfffe {
		t.Fatalf("U16 = %#x", v)
	}
	if v := d.I64(); v != 9 {
		t.Fatalf("I64 = %d", v)
	}
	if b := d.Bytes(2); string(b) != "hi" || d.Left() != 0 || d.Err != nil {
		t.Fatalf("Bytes = %q, left %d, err %v", b, d.Left(), d.Err)
	}
	if v := d.U32(); v != 0 || !errors.Is(d.Err, ErrShort) {
		t.Fatalf("read past the end: %d, %v", v, d.Err)
	}
	if v := d.U8(); v != 0 || !errors.Is(d.Err, ErrShort) {
		t.Fatal("error is not sticky")
	}
}

func TestCount(t *testing.T) {
	for _, c := range []struct {
		in   []byte
		size int
		want int
		err  error
	}{
		{[]byte{0, 0, 0, 2, 1, 2, 3, 4}, 4, 0, ErrTooMany},
		{[]byte{0, 0, 0, 2, 1, 2, 3, 4}, 2, 2, nil},
		{[]byte{0xff, 0xff, 0xff, 0xff}, 1, 0, ErrCount},
		{[]byte{0, 0}, 1, 0, ErrShort},
		{[]byte{0x7f, 0xff, 0xff, 0xff}, 8, 0, ErrTooMany},
	} {
		var d Dec
		d.Reset(c.in)
		n := d.Count(c.size)
		if n != c.want || !errors.Is(d.Err, c.err) || (c.err == nil) != (d.Err == nil) {
			t.Errorf("Count(%v, %d) = %d, %v; want %d, %v", c.in, c.size, n, d.Err, c.want, c.err)
		}
	}
	if !errors.Is(ErrTooMany, ErrShort) {
		t.Error("ErrTooMany must wrap ErrShort")
	}
}

func TestNextAndAppend(t *testing.T) {
	b := AppendU16(nil, 0x102)
	b = AppendU32(b, 0x3040506)
	b = AppendI32(b, -2)
	b = AppendU64(b, 7)
	b = AppendI64(b, -1)
	b = AppendU8(b, 9)
	var d Dec
	d.Reset(b)
	if n := d.Next(6); len(n) != 6 || n[0] != 1 || n[5] != 6 {
		t.Fatalf("Next = %v", n)
	}
	if d.I32() != -2 || d.U64() != 7 || d.I64() != -1 || d.U8() != 9 || d.Err != nil {
		t.Fatal("round trip failed")
	}
	if d.Next(1) != nil || !errors.Is(d.Err, ErrShort) {
		t.Fatal("Next past the end")
	}
}
