package hpctrace

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace/model"
)

// TestIntervalWindow: the conversion of durations to ticks, from the
// start and from the end, and the windows it refuses.
func TestIntervalWindow(t *testing.T) {
	ns := model.TimeBase{TicksPerSecond: 1e9}
	us := model.TimeBase{TicksPerSecond: 1e6}
	b := model.Bounds{Start: 1000, End: 11000, Known: true} // 10 µs on ns
	ms, µs := time.Millisecond, time.Microsecond
	for _, c := range []struct {
		name string
		iv   Interval
		tb   model.TimeBase
		b    model.Bounds
		want model.Window
		err  bool
	}{
		{"whole", Interval{}, ns, b, model.Window{From: 1000}, false},
		{"first 2µs", Interval{To: 2 * µs}, ns, b, model.Window{From: 1000, To: 3000}, false},
		{"2µs to 3µs", Interval{From: 2 * µs, To: 3 * µs}, ns, b, model.Window{From: 3000, To: 4000}, false},
		{"last 2µs", Interval{From: -2 * µs}, ns, b, model.Window{From: 9000}, false},
		{"last 4µs to last 2µs", Interval{From: -4 * µs, To: -2 * µs}, ns, b, model.Window{From: 7000, To: 9000}, false},
		{"from start to last 2µs", Interval{To: -2 * µs}, ns, b, model.Window{From: 1000, To: 9000}, false},
		{"past the end", Interval{To: time.Hour}, ns, b, model.Window{From: 1000, To: 1000 + 3600e9}, false},
		{"before the start", Interval{From: -time.Hour}, ns, b, model.Window{From: 11000 - 3600e9}, false},
		{"the last tick", Interval{From: 10 * µs}, ns, b, model.Window{From: 11000}, false},
		{"on a µs clock", Interval{From: 1500 * µs, To: 2 * ms}, us, model.Bounds{Start: 5, End: 50000, Known: true}, model.Window{From: 1505, To: 2005}, false},
		{"rounds to the nearest tick", Interval{To: 1400 * time.Nanosecond}, us, model.Bounds{Start: 5, End: 50000, Known: true}, model.Window{From: 5, To: 6}, false},
		{"from start saturates", Interval{From: math.MaxInt64}, ns, model.Bounds{Start: 10, End: math.MaxInt64, Known: true}, model.Window{From: math.MaxInt64}, false},
		{"from end saturates", Interval{From: math.MinInt64}, ns, model.Bounds{Start: -10, End: -5, Known: true}, model.Window{From: math.MinInt64}, false},

		{"unknown bounds", Interval{To: ms}, ns, model.Bounds{}, model.Window{}, true},
		{"To before From", Interval{From: 3 * µs, To: 2 * µs}, ns, b, model.Window{}, true},
		{"To at From", Interval{From: 3 * µs, To: 3 * µs}, ns, b, model.Window{}, true},
		{"rounded to nothing", Interval{From: 100, To: 200}, us, b, model.Window{}, true},
		{"crossed from both ends", Interval{From: -5 * µs, To: 2 * µs}, ns, b, model.Window{}, true},
		{"after the end", Interval{From: 10*µs + 1}, ns, b, model.Window{}, true},
		{"ends at the start", Interval{From: -time.Hour, To: -10 * µs}, ns, b, model.Window{}, true},
		{"ends before the start", Interval{To: -20 * µs}, ns, b, model.Window{}, true},
		{"ends at tick 0", Interval{To: 100}, ns, model.Bounds{Start: -100, End: 100, Known: true}, model.Window{}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.iv.Window(c.tb, c.b)
			if (err != nil) != c.err {
				t.Fatalf("%v.Window(%v, %v) = %v, %v; want error %v", c.iv, c.tb, c.b, got, err, c.err)
			}
			if got != c.want {
				t.Errorf("%v.Window(%v, %v) = %+v, want %+v", c.iv, c.tb, c.b, got, c.want)
			}
			if err == nil {
				if err := got.Check(); err != nil {
					t.Errorf("window %+v: %v", got, err)
				}
			}
		})
	}
}

// clockProperties returns the global offset and the length that
// otf2-print -G printed for the archive of the fixture name.
func clockProperties(t *testing.T, name string) (offset, length int64) {
	t.Helper()
	dir := filepath.Dir(filepath.Dir(name))
	b, err := os.ReadFile(filepath.Join(dir, "golden_otf2print_G.txt"))
	if err != nil {
		b, err = os.ReadFile(filepath.Join(dir, "golden_otf2print_A.txt"))
	}
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`Global Offset: (\d+), Length: (\d+)`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s: no clock properties in otf2-print's output", dir)
	}
	offset, _ = strconv.ParseInt(string(m[1]), 10, 64)
	length, _ = strconv.ParseInt(string(m[2]), 10, 64)
	return offset, length
}

