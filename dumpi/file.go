package dumpi

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/hpctrace/hpctrace/internal/wire"
)

// Magic is the value of the first eight bytes of a DUMPI file and of the
// first entry of its index.
const Magic uint64 = 0xFFAADD44554D5049

// FooterMagic starts the footer section.
const FooterMagic uint64 = 0x00000000F007FEE7

// FooterSlots is the number of per-label counters in the footer: labels
// 0 to 289 and the totals slot LabelAllFunctions.
const FooterSlots = 291

const footerSize = 8 + 2*FooterSlots*4

// An Index is the trailer at the end of a file: the offsets of its
// sections. An offset of 0 means the section is absent.
type Index struct {
	Size          int   // bytes: 64 (DUMPI 0.6.6 and later), 56, 48 or 40
	DatatypeSizes int64 // datatype size section (64-byte index only)
	FunctionNames int64 // function address label section (64, 56)
	PerfLabels    int64 // perf-counter label section (64, 56, 48)
	Header        int64
	Body          int64 // stream preamble; 8 in practice
	Footer        int64
	KeyVals       int64 // never recorded by the reference tracer
}

// A Header is a file's header section.
type Header struct {
	Version    Version // major, minor, patch: 13.0.0 for DUMPI 13.0.0
	StartTime  uint64  // Unix seconds
	Host       string
	User       string  // LOGNAME of the traced process, or "<none>"
	MeshCoords []int32 // this node's mesh coordinates (empty on clusters)
	MeshSize   []int32 // mesh size per dimension
}

// MeshDim returns the number of mesh dimensions: the length of
// MeshCoords (0 on ordinary clusters).
func (h *Header) MeshDim() int { return len(h.MeshCoords) }

// Start returns StartTime as a time.Time in UTC.
func (h *Header) Start() time.Time { return time.Unix(int64(h.StartTime), 0).UTC() }

// A Footer holds per-label call counts: Called[l] calls of label l were
// made, Ignored[l] of them were not written as records. Slot
// LabelAllFunctions (290) holds the totals.
type Footer struct {
	Called  [FooterSlots]uint32
	Ignored [FooterSlots]uint32
}

// A KeyValue is one entry of the keyval section.
type KeyValue struct {
	Key, Value string
}

// A FunctionName maps a Function_enter/Function_exit address (or annotation
// key) to its label.
type FunctionName struct {
	Addr uint64
	Name string
}

// A File gives random access to one rank's trace through its index: each
// section can be read on its own, and Calls streams the call records.
//
// Section methods read only the bytes of their section, a few KB whatever
// the file's size. A File is safe for concurrent use by multiple
// goroutines when its io.ReaderAt is (an *os.File is); each Reader from
// Calls must stay in one goroutine.
type File struct {
	Index Index

	ra        io.ReaderAt
	size      int64
	path      string
	closer    io.Closer
	maxRecord int // 0: the default
}

// OpenOptions configures Open and OpenFS. A nil or zero value means
// defaults.
type OpenOptions struct {
	// MaxRecord is the largest call record the File's Readers accept, in
	// bytes; 0 means 64 MiB, as in [ReaderOptions]. A Reader's buffer
	// grows to hold the largest record seen, so MaxRecord bounds the
	// memory a damaged or hostile file can make it take.
	MaxRecord int
}

func (o *OpenOptions) maxRecord() (int, error) {
	if o == nil {
		return 0, nil
	}
	if o.MaxRecord < 0 {
		return 0, fmt.Errorf("dumpi: negative MaxRecord %d", o.MaxRecord)
	}
	return o.MaxRecord, nil
}

