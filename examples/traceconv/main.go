// Command traceconv converts traces between formats and layouts.
//
// Usage:
//
//	traceconv -in <input> -out <output> [format options]
//
// The input format is detected from the name: a name ending in ".otf" is
// an OTF 1.x trace (the master file; its record files sit beside it). For
// OTF output the options are:
//
//	-form short|long   record syntax of the output (default short)
//	-zlib              compress every record file (full-flush zlib blocks)
//	-zlib-block n      text per zlib block in bytes (default 1 MiB)
//	-streams m         re-stream the processes onto m streams, as otfmerge
//	                   does (0 keeps the input's mapping)
//
// OTF → OTF copies keep every record, key-value list and unknown line;
// a trace written by the reference library and copied in its own form is
// byte-identical.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
)

func main() {
	in := flag.String("in", "", "input trace")
	out := flag.String("out", "", "output trace")
	var o otfFlags
	o.register(flag.CommandLine)
	flag.Parse()
	if *in == "" || *out == "" {
		flag.Usage()
		os.Exit(2)
	}
	var err error
	switch {
	case strings.HasSuffix(*in, ".otf"):
		err = convertOTF(*in, *out, &o)
	default:
		err = fmt.Errorf("cannot tell the format of %q", *in)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "traceconv:", err)
		os.Exit(1)
	}
}
