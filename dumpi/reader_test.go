package dumpi

import (
	"bytes"
	"errors"
	"io"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

var callOpts = []cmp.Option{cmp.AllowUnexported(Call{}), cmpopts.EquateEmpty()}

func writeCalls(t rapid.TB, opts *WriterOptions, calls []*Call) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range calls {
		if err := w.Write(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func memFile(t testing.TB, data []byte) *File {
	t.Helper()
	f, err := NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func barrier(wallStart, wallStop uint16) *Call {
	c := &Call{Mask: MaskThread | MaskWallTime, Wall: Span{StartSec: wallStart, StopSec: wallStop}}
	c.SetArgs(&Barrier{Comm: MPI_COMM_WORLD})
	return c
}

// TestTimeWrap checks the monotonic times across the 16-bit rollover.
func TestTimeWrap(t *testing.T) {
	calls := []*Call{barrier(65000, 65100), barrier(65500, 3), barrier(100, 200), barrier(65535, 0)}
	f := memFile(t, writeCalls(t, &WriterOptions{WallBase: 10}, calls))
	var starts, stops []int64
	for c, err := range f.Calls().All() {
		if err != nil {
			t.Fatal(err)
		}
		starts = append(starts, c.WallStart()/1e9)
		stops = append(stops, c.WallStop()/1e9)
	}
	wantStarts := []int64{65010, 65510, 65646, 131081}
	wantStops := []int64{65110, 65549, 65746, 131082}
	if !slices.Equal(starts, wantStarts) || !slices.Equal(stops, wantStops) {
		t.Errorf("starts %v stops %v; want %v %v", starts, stops, wantStarts, wantStops)
	}
}

// TestLegacyLayouts writes and reads the record layouts of files older
// than 0.6.9.
func TestLegacyLayouts(t *testing.T) {
	mk := func(a Args, mask Mask) *Call {
		c := &Call{Mask: mask}
		c.SetArgs(a)
		return c
	}
	calls := []*Call{
		mk(&Init{Argc: 2, Argv: [][]byte{[]byte("a"), []byte("bc")}}, MaskStatusEnable),
		mk(&CartGet{Ndim: 2, Comm: 4, Maxdims: 2, Dims: []int32{2, 2}, Periods: []int32{0, 1}, Coords: []int32{7}}, MaskStatusEnable),
		mk(&TypeStruct{Count: 1, Lengths: []int32{1}, Indices: []int32{9}, Oldtypes: []Datatype{MPI_INT}, Newtype: 28}, MaskStatusEnable),
		mk(&Wait{Request: 2, Status: []Status{{Bytes: 4, Source: 1, Tag: MPI_ANY_TAG}}}, MaskStatusEnable),
	}
	for _, v := range []Version{{0, 6, 1}, {0, 6, 9}} {
		data := writeCalls(t, &WriterOptions{Header: Header{Version: v}}, calls)
		got := collect(t, memFile(t, data).Calls())
		if diff := cmp.Diff(calls, got, callOpts...); diff != "" {
			t.Errorf("version %s: round trip (-want +got):\n%s", v, diff)
		}
		var modern []*Call
		r := mustReader(t, data, nil)
		for r.Next() {
			modern = append(modern, r.Record().Clone())
		}
		if v.Less(Version{0, 6, 9}) && r.Err() == nil && cmp.Equal(calls, modern, callOpts...) {
			t.Errorf("version %s: the modern layout decodes the old one identically", v)
		}
		legacy := collect(t, mustReader(t, data, &ReaderOptions{Version: v}))
		if diff := cmp.Diff(calls, legacy, callOpts...); diff != "" {
			t.Errorf("version %s: NewReader with the version (-want +got):\n%s", v, diff)
		}
	}
}

func mustReader(t testing.TB, data []byte, opts *ReaderOptions) *Reader {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data), opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestNewReaderMatchesFile reads every fixture both ways.
func TestNewReaderMatchesFile(t *testing.T) {
	bins, _ := fixtureRanks(t)
	for _, bin := range bins {
		data, err := os.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		a := collect(t, memFile(t, data).Calls())
		b := collect(t, mustReader(t, data, &ReaderOptions{Path: bin}))
		if len(a) == 0 {
			t.Fatalf("%s: no calls", bin)
		}
		if diff := cmp.Diff(a, b, callOpts...); diff != "" {
			t.Errorf("%s (-file +reader):\n%s", bin, diff)
		}
	}
}

// TestStreamEnds checks the three end rules: END_OF_STREAM, reaching the
// footer offset, and the legacy label 0 after MPI_Finalize.
func TestStreamEnds(t *testing.T) {
	for _, tc := range []struct {
		name  string
		src   string
		calls int
	}{
		{"footer offset", `
hex ffaadd44554d5049
body:
i32 0
i32 0
u16 52
u8 0x40
u16 0
u16 2
footer:
footer
index64`, 1},
		{"label 0 after Finalize", `
hex ffaadd44554d5049
body:
i32 0
i32 0
u16 125
u8 0x40
u16 0
u16 0
hex 00 ff ff ff
index64`, 1},
	} {
		f := memFile(t, assemble(t, tc.src))
		r := f.Calls()
		n := 0
		for r.Next() {
			n++
		}
		if r.Err() != nil || n != tc.calls {
			t.Errorf("%s: %d calls, err %v; want %d, nil", tc.name, n, r.Err(), tc.calls)
		}
	}
}

// TestReaderAllocs pins the steady state of Next at zero allocations over
// fixtures with arrays, status lists and strings.
func TestReaderAllocs(t *testing.T) {
	for _, name := range []string{"p2p_nonblocking", "datatypes", "comm_topo", "mpiio"} {
		data := readFixture(t, name, 0)
		br := bytes.NewReader(data)
		r, err := NewReader(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		next := func() {
			if !r.Next() {
				if r.Err() != nil {
					t.Fatal(r.Err())
				}
				br.Reset(data)
				if err := r.Reset(br); err != nil {
					t.Fatal(err)
				}
			}
			_ = r.Record().Args()
		}
		for range 20000 { // warm up: every argument struct and slice
			next()
		}
		if n := testing.AllocsPerRun(20000, next); n != 0 {
			t.Errorf("%s: Next allocates %.2f times per call; want 0", name, n)
		}
	}
}

// TestTypedAccessAllocs checks that reaching typed arguments and printing
// times allocate nothing.
func TestTypedAccessAllocs(t *testing.T) {
	data := readFixture(t, "p2p_nonblocking", 0)
	r := mustReader(t, data, nil)
	var sum int64
	n := testing.AllocsPerRun(100, func() {
		if !r.Next() {
			return
		}
		c := r.Record()
		switch a := c.Args().(type) {
		case *Isend:
			sum += int64(a.Count)
		case *Testall:
			sum += int64(len(a.Requests) + len(a.Statuses))
		case *Waitany:
			sum += int64(a.Index)
		}
		sum += c.WallStart()
	})
	if n != 0 {
		t.Errorf("typed access allocates %.1f per call", n)
	}
}

// TestOpenRun opens every fixture run, checks the merged order and that
// parallel per-rank reading sees the same calls.
func TestOpenRun(t *testing.T) {
	dirs, _ := os.ReadDir("testdata")
	for _, d := range dirs {
		if !d.IsDir() || d.Name() == "bad" {
			continue
		}
		t.Run(d.Name(), func(t *testing.T) {
			run, err := OpenRun(metaPath(t, d.Name()), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer run.Close()
			if len(run.Files) != run.Meta.NumProcs || run.Meta.NumProcs < 2 {
				t.Fatalf("%d files for %d procs", len(run.Files), run.Meta.NumProcs)
			}
			// Parallel: one goroutine per rank.
			perRank := make([][]*Call, len(run.Files))
			errs := make([]error, len(run.Files))
			var wg sync.WaitGroup
			for i, r := range run.Readers() {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for r.Next() {
						perRank[i] = append(perRank[i], r.Record().Clone())
					}
					errs[i] = r.Err()
				}()
			}
			wg.Wait()
			if err := errors.Join(errs...); err != nil {
				t.Fatal(err)
			}
			// Merged: all calls, time order, ties by rank then file order.
			m := run.Calls()
			pos := make([]int, len(perRank))
			lastT, lastRank := int64(-1<<63), -1
			total := 0
			for c, err := range m.All() {
				if err != nil {
					t.Fatal(err)
				}
				rank := m.Rank()
				if diff := cmp.Diff(perRank[rank][pos[rank]], c, callOpts...); diff != "" {
					t.Fatalf("merged call %d of rank %d differs:\n%s", pos[rank], rank, diff)
				}
				pos[rank]++
				tm := callTime(c)
				if tm < lastT || (tm == lastT && rank < lastRank) {
					t.Fatalf("merged order broken at call %d: time %d rank %d after %d rank %d", total, tm, rank, lastT, lastRank)
				}
				lastT, lastRank = tm, rank
				total++
			}
			for i := range perRank {
				if pos[i] != len(perRank[i]) {
					t.Errorf("rank %d: merged %d of %d calls", i, pos[i], len(perRank[i]))
				}
			}
		})
	}
}

// TestMetaRoundTrip parses every fixture's .meta and writes it back.
func TestMetaRoundTrip(t *testing.T) {
	dirs, _ := os.ReadDir("testdata")
	for _, d := range dirs {
		if !d.IsDir() || d.Name() == "bad" {
			continue
		}
		p := metaPath(t, d.Name())
		want, _ := os.ReadFile(p)
		m, err := ParseMeta(bytes.NewReader(want))
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if _, err := m.WriteTo(&got); err != nil {
			t.Fatal(err)
		}
		if got.String() != string(want) {
			t.Errorf("%s: got\n%s\nwant\n%s", p, got.String(), want)
		}
	}
	for _, bad := range []string{"hostname=a\nnumprocs=x\n", "hostname=a\n", "foo=1\n", "hostname\n"} {
		_, err := ParseMeta(bytes.NewReader([]byte(bad)))
		if !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseMeta(%q) = %v, want ErrSyntax", bad, err)
		}
	}
}

// TestAllBreakAndError checks All's contract: after a break, Next and All
// continue with the following call; a failure is the last pair, with a nil
// call.
func TestAllBreakAndError(t *testing.T) {
	data := readFixture(t, "minimal", 0)
	r := mustReader(t, data, nil)
	var labels []Label
	for c, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		labels = append(labels, c.Label)
		break
	}
	if !r.Next() {
		t.Fatal("Next after break: no call")
	}
	labels = append(labels, r.Record().Label)
	for c, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		labels = append(labels, c.Label)
	}
	if diff := cmp.Diff([]Label{LabelInit, LabelCommRank, LabelSend, LabelFinalize}, labels); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	// Cut inside the third record: two calls, then (nil, ErrUnexpectedEOF).
	r = mustReader(t, data[:0x50], nil)
	n := 0
	var last error
	for c, err := range r.All() {
		if err != nil {
			if c != nil {
				t.Error("error pair carries a call")
			}
			last = err
			continue
		}
		n++
	}
	if n != 2 || !errors.Is(last, io.ErrUnexpectedEOF) || !errors.Is(r.Err(), io.ErrUnexpectedEOF) {
		t.Errorf("%d calls, error %v; want 2, ErrUnexpectedEOF", n, last)
	}
}

// TestFileConcurrent reads one File from several goroutines at once:
// sections and independent call streams (run with -race).
func TestFileConcurrent(t *testing.T) {
	f := memFile(t, readFixture(t, "collectives", 0))
	want := collect(t, f.Calls())
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := f.Header(); err != nil {
				errs[i] = err
				return
			}
			if _, err := f.Footer(); err != nil {
				errs[i] = err
				return
			}
			var got []*Call
			for c, err := range f.Calls().All() {
				if err != nil {
					errs[i] = err
					return
				}
				got = append(got, c.Clone())
			}
			if !cmp.Equal(want, got, callOpts...) {
				errs[i] = errors.New("calls differ")
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}
