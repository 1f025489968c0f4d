// Command traceconv copies a trace through the SDK's reader and writer.
// The input format is detected from the file's name and content; the
// output format is the input's (conversions between formats come later).
//
// Usage:
//
//	traceconv -in IN -out OUT
//
// Supported formats:
//
//	dumpi   one DUMPI rank file (.bin); the copy is byte-identical
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

// A format knows how to recognise its files and copy one.
type format struct {
	name   string
	detect func(name string, head []byte) bool
	copy   func(in, out string) error
}

// formats lists the supported formats; each lives in its own file.
var formats = []format{
	{"dumpi", detectDUMPI, copyDUMPI},
}

func main() {
	in := flag.String("in", "", "input trace")
	out := flag.String("out", "", "output trace")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: traceconv -in IN -out OUT")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *in == "" || *out == "" || flag.NArg() != 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := convert(*in, *out); err != nil {
		fmt.Fprintln(os.Stderr, "traceconv:", err)
		os.Exit(1)
	}
}

func convert(in, out string) error {
	f, err := detect(in)
	if err != nil {
		return err
	}
	return f.copy(in, out)
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

func hasExt(name string, exts ...string) bool {
	e := strings.ToLower(filepath.Ext(name))
	for _, x := range exts {
		if e == x {
			return true
		}
	}
	return false
}
