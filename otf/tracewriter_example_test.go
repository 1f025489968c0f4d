package otf_test

import (
	"fmt"
	"github.com/hpctrace/hpctrace/model"
	"io"
	"log"
	"slices"
	"testing/fstest"

	"github.com/hpctrace/hpctrace/otf"
)

// Write a whole trace with a TraceWriter: it routes definitions to the
// definition files, events to the events file of their process's stream,
// and writes the master file on Close. Here the trace goes to memory and
// is read back with Open.
func ExampleTraceWriter() {
	fsys := fstest.MapFS{}
	create := model.CreateFunc(func(name string) (io.WriteCloser, error) {
		return &memFile{name: name, fs: fsys}, nil
	})
	w, err := otf.NewTraceWriter(create, &otf.TraceWriterOptions{Stub: "ring", MaxStreams: 2})
	if err != nil {
		log.Fatal(err)
	}
	var rec otf.Record
	write := func() {
		if err := w.Write(&rec); err != nil {
			log.Fatal(err)
		}
	}
	rec.SetDefTimerResolution(otf.DefTimerResolution{TicksPerSecond: 1000000})
	write()
	for p := uint32(1); p <= 2; p++ {
		rec.SetDefProcess(otf.DefProcess{Process: p, Name: fmt.Appendf(nil, "rank %d", p-1)})
		write()
	}
	rec.SetDefFunction(otf.DefFunction{Function: 1, Group: 1, Name: []byte("main")})
	write()
	for p := uint32(1); p <= 2; p++ {
		rec.Time, rec.Process = 10, p
		rec.SetEnter(otf.Enter{Function: 1})
		write()
		rec.Time = 20 + uint64(p)
		rec.SetLeave(otf.Leave{Function: 1})
		write()
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	names := slices.Sorted(func(yield func(string) bool) {
		for name := range fsys {
			if !yield(name) {
				return
			}
		}
	})
	for _, name := range names {
		fmt.Printf("%s: %q\n", name, fsys[name].Data)
	}
	trace, err := otf.OpenFS(fsys, "ring.otf", nil)
	if err != nil {
		log.Fatal(err)
	}
	r, err := trace.NewReader(nil)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	for rec, err := range r.All() {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(rec)
	}
	// Output:
	// ring.0.def: "DTRf4240\nDP1NM\"rank 0\"\nDP2NM\"rank 1\"\nDF1G1NM\"main\"\n"
	// ring.1.events: "a\n*1\nE1\n15\n*1\nL1\n15\n*1\n"
	// ring.2.events: "a\n*2\nE1\n16\n*2\nL1\n16\n*2\n"
	// ring.otf: "1:1\n2:2\n"
	// Enter t=a p=1 E1
	// Enter t=a p=2 E1
	// Leave t=15 p=1 L1
	// Leave t=16 p=2 L1
}
