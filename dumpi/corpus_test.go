package dumpi

import (
	"bytes"
	"compress/gzip"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace/stats"
)

var update = flag.Bool("update", false, "rewrite the corpus fixtures in testdata (rank files, .meta, ASCII goldens) from their specs")

// A corpusCase is a fixture of testdata written by the Writer from a
// spec: each imitates what a real producer writes (its README says which).
type corpusCase struct {
	dir  string
	spec runSpec
}

// DUMPI 1.1 builds on the historical machines: version bytes 1.1.0 and a
// 3-D mesh in the header.
var v110 = Version{1, 1, 0}

func corpus() []corpusCase {
	ranks, _, _ := derivedRun()
	return []corpusCase{
		{"derived_comms", runSpec{prefix: "dumpi-2026.11.24.12.00.00", ranks: ranks}},
		{"bgp_comm_create", runSpec{prefix: "dumpi-2026.11.24.12.10.00", ranks: bgpRun(),
			header: func(r int) Header {
				// Four ranks per node (virtual-node mode) on a 4×4×2
				// partition: the node's torus coordinates, and the sizes.
				node := int32(r / 4)
				return Header{Version: v110, StartTime: 1795522200, Host: "bgp", User: "dumpiuser",
					MeshCoords: []int32{node % 4, node / 4 % 4, node / 16}, MeshSize: []int32{4, 4, 2}}
			}}},
		{"cray_empty_arrays", runSpec{prefix: "dumpi-2026.11.24.12.20.00", ranks: crayRun(),
			header: func(r int) Header {
				// Cray XT: the node's 3 coordinates and zeroed sizes.
				return Header{Version: v110, StartTime: 1795522800, Host: "nid" + pad5(12+r/2), User: "dumpiuser",
					MeshCoords: []int32{int32(r / 2), 3, 1}, MeshSize: []int32{0, 0, 0}}
			}}},
	}
}

func pad5(n int) string {
	s := itoa(n)
	return strings.Repeat("0", 5-len(s)) + s
}

// bgpRun is 8 ranks whose point-to-point messages all travel on a
// communicator made by MPI_Comm_group + MPI_Group_incl + MPI_Comm_create
// (the even ranks): a ring of Irecv/Isend/Waitall, an Allreduce and a
// Reduce on it, then a Barrier on MPI_COMM_WORLD.
func bgpRun() [][]Args {
	members := []int32{0, 2, 4, 6}
	var ranks [][]Args
	for r := range int32(8) {
		calls := []Args{&Init{},
			&CommRank{Comm: MPI_COMM_WORLD, Rank: r},
			&CommSize{Comm: MPI_COMM_WORLD, Size: 8},
			&CommGroup{Comm: MPI_COMM_WORLD, Group: 3},
			&GroupIncl{Group: 3, Count: 4, Ranks: members, Newgroup: 4},
		}
		if r%2 == 0 {
			me := r / 2
			left, right := (me+3)%4, (me+1)%4
			calls = append(calls,
				&CommCreate{Oldcomm: MPI_COMM_WORLD, Group: 4, Newcomm: 4},
				&GroupFree{Group: 4}, &GroupFree{Group: 3},
				&CommRank{Comm: 4, Rank: me},
				&CommSize{Comm: 4, Size: 4},
				&Irecv{Count: 8, Datatype: MPI_DOUBLE, Source: left, Tag: 10, Comm: 4, Request: 2},
				&Isend{Count: 8, Datatype: MPI_DOUBLE, Dest: right, Tag: 10, Comm: 4, Request: 3},
				&Waitall{Count: 2, Requests: []Request{2, 3},
					Statuses: []Status{{Bytes: 64, Source: left, Tag: 10}, {Bytes: 0, Source: -1, Tag: -1}}},
				&Allreduce{Count: 1, Datatype: MPI_DOUBLE, Op: MPI_SUM, Comm: 4},
				&Reduce{Count: 1, Datatype: MPI_DOUBLE, Op: MPI_MAX, Root: 0, Comm: 4},
				&CommFree{Comm: 4})
		} else {
			calls = append(calls,
				&CommCreate{Oldcomm: MPI_COMM_WORLD, Group: 4, Newcomm: MPI_COMM_NULL},
				&GroupFree{Group: 4}, &GroupFree{Group: 3})
		}
		calls = append(calls, &Barrier{Comm: MPI_COMM_WORLD}, &Finalize{})
		ranks = append(ranks, calls)
	}
	return ranks
}

