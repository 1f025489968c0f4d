package otf_test

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"testing/fstest"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf"
)

// memFile is a file of a trace written to memory.
type memFile struct {
	bytes.Buffer
	name string
	fs   fstest.MapFS
}

func (f *memFile) Close() error {
	f.fs[f.name] = &fstest.MapFile{Data: bytes.Clone(f.Bytes())}
	return nil
}

// A ModelWriter converts model events, from any source, to an OTF trace.
// Here the trace is written to memory and its events file printed.
func ExampleNewModelWriter() {
	d := new(model.Defs)
	d.TimeBase.TicksPerSecond = 1_000_000
	r0 := d.AddLocation(model.Location{Name: "rank 0"})
	r1 := d.AddLocation(model.Location{Name: "rank 1", Process: 1})
	send := d.AddRegion(model.Region{Name: "MPI_Send", Kind: model.RegionComm})
	events := []model.Event{
		{Time: 10, Loc: r0, Kind: model.KindEnter, Region: send},
		{Time: 12, Loc: r0, Kind: model.KindSend, Peer: r1, Tag: 7, Bytes: 1024},
		{Time: 15, Loc: r0, Kind: model.KindLeave, Region: send},
	}

	files := fstest.MapFS{}
	create := model.CreateFunc(func(name string) (io.WriteCloser, error) {
		return &memFile{name: name, fs: files}, nil
	})
	w, err := otf.NewModelWriter(create, d, &otf.ModelWriterOptions{Stub: "trace"})
	if err != nil {
		log.Fatal(err)
	}
	for i := range events {
		if err := w.Write(&events[i]); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Print(string(files["trace.otf"].Data))
	fmt.Print(string(files["trace.1.events"].Data))
	// Output:
	// 1:1
	// a
	// *1
	// E1
	// c
	// *1
	// S2L400T7C0
	// f
	// *1
	// L1
	// f
	// *1
}
