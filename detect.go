package hpctrace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/hpctrace/hpctrace/eventjson"
)

// Format is a trace format [Open] reads.
type Format uint8

// The formats. A DUMPI trace is one file per rank plus a .meta file naming
// the run; Open reads either one rank's file or the whole run.
const (
	FormatUnknown  Format = iota
	FormatPICL            // a PICL new-format ASCII trace (.trf)
	FormatDUMPI           // one SST DUMPI rank file (.bin)
	FormatDUMPIRun        // a DUMPI run's .meta file: every rank, merged by time
	FormatOTF             // an OTF 1.x master file (.otf), plain or zlib record files
	FormatJSON            // hpctrace's event JSON (package eventjson; not Chrome's format), .json
	FormatOTF2            // an OTF2 archive, named by its anchor file (.otf2)
	FormatChrome          // a Chrome Trace Event Format document (JSON, as Perfetto reads it)
)

var formatNames = [...]string{"unknown", "PICL", "DUMPI", "DUMPI run", "OTF", "hpctrace event JSON", "OTF2", "Chrome JSON"}

// String returns the format's name ("PICL", "DUMPI run", …).
func (f Format) String() string {
	if int(f) < len(formatNames) {
		return formatNames[f]
	}
	return fmt.Sprintf("Format(%d)", f)
}

// ErrUnknownFormat reports a file whose format neither its content nor its
// name reveals. Open and Detect wrap it with the file's name.
var ErrUnknownFormat = errors.New("hpctrace: unknown trace format (want PICL .trf, DUMPI .bin or .meta, OTF .otf, OTF2 .otf2, hpctrace event JSON .json or Chrome Trace Event Format JSON)")

// headSize is how much of a file Detect reads to recognise its content.
const headSize = 512

// Detect returns the format of the file name. It reads the file's first
// 512 bytes and decides by content where the content says it: DUMPI's
// magic number, an OTF2 anchor file's header (03, the byte order 42 or 23,
// "OTF2" and a NUL), the "format" string of hpctrace's event JSON
// ("trace-events-json/1", eventjson.Format), a Chrome Trace
// Event Format document (a JSON array whose first element is an object,
// or an object with a "traceEvents" key or an event's "ph" key in the
// first 512 bytes, and not that "format"), the key=value lines
// of a DUMPI .meta file, a PICL record line ("-3 -901 0.000000 0 0 0"),
// the "stream:processes" lines of an OTF master file. Where the content is
// not conclusive, the name decides: .trf, .bin, .meta, .otf, .otf2, .json
// (in any case), and the names of an OTF trace's record files ("trace.0.def",
// "trace.1.events.z"), which stand for the trace. A file neither reveals
// gives an error wrapping [ErrUnknownFormat].
func Detect(name string) (Format, error) { return detectIn(nil, name) }

// DetectFS is Detect for the file name of fsys.
func DetectFS(fsys fs.FS, name string) (Format, error) {
	if fsys == nil {
		return FormatUnknown, errors.New("hpctrace: DetectFS: nil fs.FS")
	}
	return detectIn(fsys, name)
}

// detectIn detects the format of name in fsys, or of the operating
// system's file name when fsys is nil.
func detectIn(fsys fs.FS, name string) (Format, error) {
	f, err := openFile(fsys, name)
	if err != nil {
		return FormatUnknown, err
	}
	defer f.Close()
	head := make([]byte, headSize)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return FormatUnknown, err
	}
	if fm := detect(name, head[:n]); fm != FormatUnknown {
		return fm, nil
	}
	return FormatUnknown, fmt.Errorf("%s: %w", name, ErrUnknownFormat)
}

// dumpiMagic starts every DUMPI rank file.
var dumpiMagic = []byte{0xFF, 0xAA, 0xDD, 'D', 'U', 'M', 'P', 'I'}

// detect decides the format of a file from its name and first bytes.
func detect(name string, head []byte) Format {
	if fm := detectContent(head); fm != FormatUnknown {
		return fm
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".trf":
		return FormatPICL
	case ".bin":
		return FormatDUMPI
	case ".meta":
		return FormatDUMPIRun
	case ".otf":
		return FormatOTF
	case ".json":
		return FormatJSON
	case ".otf2":
		return FormatOTF2
	}
	if _, ok := otfStub(name); ok {
		return FormatOTF
	}
	return FormatUnknown
}

