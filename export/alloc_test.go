package export_test

import (
	"io"
	"testing"

	"github.com/hpctrace/hpctrace/export"
	"github.com/hpctrace/hpctrace/model"
)

// steadyTrace returns the definitions of two locations and a round of
// events that leaves nothing open: enter, send, leave on one location,
// enter, receive, leave on the other, a collective on both.
func steadyTrace() (*model.Defs, []model.Event) {
	d := new(model.Defs)
	d.TimeBase.TicksPerSecond = 1e9
	a := d.AddLocation(model.Location{Name: "a"})
	b := d.AddLocation(model.Location{Name: "b", Process: 1})
	s := d.AddRegion(model.Region{Name: "MPI_Send", Kind: model.RegionComm})
	r := d.AddRegion(model.Region{Name: "MPI_Recv", Kind: model.RegionComm})
	c := d.AddRegion(model.Region{Name: "MPI_Barrier", Kind: model.RegionCollective})
	w := d.AddComm(model.Comm{Name: "world"})
	return d, []model.Event{
		{Loc: a, Kind: model.KindEnter, Region: s},
		{Loc: a, Kind: model.KindSend, Peer: b, Bytes: 8, Comm: w},
		{Loc: a, Kind: model.KindLeave, Region: s},
		{Loc: b, Kind: model.KindEnter, Region: r},
		{Loc: b, Kind: model.KindRecv, Peer: a, Bytes: 8, Comm: w},
		{Loc: b, Kind: model.KindLeave, Region: r},
		{Loc: a, Kind: model.KindCollBegin, Region: c, Comm: w},
		{Loc: b, Kind: model.KindCollBegin, Region: c, Comm: w},
		{Loc: a, Kind: model.KindCollEnd},
		{Loc: b, Kind: model.KindCollEnd},
	}
}

// TestSteadyAllocs pins that the Chrome writer, the pairer and the
// timeline allocate nothing per event once a trace's definitions and
// channels are known: their memory does not grow with the trace.
func TestSteadyAllocs(t *testing.T) {
	d, round := steadyTrace()
	var now model.Time
	next := func() {
		for i := range round {
			now += 10
			round[i].Time = now
		}
	}
	cw, err := export.NewChromeWriter(io.Discard, d)
	if err != nil {
		t.Fatal(err)
	}
	write := func() {
		next()
		for i := range round {
			cw.Write(&round[i])
		}
	}
	write()
	if n := testing.AllocsPerRun(1000, write); n != 0 {
		t.Errorf("ChromeWriter: %v allocations per round", n)
	}
	pr := export.NewPairer(d, nil)
	emit := func(*export.MessageRow) error { return nil }
	pair := func() {
		next()
		for i := range round {
			pr.Add(&round[i], emit)
		}
	}
	pair()
	if n := testing.AllocsPerRun(1000, pair); n != 0 {
		t.Errorf("Pairer: %v allocations per round", n)
	}
	tl := export.NewTimeline(d, &export.TimelineOptions{Columns: 100, MaxDetail: -1})
	add := func() {
		next()
		for i := range round {
			tl.Add(&round[i])
		}
	}
	for range 200 {
		add() // past the widening of the first rounds
	}
	// New bundles and the widening of the columns allocate now and then.
	if n := testing.AllocsPerRun(1000, add); n > 0.1 {
		t.Errorf("Timeline: %v allocations per round", n)
	}
}
