package inflate

import "math/bits"

// A decode table entry packs everything the decoder needs about one code:
//
//	bits  0..5   n1: code length, the bits to consume for the symbol
//	             (for a subtable pointer: the primary table bits)
//	bit   6      flagSub: the entry points to a subtable
//	bit   7      flagExc: end of block or invalid symbol
//	bits  8..13  n2: code length plus extra bits (for a subtable
//	             pointer: the subtable's index bits)
//	bit   14     flagEOB: with flagExc, end of block
//	bits 16..30  value: literal byte, length or distance base, or
//	             subtable start
//	bit   31     flagLit: a literal
//
// Subtable entries hold the full code length, so an entry found through a
// subtable is used exactly like a primary one.
const (
	flagSub = 1 << 6
	flagExc = 1 << 7
	flagEOB = 1 << 14
	flagLit = 1 << 31

	litlenBits = 11 // primary table bits
	distBits   = 8
	clenBits   = 7

	// Table sizes, from zlib's enough program: "enough 288 11 15",
	// "enough 32 8 15" and "enough 19 7 7".
	litlenEnough = 2342
	distEnough   = 402
	clenEnough   = 128

	maxCodeLen = 15
)

// litlenEntry is the entry template of literal/length symbol s, without
// code lengths: value, flags and, in the n2 field, the extra bits.
func litlenEntry(s int) uint32 {
	switch {
	case s < 256:
		return flagLit | uint32(s)<<16
	case s == 256:
		return flagExc | flagEOB
	case s < 265:
		return uint32(s-254) << 16
	case s < 285:
		extra := uint32(s-261) / 4
		return ((4+uint32(s-265)&3)<<extra+3)<<16 | extra<<8
	case s == 285:
		return 258 << 16
	}
	return flagExc // 286 and 287
}

// distEntry is the entry template of distance symbol s.
func distEntry(s int) uint32 {
	switch {
	case s < 4:
		return uint32(s+1) << 16
	case s < 30:
		extra := uint32(s-2) / 2
		return ((2+uint32(s)&1)<<extra+1)<<16 | extra<<8
	}
	return flagExc // 30 and 31
}

// clenEntry is the entry template of code length symbol s.
func clenEntry(s int) uint32 { return uint32(s) << 16 }

// The entry templates of every symbol, read-only: build reads them from
// these tables rather than calling a function value per symbol.
var (
	litlenTmpl = templates[[288]uint32](litlenEntry)
	distTmpl   = templates[[32]uint32](distEntry)
	clenTmpl   = templates[[19]uint32](clenEntry)
)

func templates[A [288]uint32 | [32]uint32 | [19]uint32](f func(int) uint32) (a A) {
	for s := range len(a) {
		a[s] = f(s)
	}
	return a
}

// build fills table t (primary table of 1<<primary entries followed by
// subtables) for the code lengths of the symbols 0..len(lengths)-1, with
// the entry templates tmpl. It accepts the codes compress/flate accepts:
// complete codes, a single code of length 1, and no codes at all; it
// reports false for the others. minLen is the shortest code length (0 for
// an empty code).
func build(t []uint32, lengths []uint8, tmpl []uint32, primary uint) (minLen uint, ok bool) {
	var count [maxCodeLen + 1]int
	maxLen := uint(0)
	for _, n := range lengths {
		if n > maxCodeLen {
			return 0, false
		}
		count[n]++
		maxLen = max(maxLen, uint(n))
	}
	count[0] = 0
	size := 1 << primary
	if maxLen == 0 {
		// Empty code: every lookup fails without consuming bits.
		for i := range size {
			t[i] = flagExc
		}
		return 0, true
	}
	// Check completeness the way compress/flate does.
	kraft := 0
	var offs [maxCodeLen + 1]int
	for i := 1; i <= int(maxLen); i++ {
		kraft += count[i] << (int(maxLen) - i)
		if i < maxCodeLen {
			offs[i+1] = offs[i] + count[i]
		}
		if minLen == 0 && count[i] != 0 {
			minLen = uint(i)
		}
	}
	if kraft != 1<<maxLen {
		if kraft != 1 || maxLen != 1 {
			return 0, false
		}
		// The single code "0" of length 1: "1" is invalid.
		t[1] = flagExc
	}
	// Symbols sorted by code length, then symbol: canonical order.
	var sorted [288]uint16
	for s, n := range lengths {
		if n != 0 {
			sorted[offs[n]] = uint16(s)
			offs[n]++
		}
	}
	code := 0
	next := size // next free subtable slot
	curPrefix := -1
	subStart, subBits := 0, uint(0)
	i := 0
	filled := uint(1) // t[:1<<filled] holds the codes up to that length
	for n := uint(1); n <= maxLen; n++ {
		if n == primary+1 || n <= primary && count[n] != 0 {
			// Replicate the shorter codes' entries up to 1<<n or the
			// whole primary table: a code of length l fills every
			// index that ends in its l reversed bits.
			for ; filled < min(n, primary); filled++ {
				copy(t[1<<filled:2<<filled], t[:1<<filled])
			}
		}
		for k := 0; k < count[n]; k++ {
			e := tmpl[sorted[i]] + uint32(n) + uint32(n)<<8
			i++
			rev := int(bits.Reverse16(uint16(code)) >> (16 - n))
			code++
			if n <= primary {
				t[rev] = e
				continue
			}
			if prefix := rev & (size - 1); prefix != curPrefix {
				// A new subtable: it must cover the codes sharing this
				// prefix; in canonical order they are the next ones.
				curPrefix = prefix
				subBits = n - primary
				left := 1 << subBits
				rem := count[n] - k // codes of length n from this one on
				for l := n; ; {
					left -= rem
					if left <= 0 || l == maxLen {
						break
					}
					l++
					subBits++
					left <<= 1
					rem = count[l]
				}
				subStart = next
				next += 1 << subBits
				if next > len(t) {
					return 0, false
				}
				t[prefix] = flagSub | uint32(subStart)<<16 | uint32(subBits)<<8 | uint32(primary)
			}
			sub := t[subStart : subStart+1<<subBits]
			for j := rev >> primary; j < len(sub); j += 1 << (n - primary) {
				sub[j] = e
			}
		}
		code <<= 1
	}
	for ; filled < primary; filled++ {
		copy(t[1<<filled:2<<filled], t[:1<<filled])
	}
	return minLen, true
}
