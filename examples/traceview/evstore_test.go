package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hpctrace/hpctrace/examples/internal/outfile"
	"github.com/hpctrace/hpctrace/export"
	"github.com/hpctrace/hpctrace/internal/cputime"
	"github.com/hpctrace/hpctrace/model"
	"pgregory.net/rapid"
)

// storeTraces are the fixtures of the formats that cannot seek.
var storeTraces = []string{
	"fig12.json",
	"../../picl/testdata/appendix_a.trf",
	"../../dumpi/testdata/collectives/dumpi-2026.11.22.01.33.17.meta",
	"../../chrome/testdata/ring4.json",
}

// indexConfig is testConfig with the index in the file path ("": in
// memory).
func indexConfig(every, cache int64, path string) *config {
	c := testConfig(every, cache)
	c.index = path
	return c
}

// windowOf returns the reply to the window [from, to) of locs, with the
// time it took zeroed.
func windowOf(t *testing.T, base string, from, to model.Time, locs string) *windowReply {
	rep := getWindow(t, base, from, to, locs)
	rep.Took = 0
	return rep
}

// replyJSON is the reply as the server sends it, one JSON value per line.
func replyJSON(t rapid.TB, rep *windowReply) []string {
	b, err := json.MarshalIndent(rep, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(string(b), "\n")
}

// TestStoreWindows: for each format that cannot seek, random windows
// (of random locations) served through the index, in memory and in an
// -index file, are the windows a full read of the trace from its start
// makes (every slice, those open across the window's start included,
// and every message), the same replies in memory and from the file, and
// name the rows a server that reads the trace names.
func TestStoreWindows(t *testing.T) {
	clipped, ringClipped := 0, 0
	ring := filepath.Join(t.TempDir(), "ring.trf")
	writeRing(t, ring, 4, 20)
	for _, in := range append(storeTraces, ring) {
		t.Run(filepath.Base(in), func(t *testing.T) {
			args := []string{in}
			_, first, last := oracle(t, args, 0, 1, nil)
			var bases []string
			nl := 0
			for _, cfg := range []*config{
				testConfig(3, 0), // no index: reads the trace
				indexConfig(3, 5000000, ""),
				indexConfig(3, 0, filepath.Join(t.TempDir(), "trace.index")),
			} {
				s, err := newServer(args, cfg, io.Discard)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { s.close() })
				if (cfg.index != "" || cfg.cache > 0) != (s.ix.store != nil) {
					t.Fatalf("-index %q -cache %d: store %v", cfg.index, cfg.cache, s.ix.store != nil)
				}
				hs := httptest.NewServer(s)
				t.Cleanup(hs.Close)
				bases = append(bases, hs.URL)
				nl = s.defs.NumLocations()
			}
			rapid.Check(t, func(rt *rapid.T) {
				from := rapid.Int64Range(int64(first), int64(last)).Draw(rt, "from")
				to := rapid.Int64Range(from+1, int64(last)+1).Draw(rt, "to")
				locs := ""
				var keep func(model.LocID) bool
				if rapid.Bool().Draw(rt, "some locations") {
					l := rapid.IntRange(1, nl).Draw(rt, "loc")
					locs, keep = fmt.Sprint(l), model.Only(model.LocID(l))
				}
				w := [2]model.Time{model.Time(from), model.Time(to)}
				want, _, _ := oracle(t, args, w[0], w[1], keep)
				ref := windowOf(t, bases[0], w[0], w[1], locs)
				var first *windowReply
				for i, base := range bases[1:] {
					rep := windowOf(t, base, w[0], w[1], locs)
					if diff := gocmp.Diff(clippedKeys(want, w[0], w[1]), clippedKeys(rep.Timeline, w[0], w[1])); diff != "" {
						rt.Fatalf("server %d, window %v locs %q: slices (-full read +served):\n%s", i+1, w, locs, diff)
					}
					checkMessages(t, w, want.Detail.Messages, rep.Timeline.Detail.Messages)
					// The names of the rows: a read of the trace names
					// those its adapter has defined when the read starts
					// (a PICL reader defines a processor at its first
					// record), the index all of them.
					refRows, rows := ref.Timeline.Locations, rep.Timeline.Locations
					ref.Timeline.Locations, rep.Timeline.Locations = nil, nil
					if len(refRows) > len(rows) || !slices.Equal(refRows, rows[:len(refRows)]) && filepath.Ext(in) != ".trf" {
						rt.Fatalf("server %d, window %v locs %q: rows %q, want %q", i+1, w, locs, rows, refRows)
					}
					if i == 0 {
						for _, k := range clippedKeys(rep.Timeline, w[0], w[1]) {
							if k.ClippedLeft && rep.Start > math.MinInt64 {
								clipped++
								if in == ring {
									ringClipped++
								}
							}
						}
					}
					// The index's checkpoints are not the read's
					// (in file order the read from the trace goes on
					// to its end; the index's are spread by time over
					// its copy of the events): past the window the
					// timelines differ (the slices open at the read's
					// end are closed there, the sends counted in its
					// columns of whole ticks past the window), so the
					// index's replies are compared with each other.
					if first == nil {
						first = rep
						continue
					}
					want := first
					if diff := gocmp.Diff(replyJSON(rt, want), replyJSON(rt, rep)); diff != "" {
						rt.Fatalf("server %d, window %v locs %q: reply (-from the trace +from the index):\n%s", i+1, w, locs, diff)
					}
				}
			})
		})
	}
	if clipped == 0 {
		t.Errorf("no window read from a checkpoint had a slice entered before it: the test does not try regions open across a window's start")
	}
	if ringClipped == 0 {
		t.Errorf("no window of the trace in file order was read from a checkpoint with a slice entered before it")
	}
}