// TestBounds: every fixture's bounds are those of its events (the times
// of its first and last), or, for OTF2, those of the clock properties
// otf2-print shows, which hold every event where the writer set them so.
func TestBounds(t *testing.T) {
	for name, fm := range fixtures(t) {
		t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
			tr, err := Open(name, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			var want model.Bounds
			evs := readAll(t, tr)
			for _, ev := range evs {
				want.Add(ev.Time)
			}
			got, err := tr.Bounds()
			if err != nil {
				t.Fatal(err)
			}
			if fm == FormatOTF2 {
				off, n := clockProperties(t, name)
				if g := (model.Bounds{Start: model.Time(off), End: model.Time(off + n), Known: true}); got != g {
					t.Errorf("Bounds() = %v, want the clock properties' %v", got, g)
				}
				if tr.Defs().Bounds != got {
					t.Errorf("Defs().Bounds = %v, want %v", tr.Defs().Bounds, got)
				}
				// c_localdefs's writer set clock offsets that move its
				// events outside the clock properties it also set.
				if want.Known && (want.Start < got.Start || want.End > got.End) && !strings.Contains(name, "c_localdefs") {
					t.Errorf("events %v outside the bounds %v", want, got)
				}
				return
			}
			if got != want {
				t.Errorf("Bounds() = %v, want the events' %v", got, want)
			}
			if d := tr.Defs().Bounds; d.Known && d != want {
				t.Errorf("Defs().Bounds = %v, want the events' %v", d, want)
			}
			if fm == FormatOTF && !tr.Defs().Bounds.Known && hasTimeRange(t, name) {
				t.Errorf("Defs().Bounds unknown, but the definitions hold a time range")
			}
		})
	}
}

// TestBoundsKeepsTheRead: Bounds in the middle of a read, which reads the
// trace once more for DUMPI, PICL and the JSON formats, does not move it.
func TestBoundsKeepsTheRead(t *testing.T) {
	for name := range fixtures(t) {
		t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
			tr, err := Open(name, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := readText(t, tr)
			tr.Close()
			if tr, err = Open(name, nil); err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			var got []textEvent
			for i := 0; tr.Next(); i++ {
				if i == len(want)/2 {
					if _, err := tr.Bounds(); err != nil {
						t.Fatal(err)
					}
				}
				te := textEvent{Ev: *tr.Event(), Text: tr.Defs().String(tr.Event().Text)}
				te.Ev.Text = 0
				got = append(got, te)
			}
			if err := tr.Err(); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("read with Bounds in the middle (-want +got):\n%s", diff)
			}
		})
	}
}

// TestIntervalMatchesWindow: for a trace of every format, an Interval
// yields exactly the events of the window in ticks it stands for, which
// are those of the whole read in it; from the start and from the end.
func TestIntervalMatchesWindow(t *testing.T) {
	for name, fm := range fixtures(t) {
		t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
			tr, err := Open(name, nil)
			if err != nil {
				t.Fatal(err)
			}
			all := readText(t, tr)
			b, err := tr.Bounds()
			if err != nil {
				t.Fatal(err)
			}
			tb := tr.TimeBase()
			tr.Close()
			if !b.Known {
				return // no events: nothing to window
			}
			// Durations of whole ticks, so that the tick window below is
			// the one the durations stand for.
			dur := func(ticks model.Time) time.Duration { return tb.Duration(ticks) }
			tick := func(d time.Duration) model.Time { return tb.FromDuration(d) }
			n := b.Len()
			for _, c := range []struct {
				iv   Interval
				want model.Window
			}{
				{Interval{}, model.Window{From: b.Start}},
				{Interval{To: dur(n/4 + 1)}, model.Window{From: b.Start, To: b.Start + tick(dur(n/4+1))}},
				{Interval{From: dur(n / 3), To: dur(2*n/3 + 1)}, model.Window{From: b.Start + tick(dur(n/3)), To: b.Start + tick(dur(2*n/3+1))}},
				{Interval{From: -dur(n / 4)}, model.Window{From: b.End - tick(dur(n/4))}},
				{Interval{From: -dur(n / 2), To: -dur(n/4 + 1)}, model.Window{From: b.End - tick(dur(n/2)), To: b.End - tick(dur(n/4+1))}},
				{Interval{From: dur(n)}, model.Window{From: b.Start + tick(dur(n))}}, // b.End where ticks are whole nanoseconds
			} {
				if c.want.To != 0 && c.want.To <= c.want.From || c.want.From > b.End {
					continue // too short a trace, or too fine a clock, for this one
				}
				w, err := c.iv.Window(tb, b)
				if err != nil {
					t.Fatalf("%v: %v", c.iv, err)
				}
				if w != c.want {
					t.Fatalf("%v.Window = %+v, want %+v", c.iv, w, c.want)
				}
				got := openText(t, name, &Options{Interval: &c.iv})
				byTicks := openText(t, name, &Options{Window: &c.want})
				if diff := cmp.Diff(byTicks, got); diff != "" {
					t.Errorf("%v: %d events, the window %+v %d (-window +interval):\n%s", c.iv, len(got), c.want, len(byTicks), diff)
				}
				want := inWindow(all, c.want.From, c.want.To)
				if fm == FormatOTF {
					want = withoutLateCollOpEnds(want)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%v: %d events, the whole read's %d (-whole +interval):\n%s", c.iv, len(got), len(want), diff)
				}
				if c.iv.From < 0 && c.iv.To == 0 && (len(got) == 0 || got[len(got)-1].Ev.Time != b.End) && fm != FormatOTF2 {
					t.Errorf("%v: the last event, at %d, is not in the window", c.iv, b.End)
				}
			}
		})
	}
}