// Open opens the named file with NewFile. The File owns the file it
// opened: Close closes it.
func Open(name string, opts *OpenOptions) (*File, error) {
	maxRecord, err := opts.maxRecord()
	if err != nil {
		return nil, err
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	df, err := newFile(f, st.Size(), name)
	if err != nil {
		f.Close()
		return nil, err
	}
	df.closer = f
	df.maxRecord = maxRecord
	return df, nil
}

// NewFile reads the leading magic and the index of the DUMPI file held in
// ra, size bytes long, and checks the index offsets against size. It reads
// 8 bytes at the start and at most 64 at the end. The File's Close does
// not close ra: it was given, not opened.
func NewFile(ra io.ReaderAt, size int64) (*File, error) {
	return newFile(ra, size, "")
}

func newFile(ra io.ReaderAt, size int64, path string) (*File, error) {
	f := &File{ra: ra, size: size, path: path}
	var b [64]byte
	if size < 8+40 {
		if size >= 8 {
			if _, err := ra.ReadAt(b[:8], 0); err == nil && be64(b[:8]) != Magic {
				return nil, f.errAt(0, ErrFormat)
			}
		}
		return nil, f.errAt(0, fmt.Errorf("%w: file of %d bytes is too short", io.ErrUnexpectedEOF, size))
	}
	if _, err := ra.ReadAt(b[:8], 0); err != nil {
		return nil, f.errAt(0, err)
	}
	if be64(b[:8]) != Magic {
		return nil, f.errAt(0, ErrFormat)
	}
	n := int64(64)
	if size-8 < 64 {
		n = 40
	}
	tail := b[64-n:]
	if _, err := ra.ReadAt(tail, size-n); err != nil {
		return nil, f.errAt(size-n, err)
	}
	// The index grew at its front over time; find its magic.
	var ix Index
	found := false
	for _, sz := range [...]int{64, 56, 48, 40} {
		if int64(sz) > n {
			continue
		}
		e := b[64-sz:]
		if be64(e) != Magic {
			continue
		}
		v := func(i int) int64 { return int64(be64(e[8*i:])) }
		ix.Size = sz
		i := 1
		if sz >= 64 {
			ix.DatatypeSizes = v(i)
			i++
		}
		if sz >= 56 {
			ix.FunctionNames = v(i)
			i++
		}
		if sz >= 48 {
			ix.PerfLabels = v(i)
			i++
		}
		ix.Header, ix.Body, ix.Footer, ix.KeyVals = v(i), v(i+1), v(i+2), v(i+3)
		found = true
		break
	}
	if !found {
		return nil, f.errAt(size-n, fmt.Errorf("%w: no index magic", ErrFormat))
	}
	end := size - int64(ix.Size)
	for _, o := range [...]int64{ix.DatatypeSizes, ix.FunctionNames, ix.PerfLabels, ix.Header, ix.Body, ix.Footer, ix.KeyVals} {
		if o < 0 || o > end || (o != 0 && o < 8) {
			return nil, f.errAt(size-int64(ix.Size), fmt.Errorf("%w: index offset %d outside the file", ErrRange, o))
		}
	}
	if ix.Body == 0 {
		return nil, f.errAt(size-int64(ix.Size), fmt.Errorf("%w: index has no body offset", ErrFormat))
	}
	f.Index = ix
	return f, nil
}

// Close closes the file that Open or OpenFS opened; for a File from
// NewFile it closes nothing. A second Close returns nil; the section
// reads and the Readers made after Close fail with an error wrapping
// ErrClosed.
func (f *File) Close() error {
	f.ra = closedFile{}
	if f.closer != nil {
		c := f.closer
		f.closer = nil
		return c.Close()
	}
	return nil
}

// Size returns the file's size in bytes.
func (f *File) Size() int64 { return f.size }

// Path returns the name given to Open, or "".
func (f *File) Path() string { return f.path }

func (f *File) errAt(off int64, err error) error {
	return &ParseError{Path: f.path, Offset: off, Err: err}
}

func be64(b []byte) uint64 {
	_ = b[7]
	return uint64(b[0])<<56 | uint64(b[1])<<48 | uint64(b[2])<<40 | uint64(b[3])<<32 |
		uint64(b[4])<<24 | uint64(b[5])<<16 | uint64(b[6])<<8 | uint64(b[7])
}

// section reads the section at off and decodes it with parse, reading a
// first chunk and growing it while parse runs short and the file has more
// bytes. The bytes read never exceed the file.
func (f *File) section(off int64, first int, parse func(d *wire.Dec)) error {
	end := f.size - int64(f.Index.Size)
	if off <= 0 || off > end {
		return f.errAt(off, fmt.Errorf("%w: section offset %d", ErrRange, off))
	}
	n := int64(first)
	for {
		n = min(n, end-off)
		buf := make([]byte, n)
		if _, err := f.ra.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
			return f.errAt(off, err)
		}
		var d wire.Dec
		d.Reset(buf)
		parse(&d)
		switch {
		case d.Err == nil:
			return nil
		case errors.Is(d.Err, wire.ErrShort) && n < end-off:
			n *= 4
			continue
		case errors.Is(d.Err, wire.ErrTooMany):
			return f.errAt(off, fmt.Errorf("%w: element count larger than the bytes left", ErrRange))
		case errors.Is(d.Err, wire.ErrShort):
			return f.errAt(off, io.ErrUnexpectedEOF)
		case errors.Is(d.Err, wire.ErrCount):
			return f.errAt(off, ErrRange)
		}
		return f.errAt(off, d.Err)
	}
}

