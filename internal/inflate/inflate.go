// Package inflate decodes raw DEFLATE streams (RFC 1951) without
// allocating: a Decoder holds its buffers and tables.
//
// A Decoder owns its input buffer: it reads large chunks from its source,
// keeps a 64-bit bit buffer refilled eight bytes at a time and decodes
// Huffman codes with single-level primary tables (11 bits for
// literals/lengths, 8 for distances) plus subtables for longer codes. It
// decodes into a window that keeps the last 32 KiB of output as history.
//
// It accepts and rejects the same streams as compress/flate: on success
// both produce the same bytes; a stream that ends early is
// io.ErrUnexpectedEOF and a malformed one is ErrCorrupt. Unlike
// compress/flate it reads ahead of the end of the final block.
//
// A Decoder is not safe for concurrent use.
package inflate

import (
	"encoding/binary"
	"errors"
	"io"
)

// ErrCorrupt reports a malformed DEFLATE stream.
var ErrCorrupt = errors.New("inflate: corrupt input")

const (
	histSize = 32 << 10  // DEFLATE window
	inSize   = 32 << 10  // input buffer
	winSize  = 128 << 10 // history plus output area
	slideAt  = winSize - 32<<10

	firstChunk = 1 << 10
	maxChunk   = 64 << 10

	maxMatch = 258
	// minRoom is the window room needed to decode one symbol: a whole
	// match plus the overrun of 8-byte chunk copies (a match of 3 bytes
	// may be copied as 16).
	minRoom = maxMatch + 16
	// fastRoom and fastIn are the slack the fast loop needs per
	// iteration: up to three literals or a literal and a match, and two
	// 8-byte refills.
	fastRoom = minRoom + 8
	fastIn   = 16

	litMask  = 1<<litlenBits - 1
	distMask = 1<<distBits - 1
)

const (
	stateHeader = iota
	stateStored
	stateHuffman
	stateDone
)

// A Decoder inflates a raw DEFLATE stream. The zero Decoder must be Reset
// before use. It holds its buffers (about 200 KB), so Reset allocates
// nothing.
type Decoder struct {
	src    io.Reader
	srcErr error   // first error of src (io.EOF at its end)
	srcN   int64   // bytes read from src
	tail   [4]byte // last bytes read from src

	ipos, iend int
	bits       uint64 // bit buffer; the bits above nbits are zero or input
	nbits      uint

	rpos, wpos int // handed out up to rpos, decoded up to wpos
	wend       int // end of the window part to fill in this decode
	chunk      int // output per decode: grows from firstChunk to maxChunk

	state  int
	final  bool
	stored int // bytes left in a stored block
	err    error

	litMin, distMin uint // shortest codes, as compress/flate reads them

	// The tables of the current block. A fixed block copies the fixed
	// tables in (they have no subtables), so that the fast loop addresses
	// the tables at constant offsets from d and needs no register for them.
	lt      [litlenEnough]uint32
	dt      [distEnough]uint32
	fixLit  [1 << litlenBits]uint32
	fixDist [1 << distBits]uint32
	fixMin  uint
	fixed   bool // fixLit and fixDist are built
	clen    [clenEnough]uint32
	lens    [286 + 30]uint8

	// The buffers come last, after every pointer, so that the garbage
	// collector does not scan them.
	in  [inSize + 8]byte   // inSize, and room for an 8-byte load at a masked index
	win [winSize + 16]byte // winSize, and room for a 16-byte copy at a masked index
}

// Reset starts decoding the raw DEFLATE stream src, keeping the buffers.
func (d *Decoder) Reset(src io.Reader) {
	d.src, d.srcErr, d.srcN, d.tail = src, nil, 0, [4]byte{}
	d.ipos, d.iend, d.bits, d.nbits = 0, 0, 0, 0
	d.rpos, d.wpos, d.chunk = 0, 0, firstChunk
	d.state, d.final, d.stored, d.err = stateHeader, false, 0, nil
}

// Read reads inflated bytes. It returns io.EOF after the final block,
// io.ErrUnexpectedEOF when the input ends early and ErrCorrupt on
// malformed input; errors of the source are returned as they are.
func (d *Decoder) Read(p []byte) (int, error) {
	for {
		if d.rpos < d.wpos {
			n := copy(p, d.win[d.rpos:d.wpos])
			d.rpos += n
			return n, nil
		}
		if d.err != nil {
			return 0, d.err
		}
		if len(p) == 0 {
			return 0, nil
		}
		d.decode(len(p))
	}
}

