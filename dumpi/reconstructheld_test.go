package dumpi

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// heapPeak is an io.ReaderAt over a file that, on every read, collects
// the garbage and keeps the largest live heap seen: the peak of what the
// caller holds while it reads.
type heapPeak struct {
	f    *os.File
	peak *uint64
}

func (h heapPeak) ReadAt(p []byte, off int64) (int, error) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	*h.peak = max(*h.peak, m.HeapAlloc)
	return h.f.ReadAt(p, off)
}

// TestReconstructHeldBytes pins the memory the communicator
// reconstruction holds while it reads a run that makes and frees groups
// over and over (MPI_Comm_group, MPI_Group_incl and two MPI_Group_free
// a round) before one MPI_Comm_dup: the same, within a constant, at n and
// at 3n rounds. The reconstruction used to read every rank's constructor
// calls into memory before replaying them, about 64 bytes a call, so its
// peak grew with the run's length.
func TestReconstructHeldBytes(t *testing.T) {
	const ranks = 2
	dir := t.TempDir()
	peakOf := func(n int) uint64 {
		var calls [][]Args
		for range ranks {
			c := []Args{&Init{}}
			for range n {
				c = append(c,
					&CommGroup{Comm: MPI_COMM_WORLD, Group: 7},
					&GroupIncl{Group: 7, Count: 2, Ranks: []int32{1, 0}, Newgroup: 8},
					&GroupFree{Group: 8},
					&GroupFree{Group: 7})
			}
			calls = append(calls, append(c, &CommDup{Oldcomm: MPI_COMM_WORLD, Newcomm: 4}, &Finalize{}))
		}
		writeRun(t, dir, "groups"+itoa(n), calls, nil)
		return reconstructPeak(t, dir, "groups"+itoa(n), ranks, 1)
	}
	const n = 5000
	p1, p3 := peakOf(n), peakOf(3*n)
	t.Logf("peak held while reconstructing: %d bytes at %d rounds a rank, %d at %d", p1, n, p3, 3*n)
	// Held at 64 bytes a call, 2n more rounds of 4 calls on 2 ranks are
	// 5 MB; the reading buffers and maps are the same at both lengths.
	if p3 > p1+1<<20 {
		t.Errorf("peak held %d bytes at %d rounds, %d at %d: grows with the run, want equal within 1 MiB", p1, n, p3, 3*n)
	}
}

// TestReconstructHeldBytesPerSplit pins the reconstruction's peak memory
// per round of a run that splits MPI_COMM_WORLD and frees the result over
// and over: what stays is each communicator made (its record, its model
// definition, each member's result), under 600 bytes a round on 2 ranks.
// Kept to the end of the replay, every Comm_split's instance, with its
// maps of colors, results and ranks, takes about 950 bytes a round. (The
// peak is sampled at each read, so only a replay that reads as it goes
// shows it: before the reconstruction streamed, it read every call
// before replaying any.)
func TestReconstructHeldBytesPerSplit(t *testing.T) {
	const ranks = 2
	dir := t.TempDir()
	peakOf := func(n int) uint64 {
		var calls [][]Args
		for r := range int32(ranks) {
			c := []Args{&Init{}}
			for range n {
				c = append(c, &CommSplit{Oldcomm: MPI_COMM_WORLD, Color: 0, Key: r, Newcomm: 4}, &CommFree{Comm: 4})
			}
			calls = append(calls, append(c, &Finalize{}))
		}
		writeRun(t, dir, "split"+itoa(n), calls, nil)
		return reconstructPeak(t, dir, "split"+itoa(n), ranks, n)
	}
	const n = 5000
	p1, p3 := peakOf(n), peakOf(3*n)
	per := (int64(p3) - int64(p1)) / (2 * n)
	t.Logf("peak held while reconstructing: %d bytes at %d rounds a rank, %d at %d: %d bytes a round", p1, n, p3, 3*n, per)
	if per > 600 {
		t.Errorf("%d bytes held a round of Comm_split and Comm_free, want at most 600", per)
	}
}

// reconstructPeak opens the files of the run written under dir as prefix
// through heapPeak and returns the peak heap held, above what was live
// before, while NewModelSource reconstructs its communicators; the model
// source must count comms reconstructed communicators.
func reconstructPeak(t *testing.T, dir, prefix string, ranks, comms int) uint64 {
	t.Helper()
	var peak uint64
	run := &Run{}
	for r := range ranks {
		f, err := os.Open(filepath.Join(dir, prefix+"-000"+itoa(r)+".bin"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		df, err := NewFile(heapPeak{f, &peak}, st.Size())
		if err != nil {
			t.Fatal(err)
		}
		run.Files = append(run.Files, df)
	}
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	base := m.HeapAlloc
	src, err := NewModelSource(run, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep := src.CommReport(); rep.Reconstructed != comms {
		t.Fatalf("%d communicators reconstructed, want %d", rep.Reconstructed, comms)
	}
	runtime.KeepAlive(src)
	if peak < base {
		return 0
	}
	return peak - base
}

var _ io.ReaderAt = heapPeak{}
