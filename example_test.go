package hpctrace_test

import (
	"fmt"
	"log"
	"os"
	"time"

	"github.com/hpctrace/hpctrace"
	"github.com/hpctrace/hpctrace/model"
)

// Open reads a trace of any format as model events; the three lines of
// the loop are all a profile needs.
func ExampleOpen() {
	t, err := hpctrace.Open("dumpi/testdata/p2p_blocking/dumpi-2026.11.22.01.32.56.meta", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer t.Close()
	var sends int
	var bytes int64
	for ev, err := range model.All(t) {
		if err != nil {
			log.Fatal(err)
		}
		if ev.Kind == model.KindSend {
			sends++
			bytes += ev.Bytes
		}
	}
	fmt.Printf("%s: %d locations, clock %v, %d sends, %d bytes\n",
		t.Format, t.Defs().NumLocations(), t.TimeBase(), sends, bytes)
	// Output:
	// DUMPI run: 2 locations, clock 1 ns, 11 sends, 162 bytes
}

// Detect names the format of a file from its content, or its name where
// the content says nothing.
func ExampleDetect() {
	for _, name := range []string{
		"picl/testdata/appendix_a.trf",
		"otf/testdata/ring_zlib_blocks/ring.otf",
		"eventjson/testdata/fig12.json",
	} {
		f, err := hpctrace.Detect(name)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(f)
	}
	// Output:
	// PICL
	// OTF
	// hpctrace event JSON
}

// A Trace converts its ticks to durations with the trace's own clock and
// names locations and regions.
func ExampleTrace_Duration() {
	t, err := hpctrace.Open("picl/testdata/appendix_a.trf", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer t.Close()
	var first, last model.Time
	for ev, err := range model.All(t) {
		if err != nil {
			log.Fatal(err)
		}
		if first == 0 {
			first = ev.Time
		}
		last = ev.Time
	}
	fmt.Println(t.LocationName(1), "traced for", t.Duration(last-first))
	// Output:
	// processor 6 traced for 717.018ms
}

// OpenFS reads a trace from an fs.FS (os.DirFS, embed.FS, memory); the
// files beside it come from the same file system.
func ExampleOpenFS() {
	fsys := os.DirFS("otf/testdata/ring_zlib_blocks")
	t, err := hpctrace.OpenFS(fsys, "ring.otf", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer t.Close()
	var n int
	for _, err := range model.All(t) {
		if err != nil {
			log.Fatal(err)
		}
		n++
	}
	fmt.Printf("%s: %d events on %d locations\n", t.Format, n, t.Defs().NumLocations())
	// Output:
	// OTF: 13332 events on 6 locations
}

// Options.Locations reads a share of a trace: here the locations of
// shard i of n, as tracestat -shard i/n does. The shards agree on the
// definitions (the whole trace's), and each reads the files of only its
// locations where the format keeps them apart (OTF streams, DUMPI rank
// files, OTF2 location files). The shards' events add up to the whole
// trace's 89 (its MPI_Irecv gives a RecvPost).
func ExampleOptions_locations() {
	const n = 2
	for i := range n {
		mine := func(l model.LocID) bool { return int(l)%n == i }
		t, err := hpctrace.Open("dumpi/testdata/p2p_blocking/dumpi-2026.11.22.01.32.56.meta", &hpctrace.Options{Locations: mine})
		if err != nil {
			log.Fatal(err)
		}
		var events int
		for ev, err := range model.All(t) {
			if err != nil {
				log.Fatal(err)
			}
			if mine(ev.Loc) { // a source may yield others' events too
				events++
			}
		}
		t.Close()
		fmt.Printf("shard %d/%d: %d events; %d locations defined\n", i, n, events, t.Defs().NumLocations())
	}
	// Output:
	// shard 0/2: 48 events; 2 locations defined
	// shard 1/2: 41 events; 2 locations defined
}

// Options.Interval reads a window given as durations from the trace's
// start, or from its end when negative: here the last 100 µs of an OTF
// trace, whose first and last times a bisection of its streams finds
// (Trace.Bounds), so that the window is read alone.
func ExampleOptions_interval() {
	t, err := hpctrace.Open("otf/testdata/ring_zlib_blocks/ring.otf", &hpctrace.Options{
		Interval: &hpctrace.Interval{From: -100 * time.Microsecond},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer t.Close()
	b, err := t.Bounds()
	if err != nil {
		log.Fatal(err)
	}
	var n int
	for _, err := range model.All(t) {
		if err != nil {
			log.Fatal(err)
		}
		n++
	}
	fmt.Printf("%s long; its last 100 µs hold %d events\n", t.Duration(b.Len()), n)
	// Output:
	// 3.001ms long; its last 100 µs hold 450 events
}
