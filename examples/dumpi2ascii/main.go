// Command dumpi2ascii prints a DUMPI rank file as text, the way the
// reference tool's "dumpi2ascii -a" does: the header, every call with its
// arguments, the keyvals, the footer's call counts, the perf-counter
// labels, the function address labels and the datatype sizes. The start
// time is printed in UTC. Unlike the reference, control characters in the
// file's strings (host and user names, keyvals, labels) and bytes that are
// not UTF-8 are printed escaped, as \x1b, so that they cannot act on the
// terminal.
//
// Usage:
//
//	dumpi2ascii FILE.bin
//
// The text of every complete call is printed before an error is reported:
// on a file damaged part-way the output stops after the last complete
// call. The exit status is 1 when the file cannot be read to its end or
// the output cannot be written (a full disk, a closed pipe), 2 for a usage
// error.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/hpctrace/hpctrace/dumpi"
	"github.com/hpctrace/hpctrace/examples/internal/progress"
	"github.com/hpctrace/hpctrace/internal/termsafe"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run prints the file named in args to stdout and reports errors on
// stderr; it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("dumpi2ascii", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: dumpi2ascii FILE.bin")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	if err := dump(fs.Arg(0), stdout); err != nil {
		fmt.Fprintln(stderr, "dumpi2ascii:", termsafe.String(err.Error()))
		return 1
	}
	return 0
}

// dump writes the text of the file name to out. The text before a read
// error is written (and flushed) before the error is returned.
func dump(name string, out io.Writer) error {
	f, err := dumpi.Open(name, nil)
	if err != nil {
		return err
	}
	defer f.Close()
	cw := &countingWriter{w: out, m: progress.ForOutput(os.Stderr, out, name, "bytes written")}
	defer func() { cw.m.Done(cw.n) }()
	w := bufio.NewWriter(cw)
	// Text from the file must not act on the terminal: its strings are
	// escaped as they are printed.
	err = f.WriteASCIIEscaped(w, termsafe.AppendText)
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	return err
}

// countingWriter counts the bytes written through it for a progress
// meter.
type countingWriter struct {
	w io.Writer
	m *progress.Meter
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.m.Update(c.n)
	return n, err
}
