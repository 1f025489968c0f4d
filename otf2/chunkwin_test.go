package otf2

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sameAsWhole checks that an event reader that holds win bytes of a chunk
// at a time reads the events, and fails the same way, as one that holds
// whole chunks; with the fast paths and without.
func sameAsWhole(t interface{ Fatalf(string, ...any) }, data []byte, opts *EventReaderOptions, win int64) {
	for _, fast := range []bool{true, false} {
		whole, _ := NewEventReader(bytes.NewReader(data), opts)
		part, _ := NewEventReader(bytes.NewReader(data), opts)
		whole.ch.win, part.ch.win = 0, win
		whole.fast, part.fast = fast, fast
		n := 0
		for whole.Next() {
			n++
			if !part.Next() {
				t.Fatalf("window %d, fast %v: event %d: ends: %v", win, fast, n, part.Err())
			}
			if a, b := whole.Record(), part.Record(); !sameEvent(a, b) {
				t.Fatalf("window %d, fast %v: event %d (-whole +window):\n%s", win, fast, n, cmp.Diff(a, b, cmpOpts...))
			}
		}
		if part.Next() {
			t.Fatalf("window %d, fast %v: reads more events: %v", win, fast, part.Record().Kind)
		}
		if (whole.Err() == nil) != (part.Err() == nil) || whole.Err() != nil && whole.Err().Error() != part.Err().Error() {
			t.Fatalf("window %d, fast %v: errors differ: whole chunks %v, window %v", win, fast, whole.Err(), part.Err())
		}
	}
}

// sameEvent reports whether a and b are equal (as cmp.Diff with cmpOpts
// does, much faster).
func sameEvent(a, b *Event) bool {
	return a.Kind == b.Kind && a.TypeID == b.TypeID && a.Location == b.Location && a.Time == b.Time &&
		a.RawTime == b.RawTime && a.Number == b.Number && a.vals == b.vals && a.raw == b.raw && a.snap == b.snap &&
		slices.Equal(a.Attrs, b.Attrs) &&
		slices.Equal(a.arrs[0], b.arrs[0]) && slices.Equal(a.arrs[1], b.arrs[1]) && slices.Equal(a.arrs[2], b.arrs[2]) &&
		slices.Equal(a.rawArrs[0], b.rawArrs[0]) && slices.Equal(a.rawArrs[1], b.rawArrs[1]) && slices.Equal(a.rawArrs[2], b.rawArrs[2])
}

// TestChunkWindow: reading an event file a part of a chunk at a time
// (from 10 bytes, less than most records, to more than a chunk) yields
// what reading whole chunks yields, on every fixture's event files, on
// a file of several padded chunks with records longer than the part,
// the same with garbage after each chunk's end, and on the same files
// cut short at every few bytes.
func TestChunkWindow(t *testing.T) {
	files, _ := filepath.Glob("testdata/*/trace/traces/*.evt")
	if len(files) < 5 {
		t.Fatalf("found %d fixture event files", len(files))
	}
	var datas [][]byte
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		datas = append(datas, data)
	}
	// several chunks, an attribute list and a metric of many members
	// (records longer than a small part), and end-of-chunk padding
	cr := memCreator{}
	w, err := NewArchiveWriter(cr, &WriterOptions{EventChunkSize: MinChunkSize})
	if err != nil {
		t.Fatal(err)
	}
	ew, _ := w.EventWriter(0)
	for i := range 40000 {
		ev := NewEvent([]Kind{KindEnter, KindMetric, KindLeave}[i%3], uint64(1000+i))
		if ev.Kind == KindMetric {
			m := 1 + i%40
			ev.SetElems(2, make([]uint64, m))
			ev.SetElems(3, make([]uint64, m))
		}
		if i%7 == 0 {
			ev.Attrs = []Attribute{{ID: 1, Type: TypeUint64, Value: uint64(i)}, {ID: 2, Type: TypeUint32, Value: 5}}
		}
		if err := ew.Write(ev); err != nil {
			t.Fatal(err)
		}
	}
	w.WriteDef(NewDef(DefKindLocation))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	big := cr["traces/0.evt"].Bytes()
	if len(big) < 3*MinChunkSize {
		t.Fatalf("the generated file has %d bytes", len(big))
	}
	// the same with garbage, not zeros, after each chunk's end-of-chunk
	// record
	garbage := bytes.Clone(big)
	for start := 0; start < len(garbage); start += MinChunkSize {
		c := garbage[start:min(start+MinChunkSize, len(garbage))]
		p := chunkHeaderSize
		for p < len(c) && c[p] != bEndOfChunk && c[p] != bEndOfFile {
			switch t := c[p]; {
			case t == bTimestamp:
				p += 9
			case eventLayouts[t] != nil && eventLayouts[t].singleton:
				p += 2 + int(c[p+1]) // type, size byte, value bytes
			case c[p+1] == 0xff:
				p += 10 + int(binary.LittleEndian.Uint64(c[p+2:])) // type, long length, body
			default:
				p += 2 + int(c[p+1]) // type, length, body
			}
		}
		if p < len(c) && c[p] == bEndOfChunk {
			for k := p + 1; k < len(c); k++ {
				c[k] = 0xab
			}
		}
	}
	if bytes.Count(garbage, []byte{0xab, 0xab, 0xab, 0xab}) < 2 {
		t.Fatal("no garbage after the chunks' ends")
	}
	for i, data := range append(datas, big, garbage) {
		chunk := int64(DefaultEventChunkSize)
		if i >= len(datas) {
			chunk = MinChunkSize
		}
		for _, win := range []int64{10, 33, 1000, eventWindow, 2 * chunk} {
			t.Run(fmt.Sprint(i, "/", win), func(t *testing.T) {
				sameAsWhole(t, data, &EventReaderOptions{ChunkSize: chunk}, win)
				step := max(len(data)/30, 1)
				for cut := 0; cut < len(data); cut += step {
					sameAsWhole(t, data[:cut], &EventReaderOptions{ChunkSize: chunk}, win)
				}
			})
		}
	}
}

