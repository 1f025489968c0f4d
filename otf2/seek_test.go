package otf2

import (
	"bytes"
	"testing"

	"pgregory.net/rapid"
)

// bigEvents writes n events with small chunks and returns the file and
// the events' times.
func bigEvents(t rapid.TB, n int, step func(i int) uint64) ([]byte, []uint64) {
	cr := memCreator{}
	w, err := NewArchiveWriter(cr, &WriterOptions{EventChunkSize: 256})
	if err != nil {
		t.Fatal(err)
	}
	ew, _ := w.EventWriter(0)
	var times []uint64
	time := uint64(100)
	for i := range n {
		time += step(i)
		ev := NewEvent(KindEnter, time)
		ev.SetValue(0, uint64(i))
		if err := ew.Write(ev); err != nil {
			t.Fatal(err)
		}
		times = append(times, time)
	}
	ld := NewDef(DefKindLocation)
	w.WriteDef(ld)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return cr["traces/0.evt"].Bytes(), times
}

// TestSeek checks SeekTime and SeekEvent against a linear search, as a
// rapid state machine of Next, SeekTime, SeekEvent and Reset actions.
func TestSeek(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 400).Draw(t, "n")
		data, times := bigEvents(t, n, func(int) uint64 { return uint64(rapid.IntRange(0, 3).Draw(t, "dt")) })
		if n > 0 && len(data) < 3*256 && n > 100 {
			t.Fatalf("want several chunks, got %d bytes", len(data))
		}
		src := bytes.NewReader(data)
		r, err := NewEventReader(src, &EventReaderOptions{ChunkSize: 256})
		if err != nil {
			t.Fatal(err)
		}
		next := 0 // index of the event the next Next yields
		t.Repeat(map[string]func(*rapid.T){
			"Next": func(t *rapid.T) {
				ok := r.Next()
				if ok != (next < n) {
					t.Fatalf("Next = %v at %d of %d (%v)", ok, next, n, r.Err())
				}
				if ok {
					ev := r.Event()
					if ev.Time != times[next] || ev.Value(0) != uint64(next) || ev.Number != uint64(next+1) {
						t.Fatalf("event %d: time %d value %d number %d, want %d", next, ev.Time, ev.Value(0), ev.Number, times[next])
					}
					next++
				}
			},
			"SeekTime": func(t *rapid.T) {
				x := rapid.Uint64Range(0, 100+4*uint64(n)+5).Draw(t, "t")
				if err := r.SeekTime(x); err != nil {
					t.Fatal(err)
				}
				next = n
				for i, tm := range times {
					if tm >= x {
						next = i
						break
					}
				}
			},
			"SeekEvent": func(t *rapid.T) {
				x := rapid.IntRange(1, n+2).Draw(t, "number")
				if err := r.SeekEvent(uint64(x)); err != nil {
					t.Fatal(err)
				}
				next = min(x-1, n)
			},
			"Reset": func(t *rapid.T) {
				src.Reset(data)
				r.Reset(src)
				next = 0
			},
			"": func(t *rapid.T) {
				if r.Err() != nil {
					t.Fatal(r.Err())
				}
			},
		})
	})
}
