package stats

import (
	"bytes"
	"testing"
)

// memSpill is a spill file in memory.
type memSpill struct{ b []byte }

func (m *memSpill) ReadAt(p []byte, off int64) (int, error) {
	return copy(p, m.b[off:]), nil
}

func (m *memSpill) WriteAt(p []byte, off int64) (int, error) {
	if n := int(off) + len(p); n > len(m.b) {
		m.b = append(m.b, make([]byte, n-len(m.b))...)
	}
	return copy(m.b[off:], p), nil
}

func (m *memSpill) Close() error { return nil }

// TestReadAtSmallBlock: the block a join read whole (readAll) and kept
// after it (smaller than a read-ahead block) does not bound the next
// read-ahead: readAt reads a whole block past it. Before, it sliced the
// kept block past its capacity and panicked (tracestat -j 2 -json on the
// DUMPI fixture mix).
func TestReadAtSmallBlock(t *testing.T) {
	file := make([]byte, 3*spillBlock)
	for i := range file {
		file[i] = byte(i * 7)
	}
	s := &spillState{f: &memSpill{b: file}, size: int64(len(file)), ahead: true}
	// What a join leaves: the first records read in one piece, of a
	// capacity under a block.
	const kept = 4 * spillRec
	s.rd, s.rdAt = append(make([]byte, 0, kept), file[:kept]...), 0
	for _, off := range []int64{kept, spillBlock + 3*spillRec, 2*spillBlock + spillRec} {
		got := s.readAt(off, spillRec)
		if !bytes.Equal(got, file[off:off+spillRec]) {
			t.Fatalf("record at %d: %x, want %x", off, got, file[off:off+spillRec])
		}
	}
	if s.err != nil {
		t.Fatal(s.err)
	}
}
