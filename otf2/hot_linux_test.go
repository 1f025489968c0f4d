package otf2

import (
	"bytes"
	"syscall"
	"testing"

	"pgregory.net/rapid"
)

// TestDecodeHotGuardPage runs decodeHot on inputs that end where an
// inaccessible page begins: a read past the end of b would crash the
// test.
func TestDecodeHotGuardPage(t *testing.T) {
	page := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 2*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(mem)
	if err := syscall.Mprotect(mem[page:], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	dst := make([]BatchEvent, 64)
	// every hot kind with its fields at their largest and smallest, with
	// and without a timestamp, ending at the guard page and up to a
	// window before it
	comp := func(n int) []byte { return append([]byte{byte(n)}, make([]byte, n)...) }
	for _, size := range []int{0, 4, 8} {
		c32, c64 := comp(min(size, 4)), comp(size)
		bodies := map[Kind][]byte{
			KindEnter:              c32,
			KindMpiSend:            concat(c32, c32, c32, c64),
			KindMpiCollectiveBegin: nil,
			KindMpiCollectiveEnd:   concat([]byte{1}, c32, c32, c64, c64),
			KindMetric:             concat(c32, []byte{1, 0}, c64),
		}
		for k, body := range bodies {
			rec := []byte{byte(k)}
			if k != KindEnter {
				rec = append(rec, byte(len(body)))
			}
			rec = append(rec, body...)
			for _, ts := range []bool{false, true} {
				in := rec
				if ts {
					in = concat([]byte{bTimestamp, 1, 2, 3, 4, 5, 6, 7, 8}, rec)
				}
				for pad := range fastWindow + 1 {
					b := mem[page-len(in)-pad : page]
					copy(b, in)
					clear(b[len(in):])
					if n, _, _ := decodeHot(b, 0, 0, dst); n != 1 && len(b) >= fastWindow {
						t.Errorf("kind %v, fields of %d bytes, timestamp %v, %d bytes after: %d events, want 1", k, size, ts, pad, n)
					}
				}
			}
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		in := genHotRecords(t)
		in = in[:min(len(in), page)]
		b := mem[page-len(in) : page]
		copy(b, in)
		for off := range len(b) + 1 {
			decodeHot(b, off, 0, dst)
		}
	})
}

func concat(bs ...[]byte) []byte { return bytes.Join(bs, nil) }