// copyTrace copies the files of the trace in (a DUMPI run: its .meta and
// rank files) into dir and returns the copy's name.
func copyTrace(t *testing.T, in, dir string) string {
	t.Helper()
	for _, f := range outfile.TraceFiles(in) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, filepath.Base(in))
}

// TestStoreReadsNoTrace: a window served through the -index file reads
// neither the trace (whose files are emptied once the server has
// started) nor more of the index than the events from its checkpoint to
// the one after it and those read past it for messages' other ends: the
// events decoded per request are counted.
func TestStoreReadsNoTrace(t *testing.T) {
	dir := t.TempDir()
	in := copyTrace(t, "../../dumpi/testdata/collectives/dumpi-2026.11.22.01.33.17.meta", dir)
	args := []string{in}
	_, first, last := oracle(t, args, 0, 1, nil)
	span := last - first + 1
	wins := [][2]model.Time{
		{first + span/3, first + span/3 + span/20 + 1},
		{first + span/2, first + 3*span/5},
		{last - span/10, last + 1},
	}
	var want []*export.TimelineData
	for _, w := range wins {
		tl, _, _ := oracle(t, args, w[0], w[1], nil)
		want = append(want, tl)
	}
	s, err := newServer(args, indexConfig(3, 0, filepath.Join(dir, "run.index")), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	if len(s.ix.cps) < 10 {
		t.Fatalf("%d checkpoints in %d events; want many", len(s.ix.cps), s.ix.n)
	}
	decoded := func() int64 {
		if s.ix.store == nil {
			return 0
		}
		return s.ix.store.decoded.Load()
	}
	for _, f := range outfile.TraceFiles(in) {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hs := httptest.NewServer(s)
	defer hs.Close()
	for i, w := range wins {
		before := decoded()
		rep := windowOf(t, hs.URL, w[0], w[1], "")
		read := decoded() - before
		if diff := gocmp.Diff(clippedKeys(want[i], w[0], w[1]), clippedKeys(rep.Timeline, w[0], w[1])); diff != "" {
			t.Errorf("window %v: slices (-full read +served):\n%s", w, diff)
		}
		checkMessages(t, w, want[i].Detail.Messages, rep.Timeline.Detail.Messages)
		start, stop := s.ix.span(w[0], w[1])
		if rep.Read != stop.n-start.n || read > rep.Read+rep.Past+1 || read < rep.Read {
			t.Errorf("window %v: %d events decoded, %d read from the checkpoint of event %d to that of event %d and %d past it; want %d read and at most one more decoded",
				w, read, rep.Read, start.n, stop.n, rep.Past, stop.n-start.n)
		}
		if read >= s.ix.n {
			t.Errorf("window %v: %d events decoded of the trace's %d", w, read, s.ix.n)
		}
	}
}

// TestStoreIndexFile: -index writes the index beside the trace and
// replaces an earlier index, but never a file of the trace nor another
// existing file without -force.
func TestStoreIndexFile(t *testing.T) {
	dir := t.TempDir()
	in := copyTrace(t, "../../dumpi/testdata/collectives/dumpi-2026.11.22.01.33.17.meta", dir)
	args := []string{in}
	path := filepath.Join(dir, "run.index")
	for range 2 { // the second replaces the first's index
		s, err := newServer(args, indexConfig(3, 0, path), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		s.close()
		b, err := os.ReadFile(path)
		if err != nil || !strings.HasPrefix(string(b), indexMagic) || int64(len(b)) != int64(len(indexMagic))+s.ix.store.size {
			t.Fatalf("index file: %d bytes, %v; want the magic and %d bytes of events", len(b), err, s.ix.store.size)
		}
	}
	for _, f := range outfile.TraceFiles(in) {
		before, _ := os.ReadFile(f)
		for _, force := range []bool{false, true} {
			cfg := indexConfig(3, 0, f)
			cfg.force = force
			if _, err := newServer(args, cfg, io.Discard); !errors.Is(err, outfile.ErrInput) {
				t.Errorf("-index %s (a file of the trace), -force=%v: %v, want ErrInput", f, force, err)
			}
		}
		if after, _ := os.ReadFile(f); !bytes.Equal(before, after) {
			t.Errorf("%s changed", f)
		}
	}
	other := filepath.Join(dir, "notes.txt")
	os.WriteFile(other, []byte("keep me"), 0o644)
	if _, err := newServer(args, indexConfig(3, 0, other), io.Discard); !errors.Is(err, outfile.ErrExists) {
		t.Errorf("-index over another file: %v, want ErrExists", err)
	}
	if b, _ := os.ReadFile(other); string(b) != "keep me" {
		t.Errorf("the other file holds %q", b)
	}
}

// TestStoreDamaged: whatever the bytes of the index (a file changed while
// served), a read of it ends, with an error or cleanly, and never panics.
func TestStoreDamaged(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		st := &evStore{mem: rapid.SliceOf(rapid.Byte()).Draw(rt, "bytes")}
		st.size = int64(len(st.mem))
		src := st.source(&model.Defs{}, 0, 0, nil)
		n := 0
		for src.Next() {
			n++
		}
		if err := src.Err(); err != nil && !errors.Is(err, errDamaged) {
			rt.Fatalf("error %v, want one wrapping errDamaged", err)
		}
		if n > len(st.mem) {
			rt.Fatalf("%d events from %d bytes", n, len(st.mem))
		}
	})
}

// TestStoreRoundTrip: every event stored is decoded as it was given.
func TestStoreRoundTrip(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		evs := rapid.SliceOf(rapid.Custom(func(rt *rapid.T) model.Event {
			return model.Event{Time: model.Time(rapid.Int64().Draw(rt, "time")), Loc: model.LocID(rapid.Uint32().Draw(rt, "loc")),
				Kind: model.Kind(rapid.Uint8().Draw(rt, "kind")), Flags: model.Flags(rapid.Uint8().Draw(rt, "flags")),
				Class: model.Class(rapid.Uint8().Draw(rt, "class")), Region: model.RegionID(rapid.Uint32().Draw(rt, "region")),
				Site: model.SiteID(rapid.Uint32().Draw(rt, "site")), Peer: model.LocID(rapid.Uint32().Draw(rt, "peer")),
				Comm: model.CommID(rapid.Uint32().Draw(rt, "comm")), Tag: rapid.Int32().Draw(rt, "tag"),
				Counter: model.CounterID(rapid.Uint32().Draw(rt, "counter")), Bytes: rapid.Int64().Draw(rt, "bytes"),
				Recvd: rapid.Int64().Draw(rt, "recvd"), Match: rapid.Uint64().Draw(rt, "match"), Value: rapid.Int64().Draw(rt, "value"),
				Text: model.StringID(rapid.Uint32().Draw(rt, "text"))}
		})).Draw(rt, "events")
		st := &evStore{limit: math.MaxInt64}
		at := rapid.IntRange(0, len(evs)).Draw(rt, "resume at")
		var off int64
		var prev model.Time
		for i := range evs {
			if i == at {
				off, prev = st.pos()
			}
			st.add(&evs[i])
		}
		if at == len(evs) {
			off, prev = st.pos()
		}
		src := st.source(&model.Defs{}, off, prev, nil)
		var got []model.Event
		for src.Next() {
			got = append(got, *src.Event())
		}
		if err := src.Err(); err != nil {
			rt.Fatal(err)
		}
		if diff := gocmp.Diff(evs[at:], got, cmpopts.EquateEmpty()); diff != "" {
			rt.Fatalf("events from %d (-stored +decoded):\n%s", at, diff)
		}
	})
}

