package otf2

import (
	"encoding/binary"
	"errors"
)

// Special bytes where a record type is expected (section "Buffer format").
const (
	bEndOfChunk  = 0x00
	bEndOfBuffer = 0x01
	bEndOfFile   = 0x02
	bChunkHeader = 0x03
	bTimestamp   = 0x05
	bAttrList    = 0x06
	endianLittle = 0x42
	endianBig    = 0x23
)

var (
	errShort   = errors.New("record ends early")
	errCompInt = errors.New("bad compressed integer")
)

// cursor reads the primitives of an OTF2 buffer from b, in the byte order of
// the current chunk. Errors are sticky: after one, every read returns 0.
type cursor struct {
	b   []byte
	off int
	be  bool
	err error
}

func (c *cursor) fail(err error) {
	if c.err == nil {
		c.err = err
	}
	c.off = len(c.b)
}

func (c *cursor) u8() uint8 {
	if c.off < len(c.b) {
		v := c.b[c.off]
		c.off++
		return v
	}
	c.fail(errShort)
	return 0
}

func (c *cursor) u16() uint16 {
	if c.off+2 <= len(c.b) {
		var v uint16
		if c.be {
			v = binary.BigEndian.Uint16(c.b[c.off:])
		} else {
			v = binary.LittleEndian.Uint16(c.b[c.off:])
		}
		c.off += 2
		return v
	}
	c.fail(errShort)
	return 0
}

func (c *cursor) u32() uint32 {
	if c.off+4 <= len(c.b) {
		var v uint32
		if c.be {
			v = binary.BigEndian.Uint32(c.b[c.off:])
		} else {
			v = binary.LittleEndian.Uint32(c.b[c.off:])
		}
		c.off += 4
		return v
	}
	c.fail(errShort)
	return 0
}

func (c *cursor) u64() uint64 {
	if c.off+8 <= len(c.b) {
		var v uint64
		if c.be {
			v = binary.BigEndian.Uint64(c.b[c.off:])
		} else {
			v = binary.LittleEndian.Uint64(c.b[c.off:])
		}
		c.off += 8
		return v
	}
	c.fail(errShort)
	return 0
}

// comp reads a compressed integer of at most max payload bytes (4 or 8).
func (c *cursor) comp(max int) uint64 {
	if c.off >= len(c.b) {
		c.fail(errShort)
		return 0
	}
	n := int(c.b[c.off])
	c.off++
	switch {
	case n == 0:
		return 0
	case n == 0xff:
		if max == 4 {
			return 0xffffffff
		}
		return ^uint64(0)
	case n > max:
		c.fail(errCompInt)
		return 0
	}
	if c.off+n > len(c.b) {
		c.fail(errShort)
		return 0
	}
	if !c.be && c.off+8 <= cap(c.b) {
		// one load of 8 bytes (within the chunk buffer, which may extend
		// past the record), masked to the n bytes of the value
		x := binary.LittleEndian.Uint64(c.b[c.off : c.off+8])
		c.off += n
		return x & (^uint64(0) >> (64 - 8*uint(n)))
	}
	var v uint64
	p := c.b[c.off : c.off+n]
	if c.be {
		for _, x := range p {
			v = v<<8 | uint64(x)
		}
	} else {
		for i := n - 1; i >= 0; i-- {
			v = v<<8 | uint64(p[i])
		}
	}
	c.off += n
	return v
}

// str reads a NUL-terminated string and returns its bytes without the NUL.
func (c *cursor) str() []byte {
	for i := c.off; i < len(c.b); i++ {
		if c.b[i] == 0 {
			s := c.b[c.off:i]
			c.off = i + 1
			return s
		}
	}
	c.fail(errShort)
	return nil
}

// length reads a record length: one byte below 0xff, or 0xff and a u64.
func (c *cursor) length() uint64 {
	n := c.u8()
	if n != 0xff {
		return uint64(n)
	}
	return c.u64()
}

// value reads one field of wire type w; attr is the OTF2 Type of an attrvalue.
func (c *cursor) value(w WireType, attr uint64) uint64 {
	switch w {
	case wU8:
		return uint64(c.u8())
	case wI8:
		return uint64(int64(int8(c.u8())))
	case wU16:
		return uint64(c.u16())
	case wI16:
		return uint64(int64(int16(c.u16())))
	case wU64, wF64:
		return c.u64()
	case wF32:
		return uint64(c.u32())
	case wCU32:
		return c.comp(4)
	case wCI32:
		return uint64(int64(int32(uint32(c.comp(4)))))
	case wCU64, wCI64, wMetric:
		return c.comp(8)
	case wAttr:
		return c.attrValue(Type(attr))
	}
	c.fail(errShort)
	return 0
}

// attrWire gives the wire type of an attribute value of OTF2 type t.
func attrWire(t Type) WireType {
	switch t {
	case TypeUint8:
		return wU8
	case TypeUint16:
		return wU16
	case TypeUint32:
		return wCU32
	case TypeInt8:
		return wI8
	case TypeInt16:
		return wI16
	case TypeInt32:
		return wCI32
	case TypeInt64:
		return wCI64
	case TypeFloat:
		return wF32
	case TypeDouble:
		return wF64
	case TypeString, TypeAttribute, TypeRegion, TypeGroup, TypeMetric, TypeComm, TypeParameter,
		TypeRMAWin, TypeSourceCodeLocation, TypeCallingContext, TypeInterruptGenerator,
		TypeIOFile, TypeIOHandle, TypeLocationGroup:
		return wCU32
	}
	return wCU64 // UINT64, LOCATION, NONE and unknown future types
}

func (c *cursor) attrValue(t Type) uint64 { return c.value(attrWire(t), 0) }

// attrMapping gives the mapping table for reference-typed attribute values.
func attrMapping(t Type) MappingType {
	switch t {
	case TypeString:
		return MappingTypeString
	case TypeAttribute:
		return MappingTypeAttribute
	case TypeLocation:
		return MappingTypeLocation
	case TypeRegion:
		return MappingTypeRegion
	case TypeGroup:
		return MappingTypeGroup
	case TypeMetric:
		return MappingTypeMetric
	case TypeComm:
		return MappingTypeComm
	case TypeParameter:
		return MappingTypeParameter
	case TypeRMAWin:
		return MappingTypeRMAWin
	case TypeSourceCodeLocation:
		return MappingTypeSourceCodeLocation
	case TypeCallingContext:
		return MappingTypeCallingContext
	case TypeInterruptGenerator:
		return MappingTypeInterruptGenerator
	case TypeIOFile:
		return MappingTypeIOFile
	case TypeIOHandle:
		return MappingTypeIOHandle
	case TypeLocationGroup:
		return MappingTypeLocationGroup
	}
	return noMap
}
