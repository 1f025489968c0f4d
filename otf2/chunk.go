package otf2

import (
	"errors"
	"fmt"
	"io"
)

// chunkHeaderSize is the size of a chunk header in chunked files.
const chunkHeaderSize = 18

// DefaultEventChunkSize and DefaultDefChunkSize are libotf2's default
// chunk sizes, used by writers when the options leave them zero.
const (
	DefaultEventChunkSize = 1 << 20
	DefaultDefChunkSize   = 4 << 20
	// MinChunkSize and MaxChunkSize bound the chunk sizes libotf2 writes.
	MinChunkSize = 256 << 10
	MaxChunkSize = 16 << 20
)

// maxReadChunk bounds the chunk size a reader accepts from an anchor.
const maxReadChunk = 1 << 30

// chunks reads a chunked OTF2 file one chunk at a time, or, if win is
// set, win bytes of a chunk at a time (the caller asks for more with
// slide). The buffer grows only as bytes arrive, so a forged chunk size
// costs nothing.
type chunks struct {
	src   io.Reader
	size  int64 // chunk size
	win   int64 // if not 0, the bytes of a chunk read at a time
	buf   []byte
	base  int64 // file offset of buf[0]
	pos   int64 // file offset of src's next byte
	end   int64 // file offset of the current chunk's end
	first uint64
	last  uint64
	be    bool
	eof   bool // src is exhausted
	ended bool // the current chunk's end-of-chunk record is read
	// limit is the file's size if known (0 if not): reading whole
	// chunks, a chunk's buffer is then allocated at once at the chunk's
	// size or what is left of the file, and otherwise grown by doubling
	// as bytes arrive
	limit int64
}

func (c *chunks) reset(src io.Reader, size int64) {
	c.src, c.size = src, size
	c.buf = c.buf[:0]
	c.base, c.pos, c.end = 0, 0, 0
	c.eof, c.ended = false, false
}

// at sets the file offset of src's first byte, for a src that starts at
// a chunk other than the first.
func (c *chunks) at(off int64) { c.base, c.pos, c.end = off, off, off }

// whole reports whether buf holds the rest of the current chunk, or
// what is left of it is not read (endChunk).
func (c *chunks) whole() bool { return c.eof || c.pos >= c.end || c.ended }

// endChunk says the chunk's end-of-chunk record is read: the rest of the
// chunk is padding, which load skips.
func (c *chunks) endChunk() { c.ended = true }

// load reads the next chunk, whole or its first win bytes, and its
// header. It returns io.EOF if the file has no more bytes.
func (c *chunks) load() error {
	// the rest of the current chunk (after its end-of-chunk record)
	c.ended = false
	for !c.whole() {
		c.buf, c.base = c.buf[:0], c.pos
		if err := c.fill(0); err != nil {
			return err
		}
	}
	c.buf = c.buf[:0]
	c.base = c.pos
	c.end = c.base + c.size
	if c.eof {
		return io.EOF
	}
	if err := c.fill(chunkHeaderSize); err != nil {
		return err
	}
	if len(c.buf) == 0 {
		return io.EOF
	}
	return c.header()
}

// slide drops the first keep bytes of buf and reads on until it holds
// need bytes or the rest of the chunk.
func (c *chunks) slide(keep int, need int64) error {
	n := copy(c.buf, c.buf[keep:])
	c.buf = c.buf[:n]
	c.base += int64(keep)
	return c.fill(need)
}

// fill reads the chunk on into buf: up to win bytes, or the whole chunk,
// and at least need bytes if the chunk has them.
func (c *chunks) fill(need int64) error {
	rest := c.end - c.base // the chunk's bytes from buf[0]
	want := rest
	if c.win > 0 {
		want = min(max(need, c.win), rest)
	}
	for int64(len(c.buf)) < want && !c.eof {
		if len(c.buf) == cap(c.buf) && len(c.buf) > 0 && c.pos == c.limit {
			// the file's size says it ends here: a byte more, or the
			// end, before the buffer grows
			var one [1]byte
			m, err := c.src.Read(one[:])
			if m == 0 && errors.Is(err, io.EOF) {
				c.eof = true
				break
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return err
			}
			if m == 1 {
				c.buf = append(c.buf, one[0])
				c.pos++
			}
			if err != nil {
				c.eof = true
				break
			}
			continue
		}
		if len(c.buf) == cap(c.buf) {
			n := max(2*int64(cap(c.buf)), 64<<10)
			switch {
			case c.win > 0:
				// a part at once; past it (a long record), doubling as
				// bytes arrive, so that a forged length costs nothing
				n = max(n, min(want, c.win))
				if left := c.limit - c.base; left > int64(cap(c.buf)) {
					n = min(n, left) // a small file needs no full part
				}
			case c.limit-c.base > int64(cap(c.buf)):
				n = max(n, c.limit-c.base)
			}
			n = min(n, rest)
			nb := make([]byte, len(c.buf), n)
			copy(nb, c.buf)
			c.buf = nb
		}
		m, err := c.src.Read(c.buf[len(c.buf):min(int64(cap(c.buf)), want)])
		c.buf = c.buf[:len(c.buf)+m]
		c.pos += int64(m)
		if err != nil {
			if errors.Is(err, io.EOF) {
				c.eof = true
				break
			}
			return err
		}
	}
	return nil
}

func (c *chunks) header() error {
	if len(c.buf) < chunkHeaderSize {
		return fmt.Errorf("chunk header: %w", io.ErrUnexpectedEOF)
	}
	if c.buf[0] != bChunkHeader {
		return fmt.Errorf("%w: chunk does not start with a chunk header (byte %#x)", ErrFormat, c.buf[0])
	}
	switch c.buf[1] {
	case endianLittle:
		c.be = false
	case endianBig:
		c.be = true
	default:
		return fmt.Errorf("%w: bad endianness byte %#x", ErrFormat, c.buf[1])
	}
	cur := cursor{b: c.buf[2:chunkHeaderSize], be: c.be}
	c.first, c.last = cur.u64(), cur.u64()
	return nil
}
