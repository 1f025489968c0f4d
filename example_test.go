package hpctrace_test

import (
	"fmt"
	"log"

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
		"model/testdata/fig12.json",
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
	// trace-events JSON
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
