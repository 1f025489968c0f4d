package stats_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
)

// TestMPIProfile: application and MPI time per location, an MPI call
// made inside another counted once, and call sites over locations with
// count, min, mean and max.
func TestMPIProfile(t *testing.T) {
	d := new(model.Defs)
	d.TimeBase.TicksPerSecond = 1000
	a := d.AddLocation(model.Location{Native: 0})
	b := d.AddLocation(model.Location{Native: 1})
	work := d.AddRegion(model.Region{Name: "work", Kind: model.RegionFunction})
	send := d.AddRegion(model.Region{Name: "MPI_Send", Kind: model.RegionComm})
	rank := d.AddRegion(model.Region{Name: "MPI_Comm_rank", Kind: model.RegionFunction}) // MPI by its name
	inner := d.AddRegion(model.Region{Name: "progress", Kind: model.RegionComm})
	evs := []model.Event{
		{Time: 0, Loc: a, Kind: model.KindEnter, Region: rank},
		{Time: 1, Loc: a, Kind: model.KindLeave, Region: rank},
		{Time: 2, Loc: b, Kind: model.KindEnter, Region: work},
		{Time: 10, Loc: a, Kind: model.KindEnter, Region: send},
		{Time: 12, Loc: a, Kind: model.KindEnter, Region: inner}, // inside MPI: not counted again
		{Time: 13, Loc: a, Kind: model.KindLeave, Region: inner},
		{Time: 14, Loc: a, Kind: model.KindLeave, Region: send},
		{Time: 20, Loc: b, Kind: model.KindEnter, Region: send},
		{Time: 30, Loc: b, Kind: model.KindLeave, Region: send},
		{Time: 40, Loc: b, Kind: model.KindEnter, Region: send},
		{Time: 41, Loc: b, Kind: model.KindLeave, Region: send},
		{Time: 50, Loc: a, Kind: model.KindEnter, Region: work},
		{Time: 100, Loc: a, Kind: model.KindLeave, Region: work},
		{Time: 102, Loc: b, Kind: model.KindLeave, Region: work},
	}
	acc := stats.New(d, nil)
	for i := range evs {
		acc.Add(&evs[i])
	}
	p := acc.Finalize().Final.MPI
	wantLocs := []stats.MPILocation{
		{LocID: a, Loc: 0, App: 100, MPI: 5, Percent: 5},
		{LocID: b, Loc: 1, App: 100, MPI: 11, Percent: 11},
	}
	if diff := cmp.Diff(wantLocs, p.Locations); diff != "" {
		t.Errorf("locations (-want +got):\n%s", diff)
	}
	if len(p.Callsites) != 3 {
		t.Fatalf("%d call sites, want 3 (MPI_Send from the root and from work, MPI_Comm_rank): %+v", len(p.Callsites), p.Callsites)
	}
	// MPI_Send from work on b (11 ticks) outranks MPI_Send from the root on a (4).
	got := p.Callsites[0]
	if got.Callee != "MPI_Send" || got.Caller != "work" || got.Count != 2 || got.Total != 11 ||
		got.Min != 1 || got.Max != 10 || got.Mean != 5.5 {
		t.Errorf("first call site %+v; want MPI_Send from work, 2 calls, total 11, min 1, max 10, mean 5.5", got)
	}
	if got.MPIPercent != 100*11.0/16 || got.AppPercent != 100*11.0/200 {
		t.Errorf("first call site: mpi%% %v, app%% %v; want %v, %v", got.MPIPercent, got.AppPercent, 100*11.0/16, 100*11.0/200)
	}
	// Merging shards of one location keeps its span.
	a1, a2 := stats.New(d, nil), stats.New(d, nil)
	for i := range evs {
		if i < 7 {
			a1.Add(&evs[i])
		} else {
			a2.Add(&evs[i])
		}
	}
	a1.Merge(a2)
	if diff := cmp.Diff(wantLocs, a1.Finalize().Final.MPI.Locations); diff != "" {
		t.Errorf("merged shards: locations (-want +got):\n%s", diff)
	}
}
