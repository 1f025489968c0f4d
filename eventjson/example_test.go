package eventjson_test

import (
	"fmt"
	"os"
	"strings"
	"testing/fstest"

	"github.com/hpctrace/hpctrace/eventjson"
	"github.com/hpctrace/hpctrace/model"
)

func ExampleNewReader() {
	const doc = `{"format":"trace-events-json/1","ticks_per_second":1000,
 "locations":[{"id":0,"name":"rank0"}],
 "regions":[{"id":7,"name":"solve","kind":"function"}],
 "events":[{"t":1,"loc":0,"kind":"enter","region":7,"site":12},{"t":5,"loc":0,"kind":"leave","region":7}]}`
	r, err := eventjson.NewReader(strings.NewReader(doc), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for ev, err := range r.All() {
		if err != nil {
			fmt.Println(err)
			return
		}
		reg, _ := r.Defs().Region(ev.Region)
		site, _ := r.Defs().Site(ev.Site)
		fmt.Println(ev.Time, ev.Kind, reg.Name, site.Line)
	}
	// Output:
	// 1 enter solve 12
	// 5 leave solve 0
}

func ExampleWriter() {
	var defs model.Defs
	defs.TimeBase.TicksPerSecond = 1000
	l := defs.AddLocation(model.Location{Native: 0, Name: "rank0"})
	m := defs.AddRegion(model.Region{Native: 1, Name: "main", Kind: model.RegionFunction})
	w, err := eventjson.NewWriter(os.Stdout, &defs, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	w.Write(&model.Event{Time: 0, Loc: l, Kind: model.KindEnter, Region: m})
	w.Write(&model.Event{Time: 9, Loc: l, Kind: model.KindLeave, Region: m})
	if err := w.Close(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {"format":"trace-events-json/1","ticks_per_second":1000,
	// "locations":[
	// {"id":0,"name":"rank0","process":0,"thread":0}],
	// "regions":[
	// {"id":1,"name":"main","kind":"function","line":0}],
	// "events":[
	// {"t":0,"loc":0,"kind":"enter","region":1,"site":0},
	// {"t":9,"loc":0,"kind":"leave","region":1}
	// ]}
}

// OpenFS opens a document of a file system (os.DirFS, embed.FS, memory);
// the Reader's Close closes the file it opened.
func ExampleOpenFS() {
	fsys := fstest.MapFS{"run.json": {Data: []byte(`{"format":"trace-events-json/1","ticks_per_second":1000000,
 "locations":[{"id":0,"name":"rank0"},{"id":1,"name":"rank1"}],
 "events":[{"t":5,"loc":0,"kind":"send","peer":1,"tag":3,"bytes":64},{"t":9,"loc":1,"kind":"recv","peer":0,"tag":3,"bytes":64}]}`)}}
	r, err := eventjson.OpenFS(fsys, "run.json", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	var sent int64
	for ev, err := range r.All() {
		if err != nil {
			fmt.Println(err)
			return
		}
		if ev.Kind == model.KindSend {
			sent += ev.Bytes
		}
	}
	fmt.Println(r.Defs().NumLocations(), "locations,", sent, "bytes sent")
	// Output:
	// 2 locations, 64 bytes sent
}