// otfStub returns the name stub of an OTF record file's name
// ("run/trace.1.events.z" → "run/trace"): the stub, a hexadecimal stream
// id, the file type and, when compressed, ".z".
func otfStub(name string) (string, bool) {
	rest := strings.TrimSuffix(name, ".z")
	i := strings.LastIndexByte(rest, '.')
	if i < 0 {
		return "", false
	}
	switch rest[i+1:] {
	case "def", "events", "snaps", "stats", "marker":
	default:
		return "", false
	}
	rest = rest[:i]
	j := strings.LastIndexByte(rest, '.')
	if j <= 0 || !isHex([]byte(rest[j+1:])) || strings.ContainsAny(rest[j+1:], `/\`) {
		return "", false
	}
	return rest[:j], true
}

// detectContent recognises a format from a file's first bytes alone.
func detectContent(head []byte) Format {
	switch {
	case bytes.HasPrefix(head, dumpiMagic):
		return FormatDUMPI
	case isOTF2Anchor(head):
		return FormatOTF2
	case isJSON(head):
		return FormatJSON
	case isChrome(head):
		return FormatChrome
	}
	lines := completeLines(head)
	switch {
	case len(lines) == 0:
		return FormatUnknown
	case isMeta(lines):
		return FormatDUMPIRun
	case isPICLRecord(lines[0]):
		return FormatPICL
	case isOTFMaster(lines):
		return FormatOTF
	}
	return FormatUnknown
}

// isOTF2Anchor reports whether head starts an OTF2 anchor file: the
// un-chunked buffer's header byte 03, the byte order (42 little-endian, 23
// big-endian) and the string "OTF2".
func isOTF2Anchor(head []byte) bool {
	return len(head) >= 7 && head[0] == 0x03 && (head[1] == 0x42 || head[1] == 0x23) && string(head[2:7]) == "OTF2\x00"
}

// isJSON reports whether head starts a JSON object that names the format
// of hpctrace's event JSON (eventjson.Format).
func isJSON(head []byte) bool {
	head = bytes.TrimLeft(head, " \t\r\n")
	return bytes.HasPrefix(head, []byte("{")) && bytes.Contains(head, []byte(`"`+eventjson.Format+`"`))
}

// isChrome reports whether head starts a Chrome Trace Event Format
// document: an array whose first element is an object, or an object that
// names the event array or an event's phase.
func isChrome(head []byte) bool {
	head = bytes.TrimLeft(head, " \t\r\n")
	if rest, ok := bytes.CutPrefix(head, []byte("[")); ok {
		return bytes.HasPrefix(bytes.TrimLeft(rest, " \t\r\n"), []byte("{"))
	}
	return bytes.HasPrefix(head, []byte("{")) &&
		(bytes.Contains(head, []byte(`"traceEvents"`)) || bytes.Contains(head, []byte(`"ph"`)))
}

// completeLines returns the non-blank lines of head that end in a newline
// (all of them when head holds the whole file), trimmed of blanks and CR.
func completeLines(head []byte) [][]byte {
	if len(head) == headSize {
		if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
			head = head[:i]
		} else {
			return nil
		}
	}
	var out [][]byte
	for line := range bytes.SplitSeq(head, []byte("\n")) {
		if line = bytes.Trim(line, " \t\r"); len(line) > 0 {
			out = append(out, line)
		}
	}
	return out
}

// isMeta reports whether lines are a DUMPI .meta file's key=value lines,
// with the two keys a run needs.
func isMeta(lines [][]byte) bool {
	var procs, prefix bool
	for _, l := range lines {
		k, _, ok := bytes.Cut(l, []byte("="))
		if !ok {
			return false
		}
		procs = procs || string(k) == "numprocs"
		prefix = prefix || string(k) == "fileprefix"
	}
	return procs && prefix
}

// isPICLRecord reports whether line has the shape of a PICL record: record
// type, event type, a time with a decimal point, processor, process and
// data count.
func isPICLRecord(line []byte) bool {
	f := bytes.Fields(line)
	if len(f) < 6 {
		return false
	}
	for i, tok := range f[:6] {
		if i == 2 {
			if !isDecimal(tok, true) {
				return false
			}
			continue
		}
		if !isDecimal(tok, false) {
			return false
		}
	}
	return true
}

// isDecimal reports whether tok is a signed decimal integer or, with
// point, a number with exactly one decimal point.
func isDecimal(tok []byte, point bool) bool {
	if len(tok) > 0 && (tok[0] == '-' || tok[0] == '+') {
		tok = tok[1:]
	}
	digits, dots := 0, 0
	for _, c := range tok {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && point:
			dots++
		default:
			return false
		}
	}
	return digits > 0 && (!point || dots == 1)
}

// isOTFMaster reports whether every line is an OTF master file line:
// "stream:process,process,…" in hexadecimal, or the IOFSL line starting
// with 'i'.
func isOTFMaster(lines [][]byte) bool {
	streams := 0
	for _, l := range lines {
		if l[0] == 'i' {
			continue
		}
		streams++
		id, procs, ok := bytes.Cut(l, []byte(":"))
		if !ok || !isHex(id) {
			return false
		}
		for p := range bytes.SplitSeq(procs, []byte(",")) {
			if !isHex(p) {
				return false
			}
		}
	}
	return streams > 0
}

func isHex(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}
