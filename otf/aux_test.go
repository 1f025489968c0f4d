package otf_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/hpctrace/hpctrace/otf"
)

// auxFixture returns the otfaux_all trace without what otfaux added: no
// snapshot and statistics files and no DEFAUXSAMPLEPOINT records.
func auxFixture(t *testing.T) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	for _, name := range []string{"aux.otf", "aux.0.def", "aux.1.events", "aux.2.events"} {
		data, err := os.ReadFile(filepath.Join("testdata/otfaux_all", name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "aux.0.def" {
			var kept []string
			for l := range strings.Lines(string(data)) {
				if !strings.HasPrefix(l, "DAUX") {
					kept = append(kept, l)
				}
			}
			data = []byte(strings.Join(kept, ""))
		}
		m[name] = &fstest.MapFile{Data: data}
	}
	return m
}

// TestAuxFixture recomputes what `otfaux --all -n 4 -t 108500` wrote into
// the otfaux_all fixture and compares the snapshot and statistics files
// byte for byte, and the DEFAUXSAMPLEPOINT records in order.
func TestAuxFixture(t *testing.T) {
	tc, err := otf.OpenFS(auxFixture(t), "aux.otf", nil)
	if err != nil {
		t.Fatal(err)
	}
	first, last, ok, err := tc.EventTimeRange()
	if err != nil || !ok || first != 1 || last != 0x7a509 {
		t.Fatalf("EventTimeRange = %#x, %#x, %v, %v; want 0x1, 0x7a509", first, last, ok, err)
	}
	times := otf.AuxTimes(first, last, 4, 0, []uint64{108500})
	if want := []uint64{0x1a7d4, 0x1e943, 0x3d285, 0x5bbc7, 0x7a50a}; !slices.Equal(times, want) {
		t.Fatalf("AuxTimes = %#x, want %#x", times, want)
	}
	bufs := map[string]*bytes.Buffer{}
	writers := map[string]*otf.Writer{}
	var daux []string
	err = tc.Aux(&otf.AuxOptions{Times: times, Snapshots: true, Summaries: true}, func(f otf.FileType, rec *otf.Record) error {
		if f == otf.FileDef {
			daux = append(daux, rec.String())
			return nil
		}
		id, _ := tc.StreamOf(rec.Process)
		name := otf.FileName("aux", id, f, false)
		w := writers[name]
		if w == nil {
			bufs[name] = new(bytes.Buffer)
			w, _ = otf.NewWriter(bufs[name], nil)
			writers[name] = w
		}
		return w.Write(rec)
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, w := range writers {
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join("testdata/otfaux_all", name))
		if err != nil {
			t.Fatal(err)
		}
		if got := bufs[name].String(); got != string(want) {
			t.Errorf("%s differs from the reference otfaux's:\ngot\n%s\nwant\n%s", name, got, want)
		}
	}
	if len(writers) != 4 {
		t.Errorf("wrote %d files, want 4 (.snaps and .stats of 2 streams)", len(writers))
	}
	defs, err := os.ReadFile("testdata/otfaux_all/aux.0.def")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	r, _ := otf.NewReader(bytes.NewReader(defs), &otf.ReaderOptions{File: otf.FileDef})
	for r.Next() {
		if r.Record().Kind == otf.KindDefAuxSamplePoint {
			want = append(want, r.Record().String())
		}
	}
	if !slices.Equal(daux, want) {
		t.Errorf("DEFAUXSAMPLEPOINT records:\ngot  %q\nwant %q", daux, want)
	}
}

// replayState applies every event with time < x to a new State.
func replayState(t *testing.T, tc *otf.Trace, x uint64) *otf.State {
	if x == 0 {
		return &otf.State{}
	}
	tr, err := tc.NewReader(&otf.TraceReaderOptions{To: x})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	st := &otf.State{Time: x}
	for rec, err := range tr.All() {
		if err != nil {
			t.Fatal(err)
		}
		st.Apply(rec)
	}
	return st
}

func stateStrings(st *otf.State) []string { return strs(st.AppendRecords(nil)) }

// TestStateMatchesSnapshots replays the events of otfaux_all up to each
// snapshot time and compares the state with the reference's snapshot.
func TestStateMatchesSnapshots(t *testing.T) {
	tc := openFixture(t, "otfaux_all", "aux.otf")
	times, err := tc.SnapshotTimes()
	if err != nil {
		t.Fatal(err)
	}
	if want := []uint64{0x1a7d4, 0x1e943, 0x3d285, 0x5bbc7}; !slices.Equal(times, want) {
		t.Fatalf("SnapshotTimes = %#x, want %#x", times, want)
	}
	for _, s := range times {
		snaps, err := tc.NewReader(&otf.TraceReaderOptions{File: otf.FileSnaps, From: s, To: s + 1})
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for rec, err := range snaps.All() {
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, rec.String())
		}
		snaps.Close()
		// The merge puts the processes of different streams in another
		// order; AppendRecords sorts them.
		slices.SortStableFunc(want, func(a, b string) int { return strings.Compare(procOf(a), procOf(b)) })
		if got := stateStrings(replayState(t, tc, s)); !slices.Equal(got, want) {
			t.Errorf("state at %#x:\ngot  %q\nwant %q", s, got, want)
		}
	}
}

// TestSeekState checks that the state SeekState builds from the latest
// snapshot equals the state of a replay from the start, for every event
// time of otfaux_all and its neighbours, and that the reader is then at
// the first event with time ≥ x. The fixture's snapshots hold messages in
// flight (at 0x1a7d4), stacks, collective counts and counters.
func TestSeekState(t *testing.T) {
	for _, fsys := range []fs.FS{os.DirFS("testdata/otfaux_all"), stripSamplePoints(t)} {
		tc, err := otf.OpenFS(fsys, "aux.otf", nil)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := tc.NewReader(nil)
		if err != nil {
			t.Fatal(err)
		}
		all := readTimed(t, tc, 0)
		ts := seekTimes(all)
		for k := 0; k < len(ts); k += len(ts)/150 + 1 {
			x := ts[k]
			st, err := tr.SeekState(x)
			if err != nil {
				t.Fatalf("SeekState(%#x): %v", x, err)
			}
			if got, want := stateStrings(st), stateStrings(replayState(t, tc, x)); !slices.Equal(got, want) {
				t.Fatalf("SeekState(%#x):\ngot  %q\nwant %q", x, got, want)
			}
			i, _ := slices.BinarySearchFunc(all, x, func(e timed, t uint64) int {
				if e.time < t {
					return -1
				}
				return 1
			})
			if i < len(all) {
				if !tr.Next() || tr.Record().String() != all[i].s {
					t.Fatalf("after SeekState(%#x): got %v, want %s", x, tr.Record(), all[i].s)
				}
			} else if tr.Next() {
				t.Fatalf("after SeekState(%#x) past the end: got %v", x, tr.Record())
			}
		}
		tr.Close()
	}
}

// stripSamplePoints is otfaux_all without its DEFAUXSAMPLEPOINT records, so
// SeekState must bisect the snapshot files.
func stripSamplePoints(t *testing.T) fstest.MapFS {
	m := auxFixture(t)
	for _, name := range []string{"aux.1.snaps", "aux.2.snaps", "aux.1.stats", "aux.2.stats"} {
		data, err := os.ReadFile(filepath.Join("testdata/otfaux_all", name))
		if err != nil {
			t.Fatal(err)
		}
		m[name] = &fstest.MapFile{Data: data}
	}
	return m
}

func readTimed(t *testing.T, tc *otf.Trace, from uint64) []timed {
	tr, err := tc.NewReader(&otf.TraceReaderOptions{From: from})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	var out []timed
	for rec, err := range tr.All() {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, timed{rec.Time, rec.String()})
	}
	return out
}

// procOf returns the process of a Record.String() line, zero-padded.
func procOf(s string) string {
	_, p, _ := strings.Cut(s, " p=")
	p, _, _ = strings.Cut(p, " ")
	return strings.Repeat("0", 8-len(p)) + p
}
