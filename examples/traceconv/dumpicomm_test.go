package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf"
)

// TestDUMPIDerivedCommToOTF converts a DUMPI run whose messages all travel
// on a communicator made by Comm_group + Group_incl + Comm_create: the OTF
// messages go between the even ranks' processes (a ring), on a process
// group that lists exactly those processes, never to or from process 0.
func TestDUMPIDerivedCommToOTF(t *testing.T) {
	out := filepath.Join(t.TempDir(), "t.otf")
	if err := convert("../../dumpi/testdata/bgp_comm_create/dumpi-2026.11.24.12.10.00.meta", out, &options{to: "otf", otf: otfFlags{form: "short"}}); err != nil {
		t.Fatal(err)
	}
	tr, err := otf.OpenFS(os.DirFS(filepath.Dir(out)), "t.otf", nil)
	if err != nil {
		t.Fatal(err)
	}
	groups := map[uint32][]uint32{}
	var sends, recvs [][3]uint32 // process, peer, group
	for _, ft := range []otf.FileType{otf.FileDef, otf.FileEvents} {
		r, err := tr.NewReader(&otf.TraceReaderOptions{File: ft})
		if err != nil {
			t.Fatal(err)
		}
		for rec, err := range r.All() {
			if err != nil {
				t.Fatal(err)
			}
			if g, ok := rec.DefProcessGroup(); ok {
				groups[g.Group] = slices.Clone(g.Members)
			}
			if s, ok := rec.Send(); ok {
				sends = append(sends, [3]uint32{rec.Process, s.Receiver, s.Communicator})
			}
			if v, ok := rec.Receive(); ok {
				recvs = append(recvs, [3]uint32{rec.Process, v.Sender, v.Communicator})
			}
		}
	}
	// Processes are the ranks' locations 1 … 8: ranks 0, 2, 4, 6 are 1, 3, 5, 7.
	ring := map[uint32]uint32{1: 3, 3: 5, 5: 7, 7: 1}
	if len(sends) != 4 || len(recvs) != 4 {
		t.Fatalf("%d sends, %d receives", len(sends), len(recvs))
	}
	for _, s := range sends {
		if ring[s[0]] != s[1] || !slices.Equal(groups[s[2]], []uint32{1, 3, 5, 7}) {
			t.Errorf("send %v (group members %v)", s, groups[s[2]])
		}
	}
	for _, r := range recvs {
		if ring[r[1]] != r[0] || !slices.Equal(groups[r[2]], []uint32{1, 3, 5, 7}) {
			t.Errorf("receive %v (group members %v)", r, groups[r[2]])
		}
	}
}

// TestDUMPIUnknownPeerNotes converts one rank's file of a run whose
// messages travel on a derived communicator: alone, the file does not
// tell the communicator's members, so the messages have no known peer.
// run's stderr gets the DUMPI adapter's notes, and for OTF and PICL the
// count of messages not written; no message goes to or from a process
// that was not its partner.
func TestDUMPIUnknownPeerNotes(t *testing.T) {
	in := "../../dumpi/testdata/bgp_comm_create/dumpi-2026.11.24.12.10.00-0000.bin"
	dir := t.TempDir()
	for _, to := range []string{"otf", "picl", "json"} {
		out := filepath.Join(dir, "t."+to)
		if to == "picl" {
			out = filepath.Join(dir, "t.trf")
		}
		var stderr strings.Builder
		if code := run([]string{"-to", to, "-in", in, "-out", out}, &stderr); code != 0 {
			t.Fatalf("-to %s: exit %d: %s", to, code, stderr.String())
		}
		msg := stderr.String()
		for _, want := range []string{
			in + ": 2 messages and 2 collectives on communicators of unknown membership (1 handles): their peers are not mapped\n",
			in + ": rank 0: communicator handle 4: 2 messages and 2 collectives on a communicator of unknown membership (not reconstructed: the run's rank files were not all read)\n",
		} {
			if strings.Count(msg, want) != 1 {
				t.Errorf("-to %s: stderr %q lacks (once) %q", to, msg, want)
			}
		}
		dropped := out + ": 2 messages without a known peer not written"
		if got := strings.Contains(msg, dropped); got != (to != "json") {
			t.Errorf("-to %s: stderr %q: note %q given %v", to, msg, dropped, got)
		}
	}
	// The OTF trace has no message records left (every one lacked a peer).
	tr, err := otf.OpenFS(os.DirFS(dir), "t.otf", nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := tr.NewReader(&otf.TraceReaderOptions{File: otf.FileEvents})
	if err != nil {
		t.Fatal(err)
	}
	for rec, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := rec.Send(); ok {
			t.Errorf("OTF send %+v", rec)
		}
		if _, ok := rec.Receive(); ok {
			t.Errorf("OTF receive %+v", rec)
		}
	}
	// The JSON document keeps the messages, without a peer.
	b, err := os.ReadFile(filepath.Join(dir, "t.json"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), `"kind":"send"`) + strings.Count(string(b), `"kind":"recv"`); n != 2 || strings.Contains(string(b), `"peer"`) {
		t.Errorf("JSON: %d messages, peer field present %v", n, strings.Contains(string(b), `"peer"`))
	}
}

// TestUnwrittenNotes: converting a DUMPI run with non-blocking messages to
// OTF or PICL drops the receive posts and send completions, which those
// formats have no record for, and says how many on stderr; to OTF2 and
// JSON, which carry them, nothing is said.
func TestUnwrittenNotes(t *testing.T) {
	in := "../../dumpi/testdata/p2p_nonblocking/dumpi-2026.11.22.01.33.16.meta"
	src, closeSrc, err := openModel(in, nil)()
	if err != nil {
		t.Fatal(err)
	}
	defer closeSrc()
	var posts, dones int64
	for ev, err := range model.All(src) {
		if err != nil {
			t.Fatal(err)
		}
		switch ev.Kind {
		case model.KindRecvPost:
			posts++
		case model.KindSendDone:
			dones++
		}
	}
	if posts == 0 || dones == 0 {
		t.Fatalf("the fixture has %d receive posts and %d send completions; want some of each", posts, dones)
	}
	dir := t.TempDir()
	for _, to := range []string{"otf", "picl", "otf2", "json"} {
		out := filepath.Join(dir, "t."+map[string]string{"otf": "otf", "picl": "trf", "otf2": "otf2", "json": "json"}[to])
		var stderr strings.Builder
		if code := run([]string{"-to", to, "-in", in, "-out", out}, &stderr); code != 0 {
			t.Fatalf("-to %s: exit %d: %s", to, code, stderr.String())
		}
		note := fmt.Sprintf("%d recv_post, %d send_done", posts, dones)
		if got := strings.Contains(stderr.String(), note); got != (to == "otf" || to == "picl") {
			t.Errorf("-to %s: stderr %q: note %q given %v", to, stderr.String(), note, got)
		}
	}
}
