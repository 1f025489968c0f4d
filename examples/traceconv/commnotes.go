package main

import (
	"fmt"
	"io"

	"github.com/hpctrace/hpctrace/model"
)

// commNotes tells w what the model source of input in could not map (its
// model.CommReport r; DUMPI runs have one): messages and collectives on
// communicators whose members the trace does not record (the converted
// messages have no peer), and the mapping's problems, one line each. It
// writes nothing when every communicator was mapped.
func commNotes(w io.Writer, in string, r model.CommReport) {
	if r.Clean() {
		return
	}
	fmt.Fprintf(w, "traceconv: %s: %d messages and %d collectives on communicators of unknown membership (%d handles): their peers are not mapped\n",
		in, r.UnknownMessages, r.UnknownCollectives, r.Unknown)
	for _, n := range r.Notes {
		fmt.Fprintf(w, "traceconv: %s: %s\n", in, n)
	}
}