func str16(d *wire.Dec) string {
	n := int(d.U16())
	return string(d.Bytes(n))
}

// Header reads the header section (a few hundred bytes; each call reads it
// again). A file without one (offset 0) has a zero Header, whose version
// 0.0.0 selects the oldest record layouts.
func (f *File) Header() (*Header, error) {
	h := new(Header)
	if f.Index.Header == 0 {
		return h, nil
	}
	err := f.section(f.Index.Header, 512, func(d *wire.Dec) {
		h.Version = Version{d.U8(), d.U8(), d.U8()}
		h.StartTime = d.U64()
		h.Host = str16(d)
		h.User = str16(d)
		h.MeshCoords = int32sDec(d)
		if !h.Version.Less(Version{0, 5, 0}) {
			h.MeshSize = int32sDec(d)
		}
	})
	if err != nil {
		return nil, err
	}
	return h, nil
}

func int32sDec(d *wire.Dec) []int32 {
	n := d.Count(4)
	s := make([]int32, n)
	for i := range s {
		s[i] = d.I32()
	}
	return s
}

// Footer reads the footer section (2336 bytes), or returns a zero Footer
// if the file has none.
func (f *File) Footer() (*Footer, error) {
	ft := new(Footer)
	if f.Index.Footer == 0 {
		return ft, nil
	}
	err := f.section(f.Index.Footer, footerSize, func(d *wire.Dec) {
		if d.U64() != FooterMagic && d.Err == nil {
			d.Fail(ErrFormat)
			return
		}
		for i := range ft.Called {
			ft.Called[i] = d.U32()
		}
		for i := range ft.Ignored {
			ft.Ignored[i] = d.U32()
		}
	})
	if err != nil {
		return nil, err
	}
	return ft, nil
}

// KeyVals reads the keyval section. The reference tracer never records its
// offset in the index, so files from it have none.
func (f *File) KeyVals() ([]KeyValue, error) {
	if f.Index.KeyVals == 0 {
		return nil, nil
	}
	var kv []KeyValue
	err := f.section(f.Index.KeyVals, 512, func(d *wire.Dec) {
		n := d.Count(4)
		kv = make([]KeyValue, 0, n)
		for range n {
			k := str16(d)
			v := str16(d)
			kv = append(kv, KeyValue{k, v})
		}
	})
	return kv, err
}

// PerfLabels reads the names of the perf counters recorded in the calls.
func (f *File) PerfLabels() ([]string, error) {
	if f.Index.PerfLabels == 0 {
		return nil, nil
	}
	var s []string
	err := f.section(f.Index.PerfLabels, 512, func(d *wire.Dec) {
		n := d.Count(2)
		s = make([]string, 0, n)
		for range n {
			s = append(s, str16(d))
		}
	})
	return s, err
}

// DatatypeSizes reads the datatype size section: entry i is the size in
// bytes of datatype handle i.
func (f *File) DatatypeSizes() ([]int32, error) {
	if f.Index.DatatypeSizes == 0 {
		return nil, nil
	}
	var s []int32
	err := f.section(f.Index.DatatypeSizes, 512, func(d *wire.Dec) {
		s = int32sDec(d)
	})
	return s, err
}

// FunctionNames reads the function address label section.
func (f *File) FunctionNames() ([]FunctionName, error) {
	if f.Index.FunctionNames == 0 {
		return nil, nil
	}
	var s []FunctionName
	err := f.section(f.Index.FunctionNames, 512, func(d *wire.Dec) {
		n := d.Count(10)
		s = make([]FunctionName, 0, n)
		for range n {
			a := d.U64()
			s = append(s, FunctionName{a, str16(d)})
		}
	})
	return s, err
}

// Calls returns a Reader over the call stream, positioned before the first
// call. It reads the header for the version that selects record layouts;
// an error doing so is reported by the Reader's Err. Each call returns an
// independent Reader.
func (f *File) Calls() *Reader {
	r := &Reader{}
	h, err := f.Header()
	if err != nil {
		// The error is sticky: Next reports it and reads nothing.
		r.err = err
		r.finish()
		return r
	}
	end := f.size - int64(f.Index.Size)
	src := io.NewSectionReader(f.ra, f.Index.Body, end-f.Index.Body)
	r.init(src, f.path, layoutOf(h.Version), f.Index.Body, false, f.maxRecord, end-f.Index.Body)
	if f.Index.Footer > f.Index.Body {
		r.stopAt = f.Index.Footer
	}
	return r
}

// closedFile is the io.ReaderAt of a closed File.
type closedFile struct{}

func (closedFile) ReadAt([]byte, int64) (int, error) { return 0, ErrClosed }
