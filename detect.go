package hpctrace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hpctrace/hpctrace/model"
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
	FormatJSON            // a trace-events JSON document (.json)
)

var formatNames = [...]string{"unknown", "PICL", "DUMPI", "DUMPI run", "OTF", "trace-events JSON"}

// String returns the format's name ("PICL", "DUMPI run", …).
func (f Format) String() string {
	if int(f) < len(formatNames) {
		return formatNames[f]
	}
	return fmt.Sprintf("Format(%d)", f)
}

// ErrUnknownFormat reports a file whose format neither its content nor its
// name reveals. Open and Detect wrap it with the file's name.
var ErrUnknownFormat = errors.New("hpctrace: unknown trace format (want PICL .trf, DUMPI .bin or .meta, OTF .otf or trace-events .json)")

// headSize is how much of a file Detect reads to recognise its content.
const headSize = 512

// Detect returns the format of the file name. It reads the file's first
// 512 bytes and decides by content where the content says it: DUMPI's
// magic number, the JSON document's "format" string, the key=value lines
// of a DUMPI .meta file, a PICL record line ("-3 -901 0.000000 0 0 0"),
// the "stream:processes" lines of an OTF master file. Where the content is
// not conclusive, the name decides: .trf, .bin, .meta, .otf, .json (in any
// case). A file neither reveals gives an error wrapping
// [ErrUnknownFormat].
func Detect(name string) (Format, error) {
	f, err := os.Open(name)
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
	}
	return FormatUnknown
}

// detectContent recognises a format from a file's first bytes alone.
func detectContent(head []byte) Format {
	switch {
	case bytes.HasPrefix(head, dumpiMagic):
		return FormatDUMPI
	case isJSON(head):
		return FormatJSON
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

// isJSON reports whether head starts a JSON object that names the
// trace-events format.
func isJSON(head []byte) bool {
	head = bytes.TrimLeft(head, " \t\r\n")
	return bytes.HasPrefix(head, []byte("{")) && bytes.Contains(head, []byte(`"`+model.JSONFormat+`"`))
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
