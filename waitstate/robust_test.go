package waitstate

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/hpctrace/hpctrace/model"
)

// propArbitrary: any stream of events, however inconsistent (leaves
// without enters, unknown regions, locations and communicators, requests
// that never complete, times going backwards), is analysed without a
// panic, and shards of it still join to the one-pass report.
func propArbitrary(t *rapid.T) {
	b := newTB(3)
	for _, n := range []string{"main", "MPI_Send", "MPI_Recv", "MPI_Wait", "MPI_Barrier", "MPI_Reduce", "MPI_Scan", "MPI_Init", "MPI_Finalize", "MPI_Test", "MPI_Ibarrier"} {
		b.reg(n)
	}
	b.defs.AddComm(model.Comm{Name: "self", Self: true})
	b.defs.AddComm(model.Comm{Name: "none"})
	nreg := b.defs.NumRegions()
	n := rapid.IntRange(0, 60).Draw(t, "n")
	for range n {
		ev := model.Event{
			Kind:   model.Kind(rapid.IntRange(1, 13).Draw(t, "kind")),
			Loc:    model.LocID(rapid.IntRange(0, 4).Draw(t, "loc")),
			Time:   model.Time(rapid.IntRange(-5, 50).Draw(t, "time")),
			Region: model.RegionID(rapid.IntRange(0, nreg+1).Draw(t, "region")),
			Peer:   model.LocID(rapid.IntRange(0, 4).Draw(t, "peer")),
			Comm:   model.CommID(rapid.IntRange(0, 4).Draw(t, "comm")),
			Tag:    int32(rapid.IntRange(0, 1).Draw(t, "tag")),
			Match:  uint64(rapid.IntRange(0, 2).Draw(t, "match")),
			Recvd:  int64(rapid.IntRange(0, 1).Draw(t, "recvd")),
			Class:  model.Class(rapid.IntRange(0, 4).Draw(t, "class")),
		}
		b.ev = append(b.ev, ev)
	}
	want, err := Analyze(model.NewSliceSource(b.defs, b.ev), nil)
	if err != nil {
		t.Fatal(err)
	}
	x, y := New(b.defs, nil), New(b.defs, nil)
	for i := range b.ev {
		if b.ev[i].Loc%2 == 0 {
			x.Add(&b.ev[i])
		} else {
			y.Add(&b.ev[i])
		}
	}
	var z Analyzer
	z.defs = b.defs
	if err := z.UnmarshalBinary(mustMarshal(t, y)); err != nil {
		t.Fatal(err)
	}
	if err := x.Join(&z); err != nil {
		t.Fatal(err)
	}
	got, err := x.Finalize()
	if err != nil {
		t.Fatal(err)
	}
	if string(textOf(t, want)) != string(textOf(t, got)) {
		t.Fatal("joined shards differ from one pass")
	}
	for range Instances(model.NewSliceSource(b.defs, b.ev), nil) {
	}
	checkMessagesStream(t, b.defs, b.ev)
}

func TestArbitrary(t *testing.T) { rapid.Check(t, propArbitrary) }

func FuzzArbitrary(f *testing.F) { f.Fuzz(rapid.MakeFuzz(propArbitrary)) }
