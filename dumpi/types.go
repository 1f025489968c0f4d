package dumpi

import "strconv"

// A Label identifies a function: the uint16 that starts every call record.
// Labels 0 to 289 are MPI functions, LabelAllFunctions (290) is the footer's
// totals slot, LabelFunctionEnter and LabelFunctionExit (291, 292) mark user
// annotations, and LabelEndOfStream (293) ends the call stream.
type Label uint16

// String returns the function's name as the reference tools print it
// ("MPI_Send", "MPIO_Wait", "Function_enter"), or "Label(N)" out of range.
func (l Label) String() string {
	if int(l) < NumLabels {
		return labelNames[l]
	}
	return "Label(" + strconv.Itoa(int(l)) + ")"
}

// GoName returns the name of the label's argument struct ("Send",
// "MPIOWait"), or "" out of range.
func (l Label) GoName() string {
	if int(l) < NumLabels {
		return labelGoNames[l]
	}
	return ""
}

// IsCall reports whether l labels a call record: any label below
// NumLabels except LabelAllFunctions and LabelEndOfStream.
func (l Label) IsCall() bool {
	return int(l) < NumLabels && l != LabelAllFunctions && l != LabelEndOfStream
}

// A Mask is the per-record flag byte that says which optional parts a call
// record carries.
type Mask uint8

// Statuses reports whether status lists are present (any of bits 0x03).
func (m Mask) Statuses() bool { return m&0x03 != 0 }

// CPUTime reports whether CPU start and stop times are present.
func (m Mask) CPUTime() bool { return m&MaskCPUTime != 0 }

// WallTime reports whether wall-clock start and stop times are present.
func (m Mask) WallTime() bool { return m&MaskWallTime != 0 }

// Thread reports whether the record carries a thread index.
func (m Mask) Thread() bool { return m&MaskThread != 0 }

// Perf reports whether the record carries a perf-counter block.
func (m Mask) Perf() bool { return m&MaskPerf != 0 }

// Handle and enumeration types. Their values are the tracer's own indices
// (constants.tsv), not an MPI library's; each type's String method returns
// the name the reference dumpi2ascii prints for the value.
type (
	Comm         uint16 // communicator handle
	Datatype     uint16 // datatype handle
	Group        uint16 // group handle
	Info         uint16 // info handle
	Win          uint16 // window handle
	FileHandle   uint16 // MPI-IO file handle
	Errhandler   uint16 // error handler handle
	Keyval       uint16 // attribute key
	Request      int32  // request handle
	IORequest    int32  // MPI-IO request handle (MPIO_Request)
	Op           uint8  // reduction operation
	Combiner     uint8  // datatype combiner
	Comparison   uint8  // result of a group or communicator comparison
	Distribution uint8  // darray distribution
	FileMode     uint8  // MPI-IO access mode (a single mode bit)
	LockType     uint8  // window lock type
	Ordering     uint8  // array storage order
	ThreadLevel  uint8  // thread support level
	Topology     uint8  // communicator topology
	TypeClass    uint8  // type class of Type_match_size
	Whence       uint8  // MPI-IO seek origin
	WinAssert    uint8  // window assertion
)

func nameOr(m map[int]string, v int, def string) string {
	if s, ok := m[v]; ok {
		return s
	}
	return def
}

// errName maps the generated DUMPI_X_ERROR name to the MPI_X_ERROR spelling
// the reference tools print for the kinds that use it.
func errName(m map[int]string, v int, errMPI, def string) string {
	if v == 0 {
		return errMPI
	}
	return nameOr(m, v, def)
}

// String returns the name the reference dumpi2ascii prints for v.
func (v Comm) String() string {
	return errName(commNames, int(v), "MPI_COMM_ERROR", "user-defined-comm")
}

// String returns the name the reference dumpi2ascii prints for v.
func (v Datatype) String() string {
	return errName(datatypeNames, int(v), "MPI_DATATYPE_ERROR", "user-defined-datatype")
}

// String returns the name the reference dumpi2ascii prints for v.
func (v Group) String() string {
	return errName(groupNames, int(v), "MPI_GROUP_ERROR", "user-defined-group")
}

// String returns the name the reference dumpi2ascii prints for v.
func (v Info) String() string {
	if v >= DUMPI_FIRST_USER_INFO {
		return "user-info"
	}
	return "MPI_INFO_NULL"
}

// String returns the name the reference dumpi2ascii prints for v.
func (v Win) String() string {
	if v != MPI_WIN_NULL {
		return "user-defined-win"
	}
	return "DUMPI_WIN_NULL"
}

// String returns the name the reference dumpi2ascii prints for v.
func (v FileHandle) String() string {
	if v != MPI_FILE_NULL {
		return "user-file"
	}
	return "DUMPI_FILE_NULL"
}

