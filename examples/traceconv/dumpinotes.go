package main

import (
	"fmt"
	"io"

	"github.com/hpctrace/hpctrace/dumpi"
)

// dumpiNotes tells w what the DUMPI model source src of input in could not
// map: messages and collectives on communicators whose members the run
// does not record (the converted messages have no peer), and the
// reconstruction's problems, one line each. It writes nothing when every
// communicator was reconstructed.
func dumpiNotes(w io.Writer, in string, src *dumpi.ModelSource) {
	r := src.CommReport()
	if r.UnknownMessages == 0 && r.UnknownCollectives == 0 && r.Mismatches == 0 && len(r.Notes) == 0 {
		return
	}
	fmt.Fprintf(w, "traceconv: %s: %d messages and %d collectives on communicators of unknown membership (%d handles): their peers are not mapped\n",
		in, r.UnknownMessages, r.UnknownCollectives, r.Unknown)
	for _, n := range r.Notes {
		fmt.Fprintf(w, "traceconv: %s: %s\n", in, n)
	}
}
