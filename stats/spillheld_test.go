package stats

import (
	"runtime"
	"testing"

	"github.com/hpctrace/hpctrace/model"
)

// TestHeldBytesWaitingEnds pins what the Accumulator holds per message
// end that waits for a partner to the end of the run (a send no rank
// receives): past the first few thousand, such ends spill to the
// temporary file, and each keeps its queue entry, its place in the
// eviction order and its slot, 20 bytes. Held in memory with its
// operation, an end cost about 150 bytes, so the memory of a run that
// leaves ends unmatched grew with its length.
func TestHeldBytesWaitingEnds(t *testing.T) {
	d := new(model.Defs)
	d.TimeBase.TicksPerSecond = 1000
	for i := range 3 {
		d.AddLocation(model.Location{Native: int64(i), Process: int32(i)})
	}
	send := d.AddRegion(model.Region{Name: "MPI_Isend", Kind: model.RegionComm})
	held := func(n int) int64 {
		evs := make([]model.Event, 0, 3*n)
		for i := range n {
			tm := model.Time(2 * i)
			loc := model.LocID(1 + i%2)
			evs = append(evs, model.Event{Time: tm, Loc: loc, Kind: model.KindEnter, Region: send},
				model.Event{Time: tm, Loc: loc, Kind: model.KindSend, Peer: 3, Tag: int32(i % 5), Bytes: 8},
				model.Event{Time: tm + 1, Loc: loc, Kind: model.KindLeave, Region: send})
		}
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		a := New(d, nil)
		for i := range evs {
			a.Add(&evs[i])
		}
		runtime.GC()
		runtime.ReadMemStats(&m1)
		runtime.KeepAlive(evs)
		if a.comm.npend != n {
			t.Fatalf("%d ends wait, want %d", a.comm.npend, n)
		}
		runtime.KeepAlive(a)
		a.comm.sp.close()
		return int64(m1.HeapAlloc) - int64(m0.HeapAlloc)
	}
	const n = 20000
	h1, h3 := held(n), held(3*n)
	per := (h3 - h1) / (2 * n)
	const maxPer = 40 // bytes per waiting end; about 20
	t.Logf("held %d bytes at %d waiting ends, %d at %d: %d bytes per end", h1, n, h3, 3*n, per)
	if per > maxPer {
		t.Errorf("%d bytes held per waiting end, want at most %d", per, maxPer)
	}
}