// BenchmarkStoreDecode decodes a store of a ring's events: enters,
// leaves, sends and receives.
func BenchmarkStoreDecode(b *testing.B) {
	st := &evStore{limit: math.MaxInt64}
	const n = 1 << 20
	for i := range n {
		ev := model.Event{Time: model.Time(1e12) + model.Time(i*37), Loc: model.LocID(1 + i%16), Kind: model.KindEnter, Region: model.RegionID(1 + i%7)}
		switch i % 4 {
		case 1:
			ev.Kind, ev.Region = model.KindSend, 0
			ev.Peer, ev.Tag, ev.Comm, ev.Bytes = model.LocID(1+(i+1)%16), int32(i%64), 1, 4096
		case 3:
			ev.Kind = model.KindLeave
		}
		st.add(&ev)
	}
	b.SetBytes(st.size)
	b.ReportAllocs()
	cpu0, _ := cputime.Process()
	for b.Loop() {
		src := st.source(&model.Defs{}, 0, 0, nil)
		k := 0
		for src.Next() {
			k++
		}
		if k != n || src.Err() != nil {
			b.Fatalf("%d events, %v", k, src.Err())
		}
	}
	cpu1, _ := cputime.Process()
	b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/float64(b.N)/n, "cpu-ns/event")
}