// TestChunkSizeHint: the file size a reader is given only sizes its
// buffer: a wrong one (the file grew or shrank since) reads what the
// right one and none read, in parts and in whole chunks.
func TestChunkSizeHint(t *testing.T) {
	data, err := os.ReadFile("testdata/c_localdefs/trace/traces/0.evt")
	if err != nil {
		t.Fatal(err)
	}
	read := func(size, win int64) ([]*Event, error) {
		r, _ := NewEventReader(bytes.NewReader(data), &EventReaderOptions{Size: size})
		r.ch.win = win
		var evs []*Event
		for r.Next() {
			evs = append(evs, r.Record().Clone())
		}
		return evs, r.Err()
	}
	want, werr := read(0, 0)
	if len(want) == 0 || werr != nil {
		t.Fatalf("%d events, %v", len(want), werr)
	}
	n := int64(len(data))
	for _, size := range []int64{1, n / 2, n - 1, n, n + 1, 2 * n} {
		for _, win := range []int64{0, 16, eventWindow} {
			got, err := read(size, win)
			if err != werr || len(got) != len(want) {
				t.Fatalf("size %d, window %d: %d events, %v; want %d, %v", size, win, len(got), err, len(want), werr)
			}
			for i := range got {
				if !sameEvent(got[i], want[i]) {
					t.Fatalf("size %d, window %d: event %d differs", size, win, i)
				}
			}
		}
	}
}

// TestChunkWindowForgedLength: a record whose length says nearly a
// gigabyte, in a file of a few parts whose chunks are said to be of a
// gigabyte, costs a few times the file's bytes (the buffer grows by
// doubling) before the reader says the record runs past the file.
func TestChunkWindowForgedLength(t *testing.T) {
	var data []byte
	data = append(data, bChunkHeader, endianLittle)
	data = binary.LittleEndian.AppendUint64(data, 1)
	data = binary.LittleEndian.AppendUint64(data, 1)
	data = append(data, bTimestamp)
	data = binary.LittleEndian.AppendUint64(data, 5)
	data = append(data, byte(KindMpiSend), 0xff)
	data = binary.LittleEndian.AppendUint64(data, maxReadChunk-100)
	data = append(data, make([]byte, 4*eventWindow)...) // longer than a part
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r, err := NewEventReader(bytes.NewReader(data), &EventReaderOptions{ChunkSize: maxReadChunk})
	if err != nil {
		t.Fatal(err)
	}
	if r.Next() || r.Err() == nil {
		t.Fatalf("read %v, error %v", r.Record().Kind, r.Err())
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 4*uint64(len(data)) {
		t.Fatalf("allocated %d bytes for a file of %d", got, len(data))
	}
	t.Log(r.Err())
}
