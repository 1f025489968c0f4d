package hpctrace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf2"
	"pgregory.net/rapid"
)

// fataler is what the helpers need of a *testing.T or *rapid.T.
type fataler interface {
	Fatal(args ...any)
}

// clockArchive writes an OTF2 archive in small chunks whose location l
// has Enter and Leave events of one region at the raw times times[l] and
// the clock offsets offs[l] (none if empty), and returns it.
func clockArchive(t fataler, times [][]uint64, offs [][]otf2.ClockOffset) fstest.MapFS {
	fsys := fstest.MapFS{}
	c := model.CreateFunc(func(name string) (io.WriteCloser, error) { return &memFile{fsys: fsys, name: name}, nil })
	w, err := otf2.NewArchiveWriter(c, &otf2.WriterOptions{EventChunkSize: 4096})
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	str := otf2.NewDef(otf2.DefKindString)
	str.SetBytes([]byte("f"))
	must(w.WriteDef(str))
	reg := otf2.NewDef(otf2.DefKindRegion)
	reg.SetValue(4, otf2.Undefined32)
	must(w.WriteDef(reg))
	for loc := range uint64(len(times)) {
		l := otf2.NewDef(otf2.DefKindLocation)
		l.SetValue(0, loc)
		l.SetValue(2, 1)
		l.SetValue(3, uint64(len(times[loc])))
		must(w.WriteDef(l))
		for _, o := range offs[loc] {
			d := otf2.NewDef(otf2.DefKindClockOffset)
			d.SetValue(0, o.Time)
			d.SetValue(1, uint64(o.Offset))
			must(w.WriteLocalDef(loc, d))
		}
		ew, err := w.EventWriter(loc)
		must(err)
		for i, tm := range times[loc] {
			k := otf2.KindEnter
			if i%2 == 1 {
				k = otf2.KindLeave
			}
			must(ew.Write(otf2.NewEvent(k, tm)))
		}
	}
	must(w.Close())
	return fsys
}