// crayRun is 4 ranks of a halo exchange whose completion calls are
// sometimes made with nothing to complete, as applications do at the
// edges of their domain: Waitall, Waitany, Testall, Waitsome, Testsome and
// Startall with count 0 (Waitany and Waitsome then return
// MPI_UNDEFINED, -32766 in MPICH-derived libraries such as Cray's), and a
// Group_incl of no ranks; then a ring exchange whose lists are not empty.
func crayRun() [][]Args {
	const undefined = -32766
	var ranks [][]Args
	for r := range int32(4) {
		left, right := (r+3)%4, (r+1)%4
		calls := []Args{&Init{},
			&CommRank{Comm: MPI_COMM_WORLD, Rank: r},
			&CommSize{Comm: MPI_COMM_WORLD, Size: 4},
			&Waitall{},
			&Startall{},
			&Waitany{Index: undefined},
			&Testall{Flag: 1},
			&Waitsome{Outcount: undefined},
			&Testsome{Outcount: undefined},
			&CommGroup{Comm: MPI_COMM_WORLD, Group: 3},
			&GroupIncl{Group: 3, Newgroup: MPI_GROUP_EMPTY},
			&GroupFree{Group: 3},
			&Irecv{Count: 16, Datatype: MPI_INT, Source: left, Tag: 3, Comm: MPI_COMM_WORLD, Request: 2},
			&Isend{Count: 16, Datatype: MPI_INT, Dest: right, Tag: 3, Comm: MPI_COMM_WORLD, Request: 3},
			&Waitall{Count: 2, Requests: []Request{2, 3},
				Statuses: []Status{{Bytes: 64, Source: left, Tag: 3}, {Bytes: 0, Source: -1, Tag: -1}}},
			&Barrier{Comm: MPI_COMM_WORLD},
			&Finalize{},
		}
		ranks = append(ranks, calls)
	}
	return ranks
}

// TestCorpus writes every corpus fixture from its spec and checks that
// testdata holds exactly those bytes (go test -run TestCorpus -update
// rewrites them and their ASCII goldens), and that each has a README.
// TestASCIIGolden then checks the goldens like the reference tracer's.
func TestCorpus(t *testing.T) {
	for _, c := range corpus() {
		t.Run(c.dir, func(t *testing.T) {
			tmp := t.TempDir()
			writeSpec(t, tmp, &c.spec)
			dir := filepath.Join("testdata", c.dir)
			files, err := os.ReadDir(tmp)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				got, err := os.ReadFile(filepath.Join(tmp, f.Name()))
				if err != nil {
					t.Fatal(err)
				}
				if *update {
					if err := os.MkdirAll(dir, 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(dir, f.Name()), got, 0o644); err != nil {
						t.Fatal(err)
					}
					if rank, ok := RankOf(f.Name()); ok && strings.HasSuffix(f.Name(), ".bin") {
						writeGolden(t, filepath.Join(tmp, f.Name()), filepath.Join(dir, "rank"+itoa(rank)+".ascii.txt.gz"))
					}
					continue
				}
				want, err := os.ReadFile(filepath.Join(dir, f.Name()))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s differs from what its spec writes (go test -run TestCorpus -update rewrites it)", f.Name())
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
				t.Error(err)
			}
		})
	}
}

func writeGolden(t *testing.T, bin, golden string) {
	t.Helper()
	f, err := Open(bin, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var text bytes.Buffer
	if err := f.WriteASCII(&text); err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(text.Bytes())
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(golden, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCorpusModel checks what each corpus fixture is for: every message
// and collective on the derived communicators matched, and the empty lists
// of the Cray-style run printed as the reference does.
func TestCorpusModel(t *testing.T) {
	for _, tc := range []struct {
		dir            string
		matched, comms int64
		collectives    int
	}{
		{"derived_comms", 51, 15, 25},
		{"bgp_comm_create", 4, 1, 3},
		{"cray_empty_arrays", 4, 0, 1},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			src, _ := runModel(t, tc.dir)
			acc := stats.New(src.Defs(), nil)
			for ev, err := range src.All() {
				if err != nil {
					t.Fatal(err)
				}
				acc.Add(ev)
			}
			f := acc.Finalize().Final
			d := f.Diagnostics
			if d.MatchedMessages != tc.matched || d.UnmatchedSend != 0 || d.UnmatchedRecv != 0 || d.OpenCollectives != 0 {
				t.Errorf("stats %+v, want %d matched messages and nothing unmatched", d, tc.matched)
			}
			insts := map[[2]uint64]bool{}
			for _, ci := range f.Collectives {
				insts[[2]uint64{uint64(ci.CommID), ci.Instance}] = true
			}
			if len(insts) != tc.collectives {
				t.Errorf("%d collective instances, want %d", len(insts), tc.collectives)
			}
			rep := src.CommReport()
			if int64(rep.Reconstructed) != tc.comms || rep.Unknown != 0 || rep.Mismatches != 0 || len(rep.Notes) != 0 {
				t.Errorf("communicators: %+v, want %d reconstructed", rep, tc.comms)
			}
		})
	}
	// The empty lists print as <IGNORED>, the others as lists.
	text := string(readGz(t, "testdata/cray_empty_arrays/rank1.ascii.txt.gz"))
	for _, w := range []string{
		"MPI_Waitall entering", "int count=0\nMPI_Request requests[0]=<IGNORED>\nMPI_Status statuses[0]=<IGNORED>\n",
		"MPI_Startall entering", "int count=0\nMPI_Request requests[0]=<IGNORED>\nMPI_Startall returning",
		"MPI_Request requests[0]=<IGNORED>\nint index=-32766\nMPI_Status status=<IGNORED>\n",
		"int outcount=0\nint indices[0]=<IGNORED>\nMPI_Status statuses[0]=<IGNORED>\n", // the reference prints the list length
		"int count=0\nint ranks[0]=<IGNORED>\n",
		"MPI_Request requests[2]=[2, 3]\n",
		"meshdim=3\nmeshsize=[0, 0, 0]\nmeshcrd=[0, 3, 1]\n",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("golden lacks %q", w)
		}
	}
	if strings.Contains(text, "[]") {
		t.Error("golden prints an empty list as []")
	}
}
