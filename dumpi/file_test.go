package dumpi

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// countingReaderAt counts the bytes read through it.
type countingReaderAt struct {
	r     io.ReaderAt
	bytes atomic.Int64
	calls atomic.Int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.bytes.Add(int64(n))
	c.calls.Add(1)
	return n, err
}

// TestSectionsCostFewKB opens files of very different sizes and reads
// every section except the stream: the bytes read stay the same few KB.
func TestSectionsCostFewKB(t *testing.T) {
	small := readFixture(t, "minimal", 0)
	big := repeatCalls(t, readFixture(t, "p2p_nonblocking", 0), 60) // about 9 MB
	if len(big) < 8<<20 {
		t.Fatalf("big file is only %d bytes", len(big))
	}
	var read []int64
	for _, data := range [][]byte{small, big} {
		cr := &countingReaderAt{r: bytes.NewReader(data)}
		f, err := NewFile(cr, int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Header(); err != nil {
			t.Fatal(err)
		}
		ft, err := f.Footer()
		if err != nil {
			t.Fatal(err)
		}
		if ft.Called[LabelAllFunctions] == 0 {
			t.Fatal("footer has no calls")
		}
		if _, err := f.KeyVals(); err != nil {
			t.Fatal(err)
		}
		if _, err := f.PerfLabels(); err != nil {
			t.Fatal(err)
		}
		if _, err := f.FunctionNames(); err != nil {
			t.Fatal(err)
		}
		if _, err := f.DatatypeSizes(); err != nil {
			t.Fatal(err)
		}
		t.Logf("file of %d bytes: read %d bytes in %d ReadAt calls", len(data), cr.bytes.Load(), cr.calls.Load())
		read = append(read, cr.bytes.Load())
	}
	if read[0] != read[1] {
		t.Errorf("bytes read: %d for the small file, %d for the big one; want equal", read[0], read[1])
	}
	if read[1] > 8<<10 {
		t.Errorf("read %d bytes; want at most 8 KiB", read[1])
	}
}

func readFixture(t testing.TB, name string, rank int) []byte {
	t.Helper()
	m := fixtureMeta(t, name)
	b, err := os.ReadFile("testdata/" + name + "/" + m.RankFile(rank))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func fixtureMeta(t testing.TB, name string) *Meta {
	t.Helper()
	run, err := OpenRun(metaPath(t, name), nil)
	if err != nil {
		t.Fatal(err)
	}
	run.Close()
	return run.Meta
}

func metaPath(t testing.TB, name string) string {
	t.Helper()
	d, err := os.ReadDir("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range d {
		if n := e.Name(); len(n) > 5 && n[len(n)-5:] == ".meta" {
			return "testdata/" + name + "/" + n
		}
	}
	t.Fatalf("no .meta in %s", name)
	return ""
}

// repeatCalls rewrites a file with its calls repeated n times.
func repeatCalls(t testing.TB, data []byte, n int) []byte {
	t.Helper()
	f, err := NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	opts, err := f.CopyOptions()
	if err != nil {
		t.Fatal(err)
	}
	opts.Footer = nil
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, opts)
	for range n {
		for c, err := range f.Calls().All() {
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write(c); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestMinimalSections checks the sections of the worked example of doc/dumpi.md §8.
func TestMinimalSections(t *testing.T) {
	data := readFixture(t, "minimal", 0)
	f, err := NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	wantIx := Index{Size: 64, DatatypeSizes: 0x9c7, FunctionNames: 0xa3b, PerfLabels: 0x9c3, Header: 0x7d, Body: 8, Footer: 0x9f}
	if diff := cmp.Diff(wantIx, f.Index); diff != "" {
		t.Errorf("index (-want +got):\n%s", diff)
	}
	h, err := f.Header()
	if err != nil {
		t.Fatal(err)
	}
	wantH := &Header{Version: Version{13, 0, 0}, StartTime: 1795311483, Host: "vm", User: "dumpiuser", MeshCoords: []int32{}, MeshSize: []int32{}}
	if diff := cmp.Diff(wantH, h); diff != "" {
		t.Errorf("header (-want +got):\n%s", diff)
	}
	if got := h.Start().Format("2006-01-02 15:04:05"); got != "2026-11-22 01:38:03" {
		t.Errorf("start %s", got)
	}
	ft, err := f.Footer()
	if err != nil {
		t.Fatal(err)
	}
	if ft.Called[LabelSend] != 1 || ft.Called[LabelAllFunctions] != 4 || ft.Called[LabelInit] != 1 {
		t.Errorf("footer counts: send %d, all %d", ft.Called[LabelSend], ft.Called[LabelAllFunctions])
	}
	sizes, err := f.DatatypeSizes()
	if err != nil {
		t.Fatal(err)
	}
	if len(sizes) != 28 || sizes[MPI_INT] != 4 || sizes[MPI_DOUBLE] != 8 {
		t.Errorf("sizes %v", sizes)
	}
	r := f.Calls()
	var labels []Label
	for c, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		labels = append(labels, c.Label)
		if s, ok := c.Args().(*Send); ok {
			want := Send{Count: 1, Datatype: MPI_INT, Dest: 1, Tag: 5, Comm: MPI_COMM_WORLD}
			if *s != want {
				t.Errorf("send %+v, want %+v", *s, want)
			}
			if c.WallStart() != 840_672_819_935 || c.WallStop() != 840_672_832_255 || c.CPUStart() != 0 {
				t.Errorf("send times %d %d %d", c.WallStart(), c.WallStop(), c.CPUStart())
			}
		}
	}
	if diff := cmp.Diff([]Label{LabelInit, LabelCommRank, LabelSend, LabelFinalize}, labels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
	if cpu, wall := r.Bases(); cpu != 0 || wall != 840 {
		t.Errorf("bases %d %d", cpu, wall)
	}
}

// shrinkIndex rewrites a 64-byte index as the older 56, 48 or 40-byte one.
func shrinkIndex(data []byte, size int) []byte {
	ix := data[len(data)-64:]
	out := append([]byte{}, data[:len(data)-64]...)
	out = binary.BigEndian.AppendUint64(out, Magic)
	return append(out, ix[8+(64-size):]...)
}

// TestIndexVariants reads every index size: the sections the shorter
// indexes lack read as empty, the others are unchanged.
func TestIndexVariants(t *testing.T) {
	data := readFixture(t, "annotations", 0)
	base, err := NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	wantCalls := collect(t, base.Calls())
	wantNames, _ := base.FunctionNames()
	if len(wantNames) == 0 {
		t.Fatal("fixture has no function names")
	}
	for _, size := range []int{64, 56, 48, 40} {
		d := shrinkIndex(data, size)
		f, err := NewFile(bytes.NewReader(d), int64(len(d)))
		if err != nil {
			t.Fatalf("%d: %v", size, err)
		}
		if f.Index.Size != size {
			t.Errorf("%d: index size %d", size, f.Index.Size)
		}
		sizes, _ := f.DatatypeSizes()
		names, _ := f.FunctionNames()
		perf, err := f.PerfLabels()
		if err != nil {
			t.Fatal(err)
		}
		if (len(sizes) > 0) != (size >= 64) || (len(names) > 0) != (size >= 56) {
			t.Errorf("%d: %d sizes, %d names", size, len(sizes), len(names))
		}
		if size < 48 && f.Index.PerfLabels != 0 || len(perf) != 0 {
			t.Errorf("%d: perf labels %v", size, perf)
		}
		if diff := cmp.Diff(wantCalls, collect(t, f.Calls()), cmp.AllowUnexported(Call{})); diff != "" {
			t.Errorf("%d: calls differ (-want +got):\n%s", size, diff)
		}
	}
}

func collect(t testing.TB, r *Reader) []*Call {
	t.Helper()
	var out []*Call
	for c, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c.Clone())
	}
	return out
}

// TestFooterMatchesStream checks, for every fixture rank, that the number
// of records of each label equals the footer's called minus ignored count.
func TestFooterMatchesStream(t *testing.T) {
	bins, _ := fixtureRanks(t)
	for _, bin := range bins {
		f, err := Open(bin, nil)
		if err != nil {
			t.Fatal(err)
		}
		ft, err := f.Footer()
		if err != nil {
			t.Fatal(err)
		}
		var got [FooterSlots]uint32
		for c, err := range f.Calls().All() {
			if err != nil {
				t.Fatal(err)
			}
			if int(c.Label) < FooterSlots {
				got[c.Label]++
			}
		}
		for l := range LabelAllFunctions {
			if want := ft.Called[l] - ft.Ignored[l]; got[l] != want {
				t.Errorf("%s: %s: %d records, footer says %d called - %d ignored", bin, l, got[l], ft.Called[l], ft.Ignored[l])
			}
		}
		f.Close()
	}
}
