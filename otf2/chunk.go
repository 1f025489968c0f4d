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

// chunks reads a chunked OTF2 file one chunk at a time. The buffer grows
// only as bytes arrive, so a forged chunk size costs nothing.
type chunks struct {
	src   io.Reader
	size  int64 // chunk size
	buf   []byte
	base  int64 // file offset of buf[0]
	next  int64 // file offset of the next chunk
	first uint64
	last  uint64
	be    bool
	eof   bool // src is exhausted
	// limit is the file's size if known (0 if not): a chunk's buffer
	// is then allocated at once at the chunk's size or what is left of
	// the file, and otherwise grown by doubling as bytes arrive
	limit int64
}

func (c *chunks) reset(src io.Reader, size int64) {
	c.src, c.size = src, size
	c.buf = c.buf[:0]
	c.base, c.next = 0, 0
	c.eof = false
}

// load reads the next chunk. It returns io.EOF if the file has no more bytes.
func (c *chunks) load() error {
	c.buf = c.buf[:0]
	c.base = c.next
	if c.eof {
		return io.EOF
	}
	for int64(len(c.buf)) < c.size {
		if len(c.buf) == cap(c.buf) {
			n := int64(max(2*cap(c.buf), 64<<10))
			if left := c.limit - c.next; left > int64(cap(c.buf)) {
				n = max(n, left)
			}
			n = min(n, c.size)
			nb := make([]byte, len(c.buf), n)
			copy(nb, c.buf)
			c.buf = nb
		}
		m, err := c.src.Read(c.buf[len(c.buf):min(int64(cap(c.buf)), c.size)])
		c.buf = c.buf[:len(c.buf)+m]
		if err != nil {
			if errors.Is(err, io.EOF) {
				c.eof = true
				break
			}
			return err
		}
	}
	c.next = c.base + int64(len(c.buf))
	if len(c.buf) == 0 {
		return io.EOF
	}
	return c.header()
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
