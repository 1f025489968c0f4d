// Command dumpi2ascii prints a DUMPI rank file as text, the way the
// reference tool's "dumpi2ascii -a" does: the header, every call with its
// arguments, the keyvals, the footer's call counts, the perf-counter
// labels, the function address labels and the datatype sizes. The start
// time is printed in UTC.
//
// Usage:
//
//	dumpi2ascii FILE.bin
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"

	"github.com/hpctrace/hpctrace/dumpi"
)

func main() {
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: dumpi2ascii FILE.bin")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Arg(0)); err != nil {
		fmt.Fprintln(os.Stderr, "dumpi2ascii:", err)
		os.Exit(1)
	}
}

func run(name string) error {
	f, err := dumpi.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriter(os.Stdout)
	if err := f.WriteASCII(w); err != nil {
		return err
	}
	return w.Flush()
}
