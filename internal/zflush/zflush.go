// Package zflush reads and writes zlib streams made of full-flush blocks,
// the compressed form of OTF 1.x files.
//
// The reference OTF writer compresses each buffer of text with
// Z_FULL_FLUSH, so every block ends in the byte-aligned marker 00 00 ff ff
// and the deflate dictionary starts empty after it, and it never finishes
// the stream: there is no final block and no Adler-32 trailer. A Reader
// treats the end of input right after a flush marker as a clean end (the
// standard compress/zlib reports io.ErrUnexpectedEOF there); any other
// early end is io.ErrUnexpectedEOF. A finished stream (final block) is
// read too; its Adler-32 trailer is not verified, but input after it is
// [ErrTrailing].
//
// A Writer produces the same structure: a zlib header, then one deflate
// block sequence per BlockSize bytes of input (cut at the first Write
// boundary past BlockSize), each closed by a full flush, and no trailer.
package zflush

import (
	"compress/flate"
	"errors"
	"io"

	"github.com/hpctrace/hpctrace/internal/inflate"
)

// ErrHeader reports input that does not start with a zlib header for deflate.
var ErrHeader = errors.New("zflush: invalid zlib header")

// ErrTrailing reports input after the end of a finished stream (its final
// block and the 4-byte Adler-32 trailer).
var ErrTrailing = errors.New("zflush: data after the end of the zlib stream")

// adlerSize is the size of the zlib trailer.
const adlerSize = 4

// Marker is the byte sequence that ends every full-flush block.
var Marker = [4]byte{0x00, 0x00, 0xff, 0xff}

// A Reader inflates a zlib stream of full-flush blocks. The zero Reader
// must be Reset before use. A Reader is not safe for concurrent use.
type Reader struct {
	d   inflate.Decoder
	hdr int64   // header bytes read by the last Reset
	h   [2]byte // the header (a field: a local would escape through src)
	err error
}

// NewReader returns a Reader of the zlib stream src; it reads the 2-byte header.
func NewReader(src io.Reader) (*Reader, error) {
	z := new(Reader)
	if err := z.Reset(src); err != nil {
		return nil, err
	}
	return z, nil
}

// Reset starts reading the zlib stream src, keeping the buffers.
func (z *Reader) Reset(src io.Reader) error {
	z.d.Reset(nil)
	z.hdr = 0
	n, err := io.ReadFull(src, z.h[:])
	h := z.h
	z.hdr = int64(n)
	if err != nil {
		z.err = io.ErrUnexpectedEOF
		return z.err
	}
	if h[0]&0x0f != 8 || h[0]>>4 > 7 || (uint16(h[0])<<8|uint16(h[1]))%31 != 0 || h[1]&0x20 != 0 {
		z.err = ErrHeader
		return z.err
	}
	z.d.Reset(src)
	z.err = nil
	return nil
}

// ResetRaw starts reading a raw deflate block sequence (no zlib header),
// such as the data after a full-flush marker found by a seek.
func (z *Reader) ResetRaw(src io.Reader) error {
	z.d.Reset(src)
	z.hdr = 0
	z.err = nil
	return nil
}

// Read reads inflated bytes. It returns io.EOF at a clean end,
// io.ErrUnexpectedEOF at any other early end and [inflate.ErrCorrupt] for
// malformed deflate data.
func (z *Reader) Read(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	n, err := z.d.Read(p)
	if err != nil {
		// io.EOF is a finished stream; the Adler-32 trailer is not
		// checked, but nothing may follow it.
		switch {
		case err == io.EOF && z.d.Excess(adlerSize):
			err = ErrTrailing
		case err == io.ErrUnexpectedEOF && z.cleanEnd():
			err = io.EOF
		}
		z.err = err
	}
	return n, err
}

// cleanEnd reports whether the input, all consumed, ended at its source's
// end right after a flush marker. The decoder reports io.ErrUnexpectedEOF
// only when it has consumed all input.
func (z *Reader) cleanEnd() bool {
	tail, eof := z.d.InputTail()
	return eof && z.d.InputOffset() >= int64(len(Marker)) && tail == Marker
}

// InputOffset returns the number of compressed bytes consumed since the
// last Reset, counting the header.
func (z *Reader) InputOffset() int64 { return z.hdr + z.d.InputOffset() }

// A Writer compresses text into a zlib stream of full-flush blocks. It
// is not safe for concurrent use.
type Writer struct {
	dst       io.Writer
	fw        *flate.Writer
	level     int
	blockSize int
	buf       []byte
	header    bool
	err       error
}

// DefaultBlockSize is the reference writer's default buffer size.
const DefaultBlockSize = 1 << 20

// NewWriter returns a Writer to dst with a compression level (as
// compress/flate; 0 means 6) and a block size in bytes of input (0 means
// DefaultBlockSize).
func NewWriter(dst io.Writer, level, blockSize int) (*Writer, error) {
	if level == 0 {
		level = 6
	}
	if blockSize <= 0 {
		blockSize = DefaultBlockSize
	}
	fw, err := flate.NewWriter(dst, level)
	if err != nil {
		return nil, err
	}
	return &Writer{dst: dst, fw: fw, level: level, blockSize: blockSize}, nil
}

func (w *Writer) writeHeader() error {
	lv := byte(2)
	switch {
	case w.level == flate.HuffmanOnly || (w.level >= 0 && w.level <= 1):
		lv = 0
	case w.level >= 2 && w.level <= 5:
		lv = 1
	case w.level >= 7:
		lv = 3
	}
	cmf := byte(0x78)
	flg := lv << 6
	flg += byte(31 - (uint16(cmf)<<8|uint16(flg))%31)
	_, err := w.dst.Write([]byte{cmf, flg})
	w.header = true
	return err
}

// Write buffers p; each time the buffer reaches the block size it is
// compressed and ended with a full flush.
func (w *Writer) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	w.buf = append(w.buf, p...)
	if len(w.buf) >= w.blockSize {
		if err := w.Flush(); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush compresses the buffered text as one full-flush block. It writes
// nothing when the buffer is empty (except the header of a new stream).
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	if !w.header {
		if w.err = w.writeHeader(); w.err != nil {
			return w.err
		}
	}
	if len(w.buf) == 0 {
		return nil
	}
	if _, err := w.fw.Write(w.buf); err != nil {
		w.err = err
		return err
	}
	if err := w.fw.Flush(); err != nil {
		w.err = err
		return err
	}
	w.fw.Reset(w.dst) // full flush: the next block starts with an empty dictionary
	w.buf = w.buf[:0]
	return nil
}

// Close flushes the buffered text. Like the reference writer it does not
// finish the stream. It does not close the underlying writer.
func (w *Writer) Close() error {
	return w.Flush()
}
