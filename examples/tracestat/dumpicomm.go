package main

import (
	"fmt"
	"io"

	"github.com/hpctrace/hpctrace/dumpi"
)

// dumpiNotes tells on stderr what the DUMPI model source could not map:
// messages and collectives on communicators whose members the run does not
// record (their peers stay unknown, so the profile counts them unmatched),
// and reconstruction problems, one line each. It writes nothing when
// every communicator was reconstructed.
func dumpiNotes(stderr io.Writer, name string, src *dumpi.ModelSource) {
	r := src.CommReport()
	if r.UnknownMessages == 0 && r.UnknownCollectives == 0 && r.Mismatches == 0 && len(r.Notes) == 0 {
		return
	}
	fmt.Fprintf(stderr, "tracestat: %s: %d messages and %d collectives on communicators of unknown membership (%d handles), %d communicator rank or size mismatches\n",
		name, r.UnknownMessages, r.UnknownCollectives, r.Unknown, r.Mismatches)
	for _, n := range r.Notes {
		fmt.Fprintf(stderr, "tracestat: %s: %s\n", name, n)
	}
}