// windowAndFilter reads fsys's archive whole and filters it to w, and
// reads it through the window w.
func windowAndFilter(t fataler, fsys fstest.MapFS, w model.Window) (filtered, windowed []model.Event, err error) {
	read := func(o *Options) ([]model.Event, error) {
		tr, err := OpenFS(fsys, "traces.otf2", o)
		if err != nil {
			return nil, err
		}
		defer tr.Close()
		var out []model.Event
		for tr.Next() {
			out = append(out, *tr.Event())
		}
		return out, tr.Err()
	}
	all, err := read(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range all {
		if ev.Time >= w.From && (w.To == 0 || ev.Time < w.To) {
			filtered = append(filtered, ev)
		}
	}
	windowed, err = read(&Options{Window: &w})
	return filtered, windowed, err
}

// TestWindowOTF2Backwards: clock offsets that correct a location's time
// backwards (down, then up again: a V) make its chunks' start times go
// back; the window is then the filtered read, not a bisection that lands
// past the descending events nor a read that stops at the first late one.
func TestWindowOTF2Backwards(t *testing.T) {
	var times []uint64
	for i := range 4000 {
		times = append(times, uint64(1000+i))
	}
	// corrected = raw + offset: 1e6+1000 → about 1e6-1000 at raw 3000 (slope
	// -2 on the way), then back up (slope +1).
	offs := []otf2.ClockOffset{{Time: 1000, Offset: 1e6}, {Time: 3000, Offset: 1e6 - 4000}, {Time: 5000, Offset: 1e6 - 4000}}
	fsys := clockArchive(t, [][]uint64{times}, [][]otf2.ClockOffset{offs})
	for _, w := range []model.Window{{From: 1e6 + 200, To: 1e6 + 300}, {From: 1e6 - 500}, {From: 1e6 + 900}} {
		filtered, windowed, err := windowAndFilter(t, fsys, w)
		if err != nil {
			t.Fatalf("window %+v: %v", w, err)
		}
		if len(filtered) == 0 {
			t.Fatalf("window %+v: no event in the filtered read", w)
		}
		t.Logf("window %+v: %d events", w, len(filtered))
		if diff := cmp.Diff(filtered, windowed); diff != "" {
			t.Errorf("window %+v: (-filtered +windowed):\n%s", w, diff)
		}
	}
}

// TestWindowOTF2Rapid: on archives of one to three locations with random
// clock offsets (slopes from -3 to +1, so that time may run backwards),
// a window yields the events of the filtered read.
func TestWindowOTF2Rapid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nloc := rapid.IntRange(1, 3).Draw(t, "locations")
		times := make([][]uint64, nloc)
		offs := make([][]otf2.ClockOffset, nloc)
		var lo, hi uint64 = 1 << 62, 0
		for l := range nloc {
			n := 2 * rapid.IntRange(1, 1200).Draw(t, fmt.Sprintf("pairs%d", l))
			tm := uint64(1000)
			for range n {
				tm += uint64(rapid.IntRange(0, 4).Draw(t, "step"))
				times[l] = append(times[l], tm)
			}
			if rapid.Bool().Draw(t, fmt.Sprintf("clock%d", l)) {
				off := int64(1 << 20)
				at := uint64(1000)
				for k := range rapid.IntRange(2, 4).Draw(t, "offsets") {
					if k > 0 {
						span := uint64(rapid.IntRange(1, 3000).Draw(t, "span"))
						off += int64(span) * int64(rapid.IntRange(-3, 1).Draw(t, "slope"))
						at += span
					}
					offs[l] = append(offs[l], otf2.ClockOffset{Time: at, Offset: off})
				}
			}
		}
		fsys := clockArchive(t, times, offs)
		all, _, _ := windowAndFilter(t, fsys, model.Window{From: 0})
		for _, ev := range all {
			lo, hi = min(lo, uint64(ev.Time)), max(hi, uint64(ev.Time))
		}
		from := model.Time(rapid.Uint64Range(lo, hi).Draw(t, "from"))
		w := model.Window{From: from}
		if rapid.Bool().Draw(t, "to") {
			w.To = from + model.Time(rapid.Uint64Range(1, hi-lo+1).Draw(t, "length"))
		}
		filtered, windowed, err := windowAndFilter(t, fsys, w)
		if err != nil {
			t.Fatalf("window %+v: %v", w, err)
		}
		if !slices.Equal(filtered, windowed) {
			t.Fatalf("window %+v: %d events, the filtered read %d:\n%s", w, len(windowed), len(filtered), cmp.Diff(filtered, windowed))
		}
	})
}

// TestWindowTimeGoesBack: a time that goes back inside a chunk (which
// the OTF2 adapter cannot see before reading it) ends a window's read
// with an error wrapping otf2.ErrTimeOrder in Trace.Err, not with a
// silent end; a read without a window yields every event.
func TestWindowTimeGoesBack(t *testing.T) {
	fsys := clockArchive(t, [][]uint64{{10, 30}, {12, 0x5ab1e5}}, [][]otf2.ClockOffset{nil, nil})
	// Location 1's second time becomes 11 (the writer refuses to write it).
	f := fsys["traces/1.evt"]
	const bTimestamp = 5 // OTF2's TIMESTAMP record
	old := binary.LittleEndian.AppendUint64([]byte{bTimestamp}, 0x5ab1e5)
	if bytes.Count(f.Data, old) != 1 {
		t.Fatal("the time stamp to patch is not in the event file once")
	}
	f.Data = bytes.Replace(f.Data, old, binary.LittleEndian.AppendUint64([]byte{bTimestamp}, 11), 1)
	read := func(o *Options) (int, error) {
		tr, err := OpenFS(fsys, "traces.otf2", o)
		if err != nil {
			t.Fatal(err)
		}
		defer tr.Close()
		n := 0
		for tr.Next() {
			n++
		}
		return n, tr.Err()
	}
	if n, err := read(nil); n != 4 || err != nil {
		t.Fatalf("whole read: %d events, %v; want 4", n, err)
	}
	if n, err := read(&Options{Window: &model.Window{From: 5, To: 20}}); n != 2 || !errors.Is(err, otf2.ErrTimeOrder) {
		t.Errorf("got %d events and error %v, want 2 and ErrTimeOrder", n, err)
	}
}
