// Command traceconv copies and converts traces through the SDK's readers
// and writers. The input format is detected from the file's name and first
// bytes.
//
// Usage:
//
//	traceconv -in IN -out OUT [OTF options]
//
// Supported inputs and what a copy does:
//
//	dumpi   one DUMPI rank file (.bin): copied call by call; the copy is
//	        byte-identical to the input
//	otf     an OTF 1.x trace, named by its master file (.otf, with the
//	        record files beside it): copied record by record, keeping every
//	        key-value list and unknown line; a trace written by the
//	        reference library and copied in its own form is byte-identical
//
// For OTF output the options are:
//
//	-form short|long   record syntax of the output (default short)
//	-zlib              compress every record file (full-flush zlib blocks)
//	-zlib-block n      text per zlib block in bytes (default 1 MiB)
//	-streams m         re-stream the processes onto m streams, as otfmerge
//	                   does (0 keeps the input's mapping)
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// options holds the format-specific flags.
type options struct {
	otf otfFlags
}

// A format knows how to recognise its files and copy one.
type format struct {
	name   string
	detect func(name string, head []byte) bool
	copy   func(in, out string, o *options) error
}

// formats lists the supported formats; each lives in its own file.
var formats = []format{
	{"dumpi", detectDUMPI, func(in, out string, _ *options) error { return copyDUMPI(in, out) }},
	{"otf", detectOTF, func(in, out string, o *options) error { return convertOTF(in, out, &o.otf) }},
}

func main() {
	in := flag.String("in", "", "input trace")
	out := flag.String("out", "", "output trace")
	var o options
	o.otf.register(flag.CommandLine)
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: traceconv -in IN -out OUT [OTF options]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *in == "" || *out == "" || flag.NArg() != 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := convert(*in, *out, &o); err != nil {
		fmt.Fprintln(os.Stderr, "traceconv:", err)
		os.Exit(1)
	}
}

func convert(in, out string, o *options) error {
	f, err := detect(in)
	if err != nil {
		return err
	}
	return f.copy(in, out, o)
}

// detect picks the format of the file named in from its first bytes and
// its name.
func detect(in string) (*format, error) {
	fh, err := os.Open(in)
	if err != nil {
		return nil, err
	}
	head := make([]byte, 64)
	n, err := io.ReadFull(fh, head)
	fh.Close()
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	head = head[:n]
	for i := range formats {
		if formats[i].detect(in, head) {
			return &formats[i], nil
		}
	}
	return nil, fmt.Errorf("%s: unknown trace format", in)
}

// detectOTF recognises an OTF master file by its name.
func detectOTF(name string, _ []byte) bool { return hasExt(name, ".otf") }

func hasExt(name string, exts ...string) bool {
	e := strings.ToLower(filepath.Ext(name))
	for _, x := range exts {
		if e == x {
			return true
		}
	}
	return false
}