// String returns the name the reference dumpi2ascii prints for v.
func (v Errhandler) String() string {
	switch {
	case v >= DUMPI_FIRST_USER_ERRHANDLER:
		return "user-defined-errhandler"
	case v == MPI_ERRHANDLER_NULL:
		return "MPI_ERRHANDLER_NULL"
	}
	return "DUMPI_ERRHANDLER_ERROR"
}

// String returns the name the reference dumpi2ascii prints for v.
func (v Keyval) String() string { return nameOr(keyvalNames, int(v), "user-defined-keyval") }

// String returns the name the reference dumpi2ascii prints for v.
func (v Request) String() string {
	return errName(requestNames, int(v), "MPI_REQUEST_ERROR", "user-defined-request")
}

// String returns the name the reference dumpi2ascii prints for v.
func (v IORequest) String() string {
	return errName(iorequestNames, int(v), "MPI_REQUEST_ERROR", "user-defined-request")
}

// String returns the name the reference dumpi2ascii prints for v.
func (v Op) String() string { return errName(opNames, int(v), "MPI_OP_ERROR", "user-defined-op") }

// String returns the name the reference dumpi2ascii prints for v.
func (v Combiner) String() string {
	return errName(combinerNames, int(v), "MPI_COMBINER_ERROR", "DUMPI_COMBINER_ERROR")
}

// String returns the name the reference dumpi2ascii prints for v.
func (v Comparison) String() string {
	return errName(comparisonNames, int(v), "MPI_COMPARISON_ERROR", "undefined-comparison")
}

// String returns the name the reference dumpi2ascii prints for v.
func (v Distribution) String() string {
	return errName(distributionNames, int(v), "DUMPI_DISTRIBUTION_ERROR", "DUMPI_DISTRIBUTION_ERROR")
}

// String returns the name the reference dumpi2ascii prints for v.
func (v FileMode) String() string {
	return errName(filemodeNames, int(v), "DUMPI_FILEMODE_ERROR", "DUMPI_FILEMODE_ERROR")
}

// String returns the name the reference dumpi2ascii prints for v.
func (v LockType) String() string {
	return errName(locktypeNames, int(v), "DUMPI_LOCKTYPE_ERROR", "DUMPI_LOCKTYPE_ERROR")
}

// String returns the name the reference dumpi2ascii prints for v.
func (v Ordering) String() string {
	return errName(orderingNames, int(v), "DUMPI_ORDERING_ERROR", "DUMPI_ORDERING_ERROR")
}

// String returns the name the reference dumpi2ascii prints for v.
func (v ThreadLevel) String() string {
	return errName(threadlevelNames, int(v), "DUMPI_THREADLEVEL_ERROR", "DUMPI_THREADLEVEL_ERROR")
}

// String returns the name the reference dumpi2ascii prints for v.
func (v Topology) String() string {
	return errName(topologyNames, int(v), "DUMPI_TOPOLOGY_ERROR", "DUMPI_TOPOLOGY_ERROR")
}

// String returns the name the reference dumpi2ascii prints for v.
func (v TypeClass) String() string {
	return errName(typeclassNames, int(v), "DUMPI_TYPECLASS_ERROR", "DUMPI_TYPECLASS_ERROR")
}

// String returns the name the reference dumpi2ascii prints for v.
func (v Whence) String() string {
	return errName(whenceNames, int(v), "DUMPI_WHENCE_ERROR", "DUMPI_WHENCE_ERROR")
}

// winAssertNames lists every combination of the five assertion bits, as the
// reference tools print them.
var winAssertNames = func() [32]string {
	var t [32]string
	bits := [...]string{"MPI_MODE_NOCHECK", "MPI_MODE_NOSTORE", "MPI_MODE_NOPUT", "MPI_MODE_NOPRECEDE", "MPI_MODE_NOSUCCEED"}
	t[0] = "DUMPI_MODE_NONE"
	for v := 1; v < 32; v++ {
		s := ""
		for i, b := range bits {
			if v&(1<<i) != 0 {
				if s != "" {
					s += "|"
				}
				s += b
			}
		}
		t[v] = s
	}
	return t
}()

// String returns the name the reference dumpi2ascii prints for v.
func (v WinAssert) String() string {
	if int(v) < len(winAssertNames) {
		return winAssertNames[v]
	}
	return "DUMPI_MODE_ERROR"
}

// A Status is one entry of a status list.
type Status struct {
	Bytes     int32 // received bytes (element count in MPI_CHAR)
	Source    int32
	Cancelled uint8 // 0 or 1
	Error     int8  // low 8 bits of the status' error field
	Tag       int32 // MPI_ANY_TAG (-1) in files older than 0.6.3
}

// A Span is one clock's raw start and stop time as stored: seconds relative
// to the stream's base for that clock (16 bits, wrapping after 65536 s) and
// nanoseconds.
type Span struct {
	StartSec  uint16
	StartNsec uint32
	StopSec   uint16
	StopNsec  uint32
}