// InputOffset returns the number of input bytes consumed since Reset:
// the bytes holding the bits decoded so far (after an early end of input,
// all of them).
func (d *Decoder) InputOffset() int64 {
	return d.srcN - int64(d.iend-d.ipos) - int64(d.nbits/8)
}

// InputTail returns the last four bytes read from the source and whether
// the source ended with io.EOF. Fewer than four bytes read are preceded by
// zeros; the caller counts bytes with InputOffset.
func (d *Decoder) InputTail() (tail [4]byte, eof bool) {
	return d.tail, d.srcErr == io.EOF
}

// Excess reports whether more than max bytes of input follow the end of
// the stream (after the final block, the Read that returned io.EOF). It
// reads at most one buffer more from the source; an error of the source
// reports false.
func (d *Decoder) Excess(max int) bool {
	for {
		left := d.iend - d.ipos + int(d.nbits/8)
		if left > max {
			return true
		}
		if d.srcErr != nil || !d.fillInput() {
			return d.iend-d.ipos+int(d.nbits/8) > max
		}
	}
}

// decode adds about want bytes of output to the window (less when the
// window is nearly full, at the end of the stream or on an error), but
// no more than d.chunk, which grows at each call. Decoding little after a
// Reset keeps the input read ahead small, which makes seeks cheap.
func (d *Decoder) decode(want int) {
	if d.wpos > slideAt {
		copy(d.win[:], d.win[d.wpos-histSize:d.wpos])
		d.wpos, d.rpos = histSize, histSize
	}
	want = min(want, d.chunk)
	d.chunk = min(2*d.chunk, maxChunk)
	d.wend = min(winSize, d.wpos+want+minRoom)
	for d.err == nil && d.wend-d.wpos >= minRoom {
		switch d.state {
		case stateHeader:
			d.header()
		case stateStored:
			d.storedData()
		case stateHuffman:
			if d.iend-d.ipos < fastIn {
				d.fillInput()
			}
			var st int
			if d.iend-d.ipos >= fastIn && d.wend-d.wpos >= fastRoom {
				st = d.fast()
			} else {
				st = d.slow()
			}
			if st > 0 {
				d.endBlock()
			}
		default:
			d.err = io.EOF
		}
	}
}

func (d *Decoder) endBlock() {
	if d.final {
		d.state = stateDone
		d.err = io.EOF
	} else {
		d.state = stateHeader
	}
}

