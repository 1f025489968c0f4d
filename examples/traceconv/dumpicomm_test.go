package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

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
	tr, err := otf.Open(os.DirFS(filepath.Dir(out)), "t.otf")
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
