package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf2"
)

// allFixtures returns the traces of every format in the repository's
// testdata: every OTF master file, OTF2 anchor, DUMPI run and rank file,
// PICL trace and JSON document (event JSON and Chrome's).
func allFixtures(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, g := range []string{
		"../../otf/testdata/*/*.otf", "../../otf/testdata/*/*/*.otf",
		"../../otf2/testdata/*/trace/*.otf2", "../../otf2/testdata/*/*/trace/*.otf2",
		"../../waitstate/testdata/*/trace/*.otf2", "../otf2print/testdata/*/trace/*.otf2",
		"testdata/*/trace/*.otf2", "testdata/*/*.otf",
		"../../dumpi/testdata/*/*.meta", "../../dumpi/testdata/minimal/*.bin",
		"../../picl/testdata/*.trf",
		"../../eventjson/testdata/*.json", "../../chrome/testdata/*.json",
	} {
		m, err := filepath.Glob(g)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	if len(out) < 60 {
		t.Fatalf("found %d fixtures, want the testdata of every format", len(out))
	}
	return out
}

// joinDiffers are the fixtures whose states, joined, do not give the
// report of one run, with -j as with -shard and -merge: a matter of
// stats.Accumulator.Join, whose result there depends on how the
// locations are shared out. In otf2print's allkinds, locations 2 and 3
// call MPI_Bcast on MPI_COMM_WORLD rooted at location 1 at 1001,
// location 1 at 1012 with no root; joined, one of the others waits 1 ns
// in it, in one run none does. On them -j n must print a report of the
// same lines as -j 1, whose first line (events, locations) is the same.
var joinDiffers = map[string]bool{
	"../otf2print/testdata/allkinds/trace/traces.otf2": true,
}

// TestParallelEqualsOneShard: -j 2, 3, 4 and 7 print what -j 1 prints, on
// stdout and stderr, for every fixture of every format, in text and
// JSON, with the wait-state analysis and without; a trace that fails,
// fails the same way.
func TestParallelEqualsOneShard(t *testing.T) {
	sharded := 0
	for _, trace := range allFixtures(t) {
		cfg := config{jobs: 2}
		if cfg.shardsFor(trace) > 1 {
			sharded++
		}
		for _, flags := range [][]string{nil, {"-json"}, {"-waits=false"}, {"-json", "-waits=false"}} {
			run1 := func(j int) (string, string, error) {
				var out, errb bytes.Buffer
				err := run(append(append([]string{"-j", fmt.Sprint(j)}, flags...), trace), &out, &errb)
				return out.String(), errb.String(), err
			}
			want, wantErr, err1 := run1(1)
			for _, j := range []int{2, 3, 4, 7} {
				got, gotErr, err := run1(j)
				if (err == nil) != (err1 == nil) {
					t.Errorf("%s %v -j %d: error %v, -j 1: %v", trace, flags, j, err, err1)
					continue
				}
				if joinDiffers[trace] {
					wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
					if len(wl) != len(gl) || wl[0] != gl[0] {
						t.Errorf("%s %v: -j %d: %d lines, first %q; -j 1: %d lines, first %q", trace, flags, j, len(gl), gl[0], len(wl), wl[0])
					}
					continue
				}
				if got != want {
					t.Errorf("%s %v: -j %d differs from -j 1:\n%s", trace, flags, j, firstLineDiff(want, got))
				}
				if err1 == nil && gotErr != wantErr {
					t.Errorf("%s %v: -j %d stderr differs from -j 1:\n%s", trace, flags, j, firstLineDiff(wantErr, gotErr))
				}
			}
		}
	}
	// The OTF, OTF2 and DUMPI run fixtures are profiled in shards.
	if sharded < 40 {
		t.Errorf("%d fixtures profiled in shards, want every OTF, OTF2 and DUMPI run", sharded)
	}
}

// TestShardsFor: the formats that store locations apart are sharded, the
// others and the options that need every location in one pass are not.
func TestShardsFor(t *testing.T) {
	for _, c := range []struct {
		trace string
		cfg   config
		want  int
	}{
		{"../../otf/testdata/minimal_ring_short/mini.otf", config{jobs: 4}, 4},
		{"testdata/otf2_mpi/trace/traces.otf2", config{jobs: 3}, 3},
		{"../../dumpi/testdata/collectives/dumpi-2026.11.22.01.33.17.meta", config{jobs: 2}, 2},
		{"../../otf/testdata/minimal_ring_short/mini.otf", config{jobs: 1}, 1},
		{"../../otf/testdata/minimal_ring_short/mini.otf", config{jobs: 4, serial: true}, 1},
		{"../../otf/testdata/minimal_ring_short/mini.otf", config{jobs: 4, at: []timeArg{{ticks: 5}}}, 1},
		{"../../otf/testdata/minimal_ring_short/mini.otf", config{jobs: 4, every: timeArg{ticks: 5}}, 1},
		{"../../otf/testdata/minimal_ring_short/mini.otf", config{jobs: 4, vclock: timeArg{ticks: 5}}, 1},
		{"../../otf/testdata/minimal_ring_short/mini.otf", config{jobs: 4, save: "x"}, 1},
		{"../../picl/testdata/ring4.trf", config{jobs: 4}, 1},
		{"../../eventjson/testdata/fig12.json", config{jobs: 4}, 1},
		{"../../chrome/testdata/ring4.json", config{jobs: 4}, 1},
	} {
		if got := c.cfg.shardsFor(c.trace); got != c.want {
			t.Errorf("%s %+v: %d shards, want %d", c.trace, c.cfg, got, c.want)
		}
	}
}

// TestParallelDUMPICommNotes: the notes on communicators of unknown
// membership of a DUMPI run profiled in shards (each shard's source
// reports its ranks' calls) are those of one run, counts and order.
func TestParallelDUMPICommNotes(t *testing.T) {
	trace := writeDUMPIRun(t, func(rank int) bool { return rank != 2 })
	var want, wantErr bytes.Buffer
	if err := run([]string{"-j", "1", trace}, &want, &wantErr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(wantErr.String(), "rank 3: communicator handle 9") {
		t.Fatalf("one run: want notes of rank 3 on handle 9, got:\n%s", wantErr.String())
	}
	for _, j := range []int{2, 3, 4} {
		var got, gotErr bytes.Buffer
		if err := run([]string{"-j", fmt.Sprint(j), trace}, &got, &gotErr); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() || gotErr.String() != wantErr.String() {
			t.Errorf("-j %d: differs from -j 1:\n%s\nstderr:\n%s", j, firstLineDiff(want.String(), got.String()), firstLineDiff(wantErr.String(), gotErr.String()))
		}
	}
}

func TestJoinCommReports(t *testing.T) {
	rs := []model.CommReport{
		{Reconstructed: 2, Unknown: 1, UnknownMessages: 3, Notes: []string{"shared a", "shared b", "rank 0: x", "rank 2: y"}},
		{Reconstructed: 2, Unknown: 2, UnknownCollectives: 4, Mismatches: 1, Notes: []string{"shared a", "shared b", "rank 1: z", "rank 3: w"}},
	}
	got := joinCommReports(rs)
	want := model.CommReport{Reconstructed: 2, Unknown: 3, UnknownMessages: 3, UnknownCollectives: 4, Mismatches: 1,
		Notes: []string{"shared a", "shared b", "rank 0: x", "rank 1: z", "rank 2: y", "rank 3: w"}}
	if got.Reconstructed != want.Reconstructed || got.Unknown != want.Unknown || got.UnknownMessages != want.UnknownMessages ||
		got.UnknownCollectives != want.UnknownCollectives || got.Mismatches != want.Mismatches || !slices.Equal(got.Notes, want.Notes) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

// TestPartition: the locations read apart go to the shards in blocks of
// neighbouring ids, a thread with its stream's location; fewer shards
// than asked when fewer locations are read apart.
func TestPartition(t *testing.T) {
	d := &model.Defs{}
	var ids []model.LocID
	for i := range 5 {
		ids = append(ids, d.AddLocation(model.Location{Name: fmt.Sprint("rank ", i)}))
	}
	thread := d.AddLocation(model.Location{Name: "rank 4 thread 1", Stream: ids[4]})
	p := newPartition(d, 2)
	var got []int
	for _, l := range append(ids, thread, 0) {
		got = append(got, p.of(d, l))
	}
	if want := []int{0, 0, 0, 1, 1, 1, 0}; p.n != 2 || !slices.Equal(got, want) {
		t.Errorf("2 shards: %d, %v; want 2, %v", p.n, got, want)
	}
	if p := newPartition(d, 9); p.n != 5 || p.of(d, ids[4]) != 4 || p.of(d, thread) != 4 {
		t.Errorf("9 shards asked: %d shards, rank 4 in %d, its thread in %d; want 5, 4, 4", p.n, p.of(d, ids[4]), p.of(d, thread))
	}
}

// TestParallelEvicted: when a shard evicts message ends (more than
// stats.Options.MaxPending wait, here for the other shard's location),
// the joined report could differ from one pass's, so the trace is read
// again in one pass: the report is that of -j 1.
func TestParallelEvicted(t *testing.T) {
	const n = 1<<20 + 1000 // sends before any receive: more than MaxPending
	d := &model.Defs{TimeBase: model.TimeBase{TicksPerSecond: 1e9}}
	a := d.AddLocation(model.Location{Name: "rank 0", Process: 0})
	b := d.AddLocation(model.Location{Name: "rank 1", Process: 1})
	world := d.AddComm(model.Comm{Name: "MPI_COMM_WORLD", Members: []model.LocID{a, b}})
	dir := t.TempDir()
	w, err := otf2.NewModelWriter(model.DirCreator(dir), d, &otf2.ModelWriterOptions{WriterOptions: otf2.WriterOptions{Name: "evict"}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range model.Time(n) {
		if err := w.Write(&model.Event{Time: 10 + i, Loc: a, Kind: model.KindSend, Peer: b, Comm: world, Bytes: 8}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range model.Time(n) {
		if err := w.Write(&model.Event{Time: 10 + n + i, Loc: b, Kind: model.KindRecv, Peer: a, Comm: world, Bytes: 8}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	trace := filepath.Join(dir, "evict.otf2")
	var want, got, errb bytes.Buffer
	if err := run([]string{"-j", "1", "-waits=false", trace}, &want, &errb); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(want.String(), "evicted") {
		t.Fatalf("one pass: want evicted message ends in the report:\n%s", want.String())
	}
	errb.Reset()
	if err := run([]string{"-j", "2", "-waits=false", "-phases", trace}, &got, &errb); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("-j 2 differs from -j 1:\n%s", firstLineDiff(want.String(), got.String()))
	}
	if !strings.Contains(errb.String(), "read again in one pass") {
		t.Errorf("-phases: want the second pass told, got:\n%s", errb.String())
	}
}

// TestParallelPipelined: with two CPUs for each shard, each shard reads
// in a pipeline of its own; the report is still that of -j 1.
func TestParallelPipelined(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, trace := range []string{
		"testdata/otf2_mpi/trace/traces.otf2",
		"../../otf/testdata/all_records_long/allrec.otf",
		"../../dumpi/testdata/collectives/dumpi-2026.11.22.01.33.17.meta",
	} {
		var want, got, errb bytes.Buffer
		if err := run([]string{"-j", "1", trace}, &want, &errb); err != nil {
			t.Fatal(err)
		}
		errb.Reset()
		if err := run([]string{"-j", "2", "-phases", trace}, &got, &errb); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%s: -j 2 pipelined differs from -j 1:\n%s", trace, firstLineDiff(want.String(), got.String()))
		}
		if !strings.Contains(errb.String(), "2 shards, CPU s of each shard's statistics' thread") {
			t.Errorf("%s: -phases: want 2 pipelined shards, got:\n%s", trace, errb.String())
		}
	}
}

// TestJoinCommReportsDuplicate: a rank noted by two shards is noted once,
// and the counts are those of the notes.
func TestJoinCommReportsDuplicate(t *testing.T) {
	u := func(rank, msgs, colls int) string {
		return fmt.Sprintf("rank %d: communicator handle 9: %d messages and %d collectives on a communicator of unknown membership (created by no recorded call)", rank, msgs, colls)
	}
	bad := "rank 1: communicator handle 9: 2 MPI_Comm_rank or MPI_Comm_size results contradict its reconstructed membership"
	rs := []model.CommReport{
		{Unknown: 2, UnknownMessages: 3, UnknownCollectives: 2, Notes: []string{u(0, 1, 1), u(3, 2, 1)}},
		{Unknown: 2, UnknownMessages: 3, UnknownCollectives: 3, Mismatches: 2, Notes: []string{bad, u(1, 1, 2), u(3, 2, 1)}},
	}
	got := joinCommReports(rs)
	want := model.CommReport{Unknown: 3, UnknownMessages: 4, UnknownCollectives: 4, Mismatches: 2,
		Notes: []string{u(0, 1, 1), bad, u(1, 1, 2), u(3, 2, 1)}}
	if got.Unknown != want.Unknown || got.UnknownMessages != want.UnknownMessages ||
		got.UnknownCollectives != want.UnknownCollectives || got.Mismatches != want.Mismatches || !slices.Equal(got.Notes, want.Notes) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

// TestParallelOptions: the statistics' and the report's options (-picl,
// -top, -scope) give with -j the report of -j 1.
func TestParallelOptions(t *testing.T) {
	trace := "../../otf/testdata/all_records_long/allrec.otf"
	for _, flags := range [][]string{{"-picl", "-1"}, {"-top", "3", "-scope", "loc2"}, {"-json", "-picl", "-1"}} {
		var want, got, errb bytes.Buffer
		if err := run(append([]string{"-j", "1"}, append(flags, trace)...), &want, &errb); err != nil {
			t.Fatal(err)
		}
		if err := run(append([]string{"-j", "3"}, append(flags, trace)...), &got, &errb); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%v: -j 3 differs from -j 1:\n%s", flags, firstLineDiff(want.String(), got.String()))
		}
	}
}