// fillInput moves the unread input to the front of the buffer and reads
// more from the source. It reports whether bytes were added.
func (d *Decoder) fillInput() bool {
	if d.srcErr != nil {
		return false
	}
	if d.ipos > 0 {
		d.iend = copy(d.in[:], d.in[d.ipos:d.iend])
		d.ipos = 0
	}
	for tries := 0; tries < 100; tries++ {
		n, err := d.src.Read(d.in[d.iend:inSize])
		if n > 0 {
			d.iend += n
			d.srcN += int64(n)
			if n >= 4 {
				d.tail = [4]byte(d.in[d.iend-4 : d.iend])
			} else {
				copy(d.tail[:], d.tail[n:])
				copy(d.tail[4-n:], d.in[d.iend-n:d.iend])
			}
		}
		if err != nil {
			d.srcErr = err
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
	d.srcErr = io.ErrNoProgress
	return false
}

// fail records the error of input that ended early: io.ErrUnexpectedEOF
// at the end of the source, else the source's error. All input counts as
// consumed.
func (d *Decoder) fail() {
	if d.srcErr == io.EOF || d.srcErr == nil {
		d.err = io.ErrUnexpectedEOF
	} else {
		d.err = d.srcErr
	}
	d.bits, d.nbits = 0, 0
}

// more adds one input byte to the bit buffer (nbits must be at most 56).
// At the end of input it records the error and reports false.
func (d *Decoder) more() bool {
	if d.ipos == d.iend && !d.fillInput() {
		d.fail()
		return false
	}
	d.bits |= uint64(d.in[d.ipos]) << d.nbits
	d.ipos++
	d.nbits += 8
	return true
}

// need makes sure the bit buffer holds n bits (n <= 56).
func (d *Decoder) need(n uint) bool {
	for d.nbits < n {
		if !d.more() {
			return false
		}
	}
	return true
}

// take consumes and returns n bits (n <= 56 and buffered).
func (d *Decoder) take(n uint) uint32 {
	v := uint32(d.bits & (1<<n - 1))
	d.bits >>= n
	d.nbits -= n
	return v
}

// lookup returns the entry of the code at the bottom of b in table t.
func lookup(t []uint32, primary uint, b uint64) uint32 {
	e := t[b&(1<<primary-1)]
	if e&flagSub != 0 {
		e = t[int(e>>16&0x7fff)+int(b>>primary)&(1<<(e>>8&63)-1)]
	}
	return e
}

// sym returns the entry of the next code of table t, with its code length
// (and at least minBits) buffered. At the end of input it records the
// error and reports false.
func (d *Decoder) sym(t []uint32, primary, minBits uint) (uint32, bool) {
	for {
		e := lookup(t, primary, d.bits)
		if max(uint(e&63), minBits) <= d.nbits {
			return e, true
		}
		if !d.more() {
			return 0, false
		}
	}
}

// header reads a block header and, for a dynamic block, its code tables.
func (d *Decoder) header() {
	if !d.need(3) {
		return
	}
	d.final = d.take(1) == 1
	switch d.take(2) {
	case 0:
		d.take(d.nbits & 7)
		if !d.need(32) {
			return
		}
		n := d.take(16)
		if d.take(16) != n^0xffff {
			d.err = ErrCorrupt
			return
		}
		if n == 0 {
			d.endBlock()
			return
		}
		d.stored = int(n)
		d.state = stateStored
	case 1:
		if !d.fixed {
			d.buildFixed()
		}
		copy(d.lt[:], d.fixLit[:])
		copy(d.dt[:], d.fixDist[:])
		d.litMin, d.distMin = d.fixMin, 5
		d.state = stateHuffman
	case 2:
		if d.dynamic() {
			d.state = stateHuffman
		}
	default:
		d.err = ErrCorrupt
	}
}

func (d *Decoder) buildFixed() {
	var l [288]uint8
	for i := range l {
		switch {
		case i < 144:
			l[i] = 8
		case i < 256:
			l[i] = 9
		case i < 280:
			l[i] = 7
		default:
			l[i] = 8
		}
	}
	d.fixMin, _ = build(d.fixLit[:], l[:], litlenTmpl[:], litlenBits)
	for i := range 32 {
		l[i] = 5
	}
	build(d.fixDist[:], l[:32], distTmpl[:], distBits)
	d.fixed = true
}

// codeOrder is the order of the code length code lengths: 16, 17, 18, 0,
// 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15.
const codeOrder = "\x10\x11\x12\x00\x08\x07\x09\x06\x0a\x05\x0b\x04\x0c\x03\x0d\x02\x0e\x01\x0f"

// dynamic reads the code tables of a dynamic block; it reports success.
func (d *Decoder) dynamic() bool {
	if !d.need(14) {
		return false
	}
	nlit := int(d.take(5)) + 257
	ndist := int(d.take(5)) + 1
	nclen := int(d.take(4)) + 4
	if nlit > 286 || ndist > 30 {
		d.err = ErrCorrupt
		return false
	}
	var cl [19]uint8
	for i := range nclen {
		if !d.need(3) {
			return false
		}
		cl[codeOrder[i]] = uint8(d.take(3))
	}
	clMin, ok := build(d.clen[:], cl[:], clenTmpl[:], clenBits)
	if !ok {
		d.err = ErrCorrupt
		return false
	}
	lens := d.lens[:nlit+ndist]
	for i := 0; i < len(lens); {
		// With 8 bytes of input at hand, refill the bit buffer as the
		// fast loop does: a code and its repeat bits (at most 14) are
		// then buffered, and the code table has no subtables.
		if d.nbits < 14 && d.iend-d.ipos >= 8 {
			d.bits |= binary.LittleEndian.Uint64(d.in[d.ipos:]) << (d.nbits & 63)
			d.ipos += int(63-d.nbits) >> 3
			d.nbits |= 56
		}
		var e uint32
		if d.nbits >= 14 {
			e = d.clen[d.bits&(1<<clenBits-1)]
		} else if e, ok = d.sym(d.clen[:], clenBits, clMin); !ok {
			return false
		}
		if e&flagExc != 0 {
			d.err = ErrCorrupt
			return false
		}
		d.take(uint(e & 63))
		x := e >> 16
		if x < 16 {
			lens[i] = uint8(x)
			i++
			continue
		}
		var rep int
		var nb uint
		var v uint8
		switch x {
		case 16:
			if i == 0 {
				d.err = ErrCorrupt
				return false
			}
			rep, nb, v = 3, 2, lens[i-1]
		case 17:
			rep, nb = 3, 3
		default:
			rep, nb = 11, 7
		}
		if !d.need(nb) {
			return false
		}
		rep += int(d.take(nb))
		if i+rep > len(lens) {
			d.err = ErrCorrupt
			return false
		}
		for range rep {
			lens[i] = v
			i++
		}
	}
	litMin, ok1 := build(d.lt[:], lens[:nlit], litlenTmpl[:], litlenBits)
	distMin, ok2 := build(d.dt[:], lens[nlit:], distTmpl[:], distBits)
	if !ok1 || !ok2 {
		d.err = ErrCorrupt
		return false
	}
	d.litMin = max(litMin, uint(lens[256]))
	d.distMin = distMin
	return true
}

// storedData copies stored bytes into the window.
func (d *Decoder) storedData() {
	for d.stored > 0 && d.wpos < d.wend {
		if d.nbits >= 8 {
			d.win[d.wpos] = byte(d.take(8))
			d.wpos++
			d.stored--
			continue
		}
		d.bits = 0 // the read-ahead bits are copied from d.in below
		if d.ipos == d.iend && !d.fillInput() {
			d.fail()
			return
		}
		n := copy(d.win[d.wpos:min(d.wpos+d.stored, d.wend)], d.in[d.ipos:d.iend])
		d.ipos += n
		d.wpos += n
		d.stored -= n
	}
	if d.stored == 0 {
		d.endBlock()
	}
}

// slow decodes one symbol with careful input checks; it returns 1 at the
// end of the block, -1 on error and 0 otherwise. The window has minRoom.
func (d *Decoder) slow() int {
	e, ok := d.sym(d.lt[:], litlenBits, d.litMin)
	if !ok {
		return -1
	}
	if int32(e) < 0 {
		d.take(uint(e & 63))
		d.win[d.wpos] = byte(e >> 16)
		d.wpos++
		return 0
	}
	if e&flagExc != 0 {
		if e&flagEOB != 0 {
			d.take(uint(e & 63))
			return 1
		}
		d.err = ErrCorrupt
		return -1
	}
	if !d.need(uint(e >> 8 & 63)) {
		return -1
	}
	length := int(e>>16&0x7fff) + int(d.take(uint(e>>8&63))>>(e&63))
	if e, ok = d.sym(d.dt[:], distBits, d.distMin); !ok {
		return -1
	}
	if e&flagExc != 0 {
		d.err = ErrCorrupt
		return -1
	}
	if !d.need(uint(e >> 8 & 63)) {
		return -1
	}
	dist := int(e>>16&0x7fff) + int(d.take(uint(e>>8&63))>>(e&63))
	if dist > d.wpos {
		d.err = ErrCorrupt
		return -1
	}
	copyMatch(d.win[:], d.wpos, dist, length)
	d.wpos += length
	return 0
}

// copyMatch copies length bytes from dist bytes back to win[wp:]. It may
// write up to 7 bytes past the match.
func copyMatch(win []byte, wp, dist, length int) {
	src := wp - dist
	switch {
	case dist >= length:
		copy(win[wp:wp+length], win[src:wp])
	case dist >= 8:
		for n := 0; n < length; n += 8 {
			binary.LittleEndian.PutUint64(win[wp+n:], binary.LittleEndian.Uint64(win[src+n:]))
		}
	case dist == 1:
		v := uint64(win[src]) * 0x0101010101010101
		for n := 0; n < length; n += 8 {
			binary.LittleEndian.PutUint64(win[wp+n:], v)
		}
	default:
		for n := range length {
			win[wp+n] = win[src+n]
		}
	}
}

// lowBits[n] is a mask of the n low bits: a load, where 1<<n-1 takes four
// instructions (the shift's count must be moved to CX first).
var lowBits = func() (m [64]uint64) {
	for n := range m {
		m[n] = 1<<n - 1
	}
	return m
}()

// fast decodes symbols while the input holds fastIn bytes and the window
// fastRoom; it returns 1 at the end of the block, -1 on corrupt input and
// 0 when it runs out of slack.
func (d *Decoder) fast() int {
	// ip stays below iend (at most inSize) in the loop, so the refills
	// load at ip&(inSize-1), which changes nothing and spares a bounds
	// check.
	in, iend := &d.in, d.iend
	// wp stays below wlimit, so the literals' stores index the window
	// as wp&(winSize-1), which changes nothing and spares a bounds check.
	win := &d.win
	wlimit := min(d.wend, winSize) - fastRoom
	lt, dt := &d.lt, &d.dt
	b, nb := d.bits, d.nbits
	ip, wp := d.ipos, d.wpos
	ret := 0
	for ip <= iend-fastIn && wp <= wlimit {
		x := ip & (inSize - 1)
		b |= binary.LittleEndian.Uint64(in[x:x+8]) << (nb & 63)
		ip += int(63-nb) >> 3
		nb |= 56
		e := lt[b&litMask]
		if int32(e) < 0 {
			b >>= e & 63
			nb -= uint(e & 63)
			win[wp&(winSize-1)] = byte(e >> 16)
			wp++
			e = lt[b&litMask]
			if int32(e) < 0 {
				b >>= e & 63
				nb -= uint(e & 63)
				win[wp&(winSize-1)] = byte(e >> 16)
				wp++
				// At least 26 bits are left: enough for a third
				// literal, or for a length code and its extra bits.
				e = lt[b&litMask]
				if int32(e) < 0 {
					b >>= e & 63
					nb -= uint(e & 63)
					win[wp&(winSize-1)] = byte(e >> 16)
					wp++
					continue
				}
			}
		}
		if e&flagSub != 0 {
			e = lt[int(e>>16&0x7fff)+int(b>>litlenBits)&(1<<(e>>8&63)-1)]
			if int32(e) < 0 {
				b >>= e & 63
				nb -= uint(e & 63)
				win[wp&(winSize-1)] = byte(e >> 16)
				wp++
				continue
			}
		}
		if e&flagExc != 0 {
			if e&flagEOB != 0 {
				b >>= e & 63
				nb -= uint(e & 63)
				ret = 1
			} else {
				ret = -1
			}
			break
		}
		total := e >> 8 & 63
		// Not a literal: flagLit (bit 31) is clear, so e>>16 is the value.
		length := int(e>>16) + int(b&lowBits[total]>>(e&63))
		b >>= total
		nb -= uint(total)
		if nb < 28 {
			x := ip & (inSize - 1)
			b |= binary.LittleEndian.Uint64(in[x:x+8]) << (nb & 63)
			ip += int(63-nb) >> 3
			nb |= 56
		}
		e = dt[b&distMask]
		if e&flagSub != 0 {
			e = dt[int(e>>16&0x7fff)+int(b>>distBits)&(1<<(e>>8&63)-1)]
		}
		if e&flagExc != 0 {
			ret = -1
			break
		}
		total = e >> 8 & 63
		dist := int(e>>16) + int(b&lowBits[total]>>(e&63))
		b >>= total
		nb -= uint(total)
		if dist > wp {
			ret = -1
			break
		}
		// The copy is written out here, without a call: a call in the
		// loop would make the compiler keep the loop's values on the
		// stack around it.
		src := wp - dist
		if dist >= 8 {
			// 8-byte words; each may read bytes the one before wrote,
			// as the match needs. The common short match is the first
			// two. (Slices of a fixed length: their bounds are two
			// compares, without the masking of an open-ended slice.)
			x, y := src&(winSize-1), wp&(winSize-1)
			s := (*[16]byte)(win[x : x+16])
			t := (*[16]byte)(win[y : y+16])
			binary.LittleEndian.PutUint64(t[:8], binary.LittleEndian.Uint64(s[:8]))
			binary.LittleEndian.PutUint64(t[8:], binary.LittleEndian.Uint64(s[8:]))
			for n := 16; n < length; n += 8 {
				binary.LittleEndian.PutUint64(win[wp+n:wp+n+8], binary.LittleEndian.Uint64(win[src+n:src+n+8]))
			}
		} else {
			for n := range length {
				win[wp+n] = win[src+n]
			}
		}
		wp += length
	}
	d.bits, d.nbits = b, nb
	d.ipos, d.wpos = ip, wp
	if ret < 0 {
		d.err = ErrCorrupt
	}
	return ret
}
