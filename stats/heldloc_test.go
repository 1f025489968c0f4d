package stats

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/hpctrace/hpctrace/eventjson"
	"github.com/hpctrace/hpctrace/internal/benchtrace"
	"github.com/hpctrace/hpctrace/model"
)

// TestHeldBytesPerLocation pins what the Accumulator holds per location
// of a large run's trace (internal/benchtrace.Locations: each location
// enters and leaves a region of its own and one they share, calls no
// collective and sends no message) once every event is added: its
// location state, its stack and two region entries, which keep the
// statistics of their sole call edges. The state of open collectives and
// PICL statistics is allocated only by locations that use them; it used
// to cost 48 bytes a location in every one. The two call edges, each
// with its key and its slot in the edges' index, took about 140 bytes
// more (481 bytes a location in all), and the Enter time of an open
// region 16.
func TestHeldBytesPerLocation(t *testing.T) {
	const n = 20000
	var b bytes.Buffer
	if err := benchtrace.Locations(&b, n); err != nil {
		t.Fatal(err)
	}
	r, err := eventjson.NewReader(&b, nil)
	if err != nil {
		t.Fatal(err)
	}
	var evs []model.Event
	for r.Next() {
		evs = append(evs, *r.Event())
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	a := New(r.Defs(), nil)
	for i := range evs {
		a.Add(&evs[i])
	}
	runtime.GC()
	runtime.ReadMemStats(&m1)
	runtime.KeepAlive(a)
	runtime.KeepAlive(evs)
	held := (int64(m1.HeapAlloc) - int64(m0.HeapAlloc)) / n
	const maxHeld = 340 // bytes per location; about 305
	t.Logf("%d bytes per location held", held)
	if held > maxHeld {
		t.Errorf("%d bytes per location held, want at most %d", held, maxHeld)
	}
}

// TestHeldBytesPerLocationText pins what the report of the text
// (FinalTextReport) holds per location of a trace whose locations each
// call a region of their own, tracestat's text report on a run of many
// locations: the rows it prints from, not a row per location and region.
// It held 344 bytes a location with a Function row (80 bytes) per
// location and region, which the text sums over locations anyway; about
// 216 with the flat profile summed per region (a row per region, which
// this trace has as many of as locations), the drill-down of all
// locations and the load imbalance per region.
func TestHeldBytesPerLocationText(t *testing.T) {
	const n = 20000
	a := wideTrace(n, n, false)
	defs := a.Defs()
	rep := a.FinalTextReport("")
	a = nil
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m1)
	if got := rep.Final.LocationsWithEvents(); got != n {
		t.Fatalf("%d locations with events, want %d", got, n)
	}
	rep = nil
	runtime.GC()
	runtime.ReadMemStats(&m0)
	runtime.KeepAlive(defs)
	held := (int64(m1.HeapAlloc) - int64(m0.HeapAlloc)) / n
	const maxHeld = 256 // bytes per location
	t.Logf("%d bytes per location held by the report", held)
	if held > maxHeld {
		t.Errorf("%d bytes per location held by the report, want at most %d", held, maxHeld)
	}
}
