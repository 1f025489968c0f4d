package otf

import (
	"testing"

	"github.com/hpctrace/hpctrace/model"
)

func TestModelSource(t *testing.T) {
	tr, err := Open(fixtureFS(t, "all_records_short"), "allrec.otf")
	if err != nil {
		t.Fatal(err)
	}
	src, err := NewModelSource(tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var _ model.Source = src
	d := src.Defs()
	if d.TimeBase.TicksPerSecond != 1000000 {
		t.Errorf("TimeBase = %d", d.TimeBase.TicksPerSecond)
	}
	if n := d.NumLocations(); n != 5 {
		t.Errorf("%d locations, want 5", n)
	}
	if id, ok := d.LocationByNative(5); !ok {
		t.Error("no location for process 5")
	} else if l, _ := d.Location(id); l.Process != 3 || l.Thread != 1 || l.Name != "Process 3 / Thread 1" {
		t.Errorf("process 5: %+v", l)
	}
	if id, ok := d.RegionByNative(5); !ok {
		t.Error("no region for function 5")
	} else if r, _ := d.Region(id); r.Kind != model.RegionCollective || r.Group != "MPI" || r.Name != "MPI_Allreduce" {
		t.Errorf("function 5: %+v", r)
	}
	if id, _ := d.RegionByNative(1); true {
		if r, _ := d.Region(id); r.File != "src/main.c" || r.Line != 10 || r.Kind != model.RegionFunction {
			t.Errorf("function 1: %+v", r)
		}
	}
	if id, _ := d.RegionByNative(3); true {
		if r, _ := d.Region(id); r.Kind != model.RegionComm {
			t.Errorf("MPI_Send: %+v", r)
		}
	}
	if id, ok := d.CommByNative(1000); !ok {
		t.Error("no comm 1000")
	} else if c, _ := d.Comm(id); len(c.Members) != 4 {
		t.Errorf("comm 1000: %+v", c)
	}
	if len(d.Recorded) == 0 {
		t.Error("no recorded statistics")
	}
	kinds := map[model.Kind]int{}
	var last model.Time
	n := 0
	for ev, err := range src.All() {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Time < last {
			t.Fatalf("event %d: time %d after %d", n, ev.Time, last)
		}
		last = ev.Time
		if ev.Loc == 0 {
			t.Fatalf("event %d has no location: %+v", n, ev)
		}
		kinds[ev.Kind]++
		n++
	}
	// Counts from the reference otfprint dump (golden_otfprint.txt): 16
	// BeginCollective + 8 deprecated Collective, 4 comments + 5 + 5
	// process begin/end markers.
	want := map[model.Kind]int{
		model.KindEnter: 67, model.KindLeave: 67, model.KindSend: 10, model.KindRecv: 10,
		model.KindCounter: 11, model.KindCollBegin: 24, model.KindCollEnd: 24, model.KindMarker: 14,
	}
	for k, w := range want {
		if kinds[k] != w {
			t.Errorf("%v: %d events, want %d", k, kinds[k], w)
		}
	}
	// 4 FileOperation, 1+1 begin/end file operation, 15 RMA, 1 NoOp.
	if src.Ignored() != 22 {
		t.Errorf("Ignored() = %d, want 22", src.Ignored())
	}
}

func TestModelSourceAllocs(t *testing.T) {
	fsys, _ := genTrace(t, 3, 5, 50000, false)
	tr, err := Open(fsys, "bench.otf")
	if err != nil {
		t.Fatal(err)
	}
	src, err := NewModelSource(tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		src.Next()
	}
	if n := testing.AllocsPerRun(1000, func() { src.Next() }); n != 0 {
		t.Fatalf("ModelSource.Next allocates %.1f times per event; want 0", n)
	}
}