// openText opens name with opts and returns its events with their texts.
func openText(t *testing.T, name string, opts *Options) []textEvent {
	t.Helper()
	tr, err := Open(name, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	return readText(t, tr)
}

// TestIntervalRefused: an Interval with a Window, or one that selects
// nothing for certain, is an error at Open.
func TestIntervalRefused(t *testing.T) {
	const name = "otf2/testdata/minimal/trace/traces.otf2"
	for _, o := range []Options{
		{Interval: &Interval{}, Window: &model.Window{From: 1}},
		{Interval: &Interval{From: 2 * time.Second, To: time.Second}},
		{Interval: &Interval{From: time.Hour}},
		{Interval: &Interval{To: -time.Hour}},
	} {
		if tr, err := Open(name, &o); err == nil {
			tr.Close()
			t.Errorf("Open with Interval %v, Window %v: no error", o.Interval, o.Window)
		}
	}
}

// TestBoundsOTF2ReadsNoEvents: an OTF2 archive's bounds, and an Interval
// on it, cost no event file beyond those the window reads.
func TestBoundsOTF2ReadsNoEvents(t *testing.T) {
	c := &openCounter{FS: os.DirFS("otf2/testdata/threads_rma/trace")}
	tr, err := OpenFS(c, "traces.otf2", &Options{Locations: func(model.LocID) bool { return false }})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if _, err := tr.Bounds(); err != nil {
		t.Fatal(err)
	}
	if evt := c.locationFiles("evt"); len(evt) != 0 {
		t.Errorf("Bounds opened the event files of locations %v", evt)
	}
}

// TestBoundsOTFWithoutTimeRange: an OTF trace whose definitions have no
// DEFTIMERANGE gets its bounds from its streams, the same.
func TestBoundsOTFWithoutTimeRange(t *testing.T) {
	dir := "otf/testdata/minimal_ring_short"
	fsys := fstest.MapFS{}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	stripped := false
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(e.Name(), ".def") {
			lines := strings.SplitAfter(string(b), "\n")
			kept := lines[:0]
			for _, l := range lines {
				if strings.HasPrefix(l, "DTRG") || strings.HasPrefix(l, "DEFTIMERANGE") {
					stripped = true
					continue
				}
				kept = append(kept, l)
			}
			b = []byte(strings.Join(kept, ""))
		}
		fsys[e.Name()] = &fstest.MapFile{Data: b}
	}
	if !stripped {
		t.Fatal("the fixture has no time range to strip")
	}
	tr, err := Open(filepath.Join(dir, "mini.otf"), nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := tr.Bounds()
	tr.Close()
	if err != nil || !want.Known {
		t.Fatalf("Bounds() = %v, %v", want, err)
	}
	tr, err = OpenFS(fsys, "mini.otf", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if d := tr.Defs().Bounds; d.Known {
		t.Fatalf("Defs().Bounds = %v without a time range", d)
	}
	if got, err := tr.Bounds(); err != nil || got != want {
		t.Errorf("Bounds() = %v, %v; want %v", got, err, want)
	}
}

// TestBoundsAfterClose: Bounds and Window of a closed trace are errors,
// where the bounds were not learnt before; learnt, they stay.
func TestBoundsAfterClose(t *testing.T) {
	const name = "picl/testdata/appendix_a.trf"
	tr, err := Open(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr.Close()
	if b, err := tr.Bounds(); err == nil {
		t.Errorf("Bounds after Close = %v, no error", b)
	}
	if w, err := tr.Window(Interval{}); err == nil {
		t.Errorf("Window after Close = %+v, no error", w)
	}
	tr, err = Open(name, &Options{Interval: &Interval{From: -time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	want, err := tr.Bounds()
	tr.Close()
	if err != nil || !want.Known {
		t.Fatalf("Bounds() = %v, %v", want, err)
	}
	if got, err := tr.Bounds(); err != nil || got != want {
		t.Errorf("Bounds after Close = %v, %v; want the %v learnt by Open", got, err, want)
	}
}

// hasTimeRange reports whether the OTF trace name's definition files hold
// a DEFTIMERANGE record.
func hasTimeRange(t *testing.T, name string) bool {
	t.Helper()
	defs, err := filepath.Glob(strings.TrimSuffix(name, ".otf") + "*.def")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range defs {
		b, err := os.ReadFile(d)
		if err != nil {
			t.Fatal(err)
		}
		if regexp.MustCompile(`(?m)^(DTRG|DEFTIMERANGE)`).Match(b) {
			return true
		}
	}
	return false
}