// A PerfValue is one hardware counter's value at call entry and exit.
type PerfValue struct {
	In, Out int64
}

// Args is the argument struct of one call: a pointer to one of the
// generated structs (*Send, *Recv, ..., *FunctionExit), whose type matches
// Label. Use a type switch or assertion to reach the fields:
//
//	if s, ok := call.Args().(*dumpi.Send); ok { ... }
type Args interface {
	Label() Label
	// decode decodes the arguments from b, the record bytes after the
	// head (a suffix of d.B), and returns the bytes after them. On failure
	// it sets d.Err.
	decode(d *decoder, b []byte) []byte
	encode(e *encoder)
	clone() Args
	appendASCII(b []byte, p printer) []byte
}

// NewArgs returns a new zero argument struct for label l, or nil if l does
// not label a call (see Label.IsCall).
func NewArgs(l Label) Args {
	if !l.IsCall() {
		return nil
	}
	return newArgs(l)
}

// A Call is one call record.
//
// Times come in two forms: the raw spans as stored (CPU, Wall), and
// monotonic nanoseconds (CPUStart, WallStart, ...) that add the stream's
// base and undo the 16-bit seconds wrap-around. A clock whose mask bit is
// clear reads as zero in both forms.
type Call struct {
	Label  Label
	Mask   Mask
	Thread uint16 // thread index; 0 when the mask has no thread bit
	CPU    Span
	Wall   Span
	Perf   []PerfValue // perf-counter values, when the mask has MaskPerf
	args   Args

	// Seconds to add to the spans' 16-bit seconds: the stream's base plus
	// the wrap-arounds seen so far (set by the Reader).
	cpuOff, wallOff int64
}

// Args returns the call's arguments, or nil for a zero Call. When the Call
// came from a Reader, the struct is owned by the reader and reused.
func (c *Call) Args() Args { return c.args }

// SetArgs sets the arguments and the label to a.Label(). It is for building
// calls to write; a Writer never retains a.
func (c *Call) SetArgs(a Args) {
	c.args = a
	if a != nil {
		c.Label = a.Label()
	}
}

// spanNS converts a raw span to nanoseconds: off is the base plus the
// wrap-arounds; a stop second below the start second wrapped once more.
func spanNS(on bool, off int64, s *Span, stop bool) int64 {
	if !on {
		return 0
	}
	if !stop {
		return (off+int64(s.StartSec))*1e9 + int64(s.StartNsec)
	}
	if s.StopSec < s.StartSec {
		off += 1 << 16
	}
	return (off+int64(s.StopSec))*1e9 + int64(s.StopNsec)
}

// CPUStart returns the CPU start time in nanoseconds: the stream's base
// plus the unwrapped seconds, times 1e9, plus nanoseconds. It is 0 when
// the call has no CPU time. The unwrapping needs the calls before this
// one, so a Call built by hand (not read) counts no wrap-arounds.
func (c *Call) CPUStart() int64 { return spanNS(c.Mask.CPUTime(), c.cpuOff, &c.CPU, false) }

// CPUStop returns the CPU stop time in nanoseconds, as CPUStart.
func (c *Call) CPUStop() int64 { return spanNS(c.Mask.CPUTime(), c.cpuOff, &c.CPU, true) }

// WallStart returns the wall-clock start time in nanoseconds, as CPUStart.
func (c *Call) WallStart() int64 { return spanNS(c.Mask.WallTime(), c.wallOff, &c.Wall, false) }

// WallStop returns the wall-clock stop time in nanoseconds, as CPUStart.
func (c *Call) WallStop() int64 { return spanNS(c.Mask.WallTime(), c.wallOff, &c.Wall, true) }

// Clone returns a deep copy of c that shares no memory with the reader.
func (c *Call) Clone() *Call {
	d := *c
	d.Perf = cloneSlice(c.Perf)
	if c.args != nil {
		d.args = c.args.clone()
	}
	return &d
}

func cloneSlice[T any](s []T) []T {
	if s == nil {
		return nil
	}
	return append(make([]T, 0, len(s)), s...)
}

func cloneStrs(s [][]byte) [][]byte {
	if s == nil {
		return nil
	}
	out := make([][]byte, len(s))
	for i, v := range s {
		out[i] = cloneSlice(v)
	}
	return out
}

func cloneStrLists(s [][][]byte) [][][]byte {
	if s == nil {
		return nil
	}
	out := make([][][]byte, len(s))
	for i, v := range s {
		out[i] = cloneStrs(v)
	}
	return out
}

func cloneRows(s [][]int32) [][]int32 {
	if s == nil {
		return nil
	}
	out := make([][]int32, len(s))
	for i, v := range s {
		out[i] = cloneSlice(v)
	}
	return out
}
