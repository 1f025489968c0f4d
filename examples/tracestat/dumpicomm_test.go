package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestDUMPIDerivedComms: on a run whose messages travel on a communicator
// made by Comm_group + Group_incl + Comm_create, every message matches and
// nothing is reported; a single rank's file of a run with derived
// communicators says on stderr how many messages it could not map.
func TestDUMPIDerivedComms(t *testing.T) {
	var out, errb bytes.Buffer
	if err := run([]string{"../../dumpi/testdata/bgp_comm_create/dumpi-2026.11.24.12.10.00.meta"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "matched=4 unmatched_send=0 unmatched_recv=0") || errb.Len() != 0 {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	if err := run([]string{"../../dumpi/testdata/derived_comms/dumpi-2026.11.24.12.00.00-0001.bin"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errb.String(), "messages and") || !strings.Contains(errb.String(), "unknown membership") ||
		!strings.Contains(errb.String(), "not reconstructed") {
		t.Errorf("stderr:\n%s", errb.String())
	}
}
