package otf_test

import (
	"fmt"
	"log"
	"os"

	"github.com/hpctrace/hpctrace/otf"
)

// Start reading a trace at a time stamp: SeekTime bisects each events
// file, so only a few kilobytes are read before the first record.
func ExampleTraceReader_SeekTime() {
	trace, err := otf.OpenFS(os.DirFS("testdata/otfaux_all"), "aux.otf", nil)
	if err != nil {
		log.Fatal(err)
	}
	tr, err := trace.NewReader(nil)
	if err != nil {
		log.Fatal(err)
	}
	defer tr.Close()
	if err := tr.SeekTime(0x7a509); err != nil {
		log.Fatal(err)
	}
	for rec, err := range tr.All() {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(rec)
	}
	// Output:
	// Leave t=7a509 p=1 L1
	// Leave t=7a509 p=2 L1
	// Leave t=7a509 p=3 L1
	// Leave t=7a509 p=4 L1
}

// Start at a time with the complete state of the processes: SeekState
// loads the latest snapshot at or before the time (here the one otfaux
// wrote at 0x1a7d4, when ring messages were in flight), replays the events
// from there and positions the reader at the first event at that time or
// later.
func ExampleTraceReader_SeekState() {
	trace, err := otf.OpenFS(os.DirFS("testdata/otfaux_all"), "aux.otf", nil)
	if err != nil {
		log.Fatal(err)
	}
	tr, err := trace.NewReader(&otf.TraceReaderOptions{Processes: []uint32{1, 2}})
	if err != nil {
		log.Fatal(err)
	}
	defer tr.Close()
	st, err := tr.SeekState(0x1a800)
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range st.Processes() {
		ps := st.Process(p)
		fmt.Printf("process %d:", p)
		for _, f := range ps.Stack {
			fmt.Printf(" in function %d since %#x;", f.Function, f.OriginalTime)
		}
		for _, m := range ps.Messages {
			fmt.Printf(" message to %d in flight since %#x;", m.Receiver, m.OriginalTime)
		}
		fmt.Println()
	}
	if tr.Next() {
		fmt.Println("next:", tr.Record())
	}
	if err := tr.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// process 1: in function 1 since 0x1; in function 3 since 0x1a5f7; message to 2 in flight since 0x1a5fc;
	// process 2: in function 1 since 0x1; in function 3 since 0x1a630; message to 3 in flight since 0x1a635;
	// next: Receive t=1a9d3 p=1 R4L20TaC1
}

// Ask interval questions from the summaries otfaux wrote, without reading
// events: the statistics of [a, b) are the differences of the cumulative
// summaries at b and a.
func ExampleSummaries_Interval() {
	trace, err := otf.OpenFS(os.DirFS("testdata/otfaux_all"), "aux.otf", nil)
	if err != nil {
		log.Fatal(err)
	}
	sums, err := trace.ReadSummaries([]uint32{1})
	if err != nil {
		log.Fatal(err)
	}
	ts := sums.Times()
	for _, rec := range sums.Interval(ts[1], ts[2]) {
		if f, ok := rec.FunctionSummary(); ok {
			fmt.Printf("function %d: %d calls, %d ticks exclusive\n", f.Function, f.Count, f.ExclTime)
		}
	}
	// Output:
	// function 1: 0 calls, 35370 ticks exclusive
	// function 2: 12 calls, 69624 ticks exclusive
	// function 3: 13 calls, 19443 ticks exclusive
	// function 4: 1 calls, 813 ticks exclusive
}