// writeRing writes a PICL trace in file order to path: each of nodes
// processors' records one block, iters rounds of a region with a send to
// the next processor and a receive from the one before.
func writeRing(t *testing.T, path string, nodes, iters int) {
	t.Helper()
	writeRingBack(t, path, nodes, iters, false)
}

// writeRingBack is writeRing, with, if back, a marker of processor 0 at
// time 0 after its block: its own times go back.
func writeRingBack(t *testing.T, path string, nodes, iters int, back bool) {
	t.Helper()
	var b bytes.Buffer
	for p := range nodes {
		for i := range iters {
			us := int64(i)*1000 + int64(p)*10
			sec := func(d int64) float64 { return float64(us+d) / 1e6 }
			fmt.Fprintf(&b, "-3 %d %.6f %d 0 2 2 0 0\n", i%3, sec(0), p)
			fmt.Fprintf(&b, "-3 -21 %.6f %d 0 3 2 8 1 %d\n", sec(1), p, (p+1)%nodes)
			fmt.Fprintf(&b, "-4 -21 %.6f %d 0 0\n", sec(2), p)
			fmt.Fprintf(&b, "-3 -52 %.6f %d 0 1 2 1\n", sec(3), p)
			fmt.Fprintf(&b, "-4 -52 %.6f %d 0 3 2 8 1 %d\n", sec(500), p, (p+nodes-1)%nodes)
			fmt.Fprintf(&b, "-4 %d %.6f %d 0 2 2 0 0\n", i%3, sec(600), p)
		}
		if back && p == 0 {
			fmt.Fprintf(&b, "-2 7 0.000000 0 0 0\n")
		}
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeRingLong is writeRing with, on each processor, a region open
// from its first record to its last and, if long > 0, long messages (of
// their own tag) sent to the next processor before its first round and
// received from the one before after its last, so that they are waiting
// across the whole trace.
func writeRingLong(t *testing.T, path string, nodes, iters, long int) {
	t.Helper()
	var b bytes.Buffer
	for p := range nodes {
		sec := func(us int64) float64 { return float64(us+int64(p)*10) / 1e6 }
		fmt.Fprintf(&b, "-3 5 %.6f %d 0 2 2 0 0\n", sec(0), p)
		for k := range int64(long) {
			fmt.Fprintf(&b, "-3 -21 %.6f %d 0 3 2 16 2 %d\n", sec(1+2*k), p, (p+1)%nodes)
			fmt.Fprintf(&b, "-4 -21 %.6f %d 0 0\n", sec(2+2*k), p)
		}
		for i := range iters {
			us := int64(i+1) * 1000
			fmt.Fprintf(&b, "-3 %d %.6f %d 0 2 2 0 0\n", i%3, sec(us), p)
			fmt.Fprintf(&b, "-3 -21 %.6f %d 0 3 2 8 1 %d\n", sec(us+1), p, (p+1)%nodes)
			fmt.Fprintf(&b, "-4 -21 %.6f %d 0 0\n", sec(us+2), p)
			fmt.Fprintf(&b, "-3 -52 %.6f %d 0 1 2 1\n", sec(us+3), p)
			fmt.Fprintf(&b, "-4 -52 %.6f %d 0 3 2 8 1 %d\n", sec(us+500), p, (p+nodes-1)%nodes)
			fmt.Fprintf(&b, "-4 %d %.6f %d 0 2 2 0 0\n", i%3, sec(us+600), p)
		}
		end := int64(iters+1) * 1000
		for k := range int64(long) {
			fmt.Fprintf(&b, "-3 -52 %.6f %d 0 1 2 2\n", sec(end+1+2*k), p)
			fmt.Fprintf(&b, "-4 -52 %.6f %d 0 3 2 16 2 %d\n", sec(end+2+2*k), p, (p+nodes-1)%nodes)
		}
		fmt.Fprintf(&b, "-4 5 %.6f %d 0 2 2 0 0\n", sec(end+2*int64(long)+5), p)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestStoreFileOrder: a PICL trace in file order (its processors'
// records in blocks, times going back at each block) gets checkpoints,
// and a window's request decodes, of the index's copy, the events of
// each location from its offset at the checkpoint before the window to
// its offset at the one after it, and those read past it for messages'
// other ends: about the window's share of the trace, not the whole copy.
// Its slices and messages are a full read's, those whose other end lies
// far past the window (the long messages, waiting across the whole
// trace) included, found in the index without reading past the window.
func TestStoreFileOrder(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "ring.trf")
	writeRingLong(t, in, 8, 1000, 4)
	args := []string{in}
	_, first, last := oracle(t, args, 0, 1, nil)
	span := last - first + 1
	for _, cfg := range []*config{indexConfig(64, 5000000, ""), indexConfig(64, 0, filepath.Join(dir, "ring.index"))} {
		s, err := newServer(args, cfg, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		defer s.close()
		if s.ix.monotone || s.ix.store == nil {
			t.Fatalf("monotone %v, store %v: want a trace in file order, with a store", s.ix.monotone, s.ix.store != nil)
		}
		if len(s.ix.cps) < 100 {
			t.Fatalf("%d checkpoints in %d events; want many", len(s.ix.cps), s.ix.n)
		}
		hs := httptest.NewServer(s)
		defer hs.Close()
		for _, w := range [][2]model.Time{
			{first + span/3, first + span/3 + span/20 + 1},
			{first + span/2, first + 3*span/5},
			{last - span/10, last + 1},
			{first, first + span/50},
		} {
			before := s.ix.store.decoded.Load()
			rep := windowOf(t, hs.URL, w[0], w[1], "")
			read := s.ix.store.decoded.Load() - before
			want, _, _ := oracle(t, args, w[0], w[1], nil)
			if diff := gocmp.Diff(clippedKeys(want, w[0], w[1]), clippedKeys(rep.Timeline, w[0], w[1])); diff != "" {
				t.Errorf("window %v: slices (-full read +served):\n%s", w, diff)
			}
			checkMessages(t, w, want.Detail.Messages, rep.Timeline.Detail.Messages)
			start, stop := s.ix.span(w[0], w[1])
			if rep.Read != stop.n-start.n || read > rep.Read+rep.Past+1 || read < rep.Read {
				t.Errorf("window %v: %d events decoded, %d read from the checkpoint of event %d to that of event %d and %d past it; want %d read and at most one more decoded",
					w, read, rep.Read, start.n, stop.n, rep.Past, stop.n-start.n)
			}
			// The window's share, and a checkpoint interval on either
			// side.
			share := int64(float64(s.ix.n)*float64(w[1]-w[0])/float64(span)) + 2*s.ix.every + 64
			if rep.Read > share || rep.Past != 0 || read > share+1 {
				t.Errorf("window %v: %d events decoded, %d read and %d past it; want at most %d, its share of the trace's %d, and none past it", w, read, rep.Read, rep.Past, share, s.ix.n)
			}
			long := 0
			for _, m := range rep.Timeline.Detail.Messages {
				if m.Tag == 2 {
					long++
				}
			}
			if long == 0 {
				t.Errorf("window %v: no long message served", w)
			}
		}
	}
}

// TestStoreFileOrderBack: a trace in file order where a location's own
// times go back gets no checkpoint (a location's offset at a time would
// not part its events before and after it), and its windows are read
// from the start, whole.
func TestStoreFileOrderBack(t *testing.T) {
	in := filepath.Join(t.TempDir(), "back.trf")
	writeRingBack(t, in, 4, 50, true)
	args := []string{in}
	_, first, last := oracle(t, args, 0, 1, nil)
	s, err := newServer(args, indexConfig(3, 5000000, ""), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	if s.ix.monotone || s.ix.store == nil || len(s.ix.cps) != 0 {
		t.Fatalf("monotone %v, store %v, %d checkpoints: want a trace in file order, with a store, and no checkpoint", s.ix.monotone, s.ix.store != nil, len(s.ix.cps))
	}
	hs := httptest.NewServer(s)
	defer hs.Close()
	span := last - first + 1
	w := [2]model.Time{first + span/3, first + span/2}
	rep := windowOf(t, hs.URL, w[0], w[1], "")
	want, _, _ := oracle(t, args, w[0], w[1], nil)
	if diff := gocmp.Diff(clippedKeys(want, w[0], w[1]), clippedKeys(rep.Timeline, w[0], w[1])); diff != "" {
		t.Errorf("window %v: slices (-full read +served):\n%s", w, diff)
	}
	checkMessages(t, w, want.Detail.Messages, rep.Timeline.Detail.Messages)
	if rep.Start != math.MinInt64 || rep.Read != s.ix.n {
		t.Errorf("window %v: read from %d, %d events; want from the start, the trace's %d", w, rep.Start, rep.Read, s.ix.n)
	}
}

// TestStoreFileOrderBound: the checkpoints of a trace in file order are
// thinned while they are made, so that the open regions and message ends
// they store stay within the bound, and its windows stay a full read's.
func TestStoreFileOrderBound(t *testing.T) {
	in := filepath.Join(t.TempDir(), "ring.trf")
	writeRing(t, in, 4, 200)
	args := []string{in}
	_, first, last := oracle(t, args, 0, 1, nil)
	s, err := newServer(args, indexConfig(3, 5000000, ""), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	all := len(s.ix.cps)
	// Again, with a bound of 200.
	const limit = 200
	s.ix.cps, s.ix.openMax, s.ix.stacks = nil, limit, make([][]openRegion, s.defs.NumLocations()+1)
	if err := s.ix.fileOrder(); err != nil {
		t.Fatal(err)
	}
	stored := len(s.ix.spans.mt.keys) + len(s.ix.spans.rt.keys)
	for _, c := range s.ix.cps {
		stored += len(c.open) + len(c.ends)
	}
	if stored > limit || len(s.ix.cps) < 2 || len(s.ix.cps) >= all {
		t.Fatalf("%d open regions and ends stored in %d checkpoints (%d unbounded); want at most %d in fewer, more than one", stored, len(s.ix.cps), all, limit)
	}
	hs := httptest.NewServer(s)
	defer hs.Close()
	span := last - first + 1
	for _, w := range [][2]model.Time{{first + span/3, first + span/3 + span/20 + 1}, {first + span/2, first + 3*span/5}, {last - span/10, last + 1}} {
		rep := windowOf(t, hs.URL, w[0], w[1], "")
		want, _, _ := oracle(t, args, w[0], w[1], nil)
		if diff := gocmp.Diff(clippedKeys(want, w[0], w[1]), clippedKeys(rep.Timeline, w[0], w[1])); diff != "" {
			t.Errorf("window %v: slices (-full read +served):\n%s", w, diff)
		}
		checkMessages(t, w, want.Detail.Messages, rep.Timeline.Detail.Messages)
		if rep.Start == math.MinInt64 {
			t.Errorf("window %v: read from the trace's start", w)
		}
	}
}

// heldBytes is what the index of s holds in its checkpoints and spans.
func heldBytes(x *index) int64 {
	size := func(v any, n int) int64 { return int64(n) * int64(reflect.TypeOf(v).Size()) }
	held := size(checkpoint{}, len(x.cps))
	for _, c := range x.cps {
		held += size(openRegion{}, len(c.open)) + size(model.Event{}, len(c.ends)) + size(locStart{}, len(c.locs))
	}
	if sp := x.spans; sp != nil {
		held += size(spanMsg{}, len(sp.msgs)) + size(spanRegion{}, len(sp.regions))
		for _, t := range []*spanTree{sp.mt, sp.rt} {
			held += size(spanKey{}, len(t.keys)) + size(int32(0), len(t.byCB)+len(t.node)) + size(0, len(t.base))
		}
	}
	return held
}

// TestStoreFileOrderHeld: the index of a trace in file order whose
// regions and messages wait across the whole trace (an outer region and
// 64 long messages a processor) keeps its checkpoints (as many for a
// trace three times longer) within a bound of the regions and messages
// it stores that a copy of those at every checkpoint would exceed, and
// what it holds does not grow with the trace.
func TestStoreFileOrderHeld(t *testing.T) {
	const limit = 100000 // the long messages alone, at each of 4096 checkpoints: 1 M
	var cps []int
	var held []int64
	for _, iters := range []int{2048, 3 * 2048} {
		in := filepath.Join(t.TempDir(), "ring.trf")
		writeRingLong(t, in, 4, iters, 64)
		s, err := newServer([]string{in}, indexConfig(1, 5000000, ""), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		defer s.close()
		s.ix.cps, s.ix.openMax, s.ix.stacks = nil, limit, make([][]openRegion, s.defs.NumLocations()+1)
		if err := s.ix.fileOrder(); err != nil {
			t.Fatal(err)
		}
		stored := len(s.ix.spans.mt.keys) + len(s.ix.spans.rt.keys)
		for _, c := range s.ix.cps {
			stored += len(c.open) + len(c.ends)
		}
		if stored > limit {
			t.Errorf("%d rounds: %d open regions and ends stored; want at most %d", iters, stored, limit)
		}
		cps, held = append(cps, len(s.ix.cps)), append(held, heldBytes(s.ix))
		t.Logf("%d rounds, %d events: %d checkpoints, %d regions and messages stored, %d bytes held", iters, s.ix.n, len(s.ix.cps), stored, heldBytes(s.ix))
	}
	if cps[0] < maxCheckpoints/2 || cps[1] < cps[0] {
		t.Errorf("checkpoints %d, then %d for a trace three times longer; want at least %d, not fewer", cps[0], cps[1], maxCheckpoints/2)
	}
	if held[1] > held[0]*5/4 {
		t.Errorf("%d bytes held, then %d for a trace three times longer; want at most a quarter more", held[0], held[1])
	}
}
