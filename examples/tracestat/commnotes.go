package main

import (
	"fmt"
	"io"

	"github.com/hpctrace/hpctrace/model"
)

// commNotes tells on stderr what the model source of trace name could
// not map (its model.CommReport r; DUMPI runs have one): messages and
// collectives on communicators whose members the trace does not record
// (their peers stay unknown, so the profile counts them unmatched), and
// mapping problems, one line each. It writes nothing when every
// communicator was mapped.
func commNotes(stderr io.Writer, name string, r model.CommReport) {
	if r.Clean() {
		return
	}
	fmt.Fprintf(stderr, "tracestat: %s: %d messages and %d collectives on communicators of unknown membership (%d handles), %d communicator rank or size mismatches\n",
		name, r.UnknownMessages, r.UnknownCollectives, r.Unknown, r.Mismatches)
	for _, n := range r.Notes {
		fmt.Fprintf(stderr, "tracestat: %s: %s\n", name, n)
	}
}
