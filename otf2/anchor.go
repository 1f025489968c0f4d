package otf2

import (
	"bytes"
	"fmt"
	"io"
)

// Compression is the anchor's compression byte (OTF2_Compression).
type Compression uint8

// Compression values. Only CompressionNone is read and written.
const (
	CompressionUndefined Compression = 0
	CompressionNone      Compression = 1
	CompressionZlib      Compression = 2 // deprecated; libotf2 3.0 cannot write or read it
)

// String returns UNDEFINED, NONE, ZLIB or INVALID <n>.
func (c Compression) String() string {
	return enumString(uint64(c), []enumName{{0, "UNDEFINED"}, {1, "NONE"}, {2, "ZLIB"}})
}

// A Property is a name/value pair of the anchor file (names are upper
// case "NS::NAME"; booleans are stored as "true"/"false").
type Property struct{ Name, Value string }

// An Anchor is the content of an archive's anchor file (<name>.otf2).
type Anchor struct {
	BigEndian      bool
	AnchorFormat   uint8    // 1..3; 3 for OTF2 ≥ 1.2
	TraceFormat    uint8    // 2 for OTF2 ≥ 1.2
	Version        [3]uint8 // the writing library's major, minor, bugfix
	EventChunkSize uint64
	DefChunkSize   uint64
	Substrate      FileSubstrate
	Compression    Compression
	NumLocations   uint64 // number of Location global definitions
	NumGlobalDefs  uint64 // number of records in the global definition file
	MachineName    string
	Creator        string
	Description    string
	Properties     []Property // anchor format ≥ 2
	TraceID        uint64     // anchor format ≥ 2
	NumSnapshots   uint32     // anchor format ≥ 3
	NumThumbnails  uint32     // anchor format ≥ 3
}

// maxAnchor bounds the size of an anchor file a reader accepts. An
// anchor holds a few names and properties: libotf2's are under a
// kilobyte.
const maxAnchor = 1 << 20

// ReadAnchor reads an anchor file. path is used in error messages. It
// reads at most 1 MiB: a longer anchor is an ErrRange error.
func ReadAnchor(r io.Reader, path string) (*Anchor, error) {
	b, err := readBounded(r, maxAnchor)
	if err != nil {
		return nil, &ParseError{Path: path, Err: err}
	}
	a, off, err := parseAnchor(b)
	if err != nil {
		return nil, &ParseError{Path: path, Offset: int64(off), Err: err}
	}
	return a, nil
}

// readBounded reads r to its end, refusing with ErrRange more than max
// bytes; it allocates for what it reads, in steps, never max at once.
func readBounded(r io.Reader, max int64) ([]byte, error) {
	var buf bytes.Buffer
	n, err := buf.ReadFrom(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if n > max {
		return nil, fmt.Errorf("%w: anchor file larger than %d bytes", ErrRange, max)
	}
	return buf.Bytes(), nil
}

func parseAnchor(b []byte) (*Anchor, int, error) {
	if len(b) < 2 || b[0] != bChunkHeader {
		return nil, 0, fmt.Errorf("%w: no anchor header", ErrFormat)
	}
	a := &Anchor{}
	switch b[1] {
	case endianLittle:
	case endianBig:
		a.BigEndian = true
	default:
		return nil, 1, fmt.Errorf("%w: bad endianness byte %#x", ErrFormat, b[1])
	}
	c := &cursor{b: b, off: 2, be: a.BigEndian}
	if magic := c.str(); string(magic) != "OTF2" {
		return nil, 2, fmt.Errorf("%w: bad magic %q", ErrFormat, magic)
	}
	a.AnchorFormat = c.u8()
	if c.err == nil && (a.AnchorFormat == 0 || a.AnchorFormat > 3) {
		return nil, c.off - 1, fmt.Errorf("%w: anchor format %d", ErrVersion, a.AnchorFormat)
	}
	a.TraceFormat = c.u8()
	a.Version = [3]uint8{c.u8(), c.u8(), c.u8()}
	a.EventChunkSize = c.u64()
	a.DefChunkSize = c.u64()
	subOff := c.off
	a.Substrate = FileSubstrate(c.u8())
	a.Compression = Compression(c.u8())
	if c.err == nil && a.Substrate != FileSubstratePosix {
		return nil, subOff, fmt.Errorf("%w: file substrate %v (only POSIX is read)", ErrVersion, a.Substrate)
	}
	if c.err == nil && a.Compression != CompressionNone {
		return nil, subOff + 1, fmt.Errorf("%w: compression %v", ErrVersion, a.Compression)
	}
	a.NumLocations = c.u64()
	a.NumGlobalDefs = c.u64()
	a.MachineName = string(c.str())
	a.Creator = string(c.str())
	a.Description = string(c.str())
	if a.AnchorFormat >= 2 {
		n := c.u32()
		if uint64(n) > uint64(len(c.b)-c.off)/2 {
			return nil, c.off, fmt.Errorf("%w: %d properties", ErrRange, n)
		}
		for range n {
			a.Properties = append(a.Properties, Property{string(c.str()), string(c.str())})
		}
		a.TraceID = c.u64()
	}
	if a.AnchorFormat >= 3 {
		a.NumSnapshots = c.u32()
		a.NumThumbnails = c.u32()
		if c.err == nil && c.u8() != bEndOfFile {
			return nil, c.off - 1, fmt.Errorf("%w: anchor trailer", ErrFormat)
		}
	}
	if c.err != nil {
		return nil, c.off, fmt.Errorf("%w: %w", ErrSyntax, c.err)
	}
	if a.EventChunkSize < chunkHeaderSize+2 || a.EventChunkSize > maxReadChunk ||
		a.DefChunkSize < chunkHeaderSize+2 || a.DefChunkSize > maxReadChunk {
		return nil, 12, fmt.Errorf("%w: chunk sizes %d and %d", ErrRange, a.EventChunkSize, a.DefChunkSize)
	}
	return a, c.off, nil
}
