package otf2

import "encoding/binary"

// enc appends the primitives in little-endian order.
type enc struct{ b []byte }

func (e *enc) u8(v uint8)   { e.b = append(e.b, v) }
func (e *enc) u16(v uint16) { e.b = binary.LittleEndian.AppendUint16(e.b, v) }
func (e *enc) u32(v uint32) { e.b = binary.LittleEndian.AppendUint32(e.b, v) }
func (e *enc) u64(v uint64) { e.b = binary.LittleEndian.AppendUint64(e.b, v) }

// comp appends a compressed integer with the minimal number of bytes;
// max is 4 or 8 and all-ones of that width is the one-byte 0xff.
func (e *enc) comp(v uint64, max int) {
	if v == 0 {
		e.b = append(e.b, 0)
		return
	}
	if (max == 4 && v == 0xffffffff) || (max == 8 && v == ^uint64(0)) {
		e.b = append(e.b, 0xff)
		return
	}
	n := 1
	for n < 8 && v>>(8*n) != 0 {
		n++
	}
	e.b = append(e.b, byte(n))
	for i := range n {
		e.b = append(e.b, byte(v>>(8*i)))
	}
}

// compSigned appends a compressed signed integer: negative values take the full width.
func (e *enc) compSigned(v int64, max int) {
	if v < 0 {
		e.b = append(e.b, byte(max))
		for i := range max {
			e.b = append(e.b, byte(uint64(v)>>(8*i)))
		}
		return
	}
	n := 1
	if v == 0 {
		e.b = append(e.b, 0)
		return
	}
	for n < max && uint64(v)>>(8*n) != 0 {
		n++
	}
	e.b = append(e.b, byte(n))
	for i := range n {
		e.b = append(e.b, byte(uint64(v)>>(8*i)))
	}
}

func (e *enc) str(s string) { e.b = append(e.b, s...); e.b = append(e.b, 0) }

func (e *enc) value(w WireType, v uint64, attr uint64) {
	switch w {
	case wU8, wI8:
		e.u8(uint8(v))
	case wU16, wI16:
		e.u16(uint16(v))
	case wU64, wF64:
		e.u64(v)
	case wF32:
		e.u32(uint32(v))
	case wCU32:
		e.comp(v&0xffffffff, 4)
	case wCI32:
		e.compSigned(int64(int32(uint32(v))), 4)
	case wCU64, wMetric:
		e.comp(v, 8)
	case wCI64:
		e.compSigned(int64(v), 8)
	case wAttr:
		e.value(attrWire(Type(attr)), v, 0)
	}
}

// valueBound is the writer's upper bound of a field's size, used to choose
// the record length form of events as libotf2 does.
func valueBound(w WireType) int {
	switch w {
	case wU8, wI8:
		return 1
	case wU16, wI16:
		return 2
	case wU64, wF64:
		return 8
	case wF32:
		return 4
	case wCU32, wCI32:
		return 5
	case wCU64, wCI64, wMetric, wAttr:
		return 9
	}
	return 9
}

// appendAnchor encodes a as an anchor file (little-endian, format 3).
func appendAnchor(b []byte, a *Anchor) []byte {
	e := enc{b: b}
	e.u8(bChunkHeader)
	e.u8(endianLittle)
	e.str("OTF2")
	e.u8(3)
	e.u8(2)
	e.u8(a.Version[0])
	e.u8(a.Version[1])
	e.u8(a.Version[2])
	e.u64(a.EventChunkSize)
	e.u64(a.DefChunkSize)
	e.u8(uint8(FileSubstratePosix))
	e.u8(uint8(CompressionNone))
	e.u64(a.NumLocations)
	e.u64(a.NumGlobalDefs)
	e.str(a.MachineName)
	e.str(a.Creator)
	e.str(a.Description)
	e.u32(uint32(len(a.Properties)))
	for _, p := range a.Properties {
		e.str(p.Name)
		e.str(p.Value)
	}
	e.u64(a.TraceID)
	e.u32(a.NumSnapshots)
	e.u32(a.NumThumbnails)
	e.u8(bEndOfFile)
	e.u8(bEndOfBuffer)
	e.u8(bEndOfChunk)
	return e.b
}
